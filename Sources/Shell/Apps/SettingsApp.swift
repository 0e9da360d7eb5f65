import Config
import Localization
import TrackingCore

/// The shell's own settings, changed hands-free and applied at once (`Effect.settingsChanged`: the session
/// rebuilds the pipeline, the runtime saves them to the user's config). Sections on a tab bar.
public struct SettingsScreen: Screen {
    public let name = "settings"
    /// Nothing on it moves with time: no tick is asked for.
    public var wantsTicks: Bool { false }
    public let title = N_("Settings")
    public var tab = "tracking"
    var keymaps = ScrollList(rowHeight: 3)

    public static let maxSuggestions = 6.0
    public static let tabs: [(key: String, label: String)] = [("tracking", "Gestures"), ("pointer", "Pointer"),
                                                               ("display", "Display"), ("access", "Accessibility"),
                                                               ("keymap", "Keymap"), ("speech", "Speech")]
    public static let voices: [(key: String, label: String)] = [("flite", "flite"), ("piper", "Piper (natural)"), ("espeak", "espeak-ng")]
    public static let speechRate = Slider(range: 0.5...2, step: 0.1, digits: 1, unit: "×")
    public static let speechVolume = Slider(range: 0.1...1, step: 0.1, digits: 1)
    public static let echoes: [(key: String, label: String)] = [("off", "No echo"), ("words", "Words"), ("sentences", "Sentences")]
    public static let numbers: [(key: String, label: String)] = [("digits", "23"), ("words", "twenty three")]
    public static let engines: [(key: String, label: String)] = [("auto", "auto"), ("whisper", "Whisper"), ("pocketsphinx", "Sphinx")]
    public static let reach = Slider(range: 5...30, step: 1, digits: 0, unit: "°")
    public static let deadZone = Slider(range: 0...3, step: 0.1, digits: 1, unit: "°")
    public static let themes: [(key: String, label: String)] = ThemeKind.allCases.map { ($0.rawValue, $0.label) }
    public static let jaw = Slider(range: 0.2...0.9, step: 0.05)
    public static let dwell = Slider(range: 0.4...3.0, step: 0.1, digits: 1, unit: " s")
    public static let suggestions = Stepper(range: 0...Int(maxSuggestions))
    public static let pointerSpeed = Slider(range: 100...2000, step: 100, digits: 0, unit: " px/s")
    public static let pointings: [(key: String, label: String)] = [("gaze", "Gaze places it"), ("head", "Head steers it")]
    public static let silence = Slider(range: 3...60, step: 1, digits: 0, unit: " s")
    public static let filters: [(key: String, label: String)] = [("moving-average", "Moving average"),
                                                                  ("low-pass", "Low-pass"), ("one-euro", "One Euro")]

    public static let paces: [(key: String, label: String)] = [("normal", "Dots at a normal pace"), ("slow", "Slow dots")]

    public init(tab: String = "tracking") { self.tab = tab }

    struct Layout { var tabs: Rect; var rows: [Rect]; var list: Rect }

