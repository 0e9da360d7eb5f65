/// A correction from the pointer a tracker gives (its gaze point, or what `GazeMapping` makes of its angles) to
/// where the user really looks, fitted from samples taken while the user looked at known targets.
///
/// Each axis is a second-order polynomial of the raw point (1, x, y, x², xy, y²), so an offset, a scale, a
/// tilt and the bend of head or eye angles at the edges are all absorbed; a drift correction adds a shift.
public struct PointerCalibration: Sendable, Equatable {
    /// Coefficients of 1, x, y, x², xy, y² for the screen's x and y.
    public var cx: [Double], cy: [Double]
    /// Added after the polynomial: a one-target drift correction.
    public var shiftX = 0.0, shiftY = 0.0

    /// No correction: the raw point is where the user looks.
    public static let identity = PointerCalibration(cx: [0, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0])

    public init(cx: [Double], cy: [Double], shiftX: Double = 0, shiftY: Double = 0) {
        self.cx = cx; self.cy = cy; self.shiftX = shiftX; self.shiftY = shiftY
    }

    /// The corrected point, clamped to the screen.
    public func apply(_ p: GazePoint) -> GazePoint {
        let f = Self.terms(p)
        var x = shiftX, y = shiftY
        for k in 0..<6 { x += cx[k] * f[k]; y += cy[k] * f[k] }
        return GazePoint(x: min(1, max(0, x)), y: min(1, max(0, y)))
    }

    /// This calibration shifted so that `raw`, seen while the user looked at `target`, lands on it.
    public func driftCorrected(raw: GazePoint, target: GazePoint) -> PointerCalibration {
        var c = self
        let now = PointerCalibration(cx: cx, cy: cy).apply(raw)
        c.shiftX = target.x - now.x
        c.shiftY = target.y - now.y
        return c
    }

    static func terms(_ p: GazePoint) -> [Double] { [1, p.x, p.y, p.x * p.x, p.x * p.y, p.y * p.y] }
}

/// A raw pointer sample taken while the user looked at a target (both normalised, 0…1).
public struct CalibrationSample: Sendable, Equatable {
    public var raw: GazePoint
    public var target: GazePoint
    public init(raw: GazePoint, target: GazePoint) { self.raw = raw; self.target = target }
}

/// Why a calibration was not made (the previous one is kept).
public struct CalibrationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with its figures: the screen words it in the user's language (`description` is English).
    public enum Reason: Sendable, Equatable {
        /// Fewer than `needed` dots had `perTarget` steady samples or more; `good` had.
        case tooFewSteady(good: Int, perTarget: Int, needed: Int)
        /// The samples cannot fix a mapping (all in one line, or the pointer never moved).
        case noMapping
        /// The fit points worse than no calibration: `after` cells off with it, `before` without.
        case worse(after: Double, before: Double)
        /// The face was lost for `seconds` at dot `dot` of `of`.
        case faceLost(seconds: Int, dot: Int, of: Int)
    }
    public let reason: Reason
    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case let .tooFewSteady(good, perTarget, needed):
            "too few steady samples: \(good) dots had \(perTarget) or more, \(needed) are needed (look at each dot until it fills)"
        case .noMapping: "the targets' samples cannot fix a mapping (all in one line, or the pointer never moved)"
        case let .worse(after, before): String(format: "the fit points worse than no calibration (%.1f cells off, %.1f without)", after, before)
        case let .faceLost(seconds, dot, of): "the face was lost for \(seconds) s at dot \(dot) of \(of)"
        }
    }
}

/// The outcome of a fit: the calibration and how far off the pointer was, before and after, in cells.
public struct CalibrationResult: Sendable, Equatable {
    public var calibration: PointerCalibration
    /// Mean distance from the targets, in cells of the screen the fit was measured for, without and with
    /// the calibration (outliers left out of both).
    public var errorBefore: Double, errorAfter: Double
    /// Samples used, and those left out as outliers (a blink, a glance away).
    public var used: Int, dropped: Int
}

public enum CalibrationFit {
    /// The fewest steady samples a target needs, and the fewest targets.
    public static let minSamplesPerTarget = 5
    public static let minTargets = 6

