import Config
import Foundation
import FrameFormats
import Runtime
import Shell
import SystemIO
import TrackingCore

/// `handsfree bench pointing`: simulated users with realistic pointer errors calibrate, then look at targets;
/// the same frames go through an uncalibrated and a calibrated pipeline in the same run.
public struct PointingBench {
    /// Simulated users (each with its own offset, scale, tilt, bend and noise).
    public var users = 20
    /// Targets looked at per phase.
    public var targets = 40
    /// Random seed: the same seed gives the same users, targets and accuracy figures.
    public var seed: UInt64 = 1
    /// The gesture and smoothing settings pointed with (`--config`, `--set`), so a smoothing can be tried here
    /// before it is shipped.
    public var settings = GestureConfig.defaults()
    /// Real face takes replayed through the smoothing (Live Link Face CSV and the other formats a replay reads).
    public var recordings: [String] = []
    /// The keymap whose note editor the keys are taken from (its gestures must be the settings').
    public var keymap = "default"

    public init() {}

    /// The accuracy figures of a run (the costs per frame are only reported: they are timings).
    public struct Figures: Sendable, Equatable {
        /// Users whose calibration was refused (left out of the errors).
        public var refused = 0
        /// Mean gaze error in cells of each calibrated user: uncalibrated, calibrated, after a slow drift,
        /// after a one-target drift correction.
        public var uncalibrated: [Double] = [], calibrated: [Double] = [], drifted: [Double] = [], corrected: [Double] = []
        /// Pursuit trials, those that picked the followed target within 1.5 s, picked another, picked none.
        public var pursuitTrials = 0, pursuitWithin = 0, pursuitWrong = 0, pursuitNone = 0
        /// Selections during ten minutes of gaze that followed no target, by kind (`idle`, `reading`).
        public var falseSelections: [String: Int] = [:]
        /// Per reaction time (seconds): mean calibrated error (cells) of the users whose calibration was kept,
        /// and how many were refused.
        public var slow: [Double: SlowFigure] = [:]
    }

    /// One reaction time's calibration outcome.
    public struct SlowFigure: Sendable, Equatable {
        public var error: Double, refused: Int
    }

    /// A user's pointer: offset, scale, tilt and bend of a real tracker, noise, blinks and a slow drift.
    struct User {
        var ox: Double, oy: Double, sx: Double, sy: Double, tilt: Double, bendX: Double, bendY: Double
        var noise: Double
        var driftX = 0.0, driftY = 0.0
        var rng: Rng

        init(_ rng: inout Rng) {
            ox = rng.uniform(-0.1, 0.1); oy = rng.uniform(-0.1, 0.1)
            sx = rng.uniform(0.75, 1.3); sy = rng.uniform(0.75, 1.3)
            tilt = rng.uniform(-0.08, 0.08); bendX = rng.uniform(-0.1, 0.1); bendY = rng.uniform(-0.1, 0.1)
            noise = rng.uniform(0.003, 0.008)
            self.rng = Rng(seed: rng.next())
        }

        /// Where the pointer lands while the eyes rest on `p` (normalised), before noise.
        func pointer(_ p: GazePoint) -> GazePoint {
            let x = p.x - 0.5, y = p.y - 0.5
            return GazePoint(x: 0.5 + ox + driftX + sx * x + tilt * y + bendX * x * x,
                             y: 0.5 + oy + driftY + sy * y - tilt * x + bendY * y * y)
        }
    }

    struct Rng {
        var s: UInt64
        init(seed: UInt64) { s = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
        mutating func normal() -> Double { (0..<12).map { _ in unit() }.reduce(0, +) - 6 }
    }

    /// Where the eyes are `s` seconds after `target` appeared: still on `from` for a reaction time, then a
    /// 50 ms saccade, then on the target.
    static func eye(_ s: Double, from: GazePoint, to target: GazePoint, reaction: Double = 0.2) -> GazePoint {
        if s < reaction { return from }
        if s >= reaction + 0.05 { return target }
        let a = (s - reaction) / 0.05
        return GazePoint(x: from.x + (target.x - from.x) * a, y: from.y + (target.y - from.y) * a)
    }

