import Testing
@testable import TrackingCore

/// Issue 17: fitting a pointer calibration from samples at known targets, and taking the samples hands-free.
@Suite struct CalibrationTests {
    struct Rng {
        var s: UInt64
        mutating func unit() -> Double { s = s &* 6364136223846793005 &+ 1442695040888963407; return Double(s >> 11) / Double(1 << 53) }
        mutating func normal() -> Double { (0..<12).map { _ in unit() }.reduce(0, +) - 6 }
    }

    /// A user whose pointer is offset, scaled, tilted and bent: where the pointer lands when they look at `p`.
    static func distort(_ p: GazePoint) -> GazePoint {
        GazePoint(x: 0.08 + 0.8 * p.x + 0.05 * p.y + 0.1 * p.x * p.x, y: -0.05 + 1.2 * p.y - 0.04 * p.x)
    }

    @Test func aDistortedPointerIsCorrectedToWithinACell() throws {
        var rng = Rng(s: 7)
        var samples: [CalibrationSample] = []
        for target in CalibrationRun.nineTargets {
            for _ in 0..<20 {
                let d = Self.distort(target)
                samples.append(CalibrationSample(raw: GazePoint(x: d.x + 0.004 * rng.normal(), y: d.y + 0.004 * rng.normal()), target: target))
            }
        }
        // A blink's samples far off the mark are left out, not fitted.
        for _ in 0..<6 { samples.append(CalibrationSample(raw: GazePoint(x: 0.9, y: 0.05), target: GazePoint(x: 0.5, y: 0.5))) }
        let r = try CalibrationFit.fit(samples).get()
        #expect(r.errorBefore > 5, "the user's pointer was well off: \(r.errorBefore) cells")
        #expect(r.errorAfter < 1, "\(r.errorAfter) cells after")
        #expect(r.dropped >= 6)
        let check = GazePoint(x: 0.3, y: 0.7)
        let p = r.calibration.apply(Self.distort(check))
        #expect(abs(p.x - check.x) * 100 < 1 && abs(p.y - check.y) * 30 < 1, "a point between the targets: \(p)")
    }

    @Test func aDriftCorrectionShiftsTheWholeMapping() throws {
        let cal = PointerCalibration(cx: [0.02, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0])
        let moved = cal.driftCorrected(raw: GazePoint(x: 0.5, y: 0.55), target: GazePoint(x: 0.5, y: 0.5))
        let p = moved.apply(GazePoint(x: 0.5, y: 0.55))
        #expect(abs(p.x - 0.5) < 1e-9 && abs(p.y - 0.5) < 1e-9)
        let q = moved.apply(GazePoint(x: 0.2, y: 0.35))
        #expect(abs(q.x - 0.2) < 1e-9 && abs(q.y - 0.3) < 1e-9)
    }

