/// A threshold gesture's press and release values, as a calibration sets them for one user and source.
public struct GestureThreshold: Sendable, Equatable {
    public var name: String
    public var press: Float
    public var release: Float
    /// The user's own rhythm, when the calibration learned one: how long a performance must hold, and the
    /// rest-and-rise window of the rhythm guard (seconds); nil keeps the config's.
    public var hold: Double?
    public var calm: Double?

    public init(name: String, press: Float, release: Float, hold: Double? = nil, calm: Double? = nil) {
        self.name = name; self.press = press; self.release = release; self.hold = hold; self.calm = calm
    }

    /// `gestures` with the press and release of each named threshold gesture replaced; other gestures and
    /// names no gesture has are left alone.
    public static func apply(_ thresholds: [GestureThreshold], to gestures: [GestureDefinition]) -> [GestureDefinition] {
        gestures.map { g in
            guard case .threshold(var spec) = g.kind, let t = thresholds.first(where: { $0.name == g.name }) else { return g }
            spec.press = t.press
            spec.release = t.release
            if let h = t.hold { spec.hold = h }
            if let c = t.calm { spec.calm = c }
            var out = g
            out.kind = .threshold(spec)
            return out
        }
    }
}

/// A guided gesture calibration, fed timestamped frames: the neutral face for 2 s, then each gesture performed
/// twice. Pure and deterministic, like the pointer's `CalibrationRun`.
///
/// A gesture not seen within its time (a shape the tracker does not send, or the user skipping it) keeps its
/// values and the run goes on; two in a row not seen stop the run, which is how the user leaves mid-way.
///
/// Each gesture is read through its own signal (its shapes and how they combine, so a wink read as one eye
/// against the other is calibrated as the detector sees it). A performance is the signal rising clearly above
/// the user's neutral face and falling back; its peak is kept. The face lost at any point ends the run with a
/// problem.
public struct GestureCalibrationRun: Sendable, Equatable {
    /// One gesture to calibrate: its name, signal, and the values in use now.
    public struct Gesture: Sendable, Equatable {
        public var name: String
        /// The gesture in the user's words ("open the jaw"), for what the run tells them; the name by default.
        public var label: String
        public var signal: ShapeSignal
        public var press: Float
        public var release: Float
        /// The config's hold and rhythm guard (seconds; calm 0: none), which the user's rhythm may relax.
        public var hold: Double
        public var calm: Double
        public init(name: String, label: String? = nil, signal: ShapeSignal, press: Float, release: Float, hold: Double = 0,
                    calm: Double = 0) {
            self.name = name; self.label = label ?? name; self.signal = signal; self.press = press; self.release = release
            self.hold = hold; self.calm = calm
        }
    }

    /// One frame of a performance: the time and the gesture's signal.
    public struct Sample: Sendable, Equatable {
        public var t: Double
        public var v: Float
    }

    public enum Stage: Sendable, Equatable {
        /// Keep a neutral face.
        case neutral
        /// Perform gesture `index`, attempt 0 or 1.
        case perform(index: Int, attempt: Int)
        case done
    }

    public let gestures: [Gesture]
    public private(set) var stage = Stage.neutral
    /// Why the run stopped early, with its figures; nil while it goes well.
    public private(set) var stopped: GestureCalibrationProblem.Reason?
    /// Why the run stopped early, in English; nil while it goes well.
    public var problem: String? { stopped.map { GestureCalibrationProblem(reason: $0).message } }
    /// Each gesture's signal over the neutral face.
    public private(set) var neutral: [[Float]]
    /// Each gesture's peaks, one per performance.
    public private(set) var peaks: [[Float]]
    /// The signal of the gesture being asked for (or of the first, while neutral), for the screen's meter.
    public private(set) var current: Float = 0
    /// The highest signal of the performance under way.
    public private(set) var peak: Float = 0
    /// The gestures not seen within their time, in order; they keep their values.
    public private(set) var skipped: [Int] = []
    /// Each gesture's performances as they went, from the prompt to the let-go, for the user's rhythm.
    public private(set) var traces: [[[Sample]]]
    /// How long the signal must rest after a prompt before a rise counts as a performance: a performance is
    /// counted only once the prompt has been seen, not the end of the last one or a reaction to the screen.
    public var promptRest = 0.3

    /// How long the neutral face is sampled (after `settleSeconds` in which the gesture that pressed Start is
    /// let go), and how long one performance may take to begin and end.
    public var settleSeconds = 1.0
    public var neutralSeconds = 2.0
    public var attemptSeconds = 6.0
    /// How far above the neutral face (its 95th percentile) a performance must rise to count as one.
    public var minRise: Float = 0.08
    /// How far the weaker performance must rise for thresholds between it and the neutral face to tell the
    /// two apart reliably.
    public var minUsableRise: Float = 0.12

