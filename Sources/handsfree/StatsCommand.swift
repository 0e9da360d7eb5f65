import ArgumentParser
import Foundation
import Prediction
import Runtime
import Shell

/// `handsfree stats`: a summary of the sessions recorded in `metrics.ndjson`, with trends as sparklines.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise the usage recorded after each session (words per minute, errors, gestures).",
        discussion: "Records are kept in metrics.ndjson in the data folder; turn recording off with record_metrics = false in settings.toml or --no-metrics.")

    @Flag(help: "Print the summary and every record as JSON.") var json = false
    @Option(help: "Data folder (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).") var dataDir: String?
    @Option(help: "How many of the latest sessions the sparklines show.") var last = 40

    func validate() throws {
        if last < 1 { throw ValidationError("--last must be at least 1") }
    }

    func run() throws {
        let path = UserPaths.current(dataDir: dataDir).metrics.path
        let (records, problems) = MetricsFile.load(path)
        for p in problems { FileHandle.standardError.write(Data("handsfree: \(p)\n".utf8)) }
        print(json ? Self.json(records, skipped: problems.count, file: path) : Self.text(records, file: path, last: last))
    }

    /// Totals over the records, shared by the text and JSON forms.
    struct Summary {
        var sessions = 0, byKind: [String: Int] = [:], seconds = 0.0, characters = 0, typed = 0
        /// Time of the sessions in which text was written: a replay of gestures alone says nothing of speed.
        var writingSeconds = 0.0
        var keystrokes = 0, selections = 0, dictatedWords = 0, corrections = 0, correctionsAfterDictation = 0
        /// Characters deleted again, over the records that kept the corrected error rate, and their characters.
        var fixed = 0.0, fixedOf = 0
        var errors = 0, undone = 0, nearFaceLoss = 0, activations = 0
        var gestures: [String: (count: Int, hold: Double)] = [:]
        var dwellCount = 0, dwellTotal = 0.0

        /// Sums the records `MetricsFile.load` kept (every number in range); the totals stop at `Int.max`
        /// rather than trap, however many records there are.
        init(_ rs: [MetricsRecord]) {
            func add(_ total: inout Int, _ n: Int) { total = Counts.sum(total, n) }
            for r in rs {
                sessions += 1; byKind[r.kind, default: 0] += 1; seconds += r.duration
                if r.characters > 0 { writingSeconds += r.duration }
                if let rate = r.correctedErrorRate { fixed += rate / 100 * Double(r.characters); add(&fixedOf, r.characters) }
                add(&characters, r.characters); add(&typed, r.charactersTyped); add(&keystrokes, r.keystrokes)
                add(&selections, r.selections); add(&dictatedWords, r.dictatedWords); add(&corrections, r.corrections)
                add(&correctionsAfterDictation, r.correctionsAfterDictation); add(&errors, r.errors)
                add(&undone, r.undoneActivations); add(&nearFaceLoss, r.actionsNearFaceLoss); add(&activations, r.activations)
                for (name, g) in r.gestures {
                    let old = gestures[name] ?? (0, 0)
                    gestures[name] = (Counts.sum(old.count, g.count), old.hold + g.meanHold * Double(g.count))
                }
                add(&dwellCount, r.dwell.count); dwellTotal += r.dwell.mean * Double(r.dwell.count)
            }
        }
        var wpm: Double { TextEntryRate.wordsPerMinute(characters: characters, seconds: writingSeconds) }
        /// Percent of the characters entered that were deleted again; nil when no record kept it.
        var correctedErrorRate: Double? { fixedOf > 0 ? fixed / Double(fixedOf) * 100 : nil }
        var ksr: Double? { typed > 0 ? (1 - (Double(keystrokes) + Double(selections)) / Double(typed)) * 100 : nil }
    }

    static func fmt(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }

    static func text(_ rs: [MetricsRecord], file: String, last: Int) -> String {
        guard !rs.isEmpty else { return "No sessions recorded yet (\(file))." }
        let s = Summary(rs)
        let kinds = s.byKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let recent = rs.suffix(last)
        let wpm = recent.map(\.wpm), errs = recent.map { Double($0.errors) }
        var out = [
            "\(s.sessions) sessions (\(kinds)), \(fmt(s.seconds / 60)) min in all — \(file)",
            "words per minute  \(Sparkline.render(wpm))  last \(fmt(wpm.last ?? 0)), overall \(fmt(s.wpm))",
            "errors            \(Sparkline.render(errs))  last \(Int(errs.last ?? 0)), total \(s.errors)",
            "characters \(s.characters) (typed \(s.typed)), keystrokes \(s.keystrokes), selections \(s.selections), "
                + "KSR " + (s.ksr.map { fmt($0) + " %" } ?? "–"),
            "dictated words \(s.dictatedWords), corrections \(s.corrections) (\(s.correctionsAfterDictation) after dictation), "
                + "corrected error rate " + (s.correctedErrorRate.map { fmt($0) + " %" } ?? "–"),
            "activations \(s.activations): \(s.undone) undone by back within 2 s, \(s.nearFaceLoss) actions within 1 s of face loss",
        ]
        if s.dwellCount > 0 { out.append("dwell \(s.dwellCount)× mean \(fmt(s.dwellTotal / Double(s.dwellCount), 2)) s") }
        for (name, g) in s.gestures.sorted(by: { $0.key < $1.key }) {
            out.append("  \(name): \(g.count)× mean hold \(fmt(g.count > 0 ? g.hold / Double(g.count) : 0, 2)) s")
        }
        return out.joined(separator: "\n")
    }

    static func json(_ rs: [MetricsRecord], skipped: Int, file: String) -> String {
        let s = Summary(rs)
        let lines = rs.compactMap(MetricsFile.line)
        let gestures = s.gestures.sorted { $0.key < $1.key }.map { name, g in
            "\(JSONText.quote(name)): {\"count\": \(g.count), \"meanHold\": \(JSONText.number(g.count > 0 ? g.hold / Double(g.count) : 0))}"
        }.joined(separator: ", ")
        return """
        {"file": \(JSONText.quote(file)), "sessions": \(s.sessions), "skipped": \(skipped), \
        "minutes": \(JSONText.number(s.seconds / 60)), "wpm": \(JSONText.number(s.wpm)), \
        "ksr": \(s.ksr.map { JSONText.number($0) } ?? "null"), "characters": \(s.characters), \
        "errors": \(s.errors), "undoneActivations": \(s.undone), "actionsNearFaceLoss": \(s.nearFaceLoss), \
        "gestures": {\(gestures)}, \
        "wpmTrend": [\(rs.map { JSONText.number($0.wpm) }.joined(separator: ", "))], \
        "errorsTrend": [\(rs.map { String($0.errors) }.joined(separator: ", "))], \
        "records": [\(lines.joined(separator: ", "))]}
        """
    }
}
