import Localization
import Shell
import Synchronization
import Testing

/// Files as bytes, as the live store sees them (the `memory` client holds only valid text): reads decode
/// through `FileRead.decoding`, a moved-aside file keeps its exact bytes.
final class ByteFiles: Sendable {
    let files: Mutex<[String: [UInt8]]>
    /// Names `moveAside` refuses to move (a file in a folder the user may not rename in).
    let stuck: Set<String>
    init(_ files: [String: [UInt8]], stuck: Set<String> = []) { self.files = Mutex(files); self.stuck = stuck }

    var client: StoreClient {
        StoreClient(
            read: { name in self.files.withLock { $0[name].map(FileRead.decoding) ?? .missing } },
            write: { name, text in self.files.withLock { $0[name] = Array(text.utf8) }; return nil },
            moveAside: { name in
                guard !self.stuck.contains(name) else { return nil }
                return self.files.withLock { StoreClient.moveAside(name, in: &$0) }
            })
    }

    func text(_ name: String) -> String? { files.withLock { $0[name].map { String(decoding: $0, as: UTF8.self) } } }
}

/// No input can lose the user's text: unreadable files are kept aside and their readable part shown, the
/// caret never leaves the text whatever is inserted, and invisible control characters are never stored.
@Suite struct StorageTrustTests {
    // MARK: a file that cannot be read whole is never overwritten

    static let latin1Notes: [UInt8] = Array("handsfree-notes 1\nnote\t1\tcaf".utf8) + [0xE9] + Array("\nnote\t2\tsecond note\n".utf8)

    @Test func oneNonUTF8ByteKeepsEveryNoteAndTheOriginal() {
        let files = ByteFiles([AppData.notesFile: StorageTrustTests.latin1Notes])
        var store = AppData.load(files.client)
        #expect(store.notes.map(\.text).sorted() == ["caf\u{FFFD}", "second note"], "the readable part is shown")
        let problem = store.notesProblem?.english ?? ""
        #expect(problem.contains("kept as notes.txt.corrupt-1"), "\(problem)")
        #expect(problem.contains("not UTF-8"), "\(problem)")
        #expect(files.files.withLock { $0["notes.txt.corrupt-1"] } == StorageTrustTests.latin1Notes, "the original, byte for byte")
        // The first keystroke of a new note must not drop the old ones.
        store.apply(.setNote(id: store.newNoteID(), text: "n"))
        store.save(with: files.client)
        let saved = files.text(AppData.notesFile) ?? ""
        #expect(saved.contains("\tsecond note\n") && saved.contains("\tcaf\u{FFFD}\n") && saved.contains("\tn\n"), "\(saved)")
        #expect(files.files.withLock { $0["notes.txt.corrupt-1"] } == StorageTrustTests.latin1Notes, "never overwritten")
        // The next start reads the saved file cleanly: no new copy, no problem.
        let again = AppData.load(files.client)
        #expect(again.notes.count == 3)
        #expect(again.notesProblem == nil)
    }

    /// The banner of a damaged file and of a failed save is in the user's language, the file names kept.
    @Test(arguments: LanguageTests.languages)
    func theStorageBannersReadInTheLanguage(_ lang: String) throws {
        let catalog = try LanguageTests.catalog(lang)
        var store = AppData.load(ByteFiles([AppData.notesFile: StorageTrustTests.latin1Notes]).client)
        let damaged = try #require(store.notesProblem).text(catalog)
        #expect(damaged.contains("notes.txt") && damaged.contains("notes.txt.corrupt-1"), "\(lang): \(damaged)")
        for english in ["Damaged", "kept as", "not UTF-8 text", "shown as", "entries kept"] {
            #expect(!damaged.contains(english), "\(lang): \(damaged)")
        }
        store.saved(AppData.notesFile, error: .verbatim("disk full"))
        let unsaved = try #require(store.notesProblem).text(catalog)
        #expect(unsaved.contains("disk full") && !unsaved.contains("Not saved"), "\(lang): \(unsaved)")
        store.saved(AppData.notesFile, error: nil)
        #expect(store.notesProblem == nil)
    }