    private var stageStart: Double?
    private var risen = false
    /// Since when the signal has rested in this stage (nil: not yet), and the performance's frames so far.
    private var restingSince: Double?
    private var rested = false
    private var trace: [Sample] = []

    public init(gestures: [Gesture]) {
        self.gestures = gestures
        neutral = Array(repeating: [], count: gestures.count)
        peaks = Array(repeating: [], count: gestures.count)
        traces = Array(repeating: [], count: gestures.count)
        if gestures.isEmpty { stage = .done; stopped = .nothingToTune }
    }

    public var isDone: Bool { stage == .done }

    /// How far the current stage has come, 0…1 (time for the neutral face and a waiting performance).
    public func progress(at t: Double) -> Double {
        guard let s = stageStart else { return 0 }
        switch stage {
        case .neutral: return min(1, max(0, (t - s) / (settleSeconds + neutralSeconds)))
        case .perform: return min(1, max(0, (t - s) / attemptSeconds))
        case .done: return 1
        }
    }

    /// The neutral face's high value of gesture `k`'s signal: its 95th percentile.
    public func baseline(_ k: Int) -> Float {
        let v = neutral[k].sorted()
        guard !v.isEmpty else { return 0 }
        return v[min(v.count - 1, Int(Double(v.count) * 0.95))]
    }

    /// Feeds one frame.
    public mutating func step(t: Double, face: Bool, blend: BlendShapes) {
        guard !isDone else { return }
        guard face else {
            if case .perform(let k, _) = stage { stop(.faceLost(during: gestures[k].label)) } else { stop(.faceLost(during: nil)) }
            return
        }
        if stageStart == nil { stageStart = t }
        let start = stageStart ?? t
        switch stage {
        case .neutral:
            current = gestures.first.map { $0.signal.value(blend) } ?? 0
            guard t - start >= settleSeconds else { break }
            for (k, g) in gestures.enumerated() { neutral[k].append(g.signal.value(blend)) }
            if t - start >= settleSeconds + neutralSeconds { next(.perform(index: 0, attempt: 0), at: t) }
        case .perform(let k, let attempt):
            let v = gestures[k].signal.value(blend)
            current = v
            let base = baseline(k)
            // The prompt is seen once the signal has rested `promptRest` in this stage; a slow rise through
            // the band above rest keeps that.
            if v < base + minRise / 2 {
                if restingSince == nil { restingSince = t }
                if let r = restingSince, t - r >= promptRest { rested = true }
            } else {
                restingSince = nil
            }
            let prompted = rested
            // A performance's frames start at its last rest: what came before it is not its rhythm.
            if !risen && v < base + minRise / 2 { trace.removeAll(keepingCapacity: true) }
            trace.append(Sample(t: t, v: v))
            if trace.count > 600 { trace.removeFirst(trace.count - 600) }
            if v >= base + minRise, risen || prompted {
                risen = true
                peak = max(peak, v)
            } else if risen, v < base + minRise / 2 {
                // Performed and let go: keep its peak, and how it went.
                peaks[k].append(peak)
                traces[k].append(trace)
                if attempt == 0 {
                    next(.perform(index: k, attempt: 1), at: t)
                } else if k + 1 < gestures.count {
                    next(.perform(index: k + 1, attempt: 0), at: t)
                } else {
                    stage = .done
                }
                return
            }
            if t - start >= attemptSeconds {
                if risen {
                    stop(.heldTooLong(gesture: gestures[k].label, seconds: Int(attemptSeconds)))
                } else if skipped.last == k - 1, k > 0 {
                    // Two gestures in a row not seen: the user is keeping still to stop.
                    skipped.append(k)
                    stop(.nothingSeen(seconds: Int(attemptSeconds * 2)))
                } else {
                    // Not seen (a shape this tracker does not send, or not performed): keep its values, go on.
                    skipped.append(k)
                    peaks[k] = []
                    traces[k] = []
                    if k + 1 < gestures.count { next(.perform(index: k + 1, attempt: 0), at: t) } else { stage = .done }
                }
            }
        case .done:
            break
        }
    }

    private mutating func next(_ s: Stage, at t: Double) {
        stage = s
        stageStart = t
        risen = false
        peak = 0
        restingSince = nil
        rested = false
        trace = []
    }

    private mutating func stop(_ why: GestureCalibrationProblem.Reason) {
        stopped = why
        stage = .done
    }


