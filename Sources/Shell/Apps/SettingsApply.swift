import Config
import Localization
import TrackingCore

extension ShellState {
    /// The body area screens render into: below the title bar (and the Back target of gaze-only keymaps),
    /// above the status line. `render` uses the same rectangle.
    public var bodyBounds: Rect {
        if keymap.showBackTarget && stack.count > 1 {
            return Rect(x: 0, y: 4, w: size.width, h: size.height - 4 - statusRows)
        }
        return Rect(x: 0, y: 1, w: size.width, h: size.height - 1 - statusRows)
    }
}

extension TrackingSettings {
    /// The built-in values shown when the pipeline has nothing to read one from (no jaw or dwell gesture).
    static let shownWithout = (jawThreshold: 0.5, dwellTime: 1.0)

    /// The pipeline settings made from `p` (the gesture config's, with its calibrations) and the overrides that
    /// are set: every jaw gesture's press threshold (its release moves with it, keeping the same hysteresis
    /// gap), every dwell gesture's dwell time, the smoothing filter, the head's reach and dead zone. A nil
    /// override keeps `p`'s value. The escape gesture (`EscapeGesture`) keeps its built-in thresholds: it must
    /// act whatever these say.
    public func applied(to p: PipelineSettings) -> PipelineSettings {
        var out = p
        if let smoothing { out.smoothing.kind = smoothing }
        // The head ranges keep their middles and directions (trackers disagree on signs) and scale together.
        let yaw = p.mapping.headYawRange, pitch = p.mapping.headPitchRange
        let half = abs(yaw.to - yaw.from) / 2
        if let headReachDegrees, half > 0 {
            let f = (min(45, max(2, headReachDegrees)) * Double.pi / 180) / half
            func scaled(_ r: GazeMapping.ClosedRangeD) -> GazeMapping.ClosedRangeD {
                let mid = (r.from + r.to) / 2
                return .init(mid + (r.from - mid) * f, mid + (r.to - mid) * f)
            }
            out.mapping.headYawRange = scaled(yaw)
            out.mapping.headPitchRange = scaled(pitch)
        }
        if let headDeadZoneDegrees { out.mapping.headDeadZone = min(10, max(0, headDeadZoneDegrees)) * Double.pi / 180 }
        guard jawThreshold != nil || dwellTime != nil else { return out }
        out.gestures = p.gestures.map { g in
            var g = g
            switch g.kind {
            case .threshold(var t) where ShellSettings.isJaw(g):
                guard let jawThreshold else { break }
                let gap = max(0.05, t.press - t.release)
                t.press = Float(min(1, max(0.05, jawThreshold)))
                // Never at 0: a jaw at rest reads 0, and a detector waits for its value to drop below release
                // before it can fire again, so a release of 0 (a threshold of 0.2 with the usual gap) fired once
                // and never again.
                t.release = max(t.press * 0.4, t.press - gap)
                g.kind = .threshold(t)
            case .dwell(var d):
                guard let dwellTime else { break }
                d.dwell = min(SettingRanges.dwellSeconds.upperBound, max(SettingRanges.dwellSeconds.lowerBound, dwellTime))
                g.kind = .dwell(d)
            default: break
            }
            return g
        }
        return out
    }

    /// The values in effect in `p` (pipeline settings these were applied to), read from it for the Settings
    /// screen: the first jaw gesture's press, the first dwell gesture's time (with none, the override or the
    /// built-in value), the filter, the head's reach and dead zone in degrees. Rounded to six decimals, as the
    /// file writes them, so the config's 0.55 reads 0.55 (the pipeline holds it as a Float).
    public func inEffect(_ p: PipelineSettings) -> TrackingValues {
        func r(_ d: Double) -> Double { (d * 1_000_000).rounded() / 1_000_000 }
        var jaw: Double?, dwell: Double?
        for g in p.gestures {
            switch g.kind {
            case .threshold(let t) where ShellSettings.isJaw(g): jaw = jaw ?? r(Double(t.press))
            case .dwell(let d): dwell = dwell ?? d.dwell
            default: break
            }
        }
        let yaw = p.mapping.headYawRange
        return TrackingValues(jawThreshold: jaw ?? jawThreshold ?? Self.shownWithout.jawThreshold,
                              dwellTime: dwell ?? dwellTime ?? Self.shownWithout.dwellTime,
                              smoothing: p.smoothing.kind,
                              headReachDegrees: r(abs(yaw.to - yaw.from) / 2 * 180 / Double.pi),
                              headDeadZoneDegrees: r(p.mapping.headDeadZone * 180 / Double.pi))
    }
}

