import Foundation

/// A word list sorted by its folded UTF-8 keys (`Folding`: lowercase, accents off), with prefix lookup and
/// top-k by frequency.
///
/// Word ids are positions in sorted order, so every folded prefix is one contiguous id range found by
/// binary search: typing "cancion" finds "canción", "strasse" finds "straße". For short prefixes with many
/// words the best few ids are precomputed, so a lookup never scans more than `scanLimit` words. Each word
/// also keeps its lowercase form (what the user's model and the n-grams name it by) and, where the list gives
/// one, its display form ("Straße", "París").
struct Lexicon: Sendable {
    /// All words' folded keys back to back; word `i`'s key is `bytes[starts[i]..<starts[i + 1]]`.
    let bytes: [UInt8]
    let starts: [Int32]
    /// The lowercase forms in the same layout; empty when every word's lowercase form is its key (English).
    let lower: [UInt8]
    let lowerStarts: [Int32]
    /// The words shown otherwise than lowercase ("Straße"), by id (sorted), with their forms back to back.
    let displayIDs: [Int32]
    let displayBytes: [UInt8]
    let displayStarts: [Int32]
    /// log10 of each word's relative frequency.
    let logProb: [Float]
    /// `pow(10, logProb)`, kept because scoring needs it for every candidate and `pow` is slow.
    let probability: [Double]
    /// Precomputed best ids (by frequency, best first) for prefixes that match many words.
    let topByPrefix: [[UInt8]: [Int32]]
    /// For letters typed with an accent: the accent keys (`accentKey`) of every word, as lists of ids (ascending).
    /// A word is under key `p` + `c` for each non-ASCII letter `c` it holds after letters that fold to the ASCII `p`:
    /// "école" under "é", "résumé" under "ré" and "resumé". Typed letters whose first non-ASCII letter is `c`, after
    /// the ASCII `p`, match only words under that key (`Folding.matches`), so a lookup scans those instead of every
    /// word of the folded prefix (after "é", every word folded to "e": a millisecond in French).
    let accentLists: [[UInt8]: [Int32]]
    /// Precomputed best ids (best first) of an accent key's words under a folded prefix, for the pairs with more than
    /// `scanLimit` of them; keyed by the accent key, 0xFF (never in UTF-8), then the folded prefix.
    let accentTop: [[UInt8]: [Int32]]
    /// The first id whose first two bytes are at least `first << 8 | second`, for each such key (a one-byte word
    /// keyed as if its second byte were 0), and past the last one `count`: one or two letters typed are their
    /// range with no search, and a longer prefix or a word is searched among the few words of its first two letters.
    /// Binary searches over the whole first letter went to memory at nearly every step, much of a suggestion's tail.
    private let byFirstTwoBytes: [Int32]
    /// Ranges no larger than this are scanned; larger ones use `topByPrefix`.
    static let scanLimit = 384
    /// How many ids are precomputed per busy prefix.
    static let topCount = 48

    var count: Int { logProb.count }

    /// Builds a lexicon from (word as listed, count) pairs; the same word listed again (in any case) adds to its
    /// count. A word listed with capitals ("Straße") is shown that way, unless it is more often listed lowercase.
    init(_ entries: [(String, Double)]) {
        var merged: [String: Double] = [:]
        // The display form and its count, for words listed with capitals.
        var shown: [String: (String, Double)] = [:]
        var lowerCount: [String: Double] = [:]
        merged.reserveCapacity(entries.count)
        for (w, c) in entries where !w.isEmpty {
            let l = w.lowercased()
            merged[l, default: 0] += c
            if w != l {
                if shown[l].map({ $0.1 < c }) ?? true { shown[l] = (w, c) }
            } else {
                lowerCount[l, default: 0] += c
            }
        }
        let keyed = merged.keys.map { (Array(Folding.fold($0).utf8), Array($0.utf8)) }
            .sorted { $0.0 != $1.0 ? $0.0.lexicographicallyPrecedes($1.0) : $0.1.lexicographicallyPrecedes($1.1) }
        let total = merged.values.reduce(0, +)
        var bytes: [UInt8] = [], lower: [UInt8] = []
        var starts: [Int32] = [0], lowerStarts: [Int32] = [0]
        var displayIDs: [Int32] = [], displayBytes: [UInt8] = [], displayStarts: [Int32] = [0]
        var logProb: [Float] = []
        bytes.reserveCapacity(keyed.count * 8)
        var folded = false
        for (id, (key, low)) in keyed.enumerated() {
            bytes.append(contentsOf: key)
            starts.append(Int32(bytes.count))
            lower.append(contentsOf: low)
            lowerStarts.append(Int32(lower.count))
            if key != low { folded = true }
            let l = String(decoding: low, as: UTF8.self)
            let c = merged[l] ?? 1
            logProb.append(Float(log10(max(c, 1) / max(total, 1))))
            if let (form, n) = shown[l], n >= (lowerCount[l] ?? 0) {
                displayIDs.append(Int32(id))
                displayBytes.append(contentsOf: form.utf8)
                displayStarts.append(Int32(displayBytes.count))
            }
        }
        self.init(bytes: bytes, starts: starts, lower: folded ? lower : [], lowerStarts: folded ? lowerStarts : [],
                  displayIDs: displayIDs, displayBytes: displayBytes, displayStarts: displayStarts, logProb: logProb,
                  topByPrefix: nil, accentLists: nil, accentTop: nil)
    }

