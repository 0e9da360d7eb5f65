import Foundation
import Testing
import TrackingCore

/// Weak performances: a held open that stays below the press value, told apart from speech, yawns and opens
/// that act.
@Suite struct WeakPerformanceTests {
    static let jaw = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3, refractory: 0.3)

    /// Runs `jaw(t)` at 60 frames/s for `seconds` after a second of rest; returns the weak performances.
    static func run(seconds: Double, _ jaw: (Double) -> Double) -> [WeakPerformance] {
        var w = WeakPerformanceWatch(name: "activate", Self.jaw)
        var out: [WeakPerformance] = []
        var t = 0.0
        func step(_ v: Double) {
            var b = BlendShapes()
            b[.jawOpen] = Float(v)
            if let p = w.step(b, at: t) { out.append(p) }
            t += 1.0 / 60
        }
        while t < 1 { step(0.04) }
        let start = t
        while t < start + seconds { step(jaw(t - start)) }
        while t < start + seconds + 1 { step(0.04) }
        return out
    }

    @Test func anOpenHeldBelowThePressValueIsWeak() {
        let weak = Self.run(seconds: 1.2) { s in s < 0.2 ? 0.44 * s / 0.2 : s < 1.0 ? 0.44 : 0.1 }
        #expect(weak.count == 1)
        #expect(abs((weak.first?.level ?? 0) - 0.44) < 0.02)
        #expect(weak.first?.press == 0.5)
    }

    @Test func opensThatActTalkingAndYawnsAreNot() {
        #expect(Self.run(seconds: 1.2) { s in s < 0.2 ? 0.7 * s / 0.2 : s < 1.0 ? 0.7 : 0.1 }.isEmpty, "reached press: it acted")
        // Syllables 4 a second through the band between release and press.
        #expect(Self.run(seconds: 5) { s in 0.3 + 0.19 * sin(2 * .pi * 4 * s) }.isEmpty, "speech")
        #expect(Self.run(seconds: 6) { s in s < 0.5 ? 0.45 * s / 0.5 : 0.45 }.isEmpty, "held 5 s or more: a mouth left open")
        #expect(Self.run(seconds: 0.35) { s in s < 0.1 ? 0.45 * s / 0.1 : 0.45 }.isEmpty, "too short to be a hold")
    }

    @Test func anOpenWithoutARestBeforeIsNot() {
        // A weak hold straight after speech (no still face between) is part of the talk.
        let weak = Self.run(seconds: 2.5) { s in s < 1.2 ? 0.3 + 0.19 * sin(2 * .pi * 4 * s) : s < 2.2 ? 0.44 : 0.1 }
        #expect(weak.isEmpty)
    }

    @Test func thePipelineReportsWeakOpensOfHeldGesturesOnly() {
        var settings = PipelineSettings()
        settings.gestures = [
            GestureDefinition(name: "activate", kind: .threshold(Self.jaw)),
            GestureDefinition(name: "wink", kind: .threshold(ThresholdSpec(
                signal: ShapeSignal([.eyeBlinkLeft]), press: 0.6, release: 0.4, hold: 0.08, maxHold: 0.35, refractory: 0.3))),
        ]
        var p = Pipeline(settings)
        var weak: [String] = []
        var t = 0.0
        func frame(jaw: Double, eye: Double) {
            var b = BlendShapes()
            b[.jawOpen] = Float(jaw); b[.eyeBlinkLeft] = Float(eye)
            _ = p.track(.frame(TrackingFrame(t: t, blend: b, gaze: GazePoint(x: 0.5, y: 0.5)), nil))
            if let w = p.weak { weak.append(w.gesture) }
            t += 1.0 / 60
        }
        while t < 1 { frame(jaw: 0.04, eye: 0.05) }
        while t < 2 { frame(jaw: 0.45, eye: 0.05) }
        while t < 3 { frame(jaw: 0.04, eye: 0.05) }
        while t < 3.6 { frame(jaw: 0.04, eye: 0.5) }
        while t < 4.5 { frame(jaw: 0.04, eye: 0.05) }
        #expect(weak == ["activate"], "a wink fires on release: a half-closed eye is not a weak wink")
    }
}
