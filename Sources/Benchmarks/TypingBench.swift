import Config
import Foundation
import Prediction
import Runtime
import Shell
import TrackingCore

/// `handsfree bench typing`: simulated users type a phrase set on the note editor through the real session
/// (reducer, pipeline, gesture detectors, keyboard and word prediction of a live run), 60 face frames a second
/// with their own timestamps; words per minute, errors (MSD), keystrokes per character, KSR and where the time
/// goes, with prediction on and off in the same run.
public struct TypingBench {
    public var phrases: [String]
    public var profiles: [TypingProfile]
    /// The loaded word predictor; nil runs only the bench without prediction.
    public var predictor: WordPredictor?
    /// Random seed: the same seed gives the same aims, noise and mistakes.
    public var seed: UInt64 = 1
    /// The gesture and smoothing settings of the session typed into (`--config`, `--set`).
    public var settings = GestureConfig.defaults()
    /// The keymap typed with (its gestures must be the settings'): `webcam` goes with `config/webcam.toml`.
    public var keymapName = "default"
    /// The face shape the user commits the ★ word with: the tongue, or pursed lips where the tracker sees no
    /// tongue (the webcam keymap).
    public var commitShape = BlendShape.tongueOut
    /// The keyboard's letter rows; nil: the default keymap's (QWERTY).
    public var keyboardRows: [String]?
    /// The ways of taking suggestions from the key run side by side (the word on the key only by default).
    public var methods: [Method] = [.word]
    /// The user's earlier sentences: when given, each method runs also with this history (less the phrase being
    /// typed, which is never in it).
    public var history: [String]?
    /// Phrase prediction's settings (thresholds, beam).
    public var phraseSettings = WordPredictor.PhraseSettings()
    /// The runs with a history also teach the predictor the history's words, pairs and phrases first, as the shell
    /// learns everything the user commits; sentences equal to any phrase of the set are left out.
    public var learnHistory = true

    public init(phrases: [String], profiles: [TypingProfile], predictor: WordPredictor?) {
        self.phrases = phrases; self.profiles = profiles; self.predictor = predictor
    }

    /// The characters the default keyboard types (its rows; space is always there).
    public static func keys() throws -> Set<Character> {
        let km = try Setup.keymap("default", gestures: GestureConfig.defaults().gestures)
        return Set(km.keyboardRows.joined())
    }

    /// Where the simulated time went, seconds.
    public struct TimeSpent: Sendable, Equatable {
        /// Latency and movement to the target, and waiting for it to be highlighted.
        public var travel = 0.0
        /// Checking the highlighted target.
        public var settle = 0.0
        /// Reacting, holding the jaw or tongue until the action, letting go.
        public var gesture = 0.0
        /// Reading the suggestion bar.
        public var reading = 0.0
        /// Noticing a wrong letter, and every action spent on it: the wrong key and the ⌫ that removes it.
        public var correcting = 0.0
        public var total: Double { travel + settle + gesture + reading + correcting }
        static func + (a: TimeSpent, b: TimeSpent) -> TimeSpent {
            TimeSpent(travel: a.travel + b.travel, settle: a.settle + b.settle, gesture: a.gesture + b.gesture,
                      reading: a.reading + b.reading, correcting: a.correcting + b.correcting)
        }
    }

    /// Where the simulated time went by what the user was doing, seconds, and how many actions of each kind: a
    /// letter typed (its look, check and gesture), a space or mark, a word or phrase taken (the key's ★ with
    /// the tongue, or the bar), reading suggestions (on the key and on the bar), and correcting (noticing a slip,
    /// the slip itself and each ⌫).
    public struct ByAction: Sendable, Equatable {
        public var letters = 0.0, spaces = 0.0, taking = 0.0, reading = 0.0, correcting = 0.0
        public var letterCount = 0, spaceCount = 0, takeCount = 0
        public var total: Double { letters + spaces + taking + reading + correcting }
        static func + (a: ByAction, b: ByAction) -> ByAction {
            ByAction(letters: a.letters + b.letters, spaces: a.spaces + b.spaces, taking: a.taking + b.taking,
                     reading: a.reading + b.reading, correcting: a.correcting + b.correcting,
                     letterCount: a.letterCount + b.letterCount, spaceCount: a.spaceCount + b.spaceCount,
                     takeCount: a.takeCount + b.takeCount)
        }
    }