    /// A lexicon from the parts another one was made of (`ModelCache`), trusted as they are; `topByPrefix`,
    /// `accentLists` or `accentTop` nil works it out.
    init(bytes: [UInt8], starts: [Int32], lower: [UInt8], lowerStarts: [Int32], displayIDs: [Int32],
         displayBytes: [UInt8], displayStarts: [Int32], logProb: [Float], topByPrefix: [[UInt8]: [Int32]]?,
         accentLists: [[UInt8]: [Int32]]? = nil, accentTop: [[UInt8]: [Int32]]? = nil) {
        self.bytes = bytes
        self.starts = starts
        self.lower = lower
        self.lowerStarts = lowerStarts
        self.displayIDs = displayIDs
        self.displayBytes = displayBytes
        self.displayStarts = displayStarts
        self.logProb = logProb
        self.probability = logProb.map { pow(10, Double($0)) }
        self.topByPrefix = topByPrefix ?? Lexicon.precompute(bytes: bytes, starts: starts, logProb: logProb)
        self.byFirstTwoBytes = Lexicon.firstTwoBytesIndex(bytes: bytes, starts: starts)
        if let accentLists, let accentTop {
            self.accentLists = accentLists
            self.accentTop = accentTop
        } else {
            let lists = Lexicon.accentIndex(bytes: bytes, starts: starts, lower: lower, lowerStarts: lowerStarts)
            self.accentLists = lists
            self.accentTop = Lexicon.accentTops(lists, bytes: bytes, starts: starts, logProb: logProb)
        }
    }

    /// The accent key of typed letters (`typed`, lowercase, not all ASCII): the ASCII letters before its first
    /// non-ASCII one, then that one composed (NFC, as `Character` compares them); nil when it has none.
    static func accentKey(typed: String) -> [UInt8]? {
        guard let i = typed.firstIndex(where: { !$0.isASCII }) else { return nil }
        return Array(typed[..<i].utf8) + Folding.composedUTF8(typed[i])
    }

    /// Every word's accent keys (see `accentLists`), from the lowercase forms.
    private static func accentIndex(bytes: [UInt8], starts: [Int32], lower: [UInt8], lowerStarts: [Int32]) -> [[UInt8]: [Int32]] {
        var lists: [[UInt8]: [Int32]] = [:]
        let n = starts.count - 1
        for id in 0..<n {
            let w = lowerStarts.isEmpty ? bytes[Int(starts[id])..<Int(starts[id + 1])] : lower[Int(lowerStarts[id])..<Int(lowerStarts[id + 1])]
            guard w.contains(where: { $0 >= 0x80 }) else { continue }
            let word = String(decoding: w, as: UTF8.self)
            // The folded letters so far; past a letter folding to something not ASCII no typed ASCII can lead there.
            var folded: [UInt8] = []
            var seen: Set<[UInt8]> = []
            for c in word {
                if !c.isASCII {
                    let key = folded + Folding.composedUTF8(c)
                    if seen.insert(key).inserted { lists[key, default: []].append(Int32(id)) }
                }
                let f = Folding.fold(c)
                guard f.utf8.allSatisfy({ $0 < 0x80 }) else { break }
                folded += f.utf8
            }
        }
        return lists
    }

