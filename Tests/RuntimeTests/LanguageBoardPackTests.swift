import Foundation
import Localization
import Runtime
import Shell
import Testing

/// A pack's keyboard and phrase board (`[keyboard]`, `[phrases]` in `languages/LL/pack.toml`) as the runtime
/// reads them: the shipped packs give their letters, accents and phrases; a mistake leaves English's keyboard
/// and board with the problem named (file:line) while the words still load; a language switch brings them.
@Suite struct LanguageBoardPackTests {
    static let languages = TranslationsTests.root.appendingPathComponent("languages")

    @Test(arguments: [("es", "ñ"), ("fr", "ç"), ("de", "ß"), ("it", "ò"), ("pt", "õ"), ("nl", "ë")])
    func everyShippedPackHasItsKeyboardAndPhrases(_ code: String, _ letter: Character) {
        let (board, problem) = LanguageBoards.load(code, in: Self.languages)
        #expect(problem == nil, "\(problem?.english ?? "")")
        #expect(board.code == code && board.letters.joined().contains(letter) && board.hasAccentKey)
        for group in LanguageBoard.phraseGroups { #expect(board.phrases.contains { $0.group == group }, "\(code) \(group)") }
        #expect(LanguageBoards.load("en", in: Self.languages).board == .english)
    }

    @Test func aBrokenKeyboardIsNamedAndTheWordsStillLoad() throws {
        let t = try TranslationsTests.Tree()
        try t.write("code = \"xx\"\n[words]\nlist = \"w.txt\"\n\n[keyboard]\nletters = \"ñ\"\n", "languages/xx/pack.toml")
        let folder = t.data.appendingPathComponent("languages")
        let (board, problem) = LanguageBoards.load("xx", in: folder)
        #expect(board.letters.isEmpty && !board.hasAccentKey)
        #expect(problem?.english.contains("languages/xx/pack.toml:6: keyboard.letters must be a list of strings") == true, "\(problem?.english ?? "")")
        let pack = try LanguagePacks.read(folder.appendingPathComponent("xx"))
        #expect(pack.words != nil && pack.board == nil)
        // handsfree doctor lists it with what the pack lacks.
        #expect(pack.missing.contains { $0.english.contains("pack.toml:6: keyboard.letters must be a list of strings") }, "\(pack.missing)")
    }

    @Test func aLanguageSwitchBringsItsKeyboardAndPhrases() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.write(try String(contentsOf: Self.languages.appendingPathComponent("es/pack.toml"), encoding: .utf8),
                    "languages/es/pack.toml")
        let loader = LanguageLoader(root: t.data, environment: [:])
        let boards = loader.load("es").compactMap { if case .languageBoardLoaded(let b) = $0 { b } else { nil } }
        #expect(boards.count == 1 && boards.first?.letters.joined().contains("ñ") == true, "\(boards)")
        #expect(loader.load("en").contains { if case .languageBoardLoaded(let b) = $0 { b == .english } else { false } })
    }
    /// A run that starts in a language whose pack has a mistake says it on the status line; a switch to that
    /// language at run time (Settings › Language) says the same, in the language, each time it is switched to.
    @Test func aSwitchToAPackWithAMistakeSaysItAsAStartDoes() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.write("code = \"es\"\n[words]\nlist = \"w.txt\"\n\n[keyboard]\nletters = \"ñ\"\n", "languages/es/pack.toml")
        let loader = LanguageLoader(root: t.data, environment: [:])
        func said(_ setting: String) -> (UIMessage?, Catalog?) {
            let events = loader.load(setting)
            let catalog = events.compactMap { if case .languageLoaded(let c) = $0 { c } else { nil } }.first
            return (events.compactMap { if case .message(let m) = $0 { m } else { nil } }.last, catalog)
        }
        let (first, es) = said("es")
        #expect(first?.english.contains("languages/es/pack.toml:6: keyboard.letters must be a list of strings") == true,
                "\(first?.english ?? "nothing said")")
        // In the language, as the start shows it: the frame around the file's own words is Spanish.
        if let first, let es { #expect(!first.text(es).contains("English's"), "\(first.text(es))") }
        #expect(said("en").0 == nil)
        #expect(said("es").0 == first)
        // A mistake in the speech data is said too, before the keyboard's (as at start).
        try t.write("[numbers.values]\nuno = -1\n", "languages/es/speech.toml")
        let fresh = LanguageLoader(root: t.data, environment: [:])
        let speech = fresh.load("es").compactMap { if case .message(let m) = $0 { m } else { nil } }.last
        #expect(speech?.english.contains("languages/es/speech.toml:2: uno must be a whole number") == true, "\(speech?.english ?? "nothing said")")
    }
}
