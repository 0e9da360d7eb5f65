#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Localization
import SystemIO

/// The conversational model as built in memory, saved in a binary file of its own (`conversation-en.bin` in the
/// user's cache) so a start reads its tables in one go instead of parsing 9 MB of text.
///
/// Laid out as the word lists' cache (`ModelCache`: its writer, reader, stamp and checksum), in a format of its
/// own: "HFPHRAS" and a version character, the stamp (the text's name, size and time, and the predictor's words,
/// whose ids the tables hold), the tables, and a checksum of the rest. Another version's file, or another stamp,
/// is rebuilt without a word; a file cut short, not adding up, or with ids outside the word list is damaged: said
/// (`PredictionError.damagedPhraseCache`), the text read instead and the file written again.
///
/// Bump `cacheVersion`'s last character whenever the tables are built differently.
extension PhraseModel {
    /// 2: the 4-gram model (triples' back-off weights, 4-grams and their successor lists).
    static let cacheVersion: [UInt8] = Array("HFPHRAS2".utf8)

    /// What a compiled model is built from: the text file (name, size, time) and the predictor's word list (ids are
    /// its places). Nil when the text cannot be looked at (reading it will say why).
    static func stamp(of url: URL, lexicon: Lexicon) -> [UInt8]? {
        guard let s = ModelCache.stamp(of: [url]) else { return nil }
        let words = lexicon.bytes.withUnsafeBytes { ModelCache.checksum($0) }
        return s + Array("words \(lexicon.count) \(words)\n".utf8)
    }

    /// Reads the model at `url` for the predictor's words, from `cache` when that was compiled from this text for
    /// these words, else from the text, then (with `cache`, and a text without bad lines) compiles it into `cache`.
    /// A damaged cache and a cache that cannot be written are reported in `warnings`, never thrown.
    public static func load(_ url: URL, for predictor: WordPredictor, cache: URL?) throws(PredictionError)
        -> (model: PhraseModel, warnings: [PredictionError]) {
        guard let cache, let stamp = stamp(of: url, lexicon: predictor.lexicon) else { return try load(url, for: predictor) }
        var warnings: [PredictionError] = []
        switch readCache(cache, stamp: stamp, text: url, predictor: predictor) {
        case .success(let m): return (m, [])
        case .failure(.damaged(let reason)): warnings.append(.damagedPhraseCache(path: cache.path, reason: reason))
        case .failure(.stale): break
        }
        let (m, problems) = try load(url, for: predictor)
        if problems.isEmpty {
            try? FileManager.default.createDirectory(at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let failure = DurableFile.write(m.encode(stamp: stamp), to: cache.path) {
                warnings.append(.cannotWrite(path: cache.path, reason: failure.reason))
            }
        }
        return (m, warnings + problems)
    }

    /// The compiled tables after `stamp`, ending in a checksum.
    func encode(stamp: [UInt8]) -> [UInt8] {
        var w = ModelCache.Writer()
        w.out += Self.cacheVersion
        w.array(stamp)
        w.array([Int64(sentenceStart), Int64(count), Int64(unigram.count)])
        w.array([floor, endUnigram, startBackoff])
        w.array(unigram); w.array(backoff1)
        // Sorted, so the same model always makes the same file.
        let b = bigrams.keys.sorted()
        w.array(b); w.array(b.map { bigrams[$0]?.p ?? 0 }); w.array(b.map { bigrams[$0]?.bow ?? 0 })
        let t = trigrams.keys.sorted()
        w.array(t); w.array(t.map { trigrams[$0]?.p ?? 0 }); w.array(t.map { trigrams[$0]?.bow ?? 0 })
        let f = fourgrams.keys.sorted { ($0.context, $0.word) < ($1.context, $1.word) }
        w.array(f.map(\.context)); w.array(f.map(\.word)); w.array(f.map { fourgrams[$0] ?? 0 })
        func lists<K: Comparable & BitwiseCopyable>(_ d: [K: [Int32]]) {
            let keys = d.keys.sorted()
            var starts: [Int32] = [0], ids: [Int32] = []
            for k in keys { ids += d[k] ?? []; starts.append(Int32(ids.count)) }
            w.array(keys); w.array(starts); w.array(ids)
        }
        lists(after1); lists(after2); lists(after3)
        var starts: [Int32] = [0], ids: [Int32] = []
        for u in utterances { ids += u.words; starts.append(Int32(ids.count)) }
        w.array(starts); w.array(ids); w.array(utterances.map(\.logp))
        w.u64(w.out.withUnsafeBytes { ModelCache.checksum($0) })
        return w.out
    }

    /// The largest file a text of `textSize` bytes can compile to (its tables are smaller than its text, with the
    /// word list's two arrays besides), so a bigger one is refused unread.
    static func largestCache(textSize: Int, words: Int) -> Int { 4 * textSize + 8 * words + (1 << 20) }

    /// The compiled model in `url`, if it is whole and of this text and these words; a missing file is stale.
    static func readCache(_ url: URL, stamp: [UInt8], text: URL, predictor: WordPredictor) -> Result<PhraseModel, ModelCache.Problem> {
        var st = stat(), textStat = stat()
        guard stat(url.path, &st) == 0 else { return .failure(.stale) }
        guard stat(text.path, &textStat) == 0 else { return .failure(.stale) }
        let largest = largestCache(textSize: Int(textStat.st_size), words: predictor.lexicon.count)
        guard Int(st.st_size) <= largest else {
            return .failure(.damaged(UIMessage("{size} MB, more than the conversational model could make ({largest} MB at most)",
                                               ["size": String(st.st_size / 1_000_000), "largest": String(largest / 1_000_000)])))
        }
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return .failure(.stale) }
        return data.withUnsafeBytes { raw in
            Result { () throws(ModelCache.Problem) in
                try decode(raw, stamp: stamp, words: predictor.lexicon.count, sentenceStart: predictor.ngrams.sentenceStart)
            }
        }
    }