    /// The steps of the actions that type (not those spent correcting), added up, by the face that acted: where a
    /// key's second goes (`bench typing`'s third line of each run).
    public struct Steps: Sendable, Equatable {
        /// Saccade (or head turn) latency and the movement; waiting for the key to be highlighted after arriving
        /// (the tracker's lag and the smoothing); checking it; waiting for the last gesture's face to close; the
        /// reaction; the face moving until the key acts.
        public var move = 0.0, highlight = 0.0, check = 0.0, closing = 0.0, reaction = 0.0, untilActed = 0.0
        public var count = 0
        static func + (a: Steps, b: Steps) -> Steps {
            Steps(move: a.move + b.move, highlight: a.highlight + b.highlight, check: a.check + b.check,
                  closing: a.closing + b.closing, reaction: a.reaction + b.reaction, untilActed: a.untilActed + b.untilActed,
                  count: a.count + b.count)
        }
    }

    /// Where the simulated user reads the suggestions.
    public enum Reading: String, Sendable, Equatable, CaseIterable {
        /// The word on the key (`ShellSettings.wordOnKey`): read while checking the key, taken with the tongue.
        case key = "word on the key"
        /// The bar above the keyboard, word by word until the meant word is found (the word on the key off).
        case bar = "bar only"
    }

    /// What the key offers, read where the eyes already are (with the word on the key).
    public enum Method: String, Sendable, Equatable, CaseIterable {
        /// The word typing the key leads to.
        case word = "word on the key"
        /// A phrase (the next few words) when the model or the history is confident, else the word.
        case phrases = "phrase continuation"
        /// Initials mode: the first letter of each word; the key offers the whole phrase for the initials with its
        /// letter, the bar the best few. A phrase not offered once all initials are typed is deleted and typed by
        /// words (the word on the key) instead.
        case initials = "initials"
    }

    /// One profile's run over the phrase set.
    public struct Result: Sendable, Equatable {
        public var profile: String
        public var prediction: Bool
        public var reading: Reading = .bar
        public var method: Method = .word
        /// Typed with the user's sentence history.
        public var history = false
        /// What the note held at the end of each phrase (lowercased, the trailing space of a commit dropped).
        public var texts: [String] = []
        /// Seconds from each phrase's first movement to its last action, added up.
        public var seconds = 0.0
        public var characters = 0
        public var errors = TextEntryRate.Errors.zero
        /// Keys pressed (letters, space, ⌫), suggestions committed, characters put in by both, and by the
        /// suggestions alone.
        public var keystrokes = 0, selections = 0, charactersTyped = 0, charactersSelected = 0
        /// Phrases abandoned (too many actions, or the note editor left by a stray activation).
        public var abandoned = 0
        public var time = TimeSpent()
        public var actions = ByAction()
        /// The steps of the jaw's actions (letters, spaces, marks, the bar's words) and of the tongue's.
        public var jawSteps = Steps(), tongueSteps = Steps()

        public var wordsPerMinute: Double { TextEntryRate.wordsPerMinute(characters: characters, seconds: seconds) }
        /// Actions (keys and selections) per character of the text.
        public var keystrokesPerCharacter: Double { characters > 0 ? Double(keystrokes + selections) / Double(characters) : 0 }
        /// Keystroke savings rate, percent, as `SessionMetrics` counts it; nil when no suggestion was taken.
        public var ksr: Double? {
            TextEntryRate.savings(keystrokes: keystrokes, selections: selections, charactersSelected: charactersSelected)
        }
    }

    /// Each profile with prediction on (when a predictor is given) and off, printed side by side.
    public func run(out: BenchReport) throws -> [Result] {
        var results: [Result] = []
        for profile in profiles {
            var keys: [Result] = []
            if let predictor {
                for method in methods {
                    for withHistory in history == nil ? [false] : [false, true] {
                        let r = try type(profile, prediction: predictor, reading: .key, method: method, history: withHistory)
                        keys.append(r)
                        results.append(r)
                        out(Self.line(r))
                        out(Self.breakdown(r))
                        out(Self.steps(r))
                    }
                }
            }
            let bar = try predictor.map { try type(profile, prediction: $0, reading: .bar) }
            let off = try type(profile, prediction: nil)
            for r in [bar, off].compactMap({ $0 }) {
                results.append(r)
                out(Self.line(r))
                out(Self.breakdown(r))
                out(Self.steps(r))
            }
            for on in keys + [bar].compactMap({ $0 }) { out(Self.comparison(on, off)) }
        }
        return results
    }