    /// The best ids of each accent key's words under each folded prefix holding more than `scanLimit` of them.
    private static func accentTops(_ lists: [[UInt8]: [Int32]], bytes: [UInt8], starts: [Int32], logProb: [Float]) -> [[UInt8]: [Int32]] {
        var table: [[UInt8]: [Int32]] = [:]
        for (key, ids) in lists where ids.count > scanLimit {
            // The words are in id order, that is by folded key, so each folded prefix's words are one run of the list.
            // Every word of the key shares its folded letters so far (those of the first and the last word): lookups
            // are by a folded prefix at least that long.
            let (f0, f1) = (Int(starts[Int(ids[0])]), Int(starts[Int(ids[0]) + 1]))
            let (l0, l1) = (Int(starts[Int(ids[ids.count - 1])]), Int(starts[Int(ids[ids.count - 1]) + 1]))
            var common = 0
            while common < f1 - f0, common < l1 - l0, bytes[f0 + common] == bytes[l0 + common] { common += 1 }
            var frontier: [(prefix: [UInt8], lo: Int, hi: Int)] = [(Array(bytes[f0..<(f0 + common)]), 0, ids.count)]
            while let (prefix, lo, hi) = frontier.popLast() {
                guard hi - lo > scanLimit else { continue }
                let best = ids[lo..<hi].sorted { logProb[Int($0)] != logProb[Int($1)] ? logProb[Int($0)] > logProb[Int($1)] : $0 < $1 }
                table[key + [0xFF] + prefix] = Array(best.prefix(topCount))
                let depth = prefix.count
                var i = lo
                while i < hi {
                    let s = Int(starts[Int(ids[i])]), e = Int(starts[Int(ids[i]) + 1])
                    guard e - s > depth else { i += 1; continue }
                    let b = bytes[s + depth]
                    var j = i + 1
                    while j < hi {
                        let s2 = Int(starts[Int(ids[j])]), e2 = Int(starts[Int(ids[j]) + 1])
                        if e2 - s2 <= depth || bytes[s2 + depth] != b { break }
                        j += 1
                    }
                    frontier.append((prefix + [b], i, j))
                    i = j
                }
            }
        }
        return table
    }

    private static func firstTwoBytesIndex(bytes: [UInt8], starts: [Int32]) -> [Int32] {
        let n = starts.count - 1
        var index = [Int32](repeating: Int32(n), count: 65537)
        var k = 0
        for id in 0..<n where starts[id + 1] > starts[id] {
            let s = Int(starts[id])
            let key = Int(bytes[s]) << 8 | (Int(starts[id + 1]) - s > 1 ? Int(bytes[s + 1]) : 0)
            while k <= key { index[k] = Int32(id); k += 1 }
        }
        return index
    }

    /// The ids whose first byte is `b`.
    @inline(__always)
    private func firstByteRange(_ b: UInt8) -> (Int, Int) {
        (Int(byFirstTwoBytes[Int(b) << 8]), Int(byFirstTwoBytes[(Int(b) + 1) << 8]))
    }

    /// The ids among which words starting with `key` lie: those of its first two bytes, or of its first byte when it
    /// has one byte or a second byte 0 (the one-byte words' key).
    @inline(__always)
    private func firstBytesRange<Key: RandomAccessCollection<UInt8>>(_ key: Key) -> (Int, Int) where Key.Index == Int {
        let b = key[key.startIndex]
        guard key.count >= 2, key[key.startIndex + 1] != 0 else { return firstByteRange(b) }
        let k = Int(b) << 8 | Int(key[key.startIndex + 1])
        return (Int(byFirstTwoBytes[k]), Int(byFirstTwoBytes[k + 1]))
    }

    private static func precompute(bytes: [UInt8], starts: [Int32], logProb: [Float]) -> [[UInt8]: [Int32]] {
        var table: [[UInt8]: [Int32]] = [:]
        let n = logProb.count
        // Breadth-first over prefix lengths: a prefix is busy only if its parent was.
        var frontier: [(prefix: [UInt8], lo: Int, hi: Int)] = [([], 0, n)]
        while let (prefix, lo, hi) = frontier.popLast() {
            guard hi - lo > scanLimit else { continue }
            let ids = (lo..<hi).sorted { logProb[$0] > logProb[$1] }.prefix(topCount).map { Int32($0) }
            table[prefix] = ids
            // Split the range by the next byte.
            let depth = prefix.count
            var i = lo
            while i < hi {
                let s = Int(starts[i]), e = Int(starts[i + 1])
                guard e - s > depth else { i += 1; continue }
                let b = bytes[s + depth]
                var j = i + 1
                while j < hi {
                    let s2 = Int(starts[j]), e2 = Int(starts[j + 1])
                    if e2 - s2 <= depth || bytes[s2 + depth] != b { break }
                    j += 1
                }
                frontier.append((prefix + [b], i, j))
                i = j
            }
        }
        return table
    }