extension ShellSettings {
    /// These settings with every tracking value as it is in effect in `p`, for showing them (the Settings
    /// screen's controls read these; what they set goes into the overrides of the settings themselves).
    public func shown(in p: PipelineSettings) -> ShellSettings {
        var s = self
        let v = tracking.inEffect(p)
        s.tracking = TrackingSettings(jawThreshold: v.jawThreshold, dwellTime: v.dwellTime, smoothing: v.smoothing,
                                      headReachDegrees: v.headReachDegrees, headDeadZoneDegrees: v.headDeadZoneDegrees)
        return s
    }

    /// Whether the jaw setting sets this gesture's threshold: a threshold gesture on the jaw alone, except the
    /// built-in escape.
    static func isJaw(_ g: GestureDefinition) -> Bool {
        guard case .threshold(let t) = g.kind, g.name != EscapeGesture.name else { return false }
        return t.signal.shapes == [.jawOpen]
    }
}

extension ShellState {
    /// Applies changed settings at once (the session rebuilds its pipeline from `pipelineSettings`).
    ///
    /// The new pipeline starts from rest: every threshold detector waits for its value to drop below release
    /// before a new performance can begin, so the jaw still open from activating the slider cannot fire
    /// again, and no half-held gesture carries over.
    public mutating func apply(_ settings: ShellSettings) {
        self.settings = settings
        focus.grace = settings.focusGrace
        relayout()
    }

    /// Uses a pointer calibration from the next frame on (nil: none); the status line shows it.
    public mutating func calibrate(_ c: PointerCalibration?) {
        trackingConfig.mapping.calibration = c
    }

    /// Uses these gesture thresholds from the next frame on, the detectors starting from rest. The jaw slider
    /// shows the calibrated jaw value (its override is dropped), so a later settings change keeps it rather
    /// than undoing it.
    public mutating func calibrateGestures(_ thresholds: [GestureThreshold]) {
        var g = gestureSetup
        g.calibrate(thresholds)
        guard g != gestureSetup else { return }
        trackingConfig.gestures = g.gestures
        tracking.gestureThresholds = g.thresholds
        settings.tracking.jawThreshold = g.settings.tracking.jawThreshold
    }

    /// Takes a settings effect of the reducer into the state, and returns what follows from it: a change to
    /// anything that decides whether the user's gestures act is tried (`trial`) and saved only once the user
    /// acts with it; any other change is saved at once (or with the change being tried). Other effects change
    /// nothing here.
    mutating func takeSetting(_ e: Effect) -> [Effect] {
        let before = gestureSetup
        switch e {
        case .settingsChanged(let new):
            guard new != settings else { return [] }
            if new.language != settings.language { languageBefore = settings.language }
            let tried = !new.actsLike(settings)
            apply(new)
            if tried { return tryChange(from: before) }
            return trial == nil ? [.saveSettings(settings)] : []
        case .calibrated(let c):
            calibrate(c)
        case .driftCorrect(let raw):
            let now = trackingConfig.mapping.calibration ?? .identity
            calibrate(now.driftCorrected(raw: raw, target: GazePoint(x: 0.5, y: 0.5)))
        case .gesturesCalibrated(let thresholds):
            calibrateGestures(thresholds)
        default:
            return []
        }
        return tryChange(from: before)
    }
}

extension GestureSetup {
    /// Takes gesture thresholds from a calibration: the gestures they name; a calibrated jaw drops the jaw
    /// override, so the calibrated value is in effect (and on the jaw slider) and a later settings change keeps
    /// it rather than undoing it. The escape keeps its built-in thresholds, whatever a calibration file says;
    /// none leaves the setup as it is.
    mutating func calibrate(_ thresholds: [GestureThreshold]) {
        let thresholds = thresholds.filter { $0.name != EscapeGesture.name }
        guard !thresholds.isEmpty else { return }
        gestures = GestureThreshold.apply(thresholds, to: gestures)
        self.thresholds = thresholds
        if gestures.contains(where: { g in ShellSettings.isJaw(g) && thresholds.contains { $0.name == g.name } }) {
            settings.tracking.jawThreshold = nil
        }
    }
}

