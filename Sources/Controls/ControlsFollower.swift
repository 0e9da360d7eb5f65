/// When to read a window's controls again while the Controls view follows the desktop: soon after the bus
/// says something changed (a short wait lets a burst of events, a page loading, end in one reading), and
/// every `poll` seconds whatever it says, for applications that send no events.
public struct ControlsFollower: Sendable, Equatable {
    /// Seconds of quiet after the last event before reading.
    public var quiet = 0.02
    /// The longest a reading waits for the events to stop.
    public var patience = 0.1
    /// Seconds between readings when no event comes.
    public var poll = 1.0

    private var lastRead = -Double.infinity
    private var lastEvent = -Double.infinity
    private var dirtySince: Double?

    public init() {}

    /// Notes `changes` events seen at `now`, and says whether to read now.
    public mutating func due(now: Double, changes: Int) -> Bool {
        if changes > 0 {
            lastEvent = now
            if dirtySince == nil { dirtySince = now }
        }
        if let since = dirtySince, now - lastEvent >= quiet || now - since >= patience { return true }
        return now - lastRead >= poll
    }

    /// A reading was made at `now`.
    public mutating func read(at now: Double) {
        lastRead = now
        dirtySince = nil
    }
}
