import Foundation
import Localization

/// Bigram and trigram probabilities over lexicon ids, loaded from an n-gram file.
///
/// File lines: `w1 w2 log10P` or `w1 w2 w3 log10P`; `<s>` marks the sentence start. Each
/// context's successors are kept best first, so prediction walks them in order.
///
/// Every table is a flat array, with no dictionary: the whole English model has a million two-word contexts and
/// back-off weights, and hashing them into dictionaries was most of the compiled lists' load time (247 ms) and
/// memory. A one-word context is an index; a two-word one is its first word's slice of sorted pairs, then a
/// binary search on the second (`PairIndex`).
struct NGrams: Sendable {
    /// The tables as the compiled lists store them (`ModelCache`); the lookups below are built over them.
    struct Parts: Sendable {
        /// Context id used for `<s>` (the lexicon's size), -1 for no n-grams.
        var sentenceStart: Int32
        /// One-word contexts, increasing, and where each one's successors lie in `ids`.
        var bigramKeys: [Int32] = [], bigramLo: [Int64] = [], bigramHi: [Int64] = []
        /// Two-word contexts (`NGrams.key`), increasing, and where each one's successors lie in `ids`.
        var trigramKeys: [UInt64] = [], trigramLo: [Int64] = [], trigramHi: [Int64] = []
        /// Successors of each context, best first.
        var ids: [Int32] = []
        /// The same ranges as `ids`, each sorted by word id, so a prefix's successors are one binary search.
        var byID: [Int32] = []
        /// The log10 P of each entry of `byID`, read beside the word it was found by (a pair stored twice: its later, less
        /// likely, entry's, for both). Kept in best-first order, it took following the entry's rank there: a second cache
        /// miss for each candidate of a suggestion, and misses are most of a suggestion's tail.
        var logp: [Float] = []
        /// For each entry of `byID`, its place in the context's best-first order.
        var rankOf: [Int32] = []
        /// Numbers of distinct bigrams and trigrams stored.
        var bigramCount = 0, trigramCount = 0
        /// log10 back-off weight of each word as a one-word context (index `sentenceStart` for `<s>`), from a model
        /// that has them (`LMTrie`); empty for n-gram text, which has none.
        var backoff1: [Float] = []
        /// log10 back-off weight of two-word contexts (`NGrams.key`, increasing), where it is not 0.
        var backoff2Keys: [UInt64] = [], backoff2Values: [Float] = []
        /// log10 P(end of sentence | w) for each word as a one-word context (where stored: `Float.nan` otherwise),
        /// and then, as the last element, log10 P(end of sentence) alone; empty without a model that has them.
        var end1: [Float] = []
        /// log10 P(end of sentence | w1 w2) (`NGrams.key`, increasing), where stored.
        var end2Keys: [UInt64] = [], end2Values: [Float] = []
    }

    /// The tables as stored.
    let parts: Parts
    /// Where each one-word context's successors lie, by context id: `bigramLo[w]..<bigramHi[w]`.
    private let bigramLo: [Int32], bigramHi: [Int32]
    private let trigramIndex: PairIndex, backoff2Index: PairIndex, end2Index: PairIndex

    /// Context id used for `<s>`.
    var sentenceStart: Int32 { parts.sentenceStart }
    var ids: [Int32] { parts.ids }
    var logp: [Float] { parts.logp }
    var byID: [Int32] { parts.byID }
    var rankOf: [Int32] { parts.rankOf }
    var bigramCount: Int { parts.bigramCount }
    var trigramCount: Int { parts.trigramCount }
    var backoff1: [Float] { parts.backoff1 }
    var end1: [Float] { parts.end1 }

    /// Whether the back-off weights are known, so a missing n-gram's probability is the model's own estimate.
    var hasBackoffs: Bool { !parts.backoff1.isEmpty }

    static let empty = NGrams(trusting: Parts(sentenceStart: -1))

