#if canImport(Glibc)
import Glibc
#endif
import PtyHost
import Shell
import SystemIO

/// The program the Terminal screen drives: a child on a pty emulated by libvterm, or a tmux pane that keys
/// are sent to (`--type-into tmux:TARGET`).
///
/// The runtime's effects (`TerminalRequest`) act on it; `TerminalSource` reads it in the event loop. A class,
/// because both hold the one program.
public final class TerminalLink {
    /// How the program is reached.
    public enum Target: Sendable {
        /// A child started on a pty with this program and its arguments.
        case child(argv: [String])
        /// An existing tmux pane.
        case tmux(TmuxSink)
    }

    public let target: Target
    /// The hosted child, once started.
    public private(set) var hosted: HostedTerminal?
    /// Lines of scrollback the pane shows (0: live).
    public private(set) var scrolledBack = 0
    /// The pane's size, as the screen laid it out.
    public private(set) var rows = 24, cols = 80
    /// Why the program could not be started or reached, shown in the pane.
    public private(set) var problem: String?
    /// Text that could not be delivered to a closed tmux target.
    public private(set) var unsent = ""
    /// The last tmux capture (tmux mode).
    private var captured: TerminalSnapshot?
    /// The tmux pane's working directory at the last capture.
    private var capturedDirectory: String?
    /// Something changed since the last view was given.
    var changed = true
    /// Whether the child's tty hid input at the last look.
    var lastHidden = false

    public init(_ target: Target) { self.target = target }

    /// The user's login shell (`$SHELL`), else bash, else sh: what the Terminal tile runs.
    public static func userShell(environment: [String: String] = PtyProcess.currentEnvironment()) -> [String] {
        if let s = environment["SHELL"], !s.isEmpty, access(s, X_OK) == 0 { return [s] }
        return access("/bin/bash", X_OK) == 0 ? ["/bin/bash"] : ["/bin/sh"]
    }

    /// What the title and info line call the program.
    public var programName: String {
        switch target {
        case .child(let argv): return argv.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        case .tmux(let sink): return "tmux \(sink.target)"
        }
    }

    public var isStarted: Bool { hosted != nil || problem != nil || captured != nil }

    /// Starts the child (or checks the tmux target) at the pane's size, once.
    public func start(rows: Int, cols: Int) {
        guard !isStarted else { return }
        self.rows = max(2, rows); self.cols = max(10, cols)
        changed = true
        switch target {
        case .child(let argv):
            do {
                hosted = try HostedTerminal(argv: argv, rows: self.rows, cols: self.cols)
            } catch {
                problem = "cannot start \(programName): \(error)"
            }
        case .tmux(let sink):
            refreshCapture(sink)
        }
        let waiting = early
        early = []
        for r in waiting { apply(r) }
    }

    /// Keys and text that came before the program was started, delivered once it is.
    private var early: [TerminalRequest] = []

    /// Carries out what the Terminal screen asked for.
    public func apply(_ request: TerminalRequest) {
        switch request {
        case .type, .press:
            // What the pane shows changes with the program's echo, not with the key: a view now would only
            // spend the display frame the echo needs. Only a pane scrolled back changes at once (to live).
            if scrolledBack > 0 { changed = true }
        case .scroll, .restart, .resize:
            changed = true
        }
        if !isStarted {
            switch request {
            case .type, .press: early.append(request); return
            default: break
            }
        }
        switch request {
        case .type(let text):
            scrolledBack = 0
            switch target {
            case .child: hosted?.type(text)
            case .tmux(let sink):
                do throws(TmuxSinkError) {
                    try sink.send(text: text)
                    sent()
                } catch {
                    // Kept and shown, so nothing the user typed is lost with a closed target.
                    unsent += text
                    problem = error.description
                    changed = true
                }
            }
        case .press(let press):
            scrolledBack = 0
            switch target {
            case .child: hosted?.send(press)
            case .tmux(let sink):
                do throws(TmuxSinkError) {
                    try sink.send(press)
                    sent()
                } catch {
                    problem = error.description
                    changed = true
                }
            }
        case .scroll(let to):
            scrolledBack = max(0, min(to, hosted?.screen.scrollbackCount ?? 0))
        case .restart:
            guard case .child = target else { return }
            if let hosted {
                do { try hosted.restart() } catch { problem = "cannot restart \(programName): \(error)" }
            } else {
                problem = nil
                start(rows: rows, cols: cols)
            }
            scrolledBack = 0
        case .resize(let r, let c):
            let r = max(2, r), c = max(10, c)
            guard r != rows || c != cols else { return }
            rows = r; cols = c
            if let hosted, hosted.exitStatus == nil { hosted.resize(rows: r, cols: c) }
        }
    }

    /// When the tmux pane is to be captured again: soon after a key, once its program had time to echo it.
    var captureDue: Double?