    /// The new thresholds, one per gesture, or why there are none: press halfway from the neutral face's high
    /// value to the weaker of the two performances, release a fifth of the way, so the detector keeps its
    /// hysteresis and the user's own weaker performance still presses.
    public func fit() -> Result<[GestureThreshold], GestureCalibrationProblem> {
        if let stopped { return .failure(GestureCalibrationProblem(reason: stopped)) }
        guard isDone else { return .failure(GestureCalibrationProblem(reason: .notFinished)) }
        var out: [GestureThreshold] = []
        for (k, g) in gestures.enumerated() where !skipped.contains(k) {
            guard peaks[k].count == 2, let weaker = peaks[k].min() else {
                return .failure(GestureCalibrationProblem(reason: .notTwice(gesture: g.label)))
            }
            let base = baseline(k)
            let rise = weaker - base
            guard rise >= minUsableRise else {
                return .failure(GestureCalibrationProblem(reason: .tooWeak(gesture: g.name, rise: Double(rise))))
            }
            let press = min(0.95, max(0.05, base + rise * 0.5))
            let release = max(0, min(press - 0.02, max(0.01, base + rise * 0.2)))
            let (hold, calm) = rhythm(g, traces[k], press: press, release: release)
            out.append(GestureThreshold(name: g.name, press: press, release: release, hold: hold, calm: calm))
        }
        guard !out.isEmpty else {
            return .failure(GestureCalibrationProblem(reason: .noneSeen))
        }
        return .success(out)
    }
}

extension GestureCalibrationRun {
    /// The shortest hold a learned rhythm may ask for (seconds): a blink-length touch is never a gesture.
    public static let minimumHold = 0.25
    /// The longest rest-and-rise window a learned rhythm may ask for: longer, and the user would wait too long
    /// between gestures.
    public static let maximumCalm = 1.5

    /// The user's rhythm for a gesture, from its two performances read with the new thresholds: a hold the
    /// shorter of them still makes (70 % of it, never above the config's nor below `minimumHold`), and, for a
    /// gesture with a rhythm guard, a rise window the slower of them fits (130 % of its rise, never below the
    /// config's). Nil where nothing changes: the config's values are already within the user's.
    ///
    /// Only a gesture that has the rhythm guard (`calm`) gets a shorter hold: the guard, not the hold, is then
    /// what keeps talking out (speech never rests before it rises), and `handsfree bench gestures` shows it.
    func rhythm(_ g: Gesture, _ performances: [[Sample]], press: Float, release: Float) -> (hold: Double?, calm: Double?) {
        var holds: [Double] = [], rises: [Double] = []
        for p in performances {
            // The hold: the longest stretch at or above press. The rise: from the last frame below release
            // before press was first reached, to that frame.
            var longest = 0.0, since: Double?
            for s in p {
                if s.v >= press { if since == nil { since = s.t }; longest = max(longest, s.t - (since ?? s.t)) } else { since = nil }
            }
            holds.append(longest)
            if let first = p.firstIndex(where: { $0.v >= press }),
               let low = p[..<first].lastIndex(where: { $0.v < release }) {
                rises.append(p[first].t - p[low].t)
            }
        }
        var hold: Double?, calm: Double?
        if g.calm > 0, let shorter = holds.min(), shorter > 0 {
            let h = max(Self.minimumHold, (shorter * 0.7 * 100).rounded() / 100)
            if h < g.hold { hold = h }
        }
        if g.calm > 0, let slower = rises.max() {
            let c = min(Self.maximumCalm, (slower * 1.3 * 100).rounded() / 100)
            if c > g.calm { calm = c }
        }
        return (hold, calm)
    }
}

/// Why a gesture calibration was refused; the thresholds in use stay.
public struct GestureCalibrationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with its figures: the screen words it in the user's language (`message` is English).
    public enum Reason: Sendable, Equatable {
        /// The face was lost while reading the neutral face (nil) or during a gesture (its label).
        case faceLost(during: String?)
        /// A gesture was held past `seconds`.
        case heldTooLong(gesture: String, seconds: Int)
        /// No gesture for `seconds`: the user kept still to stop.
        case nothingSeen(seconds: Int)
        /// The keymap binds no gesture a calibration can tune.
        case nothingToTune
        /// The run has not finished.
        case notFinished
        /// A gesture was not performed twice.
        case notTwice(gesture: String)
        /// A gesture rose only `rise` above the neutral face.
        case tooWeak(gesture: String, rise: Double)
        /// No gesture was seen at all.
        case noneSeen
    }
    public var reason: Reason
    public init(reason: Reason) { self.reason = reason }

    public var message: String {
        switch reason {
        case .faceLost(nil): "the face was lost while reading your neutral face; keep your face in view"
        case .faceLost(let label?): "the face was lost during \(label); keep your face in view"
        case let .heldTooLong(label, seconds): "\(label) was held past \(seconds) s; let go after each performance"
        case .nothingSeen(let seconds): "no gesture was seen for \(seconds) s, so the calibration stopped"
        case .nothingToTune: "the keymap binds no gesture that a calibration can tune"
        case .notFinished: "the calibration has not finished"
        case .notTwice(let label): "\(label) was not performed twice"
        case let .tooWeak(name, rise): String(format: "%@ rose only %.2f above your neutral face; perform it more clearly", name, rise)
        case .noneSeen: "no gesture was seen; the tracker may not send these shapes"
        }
    }
    public var description: String { message }
}
