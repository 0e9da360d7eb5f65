import TrackingCore

/// When each frame of a recording is due on the wall clock, at the recording's own pace times `speed`.
///
/// Pure: the caller says what time it is. `replay` and the live shell's replay both pace with it. A jump
/// forward in a recording's timestamps waits at most `maxWait` seconds and a step back none, after which the
/// recording's pace carries on from there, so a damaged or restarted recording can never stall a replay.
public struct Pacer: Sendable {
    /// Wall seconds per source second's inverse: 2 plays twice as fast; nil plays as fast as possible.
    public let speed: Double?
    /// The longest wait between two frames, whatever their timestamps say.
    public static let maxWait = 5.0
    private var anchor: (source: Double, wall: Double)?
    private var lastDue = -Double.infinity

    public init(speed: Double?) {
        self.speed = speed.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// The wall time at which the next frame, stamped `t`, is due; `now` is the wall time of asking. Call it
    /// once per frame, in order.
    public mutating func due(_ t: Double, now: Double) -> Double {
        guard let speed, t.isFinite else { return now }
        guard let a = anchor else {
            anchor = (t, now)
            lastDue = now
            return now
        }
        var due = a.wall + (t - a.source) / speed
        if due < lastDue || due > lastDue + Self.maxWait {
            due = min(max(due, lastDue), lastDue + Self.maxWait)
            anchor = (t, due)
        }
        lastDue = due
        return due
    }
}
