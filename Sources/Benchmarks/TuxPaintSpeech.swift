import Foundation
import Speech

/// Real recorded speech with its transcript: the spoken descriptions of Tux Paint's stamps, from Debian's
/// `tuxpaint-stamps-default` (GPL-2, Bill Kendrick and the Tux Paint contributors).
///
/// Each stamp `NAME` has `NAME.txt` (its English description on the first line, then lines such as
/// `es.utf8=Una araña.`) and, for some languages, `NAME_desc_LL.ogg`: that description read aloud by a volunteer
/// (`NAME_desc.ogg` for English). Nobody working on this project made them. A text that was edited after its
/// recording no longer matches it; such pairs are left out when the text has more words than can be said in the
/// recording's time, and texts with digits or symbols are left out because how the reader said "(0,01 $)" is not
/// written anywhere.
public enum TuxPaintSpeech {
    /// Where the package installs its stamps.
    public static let root = "/usr/share/tuxpaint/stamps"
    /// What installs them, for a bench or test that finds them absent.
    public static let install = "apt-get install tuxpaint-stamps-default (Debian; scripts/install-deps.sh)"
    /// The shuffle's seed, so that a sample of N is the same N on every machine.
    public static let seed: UInt64 = 45
    /// More words a second than anyone reads a description at: the text is not what the recording says.
    public static let maxWordsPerSecond = 5.0

    /// One description and where its recording is.
    public struct Recording: Sendable, Equatable {
        /// The `.ogg` file.
        public var path: String
        /// What the recording says.
        public var text: String
    }

    /// One description's recording, read.
    public struct Utterance: Sendable {
        public var recording: Recording
        /// 16 kHz mono.
        public var samples: [Int16]
        public var seconds: Double { Double(samples.count) / Double(SpeechAudio.sampleRate) }
    }

    /// Whether the package's stamps are installed.
    public static func installed(root: String = root) -> Bool {
        FileManager.default.fileExists(atPath: root + "/animals")
    }

    /// The recordings in `language` ("en", "es", "fr", …) whose stamp has a description in it, sorted by path;
    /// texts with digits or symbols (such as "$" or "€") are left out.
    public static func recordings(language: String, root: String = root) throws -> [Recording] {
        let suffix = language == "en" ? "_desc.ogg" : "_desc_\(language).ogg"
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw BenchError("\(root): no such folder: \(install)")
        }
        var found: [Recording] = []
        for case let relative as String in walker where relative.hasSuffix(suffix) {
            let ogg = root + "/" + relative
            let txt = String(ogg.dropLast(suffix.count)) + ".txt"
            guard let body = try? String(contentsOfFile: txt, encoding: .utf8),
                  let text = description(body, language: language) else { continue }
            guard !text.contains(where: { $0.isNumber || $0.isCurrencySymbol || $0.isMathSymbol }) else { continue }
            found.append(Recording(path: ogg, text: text))
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The description in `language` in the text of a stamp's `.txt` (English: its first line), nil if none.
    public static func description(_ body: String, language: String) -> String? {
        let lines = body.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        if language == "en" { return lines.first.flatMap { $0.isEmpty ? nil : $0 } }
        let key = language + ".utf8="
        guard let line = lines.first(where: { $0.hasPrefix(key) }) else { return nil }
        let text = line.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// `all` in a fixed shuffled order (SplitMix64 from `seed`; the same on every machine).
    public static func shuffled(_ all: [Recording], seed: UInt64 = seed) -> [Recording] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var a = all
        guard a.count > 1 else { return a }
        for i in stride(from: a.count - 1, to: 0, by: -1) {
            a.swapAt(i, Int(next() % UInt64(i + 1)))
        }
        return a
    }

    /// The first `limit` recordings of the fixed shuffle (all when nil) whose text fits their length, read;
    /// `skipped` counts those whose text does not (edited after the recording).
    public static func sample(language: String, limit: Int?, root: String = root) throws -> (utterances: [Utterance], skipped: Int) {
        var out: [Utterance] = [], skipped = 0
        for r in shuffled(try recordings(language: language, root: root)) {
            if let limit, out.count >= limit { break }
            let u = Utterance(recording: r, samples: try read(r.path))
            let words = r.text.split(whereSeparator: { !($0.isLetter || $0 == "'" || $0 == "’") }).count
            if Double(words) > maxWordsPerSecond * u.seconds { skipped += 1; continue }
            out.append(u)
        }
        return (out, skipped)
    }

    /// An Ogg Vorbis recording as 16 kHz mono samples (Debian's `sox` decodes it).
    public static func read(_ path: String) throws -> [Int16] {
        let (data, status) = try toolOutput("sox", [path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-"]) {
            BenchError("cannot run sox for \(path): \($0) (scripts/install-deps.sh installs it)")
        }
        guard status == 0, data.count >= 2 else {
            throw BenchError("\(path): sox could not decode it (status \(status))")
        }
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self)) }
        }
    }
}
