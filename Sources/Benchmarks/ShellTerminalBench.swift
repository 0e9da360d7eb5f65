#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import PtyHost
import Runtime
import Shell
import TerminalModel
import SystemIO
import Terminal
import TrackingCore
import Transport

/// The Terminal screen's side of `bench terminal`: the real loop (`ShellRuntime`) with the child on its pty,
/// views at the display rate, the shell's render and curses drawing into a pty that a thread drains.
struct ShellTerminalBench {
    let width: Int, height: Int, fps: Double

    var size: Size { Size(width: width, height: height) }

    /// The settings and default keymap the shell starts with.
    static func setup() throws -> (PipelineSettings, Keymap) {
        let settings = GestureConfig.defaults()
        return (settings, try Setup.keymap("default", gestures: settings.gestures))
    }

    /// The word predictor `run` gives the shell (loaded, nothing saved), so each drawing costs what it costs a
    /// user.
    static let predictor: Predictor = LivePrediction.loadNow(userFile: nil).0

    /// A state on the Terminal screen at the bench's size.
    func state(_ keymap: Keymap, _ settings: PipelineSettings, source: String = "bench") -> ShellState {
        var s = ShellState(keymap: keymap, gestures: settings.gestures, size: size, source: source, predictor: Self.predictor)
        s.show(screen: "terminal")
        return s
    }

    /// The pane the Terminal screen lays out at this size: the child's pty size.
    func paneSize() throws -> (rows: Int, cols: Int) {
        let (settings, km) = try Self.setup()
        guard let r = state(km, settings).hitMap.target(id: TerminalScreen.paneID)?.rect else {
            throw BenchError("the Terminal screen has no pane at \(width)x\(height)")
        }
        return (r.h, r.w)
    }

    /// The real loop on the Terminal screen with `argv` in the pane, drawing into `display`; its user files
    /// go to a scratch folder, never the user's own.
    func runtime(_ argv: [String], display: BenchPaneDisplay, feed: FrameFeed = .none, source: String = "bench") throws -> ShellRuntime {
        let (settings, km) = try Self.setup()
        let scratch = UserPaths(environment: ["HOME": NSTemporaryDirectory() + "handsfree-bench-terminal"], dataDir: nil)
        var r = ShellRuntime(session: Session(state: state(km, settings, source: source), settings: settings), feed: feed,
                             exitAtEnd: false, paths: scratch)
        r.frameInterval = 1 / fps
        r.terminal = TerminalLink(.child(argv: argv))
        // The suggestion bar a user sees at every key, with the programs and files it reads.
        r.commandLineFiles = CommandLineFiles()
        r.display = { display }
        return r
    }

    struct Run { var wall = 0.0, cpu = 0.0, renders = 0 }

    /// Runs `argv` on the Terminal screen until it ends; the loop leaves when the pane shows its end.
    func throughput(argv: [String]) throws -> Run {
        let display = try BenchPaneDisplay(size: size, endWhenChildEnds: true)
        var runtime = try runtime(argv, display: display)
        let cpu0 = processCPUSeconds(), start = LiveClock().now()
        try runtime.run()
        return Run(wall: LiveClock().now() - start, cpu: processCPUSeconds() - cpu0, renders: runtime.renders)
    }

    /// CPU of this process (the whole shell) and of the child over `seconds` of an idle pane.
    func idleCPU(argv: [String], seconds: Double) throws -> (ours: Double, child: Double) {
        let display = try BenchPaneDisplay(size: size, endWhenChildEnds: false)
        var runtime = try runtime(argv, display: display)
        let measured = Locked<(Double, Double)>((0, 0))
        let timer = Thread {
            usleep(1_500_000)   // started and settled at its prompt
            // The loop's thread started the child: its one child process.
            let me = getpid()
            let kids = (try? String(contentsOfFile: "/proc/\(me)/task/\(me)/children", encoding: .utf8)) ?? ""
            let pid = kids.split(separator: " ").first.flatMap { pid_t($0) } ?? 0
            let c0 = processCPUSeconds(), k0 = procCPUSeconds(pid), t0 = LiveClock().now()
            usleep(UInt32(seconds * 1e6))
            let wall = LiveClock().now() - t0
            measured.update { $0 = ((processCPUSeconds() - c0) / wall, (procCPUSeconds(pid) - k0) / wall) }
            display.finish()
        }
        timer.start()
        try runtime.run()
        return measured.value
    }

