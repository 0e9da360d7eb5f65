import ArgumentParser
import Benchmarks
import Foundation
import Runtime
import Prediction

/// Options shared by the prediction commands: the language, and where the word list, n-grams and user file are.
struct PredictionFiles: ParsableArguments {
    @Option(help: ArgumentHelp(tr("The language: a code ({codes}: the installed packs) or a pack's folder. Default: English.", ["codes": languageCodes()])))
    var language: String?
    @Option(help: ArgumentHelp(tr("Word frequency list ('word count' per line).")))
    var words: String?
    @Option(help: ArgumentHelp(tr("N-gram file ('w1 w2 log10P' / 'w1 w2 w3 log10P'); 'none' for none.")))
    var ngrams: String?
    @Option(help: ArgumentHelp(tr("User word file (default user-words.txt in the data folder, user-words-LL.txt for another language); 'none' for none.")))
    var userFile: String?
    @Option(help: ArgumentHelp(tr("The user's data folder, as for run (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?
    @Option(help: ArgumentHelp(tr("Words that may get a generated possessive ('mother's'), one per line; 'none': only names.")))
    var nouns: String?
    @Flag(help: ArgumentHelp(tr("Suggest the swear words and slurs of wordlists/offensive-en.txt before the user has typed them.")))
    var suggestRudeWords = false
    @Option(help: ArgumentHelp(tr("PocketSphinx trie model whose n-grams add to the n-gram file's; 'none' for none (default: $HANDSFREE_LM, else Debian's en-us.lm.bin when installed and --ngrams is not given).")))
    var lm: String?
    @Option(help: ArgumentHelp(tr("Conversational model that initials expansion mixes in ('1 WORD …' lines: scripts/make-conversation-ngrams.sh); 'none' for none (default: wordlists/conversation-en.txt for English).")))
    var phraseModel: String?

    /// The pack `--language` names, nil without the option (English from wordlists/, as before packs); an unknown
    /// language lists the installed packs.
    func pack() throws -> LanguagePack? {
        guard let language else { return nil }
        do { return try LanguagePacks.find(language) } catch { throw ValidationError(error.reason.shown) }
    }

    /// The lists as the options name them; `prebuilt`: the installed compiled lists, used if they were built
    /// from these very files (nil: the pack's). A pack's missing n-grams are said, and it predicts from its word
    /// frequencies.
    func load(useUserFile: Bool = true, cache: URL? = nil, prebuilt: URL? = nil, withPhraseModel: Bool = true) throws -> WordPredictor {
        let paths = UserPaths.current(dataDir: dataDir)
        let pack = try self.pack()
        let data = pack?.words
        if let pack, data == nil { throw ValidationError(tr("{file}: the {language} pack has no word data ([words])", ["file": pack.file.path, "language": pack.name])) }
        var ngramDefault = data.map { $0.ngrams } ?? WordLists.ngrams
        if let n = ngramDefault, ngrams == nil, pack != nil, !FileManager.default.fileExists(atPath: n.path) {
            let missing = tr("{language}: no n-grams ({file} is missing); suggestions come from word frequencies only",
                             ["language": pack?.name ?? "", "file": n.path])
            FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": missing]) + "\n").utf8))
            ngramDefault = nil
        }
        let wordList = words.map { URL(fileURLWithPath: $0) } ?? data?.list ?? WordLists.words
        let ngramURL: URL? = ngrams == "none" ? nil : (ngrams.map { URL(fileURLWithPath: $0) } ?? ngramDefault)
        let defaultUser = pack.map { $0.userWords(in: paths) } ?? paths.userWords
        let user: URL? = !useUserFile || userFile == "none" ? nil
            : (userFile.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? defaultUser)
        let nounURL: URL? = nouns == "none" ? nil : (nouns.map { URL(fileURLWithPath: $0) } ?? (data.map { $0.nouns } ?? WordLists.nouns))
        let held: URL? = data.map { $0.held } ?? WordLists.held
        // The trie model is English's (Debian's en-us.lm.bin): a pack predicts from its own n-grams.
        let model: URL? = lm == "none" || pack != nil ? nil
            : (lm.map { URL(fileURLWithPath: $0) } ?? (ngrams == nil ? WordLists.languageModel : nil))
        var p = try WordPredictor.load(wordList: wordList, ngrams: ngramURL, userFile: user, nouns: nounURL, held: held,
                                       cache: cache, prebuilt: prebuilt ?? data?.compiled, rules: data?.rules ?? .english,
                                       languageModel: model)
        if withPhraseModel { try attachPhraseModel(to: &p, pack: pack) }
        if nouns == "none" { p.onlyNamesGetPossessives() }
        p.offerHeldWords = suggestRudeWords
        for w in p.warnings.prefix(20) { FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": w.message.shown]) + "\n").utf8)) }
        return p
    }

    /// Reads the conversational model that initials expansion mixes in (`--phrase-model`; English's by default,
    /// none for another pack), its bad lines on standard error.
    /// `cache`: its compiled form, read from there when built from this text for these words, else written there.
    func attachPhraseModel(to p: inout WordPredictor, pack: LanguagePack?, cache: URL? = nil) throws {
        let url: URL? = phraseModel == "none" ? nil : (phraseModel.map { URL(fileURLWithPath: $0) } ?? (pack == nil ? WordLists.phraseModel : nil))
        guard let url, phraseModel != nil || FileManager.default.fileExists(atPath: url.path) else { return }
        let (m, problems) = try PhraseModel.load(url, for: p, cache: cache)
        p.phraseModel = m
        for w in problems { FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": w.message.shown]) + "\n").utf8)) }
    }
}

/// Reads lines of text typed so far from standard input and answers each with suggestions.
struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Suggest words for the text typed so far, given as arguments or as lines on standard input."),
        discussion: tr("""
        `handsfree predict 'the quick bro'` prints the suggestions for that text (a trailing space asks for the \
        next word). With --stdin it reads lines and answers each at once, for programs that keep it running.
        Writes one line per input line: up to N suggestions separated by tabs, flushed at once. \
        Lines that are empty, not valid UTF-8, or have no suggestions give an empty line; lines \
        longer than {n} bytes are cut to their last {n} bytes.
        """, ["n": String(PredictLoop.maxLineBytes)]))

    @Argument(help: ArgumentHelp(tr("The text typed so far (its words are joined by single spaces); or use --stdin.")))
    var text: [String] = []
    @Flag(help: ArgumentHelp(tr("Read lines from standard input and answer each.")))
    var stdin = false
    @Option(name: .short, help: ArgumentHelp(tr("Number of suggestions.")))
    var n = 4
    @Flag(help: ArgumentHelp(tr("Learn from each line (the words before the last one) and save to the user file at the end.")))
    var learn = false
    @OptionGroup var files: PredictionFiles

    func validate() throws {
        guard stdin != !text.isEmpty else {
            throw ValidationError(stdin ? tr("give the text as arguments or use --stdin, not both")
                                        : tr("give the text typed so far, e.g. handsfree predict 'the quick bro', or use --stdin"))
        }
        guard (1...20).contains(n) else { throw ValidationError(tr("-n must be between 1 and 20")) }
    }

    func run() throws {
        var predictor: WordPredictor
        do { predictor = try files.load(prebuilt: files.language == nil ? WordLists.compiled : nil) } catch let e as PredictionError {
            throw ValidationError(e.message.shown)
        }
        var loop = PredictLoop(predictor: predictor, limit: n, learn: learn)
        let output = FileHandle.standardOutput
        if stdin { answerLines(&loop, output) } else { output.write(Data((loop.answer(Array(text.joined(separator: " ").utf8)) + "\n").utf8)) }
        predictor = loop.predictor
        if learn, let url = predictor.userFile {
            if let aside = UserWordsFile.keepAside(predictor, url) {
                FileHandle.standardError.write(Data("\(aside.message.shown)\n".utf8))
                guard aside.moved else { return }
            }
            do { try predictor.save() } catch { FileHandle.standardError.write(Data("error: \(error)\n".utf8)) }
        }
    }

    /// Answers each line of standard input as it arrives, until it ends.
    private func answerLines(_ loop: inout PredictLoop, _ output: FileHandle) {
        let input = FileHandle.standardInput
        var buffer: [UInt8] = []
        while true {
            let chunk = input.availableData
            if chunk.isEmpty { break }
            buffer.append(contentsOf: chunk)
            var start = 0
            while let nl = buffer[start...].firstIndex(of: 10) {
                output.write(Data((loop.answer(Array(buffer[start..<nl])) + "\n").utf8))
                start = nl + 1
            }
            buffer.removeFirst(start)
            // A line with no end in sight: keep only its tail so memory stays bounded.
            if buffer.count > 4 * PredictLoop.maxLineBytes { buffer.removeFirst(buffer.count - PredictLoop.maxLineBytes) }
        }
        if !buffer.isEmpty { output.write(Data((loop.answer(buffer) + "\n").utf8)) }
    }
}

/// The per-line logic of `predict --stdin`, separate from I/O so tests can drive it.
struct PredictLoop {
    /// Longest line used; longer lines are cut to their end (the part that matters).
    static let maxLineBytes = 4096
    var predictor: WordPredictor
    let limit: Int
    let learn: Bool

    /// The output line (without newline) for one input line's bytes.
    mutating func answer(_ raw: [UInt8]) -> String {
        var bytes = raw
        if bytes.last == 13 { bytes.removeLast() }
        if bytes.count > PredictLoop.maxLineBytes {
            bytes = Array(bytes.suffix(PredictLoop.maxLineBytes))
            // Do not start inside a UTF-8 sequence.
            while let f = bytes.first, f & 0xC0 == 0x80 { bytes.removeFirst() }
        }
        guard !bytes.isEmpty, let text = String(validating: bytes, as: UTF8.self),
              !text.unicodeScalars.contains(where: { $0.value < 32 && $0 != "\t" }) else { return "" }
        if learn {
            // Words before the partial last one are committed text.
            var done = Substring(text)
            while let l = done.last, Tokens.isWordCharacter(l) { done = done.dropLast() }
            // The last whole token as typed ("l'homme" is one, learned as its two words).
            var head = done
            while let l = head.last, !Tokens.isWordCharacter(l) { head = head.dropLast() }
            var start = head.endIndex
            while start > head.startIndex, Tokens.isWordCharacter(head[head.index(before: start)]) { start = head.index(before: start) }
            let last = String(head[start...])
            if !last.isEmpty { predictor.learn(word: last, after: String(head[..<start])) }
        }
        return predictor.suggest(text, limit: limit).joined(separator: "\t")
    }
}

/// Simulates typing a file with prediction and prints the keystroke savings rate.
struct KSR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ksr",
        abstract: tr("Keystroke savings rate of typing FILE with N suggestions (Presage simulator's definition)."))

    @Argument(help: ArgumentHelp(tr("Text file to simulate typing (default: the language pack's test text).")))
    var file: String?
    @Option(name: .short, help: ArgumentHelp(tr("Number of suggestions.")))
    var n = 4
    @Flag(help: ArgumentHelp(tr("Learn the words as they are typed (as presage's default online learning does).")))
    var learn = false
    @Option(help: ArgumentHelp(tr("Tuning: trigram,bigram,unigram,backoff,userWeight,userPairWeight (comma-separated numbers).")))
    var tune: String?
    @Option(name: .customLong("set"), help: ArgumentHelp(tr("Tuning: name=value (lengthExponent, recencyWeight, recencyDecay, userUnigramHalfway, userPairHalfway, userTripleWeight, userTripleHalfway, possessiveWeight, possessiveMaxLogProb, capitalBoost); repeatable.")))
    var settings: [String] = []
    @Flag(help: ArgumentHelp(tr("Print each word, the letters typed before it was offered ('-' if never) and the first suggestions.")))
    var trace = false
    @OptionGroup var files: PredictionFiles

    func run() throws {
        var predictor: WordPredictor
        do { predictor = try files.load(useUserFile: false, prebuilt: files.language == nil ? WordLists.compiled : nil) } catch let e as PredictionError {
            throw ValidationError(e.message.shown)
        }
        // Presage's simulator hides words it already offered for a shorter prefix; do the same to compare fairly.
        predictor.hideRejected = true
        if let tune {
            let v = tune.split(separator: ",").compactMap { Double($0) }
            guard v.count == 6 else { throw ValidationError(tr("--tune needs 6 comma-separated numbers")) }
            predictor.weights = (v[0], v[1], v[2])
            predictor.backoff = v[3]
            predictor.userWeight = v[4]
            predictor.userPairWeight = v[5]
        }
        for kv in settings {
            let parts = kv.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let v = Double(parts[1]) else { throw ValidationError(tr("--set needs name=number, got '{value}'", ["value": kv])) }
            switch parts[0] {
            case "lengthExponent": predictor.lengthExponent = v
            case "recencyWeight": predictor.recencyWeight = v
            case "recencyDecay": predictor.recencyDecay = v
            case "userUnigramHalfway": predictor.userUnigramHalfway = v
            case "userPairHalfway": predictor.userPairHalfway = v
            case "userTripleWeight": predictor.userTripleWeight = v
            case "userTripleHalfway": predictor.userTripleHalfway = v
            case "possessiveWeight": predictor.possessiveWeight = v
            case "capitalBoost": predictor.capitalBoost = v
            case "possessiveMaxLogProb": predictor.possessiveMaxLogProb = Float(v)
            default: throw ValidationError(tr("--set: unknown name '{name}'", ["name": String(parts[0])]))
            }
        }
        let text: String
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError(tr("{file}: cannot be read", ["file": file])) }
            text = String(decoding: data, as: UTF8.self)
        } else {
            let pack = try files.pack() ?? LanguagePacks.find("en")
            guard let test = pack.words?.test else { throw ValidationError(tr("the {language} pack names no test text; give a FILE", ["language": pack.name])) }
            do { text = try test.read() } catch { throw ValidationError(error.reason.shown) }
            print("text: \(test.name)")
        }
        let k = KeystrokeSimulator.simulate(text, predictor: predictor, suggestions: n, learn: learn, trace: trace ? { w, j, first in
            print("trace\t\(w)\t\(j.map(String.init) ?? "-")\t\(first.joined(separator: " "))")
        } : nil)
        print("words: \(k.words)")
        print("ki: \(k.typed)")
        print("ks: \(k.selections)")
        print("kn: \(k.withoutPrediction)")
        print(String(format: "KSR: %.2f", k.rate))
    }
}