    /// Where word `id`'s lowercase form lies, and in which array.
    @inline(__always)
    private func lowerRange(_ id: Int) -> (UnsafeBufferPointerSource, Int, Int) {
        lowerStarts.isEmpty ? (.keys, Int(starts[id]), Int(starts[id + 1])) : (.lower, Int(lowerStarts[id]), Int(lowerStarts[id + 1]))
    }

    private enum UnsafeBufferPointerSource { case keys, lower }

    @inline(__always)
    private func lowerByte(_ source: UnsafeBufferPointerSource, _ i: Int) -> UInt8 { source == .keys ? bytes[i] : lower[i] }

    /// The length in UTF-8 bytes of word `id` (lowercase).
    func length(_ id: Int) -> Int {
        let (_, s, e) = lowerRange(id)
        return e - s
    }

    /// True if word `id` (lowercase) contains the byte `b`.
    func contains(_ b: UInt8, in id: Int) -> Bool {
        let (src, s, e) = lowerRange(id)
        return src == .keys ? bytes[s..<e].contains(b) : lower[s..<e].contains(b)
    }

    /// False when word `id` (lowercase) cannot hold the letter whose composed UTF-8 bytes are `letter`: it holds
    /// neither those bytes nor a combining mark of U+0300–U+036F (lead byte 0xCC or 0xCD), the only other way
    /// to spell a Latin letter with accents. Looks at bytes, so no string is made.
    func mayHold(letter: [UInt8], in id: Int) -> Bool {
        let (src, s, e) = lowerRange(id)
        func scan(_ w: ArraySlice<UInt8>) -> Bool {
            guard let first = letter.first else { return true }
            var i = w.startIndex
            while i < w.endIndex {
                let b = w[i]
                if b == 0xCC || b == 0xCD { return true }
                if b == first, w[i...].starts(with: letter) { return true }
                i += 1
            }
            return false
        }
        return src == .keys ? scan(bytes[s..<e]) : scan(lower[s..<e])
    }

    /// The last UTF-8 byte of word `id` (lowercase).
    func lastByte(_ id: Int) -> UInt8 {
        let (src, _, e) = lowerRange(id)
        return lowerByte(src, e - 1)
    }

    /// The word with id `id`, lowercase.
    func word(_ id: Int) -> String {
        let (src, s, e) = lowerRange(id)
        return String(decoding: src == .keys ? bytes[s..<e] : lower[s..<e], as: UTF8.self)
    }

    /// Whether word `id`'s lowercase form is exactly `typed` (lowercase bytes): offering it saves nothing.
    func isWord(_ id: Int, _ typed: [UInt8]) -> Bool {
        let (src, s, e) = lowerRange(id)
        guard e - s == typed.count else { return false }
        return src == .keys ? bytes[s..<e].elementsEqual(typed) : lower[s..<e].elementsEqual(typed)
    }

    /// True when word `id` (lowercase) starts with the bytes `typed` (lowercase) at a Character boundary, with `typed`
    /// and the word's next letter Latin (ASCII or U+00C0–U+024F, `Folding.isLatinUTF8`): then `Folding.matches`
    /// would say yes, as every typed Character is the word's Character there, compared without making a string.
    func startsWithLatin(_ id: Int, _ typed: [UInt8]) -> Bool {
        let (src, s, e) = lowerRange(id)
        guard e - s >= typed.count else { return false }
        func check(_ w: ArraySlice<UInt8>) -> Bool {
            guard w.prefix(typed.count).elementsEqual(typed) else { return false }
            // A combining mark after the typed letters would belong to their last Character.
            let next = w.startIndex + typed.count
            return next == w.endIndex || w[next] < 0x80 || (0xC2...0xC9).contains(w[next])
        }
        return src == .keys ? check(bytes[s..<e]) : check(lower[s..<e])
    }

