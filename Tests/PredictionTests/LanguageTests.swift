import Foundation
import Testing
@testable import Prediction

/// The language packs' word data as shipped in `languages/LL/`, loaded with their rules as the packs give them
/// (the pack files themselves are read by Runtime's `LanguagePack`, tested in RuntimeTests).
enum Packs {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("languages")
    static func list(_ code: String) -> URL { root.appendingPathComponent("\(code)/words-\(code).txt") }
    static func ngrams(_ code: String) -> URL { root.appendingPathComponent("\(code)/ngrams-\(code).txt") }
    static var available: Bool {
        ["es", "fr", "de", "it", "pt"].allSatisfy { FileManager.default.fileExists(atPath: ngrams($0).path) }
    }

    static let french = LanguageRules(code: "fr", elisions: ["l'", "d'", "j'", "m'", "n'", "s'", "t'", "c'", "qu'", "jusqu'", "lorsqu'"])
    static let italian = LanguageRules(code: "it", elisions: ["l'", "dell'", "all'", "dall'", "nell'", "sull'", "un'", "d'", "c'"])

    static func rules(_ code: String) -> LanguageRules {
        switch code {
        case "fr": return french
        case "it": return italian
        default: return .plain(code)
        }
    }

    /// Each language's lists, loaded once for the whole run (a second each in a debug build).
    nonisolated(unsafe) private static var loaded: [String: WordPredictor] = [:]
    private static let lock = NSLock()

    static func predictor(_ code: String) throws -> WordPredictor {
        try lock.withLock {
            if let p = loaded[code] { return p }
            var p = try WordPredictor.load(wordList: list(code), ngrams: ngrams(code), userFile: nil, rules: rules(code))
            p.hideRejected = false
            loaded[code] = p
            return p
        }
    }
}

@Suite(.enabled(if: Packs.available, "needs the language packs' word data in languages/"))
struct AccentFoldingTests {
    @Test func spanishWithoutAccentsOffersTheAccentedWord() throws {
        let es = try Packs.predictor("es")
        #expect(es.suggest("cancion", limit: 3).first == "Canción", "\(es.suggest("cancion", limit: 3))")
        #expect(es.suggest("me gusta esta cancion", limit: 3).first == "canción")
        #expect(es.suggest("me gusta esta canci", limit: 3).contains("canción"))
        // Clitics are words of the list: "damelo" typed finds "dámelo".
        #expect(es.suggest("por favor damel", limit: 3).contains("dámelo"), "\(es.suggest("por favor damel", limit: 3))")
        #expect(es.suggest("el nino", limit: 3).contains("niño"))
    }

    @Test func aLetterTypedWithItsAccentOnlyMatchesThatAccent() throws {
        let es = try Packs.predictor("es")
        let accented = es.suggest("la canció", limit: 5)
        #expect(accented.contains("canción"))
        #expect(!accented.contains { $0.hasPrefix("cancione") }, "canció rules out cancionero: \(accented)")
        // The word typed with its accent in full is exactly what was typed: nothing to offer for it.
        #expect(!es.suggest("la canción", limit: 5).contains("canción"))
    }

    @Test func frenchAndPortugueseAccents() throws {
        let fr = try Packs.predictor("fr")
        #expect(fr.suggest("je vais à l'ecole", limit: 3).first == "l'école", "\(fr.suggest("je vais à l'ecole", limit: 3))")
        #expect(fr.suggest("une ecol", limit: 3).contains("école"))
        let pt = try Packs.predictor("pt")
        #expect(pt.suggest("eu nao", limit: 3).first == "não", "\(pt.suggest("eu nao", limit: 3))")
        #expect(pt.suggest("a informaca", limit: 3).contains("informação"))
    }