    /// One frame's pointer while the eyes rest on `eye`: the user's distortion, fixational noise and
    /// microsaccades, and now and then a blink (the pointer drops); the flag says whether it was a blink.
    static func pointer(_ u: inout User, _ eye: GazePoint, micro: inout (Double, Double)) -> (GazePoint, Bool) {
        if u.rng.unit() < 1.0 / 60 { micro = (u.rng.normal() * 0.006, u.rng.normal() * 0.006) }
        else { micro = (micro.0 * 0.9, micro.1 * 0.9) }
        var p = u.pointer(eye)
        p.x += u.noise * u.rng.normal() + micro.0
        p.y += u.noise * u.rng.normal() + micro.1
        let blink = u.rng.unit() < 1.0 / 240
        if blink { p.y += 0.12 }   // closing eyes pull the gaze down
        return (GazePoint(x: min(1, max(0, p.x)), y: min(1, max(0, p.y))), blink)
    }

    /// 60 frames/s of a user looking from `from` to `target` for `seconds`; `each` gets the time, the
    /// pointer, and whether the eyes have settled on the target (0.7 s on, no blink).
    static func look(_ u: inout User, at target: GazePoint, from: GazePoint, t: inout Double, seconds: Double,
                     each: (Double, GazePoint, Bool) -> Void) {
        var micro = (0.0, 0.0)
        for k in 0..<Int(seconds * 60) {
            let s = Double(k) / 60
            let (p, blink) = pointer(&u, eye(s, from: from, to: target), micro: &micro)
            // Settled: the smoothing filter has caught up with the saccade (as when a gesture acts).
            each(t, p, s >= 0.7 && !blink)
            t += 1.0 / 60
        }
    }

    /// Calibration for every pace: users whose eyes reach each dot 0.2 to 1.2 s after it appears (slow saccades
    /// with ALS or after a stroke) calibrate with the nine dots, the check dots judge the fit as the screen
    /// does, and the kept calibrations are measured on random targets.
    func slowCalibration(_ rng: inout Rng, out: BenchReport) -> [Double: SlowFigure] {
        var result: [Double: SlowFigure] = [:]
        out("calibration for every pace: \(users) users per reaction time, nine dots then four check dots (kept only if ≤ \(Int(CalibrationCheck.limit)) cells and better than none)")
        for reaction in [0.2, 0.6, 1.0, 1.2] {
            var errors: [Double] = [], checks: [Double] = [], refused = 0, skipped = 0, arrivals: [Double] = [], seconds: [Double] = []
            var fixedErrors: [Double] = [], fixedRefused = 0
            for _ in 0..<users {
                var u = User(&rng)
                var t = 0.0
                var from = GazePoint(x: 0.5, y: 0.9)   // the Start button
                var micro = (0.0, 0.0)
                func follow(_ run: inout CalibrationRun) {
                    var shown = run.index, since = t
                    while !run.isDone && t < 200 {
                        let target = run.target ?? from
                        let (p, _) = Self.pointer(&u, Self.eye(t - since, from: from, to: target, reaction: reaction), micro: &micro)
                        run.step(t: t, raw: p)
                        t += 1.0 / 60
                        if run.index != shown { shown = run.index; from = target; since = t }
                    }
                }
                let t0 = t
                // The rule before arrival was looked for, on the same user: samples once 0.6 s passed.
                var fixed = CalibrationRun()
                fixed.settle = 0.6
                fixed.saccade = 0
                fixed.lateArrival = 0
                fixed.firstLateArrival = 0
                let saved = (t, from)
                follow(&fixed)
                if case .success(let f) = CalibrationFit.fit(fixed.samples) {
                    var errs: [Double] = []
                    for target in CalibrationCheck.targets {
                        let g = f.calibration.apply(u.pointer(target))
                        let dx = (g.x - target.x) * 100, dy = (g.y - target.y) * 30
                        errs.append((dx * dx + dy * dy).squareRoot())
                    }
                    fixedErrors.append(errs.reduce(0, +) / Double(errs.count))
                } else {
                    fixedRefused += 1
                }
                (t, from) = saved
                var cal = CalibrationRun()
                follow(&cal)
                skipped += cal.skipped.count
                arrivals += cal.arrivals
                guard case .success(let fit) = CalibrationFit.fit(cal.samples) else { refused += 1; continue }
                var check = CalibrationRun(targets: CalibrationCheck.targets)
                follow(&check)
                seconds.append(t - t0)
                let verdict = CalibrationCheck.judge(check.samples, candidate: fit.calibration, inUse: nil, cells: (100, 30))
                guard verdict.keep else { refused += 1; continue }
                checks.append(verdict.error)
                var pipeline = Pipeline(settings)
                pipeline.calibrate(fit.calibration)
                var errs: [Double] = []
                for _ in 0..<10 {
                    let target = GazePoint(x: rng.uniform(0.05, 0.95), y: rng.uniform(0.05, 0.95))
                    // The eyes arrive `reaction` late; the last half second of a 1.7 s look is settled.
                    var settled: [Double] = []
                    let start = t
                    var m = (0.0, 0.0)
                    while t < start + reaction + 1.7 {
                        let (p, _) = Self.pointer(&u, Self.eye(t - start, from: from, to: target, reaction: reaction), micro: &m)
                        _ = pipeline.track(.frame(TrackingFrame(t: t, gaze: p), nil))
                        if t >= start + reaction + 1.2, let g = pipeline.gaze {
                            let dx = (g.x - target.x) * 100, dy = (g.y - target.y) * 30
                            settled.append((dx * dx + dy * dy).squareRoot())
                        }
                        t += 1.0 / 60
                    }
                    errs.append(settled.reduce(0, +) / Double(max(1, settled.count)))
                    from = target
                }
                errors.append(errs.reduce(0, +) / Double(errs.count))
            }
            func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }
            let sortedArrivals = arrivals.sorted()
            out(String(format: "  eyes %.1f s late: calibrated %.2f cells (worst %.2f), check dots %.2f cells, %d of %d refused, %d dots skipped; arrival p50 %.2f s; nine + four dots in %.0f s — goal ≤ 1 cell; a fixed 0.6 s settle (before): %.2f cells (worst %.2f), %d refused",
                       reaction, mean(errors), errors.max() ?? .nan, mean(checks), refused, users, skipped,
                       sortedArrivals.isEmpty ? 0 : sortedArrivals[sortedArrivals.count / 2], mean(seconds),
                       mean(fixedErrors), fixedErrors.max() ?? .nan, fixedRefused))
            result[reaction] = SlowFigure(error: mean(errors), refused: refused)
        }
        return result
    }

