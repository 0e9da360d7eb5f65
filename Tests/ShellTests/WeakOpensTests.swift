import Config
import Shell
import Testing
import TrackingCore

/// Opens that stay too weak to act: after three on a target within two minutes the shell says how far short
/// they fall and where to calibrate; it never lowers a threshold by itself.
@Suite struct WeakOpensTests {
    static func weak(_ t: Double, _ level: Double = 0.42) -> TrackingSample {
        var s = TrackingSample(t: t, gaze: GazePoint(x: 0.5, y: 0.5), target: "launcher.notes")
        s.weak = WeakPerformance(gesture: "activate", level: level, press: 0.5, t: t)
        return s
    }

    @Test func threeWeakOpensOnATargetSuggestCalibrating() {
        var s = Fixture.armedState()
        _ = reduce(&s, .frame(Self.weak(10, 0.41)))
        _ = reduce(&s, .frame(Self.weak(30, 0.43)))
        #expect(s.notice == nil, "two are not yet a pattern")
        _ = reduce(&s, .frame(Self.weak(50, 0.42)))
        #expect(s.notice == "Open the jaw: only 0.42 of 0.50. Settings › Pointer › Calibrate gestures")
        #expect(s.top.name == "launcher", "nothing acted")
        #expect(s.gestures.contains { if case .threshold(let spec) = $0.kind { $0.name == "activate" && spec.press == 0.5 } else { false } },
                "the threshold is left as it was")
    }

    @Test func anOpenThatActsOrAGapStartsTheCountAgain() {
        var s = Fixture.armedState()
        _ = reduce(&s, .frame(Self.weak(10)))
        _ = reduce(&s, .frame(Self.weak(20)))
        _ = reduce(&s, .gesture(GestureEvent(name: "activate", t: 25, onset: 24.6, gaze: nil)))
        _ = reduce(&s, .frame(Self.weak(30)))
        #expect(s.notice == nil, "one acted in between")
        _ = reduce(&s, .frame(Self.weak(200)))
        _ = reduce(&s, .frame(Self.weak(400)))
        #expect(s.notice == nil, "more than two minutes apart")
    }

    @Test func weakOpensWhileTalkingOrOffTargetDoNotCount() {
        var s = Fixture.armedState()
        _ = reduce(&s, .talking(true))
        for t in [10.0, 20, 30] { _ = reduce(&s, .frame(Self.weak(t))) }
        #expect(s.notice == nil, "talking")
        _ = reduce(&s, .talking(false))
        for t in [40.0, 50, 60] {
            var sample = Self.weak(t)
            sample.target = nil
            _ = reduce(&s, .frame(sample))
        }
        #expect(s.notice == nil, "looking at no target: not an attempt to act")
    }
}
