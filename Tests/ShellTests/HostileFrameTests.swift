import Config
import Shell
import Testing
import TrackingCore

/// Frame values that trapped converting to Int in the shell (issue 14, defect 2).
struct HostileFrameTests {
    @Test func jsonNumbersBeyondIntPrintInsteadOfTrapping() {
        #expect(JSONText.number(1e19) == "1e+19")
        #expect(JSONText.number(-9.3e18) == "-9.3e+18")
        #expect(JSONText.number(Double.greatestFiniteMagnitude).hasSuffix("e+308"))
        #expect(JSONText.number(1234.5678) == "1234.568")
        #expect(JSONText.number(-0.25, digits: 1) == "-0.3" || JSONText.number(-0.25, digits: 1) == "-0.2")
    }

    @Test func gazeThatIsNotFiniteMapsToACellInsteadOfTrapping() {
        let size = Size(width: 100, height: 30)
        #expect(CellPoint(gaze: GazePoint(x: .nan, y: .nan), in: size) == CellPoint(x: 0, y: 0))
        #expect(CellPoint(gaze: GazePoint(x: .infinity, y: -.infinity), in: size) == CellPoint(x: 99, y: 0))
        #expect(CellPoint(gaze: GazePoint(x: 1e300, y: 0.5), in: size) == CellPoint(x: 99, y: 15))
        #expect(CellPoint(gaze: GazePoint(x: 0.999, y: 1), in: size) == CellPoint(x: 99, y: 29))
    }

    @Test func aDenormalTimestampStepRunsThroughTheShell() {
        // t 0 then 5e-324 made the One Euro filter NaN, and Int(NaN) trapped in the dwell hit test.
        let settings = GestureConfig.defaults()
        var h = HeadlessSession(keymap: Keymap(name: "empty"), settings: settings)
        for (t, x) in [(0.0, 0.2), (Double.leastNonzeroMagnitude, 0.9), (2 * Double.leastNonzeroMagnitude, 0.1), (0.5, 0.5)] {
            _ = h.step(.frame(TrackingFrame(t: t, gaze: GazePoint(x: x, y: 0.5)), nil))
            if let g = h.session.pipeline.gaze { #expect(g.x.isFinite) }
        }
        #expect(h.session.pipeline.stats.frames == 4)
    }

    @Test func anActionAtAHugeTimestampWritesItsJSONLine() {
        let r = ActionRecord(t: 1e19, action: "open", target: "launcher.notes", screen: "notes")
        #expect(r.json.hasPrefix("{\"t\": 1e+19, "))
    }
}