    /// The activate gesture's hold time.
    static func hold(_ settings: PipelineSettings) -> Double {
        for g in settings.gestures where g.name == "activate" { if case .threshold(let spec) = g.kind { return spec.hold } }
        return 0.3
    }

    /// Prediction against typing without it, in plain words: "eye-tracker: with prediction (bar only), 8.8 wpm
    /// against 9.1 without: 4% slower".
    public static func comparison(_ on: Result, _ off: Result) -> String {
        let a = on.wordsPerMinute, b = off.wordsPerMinute
        guard b > 0 else {
            return String(format: "  %@: with prediction (%@), %.1f wpm; without, nothing was typed", on.profile, Self.name(on), a)
        }
        let change = (a / b - 1) * 100
        if abs(change) < 0.5 {
            return String(format: "  %@: with prediction (%@), %.1f wpm against %.1f without: as fast", on.profile, Self.name(on), a, b)
        }
        return change > 0
            ? String(format: "  %@: with prediction (%@), %.1f wpm against %.1f without: %.0f%% faster", on.profile, Self.name(on), a, b, change)
            : String(format: "  %@: with prediction (%@), %.1f wpm against %.1f without: %.0f%% slower", on.profile, Self.name(on), a, b, -change)
    }

    /// How a run took suggestions: "bar only", "word on the key", "initials, with history".
    public static func name(_ r: Result) -> String {
        r.reading == .bar ? r.reading.rawValue : r.method.rawValue + (r.history ? ", with history" : "")
    }

    /// One result as the bench prints it.
    public static func line(_ r: Result) -> String {
        let t = r.time, all = max(t.total, 1e-9)
        func pc(_ x: Double) -> Double { x / all * 100 }
        // KSR is only a figure when suggestions were taken; without prediction it reads —.
        let ksr = r.ksr.map { String(format: "%.1f%%", $0) } ?? "—"
        return String(format: "%@ %@: %.1f wpm; errors uncorrected (MSD) %.2f%%, corrected %.2f%%; KSPC %.2f, KSR %@; time: travel %.0f%%, settle %.0f%%, gesture %.0f%%, reading suggestions %.0f%%, correcting %.0f%%%@",
                      r.profile.padding(toLength: 12, withPad: " ", startingAt: 0),
                      r.prediction ? "prediction, \(name(r))" : "prediction off",
                      r.wordsPerMinute, r.errors.uncorrectedRate * 100, r.errors.correctedRate * 100, r.keystrokesPerCharacter, ksr,
                      pc(t.travel), pc(t.settle), pc(t.gesture), pc(t.reading), pc(t.correcting),
                      r.abandoned > 0 ? "; \(r.abandoned) phrases abandoned" : "")
    }

    /// Where a result's time went by what the user was doing: "  by action: letters 52% (410, 1.21 s each), …".
    public static func breakdown(_ r: Result) -> String {
        let a = r.actions, all = max(a.total, 1e-9)
        func each(_ x: Double, _ n: Int) -> Double { n > 0 ? x / Double(n) : 0 }
        return String(format: "    by action: letters %.0f%% (%d, %.2f s each), spaces and marks %.0f%% (%d, %.2f s each), taking words %.0f%% (%d, %.2f s each), reading suggestions %.0f%%, correcting %.0f%%",
                      a.letters / all * 100, a.letterCount, each(a.letters, a.letterCount),
                      a.spaces / all * 100, a.spaceCount, each(a.spaces, a.spaceCount),
                      a.taking / all * 100, a.takeCount, each(a.taking, a.takeCount),
                      a.reading / all * 100, a.correcting / all * 100)
    }

    /// A jaw's and a tongue's action, step by step, on average: "    a jaw action: move 0.28 s, highlight 0.05 s, …".
    public static func steps(_ r: Result) -> String {
        func one(_ name: String, _ s: Steps) -> String {
            let n = Double(max(1, s.count))
            return String(format: "%@ (%d): move %.2f s, highlight %.2f s, check %.2f s, last face closing %.2f s, reaction %.2f s, face until it acts %.2f s",
                          name, s.count, s.move / n, s.highlight / n, s.check / n, s.closing / n, s.reaction / n, s.untilActed / n)
        }
        return "    each " + one("jaw action", r.jawSteps) + "; each " + one("tongue action", r.tongueSteps)
    }

