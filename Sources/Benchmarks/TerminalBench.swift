#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import SystemIO
import TrackingCore
import Runtime
import PtyHost

/// `handsfree bench terminal`: a child's output through pty + libvterm + snapshots at the display rate, beside
/// tmux doing the same work in the same run.
public struct TerminalBench {
    /// Width of the shell's window; the pane is what the Terminal screen lays out in it.
    public var width = 120
    /// Height of the shell's window.
    public var height = 60
    /// Gestures for the response-time runs.
    public var gestures = 20
    /// Megabytes of text for the cat run.
    public var megabytes = 10
    /// Numbers for the seq run.
    public var seq = 2_000_000
    /// Runs of each throughput case (best and median are reported).
    public var runs = 5
    /// Keystrokes for the latency run.
    public var keys = 200
    /// Seconds of idle pane for the CPU figure.
    public var idle = 3.0
    /// Display frames per second: a snapshot is taken at most this often.
    public var fps = 60.0
    /// Skip the tmux side.
    public var noTmux = false
    /// Attach a client to tmux, on a pty of the window's size that a thread drains as a terminal would: what
    /// someone using tmux has. False: tmux's server alone, as before (`--tmux-detached`).
    public var tmuxClient = true
    /// The parts to run (all by default): a profile of one part is not blurred by the others.
    public var parts: Set<Part> = Set(Part.allCases)

    /// A part of the bench.
    public enum Part: String, CaseIterable, Sendable {
        case cat, seq, keys, gestures, idle
    }

    public init() {}

    /// Measures every case in turn, reporting each line as it is known.
    public func run(out: BenchReport) throws {
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
            do { tmux = try TmuxBench(rows: rows, cols: cols) } catch { out("tmux: \(error); its side is skipped") }
        }
        defer { tmux?.stop() }
        var tmuxAttached = false
        if tmuxClient, let t = tmux {
            do { try t.attach(); tmuxAttached = true } catch { out("tmux client: \(error); tmux runs detached") }
        }

        out("pane \(cols)x\(rows) (the Terminal screen in a \(width)x\(height) window), at most \(Int(fps)) views and drawings per second, \(runs) runs each (best / median of \(runs)); load average \(loadAverage())")
        if tmuxAttached {
            out("tmux: a client attached on a \(cols)x\(rows + 1) pty (the pane and tmux's status line) drained as a terminal reads it; tmux's figures below are with it attached (a window in the background: the server's parsing alone)")
        }
        var cases: [(String, [String], Int)] = []
        if parts.contains(.cat) { cases.append(("cat \(megabytes) MB text", ["cat", textFile], textBytes)) }
        if parts.contains(.seq) { cases.append(("seq 1 \(seq)", ["seq", "1", String(seq)], seqBytes)) }
        for (name, argv, bytes) in cases {
            var ours: [ThroughputRun] = []
            var theirs: [Double] = []
            var theirCPU: [Double] = []
            var full: [ShellTerminalBench.Run] = []
            var shown: [Double] = []
            for _ in 0..<runs {
                full.append(try shell.throughput(argv: argv))
                ours.append(try throughput(argv: argv, rows: rows, cols: cols))
                if let t = tmux {
                    let r = try t.throughput(argv: argv)
                    theirs.append(r.wall)
                    theirCPU.append(r.cpu)
                    if tmuxAttached { shown.append(try t.throughput(argv: argv, attached: true).wall) }
                }
            }
            let mb = Double(bytes) / 1e6
            let fb = full.min { $0.wall < $1.wall } ?? full[0], fm = full.sorted { $0.wall < $1.wall }[full.count / 2]
            var shellLine = String(format: "%@: the shell (loop, views, render, curses) %.2f s (%.1f MB/s) / median %.2f s, %d drawings, CPU %.2f s",
                                   name, fb.wall, mb / fb.wall, fm.wall, fb.renders, fb.cpu)
            let tmuxTimes = Self.bestAndMedian(theirs)
            if let (tb, tm) = tmuxTimes {
                let cpuMedian = theirCPU.sorted()[theirCPU.count / 2]
                let ourCPU = full.map(\.cpu).sorted()[full.count / 2]
                shellLine += String(format: "; ratio to tmux best %.2fx, median %.2fx; CPU median: the shell %.2f s, tmux server %.2f s",
                                    fb.wall / tb, fm.wall / tm, ourCPU, cpuMedian)
            }
            if let (sb, sm) = Self.bestAndMedian(shown) {
                shellLine += String(format: "; tmux showing it in the attached client %.2f s / median %.2f s, ratio best %.2fx, median %.2fx",
                                    sb, sm, fb.wall / sb, fm.wall / sm)
            }
            out(shellLine)
            let best = ours.min { $0.wall < $1.wall } ?? ours[0]
            let med = ours.sorted { $0.wall < $1.wall }[ours.count / 2]
            var line = String(format: "  %@, bare pty+libvterm+snapshots: %.2f s (%.1f MB/s) / median %.2f s", name, best.wall, mb / best.wall, med.wall)
            if let (tb, tm) = tmuxTimes {
                line += String(format: "; tmux %.2f s (%.1f MB/s) / median %.2f s; ratio best %.2fx, median %.2fx",
                               tb, mb / tb, tm, best.wall / tb, med.wall / tm)
            }
            out(line)
            out(String(format: "  where the time goes (best run): libvterm feed %.2f s, read %.2f s, snapshots %.3f s (%d), poll wait %.2f s; this process CPU %.2f s",
                         best.feed, best.read, best.snapshot, best.frames, best.wait, best.cpu))
        }