    /// Fits a calibration from samples at several targets, robust to outliers: a least-squares fit, then the
    /// samples farther than 2.5× the median error (and 0.5 cell) are dropped and the fit is made again, twice.
    ///
    /// Refused, with the reason, when there are too few steady samples or targets, when the samples cannot
    /// fix a mapping (all targets in a line), or when the fit would point worse than no calibration.
    /// - Parameter cells: the screen's size in cells, for the errors (e.g. 100×30).
    public static func fit(_ samples: [CalibrationSample], cells: (w: Int, h: Int) = (100, 30))
        -> Result<CalibrationResult, CalibrationProblem> {
        var byTarget: [GazePoint: Int] = [:]
        for s in samples where s.raw.x.isFinite && s.raw.y.isFinite { byTarget[s.target, default: 0] += 1 }
        let short = byTarget.filter { $0.value < minSamplesPerTarget }
        let good = byTarget.count - short.count
        guard good >= minTargets else {
            return .failure(CalibrationProblem(.tooFewSteady(good: good, perTarget: minSamplesPerTarget, needed: minTargets)))
        }
        var use = samples.filter { s in s.raw.x.isFinite && s.raw.y.isFinite && (byTarget[s.target] ?? 0) >= minSamplesPerTarget }
        var dropped = samples.count - use.count
        func err(_ c: PointerCalibration, _ s: CalibrationSample) -> Double {
            let p = c.apply(s.raw)
            let dx = (p.x - s.target.x) * Double(cells.w), dy = (p.y - s.target.y) * Double(cells.h)
            return (dx * dx + dy * dy).squareRoot()
        }
        var cal = PointerCalibration.identity
        for round in 0..<3 {
            guard let c = leastSquares(use) else {
                return .failure(CalibrationProblem(.noMapping))
            }
            cal = c
            guard round < 2 else { break }
            let errors = use.map { err(cal, $0) }
            let median = errors.sorted()[errors.count / 2]
            let limit = max(0.5, 2.5 * median)
            let kept = zip(use, errors).filter { $0.1 <= limit }.map(\.0)
            // Keep enough of every target that the next fit stays determined.
            guard kept.count >= 12, kept.count < use.count else { break }
            dropped += use.count - kept.count
            use = kept
        }
        let before = use.map { err(.identity, $0) }.reduce(0, +) / Double(use.count)
        let after = use.map { err(cal, $0) }.reduce(0, +) / Double(use.count)
        guard after < before else {
            return .failure(CalibrationProblem(.worse(after: after, before: before)))
        }
        return .success(CalibrationResult(calibration: cal, errorBefore: before, errorAfter: after, used: use.count, dropped: dropped))
    }

    /// Least squares for both axes over the six terms (normal equations, Gaussian elimination with pivoting);
    /// nil when they are singular.
    static func leastSquares(_ samples: [CalibrationSample]) -> PointerCalibration? {
        var a = [Double](repeating: 0, count: 36)
        var bx = [Double](repeating: 0, count: 6), by = [Double](repeating: 0, count: 6)
        for s in samples {
            let f = PointerCalibration.terms(s.raw)
            for i in 0..<6 {
                for j in 0..<6 { a[i * 6 + j] += f[i] * f[j] }
                bx[i] += f[i] * s.target.x
                by[i] += f[i] * s.target.y
            }
        }
        guard let cx = solve(a, bx), let cy = solve(a, by) else { return nil }
        return PointerCalibration(cx: cx, cy: cy)
    }

    static func solve(_ m: [Double], _ b: [Double]) -> [Double]? {
        let n = b.count
        var a = m, x = b
        let scale = a.map(abs).max() ?? 0
        guard scale > 0 else { return nil }
        for col in 0..<n {
            var pivot = col
            for r in (col + 1)..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
            guard abs(a[pivot * n + col]) > 1e-12 * scale else { return nil }
            if pivot != col {
                for k in 0..<n { a.swapAt(col * n + k, pivot * n + k) }
                x.swapAt(col, pivot)
            }
            for r in (col + 1)..<n {
                let f = a[r * n + col] / a[col * n + col]
                guard f != 0 else { continue }
                for k in col..<n { a[r * n + k] -= f * a[col * n + k] }
                x[r] -= f * x[col]
            }
        }
        var out = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = x[r]
            for k in (r + 1)..<n { s -= a[r * n + k] * out[k] }
            out[r] = s / a[r * n + r]
        }
        return out.allSatisfy(\.isFinite) ? out : nil
    }
}