    /// The model in `raw`, checked whole (checksum) and fitting together: every id a word of the `words` listed, the
    /// start or the end, every list's bounds inside its table, so that no lookup can trap on it.
    static func decode(_ raw: UnsafeRawBufferPointer, stamp: [UInt8], words: Int, sentenceStart: Int32) throws(ModelCache.Problem) -> PhraseModel {
        let v = cacheVersion
        guard raw.count >= v.count, raw.prefix(v.count - 1).elementsEqual(v.dropLast()) else {
            throw .damaged(raw.isEmpty ? UIMessage("empty", context: "file") : UIMessage("not a compiled conversational model"))
        }
        guard raw.prefix(v.count).elementsEqual(v) else { throw .stale }
        guard raw.count >= v.count + 16, raw.count % 8 == 0 else { throw .damaged(UIMessage("cut short")) }
        let sum = raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self).littleEndian
        guard ModelCache.checksum(UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - 8)])) == sum else {
            throw .damaged(UIMessage("checksum does not match (cut short or overwritten)"))
        }
        var r = ModelCache.Reader(raw: UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - 8)]), pos: v.count)
        guard try r.array(UInt8.self) == stamp else { throw .stale }
        let head = try r.array(Int64.self), values = try r.array(Float.self)
        guard head.count == 3, values.count == 3, head[2] == Int64(words), head[1] >= 0 else { throw .damaged(UIMessage("tables do not fit the word list")) }
        guard head[0] == Int64(sentenceStart) else { throw .stale }
        var m = PhraseModel(sentenceStart: sentenceStart)
        m.count = Int(head[1])
        (m.floor, m.endUnigram, m.startBackoff) = (values[0], values[1], values[2])
        m.unigram = try r.array(Float.self); m.backoff1 = try r.array(Float.self)
        let bk = try r.array(UInt64.self), bp = try r.array(Float.self), bb = try r.array(Float.self)
        let tk = try r.array(UInt64.self), tp = try r.array(Float.self), tb = try r.array(Float.self)
        let fk = try r.array(UInt64.self), fw = try r.array(Int32.self), fp = try r.array(Float.self)
        func valid(_ id: Int32) -> Bool { id >= -4 && Int(id) < words }
        guard m.unigram.count == words, m.backoff1.count == words, bp.count == bk.count, bb.count == bk.count, tp.count == tk.count,
              tb.count == tk.count, fw.count == fk.count, fp.count == fk.count, fw.allSatisfy(valid)
        else { throw .damaged(UIMessage("tables do not fit together")) }
        func lists<K: Hashable & BitwiseCopyable>(_: K.Type) throws(ModelCache.Problem) -> [K: [Int32]] {
            let keys = try r.array(K.self), starts = try r.array(Int32.self), ids = try r.array(Int32.self)
            guard starts.count == keys.count + 1, starts.first == 0, starts.last.map({ Int($0) == ids.count }) == true,
                  zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }), ids.allSatisfy(valid)
            else { throw .damaged(UIMessage("successor lists do not fit together")) }
            var d: [K: [Int32]] = [:]
            d.reserveCapacity(keys.count)
            for (i, k) in keys.enumerated() { d[k] = Array(ids[Int(starts[i])..<Int(starts[i + 1])]) }
            return d
        }
        m.after1 = try lists(Int32.self)
        m.after2 = try lists(UInt64.self)
        m.after3 = try lists(UInt64.self)
        let us = try r.array(Int32.self), ui = try r.array(Int32.self), up = try r.array(Float.self)
        // Sentences' words are shown, so each must be a listed word.
        guard us.count == up.count + 1, us.first == 0, us.last.map({ Int($0) == ui.count }) == true,
              zip(us, us.dropFirst()).allSatisfy({ $0 <= $1 }), ui.allSatisfy({ $0 >= 0 && Int($0) < words })
        else { throw .damaged(UIMessage("sentences do not fit the word list")) }
        m.utterances = up.indices.map { (Array(ui[Int(us[$0])..<Int(us[$0 + 1])]), up[$0]) }
        m.bigrams.reserveCapacity(bk.count)
        for i in bk.indices { m.bigrams[bk[i]] = (bp[i], bb[i]) }
        m.trigrams.reserveCapacity(tk.count)
        for i in tk.indices { m.trigrams[tk[i]] = (tp[i], tb[i]) }
        m.fourgrams.reserveCapacity(fk.count)
        for i in fk.indices { m.fourgrams[PhraseModel.Key4(context: fk[i], word: fw[i])] = fp[i] }
        m.fourContexts = Set(fk)
        return m
    }
}