    @Test func germanNounsKeepTheirCapitalAndSsFindsSharpS() throws {
        let de = try Packs.predictor("de")
        #expect(de.suggest("in der strasse", limit: 3).first == "Straße", "\(de.suggest("in der strasse", limit: 3))")
        #expect(de.suggest("in der Stra", limit: 3).contains("Straße"))
        #expect(de.suggest("ein gros", limit: 3).contains("großer") || de.suggest("ein gros", limit: 3).contains("großes"),
                "\(de.suggest("ein gros", limit: 3))")
        #expect(de.suggest("das Ha", limit: 4).contains("Haus"), "\(de.suggest("das Ha", limit: 4))")
        // Not every word is a noun: verbs and adjectives stay lowercase in mid-sentence.
        #expect(de.suggest("ich habe es gema", limit: 3).contains("gemacht"))
    }

    /// Dutch, the sixth language, made by the same recipe: the trema and the acute found from plain letters, and
    /// the words nl.dic makes by affixes ("grote" of "groot", "bent" of "ben") lowercase though names share them.
    @Test func dutchTremaAcuteAndCapitals() throws {
        let nl = try Packs.predictor("nl")
        #expect(nl.suggest("ik heb veel ideeen", limit: 3).first == "ideeën", "\(nl.suggest("ik heb veel ideeen", limit: 3))")
        #expect(nl.suggest("we gaan naar belgi", limit: 3).first == "België", "\(nl.suggest("we gaan naar belgi", limit: 3))")
        #expect(nl.suggest("dat is een", limit: 3).contains("één"), "\(nl.suggest("dat is een", limit: 3))")
        #expect(nl.suggest("het cafe", limit: 3).first == "café")
        #expect(nl.suggest("we gaan naar frankr", limit: 3).first == "Frankrijk", "nl.dic writes ĳ as one letter")
        let grote = nl.suggest("een heel gro", limit: 4)
        #expect(grote.contains("grote") && !grote.contains("Grote"), "\(grote)")
        #expect(nl.suggest("jij ben", limit: 3).first == "bent", "\(nl.suggest("jij ben", limit: 3))")
    }

    @Test func foldingRules() {
        #expect(Folding.fold("Straße") == "strasse")
        #expect(Folding.fold("Canción") == "cancion")
        #expect(Folding.fold("œuvre") == "oeuvre")
        #expect(Folding.fold("l’école") == "l'ecole")
        #expect(Folding.matches("straße", typed: "stras"))
        #expect(Folding.matches("straße", typed: "straß"))
        #expect(!Folding.matches("strasse", typed: "straß"))
        #expect(Folding.matches("canción", typed: "canció"))
        #expect(!Folding.matches("cancionero", typed: "canció"))
        #expect(!Folding.matches("canción", typed: "cancíon"))
    }
}

@Suite(.enabled(if: Packs.available, "needs the language packs' word data in languages/"))
struct ElisionTests {
    @Test func afterAFrenchElisionTheNextWordIsPredicted() throws {
        let fr = try Packs.predictor("fr")
        // "l'" typed: the words that follow it, each shown joined to it.
        let next = fr.suggest("il est dans l'", limit: 4)
        #expect(next.count == 4 && next.allSatisfy { $0.hasPrefix("l'") && $0.count > 2 }, "\(next)")
        #expect(fr.suggest("c'est l'h", limit: 4).contains("l'homme"), "\(fr.suggest("c'est l'h", limit: 4))")
        #expect(fr.suggest("je pense qu'i", limit: 3).contains("qu'il"), "\(fr.suggest("je pense qu'i", limit: 3))")
        // At a sentence start the elision's capital is kept as typed.
        #expect(fr.suggest("J'a", limit: 3).contains("J'ai"), "\(fr.suggest("J'a", limit: 3))")
        // A word with an inner apostrophe that is not an elision stays one word.
        #expect(fr.suggest("je reviens aujourd'h", limit: 3).first == "aujourd'hui")
    }