        if parts.contains(.keys) {
            let sl = try shell.echoLatency(keys: keys)
            var line = String(format: "key → child echo → screen through the shell (key read, reducer, pty, bash, libvterm, view, pane drawn alone, curses): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d keys %d ms apart, as for tmux and the bare pty; %d echoes drawn as the pane alone%@)",
                              sl.p50 * 1e3, sl.p99 * 1e3, sl.max * 1e3, sl.n, Int(Self.keyGap / 1000), sl.paneAlone, sl.missed > 0 ? ", \(sl.missed) not echoed within 5 s" : "")
            // tmux's figure is taken right after ours, so both meet the same load on the machine.
            let tl = try tmux.map { try $0.echoLatency(keys: keys) }
            if let tl {
                line += String(format: "; tmux (control-mode client, send-keys → %%output\(tmuxAttached ? ", a client attached and showing the pane" : "")): p50 %.2f ms, p99 %.2f ms; ratio p50 %.2fx, p99 %.2fx",
                               tl.p50 * 1e3, tl.p99 * 1e3, sl.p50 / max(tl.p50, 1e-9), sl.p99 / max(tl.p99, 1e-9))
            }
            out(line)
            let lat = try echoLatency(rows: rows, cols: cols)
            out(String(format: "  bare pty+libvterm: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d keys, bash --norc)",
                       lat.p50 * 1e3, lat.p99 * 1e3, lat.max * 1e3, lat.n))
        }

        if parts.contains(.gestures) {
            let flood = ["sh", "-c", "while :; do cat \(textFile); done"]
            let calm = try shell.gestureResponse(argv: ["bash", "--norc", "--noprofile"], trials: gestures)
            let busy = try shell.gestureResponse(argv: flood, trials: gestures)
            // The activate gesture fires only after its hold: what is left is the shell's answer.
            var hold = 0.0
            if let d = GestureConfig.defaults().gestures.first(where: { $0.name == "activate" }), case .threshold(let t) = d.kind { hold = t.hold }
            out(String(format: "gesture → screen (jaw opens on a key, 60 frames/s over UDP; first open-jaw datagram to the drawing, of which %.0f ms is the gesture's own hold): idle pane p50 %.0f ms, p99 %.0f ms; while the child floods (cat in a loop) p50 %.0f ms, p99 %.0f ms, max %.0f ms, so answered %.0f ms (p99) after the hold; the flood adds %.0f ms at p50, %.0f ms at p99 (%d gestures%@)",
                         hold * 1e3, calm.p50 * 1e3, calm.p99 * 1e3, busy.p50 * 1e3, busy.p99 * 1e3, busy.max * 1e3,
                         (busy.p99 - hold) * 1e3, (busy.p50 - calm.p50) * 1e3, (busy.p99 - calm.p99) * 1e3, busy.n,
                         busy.missed + calm.missed > 0 ? ", \(busy.missed + calm.missed) not answered" : ""))
        }

