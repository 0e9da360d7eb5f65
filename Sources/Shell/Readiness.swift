import Config
import Localization
import TrackingCore

/// Whether face gestures may act: safe start (a still face first) and the hands-free pause.
///
/// Nothing the face does acts until a face has been seen near neutral — no bound gesture's shape at or
/// above its release threshold — for the keymap's `still_face_ms`: after start, after the face was lost and
/// after the tracker restarted. Pure: time is the frames' time.
public struct Readiness: Sendable, Equatable {
    /// A still face has been seen for long enough since the last start, face loss or restart.
    public private(set) var armed = false
    /// Gestures and voice commands are suspended, all but resume.
    public internal(set) var paused = false
    /// The tracking epoch of the last frame (the pipeline bumps it when the source's clock jumps).
    public private(set) var epoch = 0
    /// When the last clock jump was seen, on the frames' clock.
    public private(set) var restartedAt: Double?
    /// Late frames the pipeline dropped so far.
    public private(set) var lateFrames = 0
    private var stillSince: Double?

    /// Whether gestures act now (armed and not paused); a gesture's fill is drawn on its target only then.
    public var acting: Bool { armed && !paused }

    /// How long "tracker restarted" stays on the status line (seconds of frame time).
    public static let restartNoticeSeconds = 4.0

    public init() {}

    /// Takes one frame's sample; `neutral` says no bound gesture's shape is pressed.
    mutating func update(_ s: TrackingSample, neutral: Bool, stillFor: Double) {
        lateFrames = s.lateFrames
        if s.epoch != epoch {
            epoch = s.epoch
            restartedAt = s.t
            disarm()
        }
        guard s.face else { disarm(); return }
        guard !armed else { return }
        guard neutral else { stillSince = nil; return }
        let since = stillSince ?? s.t
        stillSince = since
        if s.t - since >= stillFor { armed = true }
    }

    mutating func disarm() {
        armed = false
        stillSince = nil
    }

    /// Whether "tracker restarted" is still shown at time `now`.
    public func showsRestart(at now: Double) -> Bool {
        restartedAt.map { now - $0 < Self.restartNoticeSeconds } ?? false
    }
}

extension Action {
    /// Actions that still work while the shell is paused.
    var worksWhilePaused: Bool { self == .resume || self == .togglePause }
}

extension ShellState {
    /// Whether the keymap binds the gesture anywhere (global or on any screen). Looked up rather than
    /// collected into a set: this runs on every frame.
    func binds(gesture name: String) -> Bool {
        keymap.global.gestures[name] != nil || keymap.screens.values.contains { $0.gestures[name] != nil }
            || keymap.terminal.gestures[name] != nil || keymap.desktop.gestures[name] != nil
    }

    /// Whether a gesture that could act now is being made: a bound shape at or above its release threshold,
    /// not counting the jaw while the microphone is open (talking moves it, and jaw gestures are ignored then).
    /// While one is, the focus and the desktop pointer stay where the gesture began: the gaze dips as the jaw
    /// opens and jumps as the eyes close.
    func isMakingGesture(_ b: BlendShapes) -> Bool {
        let jawAside = micOpen || (talking && settings.holdMouthWhileTalking)
        // Through the buffer: a `for def in gestures` copies each definition out, its arrays retained.
        return gestures.withUnsafeBufferPointer { defs in
            defs.contains { $0.isRaised(b, jawAside: jawAside) && binds(gesture: $0.name) }
        }
    }

    /// Whether no bound gesture's shape is at or above its release threshold in `b`.
    func isNeutral(_ b: BlendShapes) -> Bool {
        // The binding is looked up only for a raised shape: a still face (most frames) costs no lookup.
        gestures.withUnsafeBufferPointer { defs in
            !defs.contains { $0.isRaised(b, jawAside: false) && binds(gesture: $0.name) }
        }
    }

