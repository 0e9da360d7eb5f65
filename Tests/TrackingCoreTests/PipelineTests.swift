import Testing
@testable import TrackingCore

private let activate = GestureDefinition(
    name: "activate",
    kind: .threshold(ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3)))

private func jawFrames(_ values: [Float], start: Double = 0, gaze: GazePoint? = nil) -> [TrackingFrame] {
    values.enumerated().map { i, v in
        TrackingFrame(t: start + Double(i) / 60, blend: BlendShapes([.jawOpen: v]), gaze: gaze)
    }
}

struct PipelineTests {
    @Test func noGestureWhileTheFaceIsLostAndItMustBePerformedAgain() {
        var p = Pipeline(PipelineSettings(gestures: [activate]))
        var events: [GestureEvent] = []
        // Jaw opens, the face is lost before the hold completes, and returns with the jaw still open.
        for f in jawFrames([0.1] + Array(repeating: 0.9, count: 10)) { events += p.step(f) }
        for k in 0..<30 { events += p.step(TrackingFrame.noFace(at: 11.0 / 60 + Double(k) / 60)) }
        for f in jawFrames(Array(repeating: 0.9, count: 60), start: 1) { events += p.step(f) }
        #expect(events.isEmpty)
        #expect(p.stats.faceLost == 30)
        // After closing and opening again it fires.
        for f in jawFrames([0.1] + Array(repeating: 0.9, count: 30), start: 2) { events += p.step(f) }
        #expect(events.count == 1)
    }

    @Test func badValuesAreCountedNeverGestures() {
        var p = Pipeline(PipelineSettings(gestures: [activate]))
        var events: [GestureEvent] = []
        for f in jawFrames([0.1]) { events += p.step(f) }
        var t = 0.1
        for bad: Float in [.nan, .infinity, 7, -3] {
            for _ in 0..<40 {
                events += p.step(.frame(TrackingFrame(t: t, blend: BlendShapes([.jawOpen: bad])), SourcePosition(.line, 9)))
                t += 1.0 / 60
            }
        }
        #expect(events.isEmpty)
        #expect(p.stats.malformed == 160)
        #expect(p.stats.issues.first?.description.hasPrefix("line 9: jawOpen") == true)
        #expect(p.stats.issues.count == PipelineStats.maxIssues)
    }

    @Test func slightOvershootIsClampedAndUsable() {
        var p = Pipeline(PipelineSettings(gestures: [activate]))
        var n = 0
        for f in jawFrames([0.1] + Array(repeating: 1.07, count: 30)) { n += p.step(f).count }
        #expect(n == 1)
        #expect(p.stats.clamped == 30)
        #expect(p.lastFrame?.blend[.jawOpen] == 1)
    }

    @Test func slightlyLateFramesAreDroppedAndCounted() {
        var p = Pipeline(PipelineSettings(gestures: [activate]))
        _ = p.step(TrackingFrame(t: 5))
        _ = p.step(.frame(TrackingFrame(t: 4.6), SourcePosition(.row, 3)))
        #expect(p.stats.late == 1)
        #expect(p.stats.malformed == 0)
        #expect(p.stats.issues.first?.description == "row 3: late frame dropped (4.6 after 5.0)")
        #expect(p.stats.frames == 1)
        #expect(p.epoch == 0)
    }

    @Test func gestureCarriesTheGazeFromBeforeItsOnset() {
        var settings = PipelineSettings(gestures: [activate])
        settings.smoothing.kind = .none
        var p = Pipeline(settings)
        var events: [GestureEvent] = []
        // Gaze rests on (0.2, 0.2); as the jaw opens it drifts to (0.9, 0.9).
        for f in jawFrames(Array(repeating: 0.1, count: 30), gaze: GazePoint(x: 0.2, y: 0.2)) { events += p.step(f) }
        for f in jawFrames(Array(repeating: 0.9, count: 30), start: 0.5, gaze: GazePoint(x: 0.9, y: 0.9)) { events += p.step(f) }
        #expect(events.count == 1)
        #expect(events.first?.gaze == GazePoint(x: 0.2, y: 0.2))
        #expect(events.first?.onset == 0.5)
    }