    /// A steadier pointer near targets: users fixate keys of the note editor's keyboard (calibrated, within
    /// ±2.5 cells and ±1.2 rows, with fixational noise, and with a 5 Hz tremor or a nystagmus-like 3 Hz drift
    /// and jerk);
    /// the share of settled frames on the key looked at, and how often the pick hops, with the plain hit test
    /// beside the snapping and hysteresis the shell uses (`HitMap.snapped`).
    func steadiness(_ rng: inout Rng, out: BenchReport) throws {
        let map = try noteEditorMap()
        let keys = map.targets.filter { $0.id.contains(".key.") }
        guard !keys.isEmpty else { return }
        let w = keys[0].rect.w, h = keys[0].rect.h
        out("steadiness: \(users) users fixate 30 keys each of the note editor's keyboard (keys \(w)x\(h) cells at 100x30), smoothed as in the shell; on the key = share of frames 0.9-1.6 s after the key was shown (the eyes arrive at 0.25 s)")
        for (name, tremor, jerk, noise) in [("fixational noise only", 0.0, 0.0, 0.0), ("5 Hz tremor ±3 cells", 0.03, 0.0, 0.0),
                                            ("3 Hz nystagmus 4 cells", 0.0, 0.04, 0.0),
                                            ("webcam-like jitter σ 0.025", 0.0, 0.0, 0.025)] {
            var onHit = 0, onSnap = 0, frames = 0, hopsHit = 0, hopsSnap = 0
            for _ in 0..<users {
                var u = User(&rng)
                // Calibrated, with what is left of the error after calibration (the worst users above: ±2 cells).
                (u.ox, u.oy, u.sx, u.sy, u.tilt, u.bendX, u.bendY) = (rng.uniform(-0.025, 0.025), rng.uniform(-0.04, 0.04), 1, 1, 0, 0, 0)
                if noise > 0 { u.noise = noise }
                var pipeline = Pipeline(settings)
                var t = 0.0, micro = (0.0, 0.0)
                var from = GazePoint(x: 0.5, y: 0.5)
                var current: String?
                let phase = rng.uniform(0, 6.3)
                for _ in 0..<30 {
                    let key = keys[Int(rng.unit() * Double(keys.count)) % keys.count]
                    let target = GazePoint(x: (Double(key.rect.x) + Double(key.rect.w) / 2) / 100,
                                           y: (Double(key.rect.y) + Double(key.rect.h) / 2) / 30)
                    let start = t
                    var lastHit: String?, lastSnap: String?
                    while t < start + 1.6 {
                        var (p, _) = Self.pointer(&u, Self.eye(t - start, from: from, to: target), micro: &micro)
                        p.x += tremor * sin(2 * .pi * 5 * t + phase)
                        // Nystagmus: a slow drift one way, then a quick jerk back, three times a second.
                        let cycle = (t * 3).truncatingRemainder(dividingBy: 1)
                        p.x += jerk * (cycle < 0.85 ? cycle / 0.85 : (1 - cycle) / 0.15) - jerk / 2
                        _ = pipeline.track(.frame(TrackingFrame(t: t, gaze: p), nil))
                        if let g = pipeline.gaze {
                            let cell = CellPoint(gaze: g, in: Size(width: 100, height: 30))
                            let hit = map.hit(cell)?.id
                            let snap = map.snapped(cell, current: current)?.id
                            if snap != nil { current = snap }
                            if t - start >= 0.9 {
                                frames += 1
                                if hit == key.id { onHit += 1 }
                                if snap == key.id { onSnap += 1 }

                                if let l = lastHit, l != hit { hopsHit += 1 }
                                if let l = lastSnap, l != snap { hopsSnap += 1 }
                                lastHit = hit ?? lastHit
                                lastSnap = snap ?? lastSnap
                            }
                        }
                        t += 1.0 / 60
                    }
                    from = target
                }
            }
            let seconds = Double(frames) / 60
            out(String(format: "  %@: plain hit %.1f%% on the key, %.2f hops/s; snapped with hysteresis %.1f%%, %.2f hops/s",
                       name, Double(onHit) / Double(max(1, frames)) * 100, Double(hopsHit) / max(seconds, 1e-9),
                       Double(onSnap) / Double(max(1, frames)) * 100, Double(hopsSnap) / max(seconds, 1e-9)))
        }
    }