extension Session {
    /// Applies changed settings at once: the state, and a pipeline rebuilt from them. The language they name
    /// is taken as the one the caller started with (it loaded its catalog, or `--language` overrides it);
    /// only a later change asks for another's translations.
    public mutating func apply(_ settings: ShellSettings) {
        state.apply(settings)
        toldLanguage = state.settings.language
        configurePipeline()
    }

    /// Uses a saved pointer calibration from the next frame on (nil: none). Saved, it was kept: the last
    /// known good setup takes it too.
    public mutating func calibrate(_ c: PointerCalibration?) {
        state.calibrate(c)
        state.knownGood.calibration = state.trackingConfig.mapping.calibration
        configurePipeline()
    }

    /// Uses saved gesture thresholds from the next frame on, the detectors starting from rest. Saved, they
    /// were kept: the last known good setup takes them too.
    public mutating func calibrateGestures(_ thresholds: [GestureThreshold]) {
        state.calibrateGestures(thresholds)
        state.knownGood.calibrate(thresholds)
        configurePipeline()
    }

    /// Takes `settings` as the last the user acted with (the copy saved beside the settings file at start),
    /// with the gestures and calibrations in use now; nil keeps the config's own values with the saved
    /// calibrations (what the session started from), in the keymap in use: a default cannot guess how the user
    /// works (by jaw, by dwell). And what was wrong with the settings at start, shown with the way out until
    /// the user acts (`problems`, with a sentence of its own when no gesture can activate with the gestures and
    /// keymap in use).
    public mutating func startKnownGood(_ settings: ShellSettings?, problems: [UIMessage]) {
        if let settings {
            state.knownGood = GestureSetup(settings: settings, gestures: state.trackingConfig.gestures,
                                           calibration: state.trackingConfig.mapping.calibration,
                                           thresholds: state.tracking.gestureThresholds)
        } else {
            state.knownGood.settings.keymap = state.keymap.name
        }
        var warning = problems
        if let p = ActivationCheck.problem(gestures: state.gestures, keymap: state.keymap, catalog: state.catalog) { warning.append(.verbatim(p)) }
        state.settingsWarning = warning
        state.relayout()
    }

    /// Carries out what only the pipeline can (recentring on the head's last pose, which goes back into the
    /// state's settings), then configures the pipeline from the state's settings if they changed: a new
    /// mapping alone keeps the filter and detectors, anything else rebuilds them from rest.
    mutating func configure(after effects: [Effect]) {
        if effects.contains(.recentre) {
            if pipeline.recentre() {
                state.trackingConfig.mapping.headCentre = pipeline.settings.mapping.headCentre
                state.noticeMessage = UIMessage("Pointer recentred: the head's pose now points at the middle")
            } else {
                state.noticeMessage = UIMessage("Nothing to recentre: this source sends no head pose")
            }
        }
        configurePipeline()
    }

    mutating func configurePipeline() {
        guard state.pipelineVersion != configuredVersion else { return }
        configuredVersion = state.pipelineVersion
        let wanted = state.pipelineSettings
        guard wanted != pipeline.settings else { return }
        var sameButMapping = pipeline.settings
        sameButMapping.mapping = wanted.mapping
        if sameButMapping == wanted { pipeline.remap(wanted.mapping) } else { pipeline = Pipeline(wanted, continuing: pipeline) }
    }
}

