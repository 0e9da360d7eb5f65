import Foundation

/// Which smoothing a gaze filter applies.
public enum SmoothingKind: String, Sendable, CaseIterable, Codable {
    case movingAverage = "moving-average"
    case lowPass = "low-pass"
    case oneEuro = "one-euro"
    case none
}

/// Parameters of the gaze smoothing stage.
public struct SmoothingSettings: Sendable, Equatable {
    public var kind: SmoothingKind
    /// Window of the moving average, in frames (15 was best of six in a published comparison).
    public var window: Int
    /// Low-pass coefficient: weight of the newest sample, 0…1.
    public var alpha: Double
    /// One Euro filter: minimum cutoff (Hz), speed coefficient, derivative cutoff (Hz).
    public var minCutoff: Double
    public var beta: Double
    public var dCutoff: Double

    public init(kind: SmoothingKind = .oneEuro, window: Int = 15, alpha: Double = 0.3,
                minCutoff: Double = 1.0, beta: Double = 1.0, dCutoff: Double = 1.0) {
        self.kind = kind; self.window = window; self.alpha = alpha
        self.minCutoff = minCutoff; self.beta = beta; self.dCutoff = dCutoff
    }
}

/// A gaze smoothing filter: a value with a step function over timestamped points.
public struct GazeFilter: Sendable {
    public let settings: SmoothingSettings
    private var ring: [GazePoint] = []
    private var ringIndex = 0
    private var sumX = 0.0, sumY = 0.0
    private var last: GazePoint?
    private var lastT: Double?
    private var dx = 0.0, dy = 0.0

    public init(_ settings: SmoothingSettings) {
        self.settings = settings
        ring.reserveCapacity(max(1, settings.window))
    }

    /// Forgets history, e.g. when the face is lost.
    public mutating func reset() {
        ring.removeAll(keepingCapacity: true); ringIndex = 0; sumX = 0; sumY = 0
        last = nil; lastT = nil; dx = 0; dy = 0
    }

    /// Feeds one raw point taken at time `t` and returns the smoothed point.
    public mutating func step(_ p: GazePoint, at t: Double) -> GazePoint {
        switch settings.kind {
        case .none:
            return p
        case .movingAverage:
            let n = max(1, settings.window)
            if ring.count < n {
                ring.append(p)
            } else {
                let old = ring[ringIndex]
                sumX -= old.x; sumY -= old.y
                ring[ringIndex] = p
                ringIndex = (ringIndex + 1) % n
            }
            sumX += p.x; sumY += p.y
            let c = Double(ring.count)
            return GazePoint(x: sumX / c, y: sumY / c)
        case .lowPass:
            guard let prev = last else { last = p; return p }
            let a = min(1, max(0, settings.alpha))
            let out = GazePoint(x: prev.x + a * (p.x - prev.x), y: prev.y + a * (p.y - prev.y))
            last = out
            return out
        case .oneEuro:
            guard let prev = last, let pt = lastT else { last = p; lastT = t; return p }
            let dt = t - pt
            // Repeated or backwards timestamps carry no rate information; keep the last estimate. So do steps
            // far below any tracker's frame time: a denormal step (5e-324 s) makes the speed infinite and the
            // smoothed point NaN. lastT stays, so tiny steps add up to a usable one.
            guard dt >= Self.minStep else { return prev }
            let ad = Self.alpha(cutoff: settings.dCutoff, dt: dt)
            dx += ad * ((p.x - prev.x) / dt - dx)
            dy += ad * ((p.y - prev.y) / dt - dy)
            let ax = Self.alpha(cutoff: settings.minCutoff + settings.beta * abs(dx), dt: dt)
            let ay = Self.alpha(cutoff: settings.minCutoff + settings.beta * abs(dy), dt: dt)
            let out = GazePoint(x: prev.x + ax * (p.x - prev.x), y: prev.y + ay * (p.y - prev.y))
            // Whatever the input, never hand on a point that is not finite: start again from this sample.
            guard out.x.isFinite, out.y.isFinite, dx.isFinite, dy.isFinite else {
                last = p; lastT = t; dx = 0; dy = 0
                return p
            }
            last = out; lastT = t
            return out
        }
    }

    /// The shortest timestamp step the One Euro filter takes as one (1 µs; trackers step ≥ 4 ms).
    public static let minStep = 1e-6

    private static func alpha(cutoff: Double, dt: Double) -> Double {
        let tau = 1.0 / (2 * Double.pi * max(cutoff, 1e-6))
        return 1.0 / (1.0 + tau / dt)
    }
}