    /// Gaze on the → key and the jaw opens, `trials` times, over UDP on 127.0.0.1 at 60 frames/s
    /// while `argv` runs in the pane; the time from the first open-jaw datagram to the drawing that shows the
    /// action performed.
    func gestureResponse(argv: [String], trials: Int) throws -> TerminalBench.Latency {
        let (settings, km) = try Self.setup()
        let receiver = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let port = receiver.port
        guard let key = state(km, settings).hitMap.target(id: "terminal.key.right")?.rect else {
            throw BenchError("no → key on the Terminal screen")
        }
        let gaze = ((Double(key.x) + Double(key.w) / 2) / Double(width), (Double(key.y) + Double(key.h) / 2) / Double(height))
        let display = try BenchPaneDisplay(size: size, endWhenChildEnds: false)
        let opens = Locked<[Double]>([])
        let sender = Thread {
            let out = LoopbackSender(port: port)
            var due = LiveClock().now()
            func send(jaw: Double, seconds: Double, mark: Bool = false) {
                for i in 0..<Int(seconds * 60) {
                    due += 1.0 / 60
                    let wait = due - LiveClock().now()
                    if wait > 0 { usleep(UInt32(wait * 1e6)) }
                    let now = LiveClock().now()
                    if mark && i == 0 { opens.update { $0.append(now) } }
                    out.send("{\"t\": \(now), \"face\": true, \"blend\": {\"jawOpen\": \(jaw)}, \"gaze\": [\(gaze.0), \(gaze.1)]}")
                }
            }
            send(jaw: 0, seconds: 1.5)   // safe start, and the flood under way
            for _ in 0..<trials {
                send(jaw: 0, seconds: 0.5)
                send(jaw: 0.8, seconds: 0.4, mark: true)
            }
            send(jaw: 0, seconds: 0.5)
            display.finish()
        }
        var runtime = try runtime(argv, display: display, feed: .live(receiver), source: receiver.address.description)
        sender.start()
        try runtime.run()
        let shown = display.performedAt(action: "type")
        var samples: [Double] = []
        for open in opens.value {
            if let t = shown.first(where: { $0 >= open }) { samples.append(t - open) }
        }
        var lat = TerminalBench.latency(samples)
        lat.missed = opens.value.count - samples.count
        return lat
    }
}