/// Prints load time, memory and per-prediction latency of the word predictor (`PredictBench`).
struct BenchPredict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: tr("Load time, memory (RSS) and suggest() latency p50/p99 with the full list and n-grams."))

    @Option(help: ArgumentHelp(tr("Also print the inputs with the slowest median time, to see where the tail comes from.")))
    var slowest = 0
    @Option(name: .short, help: ArgumentHelp(tr("Number of suggestions.")))
    var n = 4
    @Option(help: ArgumentHelp(tr("Number of timed predictions.")))
    var count = 20000
    @OptionGroup var files: PredictionFiles

    func run() throws {
        var bench = PredictBench()
        bench.slowest = slowest; bench.n = n; bench.count = count
        // A private cache folder: the first cached load writes the file, the timed one reads it.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-bench-predict-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("words-en.bin")
        printDebugBuildNote()
        // The word lists' load is timed alone, as the shell's is; the conversational model (initials expansion only,
        // loaded after them) has its own line.
        try bench.run(load: {
            do { return try files.load(useUserFile: false, withPhraseModel: false) } catch let e as PredictionError { throw ValidationError(e.message.shown) }
        }, loadCached: {
            do { return try files.load(useUserFile: false, cache: cache, withPhraseModel: false) } catch let e as PredictionError { throw ValidationError(e.message.shown) }
        }, attach: { p in
            do { try files.attachPhraseModel(to: &p, pack: try files.pack()) } catch let e as PredictionError { throw ValidationError(e.message.shown) }
        }, attachCached: { p in
            do { try files.attachPhraseModel(to: &p, pack: try files.pack(), cache: dir.appendingPathComponent("conversation-en.bin")) }
            catch let e as PredictionError { throw ValidationError(e.message.shown) }
        }, out: { print($0) })
    }
}