extension ShellSettings {
    /// Every setting of `settings.toml`, declared once: the parser, the writer, the reference (docs/settings.md,
    /// the man page: `handsfree settings-reference`) walk it, and the Settings screen takes each control's
    /// setting from it. Sections are the Settings screen's tabs (`SettingsScreen.tabs`); `file` is made only in
    /// the file.
    public static let schema = SettingsSchema<ShellSettings>([
        .bool("show_gaze_cursor", section: "display", \.showGazeCursor,
              "Draw the gaze cursor where the eyes look (seeing it makes aiming easier)."),
        .number("jaw_threshold", section: "tracking", \.tracking.jawThreshold, 0.05...0.95, unit: "",
                "How far the jaw must open (0 closed, 1 wide open) for the jaw gestures to act; the escape keeps its own."),
        SettingEntry("dwell_ms", section: "tracking", .number(SettingRanges.dwellMilliseconds), unit: N_("milliseconds"),
                     "How long a look rests on a target to activate it (the dwell gestures of gaze-only keymaps).",
                     get: { $0.tracking.dwellTime.map { .number(($0 * 1000).rounded()) } },
                     set: { s, v in if case .number(let ms) = v { s.tracking.dwellTime = ms / 1000 } }),
        SettingEntry("suggestions", section: "display", .number(0...SettingsScreen.maxSuggestions, whole: true), unit: N_("words"),
                     "How many word suggestions the text screens show above the keyboard.",
                     get: { .number(Double($0.suggestions)) },
                     set: { s, v in if case .number(let n) = v { s.suggestions = Int(n) } }),
        .number("dictation_silence_s", section: "display", \.dictationSilence, 0...600, unit: N_("seconds"),
                "Dictation stops after this long without speech; 0 never stops."),
        .bool("suggest_rude_words", section: "display", \.suggestRudeWords,
              "Suggest swear words and slurs from the word list; off, they are offered only once you typed them."),
        .bool("word_on_key", section: "display", \.wordOnKey,
              "The focused letter key shows the word it would suggest first; the commit gesture there types both."),
        .bool("initials_key", section: "file", \.initialsKey,
              "The keyboard's initials key: whole phrases from the first letters of their words."),
        .choice("pursuit_pace", section: "tracking", \.pursuitPace,
                "How fast the dots of smooth pursuit turn (pursuit keymaps): slow for eyes that follow late."),
        .choice("smoothing", section: "tracking", \.tracking.smoothing,
                "The gaze smoothing filter: steadier (moving-average) or quicker (one-euro)."),
        SettingEntry("keymap", section: "keymap", .text(rule: N_("a keymap name"), accepts: { !$0.isEmpty }),
                     "The keymap in use: a file in keymaps/ without its .toml.",
                     get: { .string($0.keymap) }, set: { s, v in if case .string(let k) = v { s.keymap = k } }),
        .choice("theme", section: "access", \.theme,
                "The colours of the whole shell; focus always shows reversed, never by colour alone."),
        .bool("large_targets", section: "access", \.largeTargets, "Bigger keys and tiles where the screen has room."),
        .bool("bell_on_activate", section: "access", \.bellOnActivate, "Ring the terminal bell when a target is activated."),
        .bool("record_metrics", section: "access", \.recordMetrics,
              "Append a usage record (metrics.ndjson in the data folder) at the end of each session (handsfree stats)."),
        SettingEntry("terminal_command", section: "file",
                     .strings(rule: N_("a program, or a list of the program and its arguments (e.g. [\"htop\", \"-d\", \"20\"])"),
                              accepts: { !$0.contains(where: { $0.isEmpty || $0.contains("\u{0}") }) }),
                     "What the Terminal tile runs; empty ([]) runs your $SHELL.",
                     get: { .strings($0.terminalCommand) }, set: { s, v in if case .strings(let a) = v { s.terminalCommand = a } }),
        .number("head_reach_deg", section: "pointer", \.tracking.headReachDegrees, 2...45, unit: N_("degrees"),
                "Head pointing: how far to turn the head, each way, to reach the edge of the screen."),
        .number("head_dead_zone_deg", section: "pointer", \.tracking.headDeadZoneDegrees, 0...10, unit: N_("degrees"),
                "Head pointing: a turn this small from the centre counts as none, so a resting head holds the pointer."),
        .choice("dictation_numbers", section: "display", \.dictationNumbers, ["digits", "words"],
                "Dictated numbers as digits (23) or words (twenty three)."),
        .choice("dictation_engine", section: "display", \.dictationEngine, ["auto", "whisper", "pocketsphinx"],
                "The dictation engine from the next start; auto takes Whisper when it is installed."),
        .choice("desktop_pointing", section: "pointer", \.desktopPointing,
                "The Desktop screen's pointer: the gaze places it, or the head steers it as a joystick."),
        .number("desktop_pointer_speed", section: "pointer", \.desktopPointerSpeed, 50...5000, unit: N_("pixels per second"),
                "Head steering: the pointer's speed at full deflection."),
        .bool("desktop_dwell_click", section: "file", \.desktopDwellClick,
              "The Desktop screen's pointer clicks when it rests for the dwell time."),
        .choice("speech_voice", section: "speech", \.speechVoice, SettingsScreen.voices.map(\.key),
                "The voice Speak uses: flite (built in), piper (natural; scripts/python-env.sh speak) or espeak."),
        .number("speech_rate", section: "speech", \.speechRate, 0.3...3, unit: "",
                "Speaking speed: 1 is the voice's own."),
        .number("speech_volume", section: "speech", \.speechVolume, 0...1, unit: "", "Speaking loudness."),
        .choice("speech_echo", section: "speech", \.speechEcho,
                "Echo as you type on the text screens: nothing, each word as it is committed, or each sentence as it ends."),
        .bool("speak_focus", section: "speech", \.speakFocus,
              "Hear the focus: the label of the target the focus settles on is spoken."),
        .bool("hold_mouth_while_talking", section: "speech", \.holdMouthWhileTalking,
              "While the microphone hears you talk, the mouth's gestures (jaw, pucker, funnel) wait."),
        // Any code is kept (a pack may be installed later, or on the machine the file came from); the start says
        // when it has no pack.
        SettingEntry("language", section: "language",
                     .text(rule: N_("\"auto\" or a language code such as \"es\" or \"pt_BR\""),
                           accepts: { $0 == LanguageChoice.automatic || LanguageChoice.normalise($0) != nil }),
                     "The language of the screens; auto takes the system's (LANG) when it is installed, else English.",
                     get: { .string($0.language) }, set: { s, v in if case .string(let l) = v { s.language = l } }),
    ], defaults: ShellSettings(),
       header: "HandsFree Shell settings, written by the Settings screen (docs/settings.md lists them). A key it does not know is reported with its line.")

