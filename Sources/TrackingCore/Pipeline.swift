/// Where a frame came from in its source, for messages: `line 12`, `row 40`, `packet 7`.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public enum Unit: String, Sendable { case line, row, packet }
    public var unit: Unit
    public var index: Int
    public init(_ unit: Unit, _ index: Int) { self.unit = unit; self.index = index }
    public var description: String { "\(unit.rawValue) \(index)" }
}

/// Something wrong with one piece of input, with where it was.
///
/// Messages often quote the input, so their control characters are escaped here, once for every printer.
public struct FrameIssue: Sendable, Equatable, CustomStringConvertible {
    public var position: SourcePosition?
    public var message: String
    public init(_ position: SourcePosition?, _ message: String) {
        self.position = position; self.message = VisibleText.escaping(message)
    }
    public var description: String { position.map { "\($0): \(message)" } ?? message }
}

/// What a decoder yields: a frame, or a description of input it could not use.
public enum DecodedItem: Sendable, Equatable {
    case frame(TrackingFrame, SourcePosition?)
    case malformed(FrameIssue)
}

/// Settings of the whole tracking pipeline.
public struct PipelineSettings: Sendable, Equatable {
    public var smoothing: SmoothingSettings
    public var mapping: GazeMapping
    public var gestures: [GestureDefinition]
    /// Blend-shape and gaze values this far outside 0…1 are clamped (real ARKit output overshoots to about
    /// 1.08); values further out make the frame malformed.
    public var rangeTolerance: Float
    /// A frame at most this many seconds older than the last one is late (UDP reordering): dropped and
    /// counted. Further back, the source's clock has restarted.
    public var reorderTolerance: Double
    /// A step forward longer than this (seconds) is a jump of the source's clock, not a pause.
    public var maxForwardStep: Double

    public init(smoothing: SmoothingSettings = SmoothingSettings(), mapping: GazeMapping = GazeMapping(),
                gestures: [GestureDefinition] = [], rangeTolerance: Float = 0.25, reorderTolerance: Double = 0.5,
                maxForwardStep: Double = 5) {
        self.smoothing = smoothing; self.mapping = mapping; self.gestures = gestures
        self.rangeTolerance = rangeTolerance
        self.reorderTolerance = reorderTolerance; self.maxForwardStep = maxForwardStep
    }
}

/// Counts kept by a pipeline run.
public struct PipelineStats: Sendable, Equatable {
    /// Usable frames, with or without a face.
    public var frames = 0
    /// Frames on which the tracker reported no face.
    public var faceLost = 0
    /// Input that could not be used (bad syntax, bad values).
    public var malformed = 0
    /// Frames that came a little after a newer one (reordered datagrams): dropped.
    public var late = 0
    /// Jumps of the source's clock (a restarted tracker, a wild timestamp), each of which began a new epoch.
    public var clockJumps = 0
    /// Midnight wraps of a time-of-day clock, taken as a continuation.
    public var midnightWraps = 0
    /// Frames whose values overshot 0…1 slightly and were clamped.
    public var clamped = 0
    /// Recognised gestures by name.
    public var gestures: [String: Int] = [:]
    /// The first few problems, with their positions.
    public var issues: [FrameIssue] = []
    public static let maxIssues = 10

    public init() {}

    mutating func record(_ issue: FrameIssue) {
        malformed += 1
        note(issue)
    }

    /// Keeps an issue for the report without counting the input as malformed.
    mutating func note(_ issue: FrameIssue) {
        if issues.count < Self.maxIssues { issues.append(issue) }
    }
}

