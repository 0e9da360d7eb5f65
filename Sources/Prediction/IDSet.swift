/// A set of lexicon ids as one bit each: membership without hashing.
///
/// The held-back and possessable word sets are asked about every candidate a ranking looks at, hundreds per
/// suggestion; hashing each id cost about a tenth of a suggestion.
struct IDSet: Sendable, Equatable {
    private(set) var words: [UInt64] = []
    private(set) var count = 0

    init() {}

    init<S: Sequence<Int32>>(_ ids: S) {
        for id in ids { insert(id) }
    }

    /// A set from the bit words of another (`ModelCache`).
    init(words: [UInt64]) {
        self.words = words
        count = words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    func contains(_ id: Int32) -> Bool {
        let w = Int(id) >> 6
        guard id >= 0, w < words.count else { return false }
        return words[w] & (1 << UInt64(id & 63)) != 0
    }

    mutating func insert(_ id: Int32) {
        guard id >= 0 else { return }
        let w = Int(id) >> 6
        if w >= words.count { words += [UInt64](repeating: 0, count: w + 1 - words.count) }
        let bit: UInt64 = 1 << UInt64(id & 63)
        if words[w] & bit == 0 { words[w] |= bit; count += 1 }
    }
}
