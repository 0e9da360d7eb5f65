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
    public static let tabs: [(key: String, label: String)] = [("tracking", N_("Gestures")), ("pointer", N_("Pointer")),
                                                               ("display", N_("Display")), ("access", N_("Accessibility")),
                                                               ("keymap", N_("Keymap")), ("speech", N_("Speech")),
                                                               ("language", N_("Language"))]
    public static let voices: [(key: String, label: String)] = [("flite", "flite"), ("piper", N_("Piper (natural)")), ("espeak", "espeak-ng")]
    public static let speechRate = Slider(range: 0.5...2, step: 0.1, digits: 1, unit: "×")
    public static let speechVolume = Slider(range: 0.1...1, step: 0.1, digits: 1)
    public static let echoes: [(key: String, label: String)] = [("off", N_("No echo")), ("words", N_("Words")), ("sentences", N_("Sentences"))]
    public static let numbers: [(key: String, label: String)] = [("digits", "23"), ("words", N_("twenty three"))]
    public static let engines: [(key: String, label: String)] = [("auto", N_("auto")), ("whisper", "Whisper"), ("pocketsphinx", "Sphinx")]
    public static let reach = Slider(range: 5...30, step: 1, digits: 0, unit: "°")
    public static let deadZone = Slider(range: 0...3, step: 0.1, digits: 1, unit: "°")
    public static let themes: [(key: String, label: String)] = ThemeKind.allCases.map { ($0.rawValue, $0.label) }
    public static let jaw = Slider(range: 0.2...0.9, step: 0.05)
    public static let dwell = Slider(range: 0.4...3.0, step: 0.1, digits: 1, unit: " s")
    public static let suggestions = Stepper(range: 0...Int(maxSuggestions))
    public static let pointerSpeed = Slider(range: 100...2000, step: 100, digits: 0, unit: " px/s")
    public static let pointings: [(key: String, label: String)] = [("gaze", N_("Gaze places it")), ("head", N_("Head steers it"))]
    public static let silence = Slider(range: 3...60, step: 1, digits: 0, unit: " s")
    public static let filters: [(key: String, label: String)] = [("moving-average", N_("Moving average")),
                                                                  ("low-pass", N_("Low-pass")), ("one-euro", N_("One Euro"))]

    public static let paces: [(key: String, label: String)] = [("normal", N_("Dots at a normal pace")), ("slow", N_("Slow dots"))]

    /// How the screen shows a setting of the schema (`ShellSettings.schema`): the control's target id, its label,
    /// and its look. Its value is read and set through the schema's entry, as the file is.
    struct Control {
        enum Look {
            case toggle(String)
            /// The slider's span and step are the screen's (a comfortable part of the setting's range); `scale`
            /// turns the settings' value into the file's (dwell: seconds on the screen, milliseconds in the file).
            case slider(String, Slider, scale: Double = 1)
            case stepper(String, Stepper)
            case segmented([(key: String, label: String)])
        }
        var setting: String
        var id: String
        var look: Look
    }

    /// What a row of a tab holds: settings, or a control of the screen's own (a button), side by side.
    enum Cell { case setting(Control), own(String) }

    /// A row of a tab: its cells, in as many columns as `columns` (the cells fill the first ones), and a note.
    struct PageRow {
        var cells: [Cell]
        var columns: Int
        var note: String
        init(_ cells: [Cell], columns: Int? = nil, note: String) { self.cells = cells; self.columns = columns ?? cells.count; self.note = note }
    }

    /// The tabs made of settings, row by row, with how many rows must fit for the tab to show at all; a row past
    /// those shows when it fits. Two controls share a row so every row fits on the smallest screen (80×24).
    static let pages: [String: (minimum: Int, rows: [PageRow])] = [
        "tracking": (3, [
            PageRow([.setting(Control(setting: "jaw_threshold", id: "settings.jaw", look: .slider(N_("Jaw threshold"), jaw)))],
                    note: N_("How far the jaw must open to activate: each activation moves it one step.")),
            PageRow([.setting(Control(setting: "dwell_ms", id: "settings.dwell", look: .slider(N_("Dwell time"), dwell, scale: 1000)))],
                    note: N_("How long the gaze rests on a target to activate it (gaze-only keymaps).")),
            PageRow([.setting(Control(setting: "smoothing", id: "settings.smoothing", look: .segmented(filters)))],
                    note: N_("Gaze smoothing: steadier cursor (moving average) or quicker response (One Euro).")),
            PageRow([.setting(Control(setting: "pursuit_pace", id: "settings.pursuit", look: .segmented(paces)))],
                    note: N_("Following dots (pursuit keymaps): slow turns them slower, for eyes that follow late.")),
        ]),
        "pointer": (3, [
            PageRow([.setting(Control(setting: "head_reach_deg", id: "settings.reach", look: .slider(N_("Head reach"), reach)))],
                    note: N_("Webcam: how far to turn the head, each way, to reach the edge of the screen.")),
            PageRow([.setting(Control(setting: "head_dead_zone_deg", id: "settings.deadzone", look: .slider(N_("Head dead zone"), deadZone)))],
                    note: N_("A turn this small from the centre counts as none, so a resting head holds the pointer.")),
            PageRow([.own("settings.calibrate"), .own("settings.calibrate-gestures"), .own("settings.recentre")],
                    note: N_("Calibrate the pointer or your gestures. Recentre: the head's pose now is the middle.")),
            PageRow([.setting(Control(setting: "desktop_pointing", id: "settings.pointing", look: .segmented(pointings))),
                     .setting(Control(setting: "desktop_pointer_speed", id: "settings.pointer-speed", look: .slider(N_("Head speed"), pointerSpeed)))],
                    note: N_("Desktop pointer mode: where the gaze is, or the head as a joystick (its top speed).")),
        ]),
        "display": (3, [
            PageRow([.setting(Control(setting: "show_gaze_cursor", id: "settings.cursor", look: .toggle(N_("Show the gaze cursor")))),
                     .setting(Control(setting: "suggest_rude_words", id: "settings.rude", look: .toggle(N_("Suggest rude words"))))],
                    note: N_("Cursor: easier aiming. Rude words off: offered once you typed them.")),
            PageRow([.setting(Control(setting: "suggestions", id: "settings.suggestions", look: .stepper(N_("Suggestions"), suggestions))),
                     .setting(Control(setting: "word_on_key", id: "settings.word-on-key", look: .toggle(N_("Word on the key"))))],
                    note: N_("Words above the keyboard; the first also on the key you look at (tongue takes it).")),
            PageRow([.setting(Control(setting: "dictation_silence_s", id: "settings.silence", look: .slider(N_("Dictation stops after"), silence)))],
                    note: N_("Seconds of silence after which the microphone closes by itself while dictating.")),
            PageRow([.setting(Control(setting: "dictation_numbers", id: "settings.numbers", look: .segmented(numbers))),
                     .setting(Control(setting: "dictation_engine", id: "settings.engine", look: .segmented(engines)))],
                    note: N_("Dictated numbers; the engine from the next start (auto: Whisper when installed).")),
        ]),
        "access": (2, [
            PageRow([.setting(Control(setting: "theme", id: "settings.theme", look: .segmented(themes)))],
                    note: N_("Colours. Focus always shows reversed, never by colour alone.")),
            PageRow([.setting(Control(setting: "large_targets", id: "settings.large", look: .toggle(N_("Large targets")))),
                     .setting(Control(setting: "bell_on_activate", id: "settings.bell", look: .toggle(N_("Bell on activate"))))],
                    note: N_("Large: bigger keys where there is room. Bell: a beep on activation.")),
            PageRow([.setting(Control(setting: "record_metrics", id: "settings.metrics", look: .toggle(N_("Keep usage statistics"))))], columns: 2,
                    note: N_("Typing speed and false triggers, kept on this computer only (handsfree stats).")),
        ]),
        "speech": (3, [
            PageRow([.setting(Control(setting: "speech_voice", id: "settings.voice", look: .segmented(voices)))],
                    note: N_("The voice Speak uses. Piper needs scripts/python-env.sh speak; flite speaks if it cannot.")),
            PageRow([.setting(Control(setting: "speech_rate", id: "settings.speech-rate", look: .slider(N_("Speed"), speechRate))),
                     .setting(Control(setting: "speech_volume", id: "settings.speech-volume", look: .slider(N_("Loudness"), speechVolume)))],
                    note: N_("How fast (1× is the voice's own speed) and how loud the voice speaks.")),
            PageRow([.setting(Control(setting: "speech_echo", id: "settings.echo", look: .segmented(echoes))),
                     .setting(Control(setting: "speak_focus", id: "settings.speak-focus", look: .toggle(N_("Hear the focus"))))],
                    note: N_("Echo as you type: each word or sentence said as it ends. Focus: its label said as it settles.")),
            PageRow([.own("settings.try-voice"),
                     .setting(Control(setting: "hold_mouth_while_talking", id: "settings.talk-hold", look: .toggle(N_("Mouth waits while I talk"))))],
                    note: N_("Try: say a sentence. Talking (heard by the microphone) holds jaw and lip gestures.")),
        ]),
    ]

    public init(tab: String = "tracking") { self.tab = tab }

    /// The languages offered: the system's (auto), English and every installed one, each named in itself.
    static func languageOptions(_ ctx: ScreenContext) -> [(key: String, label: String)] {
        var installed = ctx.services.languages
        // The language in use is offered even when the services were made without the list (a test, the demo).
        if !LanguageChoice.isEnglish(ctx.catalog.language), !installed.contains(where: { $0.code == ctx.catalog.language }) {
            installed.append((ctx.catalog.language, LanguageChoice.ownName(ctx.catalog.language) ?? ctx.catalog.language))
        }
        return [(LanguageChoice.automatic, ctx.tr("Auto")), (LanguageChoice.english, "English")]
            + installed.sorted { $0.code < $1.code }.map { ($0.code, $0.name) }
    }

    /// The option the `language` setting names (a code as written, `es_ES`, selects its pack's `es`).
    static func selectedLanguage(_ ctx: ScreenContext) -> String {
        let setting = ctx.settings.language
        guard setting != LanguageChoice.automatic, let code = LanguageChoice.normalise(setting) else { return setting }
        if LanguageChoice.isEnglish(code) { return LanguageChoice.english }
        return LanguageChoice.pack(for: code, installed: languageOptions(ctx).map(\.key)) ?? code
    }

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
        c.tabBar("settings.tab", ctx.tr(Self.tabs), selected: tab, l.tabs)
        // A note wraps onto the blank row below it rather than lose its end (at 80 columns, and in longer languages).
        func note(_ r: Rect, _ text: String) {
            c.paragraph(text, Rect(x: r.x + 2, y: r.maxY, w: r.w - 4, h: max(1, min(2, c.bounds.maxY - r.maxY))), style: Theme.hint)
        }
        switch tab {
        case _ where Self.pages[tab].map { l.rows.count >= $0.minimum } == true:
            for (row, r) in zip(Self.pages[tab]?.rows ?? [], l.rows) {
                for (cell, rect) in zip(row.cells, row.columns == 1 ? [r] : r.columns(row.columns, gap: 2)) {
                    switch cell {
                    case .setting(let control): draw(control, &c, ctx, rect)
                    case .own(let id): drawOwn(id, &c, ctx, rect)
                    }
                }
                note(r, ctx.tr(row.note))
            }
        case "language" where l.rows.count >= 2:
            // Each language is named in its own language, never translated: a user who cannot read the language
            // on the screen still finds theirs, at the same place as before the switch.
            let options = Self.languageOptions(ctx)
            for (i, r) in l.rows.prefix(2).enumerated() {
                let row = Array(options.dropFirst(i * 4).prefix(4))
                if row.isEmpty { break }
                // Four to a row, each as wide as on a full row.
                let cells = Rect(x: r.x, y: r.y, w: (r.w + 1) * row.count / 4 - 1, h: r.h)
                c.segmented("settings.language", row, selected: Self.selectedLanguage(ctx), cells)
            }
            note(l.rows[0], ctx.tr("The language of every screen, at once. Each is named in its own language."))
            if l.rows.count >= 3 {
                note(l.rows[1], ctx.tr("Auto: the system's language (LANG) when it is installed, else English."))
            }
        case "keymap":
            let rows = ctx.services.keymapNames.map { k in
                ListRow(id: "settings.keymap." + k, (k == s.keymap ? "● " : "○ ") + k,
                        detail: k == s.keymap ? ctx.tr("active") : nil)
            }
            c.scrollList("settings.keymaps", rows, keymaps, l.list, empty: ctx.tr("No keymaps found in keymaps/."))
        default:
            break
        }
    }

    /// Draws a setting's control with the setting's value as the schema reads it.
    func draw(_ control: Control, _ c: inout Canvas, _ ctx: ScreenContext, _ rect: Rect) {
        guard let entry = ShellSettings.schema.entry(control.setting) else { return }
        // The tracking values in effect, read from the pipeline, whether the user set them or the config did.
        let value = entry.get(ctx.settings.shown(in: ctx.pipeline))
        switch (control.look, value) {
        case (.toggle(let label), .bool(let on)): c.toggle(control.id, ctx.tr(label), isOn: on, rect)
        case (.slider(let label, let slider, let scale), .number(let n)): c.slider(control.id, ctx.tr(label), slider, value: n / scale, rect)
        case (.stepper(let label, _), .number(let n)): c.stepper(control.id, ctx.tr(label), value: "\(Int(n))", rect)
        case (.segmented(let options), .string(let key)): c.segmented(control.id, ctx.tr(options), selected: key, rect)
        default: break
        }
    }

    /// Draws a button of the screen's own.
    func drawOwn(_ id: String, _ c: inout Canvas, _ ctx: ScreenContext, _ rect: Rect) {
        switch id {
        case "settings.calibrate": c.button(id, (ctx.calibration != nil) ? ctx.tr("◎ Pointer again") : ctx.tr("◎ Calibrate pointer"), rect)
        case "settings.calibrate-gestures":
            c.button(id, ctx.tracking.gestureThresholds.isEmpty ? ctx.tr("◎ Calibrate gestures") : ctx.tr("◎ Gestures again"), rect)
        case "settings.recentre": c.button(id, ctx.tr("⊕ Recentre the head"), rect)
        case "settings.try-voice": c.button(id, ctx.speaking ? ctx.tr("■ Stop") : ctx.tr("♪ Try the voice"), rect)
        default: break
        }
    }

    /// The value the target `id` gives `control`'s setting (in the file's terms, as the schema sets it), nil if
    /// the target is not one of the control's.
    func activate(_ control: Control, _ id: String, gaze: CellPoint?, _ settings: ShellSettings, in rect: Rect) -> SettingValue? {
        guard id == control.id || id.hasPrefix(control.id + "."), let entry = ShellSettings.schema.entry(control.setting) else { return nil }
        switch (control.look, entry.get(settings)) {
        case (.toggle, .bool(let on)): return id == control.id ? .bool(!on) : nil
        case (.slider(_, let slider, let scale), .number(let n)):
            // Scaled to whole file units (dwell: milliseconds), as the file keeps it, so 1.2 s stays 1.2.
            return slider.activate(id, id: control.id, gaze: gaze, value: n / scale, in: rect).map { .number(scale == 1 ? $0 : ($0 * scale).rounded()) }
        case (.stepper(_, let stepper), .number(let n)):
            return stepper.activate(id, id: control.id, value: Int(n)).map { .number(Double($0)) }
        case (.segmented(let options), .string):
            return choice(id, of: control.id, in: options.map(\.key)).map(SettingValue.string)
        default: return nil
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
        if let k = choice(t.id, of: "settings.language", in: Self.languageOptions(ctx).map(\.key)) {
            var s = ctx.settings
            s.language = k
            return Reply(effects: s == ctx.settings ? [] : [.settingsChanged(s)], record: "set")
        }
        if let k = choice(t.id, of: "settings.tab", in: Self.tabs.map(\.key)) {
            tab = k
            return Reply(record: "tab")
        }
        if t.id == "settings.calibrate" { return .open("calibration") }
        if t.id == "settings.calibrate-gestures" { return .open("gesture-calibration") }
        if t.id == "settings.recentre" { return Reply(effects: [.recentre], record: "recentre") }
        if t.id == "settings.try-voice" {
            return Reply(effects: [ctx.speaking ? .stopSpeaking : ctx.speakEffect(ctx.tr("Hello. This is how I sound when I speak for you."))], record: "try-voice")
        }
        // A control steps from the value shown (in effect); what it sets is the user's own (an override).
        var s = ctx.settings
        let shown = s.shown(in: ctx.pipeline)
        if let page = Self.pages[tab], l.rows.count >= page.minimum,
           case let hit = zip(page.rows, l.rows).lazy.flatMap({ row, r in
               zip(row.cells, row.columns == 1 ? [r] : r.columns(row.columns, gap: 2)).compactMap { cell, rect -> (Control, SettingValue)? in
                   guard case .setting(let control) = cell else { return nil }
                   return activate(control, t.id, gaze: gaze, shown, in: rect).map { (control, $0) }
               }
           }).first, let (control, value) = hit, let entry = ShellSettings.schema.entry(control.setting) {
            entry.set(&s, value)
        } else if t.id.hasPrefix("settings.keymap."), case let k = String(t.id.dropFirst("settings.keymap.".count)),
                  ctx.services.keymapNames.contains(k) {
            s.keymap = k
        } else {
            return .unhandled
        }
        return Reply(effects: s == ctx.settings ? [] : [.settingsChanged(s)], record: "set")
    }
}
