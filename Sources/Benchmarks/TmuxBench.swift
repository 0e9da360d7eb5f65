#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PtyHost
import SystemIO

/// A private tmux server doing the same work, for figures taken in the same run.
final class TmuxBench {
    let socket = "handsfree-bench-\(getpid())"
    let rows: Int, cols: Int
    private var counter = 0

    init(rows: Int, cols: Int) throws {
        self.rows = rows
        self.cols = cols
        let (st, out) = tmux(["-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", String(cols), "-y", String(rows),
                              "env PS1='$ ' bash --norc --noprofile", ";", "set", "-g", "history-limit", "10000", ";",
                              "set", "-g", "default-size", "\(cols)x\(rows)"])
        guard st == 0 else { throw BenchError("tmux did not start (status \(st)) \(out)") }
    }

    func stop() {
        _ = tmux(["kill-server"])
        if let (pid, pty) = client {
            var st: Int32 = 0
            while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
            pty.close()
            client = nil
        }
    }

    /// Starts tmux on this server with the given descriptors as its stdin and stdout (stderr to /dev/null),
    /// with `TERM` set to `term` if given.
    func spawn(_ args: [String], stdin: Int32, stdout: Int32, term: String? = nil) -> pid_t? {
        let argv = ["tmux", "-L", socket] + args
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        guard let term else { return posix_spawnp(&pid, "tmux", &actions, nil, cArgs, environ) == 0 ? pid : nil }
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = term
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in cEnv { free(e) } }
        return posix_spawnp(&pid, "tmux", &actions, nil, cArgs, cEnv) == 0 ? pid : nil
    }

    /// Runs a tmux command to completion; `capture` reads its output (never for a command that may start the
    /// server, which would inherit the pipe and hold it open).
    @discardableResult
    func tmux(_ args: [String], capture: Bool = false) -> (Int32, String) {
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        var fds: [Int32] = [-1, -1]
        if capture { guard pipe(&fds) == 0 else { return (-1, "pipe failed") } }
        guard let pid = spawn(args, stdin: null, stdout: capture ? fds[1] : null) else {
            if capture { close(fds[0]); close(fds[1]) }
            return (-1, "cannot start tmux")
        }
        var out: [UInt8] = []
        if capture {
            close(fds[1])
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fds[0], &buf, buf.count)
                if n > 0 { out.append(contentsOf: buf[0..<n]); continue }
                if n < 0 && errno == EINTR { continue }
                break
            }
            close(fds[0])
        }
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        return (ExitStatus(waitStatus: st) == .exited(0) ? 0 : 1, String(decoding: out, as: UTF8.self))
    }

    /// Wall seconds for tmux to run `argv` to completion in a new window of the pane size, and the CPU seconds
    /// its server spent meanwhile (a figure a busy machine blurs less than the wall time).
    ///
    /// With no client attached the server only parses the output (the window is made in the background);
    /// with `attached`, the window shows in the client attached by `attach()`, which the server
    /// redraws as the output comes, as for someone watching it.
    func throughput(argv: [String], attached: Bool = false) throws -> (wall: Double, cpu: Double) {
        counter += 1
        let signal = "done\(counter)"
        let cmd = argv.map { "'\($0)'" }.joined(separator: " ") + "; tmux wait-for -S \(signal)"
        let server = serverPID()
        let c0 = server.map(procCPUSeconds) ?? 0
        let start = LiveClock().now()
        let (st, out) = tmux(["new-window"] + (attached ? [] : ["-d"]) + ["-t", "bench", cmd])
        guard st == 0 else { throw BenchError("tmux new-window: \(out)") }
        tmux(["wait-for", signal])
        let wall = LiveClock().now() - start
        return (wall, server.map { procCPUSeconds($0) - c0 } ?? .nan)
    }

    /// Attaches a client to the session on a pty that a thread drains, as a terminal would read it: the pane's
    /// size and tmux's status line, so its windows keep the pane's size. Detached by `stop`.
    ///
    /// Not `window-size manual` with a bigger terminal: tmux 3.3a's server crashes (a segfault) on the next
    /// `new-window -d` with that and a client attached.
    func attach() throws {
        guard client == nil else { return }
        let pty = try DrainedPTY()
        let fd = fileno(pty.slave)
        var ws = winsize(ws_row: UInt16(rows + 1), ws_col: UInt16(cols), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(fd, UInt(TIOCSWINSZ), &ws)
        guard let pid = spawn(["attach", "-t", "bench"], stdin: fd, stdout: fd, term: "xterm-256color") else {
            pty.close()
            throw BenchError("cannot start a tmux client")
        }
        client = (pid, pty)
        // Attached once the server lists it.
        let deadline = LiveClock().now() + 5
        while LiveClock().now() < deadline {
            if tmux(["list-clients"], capture: true).1.contains("bench") { return }
            usleep(20_000)
        }
        throw BenchError("the tmux client did not attach within 5 s")
    }

    private var client: (pid: pid_t, pty: DrainedPTY)?

    /// The tmux server's process id.
    func serverPID() -> pid_t? {
        let (_, out) = tmux(["display-message", "-p", "#{pid}"], capture: true)
        return pid_t(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Key → echo latency through a control-mode client: `send-keys` in, the pane's `%output` back.
    func echoLatency(keys: Int) throws -> TerminalBench.Latency {
        var inFDs: [Int32] = [-1, -1], outFDs: [Int32] = [-1, -1]
        guard pipe(&inFDs) == 0, pipe(&outFDs) == 0 else { throw BenchError("pipe failed") }
        guard let pid = spawn(["-C", "attach", "-t", "bench:0"], stdin: inFDs[0], stdout: outFDs[1]) else {
            throw BenchError("cannot start a tmux control client")
        }
        close(inFDs[0]); close(outFDs[1])
        let fd = outFDs[0], toTmux = inFDs[1]
        defer {
            close(toTmux)
            close(fd)
            kill(pid, SIGTERM)
            var st: Int32 = 0
            while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        }
        var pending: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        /// Reads lines until one starts with `prefix` or `timeout` passes.
        func waitLine(_ prefix: String, timeout: Double) -> Bool {
            let deadline = LiveClock().now() + timeout
            let want = Array(prefix.utf8)
            while true {
                while let nl = pending.firstIndex(of: 0x0a) {
                    let line = pending[..<nl]
                    pending.removeSubrange(...nl)
                    if line.starts(with: want) { return true }
                }
                let left = deadline - LiveClock().now()
                if left <= 0 { return false }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { continue }
                let n = read(fd, &buf, buf.count)
                if n <= 0 { return false }
                pending.append(contentsOf: buf[0..<n])
            }
        }
        func send(_ s: String) {
            let b = Array((s + "\n").utf8)
            _ = b.withUnsafeBytes { write(toTmux, $0.baseAddress, $0.count) }
        }
        // Let the attach settle, then drop what it printed.
        send("display-message -p ready")
        guard waitLine("ready", timeout: 5) else { throw BenchError("tmux control client did not answer") }
        pending.removeAll()
        var samples: [Double] = []
        for i in 0..<keys {
            // The pace of the shell's own run; in the gap the command's %begin/%end arrive.
            usleep(TerminalBench.keyGap)
            let t0 = LiveClock().now()
            send(i % 2 == 0 ? "send-keys -t bench:0 a" : "send-keys -t bench:0 BSpace")
            guard waitLine("%output", timeout: 5) else { throw BenchError("no tmux echo at key \(i)") }
            samples.append(LiveClock().now() - t0)
        }
        return TerminalBench.latency(samples)
    }

    /// CPU of the tmux server, as a fraction of a core, over `seconds` of an idle pane.
    func idleCPU(seconds: Double) -> Double {
        guard let pid = serverPID() else { return .nan }
        let c0 = procCPUSeconds(pid), t0 = LiveClock().now()
        usleep(UInt32(seconds * 1e6))
        return (procCPUSeconds(pid) - c0) / (LiveClock().now() - t0)
    }
}
