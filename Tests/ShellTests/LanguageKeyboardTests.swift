import Config
import Foundation
import Localization
import Shell
import Testing
import TrackingCore

/// The keyboard and the phrase board in the language: the pack's letters on the gaze keyboard (no second
/// layer), the accent key on the letter before the caret, and the pack's phrases on the board, read from the
/// shipped `languages/LL/pack.toml` as the runtime reads them.
@Suite struct LanguageKeyboardTests {
    /// The shipped keyboard and phrases of `lang`.
    static func board(_ lang: String) throws -> LanguageBoard {
        let path = Fixture.root + "/languages/\(lang)/pack.toml"
        let doc = try TOMLDocument(text: try String(contentsOfFile: path, encoding: .utf8), file: path)
        return try #require(try LanguageBoard.parse(doc, code: lang))
    }

    /// A note editor in `lang`: its catalog, its keyboard and its phrases loaded as a language switch loads them.
    static func editor(_ lang: String, size: Size = Size(width: 80, height: 24)) throws -> Driver {
        var d = Driver(.dwell, screen: "note-editor")
        _ = d.send(.resized(size))
        _ = d.send(.languageLoaded(try LanguageTests.catalog(lang)))
        _ = d.send(.languageBoardLoaded(try board(lang)))
        return d
    }

    static func editorText(_ d: Driver) -> String? { (d.state.top as? NoteEditorScreen)?.field.text }

    /// The key of `ch` on the note editor's keyboard, nil when there is none.
    static func key(_ ch: Character, _ d: Driver) -> Target? {
        d.state.hitMap.target(id: "note-editor.keyboard.key.\(ch)")
    }

