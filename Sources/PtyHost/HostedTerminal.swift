#if canImport(Glibc)
import Glibc
#endif

/// A child on a pty wired to an emulated screen: its output feeds the screen, the screen's replies and key
/// encodings go back to it.
///
/// The shell's event loop polls `pollDescriptors` and calls `pump` and `reapIfExited`; `run(until:timeout:)`
/// is a small loop of its own for tools and tests.
public final class HostedTerminal {
    public let process: PtyProcess
    public let screen: VTermScreen
    /// Set once the pty reported that no process holds its slave any more (EIO/POLLHUP): stop polling it.
    public private(set) var isOutputClosed = false
    /// Bytes of child output fed to the screen so far.
    public private(set) var bytesRead = 0
    private let buffer: UnsafeMutableRawBufferPointer

    /// Starts `argv` on a `rows`×`cols` pty with a screen of the same size.
    public init(argv: [String], environment: [String: String] = PtyProcess.childEnvironment(),
                workingDirectory: String? = nil, rows: Int, cols: Int, scrollbackLimit: Int = 10_000,
                readSlice: Int = 64 * 1024) throws(PtyError) {
        process = try PtyProcess(argv: argv, environment: environment, workingDirectory: workingDirectory,
                                 rows: rows, cols: cols)
        screen = VTermScreen(rows: rows, cols: cols, scrollbackLimit: scrollbackLimit)
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
    @discardableResult
    public func pump(limit: Int = 256 * 1024) -> Int {
        process.flushInput()
        var total = 0
        while total < limit, !isOutputClosed {
            let want = min(buffer.count, limit - total)
            switch process.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])) {
            case .bytes(let n):
                total += n
                let reply = screen.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                process.write(reply)
            case .wouldBlock:
                bytesRead += total
                return total
            case .closed:
                isOutputClosed = true
            }
        }
        bytesRead += total
        return total
    }

    /// Sends a key to the child, encoded for its current modes.
    public func send(_ key: TerminalKey, modifiers: TerminalModifiers = []) {
        process.write(screen.press(key, modifiers: modifiers))
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

    /// Pumps output until `done` holds or `timeout` seconds pass; true if `done` held.
    public func run(until done: (HostedTerminal) -> Bool, timeout: Double) -> Bool {
        let deadline = PtyClock.now() + timeout
        while true {
            pump()
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
                reapIfExited()
            }
        }
    }
}
