#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import Localization
import Runtime
import SystemIO
import Transport
import Shell
import Terminal
import TerminalModel
import TrackingCore

/// `handsfree bench ui`: render + diff cost per frame, and live UDP latency and CPU at 60 frames/s.
public struct UIBench {
    /// Frames per render measurement.
    public var frames = 3000
    /// Seconds of live UDP input at 60 frames/s.
    public var seconds = 10.0
    /// UDP port for the live part (0: pick a free one).
    public var port: UInt16 = 0
    /// The parts to run: render, live, loop (the moving gaze at 60 and 600 frames/s), still.
    public var parts: Set<String> = ["render", "live", "loop", "still"]

    public init() {}

    /// Render costs per screen and size, then the live and the loop measurements.
    public func run(out: BenchReport) throws {
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let settings = GestureConfig.defaults()
        let km = try Setup.keymap("default", gestures: settings.gestures)
        // fopen only opens /dev/null for writing; nothing ever replaces the device node.
        guard let devnull = fopen("/dev/null", "w"), let nullIn = fopen("/dev/null", "r") else {
            throw SetupError(UIMessage("cannot open {file} ({reason})", ["file": "/dev/null"], reasons: ["reason": .system(String(cString: strerror(errno)))]))
        }
        defer { fclose(devnull); fclose(nullIn) }
        let term = try Terminal(type: "xterm-256color", output: devnull, input: nullIn)
        defer { term.stop() }
        var results: [String] = []
        for size in [Size(width: 100, height: 30), Size(width: 200, height: 60)] where parts.contains("render") {
            for screen in ["launcher", "help", "terminal"] {
                results.append(renderBench(term: term, size: size, screen: screen, keymap: km, settings: settings))
            }
        }
        term.stop()
        for r in results { out(r) }
        if parts.contains("live") { try liveBench(keymap: km, settings: settings, out: out) }
        try loopBench(keymap: km, settings: settings, out: out)
        if parts.contains("still") { try liveStillBench(keymap: km, settings: settings, out: out) }
    }

    /// Frames with a moving gaze and changing meters, as a live session sees them.
    func frame(_ i: Int, t: Double) -> TrackingFrame {
        let phase = Double(i % 120) / 120
        return TrackingFrame(t: t, blend: BlendShapes([.jawOpen: Float(phase * 0.4), .eyeBlinkLeft: Float(0.1 + phase * 0.2)]),
                             gaze: GazePoint(x: 0.2 + 0.6 * phase, y: 0.3 + 0.4 * phase))
    }

    func renderBench(term: Terminal, size: Size, screen: String, keymap: Keymap, settings: PipelineSettings) -> String {
        term.resize(size)
        var state = ShellState(keymap: keymap, gestures: settings.gestures, size: size, source: "bench")
        state.show(screen: screen)
        if screen == "terminal", let pane = state.hitMap.target(id: TerminalScreen.paneID)?.rect {
            // A pane full of a listing's text, as after `ls -l`: every cell is drawn at every frame.
            var v = TerminalView.blank(rows: pane.h, cols: pane.w, program: "bash")
            let line = Array("-rwxr-xr-x 1 root root   14720 Jan  9  2023 handsfree-\(size.width)x\(size.height) ")
            for i in v.snapshot.cells.indices { v.snapshot.cells[i] = TerminalCell(text: String(line[i % line.count])) }
            _ = reduce(&state, .terminal(v))
        }
        var session = Session(state: state, settings: settings)
        var stepT = 0.0, renderT = 0.0, drawT = 0.0, cells = 0
        for i in 0..<frames {
            let a = LiveClock().now()
            _ = session.step(.frame(frame(i, t: Double(i) / 60), nil))
            let b = LiveClock().now()
            let grid = render(session.state, size: size).0
            let c = LiveClock().now()
            term.draw(grid)
            let d = LiveClock().now()
            stepT += b - a; renderT += c - b; drawT += d - c
            cells += term.lastChangedCells
        }
        let n = Double(frames)
        func us(_ v: Double) -> String { String(format: "%7.1f µs", v / n * 1e6) }
        return "render+diff \(size) \(screen.padding(toLength: 8, withPad: " ", startingAt: 0)): render \(us(renderT)), diff+write \(us(drawT)), "
            + "total \(us(renderT + drawT)) per frame (pipeline+reducer \(us(stepT)); \(cells / frames) cells changed per frame)"
    }