    /// Types every phrase as `profile`, with `prediction` (a fresh copy of the predictor, learning as it goes)
    /// or without suggestions.
    public func type(_ profile: TypingProfile, prediction predictor: WordPredictor?, reading: Reading = .bar,
                     method: Method = .word, history withHistory: Bool = false) throws -> Result {
        var keymap = try Setup.keymap(keymapName, gestures: settings.gestures)
        if let keyboardRows { keymap.keyboardRows = keyboardRows }
        var full = SentenceHistory()
        if withHistory { for s in history ?? [] { full.learn(s) } }
        var taught = predictor
        if withHistory, learnHistory, taught != nil {
            let typed = Set(phrases.map { SentenceHistory.key(of: $0) })
            for line in history ?? [] {
                for s in SentenceHistory.sentences(of: line) where !typed.contains(SentenceHistory.key(of: s)) { taught?.learn(s) }
            }
        }
        // One predictor learning through the phrases: each phrase's session takes it as the last one left it.
        var live = taught.map { Predictor(words: $0, continuation: method == .phrases, settings: phraseSettings) }
        var result = Result(profile: profile.name, prediction: predictor != nil, reading: reading, method: method, history: withHistory)
        var rng = PointingBench.Rng(seed: seed)
        for phrase in phrases {
            // The history as it was before this phrase: never the phrase itself, nor what this run typed.
            var h = full
            h.forget(sentence: phrase)
            live?.replaceHistory(h)
            var state = ShellState(keymap: keymap, gestures: settings.gestures, predictor: live ?? .none)
            // The state holds the one copy, so what it learns is learned in place.
            live = nil
            state.settings.wordOnKey = predictor != nil && reading == .key
            state.settings.initialsKey = predictor != nil && method == .initials
            _ = state.show(screen: "note-editor")
            var typist = Typist(session: Session(state: state, settings: settings), profile: profile, rng: rng,
                                hold: Self.hold(settings), reading: reading, method: method)
            typist.commitShape = commitShape
            typist.type(phrase)
            if predictor != nil { live = typist.session.state.predictor }
            rng = typist.rng
            let m = typist.session.metrics
            let text = typist.outcome
            result.texts.append(text)
            result.seconds += typist.elapsed
            result.characters += text.count
            result.errors = result.errors + TextEntryRate.errors(presented: phrase, transcribed: text, fixed: m.charactersDeleted)
            result.keystrokes += m.keystrokes; result.selections += m.selections; result.charactersTyped += m.charactersTyped
            result.charactersSelected += m.charactersSelected
            result.time = result.time + typist.spent
            result.actions = result.actions + typist.byAction
            result.jawSteps = result.jawSteps + typist.jawSteps
            result.tongueSteps = result.tongueSteps + typist.tongueSteps
            if typist.abandoned { result.abandoned += 1 }
        }
        return result
    }
}

/// One simulated user typing one phrase: the face they show, frame by frame, and what they decide from what the
/// screen shows.
struct Typist {
    var session: Session
    let profile: TypingProfile
    var rng: PointingBench.Rng
    /// Where the user reads suggestions.
    let reading: TypingBench.Reading
    /// What the key offers.
    let method: TypingBench.Method
    /// Initials found nothing: the rest of the phrase is typed by words.
    var gaveUp = false
    /// The activate gesture's hold time (the user holds until the key acts, so this only bounds the wait).
    let hold: Double
    var t = 0.0
    /// Where the eyes (or head) point, normalised.
    var eye = GazePoint(x: 0.5, y: 0.5)
    /// The face as it is now, and the frames still inside the tracker's lag.
    var jaw: Float = 0, tongue: Float = 0
    /// The shape the "tongue" face moves: the tongue, or the lips where the keymap commits with a pucker.
    var commitShape = BlendShape.tongueOut
    /// After a gesture has acted: when the jaw (or tongue) starts closing, and which. The eyes move on at
    /// once while it closes (two effectors, one decision); the shell keeps the focus on the key until the
    /// shape is below its release value, so the early look cannot change what acted.
    var closing: (from: Double, face: Face)?
    var pending: [(GazePoint, Float, Float)] = []
    var spent = TypingBench.TimeSpent()
    var byAction = TypingBench.ByAction()
    var jawSteps = TypingBench.Steps(), tongueSteps = TypingBench.Steps()
    var start = 0.0, end = 0.0
    var abandoned = false
    let phase: Double
    /// The control the session last asked to act on (`bench controls` presses from the Controls view's list).
    var lastPerformedControl: ControlTarget?

