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
        /// A performance under way since `onset`; `since` is when the value last rose to `press` (nil while it
        /// sits between `release` and `press`).
        case holding(onset: Double, since: Double?)
    }

    private(set) var state: State = .waitRelease
    private var refractoryUntil = -Double.infinity
    /// The longest stretch at or above `press` (with the guards holding) in the performance under way: what a
    /// gesture with a maximum hold needs to have reached `hold` when it is released.
    private var longestStretch = 0.0
    /// Start of the stretch the value has been below `release` (nil while it is not).
    private var lowSince: Double?
    /// How long the value rested below `release` before it last rose, and when it rose (for `calm`).
    private var lastRest = 0.0
    private var roseAt = -Double.infinity
    /// Mean of the value over the current stretch below `release`, and over the one before the last rise: the
    /// level the face rests at (for `repeatCalm`).
    private var lowSum = 0.0, lowCount = 0
    private var lastRestMean: Float = 0
    /// Set when a performance fires, until the value next rises: that rise may be a repeat (`repeatCalm`).
    private var repeatArmed = false
    /// The resting level before the last performance that fired from a full calm.
    private var restLevel: Float = 0
    /// While armed: start of the stretch at or near `restLevel`, and the longest such stretch in this rest.
    private var stillSince: Double?
    private var longestStill = 0.0
    /// Whether the last rise came after a fired performance and a long enough stretch at the resting level.
    private var riseIsRepeat = false
    /// Whether the performance under way began as such a repeat (its rest then does not set `restLevel`).
    private var performanceIsRepeat = false
    /// Progress of the current performance, 0…1.
    public private(set) var progress: Double = 0
    /// Whether the focus is on a key that one ⌫ undoes, where `spec.keyHold` applies (set by the pipeline's
    /// owner, which knows the screen).
    public var onKey = false
    /// For `spec.keyCalm`: when the movement under way rose above `spec.stillLevel` (or, after it fired, fell
    /// below `release`: a reopening of the same deliberate movement); nil while the face is still.
    private var movingSince: Double?
    /// Whether the movement under way has fired since it began or since its performance began.
    private var movementFired = false
    /// When the last movement that did not fire came back to the still level.
    private var unsettledUntil = -Double.infinity
    /// Whether the performance under way came from a still face, so that the key hold may apply to it.
    private var fromStill = true
    /// Onset of the performance under way, if any.
    public var onset: Double? {
        if case .holding(let o, _) = state { return o }
        return nil
    }

    public init(_ spec: ThresholdSpec) { self.spec = spec }

    /// Forgets any performance under way; a new one must start from rest.
    public mutating func reset() {
        state = .waitRelease
        progress = 0
        lowSince = nil
        lastRest = 0
        repeatArmed = false
        riseIsRepeat = false
        stillSince = nil
    }

    /// The level the value must come back to, and stay at for `repeatCalm`, for a reopening to count as a
    /// repeat: a third of the way from the resting level up to `release` (a closed mouth, not a talking dip).
    private var stillLevel: Float { restLevel + (spec.release - restLevel) / 3 }

    /// Feeds one frame's blend shapes at time `t`; returns the onset time when the gesture is recognised.
    public mutating func step(_ b: BlendShapes, at t: Double) -> Double? {
        let v = spec.signal.value(b)
        if spec.keyCalm != nil { trackMovement(v, at: t) }
        if v < spec.release {
            if lowSince == nil {
                lowSince = t
                lowSum = 0; lowCount = 0
                stillSince = nil; longestStill = 0
            }
            lowSum += Double(v); lowCount += 1
            if repeatArmed, v <= stillLevel {
                if stillSince == nil { stillSince = t }
            } else if let s = stillSince {
                longestStill = max(longestStill, t - s)
                stillSince = nil
            }
        } else if let low = lowSince {
            lastRest = t - low
            lastRestMean = Float(lowSum / Double(max(1, lowCount)))
            if let s = stillSince { longestStill = max(longestStill, t - s) }
            riseIsRepeat = repeatArmed && spec.repeatCalm > 0 && longestStill >= spec.repeatCalm
            repeatArmed = false
            stillSince = nil
            roseAt = t
            lowSince = nil
        }
        switch state {
        case .waitRelease:
            progress = 0
            if v < spec.release { state = .idle }
            return nil
        case .idle:
            progress = 0
            guard v >= spec.press, t >= refractoryUntil else { return nil }
            if spec.calm > 0, (lastRest < spec.calm && !riseIsRepeat) || t - roseAt > spec.calm {
                // Not from a still face, or a slow climb through the band: the rhythm of speech. It must rest
                // again before a performance can begin. A reopening right after a fired performance, from a
                // face back at its resting level for `repeatCalm`, is the same key again, not speech.
                state = .waitRelease
                return nil
            }
            performanceIsRepeat = spec.calm > 0 && lastRest < spec.calm
            if let keyCalm = spec.keyCalm {
                let began = movingSince ?? t
                fromStill = began - unsettledUntil >= keyCalm && t - began <= spec.hold
                // A performance that does not fire leaves the face unsettled, even within a movement that did.
                movementFired = false
            }
            let ok = spec.guards.allSatisfy { $0.holds(b) }
            if !ok && spec.maxHold != nil {
                // A short gesture (a wink) whose guard fails at once is something else (a blink): void it.
                state = .waitRelease
                return nil
            }
            state = .holding(onset: t, since: ok ? t : nil)
            longestStretch = 0
            return ok ? checkHold(onset: t, since: t, at: t) : nil
        case .holding(let onset, let since):
            if v < spec.release {
                state = .idle
                progress = 0
                if let maxHold = spec.maxHold {
                    // As for every threshold gesture, only time at or above `press` counts towards `hold`.
                    let held = max(longestStretch, since.map { t - $0 } ?? 0)
                    if held >= spec.hold && t - onset <= maxHold { return fire(onset: onset, at: t, nextState: .idle) }
                }
                return nil
            }
            let ok = spec.guards.allSatisfy { $0.holds(b) }
            if let maxHold = spec.maxHold, !ok || t - onset > maxHold {
                state = .waitRelease
                progress = 0
                return nil
            }
            // The hold counts only while the value is at or above `press` and every guard holds: speech moves
            // the jaw through the band between the thresholds for long stretches, a deliberate gesture holds it
            // open; and a full blink, with both eyes closed, never accumulates time towards a right-eye back.
            guard v >= spec.press, ok else {
                if let since { longestStretch = max(longestStretch, t - since) }
                state = .holding(onset: onset, since: nil)
                progress = 0
                return nil
            }
            let s = since ?? t
            state = .holding(onset: onset, since: s)
            return checkHold(onset: onset, since: s, at: t)
        }
    }

    private mutating func checkHold(onset: Double, since: Double, at t: Double) -> Double? {
        let held = t - since, hold = spec.hold(onKey: onKey && fromStill)
        progress = hold > 0 ? min(1, held / hold) : 1
        // Gestures with a maximum hold fire on release, not here.
        guard spec.maxHold == nil, held >= hold else { return nil }
        return fire(onset: onset, at: t, nextState: .waitRelease)
    }

    /// Follows the face's movements above `spec.stillLevel` for `spec.keyCalm`.
    private mutating func trackMovement(_ v: Float, at t: Double) {
        if v > spec.stillLevel {
            if movingSince == nil {
                movingSince = t
                movementFired = false
            } else if movementFired, state == .waitRelease, v < spec.release {
                // Closing after a fired performance: a reopening from here is the same key again (a double
                // letter), timed from this fall, and the movement stays a deliberate one.
                movingSince = t
            }
        } else if movingSince != nil {
            if !movementFired { unsettledUntil = t }
            movingSince = nil
        }
    }

    private mutating func fire(onset: Double, at t: Double, nextState: State) -> Double {
        movementFired = true
        state = nextState
        progress = 0
        refractoryUntil = t + spec.refractory
        if spec.repeatCalm > 0 {
            // A repeat's short rest (with the closing in it) says less of the resting face than the calm one.
            if !performanceIsRepeat { restLevel = lastRestMean }
            repeatArmed = true
        }
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
