import Foundation
import Localization

/// A conversational 4-gram model that initials expansion mixes with the word model (the suggestion bar never
/// reads it): the word model was estimated on news and books, where "it was like a couple of times" beats "I
/// would like a cup of tea"; people chatting say the second.
///
/// Read from a text file of `1 WORD LOG10P LOG10BOW`, `2 W1 W2 LOG10P LOG10BOW`, `3 W1 W2 W3 LOG10P [LOG10BOW]` and
/// `4 W1 W2 W3 W4 LOG10P` lines (back-off form; a trigram model's file, without 4-grams, reads as before; `<s>` and `</s>` the sentence's start and end; a `0 LOG10P` line gives unseen words'
/// probability) and `s LOG10P W1 W2 …` lines (a whole sentence people say again and again, with its share of all
/// the sentences), made by `scripts/make-conversation-ngrams.sh` (`wordlists/conversation-en.txt`). Words the
/// predictor's list lacks are skipped: ids are the predictor's.
public struct PhraseModel: Sendable {
    /// The id standing for the sentence's end (ids of listed words are ≥ 0, the start is the n-grams' own).
    static let end: Int32 = -3
    /// log10 probability of a listed word the model never saw.
    var floor: Float = -7
    /// log10 P(word) and log10 back-off weight as a one-word context, by id (NaN: not in the model).
    var unigram: [Float] = [], backoff1: [Float] = []
    var endUnigram: Float = -Float.infinity, startBackoff: Float = 0
    /// log10 P and back-off weight of each pair and each triple.
    var bigrams: [UInt64: (p: Float, bow: Float)] = [:]
    var trigrams: [UInt64: (p: Float, bow: Float)] = [:]
    /// A 4-gram: its first three words (`key(a, b, c)`) and its last.
    struct Key4: Hashable, Sendable { var context: UInt64; var word: Int32 }
    /// log10 P of each 4-gram.
    var fourgrams: [Key4: Float] = [:]
    /// The three-word contexts that have 4-grams: elsewhere the fourth word back changes nothing (its back-off
    /// weight is 1), so the beam need not tell hypotheses apart by it.
    var fourContexts: Set<UInt64> = []
    /// Most successors kept for a context: the beam takes a dozen words per letter, and a bounded list keeps a rare
    /// letter's scan short ("the" has thousands).
    static let maxSuccessors = 256
    /// Successors of one- and two-word contexts, likeliest first (the sentence's end left out), at most
    /// `maxSuccessors` each.
    var after1: [Int32: [Int32]] = [:]
    var after2: [UInt64: [Int32]] = [:]
    /// Successors of three-word contexts, as `after2`.
    var after3: [UInt64: [Int32]] = [:]
    /// The sentences people say again and again ("how are you doing"), as ids, with log10 of their share of all
    /// sentences; most said first.
    var utterances: [(words: [Int32], logp: Float)] = []
    /// Where the sentence start's slot is (`NGrams.sentenceStart`).
    let sentenceStart: Int32

    /// The number of n-grams read, for messages.
    public internal(set) var count = 0

