import Foundation
import Prediction

/// `handsfree bench expand`: how often initials expansion offers the intended phrase among its first few, on a
/// phrase set, with no history and with a history learned from a separate text (never the phrase typed).
public struct ExpandBench {
    /// One phrase to expand: its text and what the conversation partner said before it (may be empty).
    public struct Item: Sendable, Equatable {
        public var phrase: String
        public var partner: String
        public init(phrase: String, partner: String = "") { self.phrase = phrase; self.partner = partner }
    }

    public var items: [Item]
    /// Sentences the user said before (a separate part of the text); the phrase being expanded is left out.
    public var history: [String]
    /// Phrases offered; a hit is the intended one among the first `top`.
    public var top = 3
    /// Only phrases of this many words count.
    public var words: ClosedRange<Int> = 3...8
    public var settings = WordPredictor.PhraseSettings()
    /// The runs with a history also teach the predictor the history's words, pairs and phrases, as the shell learns
    /// everything the user commits; sentences equal to any phrase of the set are left out, so no phrase is ever
    /// learned before it is expanded.
    public var learnHistory = true
    /// Share of the set's distinct phrases that the "said before" run puts in the user's history (once each, with
    /// the rest of the history), as an AAC user says the same sentences again; 0 leaves that run out.
    public var repeatShare = 0.5
    /// Print why each phrase missed with no history was missed (a word unknown, not tried, dropped from the
    /// beam, or outscored), and this many of them one by one.
    public var explain = 0
    /// The runs to make, by `Run` name; nil: all (a run needing what the set lacks, such as partners' turns, is left
    /// out anyway).
    public var runs: Set<Run>?

    /// The runs `run` makes, as `bench expand --runs` names them.
    public enum Run: String, CaseIterable, Sendable {
        case none, partner, spelled, history, historyPartner = "history-partner", earlier, saidBefore = "said-before"
    }

    func wants(_ r: Run) -> Bool { runs?.contains(r) ?? true }

    public init(items: [Item], history: [String]) { self.items = items; self.history = history }

    /// Hits among the phrases of the right length.
    public struct Result: Sendable, Equatable {
        public var phrases = 0
        public var hits = 0
        /// Hits at the first place.
        public var first = 0
        public var rate: Double { phrases > 0 ? Double(hits) / Double(phrases) : 0 }
        public var p50Ms = 0.0, p99Ms = 0.0
    }

    /// The initials of a phrase: the first letter of each word; with `spelling`, its longest word spelled out
    /// in full where it stands ("iwlaco tea p"), as a user does where initials are ambiguous.
    public static func initials(_ phrase: String, spelling: Bool = false) -> String {
        let words = Tokens.words(phrase).map { $0.word.lowercased() }
        guard spelling, let long = words.indices.max(by: { words[$0].count < words[$1].count }), long > 0 else {
            return String(words.compactMap(\.first))
        }
        let after = String(words[(long + 1)...].compactMap(\.first))
        return String(words[..<long].compactMap(\.first)) + " " + words[long] + (after.isEmpty ? "" : " " + after)
    }

    /// Why the phrases missed with no history were missed: counts of `WordPredictor.Miss`, and the first
    /// `explain` misses one by one.
    func explain(_ predictor: WordPredictor, out: BenchReport) {
        var counts: [WordPredictor.Miss: Int] = [:]
        var shown = 0
        // Where the missed phrase stands among the first 20 the search offers: how much a better ranking of what the
        // search already finds could win.
        let places = [(top + 1)...5, 6...10, 11...20]
        var ranked = [Int](repeating: 0, count: places.count)
        for item in items {
            let want = Self.key(item.phrase)
            guard words.contains(want.count) else { continue }
            let initials = Self.initials(item.phrase)
            let offered20 = predictor.modelExpansions(initials, limit: max(20, top), settings: settings)
            let offered = Array(offered20.prefix(top))
            if offered.contains(where: { Self.key($0.phrase) == want }) { continue }
            if let i = offered20.firstIndex(where: { Self.key($0.phrase) == want }), let p = places.firstIndex(where: { $0.contains(i + 1) }) {
                ranked[p] += 1
            }
            let miss: WordPredictor.Miss
            var score = -Double.infinity
            if let d = predictor.phraseDiagnosis(want, settings: settings) {
                score = d.score
                // A phrase the model itself ranks below the third offered is the model's miss, whatever the search did.
                if offered.count == top, d.score <= offered[top - 1].logp { miss = .outscored } else { miss = d.branched ? .pruned : .notBranched }
            } else {
                miss = .unknownWord
            }
            counts[miss, default: 0] += 1
            if shown < explain {
                shown += 1
                out(String(format: "  miss (%@): %@ [%@] %.1f; offered: ", miss.rawValue, want.joined(separator: " "), initials, score)
                    + offered.map { String(format: "%@ %.1f", $0.phrase, $0.logp) }.joined(separator: " | "))
            }
        }
        for m in WordPredictor.Miss.allCases { out("  missed, \(m.rawValue): \(counts[m] ?? 0)") }
        out("  missed phrases among the first 20 offered, at places " + zip(places, ranked).map { "\($0.lowerBound)-\($0.upperBound): \($1)" }.joined(separator: ", ")
            + "; not among them: \(counts.values.reduce(0, +) - ranked.reduce(0, +))")
    }

