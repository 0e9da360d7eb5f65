#if canImport(Glibc)
import Glibc
#endif
import CPty
import SystemIO
import TerminalModel

/// Why a child could not be started on a pty.
public struct PtyError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How a child program ended, decoded from its wait status.
public enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    /// It called exit with this code (0–255).
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32, coreDumped: Bool)

    /// Decodes a raw `waitpid` status by hand: Swift cannot import the `W*` macros.
    public init(waitStatus st: Int32) {
        let sig = st & 0x7f
        if sig == 0 {
            self = .exited((st >> 8) & 0xff)
        } else {
            self = .signaled(sig, coreDumped: st & 0x80 != 0)
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let sig, let core): return "killed by signal \(sig)\(core ? " (core dumped)" : "")"
        }
    }
}

/// What one non-blocking read of the pty master gave.
public enum PtyRead: Equatable {
    /// This many bytes were placed in the buffer.
    case bytes(Int)
    /// Nothing is available now; poll the master for input.
    case wouldBlock
    /// The slave side is closed for good (every holder of it exited): stop polling the master.
    case closed
}

/// A child program running in a pseudo-terminal of its own, with a real controlling terminal.
///
/// The shell's event loop polls `outputFD` (readable: call `read`; `POLLHUP` after `read` gives `.closed`: stop
/// polling it) and `exitFD` (readable once the child has exited: call `reapIfExited`), and `outputFD` for
/// writing while `hasPendingInput`. Not thread-safe: one owner uses it.
public final class PtyProcess {
    /// The child's process id.
    public let pid: pid_t
    /// The pty master: the child's output is read and its input written here. Non-blocking, close-on-exec.
    public private(set) var outputFD: Int32
    /// A pidfd for the child: polls readable once it has exited, even while others still hold the slave; -1
    /// once it is reaped, or where the kernel gives no pidfd (then `reapIfExited` is asked at each wake-up).
    public private(set) var exitFD: Int32
    /// How the child ended, once it has been reaped.
    public private(set) var exitStatus: ExitStatus?
    /// Bytes written to the child that the pty could not take yet; kept so nothing typed is lost.
    private var pendingInput: [UInt8] = []
    private var pendingOffset = 0
    /// Ages what /proc said of the foreground (half a second, see `refreshForegroundAnswers`).
    private let clock: any ShellClock

    /// Starts `argv` (its first element searched on the environment's PATH) on a new pty of `rows`×`cols`.
    ///
    /// A program that does not exist still starts: the child prints why on the pty and exits with 127.
    /// `pidfd` false finds the exit by `waitpid` alone, as where the kernel has no `pidfd_open`.
    public init(argv: [String], environment: [String: String] = PtyProcess.childEnvironment(),
                workingDirectory: String? = nil, rows: Int, cols: Int, pidfd usePidfd: Bool = true,
                clock: any ShellClock = LiveClock()) throws(PtyError) {
        self.clock = clock
        guard let first = argv.first, !first.isEmpty else { throw PtyError("no program to run") }
        guard rows > 0, cols > 0, rows <= Int(UInt16.max), cols <= Int(UInt16.max) else {
            throw PtyError("pty size \(cols)x\(rows) is out of range")
        }
        if let bad = argv.first(where: { $0.utf8.contains(0) }) {
            throw PtyError("argument \"\(bad)\" contains a NUL byte")
        }
        let envList = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if let bad = envList.first(where: { $0.utf8.contains(0) }) {
            throw PtyError("environment entry \"\(bad)\" contains a NUL byte")
        }
        // C strings are built before fork: the child must not allocate.
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = envList.map { strdup($0) } + [nil]
        defer {
            for p in cArgv { free(p) }
            for p in cEnv { free(p) }
        }
        guard cArgv.dropLast().allSatisfy({ $0 != nil }), cEnv.dropLast().allSatisfy({ $0 != nil }) else {
            throw PtyError("cannot start \(first): out of memory")
        }
        var master: Int32 = -1
        var child: pid_t = -1
        let rc: Int32 = cArgv.withUnsafeBufferPointer { av in
            cEnv.withUnsafeBufferPointer { ev in
                av.withMemoryRebound(to: UnsafePointer<CChar>?.self) { avc in
                    ev.withMemoryRebound(to: UnsafePointer<CChar>?.self) { evc in
                        if let cwd = workingDirectory {
                            return cwd.withCString { cpty_spawn(avc.baseAddress, evc.baseAddress, $0, UInt16(rows), UInt16(cols), &master, &child) }
                        }
                        return cpty_spawn(avc.baseAddress, evc.baseAddress, nil, UInt16(rows), UInt16(cols), &master, &child)
                    }
                }
            }
        }
        guard rc == 0 else { throw PtyError("cannot start \(first): \(String(cString: strerror(rc)))") }
        pid = child
        outputFD = master
        let pidfd = usePidfd ? cpty_pidfd_open(child) : -1
        if pidfd >= 0 {
            _ = fcntl(pidfd, F_SETFD, FD_CLOEXEC)
            exitFD = pidfd
        } else {
            // A kernel before 5.3, a sandbox's seccomp filter or valgrind has no pidfd_open: the exit is then
            // found by asking waitpid at each wake-up (`reapIfExited`), as `exitFD` < 0 tells the caller.
            exitFD = -1
        }
    }

