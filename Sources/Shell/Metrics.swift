import Localization
import Prediction
import TerminalModel
import TrackingCore

/// One gesture's tally in a session: how often it fired and its total hold (onset → fire).
public struct GestureTally: Sendable, Equatable, Codable {
    public var count = 0
    /// Sum of the holds, seconds.
    public var totalHold = 0.0
    /// Longest hold, seconds.
    public var maxHold = 0.0

    public init() {}

    /// Mean hold in seconds, 0 with no gesture.
    public var meanHold: Double { count == 0 ? 0 : totalHold / Double(count) }

    mutating func add(hold: Double) {
        count += 1; totalHold += hold; maxHold = max(maxHold, hold)
    }
}

/// The usage figures of one session, accumulated from what the session sees and nothing else.
///
/// `Session` steps it with every frame's timestamp and face, the gestures recognised, the actions performed
/// and the text of the field being written. It never reads a clock, so a replay of a take gives exactly the
/// counts of the live run that produced it.
///
/// Keystrokes and selections follow the predictor's definition (`KeystrokeSimulator`): a keystroke is one
/// key of the on-screen keyboard (or a helper's key), a selection one committed suggestion, and the
/// keystrokes needed without prediction are the characters that typing and suggestions put in the text.
/// Text counts wherever the user writes: a note, a message, and what the Terminal and Desktop screens send
/// to programs (never at a password prompt or while typing privately).
public struct SessionMetrics: Sendable, Equatable {
    /// An activation followed by `back` within this many seconds counts as undone (a likely false trigger).
    public static let undoWindow = 2.0
    /// An action this close (seconds) to the face being lost counts as suspect.
    public static let faceLossWindow = 1.0
    /// Frames further apart than this (seconds, on the source's clock) mean the face was lost between them:
    /// the second after which the status line calls a source quiet and forgets the face (`InputHealth.stale`).
    /// Closer frames are a tracker's uneven pace, not a loss.
    public static let faceLossGap = Double(InputHealth.staleSeconds)

    /// The first and last timestamps seen (source time, seconds).
    public private(set) var firstT: Double?
    public private(set) var lastT: Double?
    /// Characters added to a text by any means (typing, suggestions, dictation, a helper's keys).
    public private(set) var charactersEntered = 0
    /// Characters added by typing and suggestions only: the keystrokes they would cost without prediction.
    public private(set) var charactersTyped = 0
    /// Changes that removed text (backspace, delete-word, clear).
    public private(set) var corrections = 0
    /// Characters those changes removed: the "incorrect but fixed" characters of the corrected error rate.
    public private(set) var charactersDeleted = 0
    /// Corrections made to text that dictation had just put there.
    public private(set) var correctionsAfterDictation = 0
    public private(set) var keystrokes = 0
    public private(set) var selections = 0
    /// Characters the selections put in the text: what typing them letter by letter would have cost.
    public private(set) var charactersSelected = 0
    public private(set) var dictatedWords = 0
    public private(set) var gestures: [String: GestureTally] = [:]
    /// Dwell gestures (those that fire on a target) the keymap binds, and how long each dwell took.
    public private(set) var dwell = GestureTally()
    /// Actions performed, and those counted as activations (not navigation or scrolling).
    public private(set) var actions = 0
    public private(set) var activations = 0
    public private(set) var undoneActivations = 0
    public private(set) var faceLosses = 0
    public private(set) var actionsNearFaceLoss = 0

    private var lastActivationT: Double?
    private var face: Bool?
    /// The time of the last frame (the source's clock), for gaps between frames.
    private var lastFrameT: Double?
    private var lastFaceLossT: Double?
    /// Times of the actions of the last `faceLossWindow` seconds not yet counted as near a face loss.
    private var recentActionTimes: [Double] = []
    /// The field being written: which screen (name and depth) and its text.
    private var fieldKey: String?
    private var fieldText = ""
    private var lastInsertWasDictation = false

    public init() {}

    /// Action names that move around rather than act on a target; they are not activations.
    static let navigation: Set<String> = ["back", "home", "help", "quit", "scroll", "scroll-up", "scroll-down",
                                          "next", "previous", "tab", "stop-dictation"]

    /// Steps with one frame's outcome: its time, whether the tracker saw a face in it (the frame's own word,
    /// not the pipeline's), its gestures and effects.
    public mutating func frame(at t: Double, face: Bool, gestures: [GestureEvent], effects: [Effect],
                               state: ShellState) {
        stepFrame(at: t, face: face, events: gestures, effects: effects, state: state)
    }

