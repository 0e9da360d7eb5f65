import Foundation
import Testing
@testable import Prediction

/// The shipped lists, cut to their first lines so a debug build loads them in a moment: enough words for
/// busy prefixes (the precomputed tables) and n-grams for every kind of context.
private struct CutLists {
    let dir: URL
    let words: URL, ngrams: URL, nouns: URL, held: URL
    let cache: URL

    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("wordlists")
    static var available: Bool { FileManager.default.fileExists(atPath: shipped.appendingPathComponent("ngrams-en.txt").path) }

    init() throws {
        let dir = try tempDir()
        self.dir = dir
        func cut(_ name: String, _ lines: Int) throws -> URL {
            let text = try String(contentsOf: CutLists.shipped.appendingPathComponent(name), encoding: .utf8)
            let url = dir.appendingPathComponent(name)
            try (text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines).joined(separator: "\n") + "\n")
                .write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        words = try cut("words-en.txt", 20_000)
        ngrams = try cut("ngrams-en.txt", 60_000)
        nouns = try cut("nouns-en.txt", 5_000)
        held = try cut("offensive-en.txt", 1_000)
        cache = dir.appendingPathComponent("cache/words-en.bin")
    }

    func load(cache: URL?, prebuilt: URL? = nil) throws -> WordPredictor {
        try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil, nouns: nouns, held: held, cache: cache,
                               prebuilt: prebuilt)
    }

    /// Every prefix of every word of a few sentences, with names, possessives and held words among them.
    static let inputs: [String] = {
        var out: [String] = []
        for s in ["I would like a cup of tea with milk please", "The doctor said that my breathing is much better",
                  "Can you call my daughter's school", "oh damn the window in the living room", "What about Emma's dog"] {
            var typed = ""
            for w in s.split(separator: " ") {
                for k in 0...w.count { out.append(typed + w.prefix(k)) }
                typed += w + " "
            }
        }
        return out
    }()
}