/// `handsfree words`: shows and edits the user's own words (what the shell's "add word" / "remove word" do),
/// for a helper setting up names before the user starts.
struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("List, add or remove the user's own words (the file the suggestion bar learns into)."),
        discussion: tr("""
        words list            the learned and added words, most used first
        words add NAME...     offer these words from now on, in the form given ("Zoë", "McDonald")
        words remove WORD...  never suggest these words again (until added back)
        words compile         build the shipped word lists into words-en.bin beside them (or --out FILE), as
                              the installer does, so that even a first start has suggestions at once;
                              with --language LL, that pack's lists into its words-LL.bin

        --language LL works on that language's words: its own user-words-LL.txt (English keeps user-words.txt).
        words sentences       the sentences the user wrote (sentences.txt), most used and most recent first
        words forget-sentence SENTENCE...  forget these sentences (any case)
        words forget-sentences             forget every sentence
        """))

    @Argument(help: ArgumentHelp(tr("list, add, remove or compile."))) var verb: String
    @Argument(help: ArgumentHelp(tr("Words to add or remove."))) var words: [String] = []
    @Option(help: ArgumentHelp(tr("User word file (default user-words.txt in the data folder)."))) var userFile: String?
    @Option(help: ArgumentHelp(tr("The user's data folder, as for run (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?
    @Option(help: ArgumentHelp(tr("With list or sentences: how many to show."))) var top = 50
    @Option(help: ArgumentHelp(tr("With compile: the file to write (default words-en.bin beside the word lists)."))) var out: String?
    @Option(help: ArgumentHelp(tr("The language: a code ({codes}: the installed packs) or a pack's folder. Default: English.", ["codes": languageCodes()])))
    var language: String?

    func validate() throws {
        guard ["list", "add", "remove", "compile", "sentences", "forget-sentence", "forget-sentences"].contains(verb) else {
            throw ValidationError(tr("the verb is list, add, remove, compile, sentences, forget-sentence or forget-sentences, not '{verb}'", ["verb": Shown.cut(verb)]))
        }
        if verb == "forget-sentence", words.isEmpty { throw ValidationError(tr("name at least one sentence to forget")) }
        if verb == "sentences" || verb == "forget-sentences", !words.isEmpty { throw ValidationError(tr("{verb} takes no words", ["verb": verb])) }
        if verb == "add", words.isEmpty { throw ValidationError(tr("name at least one word to add")) }
        if verb == "remove", words.isEmpty { throw ValidationError(tr("name at least one word to remove")) }
        if verb == "compile", !words.isEmpty { throw ValidationError(tr("{verb} takes no words", ["verb": verb])) }
    }

    /// The pack `--language` names (nil: English from wordlists/, as before packs).
    private func pack() throws -> LanguagePack? {
        guard let language else { return nil }
        do { return try LanguagePacks.find(language) } catch { throw ValidationError(error.reason.shown) }
    }

    func run() throws {
        let pack = try self.pack()
        if verb == "compile" { return try compile(pack) }
        let paths = UserPaths.current(dataDir: dataDir)
        let url = userFile.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? pack?.userWords(in: paths) ?? paths.userWords
        if verb.hasPrefix("sentences") || verb.hasPrefix("forget-sentence") { return try sentences(LivePrediction.historyFile(beside: url)) }
        var p: WordPredictor
        do {
            // Only the user's file changes; without the n-grams the word list loads in a moment.
            p = try WordPredictor.load(wordList: pack?.words?.list ?? WordLists.words, ngrams: nil, userFile: url,
                                       rules: pack?.words?.rules ?? .english)
        } catch { throw ValidationError(shown(error)) }
        for w in p.warnings.prefix(20) { FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": w.message.shown]) + "\n").utf8)) }
        switch verb {
        case "list":
            let learned = p.learnedWords.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            print(trn("{file}: {n} word, {removed} removed", "{file}: {n} words, {removed} removed", learned.count,
                      ["file": url.path, "removed": "\(p.removedWords.count)"]))
            for (w, c) in learned.prefix(top) { print("\(c)\t\(p.form(of: w))") }
            if !p.removedWords.isEmpty { print(tr("removed: {words}", ["words": p.removedWords.sorted().joined(separator: " ")])) }
        case "add":
            for w in words {
                let ok = p.addWord(w)
                guard ok else { throw ValidationError(tr("'{word}' is not a single word (letters, digits, apostrophes)", ["word": Shown.cut(w)])) }
            }
            try save(p, url)
            print(tr("added {words} to {file}", ["words": words.joined(separator: " "), "file": url.path]))
        default:
            for w in words { p.removeWord(w) }
            try save(p, url)
            print(tr("removed {words} from the suggestions ({file})", ["words": words.joined(separator: " "), "file": url.path]))
        }
    }

    /// Writes the compiled lists (`WordPredictor.load(cache:)` does, when the file is missing or was built from
    /// other lists); fails, writing nothing, if any list has a bad line, since such lists are never cached.
    private func compile(_ pack: LanguagePack?) throws {
        if let pack, pack.words == nil { throw ValidationError(tr("{file}: the {language} pack has no word data ([words])", ["file": pack.file.path, "language": pack.name])) }
        let file = out.map { URL(fileURLWithPath: $0) } ?? pack?.words?.compiled ?? WordLists.compiled
        let folder = pack?.folder ?? WordLists.folder
        func modified() -> Date? { try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date }
        let before = modified()
        let p: WordPredictor
        do {
            if let pack {
                let (loaded, notes) = try pack.load(userFile: nil, cache: file)
                for note in notes { FileHandle.standardError.write(Data(tr("warning: {problem}", ["problem": note.shown]).utf8 + [10])) }
                p = loaded
            } else {
                p = try WordLists.load(cache: file)
            }
        } catch { throw ValidationError(shown(error)) }
        // A damaged file there was replaced; anything else kept the file from being written.
        let problems = p.warnings.filter { if case .damagedCache(file.path, _) = $0 { false } else { true } }
        guard problems.isEmpty else {
            let first = problems.prefix(5).map(\.message.shown).joined(separator: "; ")
            throw ValidationError(problems.count > 5
                                  ? trn("compiled word lists not written: {problems} (and {n} more)", "compiled word lists not written: {problems} (and {n} more)",
                                        problems.count - 5, ["problems": first])
                                  : tr("compiled word lists not written: {problems}", ["problems": first]))
        }
        if let notice = WordLists.languageModelNotice { FileHandle.standardError.write(Data("notice: \(notice.shown)\n".utf8)) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        // The load leaves a file built from these very lists as it is.
        if let before, before == modified() {
            print(tr("{file} is up to date with the word lists in {folder}", ["file": file.path, "folder": folder.path]))
        } else {
            print(tr("compiled the word lists in {folder} into {file} ({size} MB)", ["folder": folder.path, "file": file.path, "size": "\(size / 1_000_000)"]))
        }
    }

    /// Lists or forgets the user's sentences; a file with bad lines is kept aside before it is written.
    private func sentences(_ file: URL) throws {
        let loaded: SentenceHistory.Loaded
        do { loaded = try SentenceHistory.load(file) } catch { throw ValidationError(shown(error)) }
        for w in loaded.warnings.prefix(20) { FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": w.message.shown]) + "\n").utf8)) }
        var h = loaded.history
        if verb == "sentences" {
            print(trn("{file}: {n} sentence", "{file}: {n} sentences", h.count, ["file": file.path]))
            for e in h.frequent(limit: top) { print("\(e.count)\t\(e.text)") }
            return
        }
        if verb == "forget-sentences" {
            h.clear()
        } else {
            for s in words where !h.forget(sentence: s) { FileHandle.standardError.write(Data((tr("not in the history: {sentence}", ["sentence": Shown.cut(s)]) + "\n").utf8)) }
        }
        if !loaded.warnings.isEmpty {
            guard let aside = AtomicFile.moveAside(file.path) else { throw ValidationError(tr("{file} has bad lines and could not be kept aside; not changed", ["file": file.path])) }
            FileHandle.standardError.write(Data((tr("the damaged file was kept as {file}", ["file": aside]) + "\n").utf8))
        }
        do { try h.save(to: file) } catch { throw ValidationError(shown(error)) }
        print(verb == "forget-sentences" ? tr("forgot every sentence ({file})", ["file": file.path])
                                         : trn("{n} sentence left in {file}", "{n} sentences left in {file}", h.count, ["file": file.path]))
    }

    private func save(_ p: WordPredictor, _ url: URL) throws {
        if let aside = UserWordsFile.keepAside(p, url) {
            FileHandle.standardError.write(Data("\(aside.message.shown)\n".utf8))
            guard aside.moved else { throw ValidationError(tr("{file} was not changed", ["file": url.path])) }
        }
        do { try p.save(to: url) } catch { throw ValidationError(shown(error)) }
    }
}

/// Prints each language's prediction beside English's (`LanguageBench`): load time, latency, keystroke savings.
struct BenchLanguage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "language",
        abstract: tr("Each installed language's word prediction beside English's: load time from text and compiled, suggest() p50/p99, KSR on its test text."),
        discussion: tr("""
        KSR is counted as `handsfree ksr` counts it (Presage's simulator), without learning and learning as the \
        text is typed, on the text each pack names in [words.test] (a package's text the lists were not made \
        from; `apt-get install` the package the line names when it is missing).
        """))

    @Option(help: ArgumentHelp(tr("Languages to measure, comma-separated codes or pack folders (default: every installed pack, English first).")))
    var languages: String?
    @Option(name: .short, help: ArgumentHelp(tr("Number of suggestions.")))
    var n = 3
    @Option(help: ArgumentHelp(tr("Timed suggestions per language.")))
    var count = 20000
    @Option(help: ArgumentHelp(tr("Also print each language's inputs with the slowest median time, to see where its tail comes from.")))
    var slowest = 0

    func run() throws {
        var packs: [LanguagePack]
        if let languages {
            packs = []
            for code in languages.split(separator: ",") {
                do { packs.append(try LanguagePacks.find(String(code))) } catch { throw ValidationError(error.reason.shown) }
            }
        } else {
            let (found, problems) = LanguagePacks.installed()
            for p in problems { FileHandle.standardError.write(Data(tr("warning: {problem}", ["problem": p.shown]).utf8 + [10])) }
            packs = found.filter { $0.code == "en" } + found.filter { $0.code != "en" }
        }
        var bench = LanguageBench()
        bench.n = n; bench.count = count; bench.slowest = slowest
        var langs: [LanguageBench.Language] = []
        for pack in packs where pack.words != nil {
            var text: String?
            var missing: String?
            do { text = try pack.words?.test?.read() } catch { missing = error.reason.shown }
            if pack.words?.test == nil { missing = "the pack names no test text" }
            langs.append(LanguageBench.Language(
                code: pack.code, name: pack.englishName,
                load: { cache in
                    let (p, notes) = try pack.load(userFile: nil, cache: cache)
                    for note in notes { FileHandle.standardError.write(Data(tr("warning: {problem}", ["problem": note.shown]).utf8 + [10])) }
                    return p
                },
                text: text, textName: pack.words?.test?.name ?? "", missing: missing))
        }
        printDebugBuildNote()
        _ = try printing { try bench.run(langs, out: $0) }
    }
}
