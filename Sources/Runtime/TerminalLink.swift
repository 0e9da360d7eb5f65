import Localization
import PtyHost
import Shell
import SystemIO

/// The program the Terminal screen drives, through its output sink (a `TextSink`, which is a `PaneHost` too
/// when it shows the program: a child on a pty, a tmux pane that keys are sent to).
///
/// The runtime's effects (`TerminalRequest`) act on it; `TerminalSource` reads it in the event loop. This
/// keeps what is the same for every sink: keys that come before the start, scrolling back, the pane's size
/// and problem, when to look again, and turning a failed delivery into an event. A class, because both hold
/// the one program. The pane's size is not kept here: the state has it (`ShellState.terminalPane`), and each
/// request that needs it carries it.
public final class TerminalLink {
    /// Where keys go.
    public let sink: any TextSink
    /// What the pane shows, when the sink shows its program (nil: a desktop sink, the pane stays blank).
    public let pane: (any PaneHost)?
    /// Lines of scrollback the pane shows (0: live).
    public private(set) var scrolledBack = 0
    /// Why the program could not be started or looked at, shown in the pane.
    public var problem: UIMessage? { lookProblem ?? startProblem }
    /// Why the program could not be started or restarted; a restart that works clears it.
    private var startProblem: UIMessage?
    /// Why the last look failed; the next look that works clears it.
    private var lookProblem: UIMessage?
    /// The reducer asked for the start (the Terminal screen showed), and it was tried.
    public private(set) var isStarted = false
    /// The pane shows: the program is looked at between its own outputs only then.
    ///
    /// Not a second copy of the fact: the state's `terminalPane.showing` is it, and this is only the last
    /// command the reducer gave (`.terminal(.showing)`, which `terminalPaneRequests` returns whenever the
    /// state's flag changes, and nothing else sends). Event sources take no state, so `TerminalSource` reads
    /// this instead.
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

    public init(_ sink: some TextSink, clock: any ShellClock = LiveClock()) {
        self.sink = sink; pane = sink as? any PaneHost; self.clock = clock
    }

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
            return deliver("") { () throws(OutputSinkError) in try sink.pointer().point(event) }
        case .scroll(let to):
            scrolledBack = max(0, min(to, pane?.scrollback ?? 0))
        case .restart(let rows, let cols):
            guard sink.traits.contains(.ownsProgram) else { return [] }
            startProblem = nil
            let (r, c) = Self.paneSize(rows, cols)
            do throws(OutputSinkError) {
                guard let pane else { throw .notRestartable(sink.name) }
                try pane.restart(rows: r, cols: c)
            } catch { startProblem = error.message }
            scrolledBack = 0
        case .start(let r, let c):
            return start(rows: r, cols: c)
        case .resize(let r, let c):
            // The reducer asks only when the pane's size changed (`terminalPaneRequests`).
            let (r, c) = Self.paneSize(r, c)
            if isStarted { pane?.resize(rows: r, cols: c) }
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
            startProblem = error.message
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
            return [.output(.failed(reason: error.message, unsent: error.unsent(of: text)))]
        }
        if let delay = pane?.echoLookDelay { lookDue = clock.now() + delay }
        guard failing else { return [] }
        failing = false
        return [.output(.delivered)]
    }

    /// Reads what the program wrote, within `limit` bytes and `budget` seconds; marks the view changed if
    /// anything did.
    func pump(limit: Int, budget: Double = .infinity, ready: [Int32]? = nil) {
        if pane?.pump(limit: limit, budget: budget, ready: ready) == true { changed = true }
    }

    /// Looks at the program again, if the sink has something to look at; a look that fails is the pane's
    /// problem until one succeeds.
    func look() {
        guard isStarted, let pane, pane.wantsLooks else { return }
        do throws(OutputSinkError) {
            if try pane.look() { changed = true }
            if lookProblem != nil { lookProblem = nil; changed = true }
        } catch {
            if lookProblem != error.message { lookProblem = error.message; changed = true }
        }
    }

    /// The smallest pane a program is given: a pane laid out smaller still gets a usable terminal.
    static func paneSize(_ rows: Int, _ cols: Int) -> (rows: Int, cols: Int) { (max(2, rows), max(10, cols)) }

    /// The view the screen draws; a sink with nothing to show yet gives a blank cell (the screen draws it into
    /// the pane's own size, blank too).
    public func view() -> TerminalView {
        var v = pane?.view(scrolledBack: scrolledBack) ?? .blank(rows: 1, cols: 1, program: sink.name)
        v.program = sink.name
        v.sink = sink.traits
        v.problem = problem
        return v
    }
}
