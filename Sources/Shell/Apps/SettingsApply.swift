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

extension ShellSettings {
    /// Takes the tracking values (jaw threshold, dwell time, smoothing) from pipeline settings, so the
    /// Settings screen shows what the running pipeline really does.
    public mutating func adopt(_ p: PipelineSettings, keymap name: String) {
        for g in p.gestures {
            switch g.kind {
            case .threshold(let t) where Self.isJaw(g): jawThreshold = Double(t.press)
            case .dwell(let d): dwellTime = d.dwell
            default: break
            }
        }
        smoothing = p.smoothing.kind
        keymap = name
        let yaw = p.mapping.headYawRange
        headReachDegrees = abs(yaw.to - yaw.from) / 2 * 180 / Double.pi
        headDeadZoneDegrees = p.mapping.headDeadZone * 180 / Double.pi
    }

    /// Pipeline settings with these values applied: every jaw gesture's press threshold (its release moves
    /// with it, keeping the same hysteresis gap), every dwell gesture's dwell time, and the smoothing filter.
    /// The escape gesture (`EscapeGesture`) keeps its built-in thresholds: it must act whatever these say.
    public func applied(to p: PipelineSettings) -> PipelineSettings {
        var out = p
        out.smoothing.kind = smoothing
        // The head ranges keep their middles and directions (trackers disagree on signs) and scale together.
        let yaw = p.mapping.headYawRange, pitch = p.mapping.headPitchRange
        let half = abs(yaw.to - yaw.from) / 2
        if half > 0 {
            let f = (min(45, max(2, headReachDegrees)) * Double.pi / 180) / half
            func scaled(_ r: GazeMapping.ClosedRangeD) -> GazeMapping.ClosedRangeD {
                let mid = (r.from + r.to) / 2
                return .init(mid + (r.from - mid) * f, mid + (r.to - mid) * f)
            }
            out.mapping.headYawRange = scaled(yaw)
            out.mapping.headPitchRange = scaled(pitch)
        }
        out.mapping.headDeadZone = min(10, max(0, headDeadZoneDegrees)) * Double.pi / 180
        out.gestures = p.gestures.map { g in
            var g = g
            switch g.kind {
            case .threshold(var t) where Self.isJaw(g):
                let gap = max(0.05, t.press - t.release)
                t.press = Float(min(1, max(0.05, jawThreshold)))
                // Never at 0: a jaw at rest reads 0, and a detector waits for its value to drop below release
                // before it can fire again, so a release of 0 (a threshold of 0.2 with the usual gap) fired once
                // and never again.
                t.release = max(t.press * 0.4, t.press - gap)
                g.kind = .threshold(t)
            case .dwell(var d):
                d.dwell = min(SettingRanges.dwellSeconds.upperBound, max(SettingRanges.dwellSeconds.lowerBound, dwellTime))
                g.kind = .dwell(d)
            default: break
            }
            return g
        }
        return out
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
        pipelineSettings = settings.applied(to: pipelineSettings)
        relayout()
    }

    /// Uses a pointer calibration from the next frame on (nil: none); the status line shows it.
    public mutating func calibrate(_ c: PointerCalibration?) {
        pipelineSettings.mapping.calibration = c
    }