    func layout(_ b: Rect) -> Layout {
        let tabs = Rect(x: b.x + 2, y: b.y + 1, w: b.w - 4, h: 3)
        let page = Rect(x: b.x + 4, y: tabs.maxY + 1, w: b.w - 8, h: b.maxY - tabs.maxY - 1)
        let rows = (0..<4).map { Rect(x: page.x, y: page.y + 1 + $0 * 5, w: page.w, h: 3) }
        return Layout(tabs: tabs, rows: rows.filter { $0.maxY <= b.maxY }, list: Rect(x: page.x, y: page.y + 1, w: page.w, h: page.h - 1))
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds)
        let s = ctx.settings
        c.tabBar("settings.tab", Self.tabs, selected: tab, l.tabs)
        func note(_ r: Rect, _ text: String) { c.text(text, x: r.x + 2, y: r.maxY, style: Theme.hint, maxWidth: r.w - 4) }
        switch tab {
        case "tracking" where l.rows.count >= 3:
            c.slider("settings.jaw", "Jaw threshold", Self.jaw, value: s.jawThreshold, l.rows[0])
            note(l.rows[0], "How far the jaw must open to activate: each activation moves it one step.")
            c.slider("settings.dwell", "Dwell time", Self.dwell, value: s.dwellTime, l.rows[1])
            note(l.rows[1], "How long the gaze rests on a target to activate it (gaze-only keymaps).")
            c.segmented("settings.smoothing", Self.filters, selected: s.smoothing.rawValue, l.rows[2])
            note(l.rows[2], "Gaze smoothing: steadier cursor (moving average) or quicker response (One Euro).")
            if l.rows.count >= 4 {
                c.segmented("settings.pursuit", Self.paces, selected: s.pursuitPace.rawValue, l.rows[3])
                note(l.rows[3], "Following dots (pursuit keymaps): slow turns them slower, for eyes that follow late.")
            }
        case "pointer" where l.rows.count >= 3:
            c.slider("settings.reach", "Head reach", Self.reach, value: s.headReachDegrees, l.rows[0])
            note(l.rows[0], "Webcam: how far to turn the head, each way, to reach the edge of the screen.")
            c.slider("settings.deadzone", "Head dead zone", Self.deadZone, value: s.headDeadZoneDegrees, l.rows[1])
            note(l.rows[1], "A turn this small from the centre counts as none, so a resting head holds the pointer.")
            let thirds = l.rows[2].columns(3, gap: 2)
            c.button("settings.calibrate", (ctx.calibration != nil) ? "◎ Pointer again" : "◎ Calibrate pointer", thirds[0])
            c.button("settings.calibrate-gestures", ctx.tracking.gestureThresholds.isEmpty ? "◎ Calibrate gestures" : "◎ Gestures again", thirds[1])
            c.button("settings.recentre", "⊕ Recentre the head", thirds[2])
            note(l.rows[2], "Calibrate the pointer or your gestures. Recentre: the head's pose now is the middle.")
            if l.rows.count >= 4 {
                let halves = l.rows[3].columns(2, gap: 2)
                c.segmented("settings.pointing", Self.pointings, selected: s.desktopPointing.rawValue, halves[0])
                c.slider("settings.pointer-speed", "Head speed", Self.pointerSpeed, value: s.desktopPointerSpeed, halves[1])
                note(l.rows[3], "Desktop pointer mode: where the gaze is, or the head as a joystick (its top speed).")
            }
        case "display" where l.rows.count >= 3:
            // Two toggles share the first row, so every row fits on the smallest screen (80×24).
            let halves = l.rows[0].columns(2, gap: 2)
            c.toggle("settings.cursor", "Show the gaze cursor", isOn: s.showGazeCursor, halves[0])
            c.toggle("settings.rude", "Suggest rude words", isOn: s.suggestRudeWords, halves[1])
            note(l.rows[0], "Cursor: easier aiming. Rude words off: offered once you typed them.")
            let words = l.rows[1].columns(2, gap: 2)
            c.stepper("settings.suggestions", "Suggestions", value: "\(s.suggestions)", words[0])
            c.toggle("settings.word-on-key", "Word on the key", isOn: s.wordOnKey, words[1])
            note(l.rows[1], "Words above the keyboard; the first also on the key you look at (tongue takes it).")
            c.slider("settings.silence", "Dictation stops after", Self.silence, value: s.dictationSilence, l.rows[2])
            note(l.rows[2], "Seconds of silence after which the microphone closes by itself while dictating.")
            if l.rows.count >= 4 {
                let halves = l.rows[3].columns(2, gap: 2)
                c.segmented("settings.numbers", Self.numbers, selected: s.dictationNumbers, halves[0])
                c.segmented("settings.engine", Self.engines, selected: s.dictationEngine, halves[1])
                note(l.rows[3], "Dictated numbers; the engine from the next start (auto: Whisper when installed).")
            }
        case "access" where l.rows.count >= 2:
            c.segmented("settings.theme", Self.themes, selected: s.theme.rawValue, l.rows[0])
            note(l.rows[0], "Colours. Focus always shows reversed, never by colour alone.")
            let halves = l.rows[1].columns(2, gap: 2)
            c.toggle("settings.large", "Large targets", isOn: s.largeTargets, halves[0])
            c.toggle("settings.bell", "Bell on activate", isOn: s.bellOnActivate, halves[1])
            note(l.rows[1], "Large: bigger keys where there is room. Bell: a beep on activation.")
            if l.rows.count >= 3 {
                c.toggle("settings.metrics", "Keep usage statistics", isOn: s.recordMetrics, l.rows[2].columns(2, gap: 2)[0])
                note(l.rows[2], "Typing speed and false triggers, kept on this computer only (handsfree stats).")
            }
        case "speech" where l.rows.count >= 3:
            c.segmented("settings.voice", Self.voices, selected: s.speechVoice, l.rows[0])
            note(l.rows[0], "The voice Speak uses. Piper needs scripts/python-env.sh speak; flite speaks if it cannot.")
            let sound = l.rows[1].columns(2, gap: 2)
            c.slider("settings.speech-rate", "Speed", Self.speechRate, value: s.speechRate, sound[0])
            c.slider("settings.speech-volume", "Loudness", Self.speechVolume, value: s.speechVolume, sound[1])
            note(l.rows[1], "How fast (1× is the voice's own speed) and how loud the voice speaks.")
            let echo = l.rows[2].columns(2, gap: 2)
            c.segmented("settings.echo", Self.echoes, selected: s.speechEcho.rawValue, echo[0])
            c.toggle("settings.speak-focus", "Hear the focus", isOn: s.speakFocus, echo[1])
            note(l.rows[2], "Echo as you type: each word or sentence said as it ends. Focus: its label said as it settles.")
            if l.rows.count >= 4 {
                let halves = l.rows[3].columns(2, gap: 2)
                c.button("settings.try-voice", ctx.speaking ? "■ Stop" : "♪ Try the voice", halves[0])
                c.toggle("settings.talk-hold", "Mouth waits while I talk", isOn: s.holdMouthWhileTalking, halves[1])
                note(l.rows[3], "Try: say a sentence. Talking (heard by the microphone) holds jaw and lip gestures.")
            }
        case "keymap":
            let rows = ctx.services.keymapNames.map { k in
                ListRow(id: "settings.keymap." + k, (k == s.keymap ? "● " : "○ ") + k,
                        detail: k == s.keymap ? "active" : nil)
            }
            c.scrollList("settings.keymaps", rows, keymaps, l.list, empty: "No keymaps found in keymaps/.")
        default:
            break
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        if case .tick = input { return .unhandled }
        let l = layout(ctx.bounds)
        if tab == "keymap",
           keymaps.handle(input, id: "settings.keymaps", count: ctx.services.keymapNames.count, in: l.list) {
            return Reply(record: "scroll")
        }
        if case .action(.help, _, _) = input { return .push(AppHelpScreen(app: name, appTitle: title)) }
        guard case .action(.activate, let t?, let gaze) = input else { return .unhandled }
        if let k = choice(t.id, of: "settings.tab", in: Self.tabs.map(\.key)) {
            tab = k
            return Reply(record: "tab")
        }
        if t.id == "settings.calibrate" { return .open("calibration") }
        if t.id == "settings.calibrate-gestures" { return .open("gesture-calibration") }
        if t.id == "settings.recentre" { return Reply(effects: [.recentre], record: "recentre") }
        if t.id == "settings.try-voice" {
            return Reply(effects: [ctx.speaking ? .stopSpeaking : ctx.speakEffect("Hello. This is how I sound when I speak for you.")], record: "try-voice")
        }
        var s = ctx.settings
        if l.rows.count >= 2, let v = Self.jaw.activate(t.id, id: "settings.jaw", gaze: gaze, value: s.jawThreshold, in: l.rows[0]) {
            s.jawThreshold = v
        } else if l.rows.count >= 2, let v = Self.dwell.activate(t.id, id: "settings.dwell", gaze: gaze, value: s.dwellTime, in: l.rows[1]) {
            s.dwellTime = v
        } else if let k = choice(t.id, of: "settings.pursuit", in: Self.paces.map(\.key)), let p = PursuitPace(rawValue: k) {
            s.pursuitPace = p
        } else if let k = choice(t.id, of: "settings.smoothing", in: Self.filters.map(\.key)), let f = SmoothingKind(rawValue: k) {
            s.smoothing = f
        } else if tab == "pointer", let v = Self.reach.activate(t.id, id: "settings.reach", gaze: gaze, value: s.headReachDegrees, in: l.rows[0]) {
            s.headReachDegrees = v
        } else if tab == "pointer", l.rows.count >= 2,
                  let v = Self.deadZone.activate(t.id, id: "settings.deadzone", gaze: gaze, value: s.headDeadZoneDegrees, in: l.rows[1]) {
            s.headDeadZoneDegrees = v
        } else if tab == "pointer", l.rows.count >= 4, let k = choice(t.id, of: "settings.pointing", in: Self.pointings.map(\.key)),
                  let p = DesktopPointing(rawValue: k) {
            s.desktopPointing = p
        } else if tab == "pointer", l.rows.count >= 4,
                  let v = Self.pointerSpeed.activate(t.id, id: "settings.pointer-speed", gaze: gaze, value: s.desktopPointerSpeed,
                                                     in: l.rows[3].columns(2, gap: 2)[1]) {
            s.desktopPointerSpeed = v
        } else if l.rows.count >= 3, let v = Self.silence.activate(t.id, id: "settings.silence", gaze: gaze, value: s.dictationSilence,
                                                                   in: l.rows[2]) {
            s.dictationSilence = v
        } else if let k = choice(t.id, of: "settings.voice", in: Self.voices.map(\.key)) {
            s.speechVoice = k
        } else if tab == "speech", let v = Self.speechRate.activate(t.id, id: "settings.speech-rate", gaze: gaze, value: s.speechRate,
                                                                   in: l.rows[1].columns(2, gap: 2)[0]) {
            s.speechRate = v
        } else if tab == "speech", let v = Self.speechVolume.activate(t.id, id: "settings.speech-volume", gaze: gaze, value: s.speechVolume,
                                                                     in: l.rows[1].columns(2, gap: 2)[1]) {
            s.speechVolume = v
        } else if let k = choice(t.id, of: "settings.echo", in: Self.echoes.map(\.key)), let e = SpeechEcho(rawValue: k) {
            s.speechEcho = e
        } else if t.id == "settings.speak-focus" {
            s.speakFocus.toggle()
        } else if t.id == "settings.talk-hold" {
            s.holdMouthWhileTalking.toggle()
        } else if let k = choice(t.id, of: "settings.theme", in: Self.themes.map(\.key)), let th = ThemeKind(rawValue: k) {
            s.theme = th
        } else if let k = choice(t.id, of: "settings.numbers", in: Self.numbers.map(\.key)) {
            s.dictationNumbers = k
        } else if let k = choice(t.id, of: "settings.engine", in: Self.engines.map(\.key)) {
            s.dictationEngine = k
        } else if t.id == "settings.large" {
            s.largeTargets.toggle()
        } else if t.id == "settings.bell" {
            s.bellOnActivate.toggle()
        } else if t.id == "settings.metrics" {
            s.recordMetrics.toggle()
        } else if t.id == "settings.cursor" {
            s.showGazeCursor.toggle()
        } else if t.id == "settings.rude" {
            s.suggestRudeWords.toggle()
        } else if t.id == "settings.word-on-key" {
            s.wordOnKey.toggle()
        } else if let v = Self.suggestions.activate(t.id, id: "settings.suggestions", value: s.suggestions) {
            s.suggestions = v
        } else if t.id.hasPrefix("settings.keymap."), case let k = String(t.id.dropFirst("settings.keymap.".count)),
                  ctx.services.keymapNames.contains(k) {
            s.keymap = k
        } else {
            return .unhandled
        }
        return Reply(effects: s == ctx.settings ? [] : [.settingsChanged(s)], record: "set")
    }
}
