import Config
import Shell
import Testing
import TrackingCore

/// Issue 47, item 1: a user can no longer lock themselves out. A change to what decides whether gestures act
/// is tried for 15 s of the frames' time and kept only once the user acts with it; sliders move one step per
/// activation; the built-in escape (the jaw held 3 s at 0.5), F12 and "restore settings" put back the last
/// settings the user acted with. Through the real pipeline, frame by frame.
@Suite struct NeverLockedOutTests {
    /// A user in front of the shell: frames at 60 per second on the source's clock, the gaze on a target.
    struct Face {
        var session: Session
        var t = 0.0
        var effects: [Effect] = []

        init(keymap: String = "default", screen: String = "settings", settings: ShellSettings? = nil) {
            let config = GestureConfig.defaults()
            var state = ShellState(keymap: Fixture.keymap(keymap), gestures: config.gestures)
            _ = state.show(screen: screen)
            session = Session(state: state, settings: config)
            if let settings { session.apply(settings) }
        }

        var state: ShellState { session.state }
        var lines: [String] { render(state, size: state.size).0.lines }
        var text: String { render(state, size: state.size).0.text }
        var jaw: Double { state.trackingInEffect.jawThreshold }

        func gaze(_ id: String) -> GazePoint { Fixture.gaze(at: id, in: state) }

        /// The press threshold the running pipeline uses for a gesture.
        func threshold(_ name: String) -> Float? {
            session.pipeline.settings.gestures.first { $0.name == name }.flatMap { g in
                if case .threshold(let t) = g.kind { return t.press } else { return nil }
            }
        }

        mutating func play(jaw: Float = 0, at id: String? = nil, gaze: GazePoint? = nil, seconds: Double) {
            let g = id.map(self.gaze) ?? gaze ?? GazePoint(x: 0.5, y: 0.02)
            for _ in 0..<Int((seconds * 60).rounded()) {
                effects += session.step(.frame(TrackingFrame(t: t, blend: BlendShapes([.jawOpen: jaw]), gaze: g), nil))
                t += 1.0 / 60
            }
        }

        /// Looks at a target, opens the jaw to `jaw` for half a second and lets go.
        mutating func press(_ id: String, jaw: Float = 0.8) {
            play(at: id, seconds: 0.6)
            play(jaw: jaw, at: id, seconds: 0.5)
            play(at: id, seconds: 0.4)
        }

        /// Takes the effects played so far.
        mutating func take() -> [Effect] { defer { effects = [] }; return effects }
    }

    static func saved(_ e: [Effect]) -> [ShellSettings] {
        e.compactMap { if case .saveSettings(let s) = $0 { s } else { nil } }
    }

    static func knownGood(_ e: [Effect]) -> [ShellSettings] {
        e.compactMap { if case .saveKnownGood(let s) = $0 { s } else { nil } }
    }

    /// The tester's lock-out, step by step: the jaw threshold moves one step, is tried and not saved, and goes
    /// back when 15 s of frames pass with no activation, though the face keeps opening to 0.52.
    @Test func aRaisedJawThresholdNobodyActsWithGoesBackAfter15sOfFrameTime() {
        var f = Face(settings: { var s = ShellSettings(); s.tracking.jawThreshold = 0.5; return s }())
        f.play(seconds: 1.2)   // a still face: safe start
        f.press("settings.jaw.plus", jaw: 0.8)
        #expect(f.jaw == 0.55)
        #expect(f.threshold("activate") == 0.55, "the new threshold acts at once")
        #expect(f.state.trial != nil)
        #expect(Self.saved(f.take()).isEmpty, "tried, not saved")
        #expect(f.lines[1].contains("Keep? Act once with the new setting within 15 s, or it goes back."), "\(f.lines[1])")
        #expect(f.lines[1].contains("14 s left") || f.lines[1].contains("15 s left"), "\(f.lines[1])")
        // The face opens to 0.52 again and again: below the new threshold, nothing acts.
        let since = f.state.trial?.since ?? 0
        while f.t < since + 10 {
            f.play(at: "settings.jaw.plus", seconds: 1)
            f.play(jaw: 0.52, at: "settings.jaw.plus", seconds: 0.6)
        }
        #expect(f.jaw == 0.55 && f.state.trial != nil)
        #expect(f.lines[1].contains("s left"))
        let left = f.lines[1].split(separator: " ").dropLast(2).last.flatMap { Int($0) }
        #expect(left.map { (3...5).contains($0) } == true, "the countdown runs on the frames' time: \(f.lines[1])")
        while f.t < since + 14.9 { f.play(at: "settings.jaw.plus", seconds: 0.1) }
        #expect(f.state.trial != nil, "not before 15 s")
        f.play(at: "settings.jaw.plus", seconds: 0.2)
        #expect(f.state.trial == nil)
        #expect(f.jaw == 0.5)
        #expect(f.threshold("activate") == 0.5, "the pipeline is back on the old threshold")
        let e = f.take()
        #expect(Self.saved(e).map(\.tracking.jawThreshold) == [0.5], "the file gets the old value")
        #expect(e.contains(.settingsChanged(f.state.settings)), "the runtime follows (a keymap put back loads)")
        #expect(f.text.contains("No action within 15 s: the setting went back"))
        #expect(f.text.contains("Jaw threshold: 0.5"))
        #expect(!f.text.contains("Keep?"))
    }

