#if canImport(Glibc)
import Glibc
#endif
import FrameFormats
import Foundation
import Localization
import Runtime
import Shell
import SystemIO
import TrackingCore
import Transport

/// The bench's time base: frames carry seconds since the bench began, as a tracker's own clock would.
public final class FloodClock: Sendable {
    public let start = LiveClock().now()
    public var now: Double { LiveClock().now() - start + 1 }
    /// When a frame stamped `t` was sent, on the monotonic clock.
    public func sentAt(_ t: Double) -> Double { t + start - 1 }
    public init() {}
}

/// The shell under test: this binary's `run --listen` in a tmux session of its own at 100×30.
public final class FloodShell {
    public let name = "hf-bench-flood-\(getpid())"
    public let dir = NSTemporaryDirectory() + "hf-bench-flood-\(getpid())"
    public let port: UInt16
    public let pid: pid_t
    public private(set) var crashed = false

    private init(port: UInt16, pid: pid_t) { self.port = port; self.pid = pid }

    public static func start(binary: String?) throws -> FloodShell {
        // A free port: bind port 0, note it, release it for the shell.
        let port = try LiveSource(ListenAddress(proto: .udp, port: 0)).port
        let exe = binary ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let dir = NSTemporaryDirectory() + "hf-bench-flood-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let name = "hf-bench-flood-\(getpid())"
        let cmd = "exec env LANG=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data "
            + "'\(exe)' run --no-speech --no-onboarding --listen udp://127.0.0.1:\(port) 2>\(dir)/stderr"
        _ = tmux(name, ["new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd])
        guard let pid = pid_t(tmux(name, ["display-message", "-p", "-t", name, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SetupError(UIMessage("tmux did not start the shell"))
        }
        let s = FloodShell(port: port, pid: pid)
        guard s.waitFor(10, { $0.first?.contains("HandsFree │ Home") == true }) != nil else {
            throw SetupError(UIMessage("the shell did not start; its screen:\n{screen}", ["screen": s.screen().joined(separator: "\n")]))
        }
        return s
    }

    @discardableResult
    public static func tmux(_ name: String, _ args: [String]) -> String {
        func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let cmd = "tmux -L \(q(name)) -f /dev/null " + args.map(q).joined(separator: " ") + " 2>/dev/null"
        guard let f = popen(cmd, "r") else { return "" }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        pclose(f)
        return String(decoding: out, as: UTF8.self)
    }

    public func screen() -> [String] { Self.tmux(name, ["capture-pane", "-p", "-t", name]).components(separatedBy: "\n") }

    /// Polls the screen until `ok` holds; returns the time it first held, nil after `seconds`.
    public func waitFor(_ seconds: Double, _ ok: ([String]) -> Bool) -> Double? {
        let end = LiveClock().now() + seconds
        while LiveClock().now() < end {
            if ok(screen()) { return LiveClock().now() }
            usleep(2_000)
        }
        return nil
    }

    public var alive: Bool { kill(pid, 0) == 0 }

    /// Resident memory in KiB (VmRSS).
    public func rss() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { crashed = !alive; return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// User + system CPU seconds of the shell process.
    public func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let f = text[text.index(after: close)...].split(separator: " ")
        // Fields after the command name start at field 3 (state); utime and stime are fields 14 and 15.
        guard f.count > 13, let u = Double(f[11]), let s = Double(f[12]) else { return 0 }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private var title: String { screen().first ?? "" }

    /// `?` opens Help: the time from sending the key (or `sentAt`) until the title shows it; then back home.
    public func keyLatency(sentAt: Double? = nil) -> Double? {
        let sent = LiveClock().now()
        Self.tmux(name, ["send-keys", "-t", name, "?"])
        let shown = waitFor(10) { $0.first?.contains("› Help") == true }
        Self.tmux(name, ["send-keys", "-t", name, "Escape"])
        _ = waitFor(10) { $0.first?.contains("Home ›") == false }
        return shown.map { $0 - (sentAt ?? sent) }
    }

    /// Gaze on Notes and the jaw opened: the time from sending the frame that completed the gesture (its
    /// time stamp, from the action the shell logged) until the screen shows Notes; then back home.
    public func gestureLatency(_ p: GesturePlayer) -> Double? {
        // The frames play on their own thread while this one watches the screen.
        let done = DispatchSemaphore(value: 0)
        Thread { p.openNotes(); done.signal() }.start()
        let shown = waitFor(10) { $0.first?.contains("› Notes") == true }
        done.wait()
        Self.tmux(name, ["send-keys", "-t", name, "Escape"])
        _ = waitFor(10) { $0.first?.contains("Home ›") == false }
        guard let shown, lastOpenNotes() != nil, let completed = p.completedAt else { return nil }
        return shown - completed
    }

    /// The frame time of the newest `open launcher.notes` in the shell's action log.
    private func lastOpenNotes() -> Double? {
        guard let text = try? String(contentsOfFile: dir + "/state/handsfree/shell.log", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").last { $0.contains("\"action\": \"open\"") && $0.contains("launcher.notes") }
        guard let line, let data = String(line).data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return obj["t"] as? Double
    }

    /// Ends the shell with SIGTERM; returns the summary line it printed.
    public func stop() -> String {
        crashed = crashed || !alive
        kill(pid, SIGTERM)
        let end = LiveClock().now() + 5
        while alive && LiveClock().now() < end { usleep(20_000) }
        let err = (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? ""
        return err.split(separator: "\n").last { $0.hasPrefix("handsfree: ended") }.map(String.init) ?? ""
    }

    public func remove() {
        Self.tmux(name, ["kill-server"])
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// Plays NDJSON frames at 60 per second from one socket, stamped with the bench clock.
public final class GesturePlayer: @unchecked Sendable {
    public let sender: FrameSender
    public let clock: FloodClock
    public let gaze: GazePoint
    public let settings: PipelineSettings

    public init(port: UInt16, clock: FloodClock, gaze: GazePoint, settings: PipelineSettings) throws {
        sender = try FrameSender(to: ListenAddress(proto: .udp, port: port))
        self.clock = clock; self.gaze = gaze; self.settings = settings
    }

    private func frame(jaw: Float, gaze: GazePoint?) -> TrackingFrame {
        TrackingFrame(t: clock.now, blend: BlendShapes([.jawOpen: jaw]), gaze: gaze)
    }

    /// A resting face looking at no target.
    public func neutral(seconds: Double) {
        for _ in 0..<Int(seconds * 60) {
            sender.send(Array((NDJSONEncoder.encode(frame(jaw: 0, gaze: GazePoint(x: 0.5, y: 0.98))) + "\n").utf8))
            usleep(16_667)
        }
    }

    /// When the frame that completed the last `openNotes` gesture was sent (monotonic seconds).
    public private(set) var completedAt: Double?

    /// The activate gesture's hold: the jaw frame that completes it is the first this long after the opening.
    var hold: Double {
        for g in settings.gestures where g.name == "activate" { if case .threshold(let s) = g.kind { return s.hold } }
        return 0
    }

    /// A resting face on Notes, then the jaw held open, then resting again. Notes the send time of the frame
    /// that completes the gesture (frames carry their send time, so it is the first a hold after the opening):
    /// the shell's own clock of the gesture may be offset by clock jumps the flood's foreign frames caused.
    public func openNotes() {
        completedAt = nil
        var opened: Double?
        for (jaw, secs) in [(Float(0), 1.2), (0.8, 0.8), (0, 0.4)] {
            for _ in 0..<Int(secs * 60) {
                let f = frame(jaw: jaw, gaze: gaze)
                sender.send(Array((NDJSONEncoder.encode(f) + "\n").utf8))
                if jaw > 0 {
                    if opened == nil { opened = f.t }
                    if completedAt == nil, let o = opened, f.t - o >= hold { completedAt = clock.sentAt(f.t) }
                }
                usleep(16_667)
            }
        }
    }
}
/// The flood: sender threads, each pacing its share in 1 ms batches.
public final class Flood: @unchecked Sendable {
    public struct Counts {
        public var ndjson = 0, liveLink = 0, garbage = 0, big = 0
        public var total: Int { ndjson + liveLink + garbage + big }
        public func share(_ n: Int) -> Double { total == 0 ? 0 : Double(n) * 100 / Double(total) }
    }
    public let port: UInt16, rate: Int, seconds: Double, threads: Int
    public let clock: FloodClock
    private let lock = NSLock()
    private var counts = Counts()
    private var running = 0
    private var begun = 0.0
    public private(set) var endedAt: Double?

    public init(port: UInt16, rate: Int, seconds: Double, threads: Int, clock: FloodClock) {
        self.port = port; self.rate = rate; self.seconds = seconds; self.threads = threads; self.clock = clock
    }

    public var sent: Counts { lock.withLock { counts } }
    public var finished: Bool { lock.withLock { running == 0 } }
    public var elapsed: Double { lock.withLock { (endedAt ?? LiveClock().now()) - begun } }

    public func start() {
        lock.withLock { running = threads; begun = LiveClock().now() }
        for k in 0..<threads {
            let t = Thread { [self] in self.send(thread: k) }
            t.start()
        }
    }

    private func send(thread k: Int) {
        var c = Counts()
        defer {
            lock.withLock {
                counts.ndjson += c.ndjson; counts.liveLink += c.liveLink; counts.garbage += c.garbage; counts.big += c.big
                running -= 1
                if running == 0 { endedAt = LiveClock().now() }
            }
        }
        guard let s = try? FrameSender(to: ListenAddress(proto: .udp, port: port)) else { return }
        var rng = SystemRandomNumberGenerator()
        let perMs = max(1, rate / threads / 1000)
        // 60 KB: one datagram in a hundred; a valid-looking JSON object and raw bytes in turn.
        let bigJSON = Array(("{\"t\": 1, \"pad\": \"" + String(repeating: "x", count: 60_000) + "\"}").utf8)
        let bigRaw = (0..<61_440).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let garbage: [[UInt8]] = [[0xFF, 0x00, 0x13], Array("{\"t\": ".utf8), Array("not a frame\n".utf8),
                                  (0..<200).map { _ in UInt8.random(in: 0...255, using: &rng) }]
        let start = LiveClock().now()
        var batch = 0
        var i = k
        while true {
            let due = start + Double(batch) / 1000
            if due - start >= seconds { break }
            let wait = due - LiveClock().now()
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            let t = clock.now
            for _ in 0..<perMs {
                i += 1
                switch i % 100 {
                case 0:
                    s.send(i % 200 == 0 ? bigJSON : bigRaw); c.big += 1
                case 1...40:
                    // Resting face looking at no target: valid frames that must not act.
                    s.send(Array("{\"t\": \(t), \"face\": true, \"blend\": {\"jawOpen\": 0.02}, \"gaze\": [0.5, 0.98]}".utf8))
                    c.ndjson += 1
                case 41...60:
                    s.send(LiveLinkUDP.encode(TrackingFrame(t: t))); c.liveLink += 1
                default:
                    s.send(garbage[i % garbage.count]); c.garbage += 1
                }
            }
            batch += 1
        }
    }
}
