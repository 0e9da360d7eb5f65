import Testing
import TrackingCore

/// Issue 14, defect 4: a tracker restart (its clock starts again) or one future timestamp left the shell deaf.
struct ClockJumpRegressionTests {
    static let jaw = GestureDefinition(
        name: "activate",
        kind: .threshold(ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3)))

    /// Neutral frames, then the jaw held open for `hold` seconds, at 60 frames/s from `start`.
    static func jawPerformance(from start: Double, hold: Double = 0.5) -> [TrackingFrame] {
        let rest = (0..<30).map { TrackingFrame(t: start + Double($0) / 60, blend: BlendShapes([.jawOpen: 0.05])) }
        let open = (0..<Int(hold * 60)).map {
            TrackingFrame(t: start + 0.5 + Double($0) / 60, blend: BlendShapes([.jawOpen: 0.9]))
        }
        return rest + open
    }

    @Test func aRestartedTrackerClockStillDrivesGestures() {
        var p = Pipeline(PipelineSettings(gestures: [Self.jaw]))
        var before = 0
        for f in Self.jawPerformance(from: 3600) { before += p.step(f).count }
        #expect(before == 1)
        // The tracker app restarts: its clock begins again near zero.
        var after = 0
        for f in Self.jawPerformance(from: 0.2) { after += p.step(f).count }
        #expect(after == 1, "a jaw performance after a clock restart must be recognised")
    }

    @Test func oneWildFutureTimestampDoesNotDeafenThePipeline() {
        var p = Pipeline(PipelineSettings(gestures: [Self.jaw]))
        for f in Self.jawPerformance(from: 10) { _ = p.step(f) }
        _ = p.step(TrackingFrame(t: 1e9, blend: BlendShapes([.jawOpen: 0.05])))
        var after = 0
        for f in Self.jawPerformance(from: 12) { after += p.step(f).count }
        #expect(after == 1, "normal frames after one wild timestamp must be used")
    }
}

/// Epochs: how the pipeline reads each kind of jump of the source's clock.
struct EpochTests {
    static func frame(_ t: Double, jaw: Float = 0.05) -> TrackingFrame {
        TrackingFrame(t: t, blend: BlendShapes([.jawOpen: jaw]))
    }

    @Test func aBackwardsJumpBeginsAnEpochAndNoGestureSpansIt() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        var events: [GestureEvent] = []
        // The jaw opens just before the restart and is still open after it: that performance is void.
        for k in 0..<25 { events += p.step(Self.frame(100 + Double(k) / 60, jaw: k < 10 ? 0.05 : 0.9)) }
        for k in 0..<30 { events += p.step(Self.frame(0.5 + Double(k) / 60, jaw: 0.9)) }
        #expect(events.isEmpty, "a performance must not span a clock jump")
        #expect(p.epoch == 1)
        #expect(p.stats.clockJumps == 1)
        #expect(p.stats.malformed == 0)
        #expect(p.stats.issues.first?.description.contains("tracker restarted") == true)
        // Continuous time carries on just after the old epoch, so the shell's clock never goes back.
        #expect(p.time.map { $0 > 100.4 && $0 < 101.5 } == true)
        // A new performance in the new epoch fires.
        for k in 0..<60 { events += p.step(Self.frame(1 + Double(k) / 60, jaw: k < 10 ? 0.05 : 0.9)) }
        #expect(events.count == 1)
    }

    @Test func aForwardJumpOfMoreThanFiveSecondsBeginsAnEpoch() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        _ = p.step(Self.frame(10))
        _ = p.step(Self.frame(14.9))
        #expect(p.epoch == 0, "a pause of under 5 s is not a jump")
        _ = p.step(Self.frame(20))
        #expect(p.epoch == 1)
        #expect(p.time.map { $0 < 15 } == true)
    }

    @Test func oneWildFrameCostsTwoEpochsAndTheNormalFramesCarryOn() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        for k in 0..<10 { _ = p.step(Self.frame(10 + Double(k) / 60)) }
        _ = p.step(Self.frame(1e19))
        #expect(p.epoch == 1)
        #expect(p.time.map { $0 > 10 && $0 < 11 } == true, "a wild timestamp must not drag the continuous clock along")
        _ = p.step(Self.frame(10.2))
        #expect(p.epoch == 2, "the normal frame after a wild one is a jump back: another new epoch")
        #expect(p.stats.clockJumps == 2)
        #expect(p.stats.frames == 12)
        #expect(p.time.map { $0 > 10 && $0 < 11 } == true)
    }

    @Test func aWildFirstTimestampDoesNotFreezeTheClock() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        _ = p.step(Self.frame(1e19))
        var events: [GestureEvent] = []
        for f in ClockJumpRegressionTests.jawPerformance(from: 5) { events += p.step(f) }
        #expect(p.epoch == 1)
        #expect(events.count == 1, "frames after a wild first timestamp must still measure time")
    }

    @Test func smallReorderingIsDroppedWithoutAnEpoch() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        for t in [1.0, 1.1, 1.05, 1.2, 0.7, 1.3] { _ = p.step(Self.frame(t)) }
        #expect(p.stats.late == 2)
        #expect(p.epoch == 0)
        #expect(p.stats.frames == 4)
        // Further back than 0.5 s is a restart, not reordering.
        _ = p.step(Self.frame(0.79))
        #expect(p.epoch == 1)
    }

    @Test func aTimecodePassingMidnightContinues() {
        var p = Pipeline(PipelineSettings(gestures: [ClockJumpRegressionTests.jaw]))
        var events: [GestureEvent] = []
        // Live Link Face's timecode: seconds since midnight, 23:59:59.5 → 00:00:00.3, jaw held across.
        let times = (0..<48).map { 86_399.5 + Double($0) / 60 }.map { $0 >= 86_400 ? $0 - 86_400 : $0 }
        for (k, t) in times.enumerated() { events += p.step(Self.frame(t, jaw: k < 20 ? 0.05 : 0.9)) }
        #expect(p.epoch == 0)
        #expect(p.stats.midnightWraps == 1)
        #expect(p.stats.late == 0)
        #expect(events.count == 1, "a gesture held across midnight is one gesture")
        #expect(events.first.map { $0.t > 86_399.9 && $0.t < 86_400.4 } == true)
        // A frame from before midnight arriving just after the wrap is late, not a restart.
        _ = p.step(Self.frame(86_399.99))
        #expect(p.stats.late == 1)
        #expect(p.epoch == 0)
    }

    @Test func dwellDoesNotProgressWhileSuspended() {
        let dwell = GestureDefinition(name: "dwell", kind: .dwell(DwellSpec(dwell: 0.5, grace: 0.1)))
        var settings = PipelineSettings(gestures: [dwell])
        settings.smoothing.kind = .none
        var p = Pipeline(settings)
        var events: [GestureEvent] = []
        for k in 0..<60 {
            events += p.track(.frame(TrackingFrame(t: Double(k) / 60, gaze: GazePoint(x: 0.5, y: 0.5)), nil))
            events += p.dwell(on: "tile", suspended: true)
        }
        #expect(events.isEmpty)
        #expect(p.progress.isEmpty)
        for k in 60..<120 {
            events += p.track(.frame(TrackingFrame(t: Double(k) / 60, gaze: GazePoint(x: 0.5, y: 0.5)), nil))
            events += p.dwell(on: "tile")
        }
        #expect(events.count == 1)
        #expect(events.first.map { $0.onset >= 1 } == true, "dwell starts when it is no longer suspended")
    }
}
