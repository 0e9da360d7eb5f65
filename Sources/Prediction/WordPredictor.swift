#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import SystemIO

/// Suggests words from the text typed so far, using word frequencies, n-grams and what the user taught it.
///
/// Pure and deterministic: the same model and text always give the same suggestions. Learning
/// and adding/removing words change the value (it is a struct), and `save()` writes the user's
/// part to `userFile` atomically.
public struct WordPredictor: Sendable {
    let lexicon: Lexicon
    let ngrams: NGrams
    var user: UserWords
    /// Where `save()` writes the learned words; nil means nowhere.
    public var userFile: URL?
    /// Problems found while loading (bad lines that were skipped), with file and line.
    public private(set) var warnings: [PredictionError] = []
    /// Hides words already offered for a shorter prefix of the current word in the same context
    /// (the user saw them and kept typing). Presage's simulator does this, so `handsfree ksr` turns it on to
    /// compare like for like; it is off by default because a hands-free user who did not look at the bar
    /// would otherwise lose the word they want.
    public var hideRejected = false
    /// Interpolation weights of the trigram, bigram and unigram estimates.
    public var weights: (trigram: Double, bigram: Double, unigram: Double) = (0.45, 0.45, 0.10)
    /// How much the user's own words and pairs count once they have taught it many words.
    public var userWeight: Double = 0.6
    /// Learned words at which the user's unigram weight reaches half of `userWeight`.
    public var userUnigramHalfway: Double = 1000
    /// Weight of the user's own word pairs once a previous word was seen often.
    public var userPairWeight: Double = 0.5
    /// Times a previous word was seen at which its pairs get half of `userPairWeight`.
    public var userPairHalfway: Double = 3
    /// Factor on the unigram estimate used where a bigram is not stored (pruned ones are rarer).
    public var backoff: Double = 0.5
    /// Weight of the user's own three-word phrases once a two-word context was seen often.
    public var userTripleWeight: Double = 0.25
    /// Times a two-word context was seen at which its phrases get half of `userTripleWeight`.
    public var userTripleHalfway: Double = 5
    /// Exponent on the letters a suggestion would save: ranking by P·saved^e offers the words that save
    /// the most keystrokes on average, not just the likeliest (0 = by probability only).
    public var lengthExponent: Double = 0
    /// Weight of the recency cache (words used lately, fading with distance) in the final mix.
    public var recencyWeight: Double = 0.15
    /// Per-word fading factor of the recency cache (0.99 = a word used 70 words ago counts half).
    public var recencyDecay: Double = 0.99
    /// Weight of a word's possessive ("Emma's", "mother's") relative to the word, for possessives the
    /// user has not taught it; 0 turns them off.
    public var possessiveWeight: Double = 0.02
    /// Words more frequent than this (log10 probability) get no generated possessive ("the's").
    public var possessiveMaxLogProb: Float = -3.0
    /// The listed words that may get a generated possessive (mostly nouns: "mother's", never "funny's"),
    /// from `nouns-en.txt`; nil lets any listed word have one. The user's names always may.
    var possessable: IDSet?

    /// Listed words not offered until the user has typed them (`offensive-en.txt`: swear words, slurs).
    var held = IDSet()
    /// Offer the held words too (Settings › "Suggest rude words").
    public var offerHeldWords = false
    /// A conversational model that initials expansion mixes with the n-grams (`PhraseSettings.conversationWeight`);
    /// the suggestion bar never reads it.
    public var phraseModel: PhraseModel?

    /// Generated possessives for the user's names only (as with an empty noun list).
    public mutating func onlyNamesGetPossessives() {
        possessable = IDSet()
        // The kept rankings gave the listed nouns their possessives.
        bestLists = BestLists()
    }
    /// Factor on the words the user wrote capitalised when a capital is typed in mid-sentence (1 = off).
    /// Emma, first 3000 lines, N = 3: 1 / 3 / 10 / 30 / 100 / 1000 → 53.11 / 53.25 / 53.34 / 53.39 / 53.41 / 53.42.
    public var capitalBoost: Double = 100
    /// Recently committed words for the recency cache; session state, not saved.
    var recent = RecencyCache()
    /// The language's rules (elisions, possessives, words always capitalised), from its pack; English by default.
    public var rules: LanguageRules = .english
    /// The best few words already ranked for the busiest contexts, from the lists as built (`BestLists`).
    var bestLists = BestLists()

    /// Fewer suggestions than this are the first of this many: the candidates are gathered for this many, so the
    /// word on a key (one asked for) is the bar's first word (three asked for, as `ksr` and the benches ask).
    /// Each candidate source takes more words for more suggestions, and with one asked for the lists' second
    /// best word was left out, which could rank first ("i am": "american" alone, "america" first of two).
    static let smallestPool = 3

    /// Longest word considered; longer tokens get no suggestions.
    public static let maxWordLength = 48
    /// The largest count a word list may give a word (the commonest English word is counted some 4e10 times
    /// in the Google Books list the shipped one comes from).
    static let largestListedCount = 1e15

    /// Number of words in the base list plus the user's own.
    public var vocabularySize: Int { lexicon.count + user.counts.keys.filter { lexicon.id(of: $0) == nil }.count }
    /// Numbers of bigrams and trigrams loaded.
    public var ngramCounts: (bigrams: Int, trigrams: Int) { (ngrams.bigramCount, ngrams.trigramCount) }

    /// The default user file: `$XDG_DATA_HOME/handsfree/user-words.txt` (or `~/.local/share/...`).
    public static func defaultUserFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let x = environment["XDG_DATA_HOME"], !x.isEmpty {
            base = URL(fileURLWithPath: x)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return base.appendingPathComponent("handsfree/user-words.txt")
    }

    /// A predictor over `words` (word, count) with no n-grams; for tests and small uses.
    /// The user's own words most worth telling a speech recogniser about: words they added and words they
    /// type with capitals (names, places), most used first, shown as they write them.
    public func userVocabulary(limit: Int = 60) -> [String] {
        let keys = Set(user.added.map { $0.lowercased() }).union(user.forms.keys)
        return keys.sorted { (user.counts[$0] ?? 0, $1) > (user.counts[$1] ?? 0, $0) }
            .prefix(limit).map { user.forms[$0] ?? $0 }
    }

    /// A predictor over `words` (word as it is shown, count) with no n-grams; for tests and small uses.
    public init(words: [(String, Double)], rules: LanguageRules = .english) {
        lexicon = Lexicon(words)
        ngrams = .empty
        user = UserWords()
        self.rules = rules
    }

    init(lexicon: Lexicon, ngrams: NGrams, user: UserWords, userFile: URL?, warnings: [PredictionError]) {
        self.lexicon = lexicon
        self.ngrams = ngrams
        self.user = user
        self.userFile = userFile
        self.warnings = warnings
    }