    /// The history run with natural repetition: the phrases are expanded in the order of the text, and each, once
    /// expanded, joins the history (and is learned) as the shell learns what the user says; a phrase the text
    /// repeats is then in the history when it comes again. Nothing is added that the text does not say earlier.
    func runInOrder(_ predictor: WordPredictor, history: SentenceHistory, out: BenchReport) -> Result {
        var taught = predictor
        var h = history
        var r = Result(), times: [Double] = []
        var repeated = 0, repeatedHits = 0
        var said = Set<[String]>()
        for item in items {
            let want = Self.key(item.phrase)
            if words.contains(want.count) {
                let again = said.contains(want)
                var h1 = h
                if !again { h1.forget(sentence: item.phrase) }
                let t0 = DispatchTime.now().uptimeNanoseconds
                let offered = taught.expand(Self.initials(item.phrase), history: h1, limit: top, settings: settings)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                r.phrases += 1
                if again { repeated += 1 }
                if let i = offered.firstIndex(where: { Self.key($0) == want }) {
                    r.hits += 1
                    if i == 0 { r.first += 1 }
                    if again { repeatedHits += 1 }
                }
            }
            said.insert(want)
            h.learn(item.phrase)
            taught.learn(item.phrase)
        }
        Self.percentiles(&r, times)
        out(String(format: "with history, earlier phrases of the text (each phrase joins the history once expanded; %d of %d were said earlier in the text, %d of those offered): intended phrase among the first %d for %d of %d (%.1f%%), first %.1f%%; expansion p50 %.2f ms, p99 %.2f ms",
                   repeated, r.phrases, repeatedHits, top, r.hits, r.phrases, r.rate * 100,
                   r.phrases > 0 ? Double(r.first) / Double(r.phrases) * 100 : 0, r.p50Ms, r.p99Ms))
        return r
    }

    /// The history run where a share (`repeatShare`) of the distinct phrases were said before: those are in the
    /// history once each (and learned), the others never. Prints the share's figure and the rate among the phrases
    /// said before and among the others, so any other share can be worked out (share × the first + the rest ×
    /// the second).
    func runSaidBefore(_ predictor: WordPredictor, history: SentenceHistory, out: BenchReport) -> [String: Result] {
        var distinct: [[String]] = []
        var seen = Set<[String]>()
        for item in items {
            let k = Self.key(item.phrase)
            if words.contains(k.count), seen.insert(k).inserted { distinct.append(k) }
        }
        // Every phrase whose place among the distinct ones crosses a multiple of 1/share: exactly the share, spread
        // evenly through the text.
        var before = Set<[String]>()
        for (i, k) in distinct.enumerated() where Int(Double(i + 1) * repeatShare) > Int(Double(i) * repeatShare) { before.insert(k) }
        var h = history
        var taught = predictor
        var texts: [[String]: String] = [:]
        for item in items { texts[Self.key(item.phrase)] = texts[Self.key(item.phrase)] ?? item.phrase }
        for k in distinct where before.contains(k) {
            if let t = texts[k] { h.learn(t); taught.learn(t) }
        }
        var all = Result(), old = Result(), new = Result(), times: [Double] = []
        for item in items {
            let want = Self.key(item.phrase)
            guard words.contains(want.count) else { continue }
            var h1 = h
            let said = before.contains(want)
            if !said { h1.forget(sentence: item.phrase) }
            let t0 = DispatchTime.now().uptimeNanoseconds
            let offered = taught.expand(Self.initials(item.phrase), history: h1, limit: top, settings: settings)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            let i = offered.firstIndex(where: { Self.key($0) == want })
            for k in said ? [0, 1] : [0, 2] {
                if k == 0 { all.phrases += 1 } else if k == 1 { old.phrases += 1 } else { new.phrases += 1 }
                guard let i else { continue }
                if k == 0 { all.hits += 1; if i == 0 { all.first += 1 } }
                if k == 1 { old.hits += 1; if i == 0 { old.first += 1 } }
                if k == 2 { new.hits += 1; if i == 0 { new.first += 1 } }
            }
        }
        Self.percentiles(&all, times)
        out(String(format: "with history, %.0f%% of the distinct phrases said once before (%d of %d): intended phrase among the first %d for %d of %d (%.1f%%), first %.1f%%; said before %.1f%% (%d of %d), not said before %.1f%% (%d of %d); expansion p50 %.2f ms, p99 %.2f ms",
                   repeatShare * 100, before.count, distinct.count, top, all.hits, all.phrases, all.rate * 100,
                   all.phrases > 0 ? Double(all.first) / Double(all.phrases) * 100 : 0, old.rate * 100, old.hits, old.phrases,
                   new.rate * 100, new.hits, new.phrases, all.p50Ms, all.p99Ms))
        return ["with history, said before": all, "with history, said before (those said)": old, "with history, said before (the others)": new]
    }