    /// Runs the real loop (`ShellRuntime`) on a paced replay drawn into a pty, at a tracker's 60 frames/s
    /// and at a flood's 600: drawings per input frame must stay at or below one, and at a flood the drawing
    /// is capped at the display's rate.
    func loopBench(keymap: Keymap, settings: PipelineSettings, out: BenchReport) throws {
        // Last, a still face at 60 frames/s: a tracker followed while nothing on the screen changes, whose cost
        // should be little more than decoding the frames.
        for (rate, still) in [(60.0, false), (600.0, false), (60.0, true)] where parts.contains(still ? "still" : "loop") {
            let pty = try DrainedPTY()
            let size = Size(width: 100, height: 30)
            let n = Int(min(seconds, 10) * 60) + (still ? 120 : 0)
            let items: [DecodedItem] = (0..<n).map { i in
                guard still else {
                    let g = 0.2 + 0.6 * Double(i % 120) / 120
                    return .frame(TrackingFrame(t: Double(i) / 60, blend: BlendShapes([.jawOpen: Float(g / 3)]),
                                                gaze: GazePoint(x: g, y: 0.4)), nil)
                }
                let face = Self.stillFace(i)
                return .frame(TrackingFrame(t: Double(i) / 60, blend: BlendShapes([.jawOpen: Float(face.jaw)]), gaze: face.gaze), nil)
            }
            let session = Session(state: ShellState(keymap: keymap, gestures: settings.gestures, size: size,
                                                    source: "bench"), settings: settings)
            // The user's own state folder gets no benchmark actions in its log.
            let scratch = UserPaths(environment: ["HOME": NSTemporaryDirectory() + "handsfree-bench-ui"], dataDir: nil)
            var runtime = ShellRuntime(session: session, feed: .replay(items: items, speed: rate / 60, name: "bench"),
                                       exitAtEnd: true, paths: scratch)
            runtime.display = { PtyDisplay(try Terminal(type: "xterm-256color", output: pty.slave, input: pty.slave), size: size) }
            // The still face is measured once it has settled: the first two seconds arm the shell (a still face
            // is waited for) and fill the dwell on the target under the gaze, which are changes on the screen.
            let loopCPU = cpuClockOfThisThread()
            let steady = Locked<(cpu: Double, wall: Double)?>(nil)
            let sampler = Thread {
                usleep(2_000_000)
                let a = (cpu: loopCPU(), wall: LiveClock().now())
                usleep(UInt32(max(1, Double(n) / 60 - 2.5) * 1e6))
                steady.update { $0 = (loopCPU() - a.cpu, LiveClock().now() - a.wall) }
            }
            if still { sampler.start() }
            let cpu0 = threadCPUSeconds(), wall0 = LiveClock().now()
            try runtime.run()
            let cpu = threadCPUSeconds() - cpu0, wall = LiveClock().now() - wall0
            pty.close()
            let perFrame = Double(runtime.renders) / Double(max(1, runtime.framesIn))
            if still {
                let settledCPU = steady.value.map { $0.cpu / $0.wall * 100 } ?? .nan
                out(String(format: "real loop, still face at %.0f frames/s (a tracker's jitter, nothing changes on screen) into a pty: %d frames, %d drawings, %d skipped as unchanged, %d wake-ups; CPU %.2f%% of one core once settled (goal ≤ 1%%), %.2f%% over the whole run with its start",
                           rate, runtime.framesIn, runtime.renders, runtime.unchanged, runtime.wakeups, settledCPU, cpu / wall * 100))
                continue
            }
            out(String(format: "real loop, replay at %.0f frames/s into a pty: %d frames, %d drawings: %.2f drawings per input frame (goal ≤ 1.0, at most one per displayed frame: %.0f/s); CPU %.1f%% of one core",
                         rate, runtime.framesIn, runtime.renders, perFrame, 1 / runtime.frameInterval, cpu / wall * 100))
        }
    }

    /// Frame `i` of a face that does not move, with a tracker's jitter: a few thousandths on the jaw and the
    /// gaze.
    static func stillFace(_ i: Int) -> (jaw: Double, gaze: GazePoint) {
        let jitter = { (k: Int) in Double((i * 7919 + k * 104_729) % 201 - 100) / 100 }
        return (0.17 + 0.004 * jitter(1), GazePoint(x: 0.505 + 0.001 * jitter(2), y: 0.405 + 0.001 * jitter(3)))
    }