    /// N-grams over `parts`, or nil when they do not fit together: contexts out of order or past the sentence
    /// start, ranges outside `ids`, ranks outside their context, a word past the list. Nothing a lookup reads
    /// can then fall outside its table, whatever a compiled file held.
    init?(_ parts: Parts) {
        let n = Int(parts.sentenceStart), m = parts.ids.count
        guard n >= -1, m < Int(Int32.max), parts.logp.count == m, parts.byID.count == m, parts.rankOf.count == m,
              parts.bigramLo.count == parts.bigramKeys.count, parts.bigramHi.count == parts.bigramKeys.count,
              parts.trigramLo.count == parts.trigramKeys.count, parts.trigramHi.count == parts.trigramKeys.count,
              parts.backoff2Values.count == parts.backoff2Keys.count, parts.end2Values.count == parts.end2Keys.count,
              parts.backoff1.isEmpty || parts.backoff1.count == n + 1, parts.end1.isEmpty || parts.end1.count == n + 2,
              parts.ids.allSatisfy({ $0 >= 0 && Int($0) < max(n, 0) }), parts.byID.allSatisfy({ $0 >= 0 && Int($0) < max(n, 0) }),
              zip(parts.bigramKeys, parts.bigramKeys.dropFirst()).allSatisfy({ $0 < $1 }),
              parts.bigramKeys.allSatisfy({ $0 >= 0 && Int($0) <= n })
        else { return nil }
        func fits(_ lo: Int64, _ hi: Int64) -> Bool {
            guard lo >= 0, lo <= hi, hi <= Int64(m) else { return false }
            // A context's ranks are places within its own successors.
            let count = Int32(hi - lo)
            for j in Int(lo)..<Int(hi) where parts.rankOf[j] < 0 || parts.rankOf[j] >= count { return false }
            return true
        }
        for i in parts.bigramKeys.indices where !fits(parts.bigramLo[i], parts.bigramHi[i]) { return nil }
        for i in parts.trigramKeys.indices where !fits(parts.trigramLo[i], parts.trigramHi[i]) { return nil }
        guard let tri = PairIndex(parts.trigramKeys, firstWords: n + 1), let bo2 = PairIndex(parts.backoff2Keys, firstWords: n + 1),
              let end2 = PairIndex(parts.end2Keys, firstWords: n + 1) else { return nil }
        self.init(parts: parts, trigramIndex: tri, backoff2Index: bo2, end2Index: end2)
    }

    /// N-grams over `parts` as they are: built here, where the tables fit together by construction, or by a test
    /// writing a damaged file. A lookup in tables that do not fit may trap.
    init(trusting parts: Parts) {
        let n = Int(parts.sentenceStart)
        let tri = PairIndex(parts.trigramKeys, firstWords: n + 1), bo2 = PairIndex(parts.backoff2Keys, firstWords: n + 1)
        let end2 = PairIndex(parts.end2Keys, firstWords: n + 1)
        self.init(parts: parts, trigramIndex: tri ?? PairIndex(), backoff2Index: bo2 ?? PairIndex(), end2Index: end2 ?? PairIndex())
    }

    private init(parts: Parts, trigramIndex: PairIndex, backoff2Index: PairIndex, end2Index: PairIndex) {
        self.parts = parts
        self.trigramIndex = trigramIndex; self.backoff2Index = backoff2Index; self.end2Index = end2Index
        var lo = [Int32](repeating: 0, count: Int(parts.sentenceStart) + 1), hi = lo
        for (i, w) in parts.bigramKeys.enumerated() where w >= 0 && Int(w) < lo.count {
            lo[Int(w)] = Int32(clamping: parts.bigramLo[i]); hi[Int(w)] = Int32(clamping: parts.bigramHi[i])
        }
        bigramLo = lo; bigramHi = hi
    }

    /// The log10 P of each entry of `byID`, from `parts` whose `logp` is still best first: for each run of one word in a
    /// context's id-sorted successors, that of its later (less likely) entry, as a lookup has always answered for a pair
    /// stored twice. A context whose range or ranks fall outside the tables is left NaN rather than read past them.
    private static func logProbsByID(_ parts: Parts) -> [Float] {
        let m = parts.byID.count
        guard m > 0, parts.rankOf.count == m, parts.logp.count == m else { return [] }
        var out = [Float](repeating: .nan, count: m)
        parts.byID.withUnsafeBufferPointer { by in
            parts.rankOf.withUnsafeBufferPointer { rank in
                parts.logp.withUnsafeBufferPointer { logp in
                    out.withUnsafeMutableBufferPointer { o in
                        func fill(_ lo64: Int64, _ hi64: Int64) {
                            guard lo64 >= 0, lo64 <= hi64, hi64 <= Int64(m) else { return }
                            let lo = Int(lo64), hi = Int(hi64)
                            var j = lo
                            while j < hi {
                                var e = j + 1, r = rank[j]
                                while e < hi, by[e] == by[j] { r = max(r, rank[e]); e += 1 }
                                if r >= 0, lo + Int(r) < hi { for x in j..<e { o[x] = logp[lo + Int(r)] } }
                                j = e
                            }
                        }
                        for i in parts.bigramKeys.indices where i < parts.bigramLo.count && i < parts.bigramHi.count {
                            fill(parts.bigramLo[i], parts.bigramHi[i])
                        }
                        for i in parts.trigramKeys.indices where i < parts.trigramLo.count && i < parts.trigramHi.count {
                            fill(parts.trigramLo[i], parts.trigramHi[i])
                        }
                    }
                }
            }
        }
        return out
    }