    init(session: Session, profile: TypingProfile, rng: PointingBench.Rng, hold: Double,
         reading: TypingBench.Reading = .bar, method: TypingBench.Method = .word) {
        self.session = session; self.profile = profile; self.rng = rng; self.hold = hold
        self.reading = reading; self.method = method
        phase = self.rng.uniform(0, 6.3)
    }

    static let editor = "note-editor"
    var screen: NoteEditorScreen? { session.state.top as? NoteEditorScreen }
    /// The note's text as compared with the phrase: lowercased (the keyboard has no capitals; suggestions
    /// capitalise a sentence start).
    var text: String { screen?.field.text.lowercased() ?? "" }
    /// The text the phrase is judged on: the space a commit leaves at the end dropped.
    var outcome: String {
        var s = text
        while s.last == " " { s.removeLast() }
        return s
    }
    var elapsed: Double { max(0, end - start) }

    /// One frame of the face as it is now, delayed by the tracker's lag, through the real session.
    @discardableResult
    mutating func frame() -> [Effect] {
        if let c = closing, t >= c.from {
            let a = Float(max(0, 1 - (t - c.from) / 0.08)) * 0.8
            if c.face == .jaw { jaw = a } else { tongue = a }
            if a == 0 { closing = nil }
        }
        var p = eye
        p.x += profile.noise * rng.normal() + profile.tremor * sin(2 * .pi * profile.tremorHz * t + phase)
        p.y += profile.noise * rng.normal()
        pending.append((GazePoint(x: min(1, max(0, p.x)), y: min(1, max(0, p.y))), jaw, tongue))
        let lagFrames = Int((profile.lag * 60).rounded())
        let (g, j, tg) = pending.count > lagFrames ? pending.removeFirst() : (pending[0].0, Float(0), Float(0))
        let f = TrackingFrame(t: t, blend: BlendShapes([.jawOpen: j, commitShape: tg]), gaze: g)
        // The session learns what was committed or typed, as in a live run.
        let effects = session.step(.frame(f, nil))
        for e in effects { if case .performControl(let target) = e { lastPerformedControl = target } }
        t += 1.0 / 60
        return effects
    }

    /// Frames for `seconds`, the time added to `bucket`.
    mutating func wait(_ seconds: Double, _ bucket: WritableKeyPath<TypingBench.TimeSpent, Double>) {
        let stop = t + seconds
        while t < stop { frame() }
        spent[keyPath: bucket] += seconds
    }

    /// A still face for a second before the phrase: gestures act only after it (safe start); not timed.
    mutating func arm() {
        while !session.state.readiness.acting && t < 5 { frame() }
        for _ in 0..<10 { frame() }
        // The session's metrics start following the note's text at its first event, so its first letter counts.
        _ = session.send(.tick(at: t))
    }

    func centre(_ r: Rect) -> GazePoint {
        let size = session.state.size
        return GazePoint(x: (Double(r.x) + Double(r.w) / 2) / Double(size.width), y: (Double(r.y) + Double(r.h) / 2) / Double(size.height))
    }

    /// Moves the eyes (or head) to `to`: a latency, then a movement of Fitts' law duration.
    mutating func travel(to: GazePoint, width: Double, _ bucket: WritableKeyPath<TypingBench.TimeSpent, Double>) {
        let from = eye
        // Distances in widths of a cell: cells are about twice as tall as wide.
        let size = session.state.size
        let dx = (to.x - from.x) * Double(size.width), dy = (to.y - from.y) * Double(size.height) * 2
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 0.5 else { eye = to; return }
        let latency = min(profile.latencyMax, max(0, profile.latency + profile.latencySD * rng.normal()))
        let move = profile.travel + profile.travelPerBit * log2(d / max(1, width) + 1)
        let t0 = t
        while t < t0 + latency { frame() }
        let t1 = t
        while t < t1 + move {
            let a = min(1, (t - t1) / max(move, 1e-9))
            // A smooth start and stop (minimum jerk), as eyes and heads move.
            let s = a * a * a * (10 - 15 * a + 6 * a * a)
            eye = GazePoint(x: from.x + (to.x - from.x) * s, y: from.y + (to.y - from.y) * s)
            frame()
        }
        eye = to
        spent[keyPath: bucket] += t - t0
    }