    /// Loads a word list (`word count` per line), optional n-grams, an optional user file, and optional
    /// one-word-per-line lists: `nouns` (the words that get a generated possessive) and `held` (words not
    /// offered until the user has typed them).
    ///
    /// A missing or unreadable word list or n-gram file throws with its path. A missing user file
    /// is fine (nothing learned yet); bad lines in any file, and unreadable `nouns` or `held` lists, are
    /// skipped and listed in `warnings`.
    ///
    /// With `save(to:)`, the only file I/O in Prediction. It stays here rather than in Runtime because each
    /// file is parsed as it is read, with its path in every warning, and the runtime, the `predict`, `ksr`
    /// and `words` commands and the tests all load by path: taking bytes would give each of them a reader
    /// to keep in step with these rules (which files may be missing, which only warn).
    ///
    /// With `cache`, the lists as built are read from that file when it was built from these very files
    /// (`ModelCache`), in one read and no parsing; otherwise they are read as text and the file is
    /// (re)written for the next start. A damaged cache file is a warning (`damagedCache`, naming it), never an
    /// error, and one that cannot be written is a `cannotWrite` warning. Lists with bad lines are not cached, so
    /// their warnings come at every load.
    ///
    /// `prebuilt` is the same kind of file made when the lists were installed (`handsfree words compile`),
    /// read only: tried when `cache` has nothing for these lists, so even the very first start reads them in
    /// one go, and nothing is written then; a `cache` left by other lists or an older version is removed.
    ///
    /// `rules` are the language's (its pack's): English by default, as the shell predicted before it had packs.
    /// `languageModel`: a PocketSphinx trie model (`LMTrie`, e.g. Debian's `en-us.lm.bin`) whose bigrams, trigrams
    /// and back-off weights add to those of `ngrams` (where both have an n-gram, `ngrams`' is kept); it is part of
    /// what the compiled lists are built from, so it is read once, when they are built.
    public static func load(wordList: URL, ngrams: URL?, userFile: URL?, nouns: URL? = nil,
                            held: URL? = nil, cache: URL? = nil, prebuilt: URL? = nil,
                            rules: LanguageRules = .english, languageModel: URL? = nil) throws(PredictionError) -> WordPredictor {
        var warnings: [PredictionError] = []
        let sources = sourceFiles(wordList: wordList, ngrams: ngrams, nouns: nouns, held: held, languageModel: languageModel)
        let stamp = cache == nil && prebuilt == nil ? nil : ModelCache.stamp(of: sources)
        var model: ModelCache.Model?
        var staleCache = false
        for file in [cache, prebuilt] where model == nil {
            guard let file, let stamp else { continue }
            switch readCache(file, stamp: stamp, sources: sources) {
            case .success(let m): model = m
            case .failure(.damaged(let reason)): warnings.append(.damagedCache(path: file.path, reason: reason))
            case .failure(.stale): staleCache = staleCache || file == cache
            }
        }
        // The cache was built from other lists or by an older version, and the installed file serves these
        // lists: nothing would ever replace the cache, so it would sit in the user's folder for good.
        if staleCache, model != nil, let cache { try? FileManager.default.removeItem(at: cache) }
        if model == nil {
            let built = try buildModel(wordList: wordList, ngrams: [ngrams, languageModel].compactMap { $0 }, nouns: nouns,
                                       held: held, rules: rules, warnings: &warnings)
            if let cache, let stamp, warnings.allSatisfy({ if case .damagedCache = $0 { true } else { false } }) {
                if let failure = DurableFile.write(ModelCache.encode(built, stamp: stamp), to: cache.path) {
                    warnings.append(.cannotWrite(path: cache.path, reason: failure.reason))
                }
            }
            model = built
        }
        guard let model else { throw .cannotRead(path: wordList.path, reason: UIMessage("not loaded")) }
        var user = UserWords()
        if let userFile, FileManager.default.fileExists(atPath: userFile.path) {
            let ub = try LineReader.read(userFile)
            user = UserWords.parse(ub, path: userFile.path, warnings: &warnings)
        }
        var p = WordPredictor(lexicon: model.lexicon, ngrams: model.ngrams, user: user, userFile: userFile, warnings: warnings)
        p.possessable = model.possessable
        p.held = model.held
        p.rules = rules
        p.bestLists = model.bestLists
        return p
    }

    /// What a compiled word-list file holds for these lists (for `handsfree doctor`).
    public enum CompiledLists: Equatable, Sendable {
        /// Built from these very files: a start reads it in one go.
        case upToDate
        /// No such file.
        case missing
        /// Built from other lists, or by another version: a start passes it over.
        case otherLists
        /// Cut short or not adding up (why).
        case damaged(UIMessage)
    }

    /// Whether `file` holds the lists named compiled, as `load(cache:prebuilt:)` would find it.
    public static func compiledLists(in file: URL, wordList: URL, ngrams: URL?, nouns: URL?, held: URL?,
                                     languageModel: URL? = nil) -> CompiledLists {
        guard FileManager.default.fileExists(atPath: file.path) else { return .missing }
        let sources = sourceFiles(wordList: wordList, ngrams: ngrams, nouns: nouns, held: held, languageModel: languageModel)
        guard let stamp = ModelCache.stamp(of: sources) else { return .otherLists }
        switch readCache(file, stamp: stamp, sources: sources) {
        case .success: return .upToDate
        case .failure(.stale): return .otherLists
        case .failure(.damaged(let why)): return .damaged(why)
        }
    }

