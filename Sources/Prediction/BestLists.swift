/// The best few words already ranked for the contexts whose ranking costs most, worked out when the lists are built,
/// so a suggestion there is one lookup.
///
/// Issue 50's tail (`bench predict`, English, p99 over 10 µs) was spread over inputs after a frequent context ("I would
/// like a ", "The d", "Can you "): gathering a frequent word's successors and scoring some fifty candidates went to
/// memory for nearly each one. For the one- and two-word contexts with the most stored successors, the ranking's `pool`
/// best words are kept here: with nothing typed for many of them, with each letter a–z for fewer, with two letters that
/// begin many words for the busiest.
///
/// Only a predictor as the lists load it can use them: nothing learned (the user's words, pairs, phrases, removed
/// words change the ranking), nothing hidden (`hideRejected`), and the same settings (`Settings`) as they were ranked
/// with; any other asks the search, as before. A context or letter not kept here, or a ranking that held a word the
/// lists lack (a generated possessive), asks the search too.
struct BestLists: Sendable, Equatable {
    /// What a ranking depends on besides the lists and the text: the settings the lists were ranked with.
    struct Settings: Sendable, Equatable {
        var trigram = 0.0, bigram = 0.0, unigram = 0.0
        var backoff = 0.0, lengthExponent = 0.0
        var possessiveWeight = 0.0, possessiveMaxLogProb = 0.0
        var possessive = false, offerHeldWords = false

        /// As stored in the compiled lists.
        var values: [Double] {
            [trigram, bigram, unigram, backoff, lengthExponent, possessiveWeight, possessiveMaxLogProb,
             possessive ? 1 : 0, offerHeldWords ? 1 : 0]
        }

        init() {}

        init?(values v: [Double]) {
            guard v.count == 9 else { return nil }
            (trigram, bigram, unigram, backoff, lengthExponent) = (v[0], v[1], v[2], v[3], v[4])
            (possessiveWeight, possessiveMaxLogProb, possessive, offerHeldWords) = (v[5], v[6], v[7] != 0, v[8] != 0)
        }
    }

    /// Words kept per entry: a ranking for fewer is the first of these (`WordPredictor.smallestPool`).
    static let pool = WordPredictor.smallestPool
    /// How many one-word and two-word contexts, those with the most stored successors, get a list for nothing typed.
    static let oneWordContexts = 4096, twoWordContexts = 16384
    /// How many of those get lists for each letter a–z typed.
    static let oneLetterContexts = 384
    /// How many of those get lists for two letters typed too, and for which two letters: those that begin at least
    /// `twoLetterWords` listed words (a narrower prefix has few successors to search).
    static let twoLetterContexts = 160, twoLetterWords = 128

    var settings = Settings()
    /// `key` of each entry, increasing.
    private(set) var keys: [UInt64] = []
    /// `pool` ids per entry, best first, -1 after the last.
    private(set) var words: [Int32] = []

    init() {}

    /// Lists as stored; nil when they do not fit together (keys out of order, ids outside the lexicon of `n` words).
    init?(settings: [Double], keys: [UInt64], words: [Int32], lexiconSize n: Int) {
        guard let s = Settings(values: settings) ?? (keys.isEmpty ? Settings() : nil), words.count == keys.count * Self.pool,
              zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }), words.allSatisfy({ $0 >= -1 && Int($0) < n }) else { return nil }
        self.settings = s; self.keys = keys; self.words = words
    }

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }

    /// No context word (or an unknown one) in a key.
    static let none: Int32 = -1

    /// The code of the letters typed (lowercase): 0 for none, the bytes for one or two letters a–z (the first in the
    /// low byte); nil for any other, which has no list.
    @inline(__always)
    static func typedCode(_ typed: String) -> UInt64? {
        var u = typed.utf8.makeIterator()
        guard let a = u.next() else { return 0 }
        guard a &- UInt8(ascii: "a") < 26 else { return nil }
        guard let b = u.next() else { return UInt64(a) }
        guard u.next() == nil, b &- UInt8(ascii: "a") < 26 else { return nil }
        return UInt64(a) | UInt64(b) << 8
    }

    /// The key of context `w1 w2` (`none` for no word) and the letters typed (`typedCode`).
    @inline(__always)
    static func key(_ w1: Int32, _ w2: Int32, _ typed: UInt64) -> UInt64 {
        (UInt64(UInt32(bitPattern: w1)) & 0x1F_FFFF) << 37 | (UInt64(UInt32(bitPattern: w2)) & 0x1F_FFFF) << 16 | typed
    }

    /// The kept words of `key`, best first (up to `limit`, at most `pool`), or nil when it has none.
    @inline(__always)
    func lookup(_ key: UInt64, limit: Int) -> [Int32]? {
        var lo = 0, hi = keys.count
        while lo < hi {
            let m = (lo + hi) / 2
            if keys[m] < key { lo = m + 1 } else { hi = m }
        }
        guard lo < keys.count, keys[lo] == key else { return nil }
        let start = lo * Self.pool
        var n = 0
        while n < min(limit, Self.pool), words[start + n] >= 0 { n += 1 }
        return Array(words[start..<(start + n)])
    }

    /// Adds an entry of up to `pool` ids, after the last (keys increase: `lookup` searches them).
    mutating func append(_ key: UInt64, _ ids: [Int32]) {
        keys.append(key)
        words += ids.prefix(Self.pool) + repeatElement(-1, count: max(0, Self.pool - ids.count))
    }
}