    /// Acting once under the new threshold keeps it: saved, and the last known good.
    @Test func anActivationUnderTheNewThresholdKeepsAndSavesIt() {
        var f = Face()
        f.play(seconds: 1.2)
        f.press("settings.jaw.plus", jaw: 0.8)
        _ = f.take()
        f.play(seconds: 5)
        f.press("settings.tab.display", jaw: 0.8)
        let e = f.take()
        #expect(f.state.trial == nil)
        #expect(Self.saved(e).map(\.tracking.jawThreshold) == [0.55])
        #expect(Self.knownGood(e).map(\.tracking.jawThreshold) == [0.55])
        #expect(f.state.knownGood.settings.tracking.jawThreshold == 0.55)
        #expect(f.text.contains("Kept: you acted with the new setting"))
        // Long after, nothing goes back.
        f.play(seconds: 20)
        #expect(f.jaw == 0.55)
    }

    /// Settings that do not decide whether gestures act are saved at once, with no countdown.
    @Test func aColourChangeIsSavedAtOnce() {
        var f = Face()
        f.play(seconds: 1.2)
        f.press("settings.tab.access")
        _ = f.take()
        f.press("settings.theme.high-contrast")
        #expect(f.state.settings.theme == .highContrast, "\(f.text)")
        #expect(f.state.trial == nil)
        #expect(Self.saved(f.take()).map(\.theme) == [.highContrast])
    }

    /// Every kind of change that decides whether gestures act is tried: the keymap, smoothing, dwell, the
    /// head's reach and dead zone, the pursuit pace, the mouth held while talking.
    @Test(arguments: ["settings.dwell.plus", "settings.smoothing.low-pass", "settings.pursuit.slow", "settings.keymap.dwell",
                      "settings.reach.plus", "settings.deadzone.minus", "settings.talk-hold"])
    func everyGestureSettingIsTried(_ id: String) {
        var d = Driver(.keyboard, screen: "settings")
        let tab = ["keymap": "keymap", "reach": "pointer", "deadzone": "pointer", "talk-hold": "speech"]
            .first { id.contains($0.key) }?.value
        if let tab { d.activate("settings.tab." + tab) }
        let before = d.state.settings
        let e = d.activate(id)
        #expect(d.state.settings != before, "\(id) changed nothing")
        #expect(d.state.trial != nil, "\(id) is not tried")
        #expect(Self.saved(e).isEmpty)
        // A helper's key is acting too: the carer wants it.
        let kept = d.send(.key(.tab))
        #expect(d.state.trial == nil)
        #expect(Self.saved(kept) == [d.state.settings])
    }

    /// The carer's F12 puts back the last settings the user acted with, and is not a key that keeps them.
    @Test func theRestoreKeyPutsBackTheLastGoodAndIsNoProof() {
        var d = Driver(.keyboard, screen: "settings")
        d.activate("settings.jaw.plus")
        d.activate("settings.jaw.plus")   // the first key kept 0.55; 0.6 is tried
        #expect(d.state.trackingInEffect.jawThreshold == 0.6 && d.state.trial != nil)
        let e = d.send(.key(.restoreSettings))
        #expect(d.state.trial == nil)
        #expect(d.state.trackingInEffect.jawThreshold == 0.55, "the last settings acted with")
        #expect(Self.saved(e).map(\.tracking.jawThreshold) == [0.55])
        #expect(Self.knownGood(e).isEmpty, "F12 proves nothing")
        #expect(d.text.contains("Restored the last settings you acted with"))
        // Again: nothing newer than the last good.
        _ = d.send(.key(.restoreSettings))
        #expect(d.text.contains("Nothing to restore"))
    }

