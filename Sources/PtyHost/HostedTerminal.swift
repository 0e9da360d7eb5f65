#if canImport(Glibc)
import Glibc
#endif
import Localization
import SystemIO

/// A child on a pty wired to an emulated screen: its output feeds the screen, the screen's replies and key
/// encodings go back to it.
///
/// The shell's event loop polls `pollDescriptors` and calls `pump` and `reapIfExited`; `run(until:timeout:)`
/// is a small loop of its own for tools and tests.
public final class HostedTerminal {
    /// The child now; `restart` replaces it.
    public private(set) var process: PtyProcess
    public let screen: VTermScreen
    /// Set once the pty reported that no process holds its slave any more (EIO/POLLHUP): stop polling it.
    public private(set) var isOutputClosed = false
    /// Bytes of child output fed to the screen so far.
    public private(set) var bytesRead = 0
    private let buffer: UnsafeMutableRawBufferPointer
    /// What `restart` starts again.
    public let argv: [String]
    private let environment: [String: String]
    private let workingDirectory: String?
    /// The process's clock (see `PtyProcess`).
    private let clock: any ShellClock

    /// Starts `argv` on a `rows`×`cols` pty with a screen of the same size.
    public init(argv: [String], environment: [String: String] = PtyProcess.childEnvironment(),
                workingDirectory: String? = nil, rows: Int, cols: Int, scrollbackLimit: Int = 10_000,
                readSlice: Int = 64 * 1024, clock: any ShellClock = LiveClock()) throws(PtyError) {
        process = try PtyProcess(argv: argv, environment: environment, workingDirectory: workingDirectory,
                                 rows: rows, cols: cols, clock: clock)
        self.clock = clock
        screen = VTermScreen(rows: rows, cols: cols, scrollbackLimit: scrollbackLimit)
        self.argv = argv
        self.environment = environment
        self.workingDirectory = workingDirectory
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, readSlice), alignment: 16)
    }

    deinit {
        process.terminate()
        buffer.deallocate()
    }

    /// Descriptors for the caller's poll: the master (POLLIN; POLLOUT while input waits) unless closed, and the
    /// pidfd (POLLIN once the child exited) until the child is reaped.
    public var pollDescriptors: [pollfd] {
        var fds: [pollfd] = []
        if !isOutputClosed, process.outputFD >= 0 {
            let events = Int16(POLLIN) | (process.hasPendingInput ? Int16(POLLOUT) : 0)
            fds.append(pollfd(fd: process.outputFD, events: events, revents: 0))
        }
        if process.exitFD >= 0 { fds.append(pollfd(fd: process.exitFD, events: Int16(POLLIN), revents: 0)) }
        return fds
    }

    /// Reads what the child wrote, up to `limit` bytes in slices, and feeds it to the screen; returns the count.
    ///
    /// Bounded so a child that floods output cannot hold the event loop: the rest waits for the next turn.
    /// A slice gathers several reads before it is fed: a pty gives at most 4 KB a read, and the screen's cost
    /// per feed (a plain run's skip redraws a screenful) is then paid once per slice, not once per 4 KB.
    @discardableResult
    public func pump(limit: Int = 256 * 1024) -> Int {
        process.flushInput()
        var total = 0
        var drained = false
        while total < limit, !isOutputClosed, !drained {
            let want = min(buffer.count, limit - total)
            var got = 0
            while got < want {
                switch process.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got..<want])) {
                case .bytes(let n): got += n
                case .wouldBlock: drained = true
                case .closed: isOutputClosed = true
                }
                if drained || isOutputClosed { break }
            }
            guard got > 0 else { break }
            total += got
            // A new line is where a command can have ended: the foreground's directory may have changed.
            if let base = buffer.baseAddress, memchr(base, 0x0a, got) != nil { process.workingDirectoryMayChange() }
            process.write(screen.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<got])))
        }
        bytesRead += total
        pumpDrained = drained
        return total
    }

    /// The last `pump` read until the pty had nothing more: another now would only find it empty.
    public private(set) var pumpDrained = false

    /// Whether what the user types now must stay hidden: the child's tty has echo off and canonical mode on
    /// (`read -s`, getpass, sudo, ssh asking for a password).
    ///
    /// Read live from the pty's termios (on Linux `tcgetattr` on the master gives the slave's flags), so ask at
    /// each keystroke or commit: nothing typed while it holds may be learned, suggested from or logged.
    public var isInputHidden: Bool { process.isPasswordPrompt }

    /// Sends a key to the child, encoded for its current modes.
    public func send(_ key: TerminalKey, modifiers: TerminalModifiers = []) {
        process.write(screen.press(key, modifiers: modifiers))
    }

    /// Sends a key-row press (a key with the latches that were on).
    public func send(_ press: TerminalKeyPress) {
        send(press.key, modifiers: press.modifiers)
    }

    /// Types text into the child as if keyed.
    public func type(_ text: String) {
        process.write(screen.type(text))
    }

    /// Resizes the screen and tells the child.
    public func resize(rows: Int, cols: Int) {
        screen.resize(rows: rows, cols: cols)
        process.resize(rows: rows, cols: cols)
    }

    /// Reaps the child if it exited; nil while it runs.
    @discardableResult
    public func reapIfExited() -> ExitStatus? { process.reapIfExited() }

    /// How the child ended, once reaped (`reapIfExited`, `run`); nil while it runs.
    public var exitStatus: ExitStatus? { process.exitStatus }

    /// A line for the pane once the child has ended and been reaped, naming the program; nil while it runs.
    ///
    /// `bash exited with status 0`, `vim was killed by signal 9 (SIGKILL)`, and for the codes shells use when a
    /// program cannot start: `nosuch exited with status 127 (command not found)`; translated where it is drawn.
    public var exitMessage: UIMessage? {
        guard let status = process.exitStatus else { return nil }
        return HostedTerminal.exitMessage(program: argv.first ?? "", status: status)
    }

    /// The message `exitMessage` gives for `program` ending with `status`: whole sentences, one for each case,
    /// so a translator sees each as it is shown (the signal's name is the kernel's, the same in every language).
    public static func exitMessage(program: String, status: ExitStatus) -> UIMessage {
        switch status {
        case .exited(let code):
            let values = ["program": program, "code": "\(code)"]
            return switch code {
            case 127: UIMessage("{program} exited with status {code} (command not found)", values)
            case 126: UIMessage("{program} exited with status {code} (cannot be run)", values)
            default: UIMessage("{program} exited with status {code}", values)
            }
        case .signaled(let sig, let core):
            var values = ["program": program, "signal": "\(sig)"]
            guard let name = signalName(sig) else {
                return core ? UIMessage("{program} was killed by signal {signal}, core dumped", values)
                            : UIMessage("{program} was killed by signal {signal}", values)
            }
            values["name"] = name
            return core ? UIMessage("{program} was killed by signal {signal} ({name}), core dumped", values)
                        : UIMessage("{program} was killed by signal {signal} ({name})", values)
        }
    }

    /// The usual name of a Linux signal number, for messages.
    static func signalName(_ sig: Int32) -> String? {
        let names: [Int32: String] = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
            8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM",
            15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ",
        ]
        return names[sig]
    }

    /// Ends the child if it still runs (and reaps it), then starts `argv` again on a new pty of the screen's size.
    ///
    /// The screen keeps what the old child left, so the user still sees it, but leaves the alternate screen and
    /// drops the modes the old child set (cursor keys, bracketed paste, mouse, colours); new output starts on a
    /// fresh line. On failure the old child stays ended and the error says why.
    public func restart() throws(PtyError) {
        process.terminate()
        process = try PtyProcess(argv: argv, environment: environment, workingDirectory: workingDirectory,
                                 rows: screen.rows, cols: screen.cols, clock: clock)
        isOutputClosed = false
        // Mode by mode rather than a reset (RIS would clear the screen). Leaving the alternate screen restores the
        // cursor saved on entry, so it is sent only when that screen is on. The scroll region is reset between a
        // cursor save and restore because DECSTBM homes the cursor.
        var reset = screen.isAltScreen ? "\u{1b}[?1049l" : ""
        reset += "\u{1b}[0m\u{1b}[?1l\u{1b}>\u{1b}[?2004l\u{1b}[?1000l\u{1b}[?1002l\u{1b}[?1003l\u{1b}[?1006l"
        reset += "\u{1b}[?7h\u{1b}[?25h\u{1b}7\u{1b}[r\u{1b}8"
        _ = screen.feed(Array(reset.utf8))
        if screen.snapshot().cursor.col != 0 { _ = screen.feed(Array("\r\n".utf8)) }
    }

    /// Pumps output until `done` holds or `timeout` seconds pass; true if `done` held. Real seconds whatever
    /// the process's clock: the child's output takes its own time.
    public func run(until done: (HostedTerminal) -> Bool, timeout: Double) -> Bool {
        let live = LiveClock()
        let deadline = live.now() + timeout
        while true {
            pump()
            if done(self) { return true }
            let now = live.now()
            if now >= deadline { return false }
            var fds = pollDescriptors
            if fds.isEmpty {
                // Nothing left to wait on: the child is reaped and its output drained.
                return done(self)
            }
            let r = live.poll(&fds, until: min(deadline, now + 0.05))
            // Without a pidfd nothing polls readable at the exit: ask at each turn.
            if process.exitFD < 0 || r > 0 && fds.contains(where: { $0.fd == process.exitFD && $0.revents != 0 }) {
                // Drain what the child wrote before it exited, then reap it.
                pump()
                reapIfExited()
            }
        }
    }
}