    /// Steps with an event that is not a frame (a key, speech, a tick) and the effects it caused.
    public mutating func event(_ event: ShellEvent, effects: [Effect], state: ShellState) {
        switch event {
        case .tick(let t), .gaze(_, let t): see(t)
        case .frame(let s): see(s.t)
        case .gesture(let g):
            see(g.t)
            addGesture(g.name, max(0, g.t - g.onset))
        default: break
        }
        let source: TextSource
        switch event {
        case .speech(let text, let isFinal): source = isFinal ? .dictation(text) : .other
        case .key(.char), .key(.backspace): source = .key
        default: source = .other
        }
        apply(effects, state: state, textSource: source)
    }

    /// Steps with gestures alone, for a replay through the pipeline without screens.
    public mutating func gestures(at t: Double, face: Bool, _ events: [GestureEvent]) {
        stepFrame(at: t, face: face, events: events, effects: [], state: nil)
    }

    private mutating func addGesture(_ name: String, _ hold: Double) {
        gestures[name, default: GestureTally()].add(hold: hold)
    }

    private mutating func see(_ t: Double) {
        if firstT == nil { firstT = t }
        lastT = max(lastT ?? t, t)
    }

    enum TextSource { case gesture, key, dictation(String), other }

    private mutating func apply(_ effects: [Effect], state: ShellState?, textSource: TextSource) {
        var committed = false, sent = false, typedHidden = false
        for case .performed(let r) in effects {
            actions += 1
            if let loss = lastFaceLossT, r.t - loss <= Self.faceLossWindow, r.t >= loss {
                actionsNearFaceLoss += 1
            } else {
                recentActionTimes.append(r.t)
                recentActionTimes.removeAll { r.t - $0 > Self.faceLossWindow }
            }
            switch r.action {
            case "type": keystrokes += 1
            case "commit-word": committed = true
            case "send": sent = true
            case "type-hidden": typedHidden = true
            default: break
            }
            if r.action == "back" {
                if let a = lastActivationT, r.t - a <= Self.undoWindow { undoneActivations += 1 }
                lastActivationT = nil
            } else if !Self.navigation.contains(r.action) {
                activations += 1
                lastActivationT = r.t
            }
        }
        guard let state else { return }
        observeText(state, source: textSource, committed: committed, sent: sent)
        if !typedHidden { observeProgramTyping(effects, state, source: textSource, committed: committed) }
    }

    /// Counts what the Terminal and Desktop screens sent to programs: text typed and keys that type or remove
    /// a character, by the same rules as a note's text. Nothing is counted at a password prompt or while
    /// typing privately (the screens record such typing as `type-hidden`, checked above, and hide the rest).
    private mutating func observeProgramTyping(_ effects: [Effect], _ state: ShellState, source: TextSource, committed: Bool) {
        if state.topIs(TerminalScreen.self) {
            guard !(state.terminal?.inputHidden ?? false) else { return }
        } else if let d = state.top(as: DesktopScreen.self) {
            guard !d.isPrivate else { return }
        } else {
            return
        }
        var added = 0, removed = 0, wordsRemoved = 0
        for e in effects {
            let request: TerminalRequest
            switch e {
            case .terminal(let r), .desktop(let r): request = r
            default: continue
            }
            switch request {
            case .type(let text): added += text.count
            case .press(let p):
                switch p.key {
                case .char: added += p.modifiers.isEmpty ? 1 : 0
                case .backspace, .delete: removed += 1
                case .ctrl("w"), .ctrl("u"): wordsRemoved += 1
                default: break
                }
            default: break
            }
        }
        // A committed suggestion erases the letters typed so far and types the word: the net change counts.
        let delta = added - removed
        if delta > 0 {
            entered(delta, source: source, committed: committed)
        } else if delta < 0 || wordsRemoved > 0 {
            corrected(-min(0, delta), source: source)
        }
    }

    /// Counts characters put in a text by `source` (a suggestion when `committed`).
    private mutating func entered(_ n: Int, source: TextSource, committed: Bool) {
        charactersEntered += n
        switch source {
        case .dictation(let words):
            dictatedWords += words.split(whereSeparator: { $0 == " " || $0 == "\n" }).count
            lastInsertWasDictation = true
        case .key:
            keystrokes += 1
            charactersTyped += n
            lastInsertWasDictation = false
        case .gesture, .other:
            charactersTyped += n
            if committed { selections += 1; charactersSelected += n }
            lastInsertWasDictation = false
        }
    }