/// Taking calibration samples hands-free: targets one after another, samples only once the gaze has arrived
/// at the target and while the pointer is still there, the next target once enough were taken. Pure: it
/// steps with each frame's time and raw pointer.
///
/// Arrival is what makes it hold for every pace. A user whose eyes reach a new dot 0.6 or 1.2 s after it
/// appears (slow saccades after a stroke or with ALS; a blink; reading the prompt first) is still, all that
/// time, on the previous dot: a fixed settle time would take those samples for the new dot. So a dot counts
/// samples only after the pointer has left the place it rested when the dot appeared (a saccade) and come to
/// rest again. A dot the gaze never reaches is skipped after `timeout`, and named in `skipped` (also one whose
/// raw place is the previous one's: a tracker that barely moves cannot be told from a user who never looked).
/// The first dot starts from where the run began (the Start button); a user already resting on it when it
/// appears counts as arrived after `firstLateArrival` seconds, later than any slow eye leaves the button.
public struct CalibrationRun: Sendable, Equatable {
    /// Where the targets are, in order (normalised).
    public let targets: [GazePoint]
    /// The target being looked at now (== targets.count when done).
    public private(set) var index = 0
    public private(set) var samples: [CalibrationSample] = []
    /// Samples wanted per target.
    public var perTarget = 20
    /// The shortest time after a dot appears before its samples count (seconds); the longest a dot waits for
    /// the gaze to arrive and give its samples before it is skipped.
    public var settle = 0.3, timeout = 5.0
    /// How far (normalised) the pointer must move from where it rested when the dot appeared to count as a
    /// look towards the dot; how long a pointer that never moved must rest to count as arrived anyway
    /// (infinite by default: see above).
    public var saccade = 0.03, lateArrival = Double.infinity, firstLateArrival = 1.6
    /// The pointer counts as still when its last `window` seconds stay within `radius` (normalised).
    public var window = 0.2, radius = 0.03
    /// The dots skipped because the gaze never arrived or never held still there (1-based, as shown).
    public private(set) var skipped: [Int] = []
    /// Seconds from each dot's appearance to the gaze's arrival (the dots that had one).
    public private(set) var arrivals: [Double] = []
    private var targetSince: Double?
    private struct Seen: Sendable, Equatable { var t: Double, p: GazePoint }
    private var recent: [Seen] = []
    private var taken = 0
    /// Where the pointer rested when the dot appeared (nil: not known yet), and where it came to rest on the
    /// dot once it arrived.
    private var departure: GazePoint?
    private var arrivedAt: GazePoint?
    private var started = false

    /// The nine targets of a 3×3 grid at 10 %, 50 % and 90 % of each axis, in reading order.
    public static let nineTargets: [GazePoint] = [0.1, 0.5, 0.9].flatMap { y in [0.1, 0.5, 0.9].map { GazePoint(x: $0, y: y) } }

    public init(targets: [GazePoint] = CalibrationRun.nineTargets) { self.targets = targets }

    /// Why the run stopped early (the face was lost too long); the samples taken so far are not to be used.
    public private(set) var problem: CalibrationProblem?
    /// The longest the face may be lost before the run stops (seconds).
    public var maxFaceLoss = 2.0
    private var lostSince: Double?

    public var isDone: Bool { index >= targets.count || problem != nil }
    public var target: GazePoint? { isDone ? nil : targets[index] }
    /// How full the current target is, 0…1.
    public var progress: Double { isDone ? 1 : Double(taken) / Double(perTarget) }
    /// Whether the gaze has arrived at the current target.
    public var hasArrived: Bool { arrivedAt != nil }

    /// Steps with one frame: `raw` is the uncalibrated pointer (nil without a face). A face lost clears the
    /// still-window (samples resume once it is back and still).
    public mutating func step(t: Double, raw: GazePoint?) {
        guard !isDone else { return }
        if targetSince == nil { targetSince = t }
        guard let raw, raw.x.isFinite, raw.y.isFinite else {
            recent.removeAll()
            if lostSince == nil { lostSince = t }
            if let l = lostSince, t - l >= maxFaceLoss {
                problem = CalibrationProblem(.faceLost(seconds: Int(maxFaceLoss), dot: index + 1, of: targets.count))
            }
            return
        }
        lostSince = nil
        // The first frame of the run is where the user looked to start it (the Start button).
        if !started { started = true; departure = raw }
        recent.append(Seen(t: t, p: raw))
        while let first = recent.first, t - first.t > window { recent.removeFirst() }
        let since = t - (targetSince ?? t)
        if since >= settle, let first = recent.first, t - first.t >= window * 0.8 {
            let centre = Self.centre(recent)
            let still = recent.allSatisfy { abs($0.p.x - centre.x) <= radius && abs($0.p.y - centre.y) <= radius }
            if still && arrivedAt == nil {
                let moved = departure.map { Self.distance($0, centre) >= saccade } ?? true
                if moved || since >= (index == 0 ? firstLateArrival : lateArrival) {
                    arrivedAt = centre
                    arrivals.append(since)
                }
            }
            // After arriving, only samples where it arrived: a glance away half-way is not the dot.
            if still, let at = arrivedAt, Self.distance(at, centre) <= 2 * radius {
                samples.append(CalibrationSample(raw: raw, target: targets[index]))
                taken += 1
            }
        }
        if taken >= perTarget { next() } else if since >= timeout {
            if taken < perTarget / 4 { skipped.append(index + 1) }
            next()
        }
    }

