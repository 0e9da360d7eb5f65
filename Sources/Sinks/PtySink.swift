#if canImport(Glibc)
import Glibc
#endif
import Localization
import PtyHost
import SystemIO

/// The program on the Terminal screen as a child of the shell on a pty, its screen emulated by libvterm
/// (`--type-into pty`, and the sink when the option is not given).
public final class PtySink: TextSink, PaneHost {
    public static let kind = OutputSinkKind(
        scheme: "pty", argument: nil, example: "pty",
        summary: N_("the default: a program of the shell's own, -- COMMAND, else the Terminal setting's, else the login shell")
    ) { _, setup in PtySink(argv: setup.command) }

    /// What runs: the program and its arguments.
    public let argv: [String]
    /// The hosted child, once started.
    public private(set) var hosted: HostedTerminal?
    /// Whether the child's tty hid input at the last look.
    private var lastHidden = false
    /// Times a pump's budget.
    private let clock: any ShellClock

    public init(argv: [String], clock: any ShellClock = LiveClock()) {
        self.argv = argv
        self.clock = clock
        name = argv.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    /// The user's login shell (`$SHELL`), else bash, else sh: what the Terminal tile runs.
    public static func userShell(environment: [String: String] = PtyProcess.currentEnvironment()) -> [String] {
        if let s = environment["SHELL"], !s.isEmpty, access(s, X_OK) == 0 { return [s] }
        return access("/bin/bash", X_OK) == 0 ? ["/bin/bash"] : ["/bin/sh"]
    }

    /// The command as the title shows it, arguments with spaces quoted; made once, since every view names it.
    public let name: String
    public var traits: SinkTraits { .childOnPty }

    public func start(rows: Int, cols: Int) throws(OutputSinkError) {
        do {
            hosted = try HostedTerminal(argv: argv, rows: rows, cols: cols)
        } catch {
            throw OutputSinkError(UIMessage("cannot start {program}: {reason}", ["program": name, "reason": "\(error)"]))
        }
    }

    /// Types through `TypedText`'s rule: line ends, tabs, ESC, BS and DEL as the keys libvterm encodes.
    public func type(_ text: String) throws(OutputSinkError) {
        let pieces = try TypedText.pieces(text)
        let child = try running()
        for piece in pieces {
            switch piece {
            case .text(let range): child.type(String(text.unicodeScalars[range]))
            case .key(let key, _): child.send(key)
            }
        }
    }

    public func press(_ key: TerminalKeyPress) throws(OutputSinkError) { try running().send(key) }

    /// The child, if keys can reach it; else why not, so nothing typed vanishes into a pty no one reads.
    private func running() throws(OutputSinkError) -> HostedTerminal {
        guard let hosted else { throw OutputSinkError(UIMessage("{program} is not running", ["program": name])) }
        guard hosted.exitStatus == nil else { throw OutputSinkError(UIMessage("{program} has ended", ["program": name])) }
        return hosted
    }

    public func view(scrolledBack: Int) -> TerminalView? {
        guard let hosted else { return nil }
        let snap = scrolledBack > 0 ? hosted.screen.view(scrolledBack: scrolledBack) : hosted.screen.snapshot()
        return TerminalView(snapshot: snap, program: name, scrollback: hosted.screen.scrollbackCount,
                            scrolledBack: scrolledBack, inputHidden: lastHidden, ended: hosted.exitMessage,
                            workingDirectory: hosted.exitStatus == nil ? hosted.process.foregroundWorkingDirectory : nil)
    }

    public var scrollback: Int { hosted?.screen.scrollbackCount ?? 0 }

    public func resize(rows: Int, cols: Int) {
        if let hosted, hosted.exitStatus == nil { hosted.resize(rows: rows, cols: cols) }
    }

    public func restart(rows: Int, cols: Int) throws(OutputSinkError) {
        // A child that never started is started now, at the pane's size.
        guard let hosted else { return try start(rows: rows, cols: cols) }
        // The pane may have changed size while the program had ended (an ended child is not resized): the new
        // one starts at the pane's size, not the old program's.
        if hosted.screen.rows != rows || hosted.screen.cols != cols { hosted.screen.resize(rows: rows, cols: cols) }
        do { try hosted.restart() } catch { throw OutputSinkError(UIMessage("cannot restart {program}: {reason}", ["program": name, "reason": "\(error)"])) }
    }

    public var descriptors: [Int32] { hosted?.pollDescriptors.map(\.fd) ?? [] }

    public var hasPendingInput: Bool { hosted?.process.hasPendingInput ?? false }

    /// Reads in slices of 64 KB, which libvterm takes in about 3 ms; reaps the child once it ended; notes
    /// a change of the tty's hidden-input mode.
    ///
    /// With `ready` known, the pty is read only when it was readable (or input waits for it) and the child
    /// reaped only when its pidfd was: a read that finds nothing and a waitpid at every wake-up were two
    /// system calls on each key's way to the screen.
    public func pump(limit: Int, budget: Double, ready: [Int32]?) -> Bool {
        guard let hosted else { return false }
        let process = hosted.process
        let readOutput = ready.map { $0.contains(process.outputFD) } ?? true
            || process.hasPendingInput
        let start = clock.now()
        var total = 0
        while readOutput, total < limit {
            let n = hosted.pump(limit: min(64 * 1024, limit - total))
            total += n
            if n == 0 || hosted.pumpDrained || clock.now() - start >= budget { break }
        }
        var any = total > 0
        // Without a pidfd (exitFD < 0) nothing says the child ended: ask at every wake-up.
        let mayHaveExited = process.exitFD < 0 || (ready.map { $0.contains(process.exitFD) } ?? true)
        if hosted.exitStatus == nil, mayHaveExited, hosted.reapIfExited() != nil {
            // What it wrote before it exited is still in the pty.
            hosted.pump(limit: limit)
            any = true
        }
        let hidden = hosted.exitStatus == nil && hosted.isInputHidden
        if hidden != lastHidden { lastHidden = hidden; any = true }
        return any
    }

    /// The tty's modes change without output (a password prompt's echo off): `pump` reads them, so the loop
    /// wakes for it while the child runs.
    public var wantsLooks: Bool { hosted.map { $0.exitStatus == nil } ?? false }

    /// Asks /proc again what it said of the foreground (its directory, whether it is ssh) once that is half a
    /// second old, here rather than in a key's view.
    public func look() throws(OutputSinkError) -> Bool {
        guard let hosted, hosted.exitStatus == nil else { return false }
        return hosted.process.refreshForegroundAnswers()
    }
}

extension TextSink where Self == PtySink {
    /// A child on a pty running `argv`: `TerminalLink(.child(argv: ["vim"]))`.
    public static func child(argv: [String]) -> PtySink { PtySink(argv: argv) }
}