    static func percentiles(_ r: inout Result, _ times: [Double]) {
        let times = times.sorted()
        guard !times.isEmpty else { return }
        r.p50Ms = times[times.count / 2]
        r.p99Ms = times[min(times.count - 1, Int(Double(times.count) * 0.99))]
    }

    /// The words of a phrase, lowercase: what a hit compares.
    static func key(_ s: String) -> [String] { Tokens.words(s).map { $0.word.lowercased() } }

    /// Runs the set with the predictor as given, with and without the history (and the partner's words).
    public func run(_ predictor: WordPredictor, out: BenchReport) -> [String: Result] {
        var results: [String: Result] = [:]
        var full = SentenceHistory()
        for s in history { full.learn(s) }
        var taught = predictor
        if learnHistory {
            let typed = Set(items.map { Self.key($0.phrase) })
            for line in history {
                for s in SentenceHistory.sentences(of: line) where !typed.contains(Self.key(s)) { taught.learn(s) }
            }
        }
        for (run, name, useHistory, usePartner, spelling) in [(Run.none, "no history", false, false, false),
                                                              (.partner, "no history, partner's words", false, true, false),
                                                              (.spelled, "no history, longest word spelled out", false, false, true),
                                                              (.history, "with history", true, false, false),
                                                              (.historyPartner, "with history, partner's words", true, true, false)] {
            defer {
                if run == .history {
                    if wants(.earlier) { results["with history, earlier phrases of the text"] = runInOrder(taught, history: full, out: out) }
                    if repeatShare > 0, wants(.saidBefore) { results.merge(runSaidBefore(taught, history: full, out: out)) { a, _ in a } }
                }
            }
            guard wants(run) else { continue }
            if usePartner, !items.contains(where: { !$0.partner.isEmpty }) { continue }
            var r = Result()
            var times: [Double] = []
            for item in items {
                let want = Self.key(item.phrase)
                guard words.contains(want.count) else { continue }
                var h = SentenceHistory()
                if useHistory {
                    h = full
                    // Never the phrase being typed.
                    h.forget(sentence: item.phrase)
                }
                let t0 = DispatchTime.now().uptimeNanoseconds
                let offered = (useHistory ? taught : predictor).expand(Self.initials(item.phrase, spelling: spelling), partner: usePartner ? item.partner : "", history: h,
                                               limit: top, settings: settings)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                r.phrases += 1
                if let i = offered.firstIndex(where: { Self.key($0) == want }) {
                    r.hits += 1
                    if i == 0 { r.first += 1 }
                }
            }
            if explain > 0, name == "no history" { self.explain(predictor, out: out) }
            times.sort()
            if !times.isEmpty {
                r.p50Ms = times[times.count / 2]
                r.p99Ms = times[min(times.count - 1, Int(Double(times.count) * 0.99))]
            }
            results[name] = r
            out(String(format: "%@: intended phrase among the first %d for %d of %d phrases of %d-%d words (%.1f%%), first %.1f%%; expansion p50 %.2f ms, p99 %.2f ms",
                       name, top, r.hits, r.phrases, words.lowerBound, words.upperBound, r.rate * 100,
                       r.phrases > 0 ? Double(r.first) / Double(r.phrases) * 100 : 0, r.p50Ms, r.p99Ms))
        }
        return results
    }
}
