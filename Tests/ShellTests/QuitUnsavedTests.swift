import Config
import Localization
import Shell
import Testing

/// Quitting never throws away text that could not be saved: the shell asks first, offers to write a copy
/// elsewhere, and quits anyway only when the user confirms.
@Suite struct QuitUnsavedTests {
    /// A note typed while every save fails, then back to Home.
    static func unsavedNote(_ path: InputPath) -> Driver {
        var d = Driver(path, screen: "note-editor", files: .memory(failWrites: "cannot write in /data (Read-only file system)"))
        d.type("my words")
        #expect(d.data.notesProblem?.english.hasPrefix("Not saved, your text stays here") == true)
        d.key(.escape)
        d.key(.escape)
        #expect(d.screen == "launcher")
        return d
    }

    @Test func withEverythingSavedQuitQuitsAtOnce() {
        var d = Driver(.keyboard, screen: "launcher")
        let effects = d.send(.key(.char("q")))
        #expect(effects.contains(.quit))
    }

    @Test(arguments: InputPath.allCases)
    func quittingWithUnsavedTextAsksFirst(_ path: InputPath) {
        var d = Self.unsavedNote(path)
        let effects = d.send(.key(.char("q")))
        #expect(!effects.contains(.quit), "the text would be gone")
        #expect(d.screen == "quit")
        #expect(d.text.contains("Not saved: your note (cannot write in /data (Read-only file system))"), "\(d.text)")
        #expect(d.text.contains("Save a copy and quit") && d.text.contains("Quit anyway") && d.text.contains("Stay with my text"))
        // The phrase said on the launcher asks too.
        d.activate("quit.stay")
        #expect(d.screen == "launcher")
        let said = d.send(.speech("quit shell", isFinal: true))
        #expect(!said.contains(.quit))
        #expect(d.screen == "quit")
    }

    @Test(arguments: InputPath.allCases)
    func saveACopyWritesTheUnsavedTextThenQuits(_ path: InputPath) {
        var d = Self.unsavedNote(path)
        d.key(.char("q"))
        let effects = d.activate("quit.save")
        guard let files = effects.compactMap({ if case .rescue(let f) = $0 { f } else { nil } }).first else {
            Issue.record("no rescue effect in \(effects)")
            return
        }
        #expect(files == [AppData.notesFile: "handsfree-notes 1\nnote\t1\tmy words\n"])
        #expect(!effects.contains(.quit), "not before the copy is written")
        #expect(d.text.contains("Writing a copy…"))
        #expect(d.activate("quit.save").allSatisfy { if case .rescue = $0 { false } else { true } }, "one copy, not two")
        let done = d.send(.rescued(place: "/home/u/.local/state/handsfree/handsfree-unsaved-1", error: nil))
        #expect(done.contains(.quit))
        #expect(d.state.notice == "Your unsaved text was written to /home/u/.local/state/handsfree/handsfree-unsaved-1")
    }

    @Test func aCopyThatCannotBeWrittenKeepsTheShellAndTheText() {
        var d = Self.unsavedNote(.keyboard)
        d.key(.char("q"))
        d.activate("quit.save")
        let effects = d.send(.rescued(place: nil, error: "/state: No space left on device; /tmp: No space left on device"))
        #expect(!effects.contains(.quit))
        #expect(d.screen == "quit")
        #expect(d.text.contains("No copy could be written (/state: No space left on device"), "\(d.text)")
        #expect(d.text.contains("Save a copy and quit"), "it can be tried again")
        #expect(d.data.note(id: 1)?.text == "my words")
    }

    @Test func quitAnywayNeedsTheConfirmGesture() {
        var d = Self.unsavedNote(.gesture)
        d.key(.char("q"))
        let armed = d.activate("quit.anyway")
        #expect(!armed.contains(.quit), "activating only arms it")
        #expect(d.text.contains("to quit anyway"), "\(d.text)")
        #expect(d.gesture("confirm").contains(.quit))
    }

    @Test func quitAnywayByVoiceOrByAHelper() {
        var spoken = Self.unsavedNote(.keyboard)
        spoken.key(.char("q"))
        #expect(spoken.send(.speech("quit anyway", isFinal: true)).contains(.quit))

        var helper = Self.unsavedNote(.keyboard)
        helper.key(.char("q"))
        helper.activate("quit.anyway")
        #expect(helper.send(.key(.char("y"))).contains(.quit))
    }

    @Test func stayingKeepsTheTextAndALaterSaveEndsTheQuestion() {
        let box = MemoryFiles([:])
        var d = Driver(.keyboard, screen: "note-editor", files: .memory(box))
        d.type("fine")
        // The disk comes back: nothing is unsaved, so quit quits.
        _ = d.send(.saved(name: AppData.notesFile, error: .verbatim("disk full")))
        d.key(.escape)
        d.key(.escape)
        d.key(.char("q"))
        #expect(d.screen == "quit")
        d.activate("quit.stay")
        _ = d.send(.saved(name: AppData.notesFile, error: nil))
        #expect(d.data.unsavedFiles.isEmpty)
        #expect(d.send(.key(.char("q"))).contains(.quit))
    }
}