    @Test func dwellFiresOnTheTargetItsOwnerFoundUnderTheSmoothedGaze() {
        let dwell = GestureDefinition(name: "dwell", kind: .dwell(DwellSpec(dwell: 0.5, grace: 0.1)))
        var settings = PipelineSettings(gestures: [dwell])
        settings.smoothing.kind = .none
        var p = Pipeline(settings)
        var events: [GestureEvent] = []
        for f in jawFrames(Array(repeating: 0, count: 60), gaze: GazePoint(x: 0.2, y: 0.5)) {
            events += p.track(.frame(f, nil))
            events += p.dwell(on: p.gaze.map { $0.x < 0.5 ? "left" : "right" })
        }
        #expect(events.map(\.target) == ["left"])
        // Without a screen (replay, record), dwell has nothing to fill on.
        var q = Pipeline(settings)
        var none: [GestureEvent] = []
        for f in jawFrames(Array(repeating: 0, count: 60), gaze: GazePoint(x: 0.2, y: 0.5)) { none += q.step(f) }
        #expect(none.isEmpty)
    }
}

struct FilterTests {
    @Test(arguments: [SmoothingKind.movingAverage, .lowPass, .oneEuro])
    func convergesOnAStillPoint(_ kind: SmoothingKind) {
        var f = GazeFilter(SmoothingSettings(kind: kind))
        _ = f.step(GazePoint(x: 0, y: 0), at: 0)
        var last = GazePoint(x: 0, y: 0)
        for i in 1...600 { last = f.step(GazePoint(x: 0.8, y: 0.4), at: Double(i) / 60) }
        #expect(abs(last.x - 0.8) < 1e-3 && abs(last.y - 0.4) < 1e-3)
    }

    @Test func movingAverageIsTheMeanOfTheWindow() {
        var f = GazeFilter(SmoothingSettings(kind: .movingAverage, window: 4))
        var out = GazePoint(x: 0, y: 0)
        for (i, x) in [0.0, 0.4, 0.8, 0.4, 1.0].enumerated() { out = f.step(GazePoint(x: x, y: 0), at: Double(i)) }
        #expect(abs(out.x - 0.65) < 1e-12)
    }

    @Test(arguments: [SmoothingKind.movingAverage, .lowPass, .oneEuro])
    func reducesJitter(_ kind: SmoothingKind) {
        var f = GazeFilter(SmoothingSettings(kind: kind))
        var outs: [Double] = []
        for i in 0..<600 {
            let jitter = (i % 2 == 0 ? 0.05 : -0.05)
            outs.append(f.step(GazePoint(x: 0.5 + jitter, y: 0.5), at: Double(i) / 60).x)
        }
        let tail = outs.suffix(300)
        let spread = (tail.max() ?? 0) - (tail.min() ?? 0)
        #expect(spread < 0.1 * 0.5, "raw spread is 0.1")
    }

    @Test func gazeMappingCoversTheScreenEdges() {
        let m = GazeMapping()
        let left = TrackingFrame(t: 0, eyes: EyeAngles(leftYaw: -0.4, leftPitch: 0.3, rightYaw: -0.4, rightPitch: 0.3))
        let right = TrackingFrame(t: 0, eyes: EyeAngles(leftYaw: 0.4, leftPitch: -0.3, rightYaw: 0.4, rightPitch: -0.3))
        // On the screen the edges are reached; the raw point overshoots them as the angles do, so a calibration
        // sees how far (issue 49), never further than the reach.
        #expect(m.point(for: left).map(m.onScreen) == GazePoint(x: 0, y: 0))
        #expect(m.point(for: right).map(m.onScreen) == GazePoint(x: 1, y: 1))
        #expect(m.point(for: left).map { abs($0.x + 0.05 / 0.7) < 1e-9 && abs($0.y + 0.1) < 1e-9 } == true)
        let far = TrackingFrame(t: 0, eyes: EyeAngles(leftYaw: 3, leftPitch: -3, rightYaw: 3, rightPitch: -3))
        #expect(m.point(for: far) == GazePoint(x: 1 + GazeMapping.reach, y: 1 + GazeMapping.reach))
        let headOnly = TrackingFrame(t: 0, eyes: EyeAngles(leftYaw: 0, leftPitch: 0, rightYaw: 0, rightPitch: 0),
                                     head: HeadPose(yaw: 0.175, pitch: 0, roll: 0))
        #expect(abs((m.point(for: headOnly)?.x ?? 0) - 0.75) < 1e-9)
    }
}

struct BlendShapeTests {
    @Test func all52NamesRoundTrip() {
        #expect(BlendShape.allCases.count == 52)
        for s in BlendShape.allCases {
            #expect(BlendShape(name: s.name) == s)
            #expect(BlendShape(name: s.name.prefix(1).uppercased() + s.name.dropFirst()) == s)
        }
        #expect(BlendShape(name: "jawOpn") == nil)
    }
}