    @Test func aMessagesFileWithABadByteKeepsItsMessages() {
        let bytes = Array("handsfree-messages 1\nmsg\tana\tthem\tol".utf8) + [0xC3, 0x28] + Array("\nmsg\tana\tme\thello\n".utf8)
        let files = ByteFiles([AppData.messagesFile: bytes])
        var store = AppData.load(files.client)
        #expect(store.messages(with: "ana").map(\.text) == ["ol\u{FFFD}(", "hello"])
        #expect(store.messagesProblem?.english.contains("kept as messages.txt.corrupt-1") == true)
        store.apply(.send("again", to: "ana", at: 0))
        store.save(with: files.client)
        #expect(files.text(AppData.messagesFile)?.contains("\thello\n") == true)
        #expect(files.files.withLock { $0["messages.txt.corrupt-1"] } == bytes)
    }

    @Test func aFileThatCannotBeReadNorMovedIsNeverSavedOver() {
        let files = ByteFiles([AppData.notesFile: StorageTrustTests.latin1Notes], stuck: [AppData.notesFile])
        var store = AppData.load(files.client)
        #expect(store.notes.count == 2)
        #expect(store.notesProblem?.english.contains("nothing is saved over it") == true)
        store.apply(.setNote(id: 7, text: "typed"))
        store.save(with: files.client)
        #expect(files.files.withLock { $0[AppData.notesFile] } == StorageTrustTests.latin1Notes)
        #expect(store.note(id: 7)?.text == "typed", "the text stays in memory and on screen")
        #expect(store.notesProblem?.english.hasPrefix("Not saved, your text stays here") == true)
    }

    @Test func anUnreadableFileIsMovedAsideBeforeAnythingIsSaved() {
        let moved = Mutex<[String]>([])
        let files = MemoryFiles([:])
        let client = StoreClient(read: { $0 == AppData.notesFile ? .failed("Permission denied") : .missing },
                                 write: StoreClient.memory(files).write,
                                 moveAside: { name in moved.withLock { $0.append(name) }; return name + ".corrupt-1" })
        let store = AppData.load(client)
        #expect(store.notes.isEmpty)
        #expect(store.notesProblem?.english == "Damaged file notes.txt kept as notes.txt.corrupt-1: cannot be read (Permission denied), 0 entries kept.")
        #expect(moved.withLock { $0 } == [AppData.notesFile], "moved before the first save")
    }

    // MARK: control characters

    @Test func strayControlCharactersAreDroppedNotTheLine() {
        let (records, bad) = RecordFile.decode("handsfree-notes 1\nnote\t1\tbuy\u{0} milk\u{1}\u{1B}\nnote\t2\tok\r\n", fields: 3)
        #expect(records == [["note", "1", "buy milk"], ["note", "2", "ok"]])
        #expect(bad == 0)
        #expect(RecordFile.encode(header: "h", [["note", "1", "a\u{0}b\u{7F}c"]]) == "h\nnote\t1\tabc\n")
    }

    @Test func aNoteWithAControlCharacterSurvivesARestart() {
        let files = MemoryFiles([:])
        var d = Driver(.keyboard, screen: "note-editor", files: .memory(files))
        d.type("a\u{0}b\u{1}c\td\u{1B}")
        #expect(d.text.contains("abc d▏") || d.text.contains("abc\td▏") || d.text.contains("abc"), "\(d.text)")
        let saved = files.files.withLock { $0[AppData.notesFile] } ?? ""
        #expect(saved == "handsfree-notes 1\nnote\t1\tabc\\td\n")
        let again = AppData.load(.memory(files))
        #expect(again.notes.map(\.text) == ["abc\td"])
        #expect(again.notesProblem == nil)
    }

    @Test func theFieldKeepsNoInvisibleControlCharacters() {
        var m = TextFieldModel("x\u{0}y")
        #expect(m.text == "xy")
        m.insert("\u{1}\u{7}\u{85}")
        #expect(m.text == "xy" && m.caret == 2)
        m.insert("a\nb\tc\r\n")
        #expect(m.text == "xya\nb\tc\n")
        m.set("q\u{0}")
        #expect(m.text == "q")
    }

