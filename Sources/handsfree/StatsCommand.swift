import ArgumentParser
import Foundation
import Prediction
import Runtime
import Shell

/// `handsfree stats`: a summary of the sessions recorded in `metrics.ndjson`, with trends as sparklines.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: tr("Summarise the usage recorded after each session (words per minute, errors, gestures)."),
        discussion: tr("Records are kept in metrics.ndjson in the data folder; turn recording off with record_metrics = false in settings.toml or --no-metrics."))

    @Flag(help: ArgumentHelp(tr("Print the summary and every record as JSON."))) var json = false
    @Flag(help: ArgumentHelp(tr("Say after the summary what wpm, KSPC, KSR and MSD mean, one line each."))) var explain = false
    @Option(help: ArgumentHelp(tr("Data folder (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree)."))) var dataDir: String?
    @Option(help: ArgumentHelp(tr("How many of the latest sessions the sparklines show."))) var last = 40

    func validate() throws {
        if last < 1 { throw ValidationError(tr("--last must be at least 1")) }
        if json && explain { throw ValidationError(tr("--explain goes with the text summary, not --json")) }
    }

    func run() throws {
        let path = UserPaths.current(dataDir: dataDir).metrics.path
        let (records, problems) = MetricsFile.load(path)
        for p in problems { FileHandle.standardError.write(Data("handsfree: \(p)\n".utf8)) }
        print(json ? Self.json(records, skipped: problems.count, file: path) : Self.text(records, file: path, last: last))
        if explain { print("\n" + TextEntryRate.explanations.map(\.shown).joined(separator: "\n")) }
    }

    /// Totals over the records, shared by the text and JSON forms.
    struct Summary {
        var sessions = 0, byKind: [String: Int] = [:], seconds = 0.0, characters = 0, typed = 0
        /// Time of the sessions in which text was written: a replay of gestures alone says nothing of speed.
        var writingSeconds = 0.0
        var keystrokes = 0, selections = 0, dictatedWords = 0, corrections = 0, correctionsAfterDictation = 0
        /// Characters deleted again, over the records that kept the corrected error rate, and their characters.
        var fixed = 0.0, fixedOf = 0
        var errors = 0, undone = 0, faceLosses = 0, nearFaceLoss = 0, activations = 0
        /// Keys, selections and the characters selections put in, over the records that kept the last (older
        /// records counted their savings by another rule, which corrections could make negative).
        var savingKeys = 0, savingSelections = 0, savingCharacters = 0
        var gestures: [String: (count: Int, hold: Double)] = [:]

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
                add(&undone, r.undoneActivations); add(&faceLosses, r.faceLosses); add(&nearFaceLoss, r.actionsNearFaceLoss)
                add(&activations, r.activations)
                if let selected = r.charactersSelected {
                    add(&savingKeys, r.keystrokes); add(&savingSelections, r.selections); add(&savingCharacters, selected)
                }
                for (name, g) in r.gestures {
                    let old = gestures[name] ?? (0, 0)
                    gestures[name] = (Counts.sum(old.count, g.count), old.hold + g.meanHold * Double(g.count))
                }
            }
        }
        var wpm: Double { TextEntryRate.wordsPerMinute(characters: characters, seconds: writingSeconds) }
        /// Percent of the characters entered that were deleted again; nil when no record kept it.
        var correctedErrorRate: Double? { fixedOf > 0 ? fixed / Double(fixedOf) * 100 : nil }
        /// Keystroke savings rate (`TextEntryRate.savings`); nil when no suggestion was taken.
        var ksr: Double? {
            TextEntryRate.savings(keystrokes: savingKeys, selections: savingSelections, charactersSelected: savingCharacters)
        }
        /// Keys and selections per character written; nil with nothing written.
        var kspc: Double? { characters > 0 ? Double(Counts.sum(keystrokes, selections)) / Double(characters) : nil }
    }

    /// `v` with `digits` decimals and the decimal separator of this run's language ("2,0" in German).
    static func fmt(_ v: Double, _ digits: Int = 1) -> String { decimal(v, digits) }

    /// "1 time", "3 times", in the language of this run.
    static func times(_ n: Int) -> String { trn("{n} time", "{n} times", n) }

    static func text(_ rs: [MetricsRecord], file: String, last: Int) -> String {
        guard !rs.isEmpty else { return tr("No sessions recorded yet ({file}).", ["file": file]) }
        let s = Summary(rs)
        let kinds = s.byKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let recent = rs.suffix(last)
        let wpm = recent.map(\.wpm), errs = recent.map { Double($0.errors) }
        // The two trend lines' labels are padded to one width, so their sparklines start in one column in any language.
        let speed = tr("Writing speed"), mistakes = tr("Mistakes")
        let labelWidth = max(speed.count, mistakes.count)
        func label(_ l: String) -> String { l + String(repeating: " ", count: labelWidth - l.count) }
        var out = [
            trn("{n} session ({kinds}), {minutes} minutes in all, from {file}", "{n} sessions ({kinds}), {minutes} minutes in all, from {file}",
                s.sessions, ["kinds": kinds, "minutes": fmt(s.seconds / 60), "file": file]),
            label(speed) + "  " + tr("{trend}  last session {last} words a minute; all sessions {all}",
                                     ["trend": Sparkline.render(wpm), "last": fmt(wpm.last ?? 0), "all": fmt(s.wpm)]),
            label(mistakes) + "  " + tr("{trend}  last session {last}; all sessions {all} (text deleted again, and activations taken back)",
                                        ["trend": Sparkline.render(errs), "last": String(Int(errs.last ?? 0)), "all": String(s.errors)]),
        ]
        if let kspc = s.kspc {
            out.append(trn("Written: {n} character, {typed} of them typed or suggested, with {keys} key presses and {words} suggested words ({kspc} per character)",
                           "Written: {n} characters, {typed} of them typed or suggested, with {keys} key presses and {words} suggested words ({kspc} per character)",
                           s.characters, ["typed": String(s.typed), "keys": String(s.keystrokes), "words": String(s.selections), "kspc": fmt(kspc, 2)]))
        } else {
            out.append(tr("Written: nothing yet"))
        }
        if let ksr = s.ksr {
            out.append(tr("Word suggestions saved {percent}% of the key presses", ["percent": fmt(ksr)]))
        } else {
            out.append(tr("Word suggestions saved: — (no suggestion was taken)"))
        }
        let dictation = ["n": String(s.dictatedWords), "corrections": String(s.corrections), "after": String(s.correctionsAfterDictation)]
        if let rate = s.correctedErrorRate {
            out.append(tr("Dictation: {n} words; {corrections} corrections, {after} of them right after dictating; {percent}% of what was written was deleted again",
                          dictation.merging(["percent": fmt(rate)]) { a, _ in a }))
        } else {
            out.append(tr("Dictation: {n} words; {corrections} corrections, {after} of them right after dictating", dictation))
        }
        out.append(tr("Activations: {n}; {undone} taken back (back within 2 s)", ["n": String(s.activations), "undone": String(s.undone)]))
        out.append(trn("Face lost {times} (no face seen, or no frames for over a second); {n} action within 1 s of a loss",
                       "Face lost {times} (no face seen, or no frames for over a second); {n} actions within 1 s of a loss",
                       s.nearFaceLoss, ["times": times(s.faceLosses)]))
        if !s.gestures.isEmpty {
            out.append(tr("Gestures: how often each acted, and how long it was held before it did"))
            let width = s.gestures.keys.map(\.count).max() ?? 0
            for (name, g) in s.gestures.sorted(by: { $0.key < $1.key }) {
                let pad = String(repeating: " ", count: width - name.count)
                out.append("  \(name)\(pad)  " + tr("{times}, held {seconds} s on average",
                                                    ["times": times(g.count), "seconds": fmt(g.count > 0 ? g.hold / Double(g.count) : 0, 2)]))
            }
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
        "errors": \(s.errors), "undoneActivations": \(s.undone), "faceLosses": \(s.faceLosses), \
        "actionsNearFaceLoss": \(s.nearFaceLoss), \
        "gestures": {\(gestures)}, \
        "wpmTrend": [\(rs.map { JSONText.number($0.wpm) }.joined(separator: ", "))], \
        "errorsTrend": [\(rs.map { String($0.errors) }.joined(separator: ", "))], \
        "records": [\(lines.joined(separator: ", "))]}
        """
    }
}