    /// Counts a change that removed `n` characters.
    private mutating func corrected(_ n: Int, source: TextSource) {
        corrections += 1
        charactersDeleted += n
        if lastInsertWasDictation { correctionsAfterDictation += 1 }
        if case .key = source { keystrokes += 1 }
    }

    /// Compares the text of the field showing with what it was, and counts what changed.
    private mutating func observeText(_ state: ShellState, source: TextSource, committed: Bool, sent: Bool) {
        // The type is read first: a cast to a protocol for every key on other screens was most of a key's metrics.
        guard state.topIs(NoteEditorScreen.self) || state.topIs(ConversationScreen.self),
              let edited = state.top as? any MetricsText else { fieldKey = nil; return }
        let key = "\(state.stack.count):\(state.topName)"
        let text = edited.metricsText
        let (oldKey, oldText) = (fieldKey, fieldText)
        (fieldKey, fieldText) = (key, text)
        guard oldKey == key, oldText != text else { return }
        let delta = text.count - oldText.count
        if delta > 0 {
            entered(delta, source: source, committed: committed)
        } else if delta < 0, !sent {
            // A message sent empties the compose field: that is not a correction.
            corrected(-delta, source: source)
        }
    }

    // MARK: Figures

    /// Seconds from the first timestamp to the last.
    public var duration: Double { (lastT ?? 0) - (firstT ?? 0) }

    /// Words per minute, a word being five characters entered; 0 over less than the record's millisecond.
    public var wordsPerMinute: Double { TextEntryRate.wordsPerMinute(characters: charactersEntered, seconds: duration) }

    /// Error rates of the session's writing (`TextEntryRate.errors`): with no phrase to compare against, the
    /// text kept is taken as what was meant, so only the corrected rate (characters deleted) can be non-zero.
    public var errorRates: TextEntryRate.Errors {
        TextEntryRate.errors(correct: max(0, charactersEntered - charactersDeleted), uncorrected: 0, fixed: charactersDeleted)
    }

    /// Keystroke savings rate, percent (`TextEntryRate.savings`); nil when no suggestion was used.
    public var keystrokeSavingsRate: Double? {
        TextEntryRate.savings(keystrokes: keystrokes, selections: selections, charactersSelected: charactersSelected)
    }

    /// Errors for the trend: corrections plus activations undone by back.
    public var errors: Int { corrections + undoneActivations }

    /// The record saved for this session; `kind` is `run`, `replay` or `demo`, `date` set by the caller.
    public func record(kind: String, source: String, date: String) -> MetricsRecord {
        // Rounded to the millisecond (and 0.001 wpm, %): the float noise of summed timestamps means nothing.
        // Past 1.8e305, v * 1000 is infinite, and such a value has no fraction to round anyway; a -0 would
        // be written "-0".
        func r(_ v: Double) -> Double {
            let scaled = v * 1000
            guard scaled.isFinite else { return v }
            let x = scaled.rounded() / 1000
            return x == 0 ? 0 : x
        }
        return MetricsRecord(kind: kind, source: source, date: date, duration: r(duration), characters: charactersEntered,
                             charactersTyped: charactersTyped, keystrokes: keystrokes, selections: selections,
                             charactersSelected: charactersSelected,
                             ksr: keystrokeSavingsRate.map(r), wpm: r(wordsPerMinute),
                             correctedErrorRate: charactersEntered > 0 ? r(errorRates.correctedRate * 100) : nil,
                             dictatedWords: dictatedWords,
                             corrections: corrections, correctionsAfterDictation: correctionsAfterDictation,
                             errors: errors, actions: actions, activations: activations,
                             undoneActivations: undoneActivations, faceLosses: faceLosses,
                             actionsNearFaceLoss: actionsNearFaceLoss,
                             gestures: gestures.mapValues { MetricsRecord.Gesture(count: $0.count, meanHold: r($0.meanHold)) },
                             dwell: MetricsRecord.Dwell(count: dwell.count, mean: r(dwell.meanHold), max: r(dwell.maxHold)))
    }
}

