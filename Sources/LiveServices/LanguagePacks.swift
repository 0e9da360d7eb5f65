import Config
import Foundation
import Localization
import Prediction
import Shell
import UserFiles

/// A language pack: a folder `languages/LL/` on the data path (beside `keymaps/`) whose `pack.toml` names the
/// language's parts. Today the word data (`[words]`); translations, the keyboard's letters, spoken punctuation,
/// voice phrases, the voice and the Whisper model come as tables of their own (docs/language-packs.md).
///
/// A language is always a value handed in (a code or a pack folder), never a setting read from here.
public struct LanguagePack: Sendable {
    /// The language's code as the pack names it ("es", "pt").
    public var code: String
    /// Its name in the language itself ("Español"), and in English ("Spanish").
    public var name: String
    public var englishName: String
    /// The pack's folder and its `pack.toml`.
    public var folder: URL
    public var file: URL
    /// The word data, nil when the pack has none.
    public var words: Words?
    /// The keyboard's letters, the accent key's cycles and the phrase board's phrases (`[keyboard]` and
    /// `[phrases]`); nil when the pack has neither.
    public var board: LanguageBoard?
    /// What is wrong with `[keyboard]` or `[phrases]` (file:line), when something is.
    public var boardProblem: ConfigError?
    /// The tables the file has (`words`, and the parts other issues add), so `doctor` can say what a pack lacks.
    public var parts: Set<String>

    /// What `[words]` names: the lists prediction loads, the language's rules, and the bench's test text.
    public struct Words: Sendable {
        /// Word frequencies (`word count`, a word shown with capitals as it is listed: "Straße").
        public var list: URL
        /// Bigrams and trigrams; nil when the pack names none.
        public var ngrams: URL?
        /// Words that may get a generated possessive (English's `nouns-en.txt`).
        public var nouns: URL?
        /// Words held back until the user has typed them (English's `offensive-en.txt`).
        public var held: URL?
        /// The lists as built in memory, made when the pack is installed (`handsfree words compile`).
        public var compiled: URL
        /// Elisions, possessives, words always capitalised.
        public var rules: LanguageRules
        /// Text in the language that the lists were not made from, for `ksr` and `bench language`.
        public var test: TestText?
    }

    /// A text the keystroke savings are measured on, installed by a package.
    public struct TestText: Sendable {
        /// Its files, read one after the other (a `.gz` one through gzip).
        public var files: [URL]
        /// What it is, in words ("the Spanish fortunes of Debian's fortunes-es").
        public var name: String
        /// The package that installs it ("fortunes-es").
        public var package: String?
        /// Only this many bytes of it are typed (the bench's time stays bounded); nil: all of it.
        public var bytes: Int?

