import Foundation
import Prediction

/// `handsfree bench language`: each language's prediction beside English's in one run: load time from the text
/// lists and from the compiled file, suggestion latency, and keystroke savings on a text in the language that
/// its lists were not made from.
public struct LanguageBench {
    /// One language to measure, as its pack gives it.
    public struct Language {
        public var code: String
        public var name: String
        /// Loads the lists from their text (`cache` nil) or through the compiled file `cache`.
        public var load: (_ cache: URL?) throws -> WordPredictor
        /// The test text and what it is, nil when it is not installed (then `missing` says why).
        public var text: String?
        public var textName: String
        public var missing: String?

        public init(code: String, name: String, load: @escaping (URL?) throws -> WordPredictor, text: String?, textName: String,
                    missing: String?) {
            self.code = code; self.name = name; self.load = load; self.text = text; self.textName = textName; self.missing = missing
        }
    }

    /// What was measured for one language.
    public struct Result: Equatable, Sendable {
        public var code: String
        public var words: Int
        public var bigrams: Int
        public var trigrams: Int
        public var loadTextMs: Double
        public var loadCompiledMs: Double
        public var p50: Double
        public var p99: Double
        /// Keystroke savings at `n` suggestions, without and with learning as the text is typed; nil without a text.
        public var ksr: Double?
        public var ksrLearning: Double?
    }

    /// Number of suggestions (the issue's figure is at 3).
    public var n = 3
    /// Timed suggestions per language.
    public var count = 20000
    /// Also report each language's inputs with the slowest median time, to see where its tail comes from.
    public var slowest = 0

    public init() {}

    public static let header = "language        words   bigrams  trigrams   load text  compiled    p50 µs   p99 µs   KSR  learning  text"

    /// Measures each language in turn, reporting its line as soon as it is measured.
    public func run(_ languages: [Language], out: BenchReport) throws -> [Result] {
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; n = \(n)")
        out(Self.header)
        var results: [Result] = []
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-bench-language-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        for lang in languages {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let fromText = try lang.load(nil)
            let loadText = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            let cache = dir.appendingPathComponent("words-\(lang.code).bin")
            _ = try lang.load(cache)
            let c0 = DispatchTime.now().uptimeNanoseconds
            let predictor = try lang.load(cache)
            let loadCompiled = Double(DispatchTime.now().uptimeNanoseconds - c0) / 1e6
            let inputs = Self.inputs(from: lang.text ?? "")
            var times: [UInt64] = []
            times.reserveCapacity(count)
            var perInput = [[UInt64]](repeating: [], count: slowest > 0 ? inputs.count : 0)
            var sink = 0
            for i in 0..<count where !inputs.isEmpty {
                let a = DispatchTime.now().uptimeNanoseconds
                sink &+= predictor.suggest(inputs[i % inputs.count], limit: n).count
                let t = DispatchTime.now().uptimeNanoseconds - a
                times.append(t)
                if slowest > 0 { perInput[i % inputs.count].append(t) }
            }
            times.sort()
            func pct(_ p: Double) -> Double { times.isEmpty ? 0 : Double(times[min(times.count - 1, Int(Double(times.count) * p))]) / 1000 }
            var ksr: Double?, learning: Double?
            if let text = lang.text {
                var p = fromText
                p.hideRejected = true
                ksr = KeystrokeSimulator.simulate(text, predictor: p, suggestions: n).rate
                learning = KeystrokeSimulator.simulate(text, predictor: p, suggestions: n, learn: true).rate
            }
            let (bi, tri) = predictor.ngramCounts
            let r = Result(code: lang.code, words: predictor.vocabularySize, bigrams: bi, trigrams: tri, loadTextMs: loadText,
                           loadCompiledMs: loadCompiled, p50: pct(0.5), p99: pct(0.99), ksr: ksr, ksrLearning: learning)
            results.append(r)
            out(Self.line(r, name: lang.name, text: lang.text == nil ? (lang.missing ?? "no test text") : lang.textName))
            if slowest > 0 { PredictBench.reportSlowest(slowest, of: inputs, times: perInput, out: out) }
            if sink < 0 { out(String(sink)) }
        }
        return results
    }

    /// One language's line of the table.
    public static func line(_ r: Result, name: String, text: String) -> String {
        func pc(_ v: Double?) -> String { v.map { String(format: "%.1f%%", $0) } ?? "—" }
        let label = "\(r.code) \(name)".padding(toLength: 14, withPad: " ", startingAt: 0)
        return String(format: "%@ %7d %9d %9d %8.0f ms %6.0f ms %8.1f %8.1f %6@ %8@  %@", label, r.words, r.bigrams, r.trigrams,
                      r.loadTextMs, r.loadCompiledMs, r.p50, r.p99, pc(r.ksr), pc(r.ksrLearning), text)
    }

    /// Every prefix of every word of the text's first sentences of six to fifteen words (as `bench predict` does
    /// with its English sentences), so each language is timed on its own words.
    public static func inputs(from text: String, sentences: Int = 8) -> [String] {
        var picked: [[Substring]] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "." || $0 == "?" || $0 == "!" }) {
            let words = line.split(separator: " ").filter { $0.allSatisfy { Tokens.isWordCharacter($0) } }
            guard words.count >= 6, words.count <= 15, words.count == line.split(separator: " ").count else { continue }
            picked.append(words)
            if picked.count == sentences { break }
        }
        var out: [String] = []
        for words in picked {
            var typed = ""
            for w in words {
                for k in 0...w.count { out.append(typed + w.prefix(k)) }
                typed += w + " "
            }
        }
        return out
    }
}
