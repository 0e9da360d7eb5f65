import Testing
import TrackingCore

/// Timestamps a filter cannot divide by (issue 14, defect 2): a denormal step made the One Euro filter NaN.
struct FilterHostileTests {
    @Test func denormalStepKeepsTheOneEuroFilterFinite() {
        var f = GazeFilter(SmoothingSettings(kind: .oneEuro))
        _ = f.step(GazePoint(x: 0.2, y: 0.2), at: 0)
        let p = f.step(GazePoint(x: 0.9, y: 0.1), at: Double.leastNonzeroMagnitude)
        #expect(p.x.isFinite && p.y.isFinite, "\(p)")
        // Tiny steps add up: once they pass the minimum the filter moves again.
        var q = p
        for k in 1...20 { q = f.step(GazePoint(x: 0.9, y: 0.1), at: Double(k) * 1e-7) }
        #expect(q.x.isFinite && q.y.isFinite)
        let r = f.step(GazePoint(x: 0.9, y: 0.1), at: 0.5)
        #expect(r.x > 0.2 && r.x <= 0.9)
    }

    @Test func pipelineGazeStaysFiniteForEveryStepSize() {
        for kind in SmoothingKind.allCases {
            var p = Pipeline(PipelineSettings(smoothing: SmoothingSettings(kind: kind)))
            var t = 0.0
            for step in [Double.leastNonzeroMagnitude, 1e-300, 1e-12, 0, 1e-7, 1e9, 1e-9] {
                t += step
                _ = p.step(TrackingFrame(t: t, gaze: GazePoint(x: t.truncatingRemainder(dividingBy: 1), y: 0.5)))
                if let g = p.gaze { #expect(g.x.isFinite && g.y.isFinite, "\(kind) after a step of \(step)") }
            }
        }
    }
}
