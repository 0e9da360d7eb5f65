/// A deliberate performance of a threshold gesture that stayed below its press value: the shape rose from a
/// still face and was held steady, but too low to act. Tired muscles (ALS, muscular dystrophy, the end of a
/// long day) make every open weaker; a few of these in a row mean the thresholds no longer fit the user.
public struct WeakPerformance: Sendable, Equatable {
    /// The gesture's name.
    public var gesture: String
    /// The level the shape was held at, and the press value it did not reach.
    public var level: Double
    public var press: Double
    /// When the performance ended (the shape fell below its release value), on the frames' clock.
    public var t: Double

    public init(gesture: String, level: Double, press: Double, t: Double) {
        self.gesture = gesture; self.level = level; self.press = press; self.t = t
    }
}

/// Watches one threshold gesture's shape for weak performances. Pure: time is the frames' time.
///
/// A weak performance rises above `release` after at least `rest` seconds below it (a still face, not the
/// quick syllables of speech), never reaches `press`, and holds within a band `steady` wide for at least the
/// gesture's hold (and `minimumHold`): speech swings the jaw through the band several times a second.
public struct WeakPerformanceWatch: Sendable {
    public let spec: ThresholdSpec
    public let name: String
    public static let rest = 0.3
    public static let steady = 0.08
    public static let minimumHold = 0.4
    /// A performance longer than this is not an attempt at a gesture (a yawn, a mouth left open).
    public static let longest = 4.0

    private var lowSince: Double?
    private var started: Double?
    private var reachedPress = false
    private var plateauStart = 0.0, plateauMin = 0.0, plateauMax = 0.0
    private var bestHeld = 0.0, bestLevel = 0.0

    public init(name: String, _ spec: ThresholdSpec) { self.name = name; self.spec = spec }

    /// Forgets a performance under way (face lost, tracker restarted).
    public mutating func reset() {
        lowSince = nil
        started = nil
    }

    /// Feeds one frame; returns a weak performance when one has just ended.
    public mutating func step(_ b: BlendShapes, at t: Double) -> WeakPerformance? {
        let v = Double(spec.signal.value(b))
        let press = Double(spec.press), release = Double(spec.release)
        if v < release {
            defer { if lowSince == nil { lowSince = t } }
            guard let s = started else { return nil }
            started = nil
            let long = max(spec.hold, Self.minimumHold)
            guard !reachedPress, t - s <= Self.longest, bestHeld >= long else { return nil }
            return WeakPerformance(gesture: name, level: bestLevel, press: press, t: t)
        }
        if started != nil {
            if v >= press { reachedPress = true }
            if max(plateauMax, v) - min(plateauMin, v) <= Self.steady {
                plateauMin = min(plateauMin, v); plateauMax = max(plateauMax, v)
            } else {
                plateauStart = t; plateauMin = v; plateauMax = v
            }
            if t - plateauStart > bestHeld { bestHeld = t - plateauStart; bestLevel = (plateauMin + plateauMax) / 2 }
            return nil
        }
        // A rise: it counts only from a still face.
        let rested = lowSince.map { t - $0 >= Self.rest } ?? false
        lowSince = nil
        guard rested else { return nil }
        started = t
        reachedPress = v >= press
        plateauStart = t; plateauMin = v; plateauMax = v
        bestHeld = 0; bestLevel = v
        return nil
    }
}
