/// How a condition's shapes combine into one value.
public enum Combine: String, Sendable, Equatable, CaseIterable {
    case min, max, mean
    /// The first shape minus the largest of the others (never below 0): one eye closed *relative to* the other,
    /// which tells a wink from a blink or from looking down, where both eyes' values rise together.
    case difference
}

/// A comparison used by guards.
public enum Comparison: String, Sendable, Equatable, CaseIterable {
    case ge = ">=", le = "<=", gt = ">", lt = "<"

    func holds(_ a: Float, _ b: Float) -> Bool {
        switch self {
        case .ge: return a >= b
        case .le: return a <= b
        case .gt: return a > b
        case .lt: return a < b
        }
    }
}

/// One or more blend shapes read as a single value.
public struct ShapeSignal: Sendable, Equatable {
    public var shapes: [BlendShape]
    public var combine: Combine

    public init(_ shapes: [BlendShape], combine: Combine = .min) {
        self.shapes = shapes; self.combine = combine
    }

    public func value(_ b: BlendShapes) -> Float {
        guard let first = shapes.first else { return 0 }
        if shapes.count == 1 { return b[first] }
        switch combine {
        case .min: return shapes.reduce(Float.infinity) { Swift.min($0, b[$1]) }
        case .max: return shapes.reduce(-Float.infinity) { Swift.max($0, b[$1]) }
        case .mean: return shapes.reduce(0) { $0 + b[$1] } / Float(shapes.count)
        case .difference: return Swift.max(0, b[first] - shapes.dropFirst().reduce(-Float.infinity) { Swift.max($0, b[$1]) })
        }
    }
}

/// A guard such as `eyeBlinkLeft <= 0.3`: it must hold for the whole of a performance.
public struct GuardCondition: Sendable, Equatable, CustomStringConvertible {
    public var signal: ShapeSignal
    public var comparison: Comparison
    public var value: Float

    public init(_ signal: ShapeSignal, _ comparison: Comparison, _ value: Float) {
        self.signal = signal; self.comparison = comparison; self.value = value
    }

    public func holds(_ b: BlendShapes) -> Bool { comparison.holds(signal.value(b), value) }

    public var description: String {
        let name = signal.shapes.map(\.name).joined(separator: "+")
        return "\(name) \(comparison.rawValue) \(value)"
    }
}

/// Parameters of a threshold gesture with hysteresis.
public struct ThresholdSpec: Sendable, Equatable {
    public var signal: ShapeSignal
    /// The value at or above which a performance begins.
    public var press: Float
    /// The value below which it ends; lower than `press`, so a value hovering near one threshold cannot chatter.
    public var release: Float
    /// How long the value must stay pressed (seconds).
    public var hold: Double
    /// If set, the gesture fires on release, and only if the hold lasted at most this long (a wink, a blink).
    public var maxHold: Double?
    /// Quiet time after firing (seconds).
    public var refractory: Double
    public var guards: [GuardCondition]
    /// If above 0, a performance counts only when the value rested below `release` for at least this long
    /// before it rose, and rose from `release` to `press` within this time (seconds). Speech opens and closes
    /// the jaw several times a second, and sometimes holds it open as long as a deliberate opening would; a
    /// deliberate opening starts from a still mouth and goes straight up. Its rhythm tells them apart.
    public var calm: Double
    /// If above 0, the first opening after a performance that fired needs only this much rest instead of
    /// `calm` (seconds), provided the value came back to its resting level (the level it rested at before the
    /// fired performance) and stayed there that long. A user typing the same key twice reopens a quarter of a
    /// second after closing; speech never fired a gesture first, and its dips do not stay at the closed level.
    public var repeatCalm: Double
    /// The hold while the focus is on a key whose wrong activation one ⌫ undoes (a letter, a mark, space or ⌫
    /// of a text's keyboard), when shorter than `hold` (seconds), set explicitly; nil: `keyHoldShare` of `hold`,
    /// or `hold` everywhere when that is nil too. Such a key is pressed hundreds of times a note, and a stray
    /// press on it costs a ⌫; a button that leaves a screen, deletes or sends keeps the full hold.
    public var keyHold: Double?
    /// The key hold as a share of `hold` (0…1) when `keyHold` is not set, so that a longer `hold` (a carer's
    /// for a user whose jaw moves on its own, or a calibrated one) lengthens the key hold with it.
    public var keyHoldShare: Double?
    /// If set, `keyHold` applies only to a performance from a still face (seconds): the value rose from
    /// `stillLevel` to `press` within `hold`, and no movement above `stillLevel` that did not fire ended within
    /// this time before that rise. Talking moves the jaw up and down without acting, or climbs through the band
    /// in steps (the real talking take: 0.7-1.3 s from the still level to `press`, against 0.07-0.3 s for a
    /// deliberate opening); such a performance needs the full `hold`. nil: `keyHold` whenever it is set.
    public var keyCalm: Double?