    /// One real take's fixations through the smoothing: where the pointer went and what it picked.
    public struct RecordedFigure: Sendable, Equatable {
        /// Fixations on a target of the note editor, and those the highlight reached.
        public var fixations = 0, reached = 0
        /// Seconds from a fixation's start until its target was highlighted (fixations that came from another
        /// target), sorted.
        public var highlight: [Double] = []
        /// Frames from 0.25 s into a fixation to its end; those whose highlighted target was another, and the
        /// highlight's changes among them.
        public var frames = 0, wrong = 0, hops = 0
        /// Mean distance in cells of the smoothed gaze from the fixation's point over those frames.
        public var error = 0.0
        /// Seconds of those frames (the take's rate may not be 60 frames/s).
        public var seconds = 0.0
    }

    /// Fixations of a pointer path by dispersion (I-DT, Salvucci & Goldberg 2000): runs of at least `minimum`
    /// seconds whose spread, columns plus rows counted twice (cells are about twice as tall as wide), stays
    /// within `spread` cells; each as its first and last index.
    public static func fixations(_ t: [Double], _ cells: [(x: Double, y: Double)], spread: Double = 3, minimum: Double = 0.3) -> [(Int, Int)] {
        var out: [(Int, Int)] = []
        var i = 0
        while i < cells.count {
            var j = i, lo = cells[i], hi = cells[i]
            while j + 1 < cells.count {
                let c = cells[j + 1]
                let nlo = (x: min(lo.x, c.x), y: min(lo.y, c.y)), nhi = (x: max(hi.x, c.x), y: max(hi.y, c.y))
                if (nhi.x - nlo.x) + 2 * (nhi.y - nlo.y) > spread { break }
                (lo, hi) = (nlo, nhi)
                j += 1
            }
            if t[j] - t[i] >= minimum { out.append((i, j)); i = j + 1 } else { i += 1 }
        }
        return out
    }

    /// Real eye movements: each take replayed through the smoothing in use (no calibration), its fixations found
    /// on the raw pointer, each fixation's point (the median of its raw pointer) taken as where the eyes rested.
    /// On the note editor at 100x30, for the fixations whose point picks a target: how long the highlight took
    /// to reach it (the wait `bench typing` counts), and over the still part of each fixation the smoothed
    /// gaze's distance from the point, the share of frames on another target and the highlight's hops.
    func recorded(out: BenchReport) throws {
        guard !recordings.isEmpty else { return }
        let map = try noteEditorMap()
        let s = settings.smoothing
        out(String(format: "real takes (smoothing %@, min_cutoff %.2f, beta %.3f, d_cutoff %.2f): fixations found on the raw pointer (spread ≤ 3 cells, ≥ 0.3 s), on the note editor at 100x30; still = from 0.25 s into a fixation",
                   s.kind.rawValue, s.minCutoff, s.beta, s.dCutoff))
        for file in recordings {
            let f = try recorded(file, map: map)
            let h = f.highlight
            func pc(_ q: Double) -> Double { h.isEmpty ? .nan : h[min(h.count - 1, Int(Double(h.count) * q))] }
            out(String(format: "  %@: %d fixations on a target, highlighted %d, after p50 %.2f s, p90 %.2f s, mean %.2f s; still: %.2f cells off, on another target %.2f%% of frames, %.2f hops/s",
                       (file as NSString).lastPathComponent, f.fixations, f.reached, pc(0.5), pc(0.9),
                       h.isEmpty ? .nan : h.reduce(0, +) / Double(h.count), f.error,
                       Double(f.wrong) / Double(max(1, f.frames)) * 100, Double(f.hops) / max(f.seconds, 1e-9)))
        }
    }