    /// The escape gesture: the jaw held 3 s at the built-in 0.5, whatever the jaw threshold says (0.9 here,
    /// out of reach of a face that opens to 0.6), from any screen.
    @Test(arguments: ["launcher", "settings", "notes", "terminal", "desktop"])
    func theEscapeGestureWorksWhereNothingElseCan(_ screen: String) {
        var f = Face(screen: screen)
        f.play(seconds: 1.2)
        var s = f.state.settings
        s.tracking.jawThreshold = 0.9
        f.session.apply(s)
        #expect(f.threshold("activate") == 0.9)
        #expect(f.threshold(EscapeGesture.name) == 0.5, "the escape keeps the built-in threshold")
        f.play(seconds: 1)
        // A face whose jaw opens only to 0.6: an opening does nothing…
        f.play(jaw: 0.6, seconds: 0.8)
        f.play(seconds: 0.5)
        #expect(f.take().records.filter { $0.action != "restore-settings" }.isEmpty)
        // …but held 3 s it restores the last good settings (the built-in 0.5 here).
        f.play(jaw: 0.6, seconds: 2.5)
        #expect(f.jaw == 0.9, "not before 3 s")
        f.play(jaw: 0.6, seconds: 0.7)
        #expect(f.jaw == 0.5)
        #expect(f.take().records.map(\.action).contains("restore-settings"))
        #expect(f.threshold("activate") == 0.5)
    }

    /// The escape acts while paused and while the microphone is open, where other jaw gestures do not.
    @Test func theEscapeWorksPausedAndWithTheMicrophoneOpen() {
        var f = Face(screen: "launcher")
        f.play(seconds: 1.2)
        var s = f.state.settings
        s.tracking.jawThreshold = 0.9
        f.session.apply(s)
        _ = f.session.send(.speech("pause listening", isFinal: true))
        #expect(f.state.readiness.paused)
        // A pipeline rebuilt by a change starts from rest: the jaw must be seen at rest first.
        f.play(seconds: 0.3)
        f.play(jaw: 0.7, seconds: 3.3)
        f.play(seconds: 0.3)
        #expect(f.jaw == 0.5)
        _ = f.session.send(.speech("resume listening", isFinal: true))
        #expect(!f.state.readiness.paused)
        // Dictating: the microphone is open and jaw gestures are set aside (talking moves the jaw).
        f.session.apply(s)
        _ = f.session.send(.speech("start dictation", isFinal: true))
        #expect(f.state.micOpen)
        f.play(seconds: 0.3)
        f.play(jaw: 0.7, seconds: 3.3)
        f.play(seconds: 0.3)
        #expect(f.jaw == 0.5)
        // While dictating, what is said is text: a helper's Esc ends it.
        _ = f.session.send(.key(.escape))
        #expect(!f.state.micOpen)
        // Said: the phrase the wake word ("shell, restore settings") opens the microphone for.
        f.session.apply(s)
        _ = f.session.send(.speech("restore settings", isFinal: true))
        #expect(f.jaw == 0.5, "the spoken escape")
    }

