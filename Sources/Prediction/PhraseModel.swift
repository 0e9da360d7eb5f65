import Foundation
import Localization

/// A conversational trigram model that initials expansion mixes with the word model (the suggestion bar never
/// reads it): the word model was estimated on news and books, where "it was like a couple of times" beats "I
/// would like a cup of tea"; people chatting say the second.
///
/// Read from a text file of `1 WORD LOG10P LOG10BOW`, `2 W1 W2 LOG10P LOG10BOW` and `3 W1 W2 W3 LOG10P` lines
/// (back-off form; `<s>` and `</s>` the sentence's start and end; a `0 LOG10P` line gives unseen words'
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
    /// log10 P and back-off weight of each pair; log10 P of each triple.
    var bigrams: [UInt64: (p: Float, bow: Float)] = [:]
    var trigrams: [UInt64: Float] = [:]
    /// Most successors kept for a context: the beam takes a dozen words per letter, and a bounded list keeps a rare
    /// letter's scan short ("the" has thousands).
    static let maxSuccessors = 256
    /// Successors of one- and two-word contexts, likeliest first (the sentence's end left out), at most
    /// `maxSuccessors` each.
    var after1: [Int32: [Int32]] = [:]
    var after2: [UInt64: [Int32]] = [:]
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
            guard let order = f.first.flatMap({ Int(String(decoding: $0, as: UTF8.self)) }), (0...3).contains(order),
                  f.count == (order == 0 ? 2 : order == 3 ? 5 : order + 3),
                  let p = Float(String(decoding: f[order + 1], as: UTF8.self)), p <= 0 else {
                if warnings.count < 20 { warnings.append(.badLine(path: url.path, line: line, message: UIMessage("expected '1 WORD LOG10P LOG10BOW', '2 W1 W2 LOG10P LOG10BOW' or '3 W1 W2 W3 LOG10P'"))) }
                return
            }
            let bow = order == 1 || order == 2 ? Float(String(decoding: f[order + 2], as: UTF8.self)) ?? 0 : 0
            switch order {
            case 0: m.floor = p
            case 1:
                guard let w = id(f[1]) else { return }
                if w == end { m.endUnigram = p } else if w == m.sentenceStart { m.startBackoff = bow } else if w >= 0 { m.unigram[Int(w)] = p; m.backoff1[Int(w)] = bow }
            case 2:
                guard let a = id(f[1]), let b = id(f[2]) else { return }
                m.bigrams[key(a, b)] = (p, bow)
                if b != end { pairs2[a, default: []].append((p, b)) }
            default:
                guard let a = id(f[1]), let b = id(f[2]), let c = id(f[3]) else { return }
                m.trigrams[key(a, b, c)] = p
                if c != end { pairs3[key(a, b), default: []].append((p, c)) }
            }
            m.count += 1
        }
        let order: ((Float, Int32), (Float, Int32)) -> Bool = { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        for (k, v) in pairs2 { m.after1[k] = v.sorted(by: order).prefix(maxSuccessors).map(\.1) }
        for (k, v) in pairs3 { m.after2[k] = v.sorted(by: order).prefix(maxSuccessors).map(\.1) }
        m.utterances.sort { $0.logp > $1.logp }
        return (m, warnings)
    }

    /// log10 P(`w` | `w1` `w2`) by the model's back-off (`end` for the sentence's end); a context word that is
    /// unknown (negative id other than the start) or missing backs off past it.
    func logProb(_ w: Int32, w1: Int32?, w2: Int32?) -> Float {
        var weight: Float = 0
        if let w2, w2 >= 0 || w2 == sentenceStart {
            if let w1, w1 >= 0 || w1 == sentenceStart {
                if let t = trigrams[Self.key(w1, w2, w)] { return t }
                weight += bigrams[Self.key(w1, w2)]?.bow ?? 0
            }
            if let b = bigrams[Self.key(w2, w)] { return weight + b.p }
            weight += w2 == sentenceStart ? startBackoff : (Int(w2) < backoff1.count ? backoff1[Int(w2)] : 0)
        }
        if w == Self.end { return weight + endUnigram }
        guard w >= 0, Int(w) < unigram.count, !unigram[Int(w)].isNaN else { return weight + floor }
        return weight + unigram[Int(w)]
    }

    /// Up to `k` words of `range` (ids) that the model has after `w1 w2`, then after `w2`, likeliest first.
    func successors(w1: Int32?, w2: Int32?, in range: Range<Int>, k: Int) -> [Int32] {
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
        if let w1, let w2 { take(after2[Self.key(w1, w2)]) }
        if let w2 { take(after1[w2]) }
        return out
    }
}