    /// The note editor's targets at 100x30 with the keymap in use.
    func noteEditorMap() throws -> HitMap {
        var state = ShellState(keymap: try Setup.keymap(keymap, gestures: settings.gestures))
        _ = state.show(screen: "note-editor")
        return state.hitMap
    }

    /// One take's figures (see `recorded(out:)`).
    public func recorded(_ file: String) throws -> RecordedFigure { try recorded(file, map: try noteEditorMap()) }

    func recorded(_ file: String, map: HitMap) throws -> RecordedFigure {
        var pipeline = Pipeline(settings)
        var times: [Double] = [], raws: [(x: Double, y: Double)?] = [], smooth: [GazePoint?] = []
        for item in try FrameFileReader(path: file) {
            guard case .frame = item else { continue }
            _ = pipeline.track(item)
            guard let t = pipeline.time else { continue }
            times.append(t)
            raws.append(pipeline.rawPointer.map { (x: min(1, max(0, $0.x)) * 100, y: min(1, max(0, $0.y)) * 30) })
            smooth.append(pipeline.gaze)
        }
        var figure = RecordedFigure()
        // The highlight as the shell keeps it: snapped, with the target in use held on the gap beside it.
        var picked: [String?] = []
        var current: String?
        for g in smooth {
            let id = g.flatMap { map.snapped(CellPoint(gaze: $0, in: Size(width: 100, height: 30)), current: current)?.id }
            if id != nil { current = id }
            picked.append(current)
        }
        // Fixations within one stretch of face: a lost face splits them.
        var k = 0
        var errorSum = 0.0
        while k < raws.count {
            guard raws[k] != nil else { k += 1; continue }
            var e = k
            while e + 1 < raws.count, raws[e + 1] != nil { e += 1 }
            let cells = raws[k...e].compactMap { $0 }
            for (a0, b0) in Self.fixations(Array(times[k...e]), cells) {
                let a = a0 + k, b = b0 + k
                let xs = cells[a0...b0].map(\.x).sorted(), ys = cells[a0...b0].map(\.y).sorted()
                let point = CellPoint(x: Int(xs[xs.count / 2]), y: Int(ys[ys.count / 2]))
                guard let looked = map.snapped(point, current: nil)?.id else { continue }
                figure.fixations += 1
                if let reach = (a...b).first(where: { picked[$0] == looked }) {
                    figure.reached += 1
                    if a > 0, picked[a - 1] != looked { figure.highlight.append(times[reach] - times[a]) }
                }
                var last: String?
                for i in a...b where times[i] - times[a] >= 0.25 {
                    guard let g = smooth[i] else { continue }
                    let dx = g.x * 100 - xs[xs.count / 2], dy = g.y * 30 - ys[ys.count / 2]
                    errorSum += (dx * dx + dy * dy).squareRoot()
                    figure.frames += 1
                    if picked[i] != looked { figure.wrong += 1 }
                    if let l = last, l != picked[i] { figure.hops += 1 }
                    last = picked[i]
                    if i > a { figure.seconds += times[i] - times[i - 1] }
                }
            }
            k = e + 1
        }
        figure.error = errorSum / Double(max(1, figure.frames))
        figure.highlight.sort()
        return figure
    }

