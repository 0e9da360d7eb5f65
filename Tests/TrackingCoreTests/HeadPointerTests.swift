import Testing
@testable import TrackingCore

/// Head-only pointing (webcam trackers): the head's turn from its centre points, with a dead zone, and
/// recentring takes the pose now as the middle.
@Suite struct HeadPointerTests {
    func frame(_ t: Double, yaw: Double, pitch: Double) -> TrackingFrame {
        TrackingFrame(t: t, head: HeadPose(yaw: yaw, pitch: pitch, roll: 0.1))
    }

    @Test func theHeadPointsThroughItsRangesAroundTheCentre() {
        let m = GazeMapping()
        #expect(m.point(for: frame(0, yaw: 0, pitch: 0)) == GazePoint(x: 0.5, y: 0.5))
        // MediaPipe: yaw > 0 turns to the user's left, pitch > 0 is chin down.
        // Past the range the raw point overshoots (up to the reach); on the screen it stops at the edge.
        let left = m.point(for: frame(0, yaw: 0.25, pitch: 0))
        #expect(left.map(m.onScreen)?.x == 0)
        #expect(left.map { abs($0.x + 0.1) < 1e-9 } == true)
        let down = m.point(for: frame(0, yaw: 0, pitch: 0.2))
        #expect(down.map(m.onScreen)?.y == 1)
        #expect(down?.y == 1 + GazeMapping.reach)
        // Within the dead zone a head that drifts a little holds the pointer still.
        #expect(m.point(for: frame(0, yaw: 0.008, pitch: -0.009)) == GazePoint(x: 0.5, y: 0.5))
        // Beyond it the pointer moves continuously from the middle (no jump at the zone's edge).
        let just = m.point(for: frame(0, yaw: -0.011, pitch: 0))
        #expect(just.map { abs($0.x - (0.5 + 0.001 / 0.4)) < 1e-9 } == true)
    }

    @Test func eyesOrAPointStillWinOverTheHead() {
        let m = GazeMapping()
        var f = frame(0, yaw: 0.3, pitch: 0)
        f.gaze = GazePoint(x: 0.2, y: 0.7)
        #expect(m.point(for: f) == GazePoint(x: 0.2, y: 0.7))
    }

    @Test func recentringTakesThePoseNowAsTheMiddle() {
        var p = Pipeline(PipelineSettings(mapping: GazeMapping(), gestures: []))
        _ = p.track(.frame(frame(0, yaw: 0.1, pitch: 0.05), nil))
        #expect(p.gaze.map { $0.x < 0.5 && $0.y > 0.5 } == true, "a turned head points off-centre")
        let recentred = p.recentre()
        #expect(recentred)
        var t = 0.0
        for _ in 0..<120 { t += 1.0 / 60; _ = p.track(.frame(frame(t, yaw: 0.1, pitch: 0.05), nil)) }
        let g = p.gaze ?? GazePoint(x: -1, y: -1)
        #expect(abs(g.x - 0.5) < 0.01 && abs(g.y - 0.5) < 0.01, "\(g)")
        var lost = Pipeline(PipelineSettings(mapping: GazeMapping(), gestures: []))
        _ = lost.track(.frame(TrackingFrame(t: 0, gaze: GazePoint(x: 0.5, y: 0.5)), nil))
        let none = lost.recentre()
        #expect(!none, "no head pose: nothing to recentre")
    }
}
