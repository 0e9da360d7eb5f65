import Localization
import Foundation
import Config
import Prediction
import Shell
import Testing
import TrackingCore

/// The phrase board: phrases said at once, counted, kept in phrases.txt; "save phrase" adds what was typed.
@Suite struct PhraseBoardTests {
    static func said(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case let .speak(u) = $0 { u.text } else { nil } }
    }

    @Test(arguments: InputPath.allCases)
    func aPhraseIsSaidAtOnceAndCountedInTheFile(_ path: InputPath) throws {
        let files = MemoryFiles([:])
        var d = Driver(path, screen: "phrases", files: .memory(files))
        #expect(d.text.contains("Hello!") && d.text.contains("Greetings"))
        d.activate("phrases.group.needs")
        #expect(d.text.contains("I need help."))
        let third = try #require(d.state.data.phrases(in: "needs").dropFirst(2).first)
        #expect(Self.said(d.activate("phrases.say.2")) == [third.text])
        let saved = files.files.withLock { $0[AppData.phrasesFile] } ?? ""
        #expect(saved.hasPrefix("handsfree-phrases 1\n"))
        #expect(saved.contains("phrase\tneeds\t1\t\(third.text)\n"))
        // The order holds while the board shows: the same tile says the same phrase again.
        #expect(Self.said(d.activate("phrases.say.2")) == [third.text])
        // Opened again, the most used comes first.
        d.key(.escape)
        d.activate("launcher.phrases")
        d.activate("phrases.group.needs")
        #expect(Self.said(d.activate("phrases.say.0")) == [third.text])
    }

    /// No speaker: a phrase that could not be heard is shown full-screen in big letters with the reason, and
    /// the usual back (the gesture, Esc, the button) returns to the board.
    @Test(arguments: InputPath.allCases)
    func aPhraseNotHeardIsShownInBigLettersUntilBack(_ path: InputPath) throws {
        var d = Driver(path, screen: "phrases")
        #expect(Self.said(d.activate("phrases.say.1")) == ["Good morning."])
        _ = d.send(.speaking(true))
        _ = d.send(.notHeard(problem: .verbatim("speaker \"default\": no such device")))
        _ = d.send(.speaking(false))
        #expect(d.screen == "phrase-show")
        let text = d.text
        #expect(text.contains("Home › Phrases › Show phrase"), "\(text)")
        #expect(text.contains("Not spoken aloud: speaker \"default\": no such device"), "\(text)")
        let big = try #require(BigText.lines("Good morning.", width: 96))
        for row in big[0] { #expect(text.contains(row.trimmingCharacters(in: .whitespaces)), "\(text)") }
        #expect(!d.lines.dropFirst(4).joined().contains("Good morning."), "shown big, not as a line of text")
        switch path {
        case .gesture: d.gesture("back")
        case .dwell: d.activate(PhraseShowScreen.backID)
        case .keyboard: d.key(.escape)
        }
        #expect(d.screen == "phrases")
        // A problem with no phrase just said shows nothing new.
        _ = d.send(.notHeard(problem: .verbatim("speaker \"default\": no such device")))
        #expect(d.screen == "phrases")
    }

    /// A phrase too long for big letters, or with letters the big font lacks, is shown as plain bold text.
    @Test func aLongPhraseIsShownWhole() {
        var s = ShellState(keymap: Fixture.keymap("default"), size: Size(width: 80, height: 24))
        s.stack.append(PhraseShowScreen(text: "Could you please open the window a little, it is too warm in here — merci", why: .verbatim("no speaker")))
        s.relayout()
        let text = render(s, size: s.size).0.text
        #expect(text.contains("Could you please open the window a little, it is too warm in here — merci"), "\(text)")
    }

    @Test func bigLettersAt80And100Columns() throws {
        for size in [Size(width: 80, height: 24), Size(width: 100, height: 30)] {
            var s = ShellState(keymap: Fixture.keymap("default"), size: size)
            s.stack.append(PhraseShowScreen(text: "I need help.", why: UIMessage("Speech output is off in this run")))
            s.relayout()
            let g = render(s, size: s.size).0
            #expect(g.lines.filter { $0.contains("█") }.count == 5, "\(g.text)")
            if size.width == 80 { try GoldenTests().check("phrase-show-80x24", g) }
        }
    }

    /// Removing a phrase hands-free: remove mode, pick the phrase, then the held confirmation (the smile, or
    /// activating it again with a gaze-only keymap, or y from a helper); the file loses it at once.
    @Test(arguments: InputPath.allCases)
    func aPhraseIsRemovedByRemoveModeAndAHeldConfirmation(_ path: InputPath) throws {
        let files = MemoryFiles([:])
        var d = Driver(path, screen: "phrases", files: .memory(files))
        d.activate("phrases.group.needs")
        let before = d.state.data.phrases(in: "needs").map(\.text)
        let second = try #require(before.dropFirst().first)
        d.activate(PhrasesScreen.removeModeID)
        #expect(d.text.contains("✕ " + second) && d.text.contains("✓ Done removing"))
        // In remove mode a phrase is not said; picking it arms the removal, and cancelling keeps it.
        #expect(Self.said(d.activate("phrases.pick.1")).isEmpty)
        d.activate(PhrasesScreen.removeID + ".cancel")
        #expect(d.state.data.phrases(in: "needs").map(\.text) == before)
        d.activate("phrases.pick.1")
        switch path {
        case .gesture: d.gesture("confirm")
        case .dwell: d.activate(PhrasesScreen.removeID)
        case .keyboard: d.key(.char("y"))
        }
        #expect(d.state.data.phrases(in: "needs").map(\.text) == before.filter { $0 != second })
        #expect(!(files.files.withLock { $0[AppData.phrasesFile] } ?? "").contains(second))
        // Done: phrases are said again.
        d.activate(PhrasesScreen.removeModeID)
        #expect(Self.said(d.activate("phrases.say.1")) == [before[2]])
    }

    @Test func savePhraseKeepsTheSentenceWrittenOnTheBoard() {
        let files = MemoryFiles([:])
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Hi. Please bring my glasses."))
        var d = Driver(.gesture, screen: "notes", files: .memory(files), data: data)
        d.activate("notes.note.1")
        d.send(.speech("save phrase", isFinal: true))
        #expect(d.text.contains("Saved “Please bring my glasses.” to your phrases"))
        #expect(d.state.data.phrases(in: "saved").map(\.text) == ["Please bring my glasses."])
        #expect((files.files.withLock { $0[AppData.phrasesFile] } ?? "").contains("phrase\tsaved\t0\tPlease bring my glasses.\n"))
    }

    @Test func anEditedFileIsReadAndADamagedLineKeptAside() {
        let files = MemoryFiles([AppData.phrasesFile: "handsfree-phrases 1\nphrase\tanswers\t2\tAbsolutely.\nphrase\tneeds\tmany\tBroken line\n"])
        let data = AppData.load(.memory(files))
        #expect(data.phrases == [Phrase(group: "answers", text: "Absolutely.", uses: 2)])
        #expect(data.phrasesProblem?.english.contains("Damaged file phrases.txt kept as phrases.txt.corrupt-1") == true)
        #expect(files.files.withLock { $0["phrases.txt.corrupt-1"] }?.contains("Broken line") == true)
    }

    /// Issue 49: a phrase said 9223372036854775807 times trapped the shell when said once more. A count past
    /// the limit is a damaged line, named with its file and line and kept aside; one at the limit stays there.
    @Test func usesPastTheLimitAreKeptAsideAndUsesAtTheLimitStopThere() {
        let files = MemoryFiles([AppData.phrasesFile: """
            handsfree-phrases 1
            phrase\tanswers\t1000000000000\tAbsolutely.
            phrase\tanswers\t9223372036854775807\tNever.
            phrase\tneeds\t99999999999999999999\tWater.

            """])
        var d = Driver(.gesture, screen: "phrases", files: .memory(files), data: AppData.load(.memory(files)))
        #expect(d.state.data.phrases == [Phrase(group: "answers", text: "Absolutely.", uses: Counts.limit)])
        #expect(d.state.data.phrasesProblem?.english == "Damaged file phrases.txt kept as phrases.txt.corrupt-1: 2 lines could not be read "
                + "(phrases.txt:3: uses 9223372036854775807 is out of range (at most 1000000000000)), 1 entry kept.")
        #expect(files.files.withLock { $0["phrases.txt.corrupt-1"] }?.contains("Never.") == true)
        d.activate("phrases.group.answers")
        d.activate("phrases.say.0")
        #expect(d.state.data.phrases.first?.uses == Counts.limit)
        #expect((files.files.withLock { $0[AppData.phrasesFile] } ?? "").contains("phrase\tanswers\t1000000000000\tAbsolutely.\n"))
    }

    /// A note numbered at the limit: the next note takes a free number, never one past what a file may hold.
    @Test func aNewNoteAfterOneNumberedAtTheLimitGetsAFreeNumber() {
        var data = AppData.load(.memory([AppData.notesFile: "handsfree-notes 1\nnote\t1\tone\nnote\t1000000000000\tlast\n"]))
        #expect(data.notesProblem == nil)
        #expect(data.newNoteID() == 2)
        data.apply(.setNote(id: data.newNoteID(), text: "two"))
        #expect(data.note(id: 2)?.text == "two")
    }
}