    private static func centre(_ seen: [Seen]) -> GazePoint {
        GazePoint(x: seen.map(\.p.x).reduce(0, +) / Double(seen.count), y: seen.map(\.p.y).reduce(0, +) / Double(seen.count))
    }

    private static func distance(_ a: GazePoint, _ b: GazePoint) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    private mutating func next() {
        // Where the gaze rests now is where the next dot's look starts from.
        departure = recent.isEmpty ? arrivedAt : Self.centre(recent)
        index += 1
        taken = 0
        targetSince = nil
        arrivedAt = nil
        recent.removeAll()
    }
}

/// Checking a fit before it is used: a few dots it was not made from, looked at as the calibration's were;
/// the error the user will really get there, beside that of the calibration in use on the same looks.
public enum CalibrationCheck {
    /// Four dots between the calibration's, where its interpolation is weakest.
    public static let targets: [GazePoint] = [GazePoint(x: 0.3, y: 0.3), GazePoint(x: 0.7, y: 0.3),
                                              GazePoint(x: 0.7, y: 0.7), GazePoint(x: 0.3, y: 0.7)]
    /// A fit farther off than this (cells) is not kept, whatever the one in use does.
    public static let limit = 2.0
    /// The fewest check dots that must have been looked at.
    public static let minTargets = 3

    /// The verdict on a candidate calibration.
    public struct Verdict: Sendable, Equatable {
        /// Mean over the check dots of the median error (cells), with the candidate and with what is in use.
        public var error: Double, inUse: Double
        /// Whether the candidate is to be used.
        public var keep: Bool
        /// Why not, with its figures (the screen words it in the user's language).
        public var why: Why?
        /// Why not, in English.
        public var reason: String? {
            switch why {
            case nil: nil
            case let .tooFewDots(needed, of): "too few check dots were looked at (\(needed) of \(of) are needed)"
            case let .tooFar(error, limit): String(format: "the check dots were %.1f cells off (the limit is %.0f)", error, limit)
            case let .notBetter(error, inUse): String(format: "the check dots were %.1f cells off, the pointer in use %.1f", error, inUse)
            }
        }
    }

    /// Why a candidate is not kept.
    public enum Why: Sendable, Equatable {
        /// Fewer than `needed` of the `of` check dots were looked at.
        case tooFewDots(needed: Int, of: Int)
        /// The check dots were `error` cells off, over `limit`.
        case tooFar(error: Double, limit: Double)
        /// The check dots were `error` cells off, no better than the pointer in use (`inUse`).
        case notBetter(error: Double, inUse: Double)
    }

    /// Judges `candidate` on the check run's samples against `inUse` (nil: no calibration).
    public static func judge(_ samples: [CalibrationSample], candidate: PointerCalibration, inUse: PointerCalibration?,
                             cells: (w: Int, h: Int)) -> Verdict {
        func error(_ c: PointerCalibration) -> Double? {
            var perTarget: [Double] = []
            for t in Set(samples.map(\.target)) {
                let errs = samples.filter { $0.target == t }.map { s -> Double in
                    let p = c.apply(s.raw)
                    let dx = (p.x - t.x) * Double(cells.w), dy = (p.y - t.y) * Double(cells.h)
                    return (dx * dx + dy * dy).squareRoot()
                }.sorted()
                guard errs.count >= CalibrationFit.minSamplesPerTarget else { continue }
                perTarget.append(errs[errs.count / 2])
            }
            guard perTarget.count >= minTargets else { return nil }
            return perTarget.reduce(0, +) / Double(perTarget.count)
        }
        guard let mine = error(candidate) else {
            return Verdict(error: .infinity, inUse: .infinity, keep: false,
                           why: .tooFewDots(needed: minTargets, of: targets.count))
        }
        let old = error(inUse ?? .identity) ?? .infinity
        if mine > limit {
            return Verdict(error: mine, inUse: old, keep: false,
                           why: .tooFar(error: mine, limit: limit))
        }
        if mine >= old {
            return Verdict(error: mine, inUse: old, keep: false,
                           why: .notBetter(error: mine, inUse: old))
        }
        return Verdict(error: mine, inUse: old, keep: true, why: nil)
    }
}
