#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Localization

/// The shipped word lists as built in memory (lexicon with its folded keys, lowercase and display forms, n-grams,
/// noun and held-word sets), saved in one binary
/// file so a start reads them in one go instead of parsing 17 MB of text and sorting it again.
///
/// The file starts with a version and a stamp of the text files it was built from (name, size, modification
/// time of each), and ends with a checksum of the rest. Names, not paths: the installer builds the file in a
/// staging folder and moves it into place with the lists (`mv` keeps their times), so the stamp holds there.
/// Another version's file, or a stamp that differs (the lists changed), is rebuilt without a word. A file that
/// is cut short or does not add up (checksum, sizes) is damaged: the caller says so, naming it, and reads the
/// text instead.
///
/// Bump `version` whenever `Lexicon` or `NGrams` build their tables differently, or a ranking changes (the file keeps the
/// busiest contexts' rankings, `BestLists`), so an old file is not trusted.
enum ModelCache {
    /// "HFWORDS" and a version character: a file with another character is another version's, not damage.
    static let version: [UInt8] = Array("HFWORDS8".utf8)

    /// What the lists were built from: each file's name, size and modification time (nanoseconds), and the
    /// build parameters. Nil when a file cannot be looked at (loading the text will say why).
    static func stamp(of files: [URL?]) -> [UInt8]? {
        var s = "scan \(Lexicon.scanLimit) top \(Lexicon.topCount)\n"
        for file in files {
            guard let file else { s += "-\n"; continue }
            var st = stat()
            guard stat(file.path, &st) == 0 else { return nil }
            s += "\(file.lastPathComponent)\t\(st.st_size)\t\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\n"
        }
        return Array(s.utf8)
    }

    /// Why a cache file was not used.
    enum Problem: Error, Equatable {
        /// Built from other versions of the lists (or by another version of the program): rebuilt silently.
        case stale
        /// Cut short or not adding up: said to the user (in their language), then rebuilt.
        case damaged(UIMessage)
    }

    struct Model {
        var lexicon: Lexicon
        var ngrams: NGrams
        var possessable: IDSet?
        var held: IDSet
        /// The busiest contexts' rankings (`BestLists`); none for lists built before them.
        var bestLists = BestLists()
    }

    // MARK: Writing

    static func encode(_ m: Model, stamp: [UInt8]) -> [UInt8] {
        var w = Writer()
        w.out.reserveCapacity(m.ngrams.ids.count * 16 + m.lexicon.bytes.count + m.lexicon.count * 8 + 1 << 20)
        w.out += version
        w.array(stamp)
        w.array(m.lexicon.bytes)
        w.array(m.lexicon.starts)
        w.array(m.lexicon.logProb)
        w.array(m.lexicon.lower); w.array(m.lexicon.lowerStarts)
        w.array(m.lexicon.displayIDs); w.array(m.lexicon.displayBytes); w.array(m.lexicon.displayStarts)
        w.table(m.lexicon.topByPrefix)
        w.table(m.lexicon.accentLists)
        w.table(m.lexicon.accentTop)
        let g = m.ngrams.parts
        w.array([Int64(g.sentenceStart), Int64(g.bigramCount), Int64(g.trigramCount)])
        w.array(g.ids); w.array(g.logp); w.array(g.byID); w.array(g.rankOf)
        w.array(g.bigramKeys); w.array(g.bigramLo); w.array(g.bigramHi)
        w.array(g.trigramKeys); w.array(g.trigramLo); w.array(g.trigramHi)
        w.array(g.backoff1)
        w.array(g.backoff2Keys); w.array(g.backoff2Values)
        w.array(g.end1)
        w.array(g.end2Keys); w.array(g.end2Values)
        w.array([UInt8(m.possessable == nil ? 0 : 1)])
        w.array(m.possessable?.words ?? [])
        w.array(m.held.words)
        w.array(m.bestLists.settings.values); w.array(m.bestLists.keys); w.array(m.bestLists.words)
        w.u64(w.out.withUnsafeBytes { checksum($0) })
        return w.out
    }

    /// Arrays back to back, each with its count and aligned to 8 bytes (also `PhraseModel`'s cache).
    struct Writer {
        var out: [UInt8] = []

        mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }

