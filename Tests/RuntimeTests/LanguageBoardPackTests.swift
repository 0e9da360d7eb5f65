import Foundation
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
}
