import PtyHost
import Shell
import SystemIO

/// The Terminal screen's program in the event loop: its output, its end, its tty's modes, and the tmux
/// pane's captures, given to the reducer as `TerminalView`s at most once per displayed frame.
///
/// It never reads the state to decide anything: the program starts, follows the pane's size and is looked
/// at while the pane shows because the reducer asks, with
/// `Effect.terminal(.start/.resize/.showing)`, which `ShellRuntime.runEffects` hands to `TerminalLink`.
///
/// Reads are non-blocking and bounded per wake-up, so a child flooding output never holds the loop: gestures
/// and keys are read between two slices.
public struct TerminalSource: EventSource {
    public let link: TerminalLink
    /// The shortest time between two views (one displayed frame).
    public var frameInterval: Double
    /// Bytes of child output read per wake-up at most, and the time that may take: a flood is read in
    /// slices between which frames, keys and drawings get their turn.
    public var readLimit = 256 * 1024
    public var readBudget = 0.004
    /// How often a tmux target is captured again, and the tty's modes looked at without output.
    public var pollInterval = 0.25
    private var lastView = -Double.infinity
    private var lastPoll = -Double.infinity

    public init(_ link: TerminalLink, frameInterval: Double = 1.0 / 60) {
        self.link = link; self.frameInterval = frameInterval
    }

    public var descriptors: [Int32] { link.pane?.descriptors ?? [] }

    public func nextWake(now: Double) -> Double? {
        var next: Double?
        // Nothing to show before the program starts (the Terminal screen has not been opened): no wake-up,
        // or the loop would spin.
        if link.changed, link.isStarted { next = lastView + frameInterval }
        if link.pane?.hasPendingInput == true { next = min(next ?? .infinity, now + 0.005) }
        if link.showing, link.isStarted, link.pane?.wantsLooks == true { next = min(next ?? .infinity, lastPoll + pollInterval) }
        if let due = link.lookDue { next = min(next ?? .infinity, due) }
        return next
    }

    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        // The readable list as poll gave it (no copy at each wake-up), with any hung-up descriptor added.
        let ready = wake.readable.map { wake.hungUp.isEmpty ? $0 : $0 + wake.hungUp }
        link.pump(limit: readLimit, budget: readBudget, ready: ready)
        let echoDue = link.lookDue.map { wake.now >= $0 } ?? false
        if link.showing, wake.now - lastPoll >= pollInterval || echoDue {
            lastPoll = wake.now
            link.lookDue = nil
            link.look()
        }
        guard link.changed, link.isStarted, wake.now - lastView >= frameInterval else { return [] }
        link.changed = false
        lastView = wake.now
        return [.shell(.terminal(link.view()))]
    }
}
