import Foundation
import Localization
import Config
import Shell
import Testing
import TrackingCore

/// Issue 12: the gesture calibration screen, driven by frames through the real session and pipeline as a
/// user would drive it: read the prompt, perform that gesture, relax.
@Suite struct GestureCalibrationScreenTests {
    /// Opens Settings › Pointer › Calibrate gestures and starts.
    func start() -> Driver {
        Driver.startCalibration("settings.calibrate-gestures", screen: "gesture-calibration", start: "gestures.start")
    }

    /// The gesture the screen asks for now, read off the screen ("Now: open the jaw and hold …, then relax"):
    /// the screen has no letter keys, so it leaves the shorter hold on them out.
    func asked(_ d: Driver) -> String? {
        guard let line = d.lines.first(where: { $0.contains("Now: ") }) else { return nil }
        return d.state.gestures.first { line.contains("Now: " + GestureText.describe($0, .english, letterKeys: false) + ", then relax") }?.name
    }

    /// A user who performs each gesture at `strength`, except those in `cannot`, until the run ends. Returns
    /// the screens seen while the run went on.
    func perform(_ d: inout Driver, strength: Float = 0.7, cannot: Set<String> = [], seconds: Double = 120) -> Set<String> {
        var screens: Set<String> = []
        var t = d.t + 0.5
        let end = t + seconds
        var current: String?, since = t
        while t < end, d.text.contains("Calibrating") || d.text.contains("neutral face:") || asked(d) != nil {
            var f = TrackingFrame(t: t)
            let name = asked(d)
            if name != current { current = name; since = t }
            if let name, !cannot.contains(name), let g = d.state.gestures.first(where: { $0.name == name }),
               case .threshold(let spec) = g.kind {
                // Hold as long as the gesture needs (within any maximum), then relax for half a second.
                let hold = min(spec.hold + 0.3, (spec.maxHold ?? 10) - 0.05)
                let phase = (t - since).truncatingRemainder(dividingBy: hold + 0.6)
                if phase > 0.1, phase < 0.1 + hold {
                    for (k, s) in spec.signal.shapes.enumerated() {
                        f.blend[s] = spec.signal.combine == .difference && k > 0 ? 0.05 : strength
                    }
                }
            }
            _ = d.step(.frame(f, nil))
            screens.insert(d.screen)
            t += 1.0 / 60
        }
        d.t = t
        return screens
    }

    @Test func eachGestureTwiceSetsThresholdsAndNothingActsMeanwhile() {
        var d = start()
        let before = d.session.pipeline.settings.gestures
        let screens = perform(&d, cannot: ["commit"])
        // Performing activate and back never pressed a button nor left the screen.
        #expect(screens == ["gesture-calibration"])
        // Nor did the brow raise open the microphone, though it fires as it is let go, with the last performance.
        #expect(!d.state.listening && !d.state.dictating && !d.state.readiness.paused)
        #expect(d.text.contains("Calibrated:"), "\(d.text)")
        #expect(d.text.contains("Not seen, so unchanged: stick the tongue out"), "\(d.text)")
        // The pipeline uses the new thresholds: halfway from the neutral face (0) to the performances (0.7).
        let after = d.session.pipeline.settings.gestures
        guard case .threshold(let a) = after.first(where: { $0.name == "activate" })?.kind,
              case .threshold(let c) = after.first(where: { $0.name == "commit" })?.kind,
              case .threshold(let c0) = before.first(where: { $0.name == "commit" })?.kind else {
            Issue.record("activate and commit must be threshold gestures"); return
        }
        #expect(abs(a.press - 0.35) < 0.02 && a.release < a.press, "\(a)")
        #expect(c == c0, "a gesture not seen keeps its values")
        #expect(d.state.tracking.gestureThresholds.count >= 2)
        #expect(abs(d.state.trackingInEffect.jawThreshold - 0.35) < 0.02, "the jaw slider shows the calibrated value")
        d.activate("gestures.done")
        #expect(d.screen == "settings")
        #expect(d.text.contains("Gestures again"))
    }

    @Test func keepingStillStopsTheRunAndKeepsTheValues() {
        var d = start()
        let before = d.session.pipeline.settings.gestures
        let screens = perform(&d, cannot: Set(before.map(\.name)))
        #expect(screens == ["gesture-calibration"])
        #expect(d.text.contains("Not calibrated: no gesture was seen for 12 s"), "\(d.text)")
        #expect(d.session.pipeline.settings.gestures == before)
        #expect(d.state.tracking.gestureThresholds.isEmpty)
    }

    /// Why the run was refused, in another language.
    @Test func theRefusalIsWrittenInTheLanguage() throws {
        var d = start()
        _ = perform(&d, cannot: Set(d.session.pipeline.settings.gestures.map(\.name)))
        d.send(.languageLoaded(try LanguageTests.catalog("fr")))
        #expect(d.text.contains("Non calibré") && d.text.contains("aucun geste vu pendant 12 s"), "\(d.text)")
        #expect(!d.text.contains("no gesture"), "\(d.text)")
    }

    /// The thresholds learned, in another language: its words and its decimal separator ("0,35", not "0.35").
    @Test func theResultIsWrittenInTheLanguage() throws {
        var d = start()
        _ = perform(&d, cannot: ["commit"])
        #expect(d.text.contains("Calibrated:"), "\(d.text)")
        d.send(.languageLoaded(try LanguageTests.catalog("de")))
        #expect(d.text.contains("Kalibriert:") && d.text.contains("Nicht gesehen, daher unverändert:"), "\(d.text)")
        #expect(d.text.range(of: #"Auslösen \d,\d\d → \d,\d\d"#, options: .regularExpression) != nil, "\(d.text)")
        #expect(!d.text.contains("press "), "\(d.text)")
    }
}