    /// Calibration and drift correction, pursuit, then the cost per frame.
    public func run(out: BenchReport) throws -> Figures {
        var figures0: [Double: SlowFigure] = [:]
        let cells = (w: 100.0, h: 30.0)
        func mean(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : xs.reduce(0, +) / Double(xs.count) }
        func worst(_ xs: [Double]) -> Double { xs.max() ?? 0 }
        func cellsOff(_ a: GazePoint, _ b: GazePoint) -> Double {
            let dx = (a.x - b.x) * cells.w, dy = (a.y - b.y) * cells.h
            return (dx * dx + dy * dy).squareRoot()
        }
        var rng = Rng(seed: seed)
        var before: [Double] = [], after: [Double] = [], drifted: [Double] = [], corrected: [Double] = []
        var calTime: [Double] = [], dropped = 0, used = 0, refused = 0, fitSeconds = 0.0, fitErrors: [Double] = []
        for _ in 0..<users {
            var u = User(&rng)
            var t = 0.0
            // 1. Calibration, hands-free: the user follows the run's targets.
            var calRun = CalibrationRun()
            var from = GazePoint(x: 0.5, y: 0.5), shown = calRun.index, since = 0.0
            var micro = (0.0, 0.0)
            while !calRun.isDone && t < 120 {
                let target = calRun.target ?? from
                let (p, _) = Self.pointer(&u, Self.eye(t - since, from: from, to: target), micro: &micro)
                calRun.step(t: t, raw: p)
                t += 1.0 / 60
                if calRun.index != shown { shown = calRun.index; from = target; since = t }
            }
            calTime.append(t)
            let f0 = LiveClock().now()
            let fit = CalibrationFit.fit(calRun.samples)
            fitSeconds += LiveClock().now() - f0
            guard case .success(let result) = fit else { refused += 1; continue }
            used += result.used; dropped += result.dropped
            fitErrors.append(result.errorAfter)

            // 2. Targets, through an uncalibrated and a calibrated pipeline fed the same frames.
            var plain = Pipeline(settings)
            var calibrated = Pipeline(settings)
            calibrated.calibrate(result.calibration)
            // Each phase: `n` random targets fixated in turn, the user's drift at target k given by `drift`;
            // the mean error of each pipeline's smoothed gaze while settled, per target.
            func phase(targets n: Int, drift: (Int) -> (Double, Double)) -> (calibrated: [Double], plain: [Double]) {
                var errs: (calibrated: [Double], plain: [Double]) = ([], [])
                for k in 0..<n {
                    (u.driftX, u.driftY) = drift(k)
                    let target = GazePoint(x: rng.uniform(0.05, 0.95), y: rng.uniform(0.05, 0.95))
                    var errA: [Double] = [], errB: [Double] = []
                    Self.look(&u, at: target, from: from, t: &t, seconds: 1.2) { tt, p, settled in
                        let f = DecodedItem.frame(TrackingFrame(t: tt, gaze: p), nil)
                        _ = plain.track(f); _ = calibrated.track(f)
                        guard settled, let a = calibrated.gaze, let b = plain.gaze else { return }
                        errA.append(cellsOff(a, target)); errB.append(cellsOff(b, target))
                    }
                    errs.calibrated.append(mean(errA)); errs.plain.append(mean(errB))
                    from = target
                }
                return errs
            }
            let still = phase(targets: targets) { _ in (0, 0) }
            before.append(mean(still.plain)); after.append(mean(still.calibrated))
            let drifting = phase(targets: targets) { k in (0.05 * Double(k + 1) / Double(targets), -0.04 * Double(k + 1) / Double(targets)) }
            drifted.append(mean(drifting.calibrated.suffix(max(1, targets / 4))))
            // 3. A one-target drift correction: the centre dot for a second, the median raw pointer of its
            // still half; then targets again with the drift where it ended.
            var raws: [GazePoint] = []
            Self.look(&u, at: GazePoint(x: 0.5, y: 0.5), from: from, t: &t, seconds: 1.2) { tt, p, settled in
                let f = DecodedItem.frame(TrackingFrame(t: tt, gaze: p), nil)
                _ = calibrated.track(f)
                if settled, let r = calibrated.rawPointer { raws.append(r) }
            }
            from = GazePoint(x: 0.5, y: 0.5)
            let mx = raws.map(\.x).sorted()[raws.count / 2], my = raws.map(\.y).sorted()[raws.count / 2]
            calibrated.calibrate(result.calibration.driftCorrected(raw: GazePoint(x: mx, y: my), target: GazePoint(x: 0.5, y: 0.5)))
            corrected.append(mean(phase(targets: targets) { _ in (0.05, -0.04) }.calibrated))
        }
        out("pointing: \(users) simulated users (offset ±0.1, scale 0.75–1.3, tilt ±0.08, bend ±0.1, noise σ 0.003–0.008, microsaccades, blinks), errors in cells at 100x30 while fixating, mean over users (worst user)")
        out(String(format: "calibration: 9 targets in %.1f s on average, %d samples used, %.1f%% left out as outliers, %d refused; fit %.0f µs",
                     mean(calTime), used, Double(dropped) / Double(max(1, used + dropped)) * 100, refused, fitSeconds / Double(users) * 1e6))
        out(String(format: "  on the calibration's own still samples: %.2f cells off after the fit (mean over users)", mean(fitErrors)))
        out(String(format: "gaze error: uncalibrated %.2f cells (%.2f); calibrated %.2f cells (%.2f) — goal ≤ 1", mean(before), worst(before), mean(after), worst(after)))
        out(String(format: "after a slow drift (0.05, -0.04): calibrated %.2f cells (%.2f); after a one-target drift correction %.2f cells (%.2f)",
                     mean(drifted), worst(drifted), mean(corrected), worst(corrected)))

        figures0 = slowCalibration(&rng, out: out)
        try steadiness(&rng, out: out)
        try recorded(out: out)

        var figures = try pursuitBench(&rng, out: out)
        figures.slow = figures0
        figures.refused = refused
        (figures.uncalibrated, figures.calibrated, figures.drifted, figures.corrected) = (before, after, drifted, corrected)

        // Cost per frame: the same frames through a pipeline without and with a calibration.
        var frames: [DecodedItem] = []
        var u = User(&rng)
        var t = 0.0
        Self.look(&u, at: GazePoint(x: 0.3, y: 0.6), from: GazePoint(x: 0.5, y: 0.5), t: &t, seconds: 600) { tt, p, _ in
            frames.append(.frame(TrackingFrame(t: tt, gaze: p), nil))
        }
        var costs: [Double] = []
        for cal in [nil, PointerCalibration(cx: [0.01, 1.1, 0.02, 0.03, 0, 0.01], cy: [0, 0.01, 0.9, 0, 0.02, 0])] as [PointerCalibration?] {
            var p = Pipeline(settings)
            p.calibrate(cal)
            let c0 = threadCPUSeconds()
            for f in frames { _ = p.track(f) }
            costs.append((threadCPUSeconds() - c0) / Double(frames.count))
        }
        let apply = PointerCalibration(cx: [0.01, 1.1, 0.02, 0.03, 0, 0.01], cy: [0, 0.01, 0.9, 0, 0.02, 0])
        var sink = 0.0
        let c0 = threadCPUSeconds()
        for f in frames { if case .frame(let fr, _) = f, let g = fr.gaze { sink += apply.apply(g).x } }
        let applyCost = (threadCPUSeconds() - c0) / Double(frames.count)
        out(String(format: "cost per frame (%d frames): pipeline %.3f µs without calibration, %.3f µs with; the calibration alone %.1f ns — goal ≤ 1 µs%@",
                     frames.count, costs[0] * 1e6, costs[1] * 1e6, applyCost * 1e9, sink.isNaN ? "" : ""))
        return figures
    }