    /// One step per activation on every slider of Settings, by gaze along the track, by − and by +.
    @Test(arguments: [("tracking", "settings.jaw", 0.05), ("tracking", "settings.dwell", 0.1), ("pointer", "settings.reach", 1),
                      ("pointer", "settings.deadzone", 0.1), ("pointer", "settings.pointer-speed", 100),
                      ("display", "settings.silence", 1), ("speech", "settings.speech-rate", 0.1),
                      ("speech", "settings.speech-volume", 0.1)])
    func everySliderMovesOneStepPerActivation(_ tab: String, _ id: String, _ step: Double) {
        var d = Driver(.gesture, screen: "settings")
        d.activate("settings.tab." + tab)
        func value() -> Double {
            let s = d.state.settings, v = d.state.trackingInEffect
            switch id {
            case "settings.jaw": return v.jawThreshold
            case "settings.dwell": return v.dwellTime
            case "settings.reach": return v.headReachDegrees
            case "settings.deadzone": return v.headDeadZoneDegrees
            case "settings.pointer-speed": return s.desktopPointerSpeed
            case "settings.silence": return s.dictationSilence
            case "settings.speech-rate": return s.speechRate
            default: return s.speechVolume
            }
        }
        let track = d.target(id).rect
        // Down first: some start at the top of their range (loudness 1).
        for (cell, sign) in [(CellPoint(x: track.x + 1, y: track.y + 1), -1.0), (CellPoint(x: track.maxX - 2, y: track.y + 1), 1.0)] {
            let v0 = value()
            d.activate(id, at: cell)
            let v1 = value()
            // A value the config set between two steps goes to the nearer one first.
            #expect(sign * (v1 - v0) > 0 && sign * (v1 - v0) <= step + 1e-9, "\(id): \(v0) → \(v1), at most one step")
            d.activate(id, at: cell)
            #expect(abs(value() - v1 - sign * step) < 1e-9, "\(id): \(v1) → \(value()), one step")
        }
        let v = value()
        d.activate(id + ".minus")
        #expect(abs(v - value() - step) < 1e-9, "\(id): − is one step")
        d.activate(id + ".plus")
        #expect(abs(value() - v) < 1e-9, "\(id): + undoes −")
    }

    /// The slider's rule on its own: a step towards the gaze, none on the value's own step or without a gaze.
    @Test func aSliderStepsTowardsTheGaze() {
        let s = Slider(range: 0.2...0.9, step: 0.05)
        let rect = Rect(x: 0, y: 0, w: 60, h: 3)
        let track = s.layout(rect).track.inset(dx: 1, dy: 0)
        let right = CellPoint(x: track.maxX - 1, y: 1), left = CellPoint(x: track.x, y: 1)
        #expect(s.activate("j", id: "j", gaze: right, value: 0.5, in: rect) == 0.55)
        #expect(s.activate("j", id: "j", gaze: left, value: 0.5, in: rect) == 0.45)
        let here = CellPoint(x: track.x + Int((0.3 / 0.7 * Double(track.w - 1)).rounded()), y: 1)
        #expect(s.activate("j", id: "j", gaze: here, value: 0.5, in: rect) == 0.5)
        #expect(s.activate("j", id: "j", gaze: nil, value: 0.5, in: rect) == nil)
        #expect(s.activate("j", id: "j", gaze: right, value: 0.9, in: rect) == 0.9, "kept in range")
    }

    /// The lowest jaw threshold the slider allows still lets the jaw rest: it fires, and fires again.
    @Test func theLowestJawThresholdStillFiresTwice() {
        var f = Face(screen: "launcher")
        var s = f.state.settings
        s.tracking.jawThreshold = 0.2
        f.session.apply(s)
        f.play(seconds: 1.2)
        let notes = f.gaze("launcher.notes")
        for _ in 0..<2 {
            f.play(gaze: notes, seconds: 0.6)
            f.play(jaw: 0.5, gaze: notes, seconds: 0.5)
            f.play(gaze: notes, seconds: 0.5)
            _ = f.session.send(.key(.escape))
        }
        #expect(f.take().records.filter { $0.action == "open" }.count == 2)
    }

    /// A calibration is tried like a setting: kept by acting, else the one before comes back.
    @Test func aPointerCalibrationNobodyActsWithGoesBack() {
        var d = Driver(.keyboard, screen: "settings")
        let old = d.state.pipelineSettings.mapping.calibration
        let c = PointerCalibration(cx: [0.1, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0])
        _ = d.send(.tick(at: 1))
        // What the Calibration screen's reply carries when a run ends.
        let e = Self.effectsOf(.calibrated(c), &d)
        #expect(d.state.pipelineSettings.mapping.calibration == c && d.state.trial != nil)
        #expect(!e.contains { if case .saveCalibration = $0 { true } else { false } })
        _ = d.send(.tick(at: 20))
        #expect(d.state.pipelineSettings.mapping.calibration == old && d.state.trial == nil)
        _ = Self.effectsOf(.calibrated(c), &d)
        let kept = d.send(.key(.tab))
        #expect(kept.contains(.saveCalibration(c, size: d.state.size)), "with the size it was made at")
        #expect(d.state.knownGood.calibration == c)
    }