    @Test(arguments: [("es", "ñ¿¡"), ("fr", "éèàçù"), ("de", "äöüß"), ("it", "èòàù"), ("pt", "ãáçéõ"), ("nl", "éë")])
    func theLanguagesLettersAreKeysAndTypingThemReachesTheText(_ lang: String, _ letters: String) throws {
        var d = try Self.editor(lang)
        for ch in letters {
            let k = try #require(Self.key(ch, d), "no \(ch) key on the \(lang) keyboard:\n\(d.text)")
            // Large enough to hit by gaze at 80×24: as tall as the English keys, and wide enough to read.
            #expect(k.rect.w >= 4 && k.rect.h >= 2, "\(ch): \(k.rect)")
            d.activate(k.id)
        }
        #expect(Self.editorText(d) == letters)
        // The keys are drawn, with the English ones still in their places.
        let screen = d.text
        for ch in letters { #expect(screen.contains(ch), "\(ch) not drawn:\n\(screen)") }
        for ch in "qwertyuiopasdfghjklzxcvbnm" { #expect(Self.key(ch, d) != nil, "\(ch) is gone on \(lang)") }
    }

    @Test func englishKeepsItsKeyboard() throws {
        var d = Driver(.dwell, screen: "note-editor")
        _ = d.send(.resized(Size(width: 80, height: 24)))
        let before = d.state.hitMap.targets.map(\.id)
        _ = d.send(.languageBoardLoaded(.english))
        #expect(d.state.hitMap.targets.map(\.id) == before)
        #expect(d.state.hitMap.target(id: "note-editor.keyboard.accent") == nil)
        #expect(Self.key("ñ", d) == nil)
    }

    @Test func theAccentKeyCyclesTheLetterBeforeTheCaret() throws {
        var d = try Self.editor("fr")
        d.type("caf")
        d.activate("note-editor.keyboard.key.e")
        var seen: [String] = []
        for _ in 0..<5 {
            d.activate("note-editor.keyboard.accent")
            seen.append(Self.editorText(d) ?? "")
        }
        #expect(seen == ["café", "cafè", "cafê", "cafë", "cafe"])
        // A capital stays a capital; a letter with no accent is left as it is.
        d.type(" E")
        d.activate("note-editor.keyboard.accent")
        #expect(Self.editorText(d) == "cafe É")
        d.type("t")
        d.activate("note-editor.keyboard.accent")
        #expect(Self.editorText(d) == "cafe Ét")
    }

    @Test func theAccentKeyActsOnTheWordBeingPredicted() throws {
        // The bar offers what the text before the caret leads to: after the accent, the accented word.
        let suggest: @Sendable (String, Int) -> [String] = { text, _ in text.hasSuffix("cancio") || text.hasSuffix("canció") ? ["canción"] : [] }
        var d = Driver(.dwell, screen: "note-editor", suggest: suggest)
        _ = d.send(.resized(Size(width: 80, height: 24)))
        _ = d.send(.languageBoardLoaded(try Self.board("es")))
        d.type("cancio")
        d.activate("note-editor.keyboard.accent")
        #expect(Self.editorText(d) == "canció")
        #expect(d.text.contains("canción"))
        d.activate("note-editor.suggestion.0")
        #expect(Self.editorText(d) == "canción ")
        // German: the umlaut, and ß from s.
        _ = d.send(.languageBoardLoaded(try Self.board("de")))
        d.type("Strass")
        d.activate("note-editor.keyboard.accent")
        #expect(Self.editorText(d) == "canción Strasß")
    }

    @Test func aBrokenKeyboardTableIsRefusedWithItsLine() throws {
        for (text, line, says) in [
            ("code = \"xx\"\n[keyboard]\nletters = [\"ñ\", \"ñ\"]\n", 3, "\"ñ\" is listed twice"),
            ("code = \"xx\"\n[keyboard]\naccents = [\"aá\", \"áà\"]\n", 3, "in two accent cycles"),
            ("code = \"xx\"\n[keyboard]\naccent_label = \"accent\"\n", 3, "1 to 3 visible characters"),
            ("code = \"xx\"\n\n[phrases]\nfarewells = [\"Ciao\"]\n", 4, "unknown phrase group \"farewells\""),
            ("code = \"xx\"\n[phrases]\nneeds = [\"a\\tb\"]\n", 3, "one line of text"),
        ] {
            let doc = try TOMLDocument(text: text, file: "pack.toml")
            #expect {
                _ = try LanguageBoard.parse(doc, code: "xx")
            } throws: { e in
                guard let e = e as? ConfigError else { return false }
                return e.file == "pack.toml" && e.line == line && e.message.contains(says)
            }
        }
    }

    @Test(arguments: ["es", "fr", "de", "it", "pt", "nl"])
    func thePhraseBoardShowsTheLanguagesPhrasesAndSaysThemInIt(_ lang: String) throws {
        let board = try Self.board(lang)
        let files = MemoryFiles([:])
        var d = Driver(.dwell, screen: "phrases", files: .memory(files))
        _ = d.send(.languageLoaded(try LanguageTests.catalog(lang)))
        _ = d.send(.languageBoardLoaded(board))
        // The same intents as English's, group by group.
        for group in LanguageBoard.phraseGroups {
            #expect(board.phrases.filter { $0.group == group }.count == d.state.data.phrases(in: group).count, "\(lang) \(group)")
        }
        let greeting = try #require(board.phrases.first { $0.group == "greetings" }).text
        #expect(d.text.contains(greeting), "\(d.text)")
        #expect(!d.text.contains("Good morning."), "English left on the \(lang) board:\n\(d.text)")
        let effects = d.activate("phrases.say.0")
        let spoken = effects.compactMap { if case let .speak(u) = $0 { u } else { nil } }
        #expect(spoken.map(\.text) == [greeting])
        #expect(spoken.first?.language == lang, "said in the pack's voice")
        // Counted under the language's own group in phrases.txt; English's board is untouched.
        let saved = files.files.withLock { $0[AppData.phrasesFile] } ?? ""
        #expect(saved.contains("phrase\t\(lang):greetings\t1\t\(greeting)\n"), "\(saved)")
        _ = d.send(.languageLoaded(.english))
        _ = d.send(.languageBoardLoaded(.english))
        #expect(d.text.contains("Hello!") && !d.text.contains(greeting), "\(d.text)")
        // Back in the language, its phrases are there once, not offered again.
        _ = d.send(.languageLoaded(try LanguageTests.catalog(lang)))
        _ = d.send(.languageBoardLoaded(board))
        #expect(d.state.data.phrases.filter { $0.group.hasPrefix(lang + ":") }.count == board.phrases.count)
    }

    /// A board kept in phrases.txt (the user changed it) is read back per language after a restart.
    @Test func theLanguagesPhrasesComeBackFromTheFile() throws {
        let files = MemoryFiles([AppData.phrasesFile: "handsfree-phrases 1\nphrase\tgreetings\t0\tHello!\nphrase\tes:greetings\t3\t¡Buenas!\n"])
        var d = Driver(.dwell, screen: "phrases", files: .memory(files))
        _ = d.send(.languageLoaded(try LanguageTests.catalog("es")))
        _ = d.send(.languageBoardLoaded(try Self.board("es")))
        #expect(d.text.contains("¡Buenas!") && !d.text.contains("Hello!"), "\(d.text)")
        #expect(!d.text.contains("¡Hola!"), "the pack's phrases are offered only to a language with none")
    }
}