        /// The text, cut to `bytes` at a character boundary; the error names the file and the package to install.
        public func read() throws(LanguagePackError) -> String {
            var all = Data()
            for file in files {
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw LanguagePackError(package.map {
                        UIMessage("{file}: the test text {name} is not installed (install it: apt-get install {package})",
                                  ["file": file.path, "name": name, "package": $0])
                    } ?? UIMessage("{file}: the test text {name} is not installed", ["file": file.path, "name": name]))
                }
                if file.pathExtension == "gz" {
                    let p = Process()
                    p.executableURL = URL(fileURLWithPath: "/bin/gzip")
                    p.arguments = ["-dc", file.path]
                    let out = Pipe()
                    p.standardOutput = out
                    p.standardError = FileHandle.nullDevice
                    do { try p.run() } catch {
                        throw LanguagePackError(UIMessage("{file}: gzip could not start ({reason})", ["file": file.path, "reason": "\(error)"]))
                    }
                    all.append(out.fileHandleForReading.readDataToEndOfFile())
                    p.waitUntilExit()
                    guard p.terminationStatus == 0 else { throw LanguagePackError(UIMessage("{file}: not a gzip file", ["file": file.path])) }
                } else {
                    guard let d = FileManager.default.contents(atPath: file.path) else {
                        throw LanguagePackError(UIMessage("{file}: not readable", ["file": file.path]))
                    }
                    all.append(d)
                }
                all.append(contentsOf: [10])
            }
            var text = String(decoding: all, as: UTF8.self)
            if let bytes, text.utf8.count > bytes {
                // Whole lines only, so no word is cut.
                let cut = text.utf8.prefix(bytes)
                let end = cut.lastIndex(of: 10).map { text.utf8.index(after: $0) } ?? cut.endIndex
                text = String(text[..<end])
            }
            return text
        }
    }

    /// The user's own words in this language, in the data folder: English keeps `user-words.txt`, every other
    /// language has its own (`user-words-es.txt`), so one language's words never reach another's suggestions.
    public func userWords(in paths: UserPaths) -> URL {
        paths.data.appendingPathComponent(code == "en" ? "user-words.txt" : "user-words-\(code).txt")
    }

    /// The user's cache of the built lists (`words-LL.bin` in the cache folder).
    public func wordCache(in paths: UserPaths) -> URL { paths.cache.appendingPathComponent("words-\(code).bin") }

    /// What a pack's word data lacks that prediction would use, in words ("no n-grams: …"); empty when whole.
    public var missing: [UIMessage] {
        guard let w = words else { return [UIMessage("no word data ([words] in {file})", ["file": file.path])] }
        var out: [UIMessage] = []
        let fm = FileManager.default
        if !fm.fileExists(atPath: w.list.path) { out.append(UIMessage("no word list ({file} is missing)", ["file": w.list.path])) }
        if let n = w.ngrams, !fm.fileExists(atPath: n.path) {
            out.append(UIMessage("no n-grams ({file} is missing): suggestions come from word frequencies only", ["file": n.path]))
        } else if w.ngrams == nil {
            out.append(UIMessage("no n-grams named: suggestions come from word frequencies only"))
        }
        if let boardProblem { out.append(LanguageBoards.englishBoard(boardProblem.shown)) }
        return out
    }

    /// The pack's predictor: its lists (an n-gram file that is missing is left out, and said in `notes`), its
    /// rules, the user's words of this language from `userFile`, and the built lists read from, or written to,
    /// `cache` and `prebuilt` (`WordPredictor.load`).
    public func load(userFile: URL?, cache: URL? = nil, prebuilt: URL? = nil) throws(PredictionError) -> (WordPredictor, notes: [UIMessage]) {
        guard let w = words else { throw .cannotRead(path: file.path, reason: UIMessage("the pack has no [words] table")) }
        var notes: [UIMessage] = []
        var ngrams = w.ngrams
        if let n = ngrams, !FileManager.default.fileExists(atPath: n.path) {
            notes.append(UIMessage("{language}: no n-grams ({file} is missing); suggestions come from word frequencies only",
                                   ["language": name, "file": n.path]))
            ngrams = nil
        }
        let p = try WordPredictor.load(wordList: w.list, ngrams: ngrams, userFile: userFile, nouns: w.nouns, held: w.held,
                                       cache: cache, prebuilt: prebuilt, rules: w.rules)
        return (p, notes)
    }

    /// Whether `file` holds this pack's lists as built now (for `doctor` and `words compile`).
    public func compiledState(of file: URL) -> WordPredictor.CompiledLists {
        guard let w = words else { return .missing }
        let ngrams = w.ngrams.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
        return WordPredictor.compiledLists(in: file, wordList: w.list, ngrams: ngrams, nouns: w.nouns, held: w.held)
    }
}

/// A pack that cannot be used: its file is missing or wrong (with file:line), or no pack has the code asked for.
public struct LanguagePackError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The problem in English.
    public var message: String
    /// The problem as the user reads it, translated where it is shown.
    public var reason: UIMessage
    public init(_ reason: UIMessage) { message = reason.english; self.reason = reason }
    /// A mistake in the pack's file: `file:line:` and its reason.
    public init(_ error: ConfigError) { self.init(error.shown) }
    public var description: String { message }
}

/// The language packs on the data path (`languages/` beside `keymaps/`).
public enum LanguagePacks {
    /// The folder of the installed packs.
    public static var folder: URL { ProjectPaths.dir("languages") }

