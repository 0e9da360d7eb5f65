#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Config
import Foundation
import TrackingCore
import Runtime
import PtyHost
import Transport

/// `handsfree bench terminal`: a child's output through pty + libvterm + snapshots at the display rate, beside
/// tmux doing the same work in the same run.
struct BenchTerminal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terminal",
        abstract: "Hosted-terminal throughput (cat, seq), key→echo→screen latency and idle CPU, beside tmux.")

    @Option(help: "Width of the shell's window; the pane is what the Terminal screen lays out in it.") var width = 120
    @Option(help: "Height of the shell's window.") var height = 60
    @Option(help: "Gestures for the response-time runs.") var gestures = 20
    @Option(help: "Megabytes of text for the cat run.") var megabytes = 10
    @Option(help: "Numbers for the seq run.") var seq = 2_000_000
    @Option(help: "Runs of each throughput case (best and median are printed).") var runs = 3
    @Option(help: "Keystrokes for the latency run.") var keys = 200
    @Option(help: "Seconds of idle pane for the CPU figure.") var idle = 3.0
    @Option(help: "Display frames per second: a snapshot is taken at most this often.") var fps = 60.0
    @Flag(help: "Skip the tmux side.") var noTmux = false

    func validate() throws {
        guard runs >= 1, keys >= 1, width >= 80, height >= 24, width <= 1000, height <= 1000, fps > 0, megabytes >= 1,
              seq >= 1, gestures >= 1 else {
            throw ValidationError("--runs, --keys, --gestures, --megabytes and --seq must be at least 1, the window at least 80x24, --fps above 0")
        }
    }

    func run() throws {
        #if DEBUG
        print("note: debug build; use `swift build -c release` for meaningful figures")
        #endif
        let shell = ShellTerminalBench(width: width, height: height, fps: fps)
        let (rows, cols) = try shell.paneSize()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-bench-terminal-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let textFile = dir.appendingPathComponent("text.txt").path
        let textBytes = try writeText(textFile, bytes: megabytes * 1_000_000)
        let seqBytes = Self.seqOutputBytes(seq)

        var tmux: TmuxBench?
        if !noTmux {
            do { tmux = try TmuxBench(rows: rows, cols: cols) } catch { print("tmux: \(error); its side is skipped") }
        }
        defer { tmux?.stop() }

        print("pane \(cols)x\(rows) (the Terminal screen in a \(width)x\(height) window), at most \(Int(fps)) views and drawings per second, \(runs) runs each (best / median)")
        let cases: [(String, [String], Int)] = [
            ("cat \(megabytes) MB text", ["cat", textFile], textBytes),
            ("seq 1 \(seq)", ["seq", "1", String(seq)], seqBytes),
        ]
        for (name, argv, bytes) in cases {
            var ours: [ThroughputRun] = []
            var theirs: [Double] = []
            var full: [ShellTerminalBench.Run] = []
            for _ in 0..<runs {
                full.append(try shell.throughput(argv: argv))
                ours.append(try throughput(argv: argv, rows: rows, cols: cols))
                if let t = tmux { theirs.append(try t.throughput(argv: argv)) }
            }
            let mbs = Double(bytes) / 1e6
            let fb = full.min { $0.wall < $1.wall } ?? full[0], fm = full.sorted { $0.wall < $1.wall }[full.count / 2]
            var shellLine = String(format: "%@: the shell (loop, views, render, curses) %.2f s (%.1f MB/s) / median %.2f s, %d drawings, CPU %.2f s",
                                   name, fb.wall, mbs / fb.wall, fm.wall, fb.renders, fb.cpu)
            if !theirs.isEmpty {
                let tb = theirs.min() ?? 0, tm = theirs.sorted()[theirs.count / 2]
                shellLine += String(format: "; ratio to tmux best %.2fx, median %.2fx", fb.wall / tb, fm.wall / tm)
            }
            print(shellLine)
            let best = ours.min { $0.wall < $1.wall } ?? ours[0]
            let med = ours.sorted { $0.wall < $1.wall }[ours.count / 2]
            let mb = Double(bytes) / 1e6
            var line = String(format: "  %@, bare pty+libvterm+snapshots: %.2f s (%.1f MB/s) / median %.2f s", name, best.wall, mb / best.wall, med.wall)
            if !theirs.isEmpty {
                let tb = theirs.min() ?? 0, tm = theirs.sorted()[theirs.count / 2]
                line += String(format: "; tmux %.2f s (%.1f MB/s) / median %.2f s; ratio best %.2fx, median %.2fx",
                               tb, mb / tb, tm, best.wall / tb, med.wall / tm)
            }
            print(line)
            print(String(format: "  where the time goes (best run): libvterm feed %.2f s, read %.2f s, snapshots %.3f s (%d), poll wait %.2f s; this process CPU %.2f s",
                         best.feed, best.read, best.snapshot, best.frames, best.wait, best.cpu))
        }

        let sl = try shell.echoLatency(keys: keys)
        print(String(format: "key → child echo → screen through the shell (key read, reducer, pty, bash, libvterm, view, render, curses): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d keys%@)",
                     sl.p50 * 1e3, sl.p99 * 1e3, sl.max * 1e3, sl.n, sl.missed > 0 ? ", \(sl.missed) not echoed within 5 s" : ""))
        let lat = try echoLatency(rows: rows, cols: cols)
        var line = String(format: "  bare pty+libvterm: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d keys, bash --norc)",
                          lat.p50 * 1e3, lat.p99 * 1e3, lat.max * 1e3, lat.n)
        if let t = tmux, let tl = try? t.echoLatency(keys: keys) {
            line += String(format: "; tmux (control-mode client, send-keys → %%output): p50 %.2f ms, p99 %.2f ms", tl.p50 * 1e3, tl.p99 * 1e3)
        }
        print(line)

        let flood = ["sh", "-c", "while :; do cat \(textFile); done"]
        let calm = try shell.gestureResponse(argv: ["bash", "--norc", "--noprofile"], trials: gestures)
        let busy = try shell.gestureResponse(argv: flood, trials: gestures)
        // The activate gesture fires only after its hold: what is left is the shell's answer.
        var hold = 0.0
        if let d = GestureConfig.defaults().gestures.first(where: { $0.name == "activate" }), case .threshold(let t) = d.kind { hold = t.hold }
        print(String(format: "gesture → screen (jaw opens on a key, 60 frames/s over UDP; first open-jaw datagram to the drawing, of which %.0f ms is the gesture's own hold): idle pane p50 %.0f ms, p99 %.0f ms; while the child floods (cat in a loop) p50 %.0f ms, p99 %.0f ms, max %.0f ms, so answered %.0f ms (p99) after the hold; the flood adds %.0f ms at p50, %.0f ms at p99 (%d gestures%@)",
                     hold * 1e3, calm.p50 * 1e3, calm.p99 * 1e3, busy.p50 * 1e3, busy.p99 * 1e3, busy.max * 1e3,
                     (busy.p99 - hold) * 1e3, (busy.p50 - calm.p50) * 1e3, (busy.p99 - calm.p99) * 1e3, busy.n,
                     busy.missed + calm.missed > 0 ? ", \(busy.missed + calm.missed) not answered" : ""))

        let sc = try shell.idleCPU(argv: ["bash", "--norc", "--noprofile"], seconds: idle)
        print(String(format: "idle pane through the shell (bash at its prompt, %.0f s): the shell %.2f%% of a core, child %.2f%%", idle, sc.ours * 100, sc.child * 100))
        let cpu = try idleCPU(rows: rows, cols: cols)
        line = String(format: "  bare loop on the pty: %.2f%% of a core, child %.2f%%", cpu.ours * 100, cpu.child * 100)
        if let t = tmux { line += String(format: "; tmux server %.2f%%", t.idleCPU(seconds: idle) * 100) }
        print(line)
    }

    // MARK: Ours

    struct ThroughputRun {
        var wall = 0.0, feed = 0.0, read = 0.0, snapshot = 0.0, wait = 0.0, cpu = 0.0
        var frames = 0
    }

    /// Runs `argv` to completion in a pty, feeding libvterm and taking a snapshot per display frame.
    func throughput(argv: [String], rows: Int, cols: Int) throws -> ThroughputRun {
        var r = ThroughputRun()
        let cpu0 = processCPUSeconds()
        let start = monotonicSeconds()
        let p = try PtyProcess(argv: argv, rows: rows, cols: cols)
        let screen = VTermScreen(rows: rows, cols: cols)
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buf.deallocate() }
        let frame = 1 / fps
        var nextFrame = start + frame
        var closed = false
        var sink = 0
        while !closed {
            // One loop turn reads a bounded amount, as the shell's loop will, then may render.
            var turn = 0
            while turn < 256 * 1024 {
                let t0 = monotonicSeconds()
                let got = p.read(into: buf)
                let t1 = monotonicSeconds()
                r.read += t1 - t0
                guard case .bytes(let n) = got else {
                    if got == .closed { closed = true }
                    break
                }
                p.write(screen.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n])))
                r.feed += monotonicSeconds() - t1
                turn += n
            }
            let now = monotonicSeconds()
            if now >= nextFrame, screen.hasChanges {
                let snap = screen.snapshot()
                sink &+= snap.cells.count
                r.frames += 1
                r.snapshot += monotonicSeconds() - now
                nextFrame = now + frame
            }
            if closed { break }
            if turn == 0 {
                var fds = [pollfd(fd: p.outputFD, events: Int16(POLLIN), revents: 0)]
                let waitMs = max(1, Int32((nextFrame - monotonicSeconds()) * 1000))
                let t0 = monotonicSeconds()
                _ = poll(&fds, 1, screen.hasChanges ? waitMs : 1000)
                r.wait += monotonicSeconds() - t0
            }
        }
        if screen.hasChanges { sink &+= screen.snapshot().cells.count; r.frames += 1 }
        _ = p.waitForExit(timeout: 5)
        r.wall = monotonicSeconds() - start
        r.cpu = processCPUSeconds() - cpu0
        precondition(sink >= 0)
        return r
    }

    struct Latency { var p50 = 0.0, p99 = 0.0, max = 0.0, n = 0, missed = 0 }

    static func latency(_ xs: [Double]) -> Latency {
        let s = xs.sorted()
        guard !s.isEmpty else { return Latency() }
        func pct(_ q: Double) -> Double { s[min(s.count - 1, Int(Double(s.count - 1) * q))] }
        return Latency(p50: pct(0.5), p99: pct(0.99), max: s[s.count - 1], n: s.count)
    }

    /// Types a letter then Backspace into bash, each time until the emulated screen shows the echo.
    func echoLatency(rows: Int, cols: Int) throws -> Latency {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   rows: rows, cols: cols)
        guard t.run(until: { $0.screen.snapshot().lineText(0) == "$" }, timeout: 10) else {
            throw ValidationError("bash did not show its prompt within 10 s")
        }
        var samples: [Double] = []
        for i in 0..<keys {
            let typing = i % 2 == 0
            let want = typing ? "$ a" : "$"
            let t0 = monotonicSeconds()
            t.send(typing ? .char("a") : .backspace)
            guard t.run(until: { $0.screen.hasChanges && $0.screen.snapshot().lineText(0) == want }, timeout: 5) else {
                throw ValidationError("no echo within 5 s at key \(i)")
            }
            samples.append(monotonicSeconds() - t0)
        }
        return Self.latency(samples)
    }

    /// CPU of this process and of an idle bash over `idle` seconds of an event loop waiting on the pty.
    func idleCPU(rows: Int, cols: Int) throws -> (ours: Double, child: Double) {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ "]), rows: rows, cols: cols)
        _ = t.run(until: { $0.screen.snapshot().lineText(0) == "$" }, timeout: 10)
        let c0 = processCPUSeconds(), k0 = procCPUSeconds(t.process.pid)
        let start = monotonicSeconds()
        _ = t.run(until: { _ in false }, timeout: idle)
        let wall = monotonicSeconds() - start
        return ((processCPUSeconds() - c0) / wall, (procCPUSeconds(t.process.pid) - k0) / wall)
    }

    // MARK: Helpers

    /// Writes about `bytes` of prose-like text lines (deterministic) and returns its exact size.
    func writeText(_ path: String, bytes: Int) throws -> Int {
        let words = ["the", "hands", "free", "shell", "types", "into", "real", "programs", "terminal", "gaze", "jaw",
                     "prediction", "suggestion", "keyboard", "window", "session", "output", "scroll", "line", "of",
                     "and", "a", "with", "every", "character", "emulated", "libvterm", "pseudo", "process", "screen"]
        var out: [UInt8] = []
        out.reserveCapacity(bytes + 200)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        while out.count < bytes {
            let len = 20 + next() % 90
            var line = 0
            while line < len {
                let w = words[next() % words.count]
                out.append(contentsOf: w.utf8); out.append(0x20)
                line += w.utf8.count + 1
            }
            out[out.count - 1] = 0x0a
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(out)) else {
            throw ValidationError("\(path): cannot be written")
        }
        return out.count
    }

    static func seqOutputBytes(_ n: Int) -> Int {
        var total = 0, width = 1, lo = 1
        while lo <= n {
            let hi = min(n, lo * 10 - 1)
            total += (hi - lo + 1) * (width + 1)
            lo *= 10; width += 1
        }
        return total
    }
}