        /// A table of ids by bytes (busy prefixes, accent keys), flattened: keys and ids back to back, with where each
        /// one starts, in key order.
        mutating func table(_ t: [[UInt8]: [Int32]]) {
            var keyBytes: [UInt8] = [], keyStarts: [Int32] = [0], ids: [Int32] = [], idStarts: [Int32] = [0]
            for key in t.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                keyBytes += key; keyStarts.append(Int32(keyBytes.count))
                ids += t[key] ?? []; idStarts.append(Int32(ids.count))
            }
            array(keyBytes); array(keyStarts); array(ids); array(idStarts)
        }

        /// The count, the elements, then padding to 8 bytes so the next array starts aligned.
        mutating func array<T: BitwiseCopyable>(_ a: [T]) {
            u64(UInt64(a.count))
            a.withUnsafeBytes { out += $0 }
            while out.count % 8 != 0 { out.append(0) }
        }
    }

    // MARK: Reading

    /// The largest file that lists as large as `files` can build (a few times their text: ids, places and
    /// probabilities of each word and n-gram), so a bigger one is damaged and refused before it is read.
    static func largestFile(builtFrom files: [URL?]) -> Int {
        var text = 0
        for case let file? in files {
            var st = stat()
            if stat(file.path, &st) == 0 { text += Int(st.st_size) }
        }
        return 16 * text + (1 << 20)
    }

    /// Checks a file's first bytes (`head`, at least `version.count` of them when the file has them) and its
    /// size before anything else is read: another version's file is replaced without a word, anything else
    /// that is not one is damage.
    ///
    /// With `stamp`, a head long enough to hold the file's stamp (`version.count + 8 + stamp.count` bytes) is also
    /// checked against it before the size: a file built from other lists (with the trigram model, say, which has
    /// since been removed) is stale, not damage, however large those lists made it.
    static func check(head: some Collection<UInt8>, size: Int, largest: Int, stamp: [UInt8]? = nil) throws(Problem) {
        let family = version.dropLast()
        guard size >= version.count, head.prefix(family.count).elementsEqual(family) else {
            throw .damaged(size == 0 ? UIMessage("empty", context: "file") : UIMessage("not a compiled word list file"))
        }
        guard head.prefix(version.count).elementsEqual(version) else { throw .stale }
        let bytes = Array(head)
        if stamp != nil, bytes.count >= version.count + 8 {
            let count = bytes[version.count..<(version.count + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let start = version.count + 8
            // Another stamp (it starts as every stamp does) is other lists; anything else is left to the checks below.
            if count <= UInt64(bytes.count - start), bytes[start..<(start + Int(count))] != stamp?[...],
               bytes[start...].starts(with: "scan ".utf8) { throw .stale }
        }
        guard size <= largest else {
            throw .damaged(UIMessage("{size} MB, more than the word lists could make ({largest} MB at most)",
                                     ["size": String(size / 1_000_000), "largest": String(largest / 1_000_000)]))
        }
    }

    /// The model in `raw`, if it was built from the files `stamp` describes and is whole.
    static func decode(_ raw: UnsafeRawBufferPointer, stamp: [UInt8]) throws(Problem) -> Model {
        try check(head: raw.prefix(version.count), size: raw.count, largest: .max)
        guard raw.count >= version.count + 16, raw.count % 8 == 0 else { throw .damaged(UIMessage("cut short")) }
        let sum = raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self).littleEndian
        guard checksum(UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - 8)])) == sum else {
            throw .damaged(UIMessage("checksum does not match (cut short or overwritten)"))
        }
        var r = Reader(raw: raw, pos: version.count)
        guard try r.array(UInt8.self) == stamp else { throw .stale }
        let bytes = try r.array(UInt8.self), starts = try r.array(Int32.self), logProb = try r.array(Float.self)
        let lower = try r.array(UInt8.self), lowerStarts = try r.array(Int32.self)
        let displayIDs = try r.array(Int32.self), displayBytes = try r.array(UInt8.self), displayStarts = try r.array(Int32.self)
        let n = logProb.count
        let top = try r.table(ids: n), accentLists = try r.table(ids: n), accentTop = try r.table(ids: n)
        // The checksum is one anyone can compute, so a file that passes it may still hold any numbers: each
        // table must point inside the ones it indexes, or the first suggestion would trap on it.
        guard starts.count == n + 1, starts.first == 0, starts.last.map({ Int($0) == bytes.count }) == true,
              zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }),
              // A key's words are looked up by binary search: in order, or a lookup would miss some.
              accentLists.values.allSatisfy({ zip($0, $0.dropFirst()).allSatisfy { $0 < $1 } }),
              lowerStarts.isEmpty ? lower.isEmpty : (lowerStarts.count == n + 1 && lowerStarts.first == 0
                  && lowerStarts.last.map({ Int($0) == lower.count }) == true
                  && zip(lowerStarts, lowerStarts.dropFirst()).allSatisfy({ $0 <= $1 })),
              displayStarts.count == displayIDs.count + 1, displayStarts.first == 0,
              displayStarts.last.map({ Int($0) == displayBytes.count }) == true,
              zip(displayStarts, displayStarts.dropFirst()).allSatisfy({ $0 <= $1 }),
              zip(displayIDs, displayIDs.dropFirst()).allSatisfy({ $0 < $1 }),
              displayIDs.allSatisfy({ $0 >= 0 && Int($0) < n }) else { throw .damaged(UIMessage("word list tables do not fit together")) }
        let lexicon = Lexicon(bytes: bytes, starts: starts, lower: lower, lowerStarts: lowerStarts, displayIDs: displayIDs,
                              displayBytes: displayBytes, displayStarts: displayStarts, logProb: logProb, topByPrefix: top,
                              accentLists: accentLists, accentTop: accentTop)

        let header = try r.array(Int64.self)
        guard header.count == 3, header[0] == Int64(n) || header[0] == -1, header[1] >= 0, header[2] >= 0
        else { throw .damaged(UIMessage("n-gram tables do not fit together")) }
        var g = NGrams.Parts(sentenceStart: Int32(header[0]))
        g.bigramCount = Int(header[1]); g.trigramCount = Int(header[2])
        g.ids = try r.array(Int32.self); g.logp = try r.array(Float.self); g.byID = try r.array(Int32.self)
        g.rankOf = try r.array(Int32.self)
        g.bigramKeys = try r.array(Int32.self); g.bigramLo = try r.array(Int64.self); g.bigramHi = try r.array(Int64.self)
        g.trigramKeys = try r.array(UInt64.self); g.trigramLo = try r.array(Int64.self); g.trigramHi = try r.array(Int64.self)
        g.backoff1 = try r.array(Float.self)
        g.backoff2Keys = try r.array(UInt64.self); g.backoff2Values = try r.array(Float.self)
        g.end1 = try r.array(Float.self)
        g.end2Keys = try r.array(UInt64.self); g.end2Values = try r.array(Float.self)
        // The checksum is one anyone can compute: the tables are checked to fit together (`NGrams.init?`).
        guard let ngrams = NGrams(g) else { throw .damaged(UIMessage("n-gram tables do not fit together")) }
        let hasPossessable = try r.array(UInt8.self)
        let possessable = try r.array(UInt64.self), held = try r.array(UInt64.self)
        guard hasPossessable.count == 1 else { throw .damaged(UIMessage("word sets do not fit together")) }
        let bestSettings = try r.array(Double.self), bestKeys = try r.array(UInt64.self), bestWords = try r.array(Int32.self)
        guard let best = BestLists(settings: bestSettings, keys: bestKeys, words: bestWords, lexiconSize: n) else {
            throw .damaged(UIMessage("kept rankings do not fit together"))
        }
        return Model(lexicon: lexicon, ngrams: ngrams, possessable: hasPossessable[0] == 1 ? IDSet(words: possessable) : nil,
                     held: IDSet(words: held), bestLists: best)
    }

    /// Reads what `Writer` wrote, refusing counts that run past the end.
    struct Reader {
        let raw: UnsafeRawBufferPointer
        var pos: Int

        /// A table `Writer.table` wrote, whose ids must all be below `n`.
        mutating func table(ids n: Int) throws(Problem) -> [[UInt8]: [Int32]] {
            let keyBytes = try array(UInt8.self), keyStarts = try array(Int32.self)
            let ids = try array(Int32.self), idStarts = try array(Int32.self)
            guard keyStarts.count == idStarts.count, keyStarts.first == 0, idStarts.first == 0,
                  keyStarts.last.map({ Int($0) == keyBytes.count }) == true, idStarts.last.map({ Int($0) == ids.count }) == true,
                  ids.allSatisfy({ $0 >= 0 && Int($0) < n }) else { throw .damaged(UIMessage("word list tables do not fit together")) }
            var t: [[UInt8]: [Int32]] = [:]
            t.reserveCapacity(keyStarts.count - 1)
            for i in 0..<(keyStarts.count - 1) {
                let (a, b) = (Int(keyStarts[i]), Int(keyStarts[i + 1])), (c, d) = (Int(idStarts[i]), Int(idStarts[i + 1]))
                guard a <= b, c <= d else { throw .damaged(UIMessage("word list tables do not fit together")) }
                t[Array(keyBytes[a..<b])] = Array(ids[c..<d])
            }
            return t
        }

        mutating func array<T: BitwiseCopyable>(_: T.Type) throws(Problem) -> [T] {
            guard pos + 8 <= raw.count else { throw .damaged(UIMessage("cut short")) }
            let count = raw.loadUnaligned(fromByteOffset: pos, as: UInt64.self).littleEndian
            pos += 8
            let size = MemoryLayout<T>.stride
            guard count <= UInt64(raw.count - pos) / UInt64(size) else { throw .damaged(UIMessage("cut short")) }
            let n = Int(count)
            let a = [T](unsafeUninitializedCapacity: n) { buf, done in
                UnsafeMutableRawBufferPointer(buf).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[pos..<(pos + n * size)]))
                done = n
            }
            pos += n * size
            pos = (pos + 7) & ~7
            return a
        }
    }

    /// A 64-bit checksum over 8 bytes at a time (FNV-style multiply), cheap enough for 20 MB at every start.
    static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var i = 0
        while i + 8 <= raw.count { h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x0000_0100_0000_01b3; h ^= h >> 29; i += 8 }
        while i < raw.count { h = (h ^ UInt64(raw[i])) &* 0x0000_0100_0000_01b3; h ^= h >> 29; i += 1 }
        return h
    }
}