/// The whole tracking pipeline: validation, gaze mapping and smoothing, and gesture detectors.
///
/// It never reads a clock: all time comes from frames, so a replay runs exactly what a live session runs.
///
/// Time inside the pipeline (and in its events and `lastFrame`) is the source's clock made continuous: a
/// jump of the source's clock (backwards by more than `reorderTolerance`, or forward by more than
/// `maxForwardStep`) begins a new *epoch* — filters and detectors start afresh, so no gesture spans the
/// gap — and the new epoch's frames are placed just after the old epoch's last one. A time-of-day clock
/// passing midnight (Live Link Face's timecode) continues the epoch.
public struct Pipeline: Sendable {
    public private(set) var settings: PipelineSettings
    public private(set) var stats = PipelineStats()
    /// The smoothed gaze point after the last frame, nil with no face or no gaze.
    public private(set) var gaze: GazePoint?
    /// The pointer of the last frame before calibration, clamping and smoothing (what a calibration is fitted
    /// to): up to `GazeMapping.reach` past the screen's edges.
    public private(set) var rawPointer: GazePoint?
    /// The last usable frame (blend-shape values clamped, the gaze point as given), for meters.
    public private(set) var lastFrame: TrackingFrame?
    public private(set) var facePresent = false
    /// Bumped at each jump of the source's clock; 0 until the first.
    public private(set) var epoch = 0
    /// The continuous time of the last usable frame (the source's time plus the epoch's offset).
    public var time: Double? { lastFrame?.t }
    /// The time of a frame whose face gestures were stepped and whose dwell step is still to come.
    private var dwellDue: Double?

    private var filter: GazeFilter
    // Detectors live in one array per kind so each steps in place, without copying enum payloads.
    private var thresholds: [ThresholdDetector] = []
    /// Weak performances of the held threshold gestures (no maximum hold, no guard).
    private var weakWatches: [WeakPerformanceWatch] = []
    /// A weak performance that ended at the last frame (nil for most frames).
    public private(set) var weak: WeakPerformance?
    private var thresholdOwner: [Int] = []
    private var blinkCounters: [BlinkCountDetector] = []
    private var blinkOwner: [Int] = []
    private var dwells: [DwellDetector] = []
    private var dwellOwner: [Int] = []
    private let names: [String]
    private let lookbacks: [Double]
    private var onsetGaze: [GazePoint?]
    private var hadOnset: [Bool]
    private var history: [(t: Double, gaze: GazePoint)] = []
    private var historyIndex = 0
    private static let historyCapacity = 256
    /// The source's own timestamp of the last usable frame.
    private var lastSourceT: Double?
    /// Added to the source's timestamps to make them continuous across clock jumps and midnight.
    private var offset = 0.0
    static let day = 86_400.0
    /// Where a new epoch's first frame goes: just after the last frame of the old one.
    static let epochGap = 1.0 / 60
    /// Source times beyond this (about 31,700 years in seconds) are wild: a double cannot hold frame steps there.
    static let saneTime = 1e12

    /// Uses `calibration` for the pointer from the next frame on (nil: none).
    public mutating func calibrate(_ calibration: PointerCalibration?) {
        settings.mapping.calibration = calibration
    }

    /// Maps the pointer this way from the next frame on (a calibration, a recentred head, the head's reach),
    /// keeping the filter and the gesture detectors where they are.
    public mutating func remap(_ mapping: GazeMapping) {
        settings.mapping = mapping
    }

    /// Takes the head's pose in the last frame as pointing at the middle of the screen (head-only pointing);
    /// false when the source sends no head pose.
    @discardableResult
    public mutating func recentre() -> Bool {
        guard facePresent, let h = lastFrame?.head else { return false }
        settings.mapping.headCentre = HeadPose(yaw: h.yaw, pitch: h.pitch, roll: 0)
        return true
    }

    public init(_ settings: PipelineSettings) {
        self.settings = settings
        filter = GazeFilter(settings.smoothing)
        names = settings.gestures.map(\.name)
        lookbacks = settings.gestures.map(\.lookback)
        onsetGaze = Array(repeating: nil, count: settings.gestures.count)
        hadOnset = Array(repeating: false, count: settings.gestures.count)
        for (i, def) in settings.gestures.enumerated() {
            switch def.kind {
            case .threshold(let s):
                thresholds.append(ThresholdDetector(s)); thresholdOwner.append(i)
                if s.maxHold == nil && s.guards.isEmpty { weakWatches.append(WeakPerformanceWatch(name: def.name, s)) }
            case .blinkCount(let s): blinkCounters.append(BlinkCountDetector(s)); blinkOwner.append(i)
            case .dwell(let s): dwells.append(DwellDetector(s)); dwellOwner.append(i)
            }
        }
        history.reserveCapacity(Self.historyCapacity)
    }

