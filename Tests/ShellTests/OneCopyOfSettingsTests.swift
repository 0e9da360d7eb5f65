import Config
import Shell
import Testing
import TrackingCore

/// Every tracking setting has one copy, in the state; the session's pipeline is configured from it.
@Suite struct OneCopyOfSettingsTests {
    @Test func theSettingsScreensSlidersReachThePipelineThroughTheState() {
        var d = Driver(.gesture, screen: "settings")
        var s = d.state.settings
        s.tracking.jawThreshold = 0.8
        s.tracking.smoothing = .lowPass
        s.tracking.headReachDegrees = 20
        _ = d.send(.tick(at: 5))
        #expect(d.state.pipelineSettings == d.session.pipeline.settings)
        // The Settings screen's reply carries .settingsChanged; the reducer applies it to the state.
        var state = d.state
        state.apply(s)
        #expect(state.pipelineSettings.smoothing.kind == .lowPass)
        d.session.apply(s)
        #expect(d.state.pipelineSettings.smoothing.kind == .lowPass)
        #expect(d.session.pipeline.settings == d.state.pipelineSettings, "the pipeline is made from the state's copy")
        #expect(d.state.gestures == d.state.pipelineSettings.gestures)
        let jaw = d.state.gestures.compactMap { g -> Float? in
            if case .threshold(let t) = g.kind, t.signal.shapes == [.jawOpen], g.name != EscapeGesture.name { return t.press } else { return nil }
        }
        #expect(jaw.allSatisfy { $0 == 0.8 } && !jaw.isEmpty)
        #expect(d.state.gestures.last == EscapeGesture.definition, "the escape keeps its built-in threshold")
    }

    /// One direction (issue 48): a gesture config's own jaw press (0.55, as `--set gesture.activate.press=0.55`
    /// or config/webcam.toml give it) with no override in settings.toml is what the pipeline uses and the
    /// Settings screen shows, and saving settings unchanged there writes no jaw threshold; an override the user
    /// sets (0.75) wins, and is saved.
    @Test func theGestureConfigsJawPressStandsUntilTheUserSetsOne() throws {
        let text = try String(contentsOfFile: Fixture.root + "/config/gestures.toml", encoding: .utf8)
        let config = try GestureConfig.parse(text, file: "gestures.toml", overrides: ["gesture.activate.press=0.55"])
        let (saved, problems) = ShellSettings.parse("large_targets = false\n", file: "settings.toml")
        #expect(problems.isEmpty && saved.tracking == TrackingSettings())
        var d = Driver(.gesture, screen: "settings", config: config)
        d.session.apply(saved)
        func press() -> Float? {
            d.session.pipeline.settings.gestures.first { $0.name == "activate" }.flatMap { g -> Float? in
                if case .threshold(let t) = g.kind { return t.press } else { return nil }
            }
        }
        #expect(press() == 0.55)
        #expect(d.state.trackingInEffect.jawThreshold == 0.55)
        #expect(d.text.contains("Jaw threshold: 0.55"), "the Settings screen shows the config's value")
        // A change elsewhere saves the settings: the jaw threshold is not among them.
        d.activate("settings.tab.access")
        var effects = d.activate("settings.large")
        var saves = effects.compactMap { if case .saveSettings(let s) = $0 { s } else { nil } }
        #expect(saves.count == 1 && saves.allSatisfy { $0.largeTargets && !$0.toml.contains("jaw_threshold") })
        #expect(press() == 0.55)
        // The user sets 0.75: four steps up from the value shown; acting once more keeps it, and it is saved.
        d.activate("settings.tab.tracking")
        effects = []
        for _ in 0..<4 { effects += d.activate("settings.jaw.plus") }
        effects += d.activate("settings.tab.tracking")
        saves = effects.compactMap { if case .saveSettings(let s) = $0 { s } else { nil } }
        #expect(d.state.settings.tracking.jawThreshold == 0.75)
        #expect(press() == 0.75)
        #expect(d.text.contains("Jaw threshold: 0.75"))
        #expect(saves.last?.toml.contains("jaw_threshold = 0.75\n") == true, "saved: \(saves.map(\.toml))")
    }

    @Test func aCalibrationAndARecentredHeadAreKeptInTheStateAndUsedByThePipeline() {
        var session = Session(state: Fixture.state(), settings: GestureConfig.defaults())
        let c = PointerCalibration.identity
        session.calibrate(c)
        #expect(session.state.pipelineSettings.mapping.calibration == c)
        #expect(session.pipeline.settings.mapping.calibration == c)
        #expect(session.state.calibration != nil)
        let head = HeadPose(yaw: 0.2, pitch: -0.1, roll: 0)
        var t = 0.0
        for _ in 0..<90 { _ = session.step(.frame(TrackingFrame(t: t, head: head), nil)); t += 1.0 / 60 }
        _ = session.send(.speech("center pointer", isFinal: true))
        #expect(session.state.pipelineSettings.mapping.headCentre.yaw == head.yaw, "the pose the pipeline saw, in the state")
        #expect(session.pipeline.settings == session.state.pipelineSettings)
    }

    /// `dwell_ms` has one range: what a gesture config accepts, the settings file accepts, and the pipeline is
    /// given as it is (it was 200…60000 in the config, 200…5000 in settings.toml, clamped to 0.05…60 s).
    @Test func dwellTimeHasOneRangeInTheConfigTheSettingsFileAndThePipeline() throws {
        for ms in [SettingRanges.dwellMilliseconds.lowerBound, 6000, SettingRanges.dwellMilliseconds.upperBound] {
            let config = try GestureConfig.parse("[gesture.d]\nkind = \"dwell\"\ndwell_ms = \(Int(ms))\n", file: "g.toml")
            guard case .dwell(let spec)? = config.gestures.first?.kind else { Issue.record("no dwell gesture"); continue }
            let (settings, problems) = ShellSettings.parse("dwell_ms = \(Int(ms))\n", file: "settings.toml")
            #expect(problems.isEmpty, "settings.toml refused dwell_ms = \(ms) the config took: \(problems)")
            #expect(settings.tracking.dwellTime == spec.dwell)
            var state = ShellState(keymap: Keymap(name: "k", global: KeymapSection(gestures: [:])), gestures: config.gestures)
            state.apply(settings)
            let applied = state.gestures.compactMap { g -> Double? in if case .dwell(let d) = g.kind { d.dwell } else { nil } }
            #expect(applied == [ms / 1000], "the pipeline's dwell is the setting's, not clamped to another range")
        }
        for ms in [SettingRanges.dwellMilliseconds.lowerBound - 1, SettingRanges.dwellMilliseconds.upperBound + 1] {
            #expect(throws: ConfigError.self) { try GestureConfig.parse("[gesture.d]\nkind = \"dwell\"\ndwell_ms = \(Int(ms))\n", file: "g.toml") }
            #expect(!ShellSettings.parse("dwell_ms = \(Int(ms))\n", file: "settings.toml").1.isEmpty)
        }
    }
}