    public init(signal: ShapeSignal, press: Float, release: Float, hold: Double, maxHold: Double? = nil,
                refractory: Double = 0.3, guards: [GuardCondition] = [], calm: Double = 0, repeatCalm: Double = 0,
                keyHold: Double? = nil, keyCalm: Double? = nil, keyHoldShare: Double? = nil) {
        self.signal = signal; self.press = press; self.release = release; self.hold = hold
        self.maxHold = maxHold; self.refractory = refractory; self.guards = guards; self.calm = calm
        self.repeatCalm = repeatCalm; self.keyHold = keyHold; self.keyCalm = keyCalm; self.keyHoldShare = keyHoldShare
    }

    /// The level at or below which the face counts as still for `keyCalm`: half of `release` (a closed jaw
    /// rests at 0.01-0.05 on the real takes; talking lifts it to 0.2-0.3 before it passes `press`).
    public var stillLevel: Float { release / 2 }

    /// The hold in effect: on a key that one ⌫ undoes `keyHold` when set, else `keyHoldShare` of `hold`, never
    /// longer than `hold`; `hold` elsewhere.
    public func hold(onKey: Bool) -> Double {
        guard onKey, maxHold == nil else { return hold }
        if let keyHold { return min(hold, keyHold) }
        guard let keyHoldShare else { return hold }
        return hold * min(1, max(0, keyHoldShare))
    }
}

/// Which eye a blink-count gesture watches.
public enum BlinkEye: String, Sendable, Equatable, CaseIterable {
    case left, right, both
}

/// Parameters of a blink-count gesture: `count` blinks within `window` seconds.
public struct BlinkCountSpec: Sendable, Equatable {
    public var eye: BlinkEye
    public var count: Int
    public var window: Double
    public var press: Float
    public var release: Float
    /// A closure longer than this is not a blink.
    public var maxBlink: Double
    public var refractory: Double
    /// For one eye, the other eye must stay at or below this, so a full blink never counts as a wink.
    public var otherEyeOpenBelow: Float

    public init(eye: BlinkEye, count: Int, window: Double, press: Float = 0.5, release: Float = 0.3,
                maxBlink: Double = 0.4, refractory: Double = 0.5, otherEyeOpenBelow: Float = 0.3) {
        self.eye = eye; self.count = count; self.window = window; self.press = press; self.release = release
        self.maxBlink = maxBlink; self.refractory = refractory; self.otherEyeOpenBelow = otherEyeOpenBelow
    }

    /// `blinkSpec.signal.value(b)`, read without making the spec (its arrays): asked at every frame.
    public func blinkLevel(_ b: BlendShapes) -> Float {
        switch eye {
        case .left: return b[.eyeBlinkLeft]
        case .right: return b[.eyeBlinkRight]
        case .both: return Swift.min(b[.eyeBlinkLeft], b[.eyeBlinkRight])
        }
    }

    /// The single-blink threshold gesture this spec counts.
    public var blinkSpec: ThresholdSpec {
        let l = ShapeSignal([.eyeBlinkLeft]), r = ShapeSignal([.eyeBlinkRight])
        switch eye {
        case .left:
            return ThresholdSpec(signal: l, press: press, release: release, hold: 0, maxHold: maxBlink,
                                 refractory: 0, guards: [GuardCondition(r, .le, otherEyeOpenBelow)])
        case .right:
            return ThresholdSpec(signal: r, press: press, release: release, hold: 0, maxHold: maxBlink,
                                 refractory: 0, guards: [GuardCondition(l, .le, otherEyeOpenBelow)])
        case .both:
            return ThresholdSpec(signal: ShapeSignal([.eyeBlinkLeft, .eyeBlinkRight], combine: .min),
                                 press: press, release: release, hold: 0, maxHold: maxBlink, refractory: 0)
        }
    }
}

/// Parameters of dwell: gaze held on one target.
public struct DwellSpec: Sendable, Equatable {
    /// How long the gaze must rest on a target (seconds).
    public var dwell: Double
    /// A glance away shorter than this does not restart the dwell.
    public var grace: Double
    public var refractory: Double

    public init(dwell: Double = 1.0, grace: Double = 0.15, refractory: Double = 0.5) {
        self.dwell = dwell; self.grace = grace; self.refractory = refractory
    }
}

/// What a gesture is made of.
public enum GestureKind: Sendable, Equatable {
    case threshold(ThresholdSpec)
    case blinkCount(BlinkCountSpec)
    case dwell(DwellSpec)
}

/// A named gesture, as defined in a config file.
public struct GestureDefinition: Sendable, Equatable {
    public var name: String
    public var kind: GestureKind
    /// How far before the gesture's onset its gaze point is taken (seconds): the gaze drifts as eyes close.
    public var lookback: Double

    public init(name: String, kind: GestureKind, lookback: Double = 0.1) {
        self.name = name; self.kind = kind; self.lookback = lookback
    }
}

/// A recognised gesture.
public struct GestureEvent: Sendable, Equatable {
    public var name: String
    /// Time of the frame on which it was recognised.
    public var t: Double
    /// Time the performance began.
    public var onset: Double
    /// Smoothed gaze from just before the onset; nil when the source has no gaze.
    public var gaze: GazePoint?
    /// The target dwelt on, for dwell gestures.
    public var target: String?

    public init(name: String, t: Double, onset: Double, gaze: GazePoint? = nil, target: String? = nil) {
        self.name = name; self.t = t; self.onset = onset; self.gaze = gaze; self.target = target
    }
}