    // MARK: grapheme clusters

    @Test func aCombiningAccentJoinsTheLetterAndTypingGoesOn() {
        var m = TextFieldModel()
        for s in ["c", "a", "f", "e", "\u{301}", "s"] { m.insert(s) }
        #expect(m.text == "cafe\u{301}s")
        #expect(m.text.count == 5 && m.caret == 5)
        m.backspace(); m.backspace()
        #expect(m.text == "caf" && m.caret == 3)
    }

    @Test func aFlagTypedInHalvesIsDeletedWhole() {
        var m = TextFieldModel("x")
        m.insert("\u{1F1E9}"); m.insert("\u{1F1EA}")
        #expect(m.text == "x🇩🇪" && m.caret == 2)
        m.backspace()
        #expect(m.text == "x" && m.caret == 1)
        m.backspace(); m.backspace()
        #expect(m.text.isEmpty && m.caret == 0)
    }

    @Test func aKeyboardHelperTypesCombiningMarksIntoANote() {
        let files = MemoryFiles([:])
        var d = Driver(.keyboard, screen: "note-editor", files: .memory(files))
        d.type("cafe\u{301}s")
        d.key(.backspace)
        d.type("\u{1F1E9}\u{1F1EA}")
        d.key(.backspace)
        d.type("!")
        #expect(d.text.contains("cafe\u{301}!▏"), "\(d.text)")
        #expect(files.files.withLock { $0[AppData.notesFile] } == "handsfree-notes 1\nnote\t1\tcafe\u{301}!\n")
    }

    /// Any mix of inserts (lone accents, joiners, halves of flags, emoji parts), caret moves, backspaces and
    /// word deletions keeps the caret inside the text and never traps (seeded, so it runs the same each time).
    @Test func randomEditsKeepTheCaretInsideTheText() {
        var rng = SplitMix(seed: 14)
        let pieces = ["a", "e", "\u{301}", "\u{308}", " ", "\n", "\u{200D}", "\u{1F1E9}", "\u{1F1EA}", "👩", "🏽", "❤",
                      "\u{FE0F}", "ก", "\u{E31}", "한", "\u{1100}", "\u{1161}", "\u{0}", "\r", "\r\n", "e\u{301}s", "🇫🇷x"]
        for _ in 0..<300 {
            var m = TextFieldModel()
            for _ in 0..<40 {
                switch rng.next() % 10 {
                case 0: m.backspace()
                case 1: m.deleteWord()
                case 2: m.moveCaret(to: Int(rng.next() % UInt64(m.text.count + 2)))
                default: m.insert(pieces[Int(rng.next() % UInt64(pieces.count))])
                }
                #expect((0...m.text.count).contains(m.caret))
                _ = m.lines(width: 7)
                _ = m.caretPosition(width: 7)
                _ = m.beforeCaret
            }
            #expect(!m.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
        }
    }

    // MARK: drafts

    @Test func aMessageDraftIsSavedAsItIsTypedAndComesBack() {
        let files = MemoryFiles([:])
        var d = Driver(.keyboard, screen: "messages", files: .memory(files))
        d.activate("messages.contact.ben")
        #expect(d.screen == "conversation")
        d.type("see you at")
        #expect(files.files.withLock { $0[AppData.draftsFile] } == "handsfree-drafts 1\ndraft\tben\tsee you at\n")
        // A new start (a crash, a kill): the draft is in the compose field when the conversation opens.
        var again = Driver(.keyboard, screen: "messages", files: .memory(files))
        again.activate("messages.contact.ben")
        #expect(again.text.contains("see you at▏"), "\(again.text)")
        again.activate("conversation.send")
        #expect(files.files.withLock { $0[AppData.draftsFile] } == "handsfree-drafts 1\n", "sent: no draft left")
        #expect(files.files.withLock { $0[AppData.messagesFile] }?.contains("\tben\tme\tsee you at\n") == true)
    }
}

/// A small seeded generator, so "random" tests run the same every time.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
