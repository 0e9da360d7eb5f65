/// A trigram model in the binary trie format of CMU Sphinx (`en-us.lm.bin` of Debian's pocketsphinx-en-us), read
/// from its bytes: the unigrams with their back-off weights, every bigram with its back-off weight, every trigram.
///
/// The layout, as sphinxbase/pocketsphinx write it (`ngram_model_trie.c`, `lm_trie.c`, `lm_trie_quant.c`; little
/// endian): the text "Trie Language Model", the order (one byte) and the count of each order (32 bits each); a
/// 32-bit word (once the quantiser's kind), then the quantiser's tables of 65,536 floats each (the bigrams'
/// probabilities, their back-off weights, the trigrams' probabilities); the unigrams (probability, back-off weight,
/// index of their first bigram: 12 bytes each, one more than there are, so each one's bigrams end where the next
/// one's start); the bigrams and trigrams as bit-packed arrays; then the words, each ended by a NUL.
///
/// The trie is reversed: a unigram's bigram entries are the words that came *before* it, and a bigram entry's
/// trigram entries the words before those. A bigram entry is its word (enough bits for a unigram index), the
/// back-off weight's code (16 bits), the probability's code (16 bits) and the index of its first trigram; a
/// trigram entry is its word and the probability's code. Probabilities and weights are natural-log-like values
/// in PocketSphinx's log base 1.0001 (`logmath`), turned into log10 here.
///
/// Pure: it takes bytes. Every index is checked before it is used, so a damaged or foreign file is refused with
/// what is wrong, never a trap.
struct LMTrie {
    /// The words, by their index in the model.
    var words: [String]
    /// log10 P(w) and the log10 back-off weight of each word as a one-word context.
    var unigramLogP: [Float]
    var unigramBackoff: [Float]
    /// Bigrams as (previous word, word, log10 P(word | previous), log10 back-off of the pair as a context).
    var bigrams: [(w1: Int32, w2: Int32, logp: Float, backoff: Float)]
    /// Trigrams as (w1, w2, w3, log10 P(w3 | w1 w2)).
    var trigrams: [(w1: Int32, w2: Int32, w3: Int32, logp: Float)]

    static let header = Array("Trie Language Model".utf8)
    /// log10 of PocketSphinx's log base (1.0001), by which its stored values become log10.
    static let toLog10 = Float(0.0000434272768626696)