    enum Face { case jaw, tongue }

    /// Looks at `id` (aiming at `aim` instead when given: a slip to the neighbouring key), waits for it to be
    /// highlighted, checks it, then performs the face gesture and holds it until something is performed;
    /// false when the target is not there or nothing was performed.
    @discardableResult
    mutating func act(_ id: String, aim: String? = nil, face: Face = .jaw, correcting: Bool = false,
                      decide: ((inout Typist, Target) -> Face)? = nil) -> Bool {
        let aimID = aim ?? id
        guard let target = session.state.hitMap.target(id: aimID) else { return false }
        let b: WritableKeyPath<TypingBench.TimeSpent, Double> = correcting ? \.correcting : \.travel
        var face = face
        let began = t, readBefore = spent.reading, correctBefore = spent.correcting
        defer { count(id, began: began, readBefore: readBefore, correctBefore: correctBefore, face: face, correcting: correcting) }
        var steps = TypingBench.Steps(count: 1)
        if face == .jaw {
            let tm = t
            travel(to: centre(target.rect), width: Double(target.rect.w), b)
            steps.move = t - tm
            // The user sees the target highlighted before acting (the smoothing and the lag catch up).
            let t0 = t
            while session.state.focus.focused != aimID && t < t0 + 2 { frame() }
            spent[keyPath: b] += t - t0
            steps.highlight = t - t0
            wait(profile.settle, correcting ? \.correcting : \.settle)
            steps.check = profile.settle
            if let decide { face = decide(&self, target) }
        }
        let g: WritableKeyPath<TypingBench.TimeSpent, Double> = correcting ? \.correcting : \.gesture
        // A face still closing from the last action must close before it can open again.
        let tc = t
        while closing != nil { frame() }
        spent[keyPath: g] += t - tc
        steps.closing = t - tc
        wait(profile.reaction, g)
        steps.reaction = profile.reaction
        let t0 = t
        var performed = false
        // The jaw opens over 80 ms to 0.8, and stays open until the key acts.
        while !performed && t < t0 + hold + 3 {
            let a = Float(min(1, (t - t0) / 0.08)) * 0.8
            if face == .jaw { jaw = a } else { tongue = a }
            let effects = frame()
            performed = effects.contains { if case .performed = $0 { true } else { false } }
        }
        closing = (t + profile.release, face)
        spent[keyPath: g] += t - t0
        steps.untilActed = t - t0
        if !correcting {
            if face == .jaw { jawSteps = jawSteps + steps } else { tongueSteps = tongueSteps + steps }
        }
        return performed
    }

    /// Adds an action's time, less its reading and correcting (`spent` keeps those), to what acted.
    mutating func count(_ id: String, began: Double, readBefore: Double, correctBefore: Double, face: Face, correcting: Bool) {
        guard !correcting else { return }
        let rest = max(0, t - began - (spent.reading - readBefore) - (spent.correcting - correctBefore))
        let keyPrefix = "\(Self.editor).keyboard.key."
        if face == .tongue || id.hasPrefix("\(Self.editor).suggestion.") {
            byAction.taking += rest; byAction.takeCount += 1
        } else if id.hasPrefix(keyPrefix), let c = id.last, c.isLetter || c == "'" {
            byAction.letters += rest; byAction.letterCount += 1
        } else {
            byAction.spaces += rest; byAction.spaceCount += 1
        }
    }

    /// The key next to `id` in its row (left or right at random), the slip a shaky pointer makes.
    mutating func neighbour(of id: String) -> String? {
        guard let k = session.state.hitMap.target(id: id) else { return nil }
        let row = session.state.hitMap.targets.filter {
            $0.id != id && $0.id.hasPrefix("\(Self.editor).keyboard.") && $0.rect.y == k.rect.y
        }
        let near = row.sorted { abs($0.rect.x - k.rect.x) < abs($1.rect.x - k.rect.x) }.prefix(2)
        guard !near.isEmpty else { return nil }
        let sides = near.filter { abs($0.rect.x - k.rect.x) <= k.rect.w + 2 }
        guard !sides.isEmpty else { return nil }
        return sides[Int(rng.unit() * Double(sides.count)) % sides.count].id
    }

    /// The keyboard target that types `c`.
    static func key(_ c: Character) -> String {
        c == " " ? "\(editor).keyboard.space" : "\(editor).keyboard.key.\(c)"
    }