    /// The cached model in `url`, built from `sources`, read in one go; a missing file is stale (nothing to
    /// say). Its first bytes and size are looked at first: a damaged file of gigabytes is refused unread.
    private static func readCache(_ url: URL, stamp: [UInt8], sources: [URL?]) -> Result<ModelCache.Model, ModelCache.Problem> {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.stale) }
        var st = stat()
        var head = [UInt8](repeating: 0, count: ModelCache.version.count + 8 + stamp.count + 1024)
        let got = fstat(fd, &st) == 0 ? read(fd, &head, head.count) : -1
        close(fd)
        guard got >= 0 else { return .failure(.stale) }
        do throws(ModelCache.Problem) {
            try ModelCache.check(head: head.prefix(got), size: Int(st.st_size), largest: ModelCache.largestFile(builtFrom: sources),
                                 stamp: stamp)
        } catch {
            return .failure(error)
        }
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return .failure(.stale) }
        return data.withUnsafeBytes { raw in Result { () throws(ModelCache.Problem) in try ModelCache.decode(raw, stamp: stamp) } }
    }

    /// The files the compiled lists are built from, in the stamp's order (the model only when there is one).
    private static func sourceFiles(wordList: URL, ngrams: URL?, nouns: URL?, held: URL?, languageModel: URL?) -> [URL?] {
        [wordList, ngrams, nouns, held] + (languageModel.map { [$0] } ?? [])
    }

    /// Reads and builds the shipped lists from their text.
    private static func buildModel(wordList: URL, ngrams: [URL], nouns: URL?, held: URL?, rules: LanguageRules,
                                   warnings: inout [PredictionError]) throws(PredictionError) -> ModelCache.Model {
        let bytes = try LineReader.read(wordList)
        // The lexicon keeps its words' places as 32-bit numbers.
        guard bytes.count < Int(Int32.max) else { throw .cannotRead(path: wordList.path, reason: UIMessage("larger than 2 GB")) }
        var entries: [(String, Double)] = []
        entries.reserveCapacity(100_000)
        var bad = 0
        LineReader.forEachLine(bytes) { line, f in
            if let problem = LineReader.problem(f) {
                bad += 1
                if bad <= 100 { warnings.append(.badLine(path: wordList.path, line: line, message: problem)) }
                return
            }
            guard f.count == 2, let w = LineReader.string(f[0]), let c = LineReader.number(f[1]), c >= 0,
                  w.allSatisfy({ Tokens.isWordCharacter($0) }) else {
                bad += 1
                if bad <= 100 { warnings.append(.badLine(path: wordList.path, line: line, message: UIMessage("expected 'word count'"))) }
                return
            }
            // The counts are summed: a few near Double's largest would make the sum infinite and every word's
            // probability nothing.
            guard c <= Self.largestListedCount else {
                bad += 1
                if bad <= 100 {
                    warnings.append(.badLine(path: wordList.path, line: line,
                                             message: UIMessage("count {count} is out of range (at most 1e15)", ["count": Shown.cut(LineReader.string(f[1]) ?? "")])))
                }
                return
            }
            // As listed: a capital ("Straße", "París") is how the word is shown.
            entries.append((w, c))
        }
        if entries.isEmpty { throw .cannotRead(path: wordList.path, reason: UIMessage("no 'word count' lines")) }
        let lexicon = Lexicon(entries)
        let model = ngrams.isEmpty ? .empty : try NGrams(urls: ngrams, lexicon: lexicon, warnings: &warnings)
        // Without the noun list no word but the user's names gets a generated possessive: never "funny's".
        let possessable = nouns.map { wordIDs($0, in: lexicon, warnings: &warnings) }
        let heldIDs = held.map { wordIDs($0, in: lexicon, warnings: &warnings) } ?? IDSet()
        // The busiest contexts ranked once, by a predictor as these lists load it (nothing learned, default settings).
        var ranker = WordPredictor(lexicon: lexicon, ngrams: model, user: UserWords(), userFile: nil, warnings: [])
        ranker.possessable = possessable
        ranker.held = heldIDs
        ranker.rules = rules
        return ModelCache.Model(lexicon: lexicon, ngrams: model, possessable: possessable, held: heldIDs,
                                bestLists: ranker.rankedBestLists())
    }

    /// The ids of the listed words of a one-word-per-line file; an unreadable file is a warning and no words.
    private static func wordIDs(_ url: URL, in lexicon: Lexicon, warnings: inout [PredictionError]) -> IDSet {
        var set = IDSet()
        do {
            let bytes = try LineReader.read(url)
            LineReader.forEachLine(bytes) { _, f in
                if let w = LineReader.string(f[0]), let id = lexicon.id(of: w.lowercased()) { set.insert(Int32(id)) }
            }
        } catch {
            warnings.append(error)
        }
        return set
    }

    /// True if word `id` may be offered: not held back, or the user has typed it, or held words are on.
    @inline(__always)
    func offerable(_ id: Int) -> Bool {
        held.isEmpty || offerHeldWords || !held.contains(Int32(id)) || user.counts[lexicon.word(id)] != nil
    }

    // MARK: Suggesting

    /// A candidate word: a lexicon id, or a user word that is not in the lexicon.
    enum Candidate: Hashable {
        case id(Int32)
        case extra(String)
    }

    /// The candidates of one ranking, each once: listed words as ids, sorted and deduplicated in `finish`
    /// (hashing each of some fifty ids cost a tenth of a suggestion), the user's other words in a set.
    private struct CandidateSet {
        private var ids: [Int32] = []
        private var extras: Set<String> = []

        init() { ids.reserveCapacity(64) }

        mutating func insert(_ id: Int32) { ids.append(id) }

        mutating func insert(_ c: Candidate) {
            switch c {
            case .id(let id): ids.append(id)
            case .extra(let w): extras.insert(w)
            }
        }

        /// Sorts and deduplicates the ids; call once, after the last insert and before reading.
        mutating func finish() {
            // Mostly some fifty ids: an insertion sort in place costs a fraction of the general sort's closure calls.
            // The user's words can add hundreds, for which it would be quadratic.
            if ids.count > 64 {
                ids.sort()
            } else {
                ids.withUnsafeMutableBufferPointer { a in
                    for i in a.indices.dropFirst() {
                        let v = a[i]
                        var j = i
                        while j > 0, a[j - 1] > v { a[j] = a[j - 1]; j -= 1 }
                        a[j] = v
                    }
                }
            }
            var n = 0
            for i in ids.indices where i == 0 || ids[i] != ids[i - 1] { ids[n] = ids[i]; n += 1 }
            ids.removeLast(ids.count - n)
        }

        var count: Int { ids.count + extras.count }

        /// The listed words, in id order (after `finish`).
        var sortedIDs: [Int32] { ids }
        /// The user's other words, in word order, so a ranking never depends on hashing.
        var sortedExtras: [String] { extras.isEmpty ? [] : extras.sorted() }

        func contains(_ c: Candidate) -> Bool {
            switch c {
            case .id(let id):
                var lo = 0, hi = ids.count
                while lo < hi {
                    let m = (lo + hi) / 2
                    if ids[m] < id { lo = m + 1 } else { hi = m }
                }
                return lo < ids.count && ids[lo] == id
            case .extra(let w): return !extras.isEmpty && extras.contains(w)
            }
        }
    }

    /// Up to `limit` words for the text typed so far, best first, cased for where they go.
    ///
    /// The last token of `textSoFar` may be a partial word; with none (text empty or ending in a
    /// space or punctuation) these are next-word predictions from the context.
    public func suggest(_ textSoFar: String, limit: Int) -> [String] {
        guard limit > 0 else { return [] }
        let (context, partial, sentenceStart, elided) = Tokens.split(textSoFar, rules: rules)
        guard partial.count <= WordPredictor.maxWordLength else { return [] }
        let lower = partial.lowercased()
        let (w1, w2) = contextIDs(context)
        let u2 = context.last
        let u1 = context.count >= 2 ? context[context.count - 2] : nil
        // Only the user's phrases need the two-word key; without any, making it is wasted.
        let uctx = user.triples.isEmpty && user.tripleTotals.isEmpty ? nil : u2.flatMap { b in u1.map { UserWords.tripleKey($0, b) } }
        // A capital in mid-sentence ("said H") announces a name or title: prefer the words the user wrote
        // capitalised. All capitals ("VOLUME") say nothing of the kind.
        let typedCase = TypedCase(partial)
        let nameHint = capitalBoost != 1 && !sentenceStart && typedCase.firstUpper && !typedCase.allCaps
        var result: [Candidate] = []
        if let kept = bestListed(lower, w1: w1, w2: w2, limit: limit) {
            result = kept.map { .id($0) }
        } else {
            var shown = Set<Candidate>()
            // Rank for each shorter prefix first when hiding what the user already passed over.
            let typedPrefixes = hideRejected ? (0...partial.count).map { String(lower.prefix($0)) } : [lower]
            for (k, typed) in typedPrefixes.enumerated() {
                result = Array(rank(typed: typed, w1: w1, w2: w2, u2: u2, uctx: uctx, limit: max(limit, WordPredictor.smallestPool),
                                    skip: shown, name: !typed.isEmpty && nameHint).prefix(limit))
                if k < typedPrefixes.count - 1 { shown.formUnion(result) }
            }
        }
        let words = result.map { display($0, typed: partial, typedCase: typedCase, sentenceStart: sentenceStart) }
        // After an elision the word is offered joined to it, as typed: "l'h" → "l'homme", "L'" → "L'homme".
        guard let elided else { return words }
        return words.map { elided + $0 }
    }

    /// The ids of the context words (`Tokens.split`'s, `<s>` for a sentence start), -1 for an unknown one.
    private func contextIDs(_ context: [String]) -> (w1: Int32?, w2: Int32?) {
        func id(_ w: String) -> Int32 {
            if w == "<s>" { return ngrams.sentenceStart }
            return lexicon.id(of: w).map { Int32($0) } ?? -1
        }
        let w2 = context.last.map(id)
        let w1 = context.count >= 2 ? id(context[context.count - 2]) : nil
        return (w1, w2)
    }

    /// The settings a ranking depends on, as `BestLists` keeps them.
    var rankSettings: BestLists.Settings {
        var s = BestLists.Settings()
        (s.trigram, s.bigram, s.unigram) = weights
        s.backoff = backoff
        s.lengthExponent = lengthExponent
        s.possessiveWeight = possessiveWeight
        s.possessiveMaxLogProb = Double(possessiveMaxLogProb)
        s.possessive = rules.possessive
        s.offerHeldWords = offerHeldWords
        return s
    }

    /// The words `bestLists` keeps for the letters `typed` (lowercase) after the context, when they are what `rank` gives
    /// (nothing learned or hidden, the same settings); nil when the search must answer.
    @inline(__always)
    private func bestListed(_ typed: String, w1: Int32?, w2: Int32?, limit: Int) -> [Int32]? {
        guard !bestLists.isEmpty, limit <= BestLists.pool, !hideRejected, user.isEmpty, let code = BestLists.typedCode(typed),
              rankSettings == bestLists.settings else { return nil }
        let none = BestLists.none
        // Without a known last word, the ranking has no context.
        guard let w2, w2 >= 0 else { return bestLists.lookup(BestLists.key(none, none, code), limit: limit) }
        if let w1, w1 >= 0 {
            if let kept = bestLists.lookup(BestLists.key(w1, w2, code), limit: limit) { return kept }
            // Two words with no stored successors rank as the last word alone: no trigram is found for any candidate.
            guard ngrams.trigramRange(w1, w2).isEmpty else { return nil }
        }
        return bestLists.lookup(BestLists.key(none, w2, code), limit: limit)
    }

    /// Whether `suggest(text, limit:)` reads its words from the rankings kept for the busiest contexts (`BestLists`), for
    /// tests and `bench predict`: how often the kept path is taken.
    public func readsKeptRankings(_ text: String, limit: Int) -> Bool {
        let (context, partial, _, _) = Tokens.split(text, rules: rules)
        let (w1, w2) = contextIDs(context)
        return partial.count <= WordPredictor.maxWordLength && bestListed(partial.lowercased(), w1: w1, w2: w2, limit: limit) != nil
    }

    /// `BestLists` for these lists and settings: the ranking after each of the busiest one- and two-word contexts (most
    /// stored successors) and after none, with nothing typed; for the busier of those with each letter a–z typed, and for
    /// the busiest with two letters that begin many words too.
    func rankedBestLists() -> BestLists {
        let none = BestLists.none
        var lists = BestLists()
        lists.settings = rankSettings
        // Keys hold 21 bits per word, the top value meaning none.
        guard lexicon.count + 1 < 0x1F_FFFF else { return lists }
        let g = ngrams.parts
        // Each context with its place among the busiest of its kind.
        var contexts: [(w1: Int32, w2: Int32, place: Int)] = [(none, none, 0)]
        let one = g.bigramKeys.indices.sorted { (g.bigramHi[$0] - g.bigramLo[$0], $1) > (g.bigramHi[$1] - g.bigramLo[$1], $0) }
        for (n, i) in one.prefix(BestLists.oneWordContexts).enumerated() { contexts.append((none, g.bigramKeys[i], n)) }
        let two = g.trigramKeys.indices.sorted { (g.trigramHi[$0] - g.trigramLo[$0], $1) > (g.trigramHi[$1] - g.trigramLo[$1], $0) }
        for (n, i) in two.prefix(BestLists.twoWordContexts).enumerated() {
            let k = g.trigramKeys[i]
            contexts.append((Int32(truncatingIfNeeded: k >> 32), Int32(truncatingIfNeeded: k), n))
        }
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(decoding: [$0], as: UTF8.self) }
        let pairs = letters.flatMap { a in letters.map { a + $0 } }
            .filter { lexicon.range(prefix: Array($0.utf8)).count >= BestLists.twoLetterWords }
        var entries: [(key: UInt64, ids: [Int32])] = []
        entries.reserveCapacity(contexts.count + 2 * BestLists.oneLetterContexts * letters.count
                                + 2 * BestLists.twoLetterContexts * pairs.count)
        for (w1, w2, place) in contexts {
            let typed = [""] + (place < BestLists.oneLetterContexts ? letters : []) + (place < BestLists.twoLetterContexts ? pairs : [])
            for t in typed {
                guard let code = BestLists.typedCode(t) else { continue }
                let ranked = rank(typed: t, w1: w1 == none ? nil : w1, w2: w2 == none ? nil : w2, u2: nil, uctx: nil,
                                  limit: BestLists.pool, skip: [])
                // A word the lists lack (a generated possessive) is left to the search.
                let ids = ranked.compactMap { c -> Int32? in if case .id(let id) = c { id } else { nil } }
                if ids.count == ranked.count { entries.append((BestLists.key(w1, w2, code), ids)) }
            }
        }
        entries.sort { $0.key < $1.key }
        for e in entries { lists.append(e.key, e.ids) }
        return lists
    }

    /// The best candidates for the typed letters `typed` (lowercase) after the context.
    private func rank(typed: String, w1: Int32?, w2: Int32?, u2: String?, uctx: String?, limit: Int, skip: Set<Candidate>,
                      name: Bool = false) -> [Candidate] {
        // The lexicon is sorted by folded keys: "cancion" and "canción" typed both find "canción". Letters typed
        // with an accent only match that accent.
        let typedBytes = Array(typed.utf8)
        let plain = Folding.isPlain(typed)
        let prefix = plain && typedBytes.allSatisfy({ $0 < 0x80 }) ? typedBytes : Array(Folding.fold(typed).utf8)
        let range = lexicon.range(prefix: prefix)
        var cands = CandidateSet()
        // An accented letter typed matches only that letter, so a word without it is out before `Folding.matches`
        // makes a string of it: after "é" the range is every word folded to "e", and making each a string took
        // a millisecond (es "En é", fr "peut ê", pt "O Botafogo é").
        let accented = plain ? nil : Folding.accentedLetter(typed)
        // Most words that match start with the very bytes typed: those are known to match without a string.
        let latinTyped = !plain && Folding.isLatinUTF8(typedBytes)
        func allowed(_ id: Int32) -> Bool {
            range.contains(Int(id)) && (skip.isEmpty || !skip.contains(.id(id)))
                && (user.removed.isEmpty || !user.removed.contains(lexicon.word(Int(id)))) && offerable(Int(id))
                && (plain || (latinTyped && lexicon.startsWithLatin(Int(id), typedBytes))
                    || ((accented.map { lexicon.mayHold(letter: $0, in: Int(id)) } ?? true)
                        && Folding.matches(lexicon.word(Int(id)), typed: typed)))
        }
        // The context's ranges once, for the successors and the scores: finding a two-word context is a search.
        let ranges = contextRanges(w1: w1, w2: w2)
        var added = 0
        if let w1, let w2, w1 >= 0, w2 >= 0 {
            for id in ngrams.successors(stored: ranges.trigrams, in: range, k: 4 * limit + skip.count) where allowed(id) {
                cands.insert(id); added += 1
                if added >= 4 * limit { break }
            }
        }
        added = 0
        if let w2, w2 >= 0 {
            for id in ngrams.successors(stored: ranges.bigrams, in: range, k: 4 * limit + skip.count) where allowed(id) {
                cands.insert(id); added += 1
                if added >= 4 * limit { break }
            }
        }
        // Typed with an accent, only the words under its accent key can match: looked for among those alone.
        let best = plain ? lexicon.top(prefix: prefix, range: range, k: 2 * limit, skip: { !allowed(Int32($0)) })
            : lexicon.top(accentKey: Lexicon.accentKey(typed: typed) ?? [], prefix: prefix, range: range, k: 2 * limit,
                          skip: { !allowed(Int32($0)) })
        for id in best { cands.insert(Int32(id)) }
        // The user's words: those that followed the previous word, and frequent ones with this prefix.
        // The user's words are kept by their lowercase form: matched by the letters as typed.
        if let u2, !user.pairTop.isEmpty, let top = user.pairTop[u2] {
            for w in top where w.utf8.starts(with: typedBytes) { cands.insert(candidate(w)) }
        }
        if let uctx, !user.triples.isEmpty, let succ = user.triples[uctx] {
            for (w, _) in succ where w.utf8.starts(with: typedBytes) { cands.insert(candidate(w)) }
        }
        if name {
            for w in user.names(prefix: typedBytes, limit: 64) { cands.insert(candidate(w)) }
        }
        let ur = user.sortedKeys.isEmpty ? 0..<0 : user.range(prefix: typedBytes)
        if !ur.isEmpty, ur.count <= 512 {
            for i in ur { cands.insert(candidate(String(decoding: user.sortedKeys[i], as: UTF8.self))) }
        }
        var scored: [(Double, Candidate)] = []
        cands.finish()
        // Room for the possessives too (up to two per suggestion offered), so that adding them never reallocates.
        scored.reserveCapacity(cands.count + 2 * limit + 1)
        // Each listed candidate's n-gram probabilities in one pass over each context's successors, not two binary
        // searches per candidate over all of them.
        let ids = cands.sortedIDs
        var bigrams: [Float] = [], trigrams: [Float] = []
        ngrams.logProbs(of: ids, in: ranges.bigrams, into: &bigrams)
        ngrams.logProbs(of: ids, in: ranges.trigrams, into: &trigrams)
        func keep(_ c: Candidate, _ score: Double) {
            var sc = score
            // Only a word the user wrote with a capital is a name: without any, no candidate is made a string to ask.
            if name, !user.forms.isEmpty, user.isName(key(c)) { sc *= capitalBoost }
            if lengthExponent != 0 { sc *= pow(Double(max(1, length(c) - typedBytes.count)), lengthExponent) }
            scored.append((sc, c))
        }
        // The word typed in full and its score, for its possessive. Lowercase forms are one per id, so it is the one id
        // `id(of:)` gives: found once, where comparing each candidate's bytes was a cache miss apiece.
        var typedScore: (id: Int32, score: Double)?
        let typedID = typedBytes.isEmpty ? nil : lexicon.id(of: typed).map { Int32($0) }
        for (i, id) in ids.enumerated() where skip.isEmpty || !skip.contains(.id(id)) {
            let b = bigrams[i], t = trigrams[i]
            let sc = score(id: id, bigram: b.isNaN ? nil : b, trigram: t.isNaN ? nil : t, w1: w1, w2: w2, u2: u2, uctx: uctx)
            // Offering exactly what was typed saves nothing; leave the place to a longer word. ("cancion" typed
            // still offers "canción": the accent is worth a suggestion.)
            if id == typedID { typedScore = (id, sc); continue }
            keep(.id(id), sc)
        }
        // The user's words that are not listed have no n-grams: only the user's model scores them.
        for w in cands.sortedExtras where skip.isEmpty || !skip.contains(.extra(w)) {
            if user.removed.contains(w) || (!typedBytes.isEmpty && w.utf8.elementsEqual(typedBytes)) { continue }
            keep(.extra(w), userMix(0, .extra(w), u2: u2, uctx: uctx))
        }
        // Generated possessives ("mother's") are English's rule, given by its pack.
        if rules.possessive, possessiveWeight > 0, !typedBytes.isEmpty {
            addPossessives(prefix: typedBytes, typedScore: typedScore, scored: &scored, present: cands, limit: limit, skip: skip,
                           context: ScoreContext(w1: w1, w2: w2, u2: u2, uctx: uctx, ranges: ranges))
        }
        return WordPredictor.best(scored, limit: limit, lexicon: lexicon)
    }

    /// The first `limit` candidates of `scored` in order of score, then word: what a stable sort followed by
    /// `prefix(limit)` gives, without sorting all of them.
    ///
    /// A static function on purpose: a comparator that calls methods captures the whole predictor, and
    /// copying it for every comparison cost more than the comparisons.
    private static func best(_ scored: [(Double, Candidate)], limit: Int, lexicon: Lexicon) -> [Candidate] {
        func key(_ c: Candidate) -> String {
            switch c {
            case .id(let id): return lexicon.word(Int(id))
            case .extra(let w): return w
            }
        }
        func before(_ a: (Double, Candidate), _ b: (Double, Candidate)) -> Bool {
            a.0 != b.0 ? a.0 > b.0 : key(a.1) < key(b.1)
        }
        var top: [(Double, Candidate)] = []
        top.reserveCapacity(limit + 1)
        for e in scored {
            if top.count == limit, let last = top.last, !before(e, last) { continue }
            // After any equal ones, as a stable sort keeps them.
            var pos = top.count
            while pos > 0 && before(e, top[pos - 1]) { pos -= 1 }
            // Into place by swaps, the last one dropped when full: `insert(_:at:)` went through the generic `replaceSubrange`.
            if top.count == limit { top[limit - 1] = e } else { top.append(e) }
            var i = top.count - 1
            while i > pos { top.swapAt(i, i - 1); i -= 1 }
        }
        return top.map { $0.1 }
    }

    /// Adds "word's" for the best few candidates (or for the word before a typed apostrophe), at
    /// `possessiveWeight` times the word's score, unless the possessive is already a candidate.
    ///
    /// Prose is full of first-time possessives of names and nouns ("Woodhouse's", "daughter's") that no
    /// word list holds; without this they are never offered and cost every letter.
    ///
    /// `typedScore`: the word typed in full, when it is listed and was scored among the candidates, and its score.
    private func addPossessives(prefix: [UInt8], typedScore: (id: Int32, score: Double)?, scored: inout [(Double, Candidate)],
                                present: CandidateSet, limit: Int, skip: Set<Candidate>, context x: ScoreContext) {
        // A method, not a closure: a closure calling `score` took a copy of the whole predictor at every suggestion.
        func score(_ c: Candidate) -> Double { self.score(c, w1: x.w1, w2: x.w2, u2: x.u2, uctx: x.uctx, ranges: x.ranges) }
        let apostrophe = UInt8(ascii: "'")
        var bases: [(Double, Candidate)] = []
        if let a = prefix.firstIndex(of: apostrophe) {
            // "emma'" or "emma's" typed: offer the possessive of exactly that word.
            let rest = prefix[(a + 1)...]
            guard a > 0, rest.isEmpty || rest.elementsEqual([UInt8(ascii: "s")]) else { return }
            let base = candidate(String(decoding: prefix[..<a], as: UTF8.self))
            guard isKnown(base) else { return }
            bases = [(score(base), base)]
        } else {
            // Words ending in s are mostly plurals, whose "hellos's" is never right.
            let s = UInt8(ascii: "s")
            func eligible(_ c: Candidate) -> Bool {
                let listed: Bool
                switch c {
                case .id(let id): listed = lexicon.length(Int(id)) >= 3 && lexicon.logProb[Int(id)] <= possessiveMaxLogProb
                    && possessable?.contains(id) ?? true
                    && lexicon.lastByte(Int(id)) != s && !lexicon.contains(apostrophe, in: Int(id))
                case .extra(let w): listed = possessable == nil && w.utf8.count >= 3 && w.utf8.last != s && !w.utf8.contains(apostrophe)
                }
                if listed { return true }
                // The user's names, whatever their ending ("James's"); looked up only when there are any, since
                // the lookup makes a string of every candidate.
                guard !user.nameKeys.isEmpty else { return false }
                let k = key(c)
                return user.isName(k) && !k.utf8.contains(apostrophe)
            }
            // The word typed in full was dropped from the candidates (it saves nothing) but its possessive may not be.
            // Its score is known when it was a candidate (the one listed word whose lowercase form is the letters typed).
            let typed = typedScore.map { .id($0.id) } ?? candidate(String(decoding: prefix, as: UTF8.self))
            var typedBase: (Double, Candidate)?
            if isKnown(typed), eligible(typed) { typedBase = (typedScore?.score ?? score(typed), typed) }
            // The best 2·limit eligible ones, as a stable sort of all eligible ones by score (the typed word after the
            // candidates of its score) would begin: the candidates in that order, each asked only until enough are found.
            // Asking all of some fifty read four tables at each one's id, a cache miss apiece.
            var order = Array(scored.indices)
            order.sort { scored[$0].0 > scored[$1].0 }
            bases.reserveCapacity(2 * limit)
            for i in order where bases.count < 2 * limit {
                if let t = typedBase, t.0 > scored[i].0 { bases.append(t); typedBase = nil }
                if bases.count < 2 * limit, eligible(scored[i].1) { bases.append(scored[i]) }
            }
            if let t = typedBase, bases.count < 2 * limit { bases.append(t) }
        }
        for (sc, c) in bases {
            let pc: Candidate
            if case .id(let base) = c {
                // "word's" sorts just after "word": look it up from there rather than in the whole list, by its
                // bytes, so a listed possessive never becomes a string.
                if let id = lexicon.possessive(of: Int(base)) {
                    pc = .id(Int32(id))
                } else {
                    pc = .extra(key(c) + "'s")
                }
            } else {
                pc = candidate(key(c) + "'s")
            }
            guard !present.contains(pc), skip.isEmpty || !skip.contains(pc), user.removed.isEmpty || !user.removed.contains(key(pc)),
                  length(pc) > prefix.count else { continue }
            scored.append((sc * possessiveWeight, pc))
        }
    }

    /// True for a listed word, or a word the user has taught.
    private func isKnown(_ c: Candidate) -> Bool {
        if case .extra(let w) = c { return user.counts[w] != nil }
        return true
    }

    func candidate(_ word: String) -> Candidate {
        if let id = lexicon.id(of: word) { return .id(Int32(id)) }
        return .extra(word)
    }

    func length(_ c: Candidate) -> Int {
        switch c {
        case .id(let id): return lexicon.length(Int(id))
        case .extra(let w): return w.utf8.count
        }
    }

    func key(_ c: Candidate) -> String {
        switch c {
        case .id(let id): return lexicon.word(Int(id))
        case .extra(let w): return w
        }
    }

    /// What scoring a candidate needs to know of the context, for `addPossessives`.
    struct ScoreContext {
        let w1: Int32?, w2: Int32?, u2: String?, uctx: String?
        let ranges: ContextRanges
    }

    /// Where the n-grams of the context `w1 w2` are stored, looked up once per ranking rather than per candidate.
    struct ContextRanges {
        var bigrams: Range<Int> = 0..<0
        var trigrams: Range<Int> = 0..<0
    }

    func contextRanges(w1: Int32?, w2: Int32?) -> ContextRanges {
        var r = ContextRanges()
        if let w2, w2 >= 0 {
            r.bigrams = ngrams.bigramRange(w2)
            if let w1, w1 >= 0 { r.trigrams = ngrams.trigramRange(w1, w2) }
        }
        return r
    }

    /// 10^x: `exp` is two to three times faster than `pow`, and scoring takes it twice for each of some fifty candidates.
    @inline(__always)
    static func exp10(_ x: Float) -> Double { exp(Double(x) * 2.302585092994046) }

    func score(_ c: Candidate, w1: Int32?, w2: Int32?, u2: String?, uctx: String?, ranges: ContextRanges) -> Double {
        switch c {
        case .id(let id):
            // Outside a known context its range is empty, so nothing is found there.
            return score(id: id, bigram: ngrams.logProb(of: id, in: ranges.bigrams), trigram: ngrams.logProb(of: id, in: ranges.trigrams),
                         w1: w1, w2: w2, u2: u2, uctx: uctx)
        case .extra:
            return userMix(0, c, u2: u2, uctx: uctx)
        }
    }

    /// `score` of a listed word whose stored log10 P after the context (`bigram`, `trigram`; nil where none) is known.
    @inline(__always)
    private func score(id: Int32, bigram b: Float?, trigram t: Float?, w1: Int32?, w2: Int32?, u2: String?, uctx: String?) -> Double {
        let p1 = lexicon.probability[Int(id)]
        var p2 = p1
        if let w2, w2 >= 0 {
            if let b { p2 = WordPredictor.exp10(b) } else if ngrams.bigramCount > 0 { p2 = backoff * p1 }
        }
        var p3 = p2
        if let w1, let w2, w1 >= 0, w2 >= 0, let t { p3 = WordPredictor.exp10(t) }
        return userMix(weights.trigram * p3 + weights.bigram * p2 + weights.unigram * p1, .id(id), u2: u2, uctx: uctx)
    }

    /// A phrase word's probability after the context, for the beam search: a missing trigram backs off to `a`
    /// times the bigram, and so on (stupid backoff, Brants et al. 2007), so that words after different contexts
    /// compare fairly; the bar's interpolation (`score`) made a missing trigram score higher than a present one,
    /// which only ever mattered when comparing contexts. Then mixed with the user's words as `score` does.
    func phraseScore(_ c: Candidate, w1: Int32?, w2: Int32?, u2: String?, uctx: String?, ranges: ContextRanges, backoff a: Double,
                     modelBackoff: Bool = true) -> Double {
        var base = 0.0
        if case .id(let id) = c, modelBackoff, ngrams.hasBackoffs {
            base = pow(10, Double(ngrams.backedOff(id, w1: w1, w2: w2, unigram: lexicon.logProb[Int(id)],
                                                   bigrams: ranges.bigrams, trigrams: ranges.trigrams)))
        } else if case .id(let id) = c {
            let p1 = lexicon.probability[Int(id)]
            if let w1, let w2, w1 >= 0, w2 >= 0, let t = ngrams.logProb(of: id, in: ranges.trigrams) {
                base = pow(10, Double(t))
            } else if let w2, w2 >= 0, let b = ngrams.logProb(of: id, in: ranges.bigrams) {
                base = (w1 ?? -1) >= 0 ? a * pow(10, Double(b)) : pow(10, Double(b))
            } else {
                base = (w2 ?? -1) >= 0 ? a * a * p1 : p1
            }
        }
        return userMix(base, c, u2: u2, uctx: uctx)
    }

    /// `base` mixed with the recency cache and the user's words, pairs and phrases, each trusted more as it grows.
    @inline(__always)
    private func userMix(_ base: Double, _ c: Candidate, u2: String?, uctx: String?) -> Double {
        var base = base
        guard user.total > 0 else { return base }
        // Only the user's part needs the word as a string; making it is most of a candidate's cost.
        let word = key(c)
        if recencyWeight > 0, recent.clock > 0 {
            base = (1 - recencyWeight) * base + recencyWeight * recent.probability(word, decay: recencyDecay)
        }
        // Mix in the user's word frequencies, trusted more as they grow.
        let pu1 = Double(user.counts[word] ?? 0) / Double(user.total)
        let mu1 = userWeight * Double(user.total) / (Double(user.total) + userUnigramHalfway)
        var p = (1 - mu1) * base + mu1 * pu1
        // Then what followed the previous word for this user, trusted more the more often it was seen.
        if let u2, let seen = user.pairTotals[u2], seen > 0 {
            let pu2 = Double(user.pairs[u2]?[word] ?? 0) / Double(seen)
            let mu2 = userPairWeight * Double(seen) / (Double(seen) + userPairHalfway)
            p = (1 - mu2) * p + mu2 * pu2
        }
        // And the user's own phrases: what followed these two words before.
        if let uctx, let seen = user.tripleTotals[uctx], seen > 0 {
            let pu3 = Double(user.triples[uctx]?[word] ?? 0) / Double(seen)
            let mu3 = userTripleWeight * Double(seen) / (Double(seen) + userTripleHalfway)
            p = (1 - mu3) * p + mu3 * pu3
        }
        return p
    }

    /// True for two or more typed characters, all capitals (or not letters), at least one letter: "TH", "USA".
    private static func isAllCaps(_ typed: String) -> Bool {
        typed.count >= 2 && typed.allSatisfy { !$0.isLetter || $0.isUppercase } && typed.contains { $0.isLetter }
    }


    /// What `display` needs to know of the capitals typed, worked out once per suggestion rather than per word.
    struct TypedCase {
        let allCaps: Bool
        let firstUpper: Bool
        let anyUpper: Bool

        init(_ typed: String) {
            // In ASCII a capital is A-Z and a letter is a-z or A-Z, so bytes answer without Character properties.
            if typed.utf8.allSatisfy({ $0 < 0x80 }) {
                let u = typed.utf8
                func upper(_ b: UInt8) -> Bool { b &- UInt8(ascii: "A") < 26 }
                allCaps = u.count >= 2 && u.allSatisfy { !Tokens.isLetterByte($0) || upper($0) } && u.contains(where: Tokens.isLetterByte)
                firstUpper = u.first.map(upper) ?? false
                anyUpper = u.contains(where: upper)
                return
            }
            // Latin letters past ASCII (every scalar a Character) answer from `Folding`'s table of their properties.
            let bytes = Array(typed.utf8)
            if Folding.isLatinUTF8(bytes) {
                var letters = 0, count = 0, allUpper = true, first: Bool?, any = false
                var i = 0
                while i < bytes.count {
                    let b = bytes[i]
                    let (letter, upper): (Bool, Bool)
                    if b < 0x80 {
                        (letter, upper) = (Tokens.isLetterByte(b), b &- UInt8(ascii: "A") < 26)
                        i += 1
                    } else {
                        let l = Folding.latinEntry(b, bytes[i + 1])
                        (letter, upper) = (l.isLetter, l.isUppercase)
                        i += 2
                    }
                    count += 1
                    if letter { letters += 1 }
                    if letter && !upper { allUpper = false }
                    if first == nil { first = upper }
                    if upper { any = true }
                }
                allCaps = count >= 2 && allUpper && letters > 0
                firstUpper = first ?? false
                anyUpper = any
                return
            }
            allCaps = WordPredictor.isAllCaps(typed)
            firstUpper = typed.first?.isUppercase ?? false
            anyUpper = typed.contains(where: { $0.isUppercase })
        }
    }

    /// The form the word list gives a listed word ("Straße", "París"), if any.
    @inline(__always)
    private func listedForm(_ c: Candidate) -> String? {
        guard case .id(let id) = c, !lexicon.displayIDs.isEmpty else { return nil }
        return lexicon.display(Int(id))
    }

    /// The word as shown: the user's form or the list's, capitalised at a sentence start or like the typed letters.
    func display(_ c: Candidate, typed: String, typedCase: TypedCase, sentenceStart: Bool) -> String {
        let w = key(c)
        // The user's form, then the list's ("Straße"), then the language's ("I").
        var form = (user.forms.isEmpty ? nil : user.forms[w]) ?? listedForm(c)
            ?? (rules.capitalised.isEmpty ? nil : rules.capitalised[w]) ?? w
        if form == w, !user.forms.isEmpty, w.hasSuffix("'s"), let baseForm = user.forms[String(w.dropLast(2))] { form = baseForm + "'s" }
        return WordPredictor.casedASCII(form, typed: typed, typedCase: typedCase, sentenceStart: sentenceStart)
            ?? WordPredictor.cased(form, typed: typed, typedCase: typedCase, sentenceStart: sentenceStart)
    }

    /// A word's form capitalised at a sentence start or like the letters typed.
    static func cased(_ form: String, typed: String, typedCase: TypedCase, sentenceStart: Bool) -> String {
        var form = form
        if typedCase.allCaps {
            form = form.uppercased()
        } else if typedCase.firstUpper || (typed.isEmpty && sentenceStart) {
            form = TextComposition.capitalisingFirst(form)
        }
        // Keep exactly what was typed for the typed part (e.g. "McD" → "McDonald").
        if typedCase.anyUpper, form.lowercased().hasPrefix(typed.lowercased()), form.count >= typed.count {
            form = typed + form.dropFirst(typed.count)
        }
        return sentenceStart ? TextComposition.capitalisingFirst(form) : form
    }

    /// `cased` on the bytes of a form and typed letters that are printable ASCII, nil for any other. `Character` case
    /// mapping, `lowercased()` and `hasPrefix` cost about a microsecond a word at a sentence start or after a typed
    /// capital ("The d", "I w"); in printable ASCII each byte is a Character, so counts and prefixes are of bytes, and a
    /// letter's capital is its byte less 32.
    static func casedASCII(_ form: String, typed: String, typedCase: TypedCase, sentenceStart: Bool) -> String? {
        func printable(_ b: UInt8) -> Bool { b &- 0x21 < 0x5E }
        guard form.utf8.allSatisfy(printable), typed.utf8.allSatisfy(printable) else { return nil }
        // Nothing to change: the form as it is, with no copy.
        guard typedCase.allCaps || typedCase.firstUpper || typedCase.anyUpper || sentenceStart else { return form }
        func upper(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "a") < 26 ? b - 32 : b }
        func lower(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b + 32 : b }
        var f = Array(form.utf8)
        if typedCase.allCaps {
            for i in f.indices { f[i] = upper(f[i]) }
        } else if typedCase.firstUpper || (typed.isEmpty && sentenceStart), !f.isEmpty {
            f[0] = upper(f[0])
        }
        if typedCase.anyUpper {
            let t = Array(typed.utf8)
            if f.count >= t.count, zip(f, t).allSatisfy({ lower($0) == lower($1) }) { f.replaceSubrange(0..<t.count, with: t) }
        }
        if sentenceStart, !f.isEmpty { f[0] = upper(f[0]) }
        return String(decoding: f, as: UTF8.self)
    }

    // MARK: Learning

    /// Learns the words and word pairs of text the user committed.
    public mutating func learn(_ committedText: String) {
        var prev = "<s>"
        var prev2: String?
        for (w, start) in Tokens.words(committedText, rules: rules) {
            if start { prev = "<s>"; prev2 = nil }
            guard w.count <= WordPredictor.maxWordLength else { prev = "<s>"; prev2 = nil; continue }
            let lower = w.lowercased()
            if user.removed.contains(lower) { prev2 = prev; prev = lower; continue }
            // Keep the user's capitals unless they only come from the sentence start.
            let form: String? = (start && w.dropFirst() == lower.dropFirst()) ? user.forms[lower] : (w != lower ? w : nil)
            user.bump(lower, form: form)
            user.bumpPair(prev, lower)
            if let prev2 { user.bumpTriple(prev2, prev, lower) }
            recent.add(lower, decay: recencyDecay)
            prev2 = prev
            prev = lower
        }
    }

    /// Learns one committed word after the text before it.
    public mutating func learn(word: String, after textBefore: String = "") {
        var (context, _, start, _) = Tokens.split(textBefore + " ", rules: rules)
        let whole = Tokens.trimApostrophes(word)
        guard !whole.isEmpty, whole.allSatisfy({ Tokens.isWordCharacter($0) }), whole.count <= WordPredictor.maxWordLength else { return }
        // "l'homme" is two words, "l'" then "homme", as the lists and the n-grams have them.
        for w in rules.splitElisions(whole) where !w.isEmpty {
            let lower = w.lowercased()
            defer { context = Array((context + [lower]).suffix(2)); start = false }
            guard !user.removed.contains(lower) else { continue }
            let form: String? = (start && w.dropFirst() == lower.dropFirst()) ? user.forms[lower] : (w != lower ? w : nil)
            user.bump(lower, form: form)
            user.bumpPair(context.last ?? "<s>", lower)
            if context.count >= 2 { user.bumpTriple(context[context.count - 2], context[context.count - 1], lower) }
            recent.add(lower, decay: recencyDecay)
        }
    }

    /// Whether `addWord` takes `word`: one word of word characters, not too long (spaces around are ignored).
    public static func isSingleWord(_ word: String) -> Bool {
        let w = word.trimmingCharacters(in: .whitespaces)
        return !w.isEmpty && w.count <= WordPredictor.maxWordLength && w.allSatisfy({ Tokens.isWordCharacter($0) })
    }

    /// Adds a word the user wants offered (e.g. a name), in the form it should be shown.
    /// - Returns: false if `word` is not a single word.
    @discardableResult
    public mutating func addWord(_ word: String) -> Bool {
        let w = word.trimmingCharacters(in: .whitespaces)
        guard Self.isSingleWord(w) else { return false }
        let lower = w.lowercased()
        user.removed.remove(lower)
        user.bump(lower, form: w, by: 1)
        user.added.insert(lower)
        return true
    }

    /// Removes a word: it is never suggested again and is forgotten, until added again.
    public mutating func removeWord(_ word: String) {
        let lower = word.trimmingCharacters(in: .whitespaces).lowercased()
        guard !lower.isEmpty else { return }
        user.forget(lower)
        user.removed.insert(lower)
        recent.forget(lower)
    }

    /// The learned words' file as `save(to:)` writes it.
    public var learnedWordsText: String { user.serialized() }
    /// Words the user taught it, with counts (lowercase → count).
    public var learnedWords: [String: Int] { user.counts }
    /// Words the user removed.
    public var removedWords: Set<String> { user.removed }
    /// How a learned word (lowercase) is shown: the user's form ("Zoë", "McDonald") or the word itself.
    public func form(of word: String) -> String { user.forms[word] ?? word }

    /// Writes the learned words to `userFile` (atomically, creating its folder).
    public func save() throws(PredictionError) {
        guard let userFile else { return }
        try save(to: userFile)
    }

    /// Writes the learned words to `url` so that a crash at any moment leaves the old or the new file whole
    /// (`DurableFile.write`), creating its folder.
    public func save(to url: URL) throws(PredictionError) {
        if let failure = DurableFile.write(Array(learnedWordsText.utf8), to: url.path) {
            throw .cannotWrite(path: url.path, reason: failure.reason)
        }
    }
}

/// Words committed lately, each weighted by `decay^(words since it was used)`, summed over its uses.
///
/// Kept as (weight at last use, clock at last use) per word, so adding a word and reading one
/// probability are O(1) whatever the history length.
struct RecencyCache: Sendable {
    private var entries: [String: (weight: Double, at: Int)] = [:]
    /// Words added so far.
    private(set) var clock = 0

    mutating func add(_ word: String, decay: Double) {
        clock += 1
        if let e = entries[word] {
            entries[word] = (e.weight * pow(decay, Double(clock - e.at)) + 1, clock)
        } else {
            entries[word] = (1, clock)
        }
    }

    mutating func forget(_ word: String) { entries[word] = nil }

    /// The word's share of the faded total: Σ decay^age over its uses / Σ decay^age over all uses.
    func probability(_ word: String, decay: Double) -> Double {
        guard let e = entries[word], clock > 0 else { return 0 }
        let w = e.weight * pow(decay, Double(clock - e.at))
        let total = decay < 1 ? (1 - pow(decay, Double(clock))) / (1 - decay) : Double(clock)
        return w / total
    }
}