@Suite(.enabled(if: CutLists.available, "needs the shipped word lists in wordlists/"))
struct ModelCacheTests {
    @Test func compiledListsSuggestTheSameAsTheText() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let text = try lists.load(cache: nil)
        let writing = try lists.load(cache: lists.cache)
        #expect(writing.warnings.isEmpty)
        #expect(FileManager.default.fileExists(atPath: lists.cache.path), "the first load writes the compiled lists")
        let cached = try lists.load(cache: lists.cache)
        #expect(cached.warnings.isEmpty)
        #expect(cached.vocabularySize == text.vocabularySize)
        #expect(cached.ngramCounts == text.ngramCounts)
        #expect(cached.held == text.held && cached.possessable == text.possessable)
        for limit in [1, 4, 6] {
            for input in CutLists.inputs {
                #expect(cached.suggest(input, limit: limit) == text.suggest(input, limit: limit), "\(input) (\(limit))")
            }
        }
    }

    @Test func changedListsAreRebuiltWithoutAWord() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        _ = try lists.load(cache: lists.cache)
        // A word added to the list: the stamp (size, time) changes, so the old file must not be used.
        let handle = try FileHandle(forWritingTo: lists.words)
        handle.seekToEndOfFile()
        handle.write(Data("zyzzyvaquux 1000000000\n".utf8))
        try handle.close()
        let p = try lists.load(cache: lists.cache)
        #expect(p.warnings.isEmpty)
        #expect(p.suggest("so zyzzyvaq", limit: 1) == ["zyzzyvaquux"])
        #expect(try lists.load(cache: lists.cache).suggest("so zyzzyvaq", limit: 1) == ["zyzzyvaquux"], "and the rebuilt file has it")
    }

    @Test(arguments: ["truncated", "overwritten", "garbage", "empty"])
    func damagedCacheIsNamedAndTheTextIsRead(_ damage: String) throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let text = try lists.load(cache: nil)
        _ = try lists.load(cache: lists.cache)
        var bytes = try [UInt8](Data(contentsOf: lists.cache))
        switch damage {
        case "truncated": bytes = Array(bytes.prefix(bytes.count * 2 / 3))
        case "overwritten": for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[i] ^= 0x5a }
        case "empty": bytes = []
        default: bytes = Array(bytes.prefix(200)) + [UInt8](repeating: 0xff, count: 4096)
        }
        try Data(bytes).write(to: lists.cache)
        let p = try lists.load(cache: lists.cache)
        let damaged = p.warnings.compactMap { w -> String? in if case .damagedCache(let path, _) = w { path } else { nil } }
        #expect(damaged == [lists.cache.path], "the message names the file")
        #expect(p.warnings.first?.description.contains(lists.cache.path) == true)
        for input in CutLists.inputs.prefix(60) { #expect(p.suggest(input, limit: 4) == text.suggest(input, limit: 4)) }
        // Read from the text, then written again whole: the next start uses it without a word.
        let next = try lists.load(cache: lists.cache)
        #expect(next.warnings.isEmpty)
    }

    /// What the installer does: the lists compiled in a staging folder, then moved into place with them.
    @Test func listsCompiledAtInstallServeTheFirstStartAfterTheyAreMoved() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let text = try lists.load(cache: nil)
        let staged = lists.dir.appendingPathComponent("words-en.bin")
        _ = try lists.load(cache: staged)
        let installed = lists.dir.appendingPathComponent("installed")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        for f in [lists.words, lists.ngrams, lists.nouns, lists.held, staged] {
            try FileManager.default.moveItem(at: f, to: installed.appendingPathComponent(f.lastPathComponent))
        }
        let moved = { (f: URL) in installed.appendingPathComponent(f.lastPathComponent) }
        let userCache = lists.dir.appendingPathComponent("home-cache/words-en.bin")
        let first = try WordPredictor.load(wordList: moved(lists.words), ngrams: moved(lists.ngrams), userFile: nil,
                                           nouns: moved(lists.nouns), held: moved(lists.held), cache: userCache,
                                           prebuilt: moved(staged))
        #expect(first.warnings.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: userCache.path), "the installed file is read; the user's cache stays empty")
        for input in CutLists.inputs.prefix(80) { #expect(first.suggest(input, limit: 4) == text.suggest(input, limit: 4)) }
    }

    /// A user cache from before the install (other lists, or an older format) is removed once the installed
    /// file serves: nothing else would ever replace it.
    @Test func aStaleUserCacheGoesOnceTheInstalledFileServes() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let prebuilt = lists.dir.appendingPathComponent("words-en.bin")
        _ = try lists.load(cache: prebuilt)
        try FileManager.default.createDirectory(at: lists.cache.deletingLastPathComponent(), withIntermediateDirectories: true)
        // The first format's header, as a start before the format changed left it.
        try Data("HFWORDS1 built by an older version".utf8).write(to: lists.cache)
        let p = try lists.load(cache: lists.cache, prebuilt: prebuilt)
        #expect(p.warnings.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: lists.cache.path))
        #expect(FileManager.default.fileExists(atPath: prebuilt.path))
        // Without an installed file the stale cache is rebuilt in place, as before.
        try Data("HFWORDS1 built by an older version".utf8).write(to: lists.cache)
        _ = try lists.load(cache: lists.cache)
        #expect(WordPredictor.compiledLists(in: lists.cache, wordList: lists.words, ngrams: lists.ngrams, nouns: lists.nouns,
                                            held: lists.held) == .upToDate)
    }

    @Test func aPrebuiltFileOfOtherListsIsPassedOverAndADamagedOneNamed() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let prebuilt = lists.dir.appendingPathComponent("words-en.bin")
        _ = try lists.load(cache: prebuilt)
        // The lists changed after the install (a word added by hand): built from the text, into the user's cache.
        let handle = try FileHandle(forWritingTo: lists.words)
        handle.seekToEndOfFile()
        handle.write(Data("zyzzyvaquux 1000000000\n".utf8))
        try handle.close()
        let changed = try lists.load(cache: lists.cache, prebuilt: prebuilt)
        #expect(changed.warnings.isEmpty)
        #expect(changed.suggest("so zyzzyvaq", limit: 1) == ["zyzzyvaquux"])
        #expect(FileManager.default.fileExists(atPath: lists.cache.path))
        // A damaged installed file: named, and the lists read from the text.
        try FileManager.default.removeItem(at: lists.cache)
        try Data(ModelCache.version + Array(" not whole".utf8)).write(to: prebuilt)
        let damaged = try lists.load(cache: lists.cache, prebuilt: prebuilt)
        #expect(damaged.warnings.contains { if case .damagedCache(prebuilt.path, _) = $0 { true } else { false } })
        #expect(damaged.suggest("so zyzzyvaq", limit: 1) == ["zyzzyvaquux"])
    }

    @Test func unwritableCacheOnlyWarns() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        // The cache folder is a file, so the compiled lists cannot be written: suggestions still come.
        try Data().write(to: lists.cache.deletingLastPathComponent())
        let p = try lists.load(cache: lists.cache)
        #expect(p.warnings.contains { if case .cannotWrite(lists.cache.path, _) = $0 { true } else { false } })
        #expect(p.suggest("I would like a cup of t", limit: 1).isEmpty == false)
    }

    /// Issue 49: the checksum is one anyone can compute, so a file may pass it and still hold tables that point
    /// outside each other (words' places going backwards, an n-gram of a word past the list, a rank past its
    /// context). Such a file trapped at the first suggestion; now it is damaged, named, and the text is read.
    @Test(arguments: ["places go backwards", "an n-gram's word past the list", "a rank past its context", "a kept ranking's word past the list"])
    func tablesThatPointOutsideEachOtherAreDamage(_ damage: String) throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        let text = try lists.load(cache: nil)
        let stamp = try #require(ModelCache.stamp(of: [lists.words, lists.ngrams, lists.nouns, lists.held]))
        _ = try lists.load(cache: lists.cache)
        let good = try Data(contentsOf: lists.cache)
        var m = try good.withUnsafeBytes { raw in try ModelCache.decode(raw, stamp: stamp) }
        let l = m.lexicon, g = m.ngrams
        switch damage {
        case "places go backwards":
            var starts = l.starts
            starts[5] = starts[7] + 3
            m.lexicon = Lexicon(bytes: l.bytes, starts: starts, lower: l.lower, lowerStarts: l.lowerStarts, displayIDs: l.displayIDs,
                                displayBytes: l.displayBytes, displayStarts: l.displayStarts, logProb: l.logProb,
                                topByPrefix: l.topByPrefix, accentLists: l.accentLists, accentTop: l.accentTop)
        case "an n-gram's word past the list":
            var p = g.parts
            p.ids[0] = Int32(l.count + 1000); p.byID[0] = Int32(l.count + 1000)
            m.ngrams = NGrams(trusting: p)
        case "a kept ranking's word past the list":
            var words = m.bestLists.words
            words[1] = Int32(l.count + 5)
            m.bestLists = try #require(BestLists(settings: m.bestLists.settings.values, keys: m.bestLists.keys, words: words,
                                                 lexiconSize: l.count + 6))
        default:
            var p = g.parts
            let i = try #require(p.bigramKeys.indices.first { p.bigramHi[$0] - p.bigramLo[$0] > 2 })
            p.rankOf[Int(p.bigramLo[i])] = Int32(p.bigramHi[i] - p.bigramLo[i] + 50)
            m.ngrams = NGrams(trusting: p)
        }
        // Encoded whole, with a checksum that matches.
        try Data(ModelCache.encode(m, stamp: stamp)).write(to: lists.cache)
        let p = try lists.load(cache: lists.cache)
        let tables = ["places go backwards": "word list tables", "a kept ranking's word past the list": "kept rankings"][damage] ?? "n-gram tables"
        #expect(p.warnings.map(\.description) == ["\(lists.cache.path): damaged (\(tables) do not fit together); the word lists were read instead"])
        for input in CutLists.inputs.prefix(80) { #expect(p.suggest(input, limit: 4) == text.suggest(input, limit: 4)) }
    }

    /// Issue 50: the busiest contexts' rankings are kept in the compiled lists (`BestLists`) and read instead of searching.
    /// What they give must be what the search gives, for every number of suggestions they serve, with nothing typed and
    /// with a letter; once the user has taught it anything, the search answers.
    @Test func theKeptRankingsGiveWhatTheSearchGives() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        _ = try lists.load(cache: lists.cache)
        let kept = try lists.load(cache: lists.cache)
        #expect(kept.bestLists.count > 1000, "the compiled lists keep rankings (\(kept.bestLists.count))")
        var search = kept
        search.bestLists = BestLists()
        // A sample of the kept contexts as typed: the context's words (an unknown word for none, nothing at a sentence
        // start), then nothing or the letter.
        let none: Int32 = 0x1F_FFFF, start = kept.ngrams.sentenceStart
        func text(_ w: Int32) -> String { w == start ? "" : kept.lexicon.word(Int(w)) + " " }
        var inputs: [String] = []
        for (i, key) in kept.bestLists.keys.enumerated() where i % 11 == 0 {
            let w1 = Int32((key >> 37) & 0x1F_FFFF), w2 = Int32((key >> 16) & 0x1F_FFFF)
            let letter = String(decoding: [UInt8(key & 0xFF), UInt8((key >> 8) & 0xFF)].filter { $0 != 0 }, as: UTF8.self)
            switch (w1, w2) {
            case (none, none): inputs.append("zqxv " + letter)
            case (none, _): inputs.append((w2 == start ? "" : "zqxv ") + text(w2) + letter)
            default: inputs.append((w1 == start ? "" : "zqxv ") + text(w1) + text(w2) + letter)
            }
        }
        let read = inputs.filter { kept.readsKeptRankings($0, limit: 3) }.count
        #expect(read * 10 >= inputs.count * 9, "\(read) of \(inputs.count) sampled contexts read the kept rankings")
        #expect(CutLists.inputs.contains { kept.readsKeptRankings($0, limit: 1) })
        for input in inputs + CutLists.inputs {
            for limit in 1...4 { #expect(kept.suggest(input, limit: limit) == search.suggest(input, limit: limit), "\(input) (\(limit))") }
        }
        #expect(!kept.readsKeptRankings("I would like a ", limit: 4), "four words are more than the lists keep")
        var learned = kept
        learned.learn("a cup of tea")
        #expect(kept.readsKeptRankings("I would like a ", limit: 3) && !learned.readsKeptRankings("I would like a ", limit: 3))
        var hiding = kept
        hiding.hideRejected = true
        var otherWeights = kept
        otherWeights.weights = (0.5, 0.4, 0.1)
        #expect(!hiding.readsKeptRankings("I would like a ", limit: 3) && !otherWeights.readsKeptRankings("I would like a ", limit: 3))
    }

    /// Two-word contexts, back-off weights and sentence ends are found by their first word's slice and a binary
    /// search: pairs out of order, or a first word past the list, would be missed or taken for another's, so such
    /// a table is refused (and the compiled file with it, as damaged).
    @Test func pairsAreFoundByFirstWordAndRefusedOutOfOrder() throws {
        let pairs: [(Int32, Int32)] = [(0, 3), (0, 9), (2, 1), (2, 2), (2, 7), (5, 0)]
        let keys = pairs.map { NGrams.key($0.0, $0.1) }
        let index = try #require(PairIndex(keys, firstWords: 6))
        for (k, (a, b)) in pairs.enumerated() { #expect(index.find(a, b, in: keys) == k) }
        for (a, b) in [(0, 4), (1, 3), (2, 0), (2, 8), (5, 1), (6, 0), (-1, 3), (3, -1)] as [(Int32, Int32)] {
            #expect(index.find(a, b, in: keys) == nil, "\(a) \(b)")
        }
        var swapped = keys
        swapped.swapAt(2, 3)
        #expect(PairIndex(swapped, firstWords: 6) == nil)
        #expect(PairIndex(keys + [keys[5]], firstWords: 6) == nil, "a pair twice")
        #expect(PairIndex(keys, firstWords: 5) == nil, "a first word past the list")
        var parts = NGrams.Parts(sentenceStart: 6)
        parts.backoff2Keys = swapped; parts.backoff2Values = [Float](repeating: -0.5, count: swapped.count)
        #expect(NGrams(parts) == nil)
        parts.backoff2Keys = keys
        let g = try #require(NGrams(parts))
        #expect(g.backoff2(2, 7) == -0.5)
        #expect(g.backoff2(2, 8) == 0)
    }

    /// Issue 49: a 3 GB damaged file was read whole (3.1 GB of memory) before it was refused. Its first bytes
    /// and size are looked at first now: refused unread, with its size in the message. A sparse file costs no
    /// disk.
    @Test func aHugeDamagedFileIsRefusedBeforeItIsRead() throws {
        let lists = try CutLists()
        defer { try? FileManager.default.removeItem(at: lists.dir) }
        try FileManager.default.createDirectory(at: lists.cache.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(ModelCache.version).write(to: lists.cache)
        let handle = try FileHandle(forWritingTo: lists.cache)
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        func peakKB() -> Int { var u = rusage(); getrusage(RUSAGE_SELF.rawValue, &u); return u.ru_maxrss }
        let before = peakKB()
        let p = try lists.load(cache: lists.cache)
        #expect(peakKB() - before < 500_000, "peak memory grew by \(peakKB() - before) KB")
        let warning = p.warnings.first?.description ?? ""
        #expect(warning.hasPrefix("\(lists.cache.path): damaged (3221 MB, more than the word lists could make ("), "\(warning)")
        #expect(p.suggest("I would like a cup of t", limit: 1).isEmpty == false)
        #expect(WordPredictor.compiledLists(in: lists.cache, wordList: lists.words, ngrams: lists.ngrams, nouns: lists.nouns,
                                            held: lists.held) == .upToDate, "rebuilt and rewritten")
    }
}
