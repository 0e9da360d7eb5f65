import Foundation

/// A target moving on a circle, for selection by smooth pursuit: its position at any time is known, so the
/// target whose motion the eyes (or head) follow can be found without calibration.
public struct PursuitPath: Sendable, Equatable {
    /// Centre and radii of the circle (normalised screen units; radii per axis keep it round in cells).
    public var centre: GazePoint
    public var rx: Double, ry: Double
    /// Seconds per turn, the angle at time 0 (radians), and the direction.
    public var period: Double, phase: Double
    public var clockwise: Bool

    public init(centre: GazePoint, rx: Double, ry: Double, period: Double = 1, phase: Double = 0, clockwise: Bool = true) {
        self.centre = centre; self.rx = rx; self.ry = ry; self.period = period; self.phase = phase; self.clockwise = clockwise
    }

    public func position(at t: Double) -> GazePoint {
        let a = phase + (clockwise ? 1 : -1) * 2 * Double.pi * t / period
        return GazePoint(x: centre.x + rx * cos(a), y: centre.y + ry * sin(a))
    }

    /// Paths for `count` targets with distinct motion: phases spread around the circle, every other one turning
    /// the other way, so any two differ in phase or direction.
    public static func distinct(_ centres: [GazePoint], rx: Double, ry: Double, period: Double = 1) -> [PursuitPath] {
        centres.enumerated().map { i, c in
            PursuitPath(centre: c, rx: rx, ry: ry, period: period,
                        phase: 2 * Double.pi * Double(i / 2) / Double(max(1, (centres.count + 1) / 2)), clockwise: i % 2 == 0)
        }
    }
}

/// Picks the target whose path the pointer follows: Pearson r between the pointer and each path over the last
/// `window` frames, at least `threshold` on both axes, and the pointer moving at least `minMotion` of the
/// path's own spread (a still gaze's noise correlates by chance, never by amplitude). Pure: times come from
/// frames. Each frame costs one position per path and running sums, not a pass over the window.
public struct PursuitDetector: Sendable, Equatable {
    public let window: Int
    public var threshold: Double
    public var minMotion = 0.3
    /// After a selection, seconds before the next can happen.
    public var refractory = 0.5
    /// How far behind its dot the eye typically follows (seconds): each path is compared where it was that
    /// long ago, so a user's lag of 50–150 ms leaves the followed path at most ±18° of phase away and its
    /// neighbours (90° apart with seven or eight targets) far from it.
    public var lag = 0.1
    /// A frame-to-frame jump larger than this (normalised, either axis) is a saccade or a blink, not pursuit:
    /// no window holding one selects (a jump correlates with any path that moves one way).
    public var maxJump = 0.05
    private var jumps: [Double] = []
    private var lastPointer: GazePoint?
    private var paths: [PursuitPath] = []
    private var lastT: Double?
    private var quietUntil = -Double.infinity
    /// Ring buffers of the window: the pointer, and each path's position (path-major).
    private var ptr: [Double] = [], pos: [Double] = []
    private var head = 0, filled = 0
    /// Running sums: pointer x, y, x², y²; per path x, y, x², y², pointer·path x and y.
    private var ps = [Double](repeating: 0, count: 4)
    private var qs: [Double] = []

    public init(window: Int = 30, threshold: Double = 0.6) {
        self.window = max(5, window); self.threshold = threshold
    }

    /// Steps with one frame's pointer (nil: no face; the window starts again); returns the index of the path
    /// selected, if one was. New paths (another screen) start the window again.
    public mutating func step(t: Double, pointer: GazePoint?, paths newPaths: [PursuitPath]) -> Int? {
        guard let p = pointer, p.x.isFinite, p.y.isFinite, !newPaths.isEmpty else { reset(); return nil }
        if newPaths != paths { paths = newPaths; reset() }
        if let l = lastT, t <= l { return nil }
        lastT = t
        let n = paths.count
        if filled == window {
            // Take the oldest sample out of the sums.
            let ox = ptr[head * 2], oy = ptr[head * 2 + 1]
            ps[0] -= ox; ps[1] -= oy; ps[2] -= ox * ox; ps[3] -= oy * oy
            for k in 0..<n {
                let qx = pos[(head * n + k) * 2], qy = pos[(head * n + k) * 2 + 1]
                qs[k * 6] -= qx; qs[k * 6 + 1] -= qy; qs[k * 6 + 2] -= qx * qx; qs[k * 6 + 3] -= qy * qy
                qs[k * 6 + 4] -= ox * qx; qs[k * 6 + 5] -= oy * qy
            }
        } else {
            filled += 1
        }
        ptr[head * 2] = p.x; ptr[head * 2 + 1] = p.y
        jumps[head] = lastPointer.map { max(abs(p.x - $0.x), abs(p.y - $0.y)) } ?? 0
        lastPointer = p
        ps[0] += p.x; ps[1] += p.y; ps[2] += p.x * p.x; ps[3] += p.y * p.y
        for k in 0..<n {
            let q = paths[k].position(at: t - lag)
            pos[(head * n + k) * 2] = q.x; pos[(head * n + k) * 2 + 1] = q.y
            qs[k * 6] += q.x; qs[k * 6 + 1] += q.y; qs[k * 6 + 2] += q.x * q.x; qs[k * 6 + 3] += q.y * q.y
            qs[k * 6 + 4] += p.x * q.x; qs[k * 6 + 5] += p.y * q.y
        }
        head = (head + 1) % window
        guard filled == window, jumps.max() ?? 0 <= maxJump else { return nil }
        let w = Double(window)
        func r(_ sa: Double, _ saa: Double, _ sb: Double, _ sbb: Double, _ sab: Double) -> (Double, Double, Double) {
            let va = max(0, saa - sa * sa / w), vb = max(0, sbb - sb * sb / w)
            let cov = sab - sa * sb / w
            let sdA = (va / w).squareRoot(), sdB = (vb / w).squareRoot()
            guard va > 1e-18, vb > 1e-18 else { return (0, sdA, sdB) }
            return (cov / (va * vb).squareRoot(), sdA, sdB)
        }
        var best: (Int, Double)?
        for k in 0..<n {
            let (rx, sx, tx) = r(ps[0], ps[2], qs[k * 6], qs[k * 6 + 2], qs[k * 6 + 4])
            let (ry, sy, ty) = r(ps[1], ps[3], qs[k * 6 + 1], qs[k * 6 + 3], qs[k * 6 + 5])
            let score = sx >= minMotion * tx && sy >= minMotion * ty ? min(rx, ry) : -1
            if score >= threshold, score > (best?.1 ?? -2) { best = (k, score) }
        }
        guard t >= quietUntil, let (k, _) = best else { return nil }
        reset()
        quietUntil = t + refractory
        return k
    }

    /// Forgets the window (the face was lost, the screen changed, a target was selected).
    public mutating func reset() {
        let n = paths.count
        ptr = [Double](repeating: 0, count: window * 2)
        jumps = [Double](repeating: 0, count: window)
        lastPointer = nil
        pos = [Double](repeating: 0, count: window * n * 2)
        ps = [Double](repeating: 0, count: 4)
        qs = [Double](repeating: 0, count: n * 6)
        head = 0; filled = 0
    }
}