    /// The sections of the reference, in the Settings screen's order, each titled as its tab.
    public static let referenceSections: [(key: String, title: String)] =
        SettingsScreen.tabs.map { ($0.key, "Settings › " + $0.label) } + [("file", "Only in the file")]

    /// docs/settings.md.
    public static var referenceMarkdown: String {
        schema.markdown(title: "Settings (settings.toml)", intro: referenceIntro, sections: referenceSections)
    }

    /// The man page's SETTINGS section.
    public static var referenceMan: String { schema.manSection(intro: referenceIntro, sections: referenceSections) }

    static let referenceIntro = "The Settings screen saves its choices to $XDG_CONFIG_HOME/handsfree/settings.toml "
        + "(else ~/.config/handsfree), one `key = value` a line. A value the shell cannot use, or a key it does not know, "
        + "is reported with the file and line, and the last settings you acted with (settings.last-good.toml) stand in, if "
        + "there are any; else that setting keeps its default and the others load. A tracking setting the file leaves out "
        + "(jaw_threshold, dwell_ms, smoothing, head_reach_deg, head_dead_zone_deg) is the gesture config's own (config/*.toml, "
        + "--set); the file has one only once you set it."

    /// The settings as the TOML text saved in the user's config (`settings.toml`).
    public var toml: String { Self.schema.toml(self) }

    /// Reads `settings.toml`; a value out of range or of the wrong type, or an unknown key, is reported and
    /// that setting keeps its value from `base`. Returns the settings and the problems found (with `file:line`).
    public static func parse(_ text: String, file: String, base: ShellSettings = ShellSettings())
        -> (ShellSettings, [String]) {
        schema.parse(text, file: file, base: base)
    }

    /// `parse`, with the problems worded for translation (what the user reads at start, in their language).
    public static func read(_ text: String, file: String, base: ShellSettings = ShellSettings()) -> (ShellSettings, [ConfigError]) {
        schema.read(text, file: file, base: base)
    }
}