    /// Uses these gesture thresholds from the next frame on, the detectors starting from rest. The jaw slider
    /// takes the calibrated jaw value, so a later settings change keeps it rather than undoing it.
    public mutating func calibrateGestures(_ thresholds: [GestureThreshold]) {
        var g = gestureSetup
        g.calibrate(thresholds)
        guard g != gestureSetup else { return }
        pipelineSettings.gestures = g.gestures
        tracking.gestureThresholds = g.thresholds
        settings.jawThreshold = g.settings.jawThreshold
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
            let tried = !new.actsLike(settings)
            apply(new)
            if tried { return tryChange(from: before) }
            return trial == nil ? [.saveSettings(settings)] : []
        case .calibrated(let c):
            calibrate(c)
        case .driftCorrect(let raw):
            let now = pipelineSettings.mapping.calibration ?? .identity
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
    /// Takes gesture thresholds from a calibration: the gestures they name, and the jaw slider the calibrated
    /// jaw value, so a later settings change keeps it rather than undoing it. The escape keeps its built-in
    /// thresholds, whatever a calibration file says; none leaves the setup as it is.
    mutating func calibrate(_ thresholds: [GestureThreshold]) {
        let thresholds = thresholds.filter { $0.name != EscapeGesture.name }
        guard !thresholds.isEmpty else { return }
        gestures = GestureThreshold.apply(thresholds, to: gestures)
        self.thresholds = thresholds
        for g in gestures {
            if case .threshold(let t) = g.kind, ShellSettings.isJaw(g), thresholds.contains(where: { $0.name == g.name }) {
                settings.jawThreshold = Double(t.press)
            }
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
        state.knownGood.calibration = state.pipelineSettings.mapping.calibration
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
    public mutating func startKnownGood(_ settings: ShellSettings?, problems: [String]) {
        if let settings {
            state.knownGood = GestureSetup(settings: settings, gestures: state.gestures,
                                           calibration: state.pipelineSettings.mapping.calibration,
                                           thresholds: state.tracking.gestureThresholds)
        } else {
            state.knownGood.settings.keymap = state.keymap.name
        }
        var warning = problems
        if let p = ActivationCheck.problem(gestures: state.gestures, keymap: state.keymap) { warning.append(p) }
        state.settingsWarning = warning
        state.relayout()
    }

    /// Carries out what only the pipeline can (recentring on the head's last pose, which goes back into the
    /// state's settings), then configures the pipeline from the state's settings if they changed: a new
    /// mapping alone keeps the filter and detectors, anything else rebuilds them from rest.
    mutating func configure(after effects: [Effect]) {
        if effects.contains(.recentre) {
            if pipeline.recentre() {
                state.pipelineSettings.mapping.headCentre = pipeline.settings.mapping.headCentre
                state.notice = "Pointer recentred: the head's pose now points at the middle"
            } else {
                state.notice = "Nothing to recentre: this source sends no head pose"
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
    /// The settings as the TOML text saved in the user's config (`settings.toml`).
    public var toml: String {
        """
        # HandsFree Shell settings, written by the Settings screen. Edit with care; unknown keys are ignored.
        show_gaze_cursor = \(showGazeCursor)
        jaw_threshold = \(JSONText.number(jawThreshold))
        dwell_ms = \(Int((dwellTime * 1000).rounded()))
        suggestions = \(suggestions)
        dictation_silence_s = \(JSONText.number(dictationSilence))
        suggest_rude_words = \(suggestRudeWords)
        word_on_key = \(wordOnKey)
        initials_key = \(initialsKey)
        pursuit_pace = \(JSONText.quote(pursuitPace.rawValue))
        smoothing = \(JSONText.quote(smoothing.rawValue))
        keymap = \(JSONText.quote(keymap))
        theme = \(JSONText.quote(theme.rawValue))
        large_targets = \(largeTargets)
        bell_on_activate = \(bellOnActivate)
        record_metrics = \(recordMetrics)
        terminal_command = [\(terminalCommand.map(JSONText.quote).joined(separator: ", "))]
        head_reach_deg = \(JSONText.number(headReachDegrees))
        head_dead_zone_deg = \(JSONText.number(headDeadZoneDegrees))
        dictation_numbers = \(JSONText.quote(dictationNumbers))
        dictation_engine = \(JSONText.quote(dictationEngine))
        desktop_pointing = \(JSONText.quote(desktopPointing.rawValue))
        desktop_pointer_speed = \(JSONText.number(desktopPointerSpeed))
        desktop_dwell_click = \(desktopDwellClick)
        speech_voice = \(JSONText.quote(speechVoice))
        speech_rate = \(JSONText.number(speechRate))
        speech_volume = \(JSONText.number(speechVolume))
        speech_echo = \(JSONText.quote(speechEcho.rawValue))
        speak_focus = \(speakFocus)
        hold_mouth_while_talking = \(holdMouthWhileTalking)
        language = \(JSONText.quote(language))

        """
    }

    /// Reads `settings.toml`; values out of range or of the wrong type are reported and the default kept.
    /// Returns the settings and the problems found (with `file:line`).
    public static func parse(_ text: String, file: String, base: ShellSettings = ShellSettings())
        -> (ShellSettings, [String]) {
        var s = base
        var problems: [String] = []
        let doc: TOMLDocument
        do { doc = try TOMLDocument(text: text, file: file) } catch { return (base, [error.description]) }
        func num(_ k: String, _ r: ClosedRange<Double>) -> Double? {
            guard let n = doc.root[k] else { return nil }
            guard let d = n.number, r.contains(d) else {
                problems.append(doc.error([k], "\(k) must be a number \(r.lowerBound)…\(r.upperBound)").description)
                return nil
            }
            return d
        }
        func bool(_ k: String) -> Bool? {
            guard let n = doc.root[k] else { return nil }
            guard let b = n.bool else {
                problems.append(doc.error([k], "\(k) must be true or false").description)
                return nil
            }
            return b
        }
        if let b = bool("show_gaze_cursor") { s.showGazeCursor = b }
        if let b = bool("suggest_rude_words") { s.suggestRudeWords = b }
        if let b = bool("word_on_key") { s.wordOnKey = b }
        if let b = bool("initials_key") { s.initialsKey = b }
        if let b = bool("large_targets") { s.largeTargets = b }
        if let b = bool("bell_on_activate") { s.bellOnActivate = b }
        if let n = doc.root["theme"] {
            if let k = n.string.flatMap(ThemeKind.init(rawValue:)) { s.theme = k }
            else { problems.append(doc.error(["theme"], "unknown theme (known: \(ThemeKind.allCases.map(\.rawValue).joined(separator: ", ")))").description) }
        }
        if let b = bool("record_metrics") { s.recordMetrics = b }
        if let v = num("jaw_threshold", 0.05...0.95) { s.jawThreshold = v }
        if let v = num("dwell_ms", SettingRanges.dwellMilliseconds) { s.dwellTime = v / 1000 }
        if let v = num("suggestions", 0...SettingsScreen.maxSuggestions) { s.suggestions = Int(v) }
        if let v = num("dictation_silence_s", 0...600) { s.dictationSilence = v }
        if let v = num("head_reach_deg", 2...45) { s.headReachDegrees = v }
        if let v = num("head_dead_zone_deg", 0...10) { s.headDeadZoneDegrees = v }
        if let n = doc.root["smoothing"] {
            if let k = n.string.flatMap(SmoothingKind.init(rawValue:)) { s.smoothing = k }
            else { problems.append(doc.error(["smoothing"], "unknown smoothing (known: \(SmoothingKind.allCases.map(\.rawValue).joined(separator: ", ")))").description) }
        }
        if let n = doc.root["terminal_command"] {
            // A program name alone, or the program and its arguments; empty is the user's $SHELL.
            let argv = n.string.map { [$0] } ?? n.array?.compactMap(\.string)
            if let argv, argv.count == (n.array?.count ?? 1), !argv.contains(where: { $0.isEmpty || $0.contains("\u{0}") }) {
                s.terminalCommand = argv
            } else {
                problems.append(doc.error(["terminal_command"], "terminal_command must be a program, or a list of the program and its arguments (e.g. [\"htop\", \"-d\", \"20\"])").description)
            }
        }
        if let n = doc.root["dictation_numbers"] {
            if let v = n.string, v == "digits" || v == "words" { s.dictationNumbers = v }
            else { problems.append(doc.error(["dictation_numbers"], "dictation_numbers must be \"digits\" or \"words\"").description) }
        }
        if let n = doc.root["dictation_engine"] {
            if let v = n.string, ["auto", "whisper", "pocketsphinx"].contains(v) { s.dictationEngine = v }
            else { problems.append(doc.error(["dictation_engine"], "dictation_engine must be \"auto\", \"whisper\" or \"pocketsphinx\"").description) }
        }
        if let b = bool("desktop_dwell_click") { s.desktopDwellClick = b }
        if let v = num("desktop_pointer_speed", 50...5000) { s.desktopPointerSpeed = v }
        if let n = doc.root["desktop_pointing"] {
            if let k = n.string.flatMap(DesktopPointing.init(rawValue:)) { s.desktopPointing = k }
            else { problems.append(doc.error(["desktop_pointing"], "desktop_pointing must be \"gaze\" or \"head\"").description) }
        }
        if let n = doc.root["speech_voice"] {
            if let v = n.string, SettingsScreen.voices.contains(where: { $0.key == v }) { s.speechVoice = v }
            else { problems.append(doc.error(["speech_voice"], "speech_voice must be \"flite\", \"piper\" or \"espeak\"").description) }
        }
        if let v = num("speech_rate", 0.3...3) { s.speechRate = v }
        if let v = num("speech_volume", 0...1) { s.speechVolume = v }
        if let n = doc.root["pursuit_pace"] {
            if let v = n.string.flatMap(PursuitPace.init(rawValue:)) { s.pursuitPace = v }
            else { problems.append(doc.error(["pursuit_pace"], "pursuit_pace must be \"normal\" or \"slow\"").description) }
        }
        if let n = doc.root["speech_echo"] {
            if let v = n.string.flatMap(SpeechEcho.init(rawValue:)) { s.speechEcho = v }
            else { problems.append(doc.error(["speech_echo"], "speech_echo must be \"off\", \"words\" or \"sentences\"").description) }
        }
        if let b = bool("speak_focus") { s.speakFocus = b }
        if let b = bool("hold_mouth_while_talking") { s.holdMouthWhileTalking = b }
        if let n = doc.root["language"] {
            // Any code is kept (a pack may be installed later, or on the machine the file came from); the
            // start says when it has no pack.
            if let v = n.string, v == LanguageChoice.automatic || LanguageChoice.normalise(v) != nil { s.language = v }
            else { problems.append(doc.error(["language"], "language must be \"auto\" or a language code such as \"es\" or \"pt_BR\"").description) }
        }
        if let n = doc.root["keymap"] {
            if let k = n.string, !k.isEmpty { s.keymap = k }
            else { problems.append(doc.error(["keymap"], "keymap must be a keymap name").description) }
        }
        return (s, problems)
    }
}