    /// Every pack in `folder` that reads, by code; and the problems of those that do not (file:line).
    public static func installed(in folder: URL = folder) -> (packs: [LanguagePack], problems: [UIMessage]) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else {
            return ([], [UIMessage("{folder}: no language packs (the folder is missing)", ["folder": folder.path])])
        }
        var packs: [LanguagePack] = [], problems: [UIMessage] = []
        for name in names.sorted() where fm.fileExists(atPath: folder.appendingPathComponent(name).appendingPathComponent("pack.toml").path) {
            do { packs.append(try read(folder.appendingPathComponent(name))) } catch { problems.append(error.reason) }
        }
        return (packs.sorted { $0.code < $1.code }, problems)
    }

    /// The pack `language` names: a folder holding a `pack.toml` (any path with a `/`), else a language code
    /// or locale ("es", "es_ES.UTF-8", "pt-BR") among the installed packs, matched whole first, then by its
    /// language part. An unknown code lists the installed packs.
    public static func find(_ language: String, in folder: URL = folder) throws(LanguagePackError) -> LanguagePack {
        if language.contains("/") {
            let dir = URL(fileURLWithPath: language)
            let isFile = dir.lastPathComponent == "pack.toml"
            return try read(isFile ? dir.deletingLastPathComponent() : dir)
        }
        let (packs, problems) = installed(in: folder)
        let wanted = normalised(language)
        if let exact = packs.first(where: { normalised($0.code) == wanted }) { return exact }
        let base = wanted.split(separator: "-").first.map(String.init) ?? wanted
        if let near = packs.first(where: { normalised($0.code) == base }) { return near }
        let list = packs.map { "\($0.code) (\($0.name))" }.joined(separator: ", ")
        let arguments = ["language": Shown.cut(language), "installed": list, "folder": folder.path]
        let none = packs.isEmpty
        if let first = problems.first {
            throw LanguagePackError(none
                ? UIMessage("no language pack for \"{language}\"; none installed in {folder}; not readable: {problem}", arguments, reasons: ["problem": first])
                : UIMessage("no language pack for \"{language}\"; installed: {installed} in {folder}; not readable: {problem}", arguments, reasons: ["problem": first]))
        }
        throw LanguagePackError(none ? UIMessage("no language pack for \"{language}\"; none installed in {folder}", arguments)
                                     : UIMessage("no language pack for \"{language}\"; installed: {installed} in {folder}", arguments))
    }

    /// A path a pack names: absolute as it is (a package's file), else within the pack's folder.
    static func resolve(_ path: String, in dir: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL : dir.appendingPathComponent(path).standardizedFileURL
    }

    /// "es_ES.UTF-8" → "es-es", "pt-BR" → "pt-br".
    static func normalised(_ code: String) -> String {
        let noEncoding = code.split(separator: ".").first.map(String.init) ?? code
        let noModifier = noEncoding.split(separator: "@").first.map(String.init) ?? noEncoding
        return noModifier.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// Reads the pack in `dir`; every problem names the file and line.
    public static func read(_ dir: URL) throws(LanguagePackError) -> LanguagePack {
        let file = dir.appendingPathComponent("pack.toml")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw LanguagePackError(UIMessage("{file}: no such file (a language pack is a folder with a pack.toml)", ["file": file.path]))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw LanguagePackError(UIMessage("{file}: not UTF-8", ["file": file.path])) }
        let doc: TOMLDocument
        do { doc = try TOMLDocument(text: text, file: file.path) } catch { throw LanguagePackError(error) }
        func string(_ path: [String], in table: [String: TOMLNode]) throws(LanguagePackError) -> String? {
            guard let node = table[path[path.count - 1]] else { return nil }
            guard let s = node.string, !s.isEmpty else {
                throw LanguagePackError(doc.error(path, UIMessage("{key} must be a string", ["key": path.joined(separator: ".")])))
            }
            return s
        }
        func strings(_ path: [String], in table: [String: TOMLNode]) throws(LanguagePackError) -> [String] {
            guard let node = table[path[path.count - 1]] else { return [] }
            guard let a = node.array, case let s = a.compactMap(\.string), s.count == a.count else {
                throw LanguagePackError(doc.error(path, UIMessage("{key} must be a list of strings", ["key": path.joined(separator: ".")])))
            }
            return s
        }
        guard let code = try string(["code"], in: doc.root) else {
            throw LanguagePackError(doc.error(["code"], UIMessage("a pack needs its language's code, e.g. code = \"es\"")))
        }
        guard code.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }), code.count <= 12 else {
            throw LanguagePackError(doc.error(["code"], UIMessage("code must be a language code such as \"es\" or \"pt-BR\"")))
        }
        let name = try string(["name"], in: doc.root) ?? code
        let englishName = try string(["english_name"], in: doc.root) ?? name
        var words: LanguagePack.Words?
        if let node = doc.root["words"] {
            guard let t = node.table else { throw LanguagePackError(doc.error(["words"], UIMessage("{key} must be a table", ["key": "words"]))) }
            func url(_ key: String) throws(LanguagePackError) -> URL? {
                try string(["words", key], in: t).map { resolve($0, in: dir) }
            }
            guard let list = try url("list") else {
                throw LanguagePackError(doc.error(["words"], UIMessage("[words] needs list = \"words-{code}.txt\"", ["code": code])))
            }
            var elisions: Set<String> = []
            for e in try strings(["words", "elisions"], in: t) {
                guard e.hasSuffix("'"), e.count >= 2 else {
                    throw LanguagePackError(doc.error(["words", "elisions"], UIMessage("an elision ends in an apostrophe, like \"l'\" (not \"{elision}\")",
                                                                                   ["elision": Shown.cut(e)])))
                }
                elisions.insert(e.lowercased())
            }
            var possessive = false
            if let p = t["possessive"] {
                guard let b = p.bool else {
                    throw LanguagePackError(doc.error(["words", "possessive"], UIMessage("{key} must be true or false", ["key": "possessive"])))
                }
                possessive = b
            }
            var capitalised: [String: String] = [:]
            for form in try strings(["words", "capitalised"], in: t) { capitalised[form.lowercased()] = form }
            var test: LanguagePack.TestText?
            if let node = t["test"] {
                guard let tt = node.table else { throw LanguagePackError(doc.error(["words", "test"], UIMessage("{key} must be a table", ["key": "words.test"]))) }
                let files = try strings(["words", "test", "files"], in: tt) + [try string(["words", "test", "file"], in: tt)].compactMap { $0 }
                guard !files.isEmpty else {
                    throw LanguagePackError(doc.error(["words", "test"], UIMessage("[words.test] needs file = \"…\" or files = [\"…\"]")))
                }
                var bytes: Int?
                if let b = tt["bytes"] {
                    guard let n = b.number, n >= 1000, n < 1e9 else {
                        throw LanguagePackError(doc.error(["words", "test", "bytes"], UIMessage("bytes must be a number from 1000")))
                    }
                    bytes = Int(n)
                }
                test = LanguagePack.TestText(files: files.map { resolve($0, in: dir) },
                                             name: try string(["words", "test", "name"], in: tt) ?? files[0],
                                             package: try string(["words", "test", "package"], in: tt), bytes: bytes)
            }
            words = LanguagePack.Words(
                list: list, ngrams: try url("ngrams"), nouns: try url("nouns"), held: try url("held"),
                compiled: try url("compiled") ?? dir.appendingPathComponent("words-\(code).bin"),
                rules: LanguageRules(code: code, elisions: elisions, possessive: possessive, capitalised: capitalised),
                test: test)
        }
        let parts = Set(doc.root.compactMap { $0.value.table == nil ? nil : $0.key })
        var pack = LanguagePack(code: code, name: name, englishName: englishName, folder: dir.standardizedFileURL, file: file,
                                words: words, parts: parts)
        // A mistake there leaves the keyboard and the board English's; the words still load.
        do throws(ConfigError) { pack.board = try LanguageBoard.parse(doc, code: code) } catch {
            pack.boardProblem = error
        }
        return pack
    }
}

/// The keyboard and phrase board of a language, from its pack.
public enum LanguageBoards {
    /// Those of language `code`: English's own for English; else its pack's, or English's with the problem said
    /// (no pack, a mistake with file:line), so the keyboard and the board still work.
    public static func load(_ code: String, in folder: URL = LanguagePacks.folder) -> (board: LanguageBoard, problem: UIMessage?) {
        guard !LanguageChoice.isEnglish(code) else { return (.english, nil) }
        do throws(LanguagePackError) {
            let pack = try LanguagePacks.read(folder.appendingPathComponent(code))
            let board = pack.board.map { var b = $0; b.code = code; return b } ?? LanguageBoard(code: code)
            return (board, pack.boardProblem.map { englishBoard($0.shown) })
        } catch {
            return (LanguageBoard(code: code), englishBoard(error.reason))
        }
    }

    /// `problem` and what it means: the keyboard and phrase board are English's.
    static func englishBoard(_ problem: UIMessage) -> UIMessage {
        UIMessage("{problem} (the keyboard and phrase board are English's)", reasons: ["problem": problem])
    }
}