extension ShellTerminalBench {
    /// A helper's key (a letter, then Backspace) into bash on the Terminal screen, through the real loop:
    /// key read → reducer → pty → bash's echo → libvterm → view → render → curses; `keys` times.
    func echoLatency(keys: Int) throws -> TerminalBench.Latency {
        let display = try BenchPaneDisplay(size: size, endWhenChildEnds: false)
        var runtime = try runtime(["env", "PS1=$ ", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile"], display: display)
        let samples = Locked<[Double]>([])
        let driver = Thread {
            // The prompt first: an empty press-free wait for "$ ".
            let start = LiveClock().now()
            while LiveClock().now() - start < 10 {
                if display.lastLine.value == "$ " { break }
                usleep(10_000)
            }
            for i in 0..<keys {
                // Each key meets an idle loop, as in use, not the display-rate cap of a burst.
                usleep(TerminalBench.keyGap)
                let typing = i % 2 == 0
                guard let dt = display.press(typing ? 0x61 : 0x7f, until: typing ? "$ a" : "$ ") else { break }
                samples.update { $0.append(dt) }
            }
            display.finish()
        }
        driver.start()
        try runtime.run()
        var lat = TerminalBench.latency(samples.value)
        lat.missed = keys - samples.value.count
        lat.paneAlone = runtime.paneDrawings
        return lat
    }
}

/// Draws the shell with curses into a pty a thread drains (as a terminal would read it), notes when each
/// action was drawn, and ends the loop (a hang-up on its input) when asked or when the pane's program ended.
final class BenchPaneDisplay: ShellDisplay, @unchecked Sendable {
    let inner: PtyDisplay
    let size: Size
    private let pty: DrainedPTY
    private var pipeFDs: [Int32] = [-1, -1]
    private let endWhenChildEnds: Bool
    private let shown = Locked<[(Double, String)]>([])
    /// The pane's cursor line at the last drawing.
    let lastLine = Locked<String>("")

    init(size: Size, endWhenChildEnds: Bool) throws {
        pty = try DrainedPTY()
        self.size = size; self.endWhenChildEnds = endWhenChildEnds
        inner = PtyDisplay(try Terminal(type: "xterm-256color", output: pty.slave, input: pty.slave), size: size)
        guard pipe(&pipeFDs) == 0 else { throw BenchError("cannot make a pipe") }
        _ = fcntl(pipeFDs[0], F_SETFL, fcntl(pipeFDs[0], F_GETFL) | O_NONBLOCK)
    }

    var inputFD: Int32 { pipeFDs[0] }
    /// Keys written by `press`: a letter, or 0x7f for Backspace.
    func readInput() -> TerminalInput? {
        var b: UInt8 = 0
        guard pipeFDs[0] >= 0, read(pipeFDs[0], &b, 1) == 1 else { return nil }
        return .key(b == 0x7f ? .backspace : .char(Character(UnicodeScalar(b))))
    }
    /// Presses a key as a helper at the keyboard would, and waits until a drawing shows `line` on the pane's
    /// cursor line; returns the seconds from the press to that drawing (nil after 5 s).
    func press(_ byte: UInt8, until line: String) -> Double? {
        echoWanted.update { $0 = line }
        var b = byte
        let t0 = LiveClock().now()
        guard write(pipeFDs[1], &b, 1) == 1 else { return nil }
        guard echoSeen.wait(timeout: .now() + 5) == .success else { return nil }
        return LiveClock().now() - t0
    }
    private let echoWanted = Locked<String?>(nil)
    private let echoSeen = DispatchSemaphore(value: 0)
    func inputHungUp() -> Bool { true }
    func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool {
        guard inner.showPane(state, view: view, drawn: drawn) else { return false }
        lastLine.update { $0 = view.lineBeforeCursor }
        shownEcho(view)
        return true
    }
    /// Signals the press waiting for `line` once a drawing shows it.
    private func shownEcho(_ view: TerminalView?) {
        if let want = echoWanted.value, view?.lineBeforeCursor == want {
            echoWanted.update { $0 = nil }
            echoSeen.signal()
        }
    }
    func show(_ state: ShellState, performed: [ActionRecord]) {
        inner.show(state, performed: performed)
        if let v = state.terminal { lastLine.update { $0 = v.lineBeforeCursor } }
        let now = LiveClock().now()
        if !performed.isEmpty { shown.update { s in for p in performed { s.append((now, p.action)) } } }
        if endWhenChildEnds, state.terminal?.ended != nil { finish() }
        shownEcho(state.terminal)
    }
    /// Ends the loop: its input hangs up.
    func finish() {
        shown.update { _ in
            if pipeFDs[1] >= 0 { close(pipeFDs[1]); pipeFDs[1] = -1 }
        }
    }
    func performedAt(action: String) -> [Double] { shown.value.filter { $0.1 == action }.map(\.0) }
    func stop() {
        inner.stop()
        pty.close()
        if pipeFDs[0] >= 0 { close(pipeFDs[0]) }
    }
}