extension SessionMetrics {
    fileprivate mutating func stepFrame(at t: Double, face: Bool, events: [GestureEvent], effects: [Effect],
                                        state: ShellState?) {
        see(t)
        // Lost: the tracker says so, or sends nothing for longer than a source may pause (then the loss is
        // dated at the last frame before the gap).
        if self.face == true, let last = lastFrameT, t - last > Self.faceLossGap {
            lostFace(at: last)
            self.face = false
        }
        if self.face == true, !face { lostFace(at: t) }
        self.face = face
        lastFrameT = t
        for g in events {
            // A gesture the keymap binds to nothing did nothing: it is not the user's use of the shell. Without
            // screens (a replay of the pipeline alone) nothing is bound, and every gesture recognised counts.
            if let state, !state.binds(gesture: g.name) { continue }
            let hold = max(0, g.t - g.onset)
            addGesture(g.name, hold)
            if g.target != nil { dwell.add(hold: hold) }
        }
        // Text changes only when something was performed; idle frames skip the comparison.
        apply(effects, state: effects.isEmpty && events.isEmpty ? nil : state, textSource: .gesture)
    }

    private mutating func lostFace(at t: Double) {
        faceLosses += 1
        lastFaceLossT = t
        actionsNearFaceLoss += recentActionTimes.filter { t - $0 <= Self.faceLossWindow && $0 <= t }.count
        recentActionTimes.removeAll()
    }
}

/// Text entry speed and accuracy as the field measures them, one definition for `handsfree bench typing` and
/// the session's figures (`SessionMetrics`, `handsfree stats`).
///
/// Words per minute count five characters (spaces and punctuation included) as a word, over the seconds the
/// writing took. Errors follow Soukoreff & MacKenzie (2003, "Metrics for text entry research", CHI): the
/// minimum string distance (MSD) between the presented and the transcribed text counts the errors left in
/// (INF), the characters typed and then deleted the errors corrected (IF), and C = max(|P|, |T|) − MSD the
/// correct ones; uncorrected = INF / (C + INF + IF), corrected = IF / (C + INF + IF).
public enum TextEntryRate {
    /// Words per minute for `characters` entered in `seconds`; 0 over less than a millisecond (a subnormal
    /// duration would give an infinite or NaN rate, which a JSON record cannot hold).
    public static func wordsPerMinute(characters: Int, seconds: Double) -> Double {
        // characters / 5 / (seconds / 60), with one rounding instead of three.
        seconds >= 0.001 ? Double(characters) * 12 / seconds : 0
    }

    /// Error rates (fractions, 0…1) of one piece of writing.
    public struct Errors: Sendable, Equatable {
        /// Correct characters (C), errors left in (INF), errors corrected (IF).
        public var correct: Int, uncorrected: Int, fixed: Int
        public var uncorrectedRate: Double { rate(uncorrected) }
        public var correctedRate: Double { rate(fixed) }
        public var totalRate: Double { rate(uncorrected + fixed) }
        private func rate(_ n: Int) -> Double {
            let all = correct + uncorrected + fixed
            return all > 0 ? Double(n) / Double(all) : 0
        }
        /// Sums two pieces of writing (a phrase set's rates are over all its characters).
        public static func + (a: Errors, b: Errors) -> Errors {
            Errors(correct: a.correct + b.correct, uncorrected: a.uncorrected + b.uncorrected, fixed: a.fixed + b.fixed)
        }
        public static let zero = Errors(correct: 0, uncorrected: 0, fixed: 0)
    }

    /// Keystroke savings rate, percent: the share of key presses word suggestions saved, against typing every
    /// character they put in letter by letter. Without suggestions the user would have pressed `keystrokes`
    /// (corrections included) plus one key per character selected; with them, `keystrokes` plus one action
    /// per selection. Nil when no suggestion was used: there was no prediction to judge, and a rate of keys
    /// per character (corrections make it above one) is not a saving. Never negative.
    public static func savings(keystrokes: Int, selections: Int, charactersSelected: Int) -> Double? {
        guard selections > 0 else { return nil }
        let without = Counts.sum(keystrokes, charactersSelected)
        guard without > 0 else { return nil }
        return Double(max(0, charactersSelected - selections)) / Double(without) * 100
    }

    /// What each figure means, one line each, for `stats --explain` and `bench typing --explain`.
    public static let explanations: [UIMessage] = [
        UIMessage("wpm   words per minute: characters written, five to a word, for each minute spent writing."),
        UIMessage("KSPC  keystrokes per character: keys pressed and suggestions taken for each character of the text (1.00 is one key each; below 1, prediction helped)."),
        UIMessage("KSR   keystroke savings rate: the share of key presses word suggestions saved, against typing every letter (— when no suggestion was taken)."),
        UIMessage("MSD   minimum string distance: the fewest letters to add, remove or change to turn what was written into what was meant; errors left in are MSD over the characters."),
    ]