    /// Reading what a key or the bar offers: a word costs `scan_ms`, each further word of a phrase half that
    /// again (assumed: a phrase is read as a whole, a little slower than one word).
    func readingCost(_ offered: String) -> Double {
        profile.scan * (1 + 0.5 * Double(max(0, offered.split(separator: " ").count - 1)))
    }

    /// Whether taking `offered` in place of the text from character `start` leaves the note on the way to the
    /// phrase: the user takes a word or a phrase only when all of it is right.
    func fits(_ offered: String, from start: Int, _ target: [Character]) -> Bool {
        let now = Array(text)
        guard start <= now.count else { return false }
        let made = Array(String(now[0..<start]) + offered.lowercased())
        guard made.count <= target.count, Array(target.prefix(made.count)) == made else { return false }
        return made.count == target.count || target[made.count] == " " || KeyboardKey.closingPunctuation.contains(target[made.count])
    }

    /// Types `phrase`: a suggestion when the bar offers the word, else the next letter; a wrong text is
    /// noticed and mended with ⌫ letter.
    mutating func type(_ phrase: String) {
        arm()
        start = t
        end = t
        let target = Array(phrase)
        var actions = 0
        let limit = target.count * 4 + 20
        if method == .initials { if act("\(Self.editor).keyboard.initials") { end = t } }
        while actions < limit {
            guard session.state.top.name == Self.editor else { abandoned = true; break }
            let now = Array(text)
            let done = Array(outcome)
            if done == target { break }
            actions += 1
            if let last = now.last, last == " ", now.count <= target.count,
               KeyboardKey.closingPunctuation.contains(target[now.count - 1]),
               Array(target.prefix(now.count - 1)) == Array(now.dropLast()) {
                // The space a commit left where the phrase has punctuation: the mark typed now goes before it.
                if act(Self.key(target[now.count - 1])) { end = t }
                continue
            }
            if method == .initials, !gaveUp, let screen, screen.composer.initialsFrom != nil {
                if typeInitials(target, screen) { continue }
            }
            if now.count > target.count || Array(target.prefix(now.count)) != now {
                // Wrong: the user sees it and deletes letters until the text is right again.
                wait(profile.notice, \.correcting)
                if act("\(Self.editor).keyboard.backspace", correcting: true) { end = t }
                continue
            }
            if let id = session.state.focus.focused, let key = session.state.hitMap.target(id: id), let screen,
               let offer = screen.composer.offer(key, session.state.context), !offer.typesKey {
                // The rest of a phrase on the key the eyes are on, read with it: the tongue takes its next word when
                // right, with no look elsewhere.
                if fits(offer.take, from: now.count, target), act(id, face: .tongue) { end = t; continue }
            }
            // The word being written and the one meant.
            let wordStart = now.lastIndex(of: " ").map { $0 + 1 } ?? 0
            var wordEnd = wordStart
            // A word ends at a space or at the punctuation after it (typed after the commit, before its space).
            while wordEnd < target.count && target[wordEnd] != " " && !KeyboardKey.closingPunctuation.contains(target[wordEnd]) {
                wordEnd += 1
            }
            let meant = String(target[wordStart..<wordEnd])
            // The bar is read only while a commit would save at least two letters of the word.
            let words = reading == .bar && wordEnd - now.count >= 2 ? suggestions() : []
            if !words.isEmpty {
                // The user reads the bar word by word until the meant word is found, or to its end.
                let found = words.firstIndex { $0.lowercased() == meant }
                for i in 0...(found ?? (words.count - 1)) {
                    guard let s = session.state.hitMap.target(id: "\(Self.editor).suggestion.\(i)") else { break }
                    travel(to: centre(s.rect), width: Double(s.rect.w), \.reading)
                    wait(profile.scan, \.reading)
                }
                if let found {
                    // The first (★) is committed with the tongue, wherever the eyes are; others by looking.
                    let ok = found == 0 ? act("\(Self.editor).suggestion.0", face: .tongue)
                        : act("\(Self.editor).suggestion.\(found)")
                    if ok { end = t }
                    continue
                }
            }
            let want = Self.key(target[now.count])
            let slip = rng.unit() < profile.errorRate ? neighbour(of: want) : nil
            let before = text
            let t0 = t, was = spent, wasBy = byAction, wasSteps = (jawSteps, tongueSteps)
            // Reading the word on the key: while checking the key, the user reads the word shown on it when
            // taking it would save a key (a letter or the space), and any phrase shown (several words stand out);
            // the tongue takes it when all of it is right, the jaw types the letter.
            let worthAWord = wordEnd - now.count >= 2
            let readsKey = reading == .key && (worthAWord || method == .phrases)
            if act(want, aim: slip, decide: !readsKey ? nil : { typist, key in
                if worthAWord { typist.wait(typist.profile.scan, \.reading) }
                guard let screen = typist.screen,
                      let offer = screen.composer.offer(key, typist.session.state.context), offer.typesKey else { return .jaw }
                if offer.shown.contains(" ") {
                    // A phrase stands out; reading it costs more than a word.
                    typist.wait(typist.readingCost(offer.shown) - (worthAWord ? typist.profile.scan : 0), \.reading)
                } else if !worthAWord {
                    return .jaw
                }
                // What the tongue takes must be right: a phrase whole, or the word before the next words on the key.
                return typist.fits(offer.take, from: wordStart, target) ? .tongue : .jaw
            }) { end = t }
            if slip != nil, text != before {
                // The slip's time counts as correcting: it is spent only because of the mistake.
                let used = t - t0
                spent = was
                spent.correcting += used
                byAction = wasBy
                (jawSteps, tongueSteps) = wasSteps
            }
        }
        if actions >= limit { abandoned = true }
        byAction.reading = spent.reading
        byAction.correcting = spent.correcting
    }

