import Foundation

/// A word list sorted by its lowercase UTF-8 bytes, with prefix lookup and top-k by frequency.
///
/// Word ids are positions in sorted order, so every prefix is one contiguous id range found by
/// binary search. For short prefixes with many words the best few ids are precomputed, so a
/// lookup never scans more than `scanLimit` words.
struct Lexicon: Sendable {
    /// All words' bytes back to back; word `i` is `bytes[starts[i]..<starts[i + 1]]`.
    let bytes: [UInt8]
    let starts: [Int32]
    /// log10 of each word's relative frequency.
    let logProb: [Float]
    /// `pow(10, logProb)`, kept because scoring needs it for every candidate and `pow` is slow.
    let probability: [Double]
    /// Precomputed best ids (by frequency, best first) for prefixes that match many words.
    let topByPrefix: [[UInt8]: [Int32]]
    /// The first id whose first byte is at least `b`, for each byte (and 256: `count`): a lookup's binary
    /// search starts within its first letter's words, a few steps instead of seventeen.
    private let byFirstByte: [Int32]
    /// Ranges no larger than this are scanned; larger ones use `topByPrefix`.
    static let scanLimit = 384
    /// How many ids are precomputed per busy prefix.
    static let topCount = 48

    var count: Int { logProb.count }

    /// Builds a lexicon from (lowercase word, count) pairs; later duplicates add to the count.
    init(_ entries: [(String, Double)]) {
        var merged: [String: Double] = [:]
        merged.reserveCapacity(entries.count)
        for (w, c) in entries where !w.isEmpty { merged[w, default: 0] += c }
        let sorted = merged.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        let total = merged.values.reduce(0, +)
        var bytes: [UInt8] = []
        var starts: [Int32] = [0]
        var logProb: [Float] = []
        bytes.reserveCapacity(sorted.count * 8)
        for w in sorted {
            bytes.append(contentsOf: w)
            starts.append(Int32(bytes.count))
            let c = merged[String(decoding: w, as: UTF8.self)] ?? 1
            logProb.append(Float(log10(max(c, 1) / max(total, 1))))
        }
        self.bytes = bytes
        self.starts = starts
        self.logProb = logProb
        self.probability = logProb.map { pow(10, Double($0)) }
        self.topByPrefix = Lexicon.precompute(bytes: bytes, starts: starts, logProb: logProb)
        self.byFirstByte = Lexicon.firstByteIndex(bytes: bytes, starts: starts)
    }

    /// A lexicon from the parts another one was made of (`ModelCache`), trusted as they are.
    init(bytes: [UInt8], starts: [Int32], logProb: [Float], topByPrefix: [[UInt8]: [Int32]]) {
        self.bytes = bytes
        self.starts = starts
        self.logProb = logProb
        self.probability = logProb.map { pow(10, Double($0)) }
        self.topByPrefix = topByPrefix
        self.byFirstByte = Lexicon.firstByteIndex(bytes: bytes, starts: starts)
    }

    private static func firstByteIndex(bytes: [UInt8], starts: [Int32]) -> [Int32] {
        let n = starts.count - 1
        var index = [Int32](repeating: Int32(n), count: 257)
        var b = 0
        for id in 0..<n where starts[id + 1] > starts[id] {
            let first = Int(bytes[Int(starts[id])])
            while b <= first { index[b] = Int32(id); b += 1 }
        }
        return index
    }

    /// The ids whose first byte is `b`.
    @inline(__always)
    private func firstByteRange(_ b: UInt8) -> (Int, Int) { (Int(byFirstByte[Int(b)]), Int(byFirstByte[Int(b) + 1])) }

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

    /// The length in UTF-8 bytes of word `id`.
    func length(_ id: Int) -> Int { Int(starts[id + 1] - starts[id]) }

    /// True if word `id` contains the byte `b`.
    func contains(_ b: UInt8, in id: Int) -> Bool {
        bytes[Int(starts[id])..<Int(starts[id + 1])].contains(b)
    }

    /// The last UTF-8 byte of word `id`.
    func lastByte(_ id: Int) -> UInt8 { bytes[Int(starts[id + 1]) - 1] }

    /// The word with id `id`, lowercase.
    func word(_ id: Int) -> String {
        String(decoding: bytes[Int(starts[id])..<Int(starts[id + 1])], as: UTF8.self)
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

    /// The id range of words starting with `prefix` (lowercase bytes).
    func range(prefix: [UInt8]) -> Range<Int> {
        guard let b = prefix.first else { return 0..<count }
        let (lo0, hi0) = firstByteRange(b)
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

    /// The id of `word` (lowercase), if listed.
    func id(of word: String) -> Int? {
        // Most words are native strings with contiguous bytes; copying them into an array cost more than the search.
        if let found = word.utf8.withContiguousStorageIfAvailable({ id(ofBytes: $0) }) { return found }
        return id(ofBytes: Array(word.utf8))
    }

    /// The id of `word` (lowercase), if listed, for a word known to sort after word `lower - 1`: searched
    /// from `lower` in growing steps, so a word close after it ("emma's" after "emma") costs a few compares.
    func id(of word: String, from lower: Int) -> Int? {
        if let found = word.utf8.withContiguousStorageIfAvailable({ id(ofBytes: $0, from: lower) }) { return found }
        return id(ofBytes: Array(word.utf8), from: lower)
    }

    /// The id of word `id` followed by "'s", if listed: searched from just after it, in a buffer on the stack.
    func possessive(of id: Int) -> Int? {
        let s = Int(starts[id]), e = Int(starts[id + 1])
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: e - s + 2) { buf in
            for k in s..<e { buf[k - s] = bytes[k] }
            buf[e - s] = UInt8(ascii: "'"); buf[e - s + 1] = UInt8(ascii: "s")
            return self.id(ofBytes: UnsafeBufferPointer(buf), from: id + 1)
        }
    }

    private func id<Key: RandomAccessCollection<UInt8>>(ofBytes key: Key, from lower: Int) -> Int? where Key.Index == Int {
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

    private func id<Key: RandomAccessCollection<UInt8>>(ofBytes key: Key) -> Int? where Key.Index == Int {
        guard let b = key.first else { return nil }
        var (lo, hi) = firstByteRange(b)
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

    /// `top(prefix:k:skip:)` for a caller that already has `r == range(prefix: prefix)`.
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
        // Keep a small sorted buffer of the best k.
        var best: [(Float, Int)] = []
        best.reserveCapacity(k + 1)
        for id in r where !skip(id) {
            let p = logProb[id]
            if best.count == k, let last = best.last, p <= last.0 { continue }
            var pos = best.count
            while pos > 0 && best[pos - 1].0 < p { pos -= 1 }
            best.insert((p, id), at: pos)
            if best.count > k { best.removeLast() }
        }
        return best.map { $0.1 }
    }
}