    /// A pipeline with new settings that carries on the clock of `old` (its epoch, continuous time and
    /// counts), so rebuilding it for changed thresholds is not taken for a tracker restart. Filters and
    /// detectors start afresh.
    public init(_ settings: PipelineSettings, continuing old: Pipeline) {
        self.init(settings)
        stats = old.stats
        lastFrame = old.lastFrame
        epoch = old.epoch
        lastSourceT = old.lastSourceT
        offset = old.offset
    }

    /// Whether the focus is on a key that one ⌫ undoes (a letter of a text's keyboard): the threshold gestures
    /// with a `keyHold` then fire after that shorter hold. The screen's owner says so before each frame.
    public var onKey = false {
        didSet { if onKey != oldValue { for k in thresholds.indices { thresholds[k].onKey = onKey } } }
    }

    /// Progress 0…1 of each gesture under way, by name (only those above zero).
    public var progress: [(name: String, progress: Double)] {
        var out: [(Int, Double)] = []
        for (k, d) in thresholds.enumerated() where d.progress > 0 { out.append((thresholdOwner[k], d.progress)) }
        for (k, d) in blinkCounters.enumerated() where d.progress > 0 { out.append((blinkOwner[k], d.progress)) }
        for (k, d) in dwells.enumerated() where d.progress > 0 { out.append((dwellOwner[k], d.progress)) }
        return out.sorted { $0.0 < $1.0 }.map { (names[$0.0], $0.1) }
    }

    /// The target a dwell gesture is filling on, if any.
    public var dwellTarget: String? {
        dwells.first { $0.progress > 0 }?.target
    }

    /// Feeds one decoded item with no screen to dwell on; returns the gestures it completes.
    public mutating func step(_ item: DecodedItem) -> [GestureEvent] {
        let events = track(item)
        return events + dwell(on: nil)
    }

    /// Feeds one decoded item as far as a screen is needed: validation, the clock, gaze smoothing and the
    /// face gestures, which it returns. The owner of the screen then finds the target under `gaze` and
    /// completes the frame with `dwell(on:)`, so the gaze target is resolved once, by the screen's owner.
    public mutating func track(_ item: DecodedItem) -> [GestureEvent] {
        dwellDue = nil
        switch item {
        case .malformed(let issue):
            stats.record(issue)
            return []
        case .frame(let raw, let pos):
            guard var frame = validate(raw, pos), let t = continuousTime(raw.t, pos) else { return [] }
            frame.t = t
            return process(frame)
        }
    }

    /// Steps the dwell gestures with the target under the gaze of the frame `track` just took (nil: none);
    /// returns the dwells it completes. Suspended (the shell paused or not yet armed), dwell starts over.
    public mutating func dwell(on target: String?, suspended: Bool = false) -> [GestureEvent] {
        guard let t = dwellDue else { return [] }
        dwellDue = nil
        var events: [GestureEvent] = []
        for k in dwells.indices {
            if suspended { dwells[k].reset(); continue }
            if let hit = dwells[k].step(target: target, at: t) {
                events.append(fired(dwellOwner[k], at: t, onset: dwells[k].onset ?? t, target: hit))
            }
        }
        return events
    }

    /// Feeds one frame known to be well formed except for its values, which are still checked.
    public mutating func step(_ frame: TrackingFrame) -> [GestureEvent] { step(.frame(frame, nil)) }

