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
    /// Print why each phrase missed with no history was missed (a word unknown, not tried, dropped from the
    /// beam, or outscored), and this many of them one by one.
    public var explain = 0

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
        for item in items {
            let want = Self.key(item.phrase)
            guard words.contains(want.count) else { continue }
            let initials = Self.initials(item.phrase)
            let offered = predictor.modelExpansions(initials, limit: top, settings: settings)
            if offered.contains(where: { Self.key($0.phrase) == want }) { continue }
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
        for (name, useHistory, usePartner, spelling) in [("no history", false, false, false), ("no history, partner's words", false, true, false),
                                              ("no history, longest word spelled out", false, false, true),
                                              ("with history", true, false, false), ("with history, partner's words", true, true, false)] {
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