/// CPU seconds (user + system) of this whole process.
func processCPUSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

/// CPU seconds of another process from /proc/PID/stat (utime + stime, in clock ticks).
func procCPUSeconds(_ pid: pid_t) -> Double {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = s.lastIndex(of: ")") else { return 0 }
    let fields = s[s.index(after: close)...].split(separator: " ")
    // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
    guard fields.count > 13, let ut = Double(fields[11]), let st = Double(fields[12]) else { return 0 }
    return (ut + st) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

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
        guard st == 0 else { throw ValidationError("tmux did not start (status \(st)) \(out)") }
    }

    func stop() { _ = tmux(["kill-server"]) }

    /// Starts tmux on this server with the given descriptors as its stdin and stdout (stderr to /dev/null).
    func spawn(_ args: [String], stdin: Int32, stdout: Int32) -> pid_t? {
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
        let rc = posix_spawnp(&pid, "tmux", &actions, nil, cArgs, environ)
        return rc == 0 ? pid : nil
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

    /// Wall seconds for tmux to run `argv` to completion in a new window of the pane size.
    func throughput(argv: [String]) throws -> Double {
        counter += 1
        let signal = "done\(counter)"
        let cmd = argv.map { "'\($0)'" }.joined(separator: " ") + "; tmux wait-for -S \(signal)"
        let start = monotonicSeconds()
        let (st, out) = tmux(["new-window", "-d", "-t", "bench", cmd])
        guard st == 0 else { throw ValidationError("tmux new-window: \(out)") }
        tmux(["wait-for", signal])
        return monotonicSeconds() - start
    }

    /// Key → echo latency through a control-mode client: `send-keys` in, the pane's `%output` back.
    func echoLatency(keys: Int) throws -> BenchTerminal.Latency {
        var inFDs: [Int32] = [-1, -1], outFDs: [Int32] = [-1, -1]
        guard pipe(&inFDs) == 0, pipe(&outFDs) == 0 else { throw ValidationError("pipe failed") }
        guard let pid = spawn(["-C", "attach", "-t", "bench:0"], stdin: inFDs[0], stdout: outFDs[1]) else {
            throw ValidationError("cannot start a tmux control client")
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
            let deadline = monotonicSeconds() + timeout
            let want = Array(prefix.utf8)
            while true {
                while let nl = pending.firstIndex(of: 0x0a) {
                    let line = pending[..<nl]
                    pending.removeSubrange(...nl)
                    if line.starts(with: want) { return true }
                }
                let left = deadline - monotonicSeconds()
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
        guard waitLine("ready", timeout: 5) else { throw ValidationError("tmux control client did not answer") }
        pending.removeAll()
        var samples: [Double] = []
        for i in 0..<keys {
            let t0 = monotonicSeconds()
            send(i % 2 == 0 ? "send-keys -t bench:0 a" : "send-keys -t bench:0 BSpace")
            guard waitLine("%output", timeout: 5) else { throw ValidationError("no tmux echo at key \(i)") }
            samples.append(monotonicSeconds() - t0)
            // Let the command's %begin/%end arrive before the next key.
            usleep(2000)
        }
        return BenchTerminal.latency(samples)
    }

    /// CPU of the tmux server, as a fraction of a core, over `seconds` of an idle pane.
    func idleCPU(seconds: Double) -> Double {
        let (_, out) = tmux(["display-message", "-p", "#{pid}"], capture: true)
        guard let pid = pid_t(out.trimmingCharacters(in: .whitespacesAndNewlines)) else { return .nan }
        let c0 = procCPUSeconds(pid), t0 = monotonicSeconds()
        usleep(UInt32(seconds * 1e6))
        return (procCPUSeconds(pid) - c0) / (monotonicSeconds() - t0)
    }
}