    /// Puts a settings effect through the reducer as a screen's reply would, by a screen that returns it
    /// (focused by a helper's Tab, activated by Enter).
    static func effectsOf(_ effect: Effect, _ d: inout Driver) -> [Effect] {
        d.session.state.stack.append(Returns(effect: effect))
        d.session.state.relayout()
        _ = d.send(.key(.tab))
        let e = d.send(.key(.enter))
        d.session.state.stack.removeLast()
        d.session.state.relayout()
        return e
    }

    /// A screen whose Enter returns one effect.
    struct Returns: Screen {
        let name = "returns"
        let title = "Returns"
        let effect: Effect
        func render(_ c: inout Canvas, _ ctx: ScreenContext) { c.button("returns.it", "It", Rect(x: 2, y: 2, w: 10, h: 3)) }
        mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
            guard case .action(.activate, _, _) = input else { return .unhandled }
            return Reply(effects: [effect])
        }
    }

    /// At start, what no gesture can activate with is said, with the way out.
    @Test func startSaysWhenNothingCanActivateAndOffersTheEscape() {
        let config = GestureConfig.defaults()
        var gestures = config.gestures
        for k in gestures.indices where gestures[k].name == "activate" {
            if case .threshold(var t) = gestures[k].kind { t.press = 1.2; gestures[k].kind = .threshold(t) }
        }
        let km = Fixture.keymap("default")
        #expect(ActivationCheck.problem(gestures: config.gestures, keymap: km) == nil)
        #expect(ActivationCheck.problem(gestures: gestures, keymap: km)?.contains("more than a tracker sends") == true)
        var none = km
        none.global.gestures = none.global.gestures.filter { $0.value != .activate }
        #expect(ActivationCheck.problem(gestures: config.gestures, keymap: none)?.contains("binds none to activate") == true)
        var high = config.gestures
        for k in high.indices where high[k].name == "activate" {
            if case .threshold(var t) = high[k].kind { t.press = 0.95; high[k].kind = .threshold(t) }
        }
        #expect(ActivationCheck.problem(gestures: high, keymap: km)?.contains("above what faces reach") == true)
        #expect(ActivationCheck.problem(gestures: config.gestures, keymap: Fixture.keymap("dwell")) == nil)

        var session = Session(state: ShellState(keymap: km, gestures: gestures), settings: PipelineSettings(gestures: gestures))
        session.startKnownGood(ShellSettings(), problems: [.verbatim("settings.toml:2: jaw_threshold must be a number 0.05…0.95")])
        let lines = render(session.state, size: session.state.size).0.lines
        #expect(lines[1].contains("settings.toml:2: jaw_threshold must be a number"), "\(lines[1])")
        #expect(lines.contains { $0.contains("more than a tracker sends") })
        let banner = lines.prefix(6).joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(banner.contains("To restore your last good settings: \(GestureText.describe(EscapeGesture.definition)) · F12 · say “shell, restore settings”."),
                "\(banner)")
        // Acting, or restoring, ends it.
        _ = session.send(.key(.restoreSettings))
        #expect(session.state.settingsWarning.isEmpty)
    }

    /// No config file can take the escape away or change it.
    @Test func noConfigChangesTheEscape() throws {
        #expect(GestureConfig.defaults().gestures.last == EscapeGesture.definition)
        let text = GestureConfig.defaultText + "\n[gesture.restore]\nshape = \"jawOpen\"\npress = 0.99\n"
        #expect(throws: ConfigError.self) { try GestureConfig.parse(text, file: "mine.toml") }
        #expect(throws: ConfigError.self) { try GestureConfig.parse(GestureConfig.defaultText, file: "x", overrides: ["gesture.restore.press=0.9"]) }
        let webcam = try GestureConfig.parse(String(contentsOfFile: Fixture.root + "/config/webcam.toml", encoding: .utf8), file: "webcam.toml")
        #expect(webcam.gestures.last == EscapeGesture.definition)
        for name in ["default", "dwell", "no-wink", "webcam"] {
            let path = Fixture.root + "/keymaps/\(name).toml"
            let km = try Keymap.parse(String(contentsOfFile: path, encoding: .utf8), file: path,
                                      knownGestures: (name == "webcam" ? webcam : GestureConfig.defaults()).gestures.map(\.name),
                                      knownScreens: ScreenRegistry.standard.names)
            #expect(km.global.gestures[EscapeGesture.name] == .restoreSettings, "\(name)")
            #expect(km.global.voice["restore settings"] == .restoreSettings, "\(name)")
        }
    }
}