    @inline(__always) static func key(_ a: Int32, _ b: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b))
    }

    @inline(__always) static func key3(_ a: Int32, _ b: Int32, _ c: Int32) -> UInt64 {
        // 21 bits per id is enough for lists below two million words; the start id is the top value.
        (UInt64(UInt32(bitPattern: a)) & 0x1F_FFFF) << 42 | (UInt64(UInt32(bitPattern: b)) & 0x1F_FFFF) << 21
            | (UInt64(UInt32(bitPattern: c)) & 0x1F_FFFF)
    }

    /// Loads `url`, keeping n-grams whose words are all in `lexicon`; bad lines go to `warnings`.
    init(url: URL, lexicon: Lexicon, warnings: inout [PredictionError]) throws(PredictionError) {
        try self.init(urls: [url], lexicon: lexicon, warnings: &warnings)
    }

    /// Loads the n-grams of `urls`, each n-gram from the first file that has it: n-gram text (see above) or a
    /// PocketSphinx trie model (`LMTrie`, whose back-off weights are kept too). Only n-grams whose words are all
    /// in `lexicon` are kept; bad lines go to `warnings`, a model that cannot be read throws naming it.
    init(urls: [URL], lexicon: Lexicon, warnings: inout [PredictionError]) throws(PredictionError) {
        let start = Int32(lexicon.count)
        var bi: [(Int32, Int32, Float)] = []
        var tri: [(Int32, Int32, Int32, Float)] = []
        var backoff1: [Float] = [], backoff2: [UInt64: Float] = [:], end1: [Float] = [], end2: [UInt64: Float] = [:]
        for url in urls {
            let bytes = try LineReader.read(url)
            if LMTrie.isTrie(bytes) {
                switch LMTrie.read(bytes) {
                case .failure(let f): throw .cannotRead(path: url.path, reason: .verbatim(f.reason))
                case .success(let model):
                    NGrams.add(model, lexicon: lexicon, start: start, bi: &bi, tri: &tri, backoff1: &backoff1, backoff2: &backoff2)
                    NGrams.ends(model, lexicon: lexicon, start: start, end1: &end1, end2: &end2)
                }
            } else {
                NGrams.parse(bytes, url: url, lexicon: lexicon, start: start, bi: &bi, tri: &tri, warnings: &warnings)
            }
        }
        self.init(start: start, bi: &bi, tri: &tri, backoff1: backoff1, backoff2: backoff2, end1: end1, end2: end2)
    }

    /// The model's probabilities of a sentence ending after a word and after two (`end1`, `end2`).
    private static func ends(_ model: LMTrie, lexicon: Lexicon, start: Int32, end1: inout [Float], end2: inout [UInt64: Float]) {
        guard let end = model.words.firstIndex(of: "</s>").map({ Int32($0) }) else { return }
        let map: [Int32] = model.words.map { w in
            if w == "<s>" { return start }
            return lexicon.id(of: w.lowercased()).map { Int32($0) } ?? -1
        }
        end1 = [Float](repeating: .nan, count: Int(start) + 2)
        end1[Int(start) + 1] = model.unigramLogP[Int(end)]
        for g in model.bigrams where g.w2 == end {
            let a = map[Int(g.w1)]
            if a >= 0 { end1[Int(a)] = g.logp }
        }
        for g in model.trigrams where g.w3 == end {
            let a = map[Int(g.w1)], b = map[Int(g.w2)]
            if a >= 0, b >= 0 { end2[key(a, b)] = g.logp }
        }
    }

    /// The n-grams of a trie model that the lists so far lack, and its back-off weights.
    private static func add(_ model: LMTrie, lexicon: Lexicon, start: Int32, bi: inout [(Int32, Int32, Float)],
                            tri: inout [(Int32, Int32, Int32, Float)], backoff1: inout [Float], backoff2: inout [UInt64: Float]) {
        let map: [Int32] = model.words.map { w in
            if w == "<s>" { return start }
            return lexicon.id(of: w.lowercased()).map { Int32($0) } ?? -1
        }
        var have = Set<UInt64>(minimumCapacity: bi.count + tri.count)
        for (a, b, _) in bi { have.insert(key(a, b)) }
        for (a, b, c, _) in tri { have.insert(key3(a, b, c) | 1 << 63) }
        backoff1 = [Float](repeating: 0, count: Int(start) + 1)
        for (i, id) in map.enumerated() where id >= 0 { backoff1[Int(id)] = model.unigramBackoff[i] }
        for g in model.bigrams {
            let a = map[Int(g.w1)], b = map[Int(g.w2)]
            guard a >= 0, b >= 0, b != start else { continue }
            if g.backoff != 0 { backoff2[key(a, b)] = g.backoff }
            if have.insert(key(a, b)).inserted { bi.append((a, b, g.logp)) }
        }
        for g in model.trigrams {
            let a = map[Int(g.w1)], b = map[Int(g.w2)], c = map[Int(g.w3)]
            guard a >= 0, b >= 0, c >= 0, c != start, b != start else { continue }
            if have.insert(key3(a, b, c) | 1 << 63).inserted { tri.append((a, b, c, g.logp)) }
        }
    }

    /// The n-grams of n-gram text whose words are in `lexicon`; bad lines go to `warnings`.
    private static func parse(_ bytes: [UInt8], url: URL, lexicon: Lexicon, start: Int32, bi: inout [(Int32, Int32, Float)],
                              tri: inout [(Int32, Int32, Int32, Float)], warnings: inout [PredictionError]) {
        var cache: [ArraySlice<UInt8>: Int32] = [:]
        func id(_ f: ArraySlice<UInt8>) -> Int32? {
            if let c = cache[f] { return c < 0 ? nil : c }
            let r: Int32
            if f.elementsEqual("<s>".utf8) { r = start } else if let s = LineReader.string(f), let i = lexicon.id(of: s) { r = Int32(i) } else { r = -1 }
            cache[f] = r
            return r < 0 ? nil : r
        }
        var bad: [PredictionError] = []
        LineReader.forEachLine(bytes) { line, f in
            if let problem = LineReader.problem(f) {
                if bad.count < 100 { bad.append(.badLine(path: url.path, line: line, message: problem)) }
                return
            }
            // -99 is the ARPA format's "never"; a log below it would not even fit a Float.
            guard f.count == 3 || f.count == 4, let p = LineReader.number(f[f.count - 1]), p <= 0, p >= -99 else {
                if bad.count < 100 { bad.append(.badLine(path: url.path, line: line, message: UIMessage("expected 'w1 w2 log10P' or 'w1 w2 w3 log10P', log10P from -99 to 0"))) }
                return
            }
            if f.count == 3 {
                if let a = id(f[0]), let b = id(f[1]), b != start { bi.append((a, b, Float(p))) }
            } else if let a = id(f[0]), let b = id(f[1]), let c = id(f[2]), c != start {
                tri.append((a, b, c, Float(p)))
            }
        }
        warnings += bad
    }

    /// Groups the n-grams by context, best first.
    private init(start: Int32, bi: inout [(Int32, Int32, Float)], tri: inout [(Int32, Int32, Int32, Float)],
                 backoff1: [Float], backoff2: [UInt64: Float], end1: [Float], end2: [UInt64: Float]) {
        var p = Parts(sentenceStart: start)
        p.backoff1 = backoff1; p.end1 = end1
        let bo2 = backoff2.sorted { $0.key < $1.key }, e2 = end2.sorted { $0.key < $1.key }
        p.backoff2Keys = bo2.map(\.key); p.backoff2Values = bo2.map(\.value)
        p.end2Keys = e2.map(\.key); p.end2Values = e2.map(\.value)
        // Group by context, best first.
        bi.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.2 > $1.2 }
        tri.sort { ($0.0, $0.1) != ($1.0, $1.1) ? ($0.0, $0.1) < ($1.0, $1.1) : $0.3 > $1.3 }
        var ids: [Int32] = [], logp: [Float] = []
        ids.reserveCapacity(bi.count + tri.count)
        logp.reserveCapacity(bi.count + tri.count)
        var i = 0
        while i < bi.count {
            let ctx = bi[i].0
            let lo = ids.count
            while i < bi.count && bi[i].0 == ctx {
                ids.append(bi[i].1); logp.append(bi[i].2)
                i += 1
            }
            p.bigramKeys.append(ctx); p.bigramLo.append(Int64(lo)); p.bigramHi.append(Int64(ids.count))
        }
        i = 0
        while i < tri.count {
            let (a, b) = (tri[i].0, tri[i].1)
            let lo = ids.count
            while i < tri.count && tri[i].0 == a && tri[i].1 == b {
                ids.append(tri[i].2); logp.append(tri[i].3)
                i += 1
            }
            // Sorted by (a, b), so the keys increase.
            p.trigramKeys.append(NGrams.key(a, b)); p.trigramLo.append(Int64(lo)); p.trigramHi.append(Int64(ids.count))
        }
        var byID = ids, rankOf = [Int32](repeating: 0, count: ids.count)
        let ranges = zip(p.bigramLo + p.trigramLo, p.bigramHi + p.trigramHi).map { Int($0)..<Int($1) }
        for r in ranges {
            let order = r.sorted { ids[$0] < ids[$1] }
            for (k, j) in order.enumerated() {
                byID[r.lowerBound + k] = ids[j]
                rankOf[r.lowerBound + k] = Int32(j - r.lowerBound)
            }
        }
        p.ids = ids; p.logp = logp; p.byID = byID; p.rankOf = rankOf
        p.logp = NGrams.logProbsByID(p)
        func distinct(_ ranges: ArraySlice<Range<Int>>) -> Int {
            var n = 0
            for r in ranges { for j in r where j == r.lowerBound || byID[j] != byID[j - 1] { n += 1 } }
            return n
        }
        p.bigramCount = distinct(ranges[..<p.bigramKeys.count])
        p.trigramCount = distinct(ranges[p.bigramKeys.count...])
        self.init(trusting: p)
    }

    /// Successors of `w1`, best first, as (id, log10P).
    func successors(_ w1: Int32) -> ArraySlice<Int32> { parts.ids[bigramRange(w1)] }
    func successors(_ w1: Int32, _ w2: Int32) -> ArraySlice<Int32> { parts.ids[trigramRange(w1, w2)] }

    /// Up to `k` successors of `w1` whose ids are in `idRange` (a prefix's words), best first.
    func successors(_ w1: Int32, in idRange: Range<Int>, k: Int) -> [Int32] {
        best(bigramRange(w1), in: idRange, k: k)
    }

    /// Up to `k` successors of `w1 w2` whose ids are in `idRange`, best first.
    func successors(_ w1: Int32, _ w2: Int32, in idRange: Range<Int>, k: Int) -> [Int32] {
        best(trigramRange(w1, w2), in: idRange, k: k)
    }

    /// Up to `k` entries of the context whose successors are `r` (`bigramRange`, `trigramRange`) with ids in
    /// `idRange`, best first: for a caller that already has the context's range.
    func successors(stored r: Range<Int>, in idRange: Range<Int>, k: Int) -> [Int32] {
        best(r, in: idRange, k: k)
    }

    /// The `k` best entries of context range `r` with ids in `idRange`.
    ///
    /// A frequent word has up to 2000 successors; walking them best first until `k` start with a rare
    /// prefix costs tens of microseconds, so a narrow prefix takes its matches by binary search over the
    /// id-sorted copy and keeps the `k` best places among them.
    private func best(_ r: Range<Int>, in idRange: Range<Int>, k: Int) -> [Int32] {
        guard !r.isEmpty, k > 0, !idRange.isEmpty else { return [] }
        var out: [Int32] = []
        out.reserveCapacity(k)
        let everything = Int(byID[r.lowerBound]) >= idRange.lowerBound && Int(byID[r.upperBound - 1]) < idRange.upperBound
        if r.count <= 64 || everything {
            for j in r where idRange.contains(Int(ids[j])) {
                out.append(ids[j])
                if out.count == k { break }
            }
            return out
        }
        func firstAtLeast(_ v: Int) -> Int {
            var lo = r.lowerBound, hi = r.upperBound
            while lo < hi {
                let m = (lo + hi) / 2
                if Int(byID[m]) < v { lo = m + 1 } else { hi = m }
            }
            return lo
        }
        let a = firstAtLeast(idRange.lowerBound), b = firstAtLeast(idRange.upperBound)
        // Many matches ("a c": hundreds of "a"'s successors start with c): walking best first meets k of them in
        // about k·|r|/m steps, fewer than keeping the best places of all m. Both give the same ids in the same order.
        let m = b - a
        if m > 0, k * r.count / m < m {
            for j in r where idRange.contains(Int(ids[j])) {
                out.append(ids[j])
                if out.count == k { break }
            }
            return out
        }
        // Each kept place with its word, read here beside it: `ids[place]` afterwards is the same word (`byID` is
        // `ids` sorted), but each was a cache miss somewhere in a list of thousands.
        var ranks: [(rank: Int32, id: Int32)] = []
        ranks.reserveCapacity(k + 1)
        for j in a..<b {
            let rk = rankOf[j]
            if ranks.count == k, let last = ranks.last, rk >= last.rank { continue }
            var pos = ranks.count
            while pos > 0 && ranks[pos - 1].rank > rk { pos -= 1 }
            // Into place by swaps, the last one dropped when full: `insert(_:at:)` went through the generic `replaceSubrange`.
            if ranks.count == k { ranks[k - 1] = (rk, byID[j]) } else { ranks.append((rk, byID[j])) }
            var i = ranks.count - 1
            while i > pos { ranks.swapAt(i, i - 1); i -= 1 }
        }
        for e in ranks { out.append(e.id) }
        return out
    }

    /// Where the successors of `w1` are stored, for `logProb(of:in:)`; empty if it has none.
    @inline(__always)
    func bigramRange(_ w1: Int32) -> Range<Int> {
        let i = Int(w1)
        guard i >= 0, i < bigramLo.count else { return 0..<0 }
        return Int(bigramLo[i])..<Int(bigramHi[i])
    }
    /// Where the successors of `w1 w2` are stored, for `logProb(of:in:)`; empty if they have none.
    func trigramRange(_ w1: Int32, _ w2: Int32) -> Range<Int> {
        guard let k = trigramIndex.find(w1, w2, in: parts.trigramKeys) else { return 0..<0 }
        return Int(parts.trigramLo[k])..<Int(parts.trigramHi[k])
    }

    /// log10 back-off weight of the context `w1 w2` (0 where the model stores none).
    @inline(__always)
    func backoff2(_ w1: Int32, _ w2: Int32) -> Float {
        backoff2Index.find(w1, w2, in: parts.backoff2Keys).map { parts.backoff2Values[$0] } ?? 0
    }

    /// The stored log10 P of `w` after the context whose successors are `r`, or nil.
    ///
    /// One binary search in the context's id-sorted successors: a context's range is small and contiguous,
    /// where a table keyed by word pairs cost a hash and cache misses for every candidate. A pair stored
    /// twice gives its later (less likely) entry, as the table did.
    @inline(__always)
    func logProb(of w: Int32, in r: Range<Int>) -> Float? {
        var lo = r.lowerBound, hi = r.upperBound
        while lo < hi {
            let m = (lo + hi) / 2
            if byID[m] < w { lo = m + 1 } else { hi = m }
        }
        guard lo < r.upperBound, byID[lo] == w else { return nil }
        return parts.logp[lo]
    }

    /// `logProb(of:in:)` for each of `sorted` (increasing word ids, each once), into `out` (cleared first): the
    /// stored log10 P, or NaN where none is stored.
    ///
    /// One pass over the context's id-sorted successors, each search galloping on from where the last one ended:
    /// the successors of "a" or "the" are tens of thousands, and a binary search over all of them for each of some
    /// fifty candidates went to memory at nearly every step, where this reads only the part between candidates.
    func logProbs(of sorted: [Int32], in r: Range<Int>, into out: inout [Float]) {
        out.removeAll(keepingCapacity: true)
        // Grown one append at a time, the array was reallocated some seven times per call.
        out.reserveCapacity(sorted.count)
        guard !r.isEmpty else {
            out.append(contentsOf: repeatElement(Float.nan, count: sorted.count))
            return
        }
        let end = r.upperBound
        parts.byID.withUnsafeBufferPointer { by in
            var lo = r.lowerBound
            for w in sorted {
                if lo < end, by[lo] < w {
                    // by[last] < w: double the step until an entry is not below w, then bisect the last step.
                    var last = lo, step = 1
                    var probe = lo + 1
                    while probe < end, by[probe] < w {
                        last = probe
                        step &<<= 1
                        probe = last + step
                    }
                    var a = last + 1, b = min(probe, end)
                    while a < b {
                        let m = (a + b) / 2
                        if by[m] < w { a = m + 1 } else { b = m }
                    }
                    lo = a
                }
                guard lo < end, by[lo] == w else { out.append(.nan); continue }
                // As `logProb`: a pair stored twice gives its later (less likely) entry, which `logp` holds for each.
                out.append(parts.logp[lo])
                var j = lo + 1
                while j < end, by[j] == w { j += 1 }
                lo = j
            }
        }
    }

    /// log10 P(w | w1 w2) by the model's own back-off (Katz): the trigram if stored, else the pair's back-off weight
    /// and the bigram, else also the word's back-off weight and `unigram` (log10 P(w)). Needs `hasBackoffs`; a
    /// context word that is not known (negative, nil) is a shorter context.
    @inline(__always)
    func backedOff(_ w: Int32, w1: Int32?, w2: Int32?, unigram: Float, bigrams: Range<Int>, trigrams: Range<Int>) -> Float {
        guard let w2, w2 >= 0 else { return unigram }
        var weight: Float = 0
        if let w1, w1 >= 0 {
            if let t = logProb(of: w, in: trigrams) { return t }
            weight = backoff2(w1, w2)
        }
        if let b = logProb(of: w, in: bigrams) { return weight + b }
        return weight + (Int(w2) < backoff1.count ? backoff1[Int(w2)] : 0) + unigram
    }

    /// log10 P(end of sentence | w1 w2) by the model's back-off, as `backedOff`; nil when the model has no ends.
    func sentenceEnd(w1: Int32?, w2: Int32?) -> Float? {
        guard let unigram = end1.last, end1.count == Int(sentenceStart) + 2 else { return nil }
        guard let w2, w2 >= 0, Int(w2) < end1.count - 1 else { return unigram }
        var weight: Float = 0
        if let w1, w1 >= 0 {
            if let k = end2Index.find(w1, w2, in: parts.end2Keys) { return parts.end2Values[k] }
            weight = backoff2(w1, w2)
        }
        if !end1[Int(w2)].isNaN { return weight + end1[Int(w2)] }
        return weight + (Int(w2) < backoff1.count ? backoff1[Int(w2)] : 0) + unigram
    }

    func bigram(_ w1: Int32, _ w2: Int32) -> Float? { logProb(of: w2, in: bigramRange(w1)) }
    func trigram(_ w1: Int32, _ w2: Int32, _ w3: Int32) -> Float? { logProb(of: w3, in: trigramRange(w1, w2)) }
}