    /// A key or text reached the tmux target: a problem it had is over, and its echo is worth a look.
    private func sent() {
        if problem != nil { problem = nil; changed = true }
        captureDue = monotonicSeconds() + 0.02
    }

    /// Reads what the child wrote (at most `limit` bytes, and no longer than `budget` seconds, in slices of
    /// 64 KB, which libvterm takes in about 3 ms),
    /// reaps it once it ended; marks the view changed if anything did.
    func pump(limit: Int, budget: Double = .infinity) {
        guard let hosted else { return }
        let start = monotonicSeconds()
        var total = 0
        while total < limit {
            let n = hosted.pump(limit: min(64 * 1024, limit - total))
            total += n
            if n == 0 || monotonicSeconds() - start >= budget { break }
        }
        var any = total > 0
        if hosted.exitStatus == nil, hosted.reapIfExited() != nil {
            // What it wrote before it exited is still in the pty.
            hosted.pump(limit: limit)
            any = true
        }
        let hidden = hosted.exitStatus == nil && hosted.isInputHidden
        if hidden != lastHidden { lastHidden = hidden; any = true }
        if any { changed = true }
    }

    /// Captures the tmux pane again; marks the view changed if what it shows did.
    func refreshCapture(_ sink: TmuxSink) {
        do throws(TmuxSinkError) {
            let (snap, cwd) = try sink.capture()
            if snap != captured { captured = snap; changed = true }
            if cwd != capturedDirectory { capturedDirectory = cwd; changed = true }
            if problem != nil && unsent.isEmpty { problem = nil; changed = true }
        } catch {
            if problem != error.description { problem = error.description; changed = true }
        }
    }

    /// The view the screen draws.
    public func view() -> TerminalView {
        var v: TerminalView
        if let hosted {
            let snap = scrolledBack > 0 ? hosted.screen.view(scrolledBack: scrolledBack) : hosted.screen.snapshot()
            v = TerminalView(snapshot: snap, program: programName, scrollback: hosted.screen.scrollbackCount,
                             scrolledBack: scrolledBack, inputHidden: lastHidden, ended: hosted.exitMessage,
                             workingDirectory: hosted.exitStatus == nil ? hosted.process.foregroundWorkingDirectory : nil)
        } else if let captured {
            v = TerminalView(snapshot: captured, program: programName, isTmux: true, workingDirectory: capturedDirectory)
        } else {
            v = .blank(rows: rows, cols: cols, program: programName)
            if case .tmux = target { v.isTmux = true }
        }
        v.problem = problem
        v.unsent = unsent
        return v
    }
}

/// The Terminal screen's program in the event loop: its output, its end, its tty's modes, and the tmux
/// pane's captures, given to the reducer as `TerminalView`s at most once per displayed frame.
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
    /// The Terminal screen is showing: only then is the program started and its pane kept in size.
    private var showing = false

    public init(_ link: TerminalLink, frameInterval: Double = 1.0 / 60) {
        self.link = link; self.frameInterval = frameInterval
    }

    public var descriptors: [Int32] {
        guard let h = link.hosted else { return [] }
        return h.pollDescriptors.map(\.fd)
    }

    public func nextWake(now: Double) -> Double? {
        var next: Double?
        // Nothing to show before the program starts (the Terminal screen has not been opened): no wake-up,
        // or the loop would spin.
        if link.changed, link.isStarted { next = lastView + frameInterval }
        if let h = link.hosted, h.process.hasPendingInput { next = min(next ?? .infinity, now + 0.005) }
        if showing, link.hosted?.exitStatus == nil { next = min(next ?? .infinity, lastPoll + pollInterval) }
        if let due = link.captureDue { next = min(next ?? .infinity, due) }
        return next
    }

    public mutating func events(_ wake: Wakeup, state: ShellState) -> [LoopEvent] {
        link.pump(limit: readLimit, budget: readBudget)
        let echoDue = link.captureDue.map { wake.now >= $0 } ?? false
        if showing, wake.now - lastPoll >= pollInterval || echoDue {
            lastPoll = wake.now
            link.captureDue = nil
            if case .tmux(let sink) = link.target { link.refreshCapture(sink) }
        }
        guard link.changed, link.isStarted, wake.now - lastView >= frameInterval else { return [] }
        link.changed = false
        lastView = wake.now
        return [.shell(.terminal(link.view()))]
    }

    /// Starts the program when the Terminal screen first shows, and keeps the pty the size of the pane.
    public mutating func observe(_ state: ShellState) {
        showing = state.top.name == "terminal" && !state.tooSmall
        guard showing, let pane = state.hitMap.target(id: TerminalScreen.paneID)?.rect else { return }
        if !link.isStarted {
            link.start(rows: pane.h, cols: pane.w)
        } else if pane.h != link.rows || pane.w != link.cols {
            link.apply(.resize(rows: pane.h, cols: pane.w))
        }
    }
}