    @Test func italianElisions() throws {
        let it = try Packs.predictor("it")
        let next = it.suggest("alla fine dell'", limit: 4)
        #expect(next.count == 4 && next.allSatisfy { $0.hasPrefix("dell'") && $0.count > 5 }, "\(next)")
        #expect(it.suggest("alla fine dell'ann", limit: 4).contains("dell'anno"), "\(it.suggest("alla fine dell'ann", limit: 4))")
        #expect(it.suggest("è un'alt", limit: 4).contains("un'altra"), "\(it.suggest("è un'alt", limit: 4))")
        #expect(it.suggest("c'e", limit: 4).contains("c'è"), "\(it.suggest("c'e", limit: 4))")
        // "i" is an Italian article, never "I".
        #expect(it.suggest("tutti i", limit: 3).allSatisfy { $0 != "I" })
        #expect(!it.suggest("sono tutti ", limit: 10).contains("I"))
    }

    @Test func anElisionIsCommittedWithoutASpaceAndLearnedAsTwoWords() throws {
        #expect(TextComposition.commit("l'", into: "je vois l") == "je vois l'")
        #expect(TextComposition.commit("l'homme", into: "je vois l'h") == "je vois l'homme ")
        var fr = try Packs.predictor("fr")
        fr.learn(word: "l'ordinateurzz", after: "je répare ")
        #expect(fr.learnedWords["l'"] == 1 && fr.learnedWords["ordinateurzz"] == 1, "\(fr.learnedWords)")
        #expect(fr.suggest("demain l'o", limit: 4).contains("l'ordinateurzz"))
        fr.learn("Il voit l'ordinateurzz.")
        #expect(fr.learnedWords["ordinateurzz"] == 2)
    }

    @Test func splittingRules() {
        #expect(Packs.french.splitElisions("l'homme") == ["l'", "homme"])
        #expect(Packs.french.splitElisions("jusqu'à") == ["jusqu'", "à"])
        #expect(Packs.french.splitElisions("aujourd'hui") == ["aujourd'hui"])
        #expect(Packs.french.splitElisions("l’homme") == ["l'", "homme"])
        #expect(LanguageRules.english.splitElisions("don't") == ["don't"])
        let (context, partial, start, elided) = Tokens.split("Je vois l'h", rules: Packs.french)
        #expect(context == ["vois", "l'"] && partial == "h" && !start && elided == "l'")
    }
}

@Suite(.enabled(if: Packs.available, "needs the language packs' word data in languages/"))
struct LanguageRulesTests {
    /// The possessive is English's rule: given by the English pack, not hard-wired.
    @Test func possessivesAreEnglishOnly() throws {
        var english = WordPredictor(words: [("emma", 100), ("the", 1000)], rules: .english)
        english.addWord("Emma")
        #expect(english.suggest("with Emma'", limit: 3).contains("Emma's"))
        var spanish = WordPredictor(words: [("emma", 100), ("el", 1000)], rules: .plain("es"))
        spanish.addWord("Emma")
        #expect(!spanish.suggest("con Emma'", limit: 3).contains("Emma's"))
        #expect(!spanish.suggest("con Emm", limit: 5).contains { $0.hasSuffix("'s") })
        let es = try Packs.predictor("es")
        #expect(!es.suggest("la casa de mari", limit: 5).contains { $0.hasSuffix("'s") })
    }

