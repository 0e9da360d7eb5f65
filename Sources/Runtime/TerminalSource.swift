import PtyHost
import Shell
import SystemIO

/// The program the Terminal screen drives, through its output sink (`OutputSink`: a child on a pty, a tmux
/// pane that keys are sent to).
///
/// The runtime's effects (`TerminalRequest`) act on it; `TerminalSource` reads it in the event loop. This
/// keeps what is the same for every sink: keys that come before the start, scrolling back, the pane's size
/// and problem, when to look again, and turning a failed delivery into an event. A class, because both hold
/// the one program. The pane's size is not kept here: the state has it (`ShellState.terminalPane`), and each
/// request that needs it carries it.
public final class TerminalLink {
    /// Where keys go and what the pane shows.
    public let sink: any OutputSink
    /// Lines of scrollback the pane shows (0: live).
    public private(set) var scrolledBack = 0
    /// Why the program could not be started or looked at, shown in the pane.
    public var problem: String? { lookProblem ?? startProblem }
    /// Why the program could not be started or restarted; a restart that works clears it.
    private var startProblem: String?
    /// Why the last look failed; the next look that works clears it.
    private var lookProblem: String?
    /// The reducer asked for the start (the Terminal screen showed), and it was tried.
    public private(set) var isStarted = false
    /// The pane shows: the program is looked at between its own outputs only then.
    public private(set) var showing = false
    /// Something changed since the last view was given.
    var changed = true
    /// When the program is to be looked at again: soon after a key, once it had time to echo it.
    var lookDue: Double?
    /// Keys and text that came before the program was started, delivered once it is.
    private var early: [TerminalRequest] = []
    /// A delivery failed and none has succeeded since: the next success is reported.
    private var failing = false
    /// Times `lookDue`; the loop that reads the link hands it its own (`ShellRuntime.run`).
    public var clock: any ShellClock

    public init(_ sink: some OutputSink, clock: any ShellClock = LiveClock()) { self.sink = sink; self.clock = clock }

    /// Carries out what the Terminal screen (or the reducer, for the pane) asked for; returns what the
    /// reducer must hear of it: a text or key that could not be delivered, or the first that was after that.
    @discardableResult
    public func apply(_ request: TerminalRequest) -> [ShellEvent] {
        switch request {
        case .type, .press, .point:
            // What the pane shows changes with the program's echo, not with the key: a view now would only
            // spend the display frame the echo needs. Only a pane scrolled back changes at once (to live).
            if scrolledBack > 0 { changed = true }
            guard isStarted else { early.append(request); return [] }
        case .scroll, .restart, .resize, .start:
            changed = true
        case .showing:
            break
        }
        switch request {
        case .type(let text):
            scrolledBack = 0
            return deliver(text) { () throws(OutputSinkError) in try sink.type(text) }
        case .press(let press):
            scrolledBack = 0
            return deliver("") { () throws(OutputSinkError) in try sink.press(press) }
        case .point(let event):
            return deliver("") { () throws(OutputSinkError) in try sink.point(event) }
        case .scroll(let to):
            scrolledBack = max(0, min(to, sink.scrollback))
        case .restart(let rows, let cols):
            guard sink.traits.contains(.ownsProgram) else { return [] }
            startProblem = nil
            let (r, c) = Self.paneSize(rows, cols)
            do throws(OutputSinkError) { try sink.restart(rows: r, cols: c) } catch { startProblem = error.description }
            scrolledBack = 0
        case .start(let r, let c):
            return start(rows: r, cols: c)
        case .resize(let r, let c):
            // The reducer asks only when the pane's size changed (`terminalPaneRequests`).
            let (r, c) = Self.paneSize(r, c)
            if isStarted { sink.resize(rows: r, cols: c) }
        case .showing(let on):
            showing = on
        }
        return []
    }

    /// Starts the sink at the pane's size, once, takes a first look, and delivers what was typed before.
    private func start(rows: Int, cols: Int) -> [ShellEvent] {
        guard !isStarted else { return apply(.resize(rows: rows, cols: cols)) }
        isStarted = true
        changed = true
        let (r, c) = Self.paneSize(rows, cols)
        do throws(OutputSinkError) {
            try sink.start(rows: r, cols: c)
        } catch {
            startProblem = error.description
        }
        look()
        let waiting = early
        early = []
        return waiting.flatMap { apply($0) }
    }

    /// Sends text (or a key, with no text) through the sink; a failure becomes an event that keeps the text.
    private func deliver(_ text: String, _ send: () throws(OutputSinkError) -> Void) -> [ShellEvent] {
        do throws(OutputSinkError) {
            try send()
        } catch {
            failing = true
            return [.output(.failed(reason: error.description, unsent: error.unsent(of: text)))]
        }
        if let delay = sink.echoLookDelay { lookDue = clock.now() + delay }
        guard failing else { return [] }
        failing = false
        return [.output(.delivered)]
    }

    /// Reads what the program wrote, within `limit` bytes and `budget` seconds; marks the view changed if
    /// anything did.
    func pump(limit: Int, budget: Double = .infinity, ready: [Int32]? = nil) {
        if sink.pump(limit: limit, budget: budget, ready: ready) { changed = true }
    }

    /// Looks at the program again, if the sink has something to look at; a look that fails is the pane's
    /// problem until one succeeds.
    func look() {
        guard isStarted, sink.wantsLooks else { return }
        do throws(OutputSinkError) {
            if try sink.look() { changed = true }
            if lookProblem != nil { lookProblem = nil; changed = true }
        } catch {
            if lookProblem != error.description { lookProblem = error.description; changed = true }
        }
    }

    /// The smallest pane a program is given: a pane laid out smaller still gets a usable terminal.
    static func paneSize(_ rows: Int, _ cols: Int) -> (rows: Int, cols: Int) { (max(2, rows), max(10, cols)) }

    /// The view the screen draws; a sink with nothing to show yet gives a blank cell (the screen draws it into
    /// the pane's own size, blank too).
    public func view() -> TerminalView {
        var v = sink.view(scrolledBack: scrolledBack) ?? .blank(rows: 1, cols: 1, program: sink.name)
        v.program = sink.name
        v.sink = sink.traits
        v.problem = problem
        return v
    }
}

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

    public var descriptors: [Int32] { link.sink.descriptors }

    public func nextWake(now: Double) -> Double? {
        var next: Double?
        // Nothing to show before the program starts (the Terminal screen has not been opened): no wake-up,
        // or the loop would spin.
        if link.changed, link.isStarted { next = lastView + frameInterval }
        if link.sink.hasPendingInput { next = min(next ?? .infinity, now + 0.005) }
        if link.showing, link.isStarted, link.sink.wantsLooks { next = min(next ?? .infinity, lastPoll + pollInterval) }
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