    private mutating func validate(_ f: TrackingFrame, _ pos: SourcePosition?) -> TrackingFrame? {
        guard f.t.isFinite else {
            stats.record(FrameIssue(pos, "timestamp is not a finite number")); return nil
        }
        guard f.face else { return f }
        var out = f
        var clamped = false
        let tol = settings.rangeTolerance
        // Most frames are in range: one pass decides, and only the others are walked value by value.
        if !f.blend.allInUnitRange {
            for i in 0..<BlendShape.count {
                let v = f.blend.values[i]
                guard v.isFinite else {
                    stats.record(FrameIssue(pos, "\(BlendShape.allNames[i]) is not a finite number")); return nil
                }
                if v < 0 || v > 1 {
                    guard v >= -tol && v <= 1 + tol else {
                        stats.record(FrameIssue(pos, "\(BlendShape.allNames[i]) = \(v) is outside 0…1")); return nil
                    }
                    out.blend.set(index: i, min(1, max(0, v)))
                    clamped = true
                }
            }
        }
        if let g = f.gaze {
            guard g.x.isFinite, g.y.isFinite else {
                stats.record(FrameIssue(pos, "gaze is not a finite point")); return nil
            }
            let t = Double(tol)
            guard g.x >= -t, g.x <= 1 + t, g.y >= -t, g.y <= 1 + t else {
                stats.record(FrameIssue(pos, "gaze (\(g.x), \(g.y)) is outside 0…1")); return nil
            }
            // Kept as the tracker gave it: a calibration is fitted to the raw point, overshoot and all (a
            // tracker that reads 1.17 at the right edge must not look the same at every right-hand dot), and
            // the pointer is clamped to the screen after the mapping (`GazeMapping.onScreen`).
        }
        if let e = f.eyes, ![e.leftYaw, e.leftPitch, e.rightYaw, e.rightPitch].allSatisfy(\.isFinite) {
            stats.record(FrameIssue(pos, "eye angles are not finite numbers")); return nil
        }
        if let h = f.head, ![h.yaw, h.pitch, h.roll].allSatisfy(\.isFinite) {
            stats.record(FrameIssue(pos, "head angles are not finite numbers")); return nil
        }
        if clamped { stats.clamped += 1 }
        return out
    }

    /// Places a usable frame's source timestamp on the continuous clock; nil drops a late frame.
    ///
    /// A wild timestamp far in the future is a forward jump (a new epoch); the normal frames after it are
    /// then a backwards jump (another new epoch), so one bad timestamp costs a restart, never deafness.
    private mutating func continuousTime(_ t: Double, _ pos: SourcePosition?) -> Double? {
        guard let last = lastSourceT, let lastT = lastFrame?.t else {
            lastSourceT = t
            // The continuous clock starts at the source's time, unless that is so far out that steps of a
            // frame would be lost in rounding (a wild first timestamp): then at zero.
            offset = abs(t) < Self.saneTime ? 0 : -t
            return abs(t) < Self.saneTime ? t : 0
        }
        let step = t - last
        if Self.wrapsPastMidnight(from: last, to: t, within: settings.maxForwardStep) {
            offset += Self.day
            stats.midnightWraps += 1
        } else if (step < 0 && step >= -settings.reorderTolerance)
                    || Self.wrapsPastMidnight(from: t, to: last, within: settings.reorderTolerance) {
            // A reordered datagram, or one from before midnight arriving just after the wrap.
            stats.late += 1
            stats.note(FrameIssue(pos, "late frame dropped (\(t) after \(last))"))
            return nil
        } else if step < 0 || step > settings.maxForwardStep {
            stats.clockJumps += 1
            stats.note(FrameIssue(pos, "the source's clock jumped from \(last) to \(t): tracker restarted"))
            epoch += 1
            resetAll()
            facePresent = false
            // The new epoch's time is computed from the old one, not from `t`: `t + offset` would lose the
            // old time in rounding when `t` is wild (1e19).
            let mapped = lastT + Self.epochGap
            offset = mapped - t
            lastSourceT = t
            return mapped
        }
        lastSourceT = t
        return t + offset
    }