    @Test func theCompiledListsKeepFormsAndSuggestTheSame() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs: [String: [String]] = [
            "es": ["cancion", "me gusta esta canci", "el nino ", "por favor damel", "España es"],
            "fr": ["il est dans l'", "c'est l'h", "une ecol", "J'a", "je pense qu'i"],
            "de": ["in der strasse", "das Ha", "ich habe es gema", "Straße "],
            "it": ["alla fine dell'a", "è un'a", "tutti i", "perche"],
            "pt": ["eu nao", "a informaca", "São Pau"],
            "nl": ["ik heb veel ideeen", "we gaan naar belgi", "dat is een "],
        ]
        for code in ["es", "fr", "de", "it", "pt", "nl"] {
            let text = try Packs.predictor(code)
            let cache = dir.appendingPathComponent("words-\(code).bin")
            let writing = try WordPredictor.load(wordList: Packs.list(code), ngrams: Packs.ngrams(code), userFile: nil, cache: cache,
                                                 rules: Packs.rules(code))
            #expect(writing.warnings.isEmpty, "\(code): \(writing.warnings)")
            var cached = try WordPredictor.load(wordList: Packs.list(code), ngrams: Packs.ngrams(code), userFile: nil, cache: cache,
                                                rules: Packs.rules(code))
            cached.hideRejected = false
            #expect(cached.warnings.isEmpty && cached.vocabularySize == text.vocabularySize && cached.ngramCounts == text.ngramCounts)
            #expect(cached.lexicon.lowerStarts == text.lexicon.lowerStarts && cached.lexicon.displayIDs == text.lexicon.displayIDs)
            for input in inputs[code] ?? [] {
                for limit in [1, 4] {
                    #expect(cached.suggest(input, limit: limit) == text.suggest(input, limit: limit), "\(code): \(input)")
                }
            }
        }
        let de = try WordPredictor.load(wordList: Packs.list("de"), ngrams: Packs.ngrams("de"), userFile: nil,
                                        cache: dir.appendingPathComponent("words-de.bin"), rules: .plain("de"))
        #expect(de.suggest("in der strasse", limit: 1) == ["Straße"], "the display form comes back from the compiled file")
    }
}

/// A word list with lines no list should have: each is named with its file and line, and the rest loads.
@Suite struct BadWordListTests {
    @Test func wrongEncodingNulsAndHugeLinesAreNamedAndTheRestLoads() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("words-es.txt")
        var bytes = Array("canción 500\n".utf8)
        bytes += Array("camión 400\n".utf8)
        bytes += [0x63, 0x61, 0x66, 0xE9] + Array(" 300\n".utf8)                 // "café" in Latin-1: line 3
        bytes += Array("ni".utf8) + [0] + Array("ño 200\n".utf8)                  // a NUL: line 4
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + Array(" 5\n".utf8)  // 1 MB: line 5
        bytes += Array("corazón 100\n".utf8)
        try Data(bytes).write(to: url)
        let p = try WordPredictor.load(wordList: url, ngrams: nil, userFile: nil, rules: .plain("es"))
        let messages = p.warnings.map(\.description)
        #expect(messages.count == 3, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("\(url.path):3: not UTF-8") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("\(url.path):4: a NUL byte") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("\(url.path):5: a line of 1048578 bytes") }, "\(messages)")
        #expect(messages.allSatisfy { $0.count < 300 }, "no message repeats the line")
        #expect(p.vocabularySize == 3)
        #expect(p.suggest("el corazo", limit: 3) == ["corazón"])
        #expect(p.suggest("el cam", limit: 3) == ["camión"])
    }

    @Test func badNgramLinesToo() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("words.txt"), ngrams = dir.appendingPathComponent("ngrams.txt")
        try Data("la 100\ncanción 50\ncasa 60\n".utf8).write(to: words)
        var bytes = Array("la canción -0.3\n".utf8) + Array("la ".utf8) + [0x63, 0x61, 0x73, 0xE1] + Array(" -0.5\n".utf8)
        bytes += Array("la ca\u{0}sa -0.2\n".utf8)
        try Data(bytes).write(to: ngrams)
        let p = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil, rules: .plain("es"))
        #expect(p.warnings.map(\.description).sorted() == [
            "\(ngrams.path):2: not UTF-8 (is the file in another encoding, such as Latin-1? convert it with iconv -t UTF-8); skipped",
            "\(ngrams.path):3: a NUL byte in the line (a binary file?); skipped",
        ])
        #expect(p.ngramCounts.bigrams == 1)
        #expect(p.suggest("la ", limit: 1) == ["canción"])
    }
}