/// Where a pair of word ids lies in a table of pairs (`NGrams.key`, increasing): the slice of its first word, found
/// by index, then a binary search on the second word within it.
struct PairIndex: Sendable {
    /// Where each first word's pairs start, and as the last element where the last one's end.
    private let start: [Int32]

    init() { start = [] }

    /// The index of `keys`, or nil when they do not increase or a first word is `firstWords` or more.
    init?(_ keys: [UInt64], firstWords: Int) {
        guard !keys.isEmpty else { start = []; return }
        guard firstWords > 0, keys.count < Int(Int32.max) else { return nil }
        var start = [Int32](repeating: 0, count: firstWords + 1)
        var previous: UInt64?
        for k in keys {
            let a = Int(k >> 32)
            guard a < firstWords, previous.map({ $0 < k }) ?? true else { return nil }
            start[a + 1] += 1
            previous = k
        }
        for a in 0..<firstWords { start[a + 1] += start[a] }
        self.start = start
    }

    /// The place of `a b` in `keys` (the table this index was built over), or nil.
    @inline(__always)
    func find(_ a: Int32, _ b: Int32, in keys: [UInt64]) -> Int? {
        let i = Int(a)
        guard i >= 0, i + 1 < start.count, b >= 0 else { return nil }
        var lo = Int(start[i]), hi = Int(start[i + 1])
        let key = NGrams.key(a, b)
        while lo < hi {
            let m = (lo + hi) / 2
            if keys[m] < key { lo = m + 1 } else { hi = m }
        }
        return lo < Int(start[i + 1]) && keys[lo] == key ? lo : nil
    }
}
