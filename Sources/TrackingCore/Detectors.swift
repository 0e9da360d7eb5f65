/// A threshold gesture with hysteresis, minimum hold, refractory time and guards.
///
/// It fires once per performance: after firing (or after a performance is voided by a guard or by being held
/// too long) the value must fall below `release` before a new performance can begin.
public struct ThresholdDetector: Sendable {
    public let spec: ThresholdSpec

    enum State: Sendable, Equatable {
        /// The value must drop below `release` first (after a firing, a void, or a reset).
        case waitRelease
        case idle
        case holding(onset: Double)
    }

    private(set) var state: State = .waitRelease
    private var refractoryUntil = -Double.infinity
    /// Progress of the current performance, 0…1.
    public private(set) var progress: Double = 0
    /// Onset of the performance under way, if any.
    public var onset: Double? {
        if case .holding(let o) = state { return o }
        return nil
    }

    public init(_ spec: ThresholdSpec) { self.spec = spec }

    /// Forgets any performance under way; a new one must start from rest.
    public mutating func reset() {
        state = .waitRelease
        progress = 0
    }

    /// Feeds one frame's blend shapes at time `t`; returns the onset time when the gesture is recognised.
    public mutating func step(_ b: BlendShapes, at t: Double) -> Double? {
        let v = spec.signal.value(b)
        switch state {
        case .waitRelease:
            progress = 0
            if v < spec.release { state = .idle }
            return nil
        case .idle:
            progress = 0
            guard v >= spec.press, t >= refractoryUntil else { return nil }
            guard spec.guards.allSatisfy({ $0.holds(b) }) else {
                state = .waitRelease
                return nil
            }
            state = .holding(onset: t)
            return checkHold(onset: t, at: t)
        case .holding(let onset):
            if !spec.guards.allSatisfy({ $0.holds(b) }) {
                state = .waitRelease
                progress = 0
                return nil
            }
            if v < spec.release {
                state = .idle
                progress = 0
                if let maxHold = spec.maxHold {
                    let held = t - onset
                    if held >= spec.hold && held <= maxHold { return fire(onset: onset, at: t, nextState: .idle) }
                }
                return nil
            }
            if let maxHold = spec.maxHold, t - onset > maxHold {
                state = .waitRelease
                progress = 0
                return nil
            }
            return checkHold(onset: onset, at: t)
        }
    }

    private mutating func checkHold(onset: Double, at t: Double) -> Double? {
        let held = t - onset
        progress = spec.hold > 0 ? min(1, held / spec.hold) : 1
        // Gestures with a maximum hold fire on release, not here.
        guard spec.maxHold == nil, held >= spec.hold else { return nil }
        return fire(onset: onset, at: t, nextState: .waitRelease)
    }

    private mutating func fire(onset: Double, at t: Double, nextState: State) -> Double {
        state = nextState
        progress = 0
        refractoryUntil = t + spec.refractory
        return onset
    }
}

/// Counts blinks of one or both eyes and fires when `count` of them fall within the window.
public struct BlinkCountDetector: Sendable {
    public let spec: BlinkCountSpec
    private var blink: ThresholdDetector
    private var onsets: [Double] = []
    private var refractoryUntil = -Double.infinity

    public init(_ spec: BlinkCountSpec) {
        self.spec = spec
        blink = ThresholdDetector(spec.blinkSpec)
    }

    /// Blinks counted so far in the current window, as a fraction of `count`.
    public var progress: Double { spec.count > 0 ? Double(onsets.count) / Double(spec.count) : 0 }
    public var onset: Double? { onsets.first }

    public mutating func reset() {
        blink.reset()
        onsets.removeAll()
    }

    /// Feeds one frame; returns the first blink's onset when the count is reached.
    public mutating func step(_ b: BlendShapes, at t: Double) -> Double? {
        if let first = onsets.first, t - first > spec.window { onsets.removeAll() }
        guard let o = blink.step(b, at: t), t >= refractoryUntil else { return nil }
        onsets.append(o)
        while let first = onsets.first, t - first > spec.window { onsets.removeFirst() }
        guard onsets.count >= spec.count, let first = onsets.first else { return nil }
        onsets.removeAll()
        refractoryUntil = t + spec.refractory
        return first
    }
}

/// Tracks how long the gaze rests on one target, forgiving brief glances away.
public struct DwellDetector: Sendable {
    public let spec: DwellSpec
    public private(set) var target: String?
    private var since = 0.0
    private var lastOn = 0.0
    private var firedOnCurrent = false
    private var refractoryUntil = -Double.infinity
    public private(set) var progress: Double = 0

    public init(_ spec: DwellSpec) { self.spec = spec }

    public var onset: Double? { target == nil ? nil : since }

    public mutating func reset() {
        target = nil
        progress = 0
        firedOnCurrent = false
    }

    /// Feeds the target under the gaze at time `t` (nil: none); returns the target when the dwell completes.
    public mutating func step(target seen: String?, at t: Double) -> String? {
        if let seen, seen == target {
            lastOn = t
        } else if target != nil, t - lastOn <= spec.grace {
            // A brief glance away: keep the dwell, but it cannot complete while the gaze is elsewhere.
            return nil
        } else {
            target = seen
            since = t
            lastOn = t
            firedOnCurrent = false
            progress = 0
            return nil
        }
        guard let current = target, !firedOnCurrent else { progress = 0; return nil }
        progress = spec.dwell > 0 ? min(1, (t - since) / spec.dwell) : 1
        guard t - since >= spec.dwell, t >= refractoryUntil else { return nil }
        firedOnCurrent = true
        progress = 0
        refractoryUntil = t + spec.refractory
        return current
    }
}