    /// Pauses or resumes: while paused only resume acts; dictation and a command listen end.
    mutating func setPaused(_ on: Bool) -> [Effect] {
        guard on != readiness.paused else { return [] }
        readiness.paused = on
        var effects = [record(self, on ? "pause" : "resume", nil)]
        revision &+= 1
        if on {
            listening = false
            if dictating { dictating = false; effects.append(.stopDictation) }
        }
        return effects
    }
}

// MARK: - On screen

extension ShellState {
    /// What the status line says about safe start, the pause, a tracker restart and late frames; nil when
    /// there is nothing to say.
    var readinessLabel: (text: String, warn: Bool)? {
        var parts: [String] = []
        let c = catalog
        if readiness.paused { parts.append(c.tr("⏸ PAUSED")) }
        let restarted = readiness.showsRestart(at: now), waiting = !readiness.armed && tracking.framesSeen > 0
        // Short enough to fit beside a long source name at 100 columns.
        if restarted { parts.append(waiting ? c.tr("tracker restarted, hold still") : c.tr("tracker restarted")) }
        else if waiting { parts.append(c.tr("waiting for a still face")) }
        if readiness.lateFrames > 0 { parts.append(c.tr("{count} late dropped", ["count": "\(readiness.lateFrames)"])) }
        if talking && settings.holdMouthWhileTalking && !micOpen { parts.append(c.tr("talking: mouth waits")) }
        guard !parts.isEmpty else { return nil }
        let warn = readiness.paused || !readiness.armed || readiness.showsRestart(at: now)
        return (parts.joined(separator: " · "), warn)
    }

    /// How to resume, from the keymap: "raise both eyebrows, hold 2 s or say “resume listening”".
    var resumeHint: String {
        var ways: [String] = []
        let (gestures, voice) = keymap.bindings(screen: top.name)
        if let name = gestures.first(where: { $0.1.worksWhilePaused })?.0 {
            ways.append(GestureText.describe(named: name, in: self.gestures, catalog))
        }
        if let v = voice.first(where: { $0.1 == .resume })?.0 ?? voice.first(where: { $0.1.worksWhilePaused })?.0 {
            ways.append(catalog.tr("say “{phrase}”", ["phrase": v]))
        }
        if ways.count == 2 { return catalog.tr("{first} or {second}", ["first": ways[0], "second": ways[1]]) }
        return ways.first ?? catalog.tr("this keymap has no resume binding")
    }
}

/// Draws the status line's readiness part from `x`; returns where the next part starts.
func drawReadiness(_ g: inout CellGrid, _ label: (text: String, warn: Bool)?, x: Int, y: Int) -> Int {
    guard let (text, warn) = label else { return x }
    let style = warn ? Style(fg: .black, bg: .yellow, attrs: .bold) : Theme.status
    var nx = x + g.text(text, x: x, y: y, style: style)
    nx += g.text(" │ ", x: nx, y: y, style: Theme.status)
    return nx
}

/// While paused, a banner across the top of the body says so and how to resume, on a second row when the
/// way to resume does not fit on one.
func drawPauseBanner(_ g: inout CellGrid, _ s: ShellState) {
    guard s.readiness.paused, g.height > statusRows + 3 else { return }
    let style = Style(fg: .black, bg: .yellow, attrs: .bold)
    let rows = Canvas.wrap(s.catalog.tr("⏸ PAUSED: only resume works. To resume, {how}.", ["how": s.resumeHint]), width: g.width - 2).prefix(2)
    for (i, row) in rows.enumerated() {
        g.fill(Rect(x: 0, y: 1 + i, w: g.width, h: 1), " ", style: style)
        g.text(row, x: 1, y: 1 + i, style: style)
    }
}

extension GestureDefinition {
    /// Whether the gesture's shape is at or above its release threshold in `b`; `jawAside` leaves out a
    /// threshold gesture on the jaw (talking moves it).
    func isRaised(_ b: BlendShapes, jawAside: Bool) -> Bool {
        switch kind {
        case .threshold(let spec):
            return spec.signal.value(b) >= spec.release && !(jawAside && spec.signal.shapes.contains(.jawOpen))
        case .blinkCount(let spec): return spec.blinkLevel(b) >= spec.release
        case .dwell: return false
        }
    }
}