    /// The still face as a live tracker sends it: NDJSON datagrams over UDP on 127.0.0.1 at 60 frames/s with a
    /// tracker's jitter, into the real loop (socket, decoding, pipeline, reducer, `FrameLook`) drawing into a
    /// pty; CPU of the loop's thread once settled, without the sender's.
    func liveStillBench(keymap: Keymap, settings: PipelineSettings, out: BenchReport) throws {
        let receiver = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let port = receiver.port
        let total = Int(min(seconds, 10) * 60) + 120
        let loopCPU = cpuClockOfThisThread()
        let steady = Locked<(cpu: Double, wall: Double)?>(nil)
        let size = Size(width: 100, height: 30)
        // The loop leaves once the sender is done: the display's input hangs up then.
        let display = try BenchPaneDisplay(size: size, endWhenChildEnds: false)
        let sender = Thread {
            let udp = LoopbackSender(port: port)
            let start = LiveClock().now()
            var settled: (cpu: Double, wall: Double)?
            for i in 0..<total {
                let wait = start + Double(i) / 60 - LiveClock().now()
                if wait > 0 { usleep(UInt32(wait * 1e6)) }
                if i == 120 { settled = (loopCPU(), LiveClock().now()) }
                let face = Self.stillFace(i)
                udp.send("{\"t\": \(Double(i) / 60), \"face\": true, \"blend\": {\"jawOpen\": \(face.jaw)}, "
                         + "\"gaze\": [\(face.gaze.x), \(face.gaze.y)]}")
            }
            if let a = settled { steady.update { $0 = (loopCPU() - a.cpu, LiveClock().now() - a.wall) } }
            display.finish()
        }
        let session = Session(state: ShellState(keymap: keymap, gestures: settings.gestures, size: size,
                                                source: receiver.address.description), settings: settings)
        let scratch = UserPaths(environment: ["HOME": NSTemporaryDirectory() + "handsfree-bench-ui"], dataDir: nil)
        var runtime = ShellRuntime(session: session, feed: .live(receiver), exitAtEnd: false, paths: scratch)
        runtime.display = { display }
        sender.start()
        try runtime.run()
        let settledCPU = steady.value.map { $0.cpu / $0.wall * 100 } ?? .nan
        out(String(format: "live udp still face at 60 frames/s (a tracker's jitter, nothing changes on screen) into a pty: %d frames, %d drawings, %d skipped as unchanged; CPU %.2f%% of one core once settled (goal ≤ 1%%)",
                   runtime.framesIn, runtime.renders, runtime.unchanged, settledCPU))
    }

    /// A sender thread paces NDJSON datagrams at 60/s, stamping each frame's `t` with its send time on the
    /// monotonic clock; the main thread runs the real loop (poll, decode, pipeline, reducer, render, diff)
    /// into a pty, so latency = written − sent, and CPU is this thread's own.
    func liveBench(keymap: Keymap, settings: PipelineSettings, out: BenchReport) throws {
        let pty = try DrainedPTY()
        let receiver = try LiveSource(ListenAddress(proto: .udp, port: UInt16(port)))
        let boundPort = receiver.port
        let total = Int(seconds * 60)
        let sender = Thread {
            let udp = LoopbackSender(port: boundPort)
            let start = LiveClock().now()
            for i in 0..<total {
                let due = start + Double(i) / 60
                let wait = due - LiveClock().now()
                if wait > 0 { usleep(UInt32(wait * 1e6)) }
                let g = 0.2 + 0.6 * Double(i % 120) / 120
                udp.send("{\"t\": \(LiveClock().now()), \"face\": true, \"blend\": {\"jawOpen\": \(g / 3)}, \"gaze\": [\(g), 0.4]}")
            }
        }
        let term = try Terminal(type: "xterm-256color", output: pty.slave, input: pty.slave)
        let size = Size(width: 100, height: 30)
        term.resize(size)
        var session = Session(state: ShellState(keymap: keymap, gestures: settings.gestures, size: size,
                                                source: receiver.address.description), settings: settings)
        var latencies: [Double] = []
        latencies.reserveCapacity(total)
        // This thread's CPU time: the loop a live session runs, without the sender and pty reader threads.
        let cpuStart = threadCPUSeconds()
        let wallStart = LiveClock().now()
        sender.start()
        var lastFrame = LiveClock().now()
        while latencies.count < total && LiveClock().now() - lastFrame < 2 {
            var fds = receiver.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, 1, 50)
            var sent: [Double] = []
            for item in receiver.drain() {
                _ = session.step(item)
                if case .frame(let f, _) = item { sent.append(f.t) }
            }
            guard !sent.isEmpty else { continue }
            term.draw(render(session.state, size: size).0)
            let written = LiveClock().now()
            lastFrame = written
            for s in sent { latencies.append(written - s) }
        }
        let wall = LiveClock().now() - wallStart
        let cpu = threadCPUSeconds() - cpuStart
        term.stop()
        pty.close()
        latencies.sort()
        func pct(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000 }
        out(String(format: "live udp 60 fps, 100x30 into a pty: %d/%d frames, datagram sent → terminal written p50 %.2f ms, p99 %.2f ms, max %.2f ms; CPU %.2f%% of one core (%.3f s over %.1f s)",
                     latencies.count, total, pct(0.5), pct(0.99), pct(1.0), cpu / wall * 100, cpu, wall))
    }
}