    /// One step of initials typing: the next initial (taking the phrase the key offers when it is the one
    /// meant), the bar read once all are typed, or giving up on them (⌫ word, initials off). False when the text
    /// is not as initials typing leaves it (a slip: the caller deletes).
    mutating func typeInitials(_ target: [Character], _ screen: NoteEditorScreen) -> Bool {
        let chars = Array(text)
        let from = screen.composer.initialsRange(of: screen.field) ?? chars.count
        let committed = Array(chars[0..<from])
        guard committed.count <= target.count, Array(target.prefix(committed.count)) == committed else { return false }
        // The words up to the next punctuation mark: one expansion.
        var k = committed.count
        while k < target.count, target[k] == " " { k += 1 }
        var words: [String] = []
        var current = ""
        while k < target.count, !KeyboardKey.closingPunctuation.contains(target[k]) {
            if target[k] == " " { if !current.isEmpty { words.append(current); current = "" } } else { current.append(target[k]) }
            k += 1
        }
        if !current.isEmpty { words.append(current) }
        let wanted = words.compactMap(\.first)
        let typed = Array(chars[from...])
        guard typed.count <= wanted.count, Array(wanted.prefix(typed.count)) == typed else { return false }
        if typed.count == wanted.count {
            // All typed and the key never offered it: the bar, phrase by phrase.
            let offered = suggestions()
            let found = offered.firstIndex { fits($0, from: from, target) }
            for i in 0...(found ?? max(0, offered.count - 1)) where i < offered.count {
                guard let s = session.state.hitMap.target(id: "\(Self.editor).suggestion.\(i)") else { break }
                travel(to: centre(s.rect), width: Double(s.rect.w), \.reading)
                wait(readingCost(offered[i]), \.reading)
            }
            if let found {
                if found == 0 ? act("\(Self.editor).suggestion.0", face: .tongue) : act("\(Self.editor).suggestion.\(found)") { end = t }
                return true
            }
            // Not offered: the initials go, and the rest is typed by words.
            if act("\(Self.editor).keyboard.delete-word", correcting: true) { end = t }
            if act("\(Self.editor).keyboard.initials", correcting: true) { end = t }
            gaveUp = true
            return true
        }
        let want = Self.key(wanted[typed.count])
        let slip = rng.unit() < profile.errorRate ? neighbour(of: want) : nil
        if act(want, aim: slip, decide: { typist, key in
            guard let screen = typist.screen,
                  let (_, phrase) = screen.composer.wordOnKey(key, typist.session.state.context) else { return .jaw }
            typist.wait(typist.readingCost(phrase), \.reading)
            return typist.fits(phrase, from: from, target) ? .tongue : .jaw
        }) { end = t }
        return true
    }

    /// The words the suggestion bar shows now.
    func suggestions() -> [String] {
        let n = session.state.settings.suggestions
        guard n > 0, let field = screen?.field else { return [] }
        return Array(session.state.predictor.suggest(field.beforeCaret, limit: n).prefix(n))
    }
}