    static func key(_ a: Int32, _ b: Int32) -> UInt64 { UInt64(UInt32(bitPattern: a + 4)) << 32 | UInt64(UInt32(bitPattern: b + 4)) }
    static func key(_ a: Int32, _ b: Int32, _ c: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: a + 4)) << 42 | UInt64(UInt32(bitPattern: b + 4)) << 21 | UInt64(UInt32(bitPattern: c + 4))
    }

    /// Reads the model at `url` for the predictor's words; bad lines are skipped and reported in `warnings`.
    public static func load(_ url: URL, for predictor: WordPredictor) throws(PredictionError) -> (model: PhraseModel, warnings: [PredictionError]) {
        let bytes = try LineReader.read(url)
        let lexicon = predictor.lexicon
        var m = PhraseModel(sentenceStart: predictor.ngrams.sentenceStart)
        m.unigram = [Float](repeating: .nan, count: lexicon.count)
        m.backoff1 = [Float](repeating: 0, count: lexicon.count)
        var warnings: [PredictionError] = []
        var ids: [String: Int32] = ["<s>": m.sentenceStart, "</s>": end]
        func id(_ f: ArraySlice<UInt8>) -> Int32? {
            let w = String(decoding: f, as: UTF8.self)
            if let i = ids[w] { return i }
            guard let i = lexicon.id(of: w) else { return nil }
            ids[w] = Int32(i)
            return Int32(i)
        }
        var pairs2: [Int32: [(Float, Int32)]] = [:]
        var pairs3: [UInt64: [(Float, Int32)]] = [:]
        var pairs4: [UInt64: [(Float, Int32)]] = [:]
        LineReader.forEachLine(bytes) { line, f in
            if f.first?.elementsEqual("s".utf8) == true {
                guard f.count >= 3, let p = Float(String(decoding: f[1], as: UTF8.self)), p <= 0 else {
                    if warnings.count < 20 { warnings.append(.badLine(path: url.path, line: line, message: UIMessage("expected 's LOG10P W1 W2 …'"))) }
                    return
                }
                // A sentence with a word the list lacks is left out, as such n-grams are.
                let words = f[2...].compactMap(id)
                if words.count == f.count - 2, words.allSatisfy({ $0 >= 0 }) { m.utterances.append((words, p)); m.count += 1 }
                return
            }
            // A trigram's back-off weight is there only in a 4-gram model's file.
            guard let order = f.first.flatMap({ Int(String(decoding: $0, as: UTF8.self)) }), (0...4).contains(order),
                  f.count == (order == 0 ? 2 : order == 4 ? 6 : order + 3) || (order == 3 && f.count == 5),
                  let p = Float(String(decoding: f[order + 1], as: UTF8.self)), p <= 0 else {
                if warnings.count < 20 {
                    warnings.append(.badLine(path: url.path, line: line,
                                             message: UIMessage("expected '1 WORD LOG10P LOG10BOW', '2 W1 W2 LOG10P LOG10BOW', '3 W1 W2 W3 LOG10P [LOG10BOW]' or '4 W1 W2 W3 W4 LOG10P'")))
                }
                return
            }
            let bow = (1...3).contains(order) && f.count == order + 3 ? Float(String(decoding: f[order + 2], as: UTF8.self)) ?? 0 : 0
            switch order {
            case 0: m.floor = p
            case 1:
                guard let w = id(f[1]) else { return }
                if w == end { m.endUnigram = p } else if w == m.sentenceStart { m.startBackoff = bow } else if w >= 0 { m.unigram[Int(w)] = p; m.backoff1[Int(w)] = bow }
            case 2:
                guard let a = id(f[1]), let b = id(f[2]) else { return }
                m.bigrams[key(a, b)] = (p, bow)
                if b != end { pairs2[a, default: []].append((p, b)) }
            case 3:
                guard let a = id(f[1]), let b = id(f[2]), let c = id(f[3]) else { return }
                m.trigrams[key(a, b, c)] = (p, bow)
                if c != end { pairs3[key(a, b), default: []].append((p, c)) }
            default:
                guard let a = id(f[1]), let b = id(f[2]), let c = id(f[3]), let d = id(f[4]) else { return }
                m.fourgrams[Key4(context: key(a, b, c), word: d)] = p
                m.fourContexts.insert(key(a, b, c))
                if d != end { pairs4[key(a, b, c), default: []].append((p, d)) }
            }
            m.count += 1
        }
        let order: ((Float, Int32), (Float, Int32)) -> Bool = { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        for (k, v) in pairs2 { m.after1[k] = v.sorted(by: order).prefix(maxSuccessors).map(\.1) }
        for (k, v) in pairs3 { m.after2[k] = v.sorted(by: order).prefix(maxSuccessors).map(\.1) }
        for (k, v) in pairs4 { m.after3[k] = v.sorted(by: order).prefix(maxSuccessors).map(\.1) }
        m.utterances.sort { $0.logp > $1.logp }
        return (m, warnings)
    }

    /// `w0` when the model has 4-grams after `w0 w1 w2`, else nil: the fourth word back then changes no
    /// probability, and hypotheses that differ only there can share their lists.
    func fourContext(_ w0: Int32?, _ w1: Int32?, _ w2: Int32?) -> Int32? {
        guard let w0, let w1, let w2, !fourContexts.isEmpty, fourContexts.contains(Self.key(w0, w1, w2)) else { return nil }
        return w0
    }

    /// log10 P(`w` | `w0` `w1` `w2`) by the model's back-off (`end` for the sentence's end); a context word that is
    /// unknown (negative id other than the start) or missing backs off past it.
    func logProb(_ w: Int32, w0: Int32? = nil, w1: Int32?, w2: Int32?) -> Float {
        var weight: Float = 0
        if let w2, w2 >= 0 || w2 == sentenceStart {
            if let w1, w1 >= 0 || w1 == sentenceStart {
                if let w0, w0 >= 0 || w0 == sentenceStart {
                    let c = Self.key(w0, w1, w2)
                    if fourContexts.contains(c) {
                        if let q = fourgrams[Key4(context: c, word: w)] { return q }
                        weight += trigrams[c]?.bow ?? 0
                    }
                }
                if let t = trigrams[Self.key(w1, w2, w)] { return weight + t.p }
                weight += bigrams[Self.key(w1, w2)]?.bow ?? 0
            }
            if let b = bigrams[Self.key(w2, w)] { return weight + b.p }
            weight += w2 == sentenceStart ? startBackoff : (Int(w2) < backoff1.count ? backoff1[Int(w2)] : 0)
        }
        if w == Self.end { return weight + endUnigram }
        guard w >= 0, Int(w) < unigram.count, !unigram[Int(w)].isNaN else { return weight + floor }
        return weight + unigram[Int(w)]
    }

    /// Up to `k` words of `range` (ids) that the model has after `w0 w1 w2`, then after `w1 w2`, then after `w2`,
    /// likeliest first.
    func successors(w0: Int32? = nil, w1: Int32?, w2: Int32?, in range: Range<Int>, k: Int) -> [Int32] {
        var out: [Int32] = []
        func take(_ list: [Int32]?) {
            guard let list else { return }
            var n = 0
            for id in list where range.contains(Int(id)) && !out.contains(id) {
                out.append(id)
                n += 1
                if n >= k { return }
            }
        }
        if let w0, let w1, let w2, !after3.isEmpty { take(after3[Self.key(w0, w1, w2)]) }
        if let w1, let w2 { take(after2[Self.key(w1, w2)]) }
        if let w2 { take(after1[w2]) }
        return out
    }
}