    /// The rates from counts already made.
    public static func errors(correct: Int, uncorrected: Int, fixed: Int) -> Errors {
        Errors(correct: correct, uncorrected: uncorrected, fixed: fixed)
    }

    /// The rates of `transcribed` against `presented`, with `fixed` characters deleted along the way.
    public static func errors(presented: String, transcribed: String, fixed: Int) -> Errors {
        let p = Array(presented), t = Array(transcribed)
        let msd = minimumStringDistance(p, t)
        return Errors(correct: max(p.count, t.count) - msd, uncorrected: msd, fixed: fixed)
    }

    /// The Levenshtein distance: insertions, deletions and substitutions that turn `a` into `b`.
    public static func minimumStringDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// A screen with a text field the user writes in, whose text the metrics follow; `observeText` checks for the
/// screens below by type before it asks, so a new one is added there too.
protocol MetricsText {
    var metricsText: String { get }
}

extension NoteEditorScreen: MetricsText { var metricsText: String { field.text } }
extension ConversationScreen: MetricsText { var metricsText: String { compose.text } }

/// One session's line in `metrics.ndjson`.
public struct MetricsRecord: Sendable, Equatable, Codable {
    public struct Gesture: Sendable, Equatable, Codable {
        public var count: Int
        public var meanHold: Double
    }
    public struct Dwell: Sendable, Equatable, Codable {
        public var count: Int
        public var mean: Double
        public var max: Double
    }
    /// `run`, `replay` or `demo`.
    public var kind: String
    /// Where frames came from (`keyboard`, `replay`, a listen address, a file name).
    public var source: String
    /// When the session ended, ISO 8601 (UTC).
    public var date: String
    public var duration: Double
    public var characters: Int
    public var charactersTyped: Int
    public var keystrokes: Int
    public var selections: Int
    /// Characters the selections put in (`SessionMetrics.charactersSelected`); nil in records written before
    /// it was kept, whose `ksr` used another rule.
    public var charactersSelected: Int?
    /// Keystroke savings rate (`TextEntryRate.savings`); nil when no suggestion was used.
    public var ksr: Double?
    public var wpm: Double
    /// Percent of the characters entered that were deleted again (`TextEntryRate`); nil with nothing
    /// entered, and in records written before it was kept.
    public var correctedErrorRate: Double?
    public var dictatedWords: Int
    public var corrections: Int
    public var correctionsAfterDictation: Int
    public var errors: Int
    public var actions: Int
    public var activations: Int
    public var undoneActivations: Int
    public var faceLosses: Int
    public var actionsNearFaceLoss: Int
    public var gestures: [String: Gesture]
    public var dwell: Dwell

    /// The first number outside what a session can hold, named ("characters = 9223372036854775807 is out of
    /// range (0 to 1000000000000)"); nil when every one is in range. Counts are 0…`Counts.limit`; other
    /// figures (seconds, rates) only need to be finite, which JSON already makes them, and any finite one
    /// round-trips.
    public var rangeProblem: String? {
        var counts: [(String, Int)] = [
            ("characters", characters), ("charactersTyped", charactersTyped), ("keystrokes", keystrokes),
            ("selections", selections), ("dictatedWords", dictatedWords), ("corrections", corrections),
            ("correctionsAfterDictation", correctionsAfterDictation), ("errors", errors), ("actions", actions),
            ("activations", activations), ("undoneActivations", undoneActivations), ("faceLosses", faceLosses),
            ("actionsNearFaceLoss", actionsNearFaceLoss), ("dwell.count", dwell.count),
        ]
        if let charactersSelected { counts.append(("charactersSelected", charactersSelected)) }
        for (name, g) in gestures.sorted(by: { $0.key < $1.key }) { counts.append(("gestures.\(name).count", g.count)) }
        for (k, v) in counts where !(0...Counts.limit).contains(v) {
            return "\(k) = \(v) is out of range (0 to \(Counts.limit))"
        }
        return nil
    }
}

/// Eight-level bar charts of a series, one character per value: `▁▂▃▄▅▆▇█`.
public enum Sparkline {
    static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The series scaled from its minimum (▁) to its maximum (█); a flat series is all ▁; empty gives "".
    public static func render(_ values: [Double]) -> String {
        guard let lo = values.min(), let hi = values.max() else { return "" }
        let span = hi - lo
        return String(values.map { v in
            guard span > 0, v.isFinite else { return bars[0] }
            return bars[min(7, max(0, Int(((v - lo) / span * 7).rounded())))]
        })
    }
}