    deinit { terminate() }

    /// The environment a hosted child gets: ours, with the terminal type libvterm emulates and a UTF-8 locale.
    ///
    /// `COLUMNS`/`LINES` are dropped because they would override the pty's real size.
    public static func childEnvironment(base: [String: String] = currentEnvironment(),
                                        overrides: [String: String] = [:]) -> [String: String] {
        var env = base
        env["TERM"] = "xterm-256color"
        env["COLUMNS"] = nil
        env["LINES"] = nil
        env["COLORTERM"] = "truecolor"
        let isUTF8 = { (v: String?) in
            guard let v = v?.lowercased() else { return false }
            return v.contains("utf-8") || v.contains("utf8")
        }
        // LC_ALL wins over LANG, so a non-UTF-8 LC_ALL would undo the UTF-8 locale.
        if let all = env["LC_ALL"], !isUTF8(all) { env["LC_ALL"] = nil }
        if env["LC_ALL"] == nil, !isUTF8(env["LANG"]) { env["LANG"] = "C.UTF-8" }
        if env["LC_CTYPE"] != nil, !isUTF8(env["LC_CTYPE"]) { env["LC_CTYPE"] = nil }
        for (k, v) in overrides { env[k] = v }
        return env
    }

    /// This process's environment as a dictionary.
    public static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                env[String(s[..<eq])] = String(s[s.index(after: eq)...])
            }
            p += 1
        }
        return env
    }

    /// Reads at most `buffer.count` bytes of the child's output without blocking.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> PtyRead {
        guard outputFD >= 0, let base = buffer.baseAddress, buffer.count > 0 else { return .closed }
        while true {
            let n = Glibc.read(outputFD, base, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .wouldBlock
            // EIO: every process holding the slave has closed it.
            default: return .closed
            }
        }
    }

    /// Queues `bytes` for the child and writes as much as the pty takes now; the rest waits for `flushInput`.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pendingInput.append(contentsOf: bytes)
        flushInput()
    }

    /// Whether written bytes still wait for room in the pty (poll `outputFD` for `POLLOUT`, then `flushInput`).
    public var hasPendingInput: Bool { pendingOffset < pendingInput.count }

    /// Writes queued input the pty now has room for.
    public func flushInput() {
        guard outputFD >= 0 else { return }
        while pendingOffset < pendingInput.count {
            let n = pendingInput.withUnsafeBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return Glibc.write(outputFD, base + pendingOffset, buf.count - pendingOffset)
            }
            if n > 0 { pendingOffset += n; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        if pendingOffset == pendingInput.count {
            pendingInput.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
    }

    /// Tells the child its new size (TIOCSWINSZ; the kernel sends it SIGWINCH).
    public func resize(rows: Int, cols: Int) {
        guard outputFD >= 0, rows > 0, cols > 0, rows <= Int(UInt16.max), cols <= Int(UInt16.max) else { return }
        _ = cpty_set_winsize(outputFD, UInt16(rows), UInt16(cols))
    }

    /// The pty's current size as the kernel holds it.
    public var size: (rows: Int, cols: Int)? {
        var r: UInt16 = 0, c: UInt16 = 0
        guard outputFD >= 0, cpty_get_winsize(outputFD, &r, &c) == 0 else { return nil }
        return (Int(r), Int(c))
    }

    /// Whether the child is reading a secret now: echo off AND canonical mode on (`read -s`, getpass, sudo, ssh).
    ///
    /// Echo off alone is not enough: readline, vim and less turn echo off too. Read live at each keystroke.
    public var isPasswordPrompt: Bool {
        var echo: Int32 = 0, icanon: Int32 = 0
        guard outputFD >= 0, cpty_input_modes(outputFD, &echo, &icanon) == 0 else { return false }
        return echo == 0 && icanon != 0
    }

    /// The pty's foreground process group, whose leader /proc describes; nil once nothing holds the pty.
    private var foregroundGroup: pid_t? {
        guard outputFD >= 0 else { return nil }
        let pgrp = cpty_foreground_pgrp(outputFD)
        return pgrp > 0 ? pgrp : nil
    }

    /// The name of the program in the pty's foreground (`vim`, `less`, the shell itself), from /proc.
    public var foregroundProgram: String? { foregroundGroup.flatMap(Self.programName) }

    /// Whether the foreground group's program is a remote shell; asked again of /proc when the group changes,
    /// and by `refreshForegroundAnswers` (a program that execs ssh keeps its group).
    private func isRemote(_ pgrp: pid_t) -> Bool {
        if let c = remoteCheck, c.pgrp == pgrp { return c.value }
        let remote = RemoteShells.isRemote(Self.programName(pgrp))
        remoteCheck = GroupAnswer(pgrp: pgrp, value: remote, at: clock.now())
        return remote
    }
    private var remoteCheck: GroupAnswer<Bool>?

    /// What /proc said of the foreground group, and when: it stands while the group stays, until
    /// `refreshForegroundAnswers` finds it half a second old.
    private struct GroupAnswer<Value> {
        let pgrp: pid_t
        let value: Value
        let at: Double
        func stale(at now: Double) -> Bool { now - at >= 0.5 }
    }

    /// Asks /proc again for the answers about the foreground group that are half a second old (whether it is
    /// a remote shell, its working directory); returns whether one changed.
    ///
    /// For the event loop's periodic look, off any key's path: a program that execs ssh in its group, or a
    /// directory changed with no output, shows within a look, while a key's echo reads neither (a /proc
    /// readlink and a read of comm together were a tenth of a key's way to the screen, on one key in ten).
    public func refreshForegroundAnswers() -> Bool {
        // Answers about another group are left: the next view asks /proc for the new one anyway.
        guard let group = foregroundGroup else { return false }
        let now = clock.now()
        var changed = false
        if let c = remoteCheck, c.pgrp == group, c.stale(at: now) {
            remoteCheck = nil
            changed = isRemote(group) != c.value
        }
        if let c = directoryRead, c.pgrp == group, c.stale(at: now) {
            let path = Self.workingDirectory(group)
            directoryRead = GroupAnswer(pgrp: c.pgrp, value: path, at: now)
            changed = changed || path != c.value
        }
        return changed
    }

    // Read at every view of the pane (each echoed key): open, read and readlink into buffers on the stack,
    // with no FILE or array to allocate, since a stdio read of comm and two zeroed arrays cost 90 µs a key.
    private static func programName(_ pgrp: pid_t) -> String? {
        let fd = Glibc.open("/proc/\(pgrp)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> String? in
            guard let base = buf.baseAddress else { return nil }
            let n = Glibc.read(fd, base, buf.count)
            guard n > 0 else { return nil }
            let end = base[n - 1] == UInt8(ascii: "\n") ? n - 1 : n
            return String(decoding: UnsafeBufferPointer(start: base, count: end), as: UTF8.self)
        }
    }

    /// The working directory of the program in the pty's foreground (the shell after its `cd`s), from /proc;
    /// nil once nothing holds the pty or /proc does not say, and under ssh or a container's shell, whose
    /// files are elsewhere.
    ///
    /// Read from /proc at every call for half a second after output with a new line (a command ran, and a
    /// shell's `cd` shows some time after its Enter's echo: see `workingDirectoryMayChange`) and when the
    /// group changes; between, while keys are echoed on a command line, the last answer stands (a readlink
    /// in /proc is a third of an echo's cost) until `refreshForegroundAnswers` reads it again.
    public var foregroundWorkingDirectory: String? {
        guard let pgrp = foregroundGroup, !isRemote(pgrp) else { return nil }
        let now = clock.now()
        if let c = directoryRead, c.pgrp == pgrp, now - newLineAt >= 0.5 { return c.value }
        let path = Self.workingDirectory(pgrp)
        directoryRead = GroupAnswer(pgrp: pgrp, value: path, at: now)
        return path
    }
    private var directoryRead: GroupAnswer<String?>?
    private var newLineAt = -Double.infinity

    /// Notes that the child wrote a new line: a command may run and change its directory.
    public func workingDirectoryMayChange() { newLineAt = clock.now() }

    private static func workingDirectory(_ pgrp: pid_t) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX) + 1) { buf -> String? in
            guard let base = buf.baseAddress else { return nil }
            let n = readlink("/proc/\(pgrp)/cwd", base, buf.count - 1)
            guard n > 0 else { return nil }
            return base.withMemoryRebound(to: UInt8.self, capacity: n) {
                String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
            }
        }
    }

    /// Reaps the child if it has exited (non-blocking) and returns its status; nil while it runs.
    @discardableResult
    public func reapIfExited() -> ExitStatus? {
        if let s = exitStatus { return s }
        var st: Int32 = 0
        while true {
            let r = waitpid(pid, &st, WNOHANG)
            if r == pid {
                let status = ExitStatus(waitStatus: st)
                exitStatus = status
                closeExitFD()
                return status
            }
            if r < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Ends the child if it still runs (hang-up, then kill after `grace` seconds), reaps it and closes the pty.
    public func terminate(grace: Double = 0.2) {
        if exitStatus == nil, reapIfExited() == nil {
            // Closing the master hangs up the session: the shell and its jobs get SIGHUP.
            closeMaster()
            kill(pid, SIGHUP)
            kill(pid, SIGCONT)
            if !waitForExit(timeout: grace) { kill(pid, SIGKILL) }
            var st: Int32 = 0
            while true {
                let r = waitpid(pid, &st, 0)
                if r == pid { exitStatus = ExitStatus(waitStatus: st); break }
                if r < 0 && errno == EINTR { continue }
                break
            }
        }
        closeMaster()
        closeExitFD()
    }

    /// Waits up to `timeout` seconds for the child to exit; true once it has (it is then reaped). Real
    /// seconds whatever the process's clock: the child's exit takes its own time.
    public func waitForExit(timeout: Double) -> Bool {
        if reapIfExited() != nil { return true }
        let live = LiveClock()
        let deadline = live.now() + timeout
        guard exitFD >= 0 else {
            while live.now() < deadline {
                live.sleep(for: 0.002)
                if reapIfExited() != nil { return true }
            }
            return false
        }
        var p = [pollfd(fd: exitFD, events: Int16(POLLIN), revents: 0)]
        while true {
            if live.now() >= deadline { return reapIfExited() != nil }
            let r = live.poll(&p, until: deadline)
            if r > 0 { return reapIfExited() != nil }
            if r < 0 && errno != EINTR { return reapIfExited() != nil }
        }
    }

    private func closeMaster() {
        if outputFD >= 0 { close(outputFD); outputFD = -1 }
    }

    private func closeExitFD() {
        if exitFD >= 0 { close(exitFD); exitFD = -1 }
    }
}