    /// How word `id` is shown when the list gives it a form of its own ("Straße"), else nil.
    func display(_ id: Int) -> String? {
        guard !displayIDs.isEmpty else { return nil }
        var lo = 0, hi = displayIDs.count
        let key = Int32(id)
        while lo < hi {
            let m = (lo + hi) / 2
            if displayIDs[m] < key { lo = m + 1 } else { hi = m }
        }
        guard lo < displayIDs.count, displayIDs[lo] == key else { return nil }
        return String(decoding: displayBytes[Int(displayStarts[lo])..<Int(displayStarts[lo + 1])], as: UTF8.self)
    }

    /// Compares word `id` with `key`: <0, 0 or >0, looking only at the first `key.count` bytes
    /// when `prefixOnly` is set.
    @inline(__always)
    private func compare<Key: RandomAccessCollection<UInt8>>(_ id: Int, _ key: Key, prefixOnly: Bool) -> Int where Key.Index == Int {
        let s = Int(starts[id]), e = Int(starts[id + 1])
        let n = e - s
        let m = min(n, key.count)
        var k = 0
        while k < m {
            let a = bytes[s + k], b = key[key.startIndex + k]
            if a != b { return a < b ? -1 : 1 }
            k += 1
        }
        if prefixOnly { return n >= key.count ? 0 : -1 }
        return n == key.count ? 0 : (n < key.count ? -1 : 1)
    }