    /// Smooth pursuit on the launcher's tiles, each with a dot circling on its own path: simulated users
    /// follow one (with lag, gain, offset and noise); then idle and reading gaze, where nothing may be selected.
    func pursuitBench(_ rng: inout Rng, out: BenchReport) throws -> Figures {
        var figures = Figures()
        let state = ShellState(keymap: try Setup.keymap(keymap, gestures: settings.gestures))
        let centres = state.hitMap.targets.filter { $0.id.hasPrefix("launcher.") }.map {
            GazePoint(x: (Double($0.rect.x) + Double($0.rect.w) / 2) / 100, y: (Double($0.rect.y) + Double($0.rect.h) / 2) / 30)
        }
        // Profiles: a typical follower; a slow one (the eyes 0.15-0.3 s behind the dot, lower gain), at the
        // normal pace and with the slow dots of Settings (`PursuitPace.slow`); one with a 5 Hz tremor on top.
        for (profile, lags, gains, tremor, pace) in [("typical", (0.05, 0.15), (0.8, 1.0), 0.0, PursuitPace.normal),
                                                      ("slow", (0.15, 0.3), (0.6, 0.85), 0.0, .normal),
                                                      ("slow", (0.15, 0.3), (0.6, 0.85), 0.0, .slow),
                                                      ("tremor", (0.05, 0.15), (0.8, 1.0), 0.012, .normal)] {
        let paths = PursuitPath.distinct(centres, rx: 0.05, ry: 0.15, period: pace.period)
        var correct = 0, wrong = 0, none = 0
        var times: [Double] = []
        let trials = 300
        for _ in 0..<trials {
            var u = User(&rng)
            var det = PursuitDetector(threshold: pace.threshold)
            det.lag = pace.lag
            let k = Int(rng.unit() * Double(paths.count)) % paths.count
            var t = rng.uniform(0, 10)
            // Half a second on a random point first, then the user follows target k.
            let start = GazePoint(x: rng.uniform(0.1, 0.9), y: rng.uniform(0.1, 0.9))
            var micro = (0.0, 0.0)
            var picked: Int?
            var pickedAt = 0.0
            let t0 = t + 0.5
            let gain = rng.uniform(gains.0, gains.1), lag = rng.uniform(lags.0, lags.1)
            let phase = rng.uniform(0, 6.3)
            while t < t0 + 3, picked == nil {
                var eye: GazePoint
                if t < t0 + 0.2 { eye = start }
                else {
                    let q = paths[k].position(at: t - lag)
                    eye = GazePoint(x: paths[k].centre.x + gain * (q.x - paths[k].centre.x),
                                    y: paths[k].centre.y + gain * (q.y - paths[k].centre.y))
                }
                eye.x += tremor * sin(2 * .pi * 5 * t + phase)
                let (p, _) = Self.pointer(&u, eye, micro: &micro)
                if let i = det.step(t: t, pointer: p, paths: paths) { picked = i; pickedAt = t }
                t += 1.0 / 60
            }
            if picked == k, pickedAt >= t0 { correct += 1; times.append(pickedAt - t0) }
            else if picked == nil { none += 1 } else { wrong += 1 }
        }
        times.sort()
        let within = times.filter { $0 <= 1.5 }.count
        if profile == "typical" {
            (figures.pursuitTrials, figures.pursuitWithin, figures.pursuitWrong, figures.pursuitNone) = (trials, within, wrong, none)
        }
        out(String(format: "pursuit, %@ followers, %@ dots (%d launcher tiles, dots circling 5 cells wide in %.1f s, compared %.2f s behind, r ≥ %.2f over 30 frames on both axes): %d trials, %.1f%% correct within 1.5 s (goal ≥ 95%%), %d wrong, %d none within 3 s; time to select p50 %.2f s, p90 %.2f s",
                     profile, pace.rawValue, paths.count, pace.period, pace.lag, pace.threshold, trials, Double(within) / Double(trials) * 100, wrong, none,
                     times.isEmpty ? 0 : times[times.count / 2], times.isEmpty ? 0 : times[times.count * 9 / 10]))
        }

        // Ten minutes each of idle gaze (fixations anywhere, microsaccades, blinks) and of reading lines.
        for (kind, pace) in [("idle", PursuitPace.normal), ("reading", .normal), ("idle", .slow), ("reading", .slow)] {
            let paths = PursuitPath.distinct(centres, rx: 0.05, ry: 0.15, period: pace.period)
            var u = User(&rng)
            var det = PursuitDetector(threshold: pace.threshold)
            det.lag = pace.lag
            var t = 0.0, selections = 0
            var micro = (0.0, 0.0)
            var eye = GazePoint(x: 0.5, y: 0.5)
            var nextMove = 0.0, lineX = 0.1, lineY = 0.1
            while t < 600 {
                if t >= nextMove {
                    if kind == "idle" {
                        eye = GazePoint(x: rng.uniform(0.05, 0.95), y: rng.uniform(0.05, 0.95))
                        nextMove = t + rng.uniform(0.3, 2.0)
                    } else {
                        lineX += rng.uniform(0.04, 0.08)
                        if lineX > 0.9 { lineX = 0.1; lineY += 0.033; if lineY > 0.9 { lineY = 0.1 } }
                        eye = GazePoint(x: lineX, y: lineY)
                        nextMove = t + rng.uniform(0.2, 0.3)
                    }
                }
                let (p, _) = Self.pointer(&u, eye, micro: &micro)
                if det.step(t: t, pointer: p, paths: paths) != nil { selections += 1 }
                t += 1.0 / 60
            }
            if pace == .normal { figures.falseSelections[kind] = selections }
            out("pursuit, \(pace.rawValue) dots, 10 minutes of \(kind) gaze: \(selections) false selections (goal ≤ 1 per 10 minutes)")
        }

        var det = PursuitDetector()
        var u = User(&rng)
        var micro = (0.0, 0.0)
        let paths = PursuitPath.distinct(centres, rx: 0.05, ry: 0.15)
        let n = 200_000
        var pts: [GazePoint] = []
        pts.reserveCapacity(n)
        for _ in 0..<n { pts.append(Self.pointer(&u, GazePoint(x: 0.5, y: 0.5), micro: &micro).0) }
        let c0 = threadCPUSeconds()
        var sink = 0
        for (i, p) in pts.enumerated() { if det.step(t: Double(i) / 60, pointer: p, paths: paths) != nil { sink += 1 } }
        let cost = (threadCPUSeconds() - c0) / Double(n)
        out(String(format: "pursuit cost per frame with %d targets: %.0f ns (goal ≤ 1 µs)%@", paths.count, cost * 1e9, sink > n ? "!" : ""))
        return figures
    }
}
