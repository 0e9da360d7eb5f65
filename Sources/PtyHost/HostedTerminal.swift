#if canImport(Glibc)
import Glibc
#endif

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
    /// Bytes of child output fed to the screen so far (what a flood gathered counts once fed).
    public private(set) var bytesRead = 0
    private let buffer: UnsafeMutableRawBufferPointer
    /// What `restart` starts again.
    public let argv: [String]
    private let environment: [String: String]
    private let workingDirectory: String?

    /// Starts `argv` on a `rows`×`cols` pty with a screen of the same size.
    public init(argv: [String], environment: [String: String] = PtyProcess.childEnvironment(),
                workingDirectory: String? = nil, rows: Int, cols: Int, scrollbackLimit: Int = 10_000,
                readSlice: Int = 64 * 1024) throws(PtyError) {
        process = try PtyProcess(argv: argv, environment: environment, workingDirectory: workingDirectory,
                                 rows: rows, cols: cols)
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

    /// Descriptors for the caller's poll: the master (POLLIN; POLLOUT while input waits) unless closed or
    /// resting during a flood, and the pidfd (POLLIN once the child exited) until the child is reaped.
    public var pollDescriptors: [pollfd] {
        var fds: [pollfd] = []
        if !isOutputClosed, process.outputFD >= 0, restingUntil == nil || process.hasPendingInput {
            let events = Int16(POLLIN) | (process.hasPendingInput ? Int16(POLLOUT) : 0)
            fds.append(pollfd(fd: process.outputFD, events: events, revents: 0))
        }
        if process.exitFD >= 0 { fds.append(pollfd(fd: process.exitFD, events: Int16(POLLIN), revents: 0)) }
        return fds
    }

    /// The most a pty read gives: the kernel's line-discipline buffer (4096 bytes, one kept free). A read
    /// that fills it means more is already waiting; a shorter one means the child's output is caught up with.
    static let kernelChunk = 4095
    /// What a flood gathers before feeding the screen: libvterm skips over plain runs, so one large feed
    /// costs far less than many small ones.
    static let gatherTarget = 32 * 1024
    /// How long the pty is left alone between reads during a flood, so the child's writes gather in the
    /// kernel's buffers (which hold 64 KB) instead of being read a few lines at a time.
    static let restSpell = 0.001

    /// While output floods and part of a slice is gathered, when the pty is read again; nil otherwise.
    /// The caller's loop should wake then (the master is left out of `pollDescriptors` until it does).
    public private(set) var restingUntil: Double?
    /// Bytes read into `buffer` and not yet fed to the screen: only during a flood, and never across a key,
    /// a view, a resize or the child's end (see `feedHeld`).
    private var held = 0

    /// Reads what the child wrote, up to `limit` bytes, and feeds it to the screen; returns the count read.
    ///
    /// Bounded so a child that floods output cannot hold the event loop: the rest waits for the next turn.
    /// Reading stops at the first read that does not fill the kernel's buffer: a further read would find it
    /// empty and wait for the kernel's pty worker to refill it, which for a child writing a line at a time
    /// (`seq`) cost a sleep and a wake-up every few lines. Output that came in small pieces (an echo, a
    /// prompt) is fed at once. During a flood (a read filled the kernel's buffer) the reads gather up to
    /// `gatherTarget` before feeding, resting `restSpell` between turns; what is gathered is fed as soon as
    /// the flood ends, the slice is full, or anything needs the screen as it is.
    @discardableResult
    public func pump(limit: Int = 256 * 1024) -> Int {
        process.flushInput()
        if let until = restingUntil {
            guard PtyClock.now() >= until else { return 0 }
            restingUntil = nil
        }
        var total = 0
        var flooding = false
        var caughtUp = false
        while total < limit, !isOutputClosed, !caughtUp {
            if held == buffer.count { feedHeld() }
            let want = min(buffer.count - held, limit - total)
            switch process.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[held..<(held + want)])) {
            case .bytes(let n):
                // A new line is where a command can have ended: the foreground's directory may have changed.
                if let base = buffer.baseAddress, memchr(base + held, 0x0a, n) != nil { process.workingDirectoryMayChange() }
                held += n
                total += n
                if n >= min(want, Self.kernelChunk) { flooding = true } else { caughtUp = true }
            case .wouldBlock: caughtUp = true
            case .closed: isOutputClosed = true
            }
        }
        if flooding, !isOutputClosed, held < Self.gatherTarget {
            restingUntil = PtyClock.now() + Self.restSpell
        } else {
            feedHeld()
        }
        return total
    }

    /// Feeds what a flood gathered to the screen, so the screen shows all the child wrote so far; the
    /// child's pty is read again at once. Called before anything reads or acts on the screen.
    public func feedHeld() {
        guard held > 0 else { return }
        process.write(screen.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<held])))
        bytesRead += held
        held = 0
        restingUntil = nil
    }

    /// Whether what the user types now must stay hidden: the child's tty has echo off and canonical mode on
    /// (`read -s`, getpass, sudo, ssh asking for a password).
    ///
    /// Read live from the pty's termios (on Linux `tcgetattr` on the master gives the slave's flags), so ask at
    /// each keystroke or commit: nothing typed while it holds may be learned, suggested from or logged.
    public var isInputHidden: Bool { process.isPasswordPrompt }

    /// Sends a key to the child, encoded for its current modes.
    public func send(_ key: TerminalKey, modifiers: TerminalModifiers = []) {
        // Encoded for the modes the child set last, which may be in what a flood gathered.
        feedHeld()
        process.write(screen.press(key, modifiers: modifiers))
    }

    /// Sends a key-row press (a key with the latches that were on).
    public func send(_ press: TerminalKeyPress) {
        send(press.key, modifiers: press.modifiers)
    }

    /// Types text into the child as if keyed.
    public func type(_ text: String) {
        feedHeld()
        process.write(screen.type(text))
    }

    /// Resizes the screen and tells the child.
    public func resize(rows: Int, cols: Int) {
        feedHeld()
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
    /// program cannot start: `nosuch exited with status 127 (command not found)`.
    public var exitMessage: String? {
        guard let status = process.exitStatus else { return nil }
        return HostedTerminal.exitMessage(program: argv.first ?? "", status: status)
    }

    /// The message `exitMessage` gives for `program` ending with `status`.
    public static func exitMessage(program: String, status: ExitStatus) -> String {
        switch status {
        case .exited(let code):
            let why = code == 127 ? " (command not found)" : code == 126 ? " (cannot be run)" : ""
            return "\(program) exited with status \(code)\(why)"
        case .signaled(let sig, let core):
            let name = signalName(sig).map { " (\($0))" } ?? ""
            return "\(program) was killed by signal \(sig)\(name)\(core ? ", core dumped" : "")"
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
        feedHeld()
        process.terminate()
        process = try PtyProcess(argv: argv, environment: environment, workingDirectory: workingDirectory,
                                 rows: screen.rows, cols: screen.cols)
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

    /// Pumps output until `done` holds or `timeout` seconds pass; true if `done` held.
    public func run(until done: (HostedTerminal) -> Bool, timeout: Double) -> Bool {
        let deadline = PtyClock.now() + timeout
        while true {
            pump()
            feedHeld()
            if done(self) { return true }
            let left = deadline - PtyClock.now()
            if left <= 0 { return false }
            var fds = pollDescriptors
            if fds.isEmpty {
                // Nothing left to wait on: the child is reaped and its output drained.
                return done(self)
            }
            let r = poll(&fds, nfds_t(fds.count), Int32(min(left, 0.05) * 1000) + 1)
            if r > 0, fds.contains(where: { $0.fd == process.exitFD && $0.revents != 0 }) {
                // Drain what the child wrote before it exited, then reap it.
                pump()
                feedHeld()
                reapIfExited()
            }
        }
    }
}
