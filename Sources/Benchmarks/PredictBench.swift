#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Prediction

/// `handsfree bench predict`: load time, memory and per-prediction latency of the word predictor.
public struct PredictBench {
    /// Also report the inputs with the slowest median time, to see where the tail comes from.
    public var slowest = 0
    /// Number of suggestions.
    public var n = 4
    /// Number of timed predictions.
    public var count = 20000

    public init() {}

    /// Prints the `limit` inputs with the slowest median time (nanoseconds per call, by input index).
    static func reportSlowest(_ limit: Int, of inputs: [String], times perInput: [[UInt64]], out: BenchReport) {
        let medians = perInput.enumerated().compactMap { k, t -> (Int, UInt64)? in
            t.isEmpty ? nil : (k, t.sorted()[t.count / 2])
        }.sorted { $0.1 > $1.1 }
        for (k, m) in medians.prefix(limit) {
            out(String(format: "  median %.1f µs  %@", Double(m) / 1000, "\"\(inputs[k])\""))
        }
    }

    /// Loads the predictor with `load` (timed, and its memory measured), then times `count` suggestions.
    ///
    /// With `loadCached` (the same lists through the compiled cache file) it is loaded twice more, once to
    /// write the file and once timed reading it, beside the text load; the bench says whether both give the
    /// same suggestions for every input.
    public func run(load: () throws -> WordPredictor, loadCached: (() throws -> WordPredictor)? = nil,
                    attach: ((inout WordPredictor) throws -> Void)? = nil, attachCached: ((inout WordPredictor) throws -> Void)? = nil,
                    out: BenchReport) throws {
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let rssBefore = residentBytes()
        let t0 = DispatchTime.now().uptimeNanoseconds
        var predictor = try load()
        let loadNs = DispatchTime.now().uptimeNanoseconds - t0
        // What initials expansion adds (the conversational model), timed apart: suggest never reads it.
        let a0 = DispatchTime.now().uptimeNanoseconds
        try attach?(&predictor)
        let attachNs = DispatchTime.now().uptimeNanoseconds - a0
        let rssAfter = residentBytes()
        // The conversational model through its compiled file: once to write it, once timed reading it.
        var attachedCached: (WordPredictor, UInt64)?
        if let attachCached, predictor.phraseModel != nil {
            var p = predictor
            try attachCached(&p)
            let c0 = DispatchTime.now().uptimeNanoseconds
            try attachCached(&p)
            attachedCached = (p, DispatchTime.now().uptimeNanoseconds - c0)
        }
        var cached: (WordPredictor, UInt64)?
        if let loadCached {
            _ = try loadCached()
            let c0 = DispatchTime.now().uptimeNanoseconds
            let p = try loadCached()
            cached = (p, DispatchTime.now().uptimeNanoseconds - c0)
        }
        // Inputs: every prefix of every word of a fixed sentence set (deterministic).
        let sentences = [
            "I would like a cup of tea with milk please",
            "Can you open the window in the living room",
            "The doctor said that my breathing is much better today",
            "Please call my daughter and tell her I am fine",
            "What time does the television programme start tonight",
        ]
        var inputs: [String] = []
        for s in sentences {
            var typed = ""
            for w in s.split(separator: " ") {
                for k in 0...w.count { inputs.append(typed + w.prefix(k)) }
                typed += w + " "
            }
        }
        var times: [UInt64] = []
        times.reserveCapacity(count)
        var perInput = [[UInt64]](repeating: [], count: inputs.count)
        var sink = 0
        for i in 0..<count {
            let input = inputs[i % inputs.count]
            let a = DispatchTime.now().uptimeNanoseconds
            let s = predictor.suggest(input, limit: n)
            let b = DispatchTime.now().uptimeNanoseconds
            sink &+= s.count
            times.append(b - a)
            if slowest > 0 { perInput[i % inputs.count].append(b - a) }
        }
        if slowest > 0 { Self.reportSlowest(slowest, of: inputs, times: perInput, out: out) }
        times.sort()
        func pct(_ p: Double) -> Double { Double(times[min(times.count - 1, Int(Double(times.count) * p))]) / 1000 }
        let (bi, tri) = predictor.ngramCounts
        out("words: \(predictor.vocabularySize)  bigrams: \(bi)  trigrams: \(tri)")
        out(String(format: "load: %.1f ms from the text lists", Double(loadNs) / 1e6))
        if let (p, ns) = cached {
            let same = inputs.allSatisfy { p.suggest($0, limit: n) == predictor.suggest($0, limit: n) }
            out(String(format: "load: %.1f ms from the compiled cache (same suggestions for all %d inputs: %@)",
                       Double(ns) / 1e6, inputs.count, same ? "yes" : "NO"))
        }
        if attach != nil, let m = predictor.phraseModel {
            out(String(format: "load: %.1f ms more for the conversational model (%d n-grams; initials expansion only)", Double(attachNs) / 1e6, m.count))
        }
        if let (p, ns) = attachedCached {
            let initials = Set(inputs.map { String($0.split(separator: " ").compactMap { $0.lowercased().first }) }).filter { !$0.isEmpty }
            let same = initials.allSatisfy { p.expand($0, limit: 3) == predictor.expand($0, limit: 3) }
            out(String(format: "load: %.1f ms more for the conversational model from its compiled cache (same expansions: %@)",
                       Double(ns) / 1e6, same ? "yes" : "NO"))
        }
        out(String(format: "memory: RSS %.1f MiB (+%.1f MiB for the model)", Double(rssAfter) / 1_048_576, Double(rssAfter - rssBefore) / 1_048_576))
        out(String(format: "suggest (n=%d, %d calls): p50 %.1f µs  p99 %.1f µs  max %.1f µs", n, count, pct(0.5), pct(0.99), Double(times.last ?? 0) / 1000))
        out("kept rankings answer \(inputs.filter { predictor.readsKeptRankings($0, limit: n) }.count) of \(inputs.count) inputs")
        // Initials expansion of 8 words, beside: the initials of every 8 words in a row of the sentences, with no
        // history and with a full one (its capacity of sentences, none matching, each looked at).
        var patterns: [String] = []
        for s in sentences {
            let w = s.split(separator: " ")
            for i in 0...max(0, w.count - 8) { patterns.append(String(w[i..<min(w.count, i + 8)].compactMap { $0.lowercased().first })) }
        }
        var full = SentenceHistory()
        for i in 0..<full.capacity { full.learn("sentence number \(i) of the user's own history.") }
        for (name, h) in [("no history", SentenceHistory()), ("\(full.count) sentences of history", full)] {
            var ex: [Double] = []
            for i in 0..<max(50, count / 100) {
                let a = DispatchTime.now().uptimeNanoseconds
                sink &+= predictor.expand(patterns[i % patterns.count], history: h, limit: 3).count
                ex.append(Double(DispatchTime.now().uptimeNanoseconds - a) / 1e6)
            }
            ex.sort()
            out(String(format: "expand (8 initials, 3 phrases, %@, %d calls): p50 %.2f ms  p99 %.2f ms  max %.2f ms", name, ex.count,
                       ex[ex.count / 2], ex[min(ex.count - 1, Int(Double(ex.count) * 0.99))], ex.last ?? 0))
        }
        if sink < 0 { out(String(sink)) }
    }

    /// Resident set size from /proc/self/statm (Linux), or 0.
    private func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let f = s.split(separator: " ")
        guard f.count > 1, let pages = Int(f[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

