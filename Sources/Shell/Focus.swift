/// Tracks which target has focus from where the gaze falls, forgiving short glances away.
///
/// Gaze jitters and people glance at the status line; dropping focus the moment the gaze leaves a target
/// would make gestures act on nothing. Focus moves at once to another target, but only drops to none after
/// the gaze has been off every target for longer than `grace` seconds.
public struct FocusTracker: Sendable, Equatable {
    public private(set) var focused: String?
    /// Seconds the focus survives the gaze resting on no target.
    public var grace: Double
    private var lastOnTarget: Double = -.infinity

    public init(grace: Double = 0.3) { self.grace = grace }

    /// The gaze is on `target` (nil: on no target) at time `t`.
    public mutating func gaze(on target: String?, at t: Double) {
        if let target {
            focused = target
            lastOnTarget = t
        } else if focused != nil, t - lastOnTarget > grace {
            focused = nil
        }
    }

    /// Time passes with no gaze sample (the source has no gaze, or the face is lost): focus stays, so a
    /// helper's keyboard focus is not dropped by a tracker that sends no gaze.
    public mutating func set(_ target: String?, at t: Double) {
        focused = target
        lastOnTarget = t
    }

    /// Drops focus if its target no longer exists (after a screen change or a layout change).
    public mutating func validate(_ map: HitMap) {
        if let f = focused, map.target(id: f) == nil { focused = nil }
    }
}

/// Hearing the focus: the label of the target the focus settles on is said once, for a user who cannot read
/// the screen.
///
/// The focus must rest on a target for `settle` seconds first, so a gaze sweeping across the keyboard stays
/// quiet. A label replaces a label still being said, but never cuts off the user's own words: it waits until
/// they end.
public struct FocusVoice: Sendable, Equatable {
    public static let settle = 0.25
    var candidate: String?
    var since = 0.0
    /// The target whose label was said last (nil once the focus is lost, so coming back says it again).
    public private(set) var said: String?
    /// What the speaker says is a focus label (not the user's words), so a new label may replace it.
    var sayingLabel = false

    public init() {}

    /// The label to say now that the focus is on `focused` at `t`; `allowed` false keeps a target's label
    /// unsaid (the keys at a password prompt).
    mutating func update(focused: Target?, at t: Double, speaking: Bool, allowed: (Target) -> Bool) -> String? {
        guard let f = focused else { candidate = nil; said = nil; return nil }
        if f.id != candidate { candidate = f.id; since = t }
        guard f.id != said, t - since >= Self.settle, !(speaking && !sayingLabel) else { return nil }
        said = f.id
        let label = f.label.trimmingSpaces
        guard allowed(f), !label.isEmpty else { return nil }
        sayingLabel = true
        return label
    }

    /// Something other than a label was asked to be said: the next label waits for it to end.
    mutating func userSpeech() { sayingLabel = false }
}

/// Keyboard focus movement: the nearest target in a direction.
public enum FocusMover {
    /// The target to move to from `current` when pressing an arrow; wraps to the first target when none is focused.
    public static func move(from current: String?, _ key: Key, in map: HitMap) -> String? {
        guard let cur = current.flatMap({ map.target(id: $0) }) else { return map.targets.first?.id }
        let c = cur.rect.center
        var best: (Target, Int)?
        for t in map.targets where t.id != cur.id {
            let p = t.rect.center
            let dx = p.x - c.x, dy = p.y - c.y
            // Cells are about twice as tall as wide; weigh rows so "down" does not prefer a far-off column.
            let primary: Int, secondary: Int
            switch key {
            case .right: guard dx > 0, t.rect.x >= cur.rect.x + 1 else { continue }; primary = dx; secondary = abs(dy) * 2
            case .left: guard dx < 0, t.rect.x <= cur.rect.x - 1 else { continue }; primary = -dx; secondary = abs(dy) * 2
            case .down: guard dy > 0, t.rect.y >= cur.rect.y + 1 else { continue }; primary = dy * 2; secondary = abs(dx)
            case .up: guard dy < 0, t.rect.y <= cur.rect.y - 1 else { continue }; primary = -dy * 2; secondary = abs(dx)
            default: return current
            }
            let score = primary + 2 * secondary
            if score < (best?.1 ?? .max) { best = (t, score) }
        }
        return best?.0.id ?? cur.id
    }

    /// The next or previous target in reading order, wrapping.
    public static func step(from current: String?, by delta: Int, in map: HitMap) -> String? {
        let ts = map.targets
        guard !ts.isEmpty else { return nil }
        guard let i = ts.firstIndex(where: { $0.id == current }) else { return delta >= 0 ? ts.first?.id : ts.last?.id }
        return ts[((i + delta) % ts.count + ts.count) % ts.count].id
    }
}