        if parts.contains(.idle) {
            let sc = try shell.idleCPU(argv: ["bash", "--norc", "--noprofile"], seconds: idle)
            out(String(format: "idle pane through the shell (bash at its prompt, %.0f s): the shell %.2f%% of a core, child %.2f%%", idle, sc.ours * 100, sc.child * 100))
            let cpu = try idleCPU(rows: rows, cols: cols)
            var line = String(format: "  bare loop on the pty: %.2f%% of a core, child %.2f%%", cpu.ours * 100, cpu.child * 100)
            if let t = tmux { line += String(format: "; tmux server %.2f%%", t.idleCPU(seconds: idle) * 100) }
            out(line)
        }
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
        let start = LiveClock().now()
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
            var drained = false
            while turn < 256 * 1024, !drained, !closed {
                // A slice gathers reads (a pty gives at most 4 KB a read) and is fed once, as `HostedTerminal.pump` does.
                let t0 = LiveClock().now()
                var n = 0
                while n < buf.count {
                    let got = p.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[n...]))
                    guard case .bytes(let k) = got else {
                        if got == .closed { closed = true } else { drained = true }
                        break
                    }
                    n += k
                }
                let t1 = LiveClock().now()
                r.read += t1 - t0
                guard n > 0 else { break }
                p.write(screen.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n])))
                r.feed += LiveClock().now() - t1
                turn += n
            }
            let now = LiveClock().now()
            if now >= nextFrame, screen.hasChanges {
                let snap = screen.snapshot()
                sink &+= snap.cells.count
                r.frames += 1
                r.snapshot += LiveClock().now() - now
                nextFrame = now + frame
            }
            if closed { break }
            if turn == 0 {
                var fds = [pollfd(fd: p.outputFD, events: Int16(POLLIN), revents: 0)]
                let waitMs = max(1, Int32((nextFrame - LiveClock().now()) * 1000))
                let t0 = LiveClock().now()
                _ = poll(&fds, 1, screen.hasChanges ? waitMs : 1000)
                r.wait += LiveClock().now() - t0
            }
        }
        if screen.hasChanges { sink &+= screen.snapshot().cells.count; r.frames += 1 }
        _ = p.waitForExit(timeout: 5)
        r.wall = LiveClock().now() - start
        r.cpu = processCPUSeconds() - cpu0
        precondition(sink >= 0)
        return r
    }

    struct Latency {
        var p50 = 0.0, p99 = 0.0, max = 0.0, n = 0, missed = 0
        /// Echoes the shell drew as the Terminal screen's pane alone, ahead of the full drawing.
        var paneAlone = 0
    }

    static func latency(_ xs: [Double]) -> Latency {
        let s = xs.sorted()
        guard !s.isEmpty else { return Latency() }
        func pct(_ q: Double) -> Double { s[min(s.count - 1, Int(Double(s.count - 1) * q))] }
        return Latency(p50: pct(0.5), p99: pct(0.99), max: s[s.count - 1], n: s.count)
    }

    /// The smallest and the median of `times` (the upper middle of an even count); nil when there are none.
    static func bestAndMedian(_ times: [Double]) -> (best: Double, median: Double)? {
        guard let best = times.min() else { return nil }
        return (best, times.sorted()[times.count / 2])
    }

    /// The pause before each key of every latency run: 20 keys a second, well above anyone's pace by gaze.
    ///
    /// The same for the shell, tmux and the bare pty, because the pause changes the figure: after 50 ms idle
    /// the processors sleep, and on a virtual machine a pty write that wakes one costs about 36 µs against
    /// 7.5 µs back to back. Keys 2 ms apart (tmux's run before) or back to back (the bare run's) met
    /// processors still awake, and compared those with the shell's keys meeting sleeping ones.
    static let keyGap: useconds_t = 50_000

    /// Types a letter then Backspace into bash, each time until the emulated screen shows the echo.
    func echoLatency(rows: Int, cols: Int) throws -> Latency {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   rows: rows, cols: cols)
        guard t.run(until: { $0.screen.snapshot().lineText(0) == "$" }, timeout: 10) else {
            throw BenchError("bash did not show its prompt within 10 s")
        }
        var samples: [Double] = []
        for i in 0..<keys {
            let typing = i % 2 == 0
            let want = typing ? "$ a" : "$"
            usleep(Self.keyGap)
            let t0 = LiveClock().now()
            t.send(typing ? .char("a") : .backspace)
            guard t.run(until: { $0.screen.hasChanges && $0.screen.snapshot().lineText(0) == want }, timeout: 5) else {
                throw BenchError("no echo within 5 s at key \(i)")
            }
            samples.append(LiveClock().now() - t0)
        }
        return Self.latency(samples)
    }

    /// CPU of this process and of an idle bash over `idle` seconds of an event loop waiting on the pty.
    func idleCPU(rows: Int, cols: Int) throws -> (ours: Double, child: Double) {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ "]), rows: rows, cols: cols)
        _ = t.run(until: { $0.screen.snapshot().lineText(0) == "$" }, timeout: 10)
        let c0 = processCPUSeconds(), k0 = procCPUSeconds(t.process.pid)
        let start = LiveClock().now()
        _ = t.run(until: { _ in false }, timeout: idle)
        let wall = LiveClock().now() - start
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
            throw BenchError("\(path): cannot be written")
        }
        return out.count
    }

    /// The 1-minute load average, so a figure taken on a busy machine says so.
    func loadAverage() -> String { oneMinuteLoad() }

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