    @Test func badCalibrationsAreRefusedWithTheReason() {
        // Too few steady samples.
        let few = CalibrationRun.nineTargets.prefix(4).flatMap { t in (0..<20).map { _ in CalibrationSample(raw: t, target: t) } }
        guard case .failure(let p1) = CalibrationFit.fit(few) else { Issue.record("four targets were accepted"); return }
        #expect(p1.description.hasPrefix("too few steady samples: 4 dots had 5 or more, 6 are needed"))
        // Every target on one line: nothing fixes the other axis.
        let line = (0..<9).flatMap { i in (0..<10).map { _ in CalibrationSample(raw: GazePoint(x: Double(i) / 8, y: 0.5),
                                                                               target: GazePoint(x: Double(i) / 8, y: 0.5)) } }
        guard case .failure(let p2) = CalibrationFit.fit(line) else { Issue.record("a line was accepted"); return }
        #expect(p2.description.contains("cannot fix a mapping"))
        // The pointer never followed the targets: a fit would not point better than nothing.
        var rng = Rng(s: 3)
        let noise = CalibrationRun.nineTargets.flatMap { t in (0..<10).map { _ in
            CalibrationSample(raw: GazePoint(x: t.x + 0.002 * rng.normal(), y: t.y + 0.002 * rng.normal()), target: t) } }
        if case .success(let r) = CalibrationFit.fit(noise) { #expect(r.errorAfter < r.errorBefore + 1e-9) }
        let nan = [CalibrationSample(raw: GazePoint(x: .nan, y: 0), target: GazePoint(x: 0.1, y: 0.1))]
        guard case .failure = CalibrationFit.fit(nan) else { Issue.record("NaN samples were accepted"); return }
    }

    @Test func theRunTakesStillSamplesTargetByTargetAndSkipsAFaceLost() {
        var run = CalibrationRun()
        run.perTarget = 10
        var t = 0.0
        var rng = Rng(s: 11)
        var targetStart = 0.0, last = -1
        while !run.isDone && t < 120 {
            let target = run.target ?? GazePoint(x: 0.5, y: 0.5)
            if run.index != last { last = run.index; targetStart = t }
            let d = Self.distort(target)
            // The fifth target starts with the face lost for half a second: no sample is taken then.
            let lost = run.index == 4 && t - targetStart < 0.5
            run.step(t: t, raw: lost ? nil : GazePoint(x: d.x + 0.003 * rng.normal(), y: d.y + 0.003 * rng.normal()))
            t += 1.0 / 60
        }
        #expect(run.isDone)
        #expect(run.samples.count == 90, "\(run.samples.count) samples")
        #expect(t < 20, "nine targets took \(t) s")
        let r = CalibrationFit.fit(run.samples)
        #expect((try? r.get().errorAfter).map { $0 < 1 } == true, "\(r)")
    }

    /// Issue 32: a user whose eyes stay on the previous dot for `latency` seconds, who blinks through a dot, or
    /// looks away half-way: only samples taken with the gaze on the dot are taken for it.
    @Test(arguments: [0.6, 1.2])
    func samplesComeOnlyAfterTheGazeArrives(_ latency: Double) {
        var run = CalibrationRun()
        var t = 0.0
        var rng = Rng(s: 5)
        var shown = -1, since = 0.0
        var from = GazePoint(x: 0.5, y: 0.95)   // the Start button
        while !run.isDone && t < 120 {
            let target = run.target ?? from
            if run.index != shown { shown = run.index; since = t }
            var eye = t - since < latency ? from : target
            // Dot 4: a blink 0.2 s after arriving (the tracker's gaze drops); dot 6: a glance away half-way.
            let s = t - since - latency
            if run.index == 3 && s > 0.2 && s < 0.35 { eye = GazePoint(x: eye.x, y: eye.y + 0.15) }
            if run.index == 5 && s > 0.35 && s < 0.8 { eye = GazePoint(x: 0.9, y: 0.9) }
            let d = Self.distort(eye)
            run.step(t: t, raw: GazePoint(x: d.x + 0.002 * rng.normal(), y: d.y + 0.002 * rng.normal()))
            t += 1.0 / 60
            if run.isDone || run.index != shown { from = target }
        }
        #expect(run.skipped.isEmpty, "\(run.skipped)")
        #expect(run.arrivals.allSatisfy { $0 >= latency }, "a dot took samples before the eyes came: \(run.arrivals)")
        guard case .success(let r) = CalibrationFit.fit(run.samples) else { Issue.record("refused"); return }
        #expect(r.errorAfter < 0.5, "\(r.errorAfter) cells")
        #expect(r.dropped <= 12, "\(r.dropped) samples dropped as outliers")
    }

    @Test func aDotTheGazeNeverReachesIsSkippedAndNamed() {
        var run = CalibrationRun(targets: [GazePoint(x: 0.1, y: 0.1), GazePoint(x: 0.9, y: 0.1)])
        var t = 0.0
        // The user looks at the first dot, then never moves to the second.
        while !run.isDone && t < 30 {
            run.step(t: t, raw: Self.distort(GazePoint(x: 0.1, y: 0.1)))
            t += 1.0 / 60
        }
        #expect(run.isDone)
        #expect(run.skipped == [2])
        #expect(t >= 6 && t < 10, "the second dot waited its timeout: \(t)")
    }

    @Test func theCheckKeepsOnlyAFitThatBeatsTheOneInUse() {
        let truth = PointerCalibration(cx: [-0.02, 1.1, 0, 0, 0, 0], cy: [0.03, 0, 0.9, 0, 0, 0])
        // Raw samples of the check dots whose true mapping is `truth`.
        func raw(for target: GazePoint) -> GazePoint {
            GazePoint(x: (target.x + 0.02) / 1.1, y: (target.y - 0.03) / 0.9)
        }
        let samples = CalibrationCheck.targets.flatMap { t in (0..<10).map { _ in CalibrationSample(raw: raw(for: t), target: t) } }
        let good = CalibrationCheck.judge(samples, candidate: truth, inUse: nil, cells: (100, 30))
        #expect(good.keep && good.error < 0.01, "\(good)")
        let same = CalibrationCheck.judge(samples, candidate: truth, inUse: truth, cells: (100, 30))
        #expect(!same.keep, "no better than the one in use")
        let off = PointerCalibration(cx: [0.05, 1.1, 0, 0, 0, 0], cy: [0.03, 0, 0.9, 0, 0, 0])
        let bad = CalibrationCheck.judge(samples, candidate: off, inUse: nil, cells: (100, 30))
        #expect(!bad.keep && bad.reason?.contains("cells off") == true, "\(bad)")
        let few = CalibrationCheck.judge(Array(samples.prefix(15)), candidate: truth, inUse: nil, cells: (100, 30))
        #expect(!few.keep && few.reason?.contains("too few check dots") == true, "\(few)")
    }

    @Test func thePipelineAppliesTheCalibrationBeforeSmoothing() {
        var p = Pipeline(PipelineSettings(smoothing: SmoothingSettings(kind: .none), gestures: []))
        p.calibrate(PointerCalibration(cx: [0.1, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0]))
        _ = p.track(.frame(TrackingFrame(t: 0, gaze: GazePoint(x: 0.4, y: 0.4)), nil))
        #expect(p.rawPointer == GazePoint(x: 0.4, y: 0.4))
        #expect(p.gaze.map { abs($0.x - 0.5) < 1e-9 } == true)
    }
}