    /// Whether `bytes` start as a trie model does (so a file is read as one, not as n-gram text).
    static func isTrie(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: header) }

    /// Reads a trigram trie; `Failure` names what does not fit.
    static func read(_ b: [UInt8]) -> Result<LMTrie, Failure> {
        b.withUnsafeBytes { raw in
            do throws(Failure) { return .success(try read(raw)) } catch { return .failure(error) }
        }
    }

    /// Why a file could not be read as a trie model.
    struct Failure: Error, Equatable { var reason: String }

    private static func read(_ raw: UnsafeRawBufferPointer) throws(Failure) -> LMTrie {
        var pos = 0
        func need(_ n: Int, _ what: String) throws(Failure) {
            guard n >= 0, pos + n <= raw.count else { throw Failure(reason: "cut short in \(what)") }
        }
        func u32() throws(Failure) -> UInt32 {
            try need(4, "the header")
            defer { pos += 4 }
            return raw.loadUnaligned(fromByteOffset: pos, as: UInt32.self).littleEndian
        }
        guard raw.count >= header.count, raw.prefix(header.count).elementsEqual(header) else {
            throw Failure(reason: "not a PocketSphinx trie model (no \"Trie Language Model\" header)")
        }
        pos = header.count
        try need(1, "the header")
        let order = Int(raw[pos]); pos += 1
        guard order == 3 else { throw Failure(reason: "a model of order \(order); only trigram models are read") }
        let n1 = Int(try u32()), n2 = Int(try u32()), n3 = Int(try u32())
        // Word indices take at most 25 bits in this format (lm_trie.c refuses more), so do the counts.
        guard n1 > 0, n1 < 1 << 25, n2 < 1 << 25, n3 < 1 << 25 else {
            throw Failure(reason: "counts out of range (\(n1) unigrams, \(n2) bigrams, \(n3) trigrams)")
        }
        _ = try u32()
        let tableSize = 1 << 16
        try need(3 * tableSize * 4, "the quantiser's tables")
        func table(_ k: Int) -> [Float] {
            (0..<tableSize).map { raw.loadUnaligned(fromByteOffset: pos + (k * tableSize + $0) * 4, as: Float.self) }
        }
        let biProb = table(0), biBackoff = table(1), triProb = table(2)
        pos += 3 * tableSize * 4
        try need((n1 + 1) * 12, "the unigrams")
        var uniP = [Float](repeating: 0, count: n1), uniB = [Float](repeating: 0, count: n1)
        var next = [Int](repeating: 0, count: n1 + 1)
        for i in 0...n1 {
            let at = pos + i * 12
            if i < n1 {
                uniP[i] = raw.loadUnaligned(fromByteOffset: at, as: Float.self) * toLog10
                uniB[i] = raw.loadUnaligned(fromByteOffset: at + 4, as: Float.self) * toLog10
            }
            next[i] = Int(raw.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self).littleEndian)
        }
        pos += (n1 + 1) * 12
        guard next[0] == 0, next[n1] <= n2, zip(next, next.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw Failure(reason: "the unigrams' bigram indices do not fit the \(n2) bigrams")
        }
        func bits(_ v: Int) -> Int { v == 0 ? 0 : Int.bitWidth - v.leadingZeroBitCount }
        let wordBits = bits(n1), nextBits = bits(n3)
        let midBits = wordBits + 32 + nextBits, longBits = wordBits + 16
        // One more entry than there are (its pointer ends the last range), rounded up to bytes, and 8 spare bytes.
        let midSize = ((1 + n2) * midBits + 7) / 8 + 8, longSize = ((1 + n3) * longBits + 7) / 8 + 8
        try need(midSize + longSize, "the bigrams and trigrams")
        let mid = pos, long = pos + midSize
        pos += midSize + longSize
        // Reads `count` bits at bit `offset` of the array at `base`: 8 bytes are always there (the spare ones).
        @inline(__always) func field(_ base: Int, _ offset: Int, _ count: Int) -> Int {
            let v = raw.loadUnaligned(fromByteOffset: base + offset >> 3, as: UInt64.self).littleEndian
            return Int((v >> UInt64(offset & 7)) & ((1 << UInt64(count)) - 1))
        }
        let wordCount = Int(try u32())
        try need(wordCount, "the words")
        var words: [String] = []
        words.reserveCapacity(n1)
        var s = pos
        for i in pos..<(pos + wordCount) where raw[i] == 0 {
            words.append(String(decoding: UnsafeRawBufferPointer(rebasing: raw[s..<i]), as: UTF8.self))
            s = i + 1
        }
        guard words.count == n1 else { throw Failure(reason: "\(words.count) words for \(n1) unigrams") }

        var bigrams: [(w1: Int32, w2: Int32, logp: Float, backoff: Float)] = []
        var trigrams: [(w1: Int32, w2: Int32, w3: Int32, logp: Float)] = []
        bigrams.reserveCapacity(n2)
        trigrams.reserveCapacity(n3)
        for w in 0..<n1 {
            for e in next[w]..<next[w + 1] {
                let at = e * midBits
                let before = field(mid, at, wordBits)
                let bo = field(mid, at + wordBits, 16), p = field(mid, at + wordBits + 16, 16)
                let t0 = field(mid, at + wordBits + 32, nextBits), t1 = field(mid, at + midBits + wordBits + 32, nextBits)
                guard before < n1, t0 <= t1, t1 <= n3 else { throw Failure(reason: "bigram \(e) does not fit the tables") }
                bigrams.append((Int32(before), Int32(w), biProb[p] * toLog10, biBackoff[bo] * toLog10))
                for t in t0..<t1 {
                    let tat = t * longBits
                    let first = field(long, tat, wordBits), tp = field(long, tat + wordBits, 16)
                    guard first < n1 else { throw Failure(reason: "trigram \(t) does not fit the tables") }
                    trigrams.append((Int32(first), Int32(before), Int32(w), triProb[tp] * toLog10))
                }
            }
        }
        return LMTrie(words: words, unigramLogP: uniP, unigramBackoff: uniB, bigrams: bigrams, trigrams: trigrams)
    }
}