    /// Whether `to` follows `from` across midnight on a time-of-day clock, by at most `within` seconds.
    static func wrapsPastMidnight(from: Double, to: Double, within: Double) -> Bool {
        guard from < day + 1, to >= 0, to < within else { return false }
        let step = to + day - from
        return step >= 0 && step <= within
    }

    private mutating func process(_ frame: TrackingFrame) -> [GestureEvent] {
        stats.frames += 1
        weak = nil
        lastFrame = frame
        guard frame.face else {
            stats.faceLost += 1
            rawPointer = nil
            if facePresent { resetAll() }
            facePresent = false
            return []
        }
        facePresent = true
        let t = frame.t
        if let raw = settings.mapping.point(for: frame) {
            rawPointer = raw
            let g = filter.step(settings.mapping.onScreen(raw), at: t)
            gaze = g
            remember(t: t, gaze: g)
        } else {
            gaze = nil
            rawPointer = nil
        }
        var events: [GestureEvent] = []
        for k in thresholds.indices {
            let onset = thresholds[k].step(frame.blend, at: t)
            noteOnset(thresholdOwner[k], thresholds[k].onset)
            if let o = onset { events.append(fired(thresholdOwner[k], at: t, onset: o, target: nil)) }
        }
        for k in weakWatches.indices {
            if let w = weakWatches[k].step(frame.blend, at: t) { weak = w }
        }
        for k in blinkCounters.indices {
            let onset = blinkCounters[k].step(frame.blend, at: t)
            noteOnset(blinkOwner[k], blinkCounters[k].onset)
            if let o = onset { events.append(fired(blinkOwner[k], at: t, onset: o, target: nil)) }
        }
        dwellDue = t
        return events
    }

    private mutating func fired(_ i: Int, at t: Double, onset: Double, target: String?) -> GestureEvent {
        let g = onsetGaze[i] ?? gazeAt(onset - lookbacks[i])
        stats.gestures[names[i], default: 0] += 1
        onsetGaze[i] = nil
        hadOnset[i] = false
        return GestureEvent(name: names[i], t: t, onset: onset, gaze: g, target: target)
    }

    /// Remembers the gaze from just before a performance began, when it begins.
    private mutating func noteOnset(_ i: Int, _ onset: Double?) {
        if let o = onset {
            if !hadOnset[i] { onsetGaze[i] = gazeAt(o - lookbacks[i]); hadOnset[i] = true }
        } else if hadOnset[i] {
            hadOnset[i] = false
            onsetGaze[i] = nil
        }
    }

    private mutating func remember(t: Double, gaze: GazePoint) {
        if history.count < Self.historyCapacity {
            history.append((t, gaze))
        } else {
            history[historyIndex] = (t, gaze)
            historyIndex = (historyIndex + 1) % Self.historyCapacity
        }
    }

    /// The newest remembered gaze at or before `t` (the oldest one if the history is shorter).
    private func gazeAt(_ t: Double) -> GazePoint? {
        guard !history.isEmpty else { return gaze }
        let n = history.count
        var best: GazePoint?
        for k in 0..<n {
            // Walk from newest to oldest.
            let idx = (historyIndex - 1 - k + 2 * n) % n
            let e = history[n < Self.historyCapacity ? n - 1 - k : idx]
            best = e.gaze
            if e.t <= t { return e.gaze }
        }
        return best
    }

    private mutating func resetAll() {
        filter.reset()
        gaze = nil
        history.removeAll(keepingCapacity: true)
        historyIndex = 0
        for k in thresholds.indices { thresholds[k].reset() }
        for k in weakWatches.indices { weakWatches[k].reset() }
        for k in blinkCounters.indices { blinkCounters[k].reset() }
        for k in dwells.indices { dwells[k].reset() }
        for i in onsetGaze.indices { onsetGaze[i] = nil; hadOnset[i] = false }
    }
}