    /// The id range of words whose folded key starts with `prefix` (folded bytes).
    func range(prefix: [UInt8]) -> Range<Int> {
        guard prefix.first != nil else { return 0..<count }
        let (lo0, hi0) = firstBytesRange(prefix)
        // Every word there starts with the one or two letters typed.
        if prefix.count == 1 || (prefix.count == 2 && prefix[1] != 0) { return lo0..<hi0 }
        var lo = lo0, hi = hi0
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid, prefix, prefixOnly: true) < 0 { lo = mid + 1 } else { hi = mid }
        }
        let first = lo
        hi = hi0
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid, prefix, prefixOnly: true) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return first..<lo
    }

    /// The id of `word` (lowercase), if listed: its folded key found by binary search, then the word among the
    /// few with the same key ("papa", "papá").
    func id(of word: String) -> Int? {
        if lowerStarts.isEmpty, word.utf8.allSatisfy({ $0 < 0x80 }) {
            // Most words are native strings with contiguous bytes; copying them into an array cost more than the search.
            if let found = word.utf8.withContiguousStorageIfAvailable({ id(ofKey: $0, from: nil) }) { return found }
            return id(ofKey: Array(word.utf8), from: nil)
        }
        return exact(word, from: nil)
    }

    /// The id of `word` (lowercase), if listed, for a word known to sort after word `lower - 1`: searched
    /// from `lower` in growing steps, so a word close after it ("emma's" after "emma") costs a few compares.
    func id(of word: String, from lower: Int) -> Int? {
        if lowerStarts.isEmpty, word.utf8.allSatisfy({ $0 < 0x80 }) {
            if let found = word.utf8.withContiguousStorageIfAvailable({ id(ofKey: $0, from: lower) }) { return found }
            return id(ofKey: Array(word.utf8), from: lower)
        }
        return exact(word, from: lower)
    }

    /// The id whose lowercase form is `word`, among the words sharing its folded key.
    private func exact(_ word: String, from lowerBound: Int?) -> Int? {
        let key = Array(Folding.fold(word).utf8)
        guard var i = id(ofKey: key, from: lowerBound) else { return nil }
        if lowerStarts.isEmpty { return i }
        let want = Array(word.utf8)
        // Back to the first word with this key, then forward through them.
        while i > 0, compare(i - 1, key, prefixOnly: false) == 0 { i -= 1 }
        while i < count, compare(i, key, prefixOnly: false) == 0 {
            if isWord(i, want) { return i }
            i += 1
        }
        return nil
    }

    /// The id of word `id` followed by "'s", if listed: searched from just after it, in a buffer on the stack.
    func possessive(of id: Int) -> Int? {
        if !lowerStarts.isEmpty { return self.id(of: word(id) + "'s", from: id + 1) }
        let s = Int(starts[id]), e = Int(starts[id + 1])
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: e - s + 2) { buf in
            for k in s..<e { buf[k - s] = bytes[k] }
            buf[e - s] = UInt8(ascii: "'"); buf[e - s + 1] = UInt8(ascii: "s")
            return self.id(ofKey: UnsafeBufferPointer(buf), from: id + 1)
        }
    }

    /// An id whose folded key is `key`, searched from `lower` in growing steps when given, else by binary search.
    private func id<Key: RandomAccessCollection<UInt8>>(ofKey key: Key, from lower: Int?) -> Int? where Key.Index == Int {
        guard let lower else { return id(ofKey: key) }
        var lo = lower, step = 1
        var hi = lower
        // Gallop until a word at or after the key; the key lies in lo...hi.
        while hi < count {
            let c = compare(hi, key, prefixOnly: false)
            if c == 0 { return hi }
            if c > 0 { break }
            lo = hi + 1
            hi += step
            step *= 2
        }
        hi = min(hi, count)
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = compare(mid, key, prefixOnly: false)
            if c == 0 { return mid }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    private func id<Key: RandomAccessCollection<UInt8>>(ofKey key: Key) -> Int? where Key.Index == Int {
        guard !key.isEmpty else { return nil }
        var (lo, hi) = firstBytesRange(key)
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = compare(mid, key, prefixOnly: false)
            if c == 0 { return mid }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    /// Up to `k` ids starting with `prefix`, most frequent first, skipping ids for which `skip` is true.
    func top(prefix: [UInt8], k: Int, skip: (Int) -> Bool) -> [Int] {
        top(prefix: prefix, range: range(prefix: prefix), k: k, skip: skip)
    }

    /// `top(prefix:range:k:skip:)` for typed letters whose accent key (`accentKey(typed:)`) is `accentKey`, where `skip`
    /// is true of every word not under that key (`Folding.matches` says no): the same ids, found among the key's
    /// words in the range rather than among all of the range's words.
    @inline(__always)
    func top(accentKey: [UInt8], prefix: [UInt8], range r: Range<Int>, k: Int, skip: (Int) -> Bool) -> [Int] {
        guard k > 0, let list = accentLists[accentKey] else { return [] }
        func firstAtLeast(_ v: Int) -> Int {
            var lo = 0, hi = list.count
            while lo < hi {
                let m = (lo + hi) / 2
                if Int(list[m]) < v { lo = m + 1 } else { hi = m }
            }
            return lo
        }
        let a = firstAtLeast(r.lowerBound), b = firstAtLeast(r.upperBound)
        if b - a > Lexicon.scanLimit, let pre = accentTop[accentKey + [0xFF] + prefix] {
            var out: [Int] = []
            for id in pre where !skip(Int(id)) {
                out.append(Int(id))
                if out.count == k { return out }
            }
            if pre.count >= b - a { return out }
        }
        return best(list[a..<b].lazy.map { Int($0) }, k: k, skip: skip)
    }

    /// `top(prefix:k:skip:)` for a caller that already has `r == range(prefix: prefix)`.
    @inline(__always)  // A `skip` closure that reads the predictor would otherwise take a copy of all of it at every call.
    func top(prefix: [UInt8], range r: Range<Int>, k: Int, skip: (Int) -> Bool) -> [Int] {
        if r.count > Lexicon.scanLimit, let pre = topByPrefix[prefix] {
            var out: [Int] = []
            for id in pre where !skip(Int(id)) {
                out.append(Int(id))
                if out.count == k { return out }
            }
            if out.count == k || pre.count >= r.count { return out }
            // Too many skipped: fall through to a full scan (rare).
        }
        guard k > 0 else { return [] }
        return best(r, k: k, skip: skip)
    }

    /// The `k` ids of `ids` (ascending) with the highest `logProb`, best first (the lower id first between equals),
    /// skipping those for which `skip` is true.
    @inline(__always)
    private func best<S: Sequence<Int>>(_ ids: S, k: Int, skip: (Int) -> Bool) -> [Int] {
        // Keep a small sorted buffer of the best k.
        var best: [(Float, Int)] = []
        best.reserveCapacity(k + 1)
        for id in ids {
            let p = logProb[id]
            if best.count == k, let last = best.last, p <= last.0 { continue }
            // Asked only of a word that would get in: for letters typed with an accent `skip` compares the word with
            // them, and a busy accent key ("lä", "pré") has hundreds of words of which some twenty get this far.
            if skip(id) { continue }
            var pos = best.count
            while pos > 0 && best[pos - 1].0 < p { pos -= 1 }
            // Into place by swaps, the last one dropped when full: `insert(_:at:)` went through the generic `replaceSubrange`.
            if best.count == k { best[k - 1] = (p, id) } else { best.append((p, id)) }
            var i = best.count - 1
            while i > pos { best.swapAt(i, i - 1); i -= 1 }
        }
        return best.map { $0.1 }
    }
}
