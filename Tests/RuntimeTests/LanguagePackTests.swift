import Foundation
import Prediction
import Runtime
import Testing

/// The language packs as shipped in `languages/`, read through `LanguagePacks` as every command reads them.
@Suite struct LanguagePackTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("languages")
    static let available = FileManager.default.fileExists(atPath: folder.appendingPathComponent("es/ngrams-es.txt").path)

    static func temp() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("packs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test(.enabled(if: available, "needs languages/"))
    func everyShippedPackReadsWithItsWordData() throws {
        let (packs, problems) = LanguagePacks.installed(in: Self.folder)
        #expect(problems.isEmpty, "\(problems)")
        #expect(packs.map(\.code) == ["de", "en", "es", "fr", "it", "nl", "pt"])
        for pack in packs {
            #expect(pack.missing.isEmpty, "\(pack.code): \(pack.missing)")
            #expect(pack.words?.test != nil, "\(pack.code) names a test text")
        }
        let en = try LanguagePacks.find("en", in: Self.folder)
        #expect(en.words?.rules.possessive == true && en.words?.list.lastPathComponent == "words-en.txt")
        #expect(en.words?.compiled.path.hasSuffix("wordlists/words-en.bin") == true)
        let fr = try LanguagePacks.find("fr_FR.UTF-8", in: Self.folder)
        #expect(fr.code == "fr" && fr.words?.rules.elisions.contains("qu'") == true && fr.words?.rules.possessive == false)
        #expect(try LanguagePacks.find("pt-BR", in: Self.folder).code == "pt", "a locale's language part finds the pack")
        #expect(try LanguagePacks.find(Self.folder.appendingPathComponent("de").path, in: Self.folder).name == "Deutsch")
    }

    @Test(.enabled(if: available, "needs languages/"))
    func anUnknownLanguageListsTheInstalledPacks() throws {
        #expect {
            try LanguagePacks.find("xx", in: Self.folder)
        } throws: { error in
            let m = (error as? LanguagePackError)?.message ?? ""
            return m.hasPrefix("no language pack for \"xx\"; installed: de (Deutsch), en (English), es (Español), fr (Français), it (Italiano), nl (Nederlands), pt (Português) in ")
        }
    }

    /// A pack whose n-grams are missing still predicts, from its word frequencies, and says what is missing.
    @Test(.enabled(if: available, "needs languages/"))
    func aPackWithoutItsNgramsPredictsFromFrequenciesAndSaysSo() throws {
        let dir = try Self.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pack = dir.appendingPathComponent("es")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        for f in ["pack.toml", "words-es.txt"] {
            try FileManager.default.copyItem(at: Self.folder.appendingPathComponent("es/\(f)"), to: pack.appendingPathComponent(f))
        }
        let es = try LanguagePacks.find("es", in: dir)
        #expect(es.missing.map(\.english) == ["no n-grams (\(pack.path)/ngrams-es.txt is missing): suggestions come from word frequencies only"])
        let (p, notes) = try es.load(userFile: nil)
        #expect(notes.map(\.english) == ["Español: no n-grams (\(pack.path)/ngrams-es.txt is missing); suggestions come from word frequencies only"])
        #expect(p.ngramCounts == (0, 0))
        #expect(p.suggest("la cancion", limit: 3).first == "canción")
    }

    @Test func aBrokenPackFileIsNamedWithItsLine() throws {
        let dir = try Self.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pack = dir.appendingPathComponent("nl")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try "code = \"nl\"\n\n[words]\nlist = \"words-nl.txt\"\nelisions = [\"l\"]\n".write(
            to: pack.appendingPathComponent("pack.toml"), atomically: true, encoding: .utf8)
        #expect {
            try LanguagePacks.read(pack)
        } throws: { error in
            (error as? LanguagePackError)?.message == "\(pack.path)/pack.toml:5: an elision ends in an apostrophe, like \"l'\" (not \"l\")"
        }
        let (packs, problems) = LanguagePacks.installed(in: dir)
        #expect(packs.isEmpty && problems.count == 1)
    }

    /// Each language learns into its own file; what the user taught one never shows in another's suggestions.
    @Test(.enabled(if: available, "needs languages/"))
    func theUsersWordsOfOneLanguageNeverReachAnother() throws {
        let dir = try Self.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = UserPaths(environment: ["HOME": dir.path], dataDir: dir.appendingPathComponent("data").path)
        let es = try LanguagePacks.find("es", in: Self.folder), fr = try LanguagePacks.find("fr", in: Self.folder)
        let en = try LanguagePacks.find("en", in: Self.folder)
        #expect(es.userWords(in: paths).lastPathComponent == "user-words-es.txt")
        #expect(fr.userWords(in: paths).lastPathComponent == "user-words-fr.txt")
        #expect(en.userWords(in: paths) == paths.userWords, "English keeps user-words.txt")

        var spanish = try es.load(userFile: es.userWords(in: paths)).0
        spanish.learn("Mañana voy con Zorbléxica al mercado. Zorbléxica compra pan.")
        spanish.addWord("Quetzalcóatlito")
        try spanish.save()
        let again = try es.load(userFile: es.userWords(in: paths)).0
        #expect(again.suggest("con Zorbl", limit: 3).first == "Zorbléxica", "\(again.suggest("con Zorbl", limit: 3))")
        #expect(again.suggest("y Quetz", limit: 3).first == "Quetzalcóatlito")

        let french = try fr.load(userFile: fr.userWords(in: paths)).0
        #expect(french.learnedWords.isEmpty)
        for typed in ["avec Zorbl", "avec zorbl", "et Quetz", "Zor"] {
            #expect(!french.suggest(typed, limit: 10).contains { $0.lowercased().hasPrefix("zorbl") || $0.hasPrefix("Quetzalc") },
                    "\(typed): \(french.suggest(typed, limit: 10))")
        }
        #expect(!FileManager.default.fileExists(atPath: fr.userWords(in: paths).path))
        #expect(!FileManager.default.fileExists(atPath: paths.userWords.path), "nothing was written to English's file")
    }

    @Test(.enabled(if: available, "needs languages/"))
    func eachPackCompilesAndReadsBackTheSame() throws {
        let dir = try Self.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        for pack in LanguagePacks.installed(in: Self.folder).packs where pack.code != "en" {
            let file = dir.appendingPathComponent("words-\(pack.code).bin")
            #expect(pack.compiledState(of: file) == .missing)
            let (text, _) = try pack.load(userFile: nil)
            _ = try pack.load(userFile: nil, cache: file)
            #expect(pack.compiledState(of: file) == .upToDate, "\(pack.code)")
            let (compiled, _) = try pack.load(userFile: nil, prebuilt: file)
            #expect(compiled.warnings.isEmpty)
            for input in ["a", "la ", "de l'", "ein Ha", "cancion", "strasse", "ecole"] {
                #expect(compiled.suggest(input, limit: 3) == text.suggest(input, limit: 3), "\(pack.code): \(input)")
            }
        }
    }
}
