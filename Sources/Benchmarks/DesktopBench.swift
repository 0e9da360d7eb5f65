#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime
import Shell
import SystemIO
import TerminalModel
import TrackingCore

/// `handsfree bench desktop`: the desktop sinks (X11 through XTest, Wayland through the virtual keyboard and
/// pointer) typing into a terminal that runs `cat > FILE`, beside `xdotool` and `wtype` in the same run.
///
/// Each back end gets a headless desktop of its own (Xvfb; sway with the headless backend) unless one is
/// named. What arrives in FILE is compared with what was typed, so a dropped or reordered character shows.
public struct DesktopBench {
    /// Characters of the correctness and throughput text.
    public var chars = 10_000
    /// Single keys for the latency figures.
    public var keys = 300
    /// Pointer positions for the updates-per-second figure (and gaze frames for the gaze → pointer one).
    public var moves = 2_000
    /// `x11` or `wayland` to run one back end only.
    public var only: String?
    /// An X display to use instead of starting Xvfb.
    public var display: String?
    /// A Wayland socket (name in `XDG_RUNTIME_DIR`, or a path) to use instead of starting sway.
    public var waylandSocket: String?
    /// Skip the xdotool and wtype sides.
    public var noPeers = false

    public init() {}

    /// How a text typed through one typist arrived.
    public struct Typed: Sendable, Equatable {
        public var backEnd: String
        public var typist: String
        /// Characters sent and characters found in FILE.
        public var sent: Int, arrived: Int
        /// The first offset where FILE differs from the text (nil: identical).
        public var firstMismatch: Int?
        /// Characters per second from the first key to the last character in FILE (nil: it never all came).
        public var charsPerSecond: Double?
        /// Whether every character arrived, in order.
        public var exact: Bool { firstMismatch == nil }
    }

    /// Latencies in seconds, as measured (the summary is computed when printed).
    public struct Latency: Sendable, Equatable {
        public var samples: [Double] = []
        /// Keys that never reached FILE.
        public var lost = 0
        /// The sample at quantile `q` (0…1) of the sorted samples, NaN without any.
        public func quantile(_ q: Double) -> Double {
            guard !samples.isEmpty else { return .nan }
            let s = samples.sorted()
            return s[min(s.count - 1, Int(Double(s.count - 1) * q + 0.5))]
        }
    }

    /// What a run found: the typed texts (checked) and the figures beside them.
    public struct Figures: Sendable, Equatable {
        public var typed: [Typed] = []
        /// Back ends that were measured, and those skipped with the reason.
        public var measured: [String] = []
        public var skipped: [String: String] = [:]
    }

    /// A row of the final table.
    struct Row {
        var what: String
        var cells: [String]
    }

    /// Runs each back end there is, reporting each line as it is measured, then the table.
    public func run(out: BenchReport) throws -> Figures {
        var figures = Figures()
        var rows: [Row] = []
        let text = Self.text(chars: chars)
        out("machine: \(Self.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; \(text.count) characters (letters, digits, punctuation, spaces, a line break every ~60), \(keys) single keys, \(moves) pointer moves")
        for backEnd in ["x11", "wayland"] where only == nil || only == backEnd {
            do {
                let desk: any BenchDesktop = backEnd == "x11" ? try XBenchDesktop(display: display)
                                                              : try SwayBenchDesktop(socket: waylandSocket)
                defer { desk.stop() }
                rows += try measure(desk, text: text, figures: &figures, out: out)
                figures.measured.append(backEnd)
            } catch let e as DesktopBenchSkip {
                figures.skipped[backEnd] = e.reason
                out("\(backEnd): skipped: \(e.reason)")
            }
        }
        guard !figures.measured.isEmpty else { throw BenchError("no desktop back end could be measured: \(figures.skipped.values.joined(separator: "; "))") }
        out("")
        let header = ["chars", "arrived", "first mismatch", "chars/s", "key returns p50/p99", "key → FILE p50/p99"]
        let width = max(28, rows.map { $0.what.count }.max() ?? 0)
        let widths = [7, 8, 15, 9, 22, 22]
        func line(_ what: String, _ cells: [String]) -> String {
            what.padding(toLength: width, withPad: " ", startingAt: 0) + " "
                + zip(cells, widths).map { $0.0.padding(toLength: max($0.1, $0.0.count), withPad: " ", startingAt: 0) }.joined(separator: " ")
        }
        out(line("typist", header))
        for r in rows where r.cells.count == header.count { out(line(r.what, r.cells)) }
        for r in rows where r.cells.count != header.count { out(r.what + " " + r.cells.joined(separator: " ")) }
        out("goals: ≤ 2 ms p99 per key (key → FILE, ours), 0 dropped or reordered in 10,000 characters, pointer ≥ 60 updates/s (a tracker's frame rate)")
        return figures
    }

    // MARK: One back end

    private func measure(_ desk: any BenchDesktop, text: String, figures: inout Figures, out: BenchReport) throws -> [Row] {
        var rows: [Row] = []
        let name = desk.label
        out("\(name): \(desk.describe)")
        let sink = desk.sink()
        try sink.check()

        // Ours: the text, then single keys, into window 1.
        let ours = try desk.catWindow("handsfree")
        var typed = try typeText(text, into: ours) { try sink.type(text) }
        typed.backEnd = name; typed.typist = "handsfree \(desk.sinkLabel)"
        figures.typed.append(typed)
        out(describe(typed))
        let lat = try keyLatency(into: ours) { try sink.type("x\n") }
        out(String(format: "  %@ single key (x, Enter; 3 ms between keys): call returns (synced with the server) p50 %.3f ms, p99 %.3f ms; key → FILE p50 %.3f ms, p99 %.3f ms%@",
                   typed.typist, lat.returns.quantile(0.5) * 1e3, lat.returns.quantile(0.99) * 1e3,
                   lat.file.quantile(0.5) * 1e3, lat.file.quantile(0.99) * 1e3, lat.file.lost > 0 ? ", \(lat.file.lost) lost" : ""))
        rows.append(Row(what: "\(name) \(typed.typist)", cells: cells(typed, returns: lat.returns, file: lat.file)))

        // The peer, into window 2.
        if !noPeers, let peer = desk.peer {
            let theirs = try desk.catWindow(peer)
            var t = try typeText(text, into: theirs) { try desk.runPeer(desk.peerTypeArguments(text)) }
            t.backEnd = name; t.typist = "\(peer) (one process)"
            figures.typed.append(t)
            out(describe(t))
            let pl = try keyLatency(into: theirs, count: min(keys, 100)) { try desk.runPeer(desk.peerTypeArguments("x\n")) }
            out(String(format: "  %@ single key, a process per key (its start dominates): returns p50 %.2f ms, p99 %.2f ms; key → FILE p50 %.2f ms, p99 %.2f ms%@",
                       peer, pl.returns.quantile(0.5) * 1e3, pl.returns.quantile(0.99) * 1e3,
                       pl.file.quantile(0.5) * 1e3, pl.file.quantile(0.99) * 1e3, pl.file.lost > 0 ? ", \(pl.file.lost) lost" : ""))
            rows.append(Row(what: "\(name) \(peer)", cells: cells(t, returns: nil, file: nil)))
            rows.append(Row(what: "\(name) \(peer), process per key", cells: ["-", "-", "-", "-", ms(pl.returns), ms(pl.file)]))
        }

        // The pointer: positions as fast as the sink takes them, then gaze frames through DesktopPointer.
        var rng = Rng(seed: 7)
        var positions: [(Double, Double)] = (0..<moves).map { _ in (rng.unit(), rng.unit()) }
        positions.append((0.25, 0.75))
        let p0 = LiveClock().now()
        for (x, y) in positions { try sink.point(.moveTo(x: x, y: y)) }
        let rate = Double(positions.count) / (LiveClock().now() - p0)
        let check = desk.pointerCheck(x: 0.25, y: 0.75)
        out(String(format: "  pointer: %d moveTo through the sink, %.0f updates/s; final position %@", positions.count, rate, check))

        var desktop = DesktopPointer(mode: .gaze)
        var gaze = Latency()
        var events = 0
        for k in 0..<moves {
            // A slow circle: every frame moves the pointer more than the pointer's noise floor.
            let a = Double(k) * 0.05
            let sample = TrackingSample(t: Double(k) / 60, gaze: GazePoint(x: 0.5 + 0.3 * cos(a), y: 0.5 + 0.3 * sin(a)))
            let t0 = LiveClock().now()
            let steps = desktop.follow(sample, held: false)
            for m in steps { try sink.point(m) }
            gaze.samples.append(LiveClock().now() - t0)
            events += steps.count
        }
        out(String(format: "  gaze → pointer (a frame into DesktopPointer.follow, in gaze mode, to the sink's point returning, synced): p50 %.3f ms, p99 %.3f ms over %d frames (%d moves)",
                   gaze.quantile(0.5) * 1e3, gaze.quantile(0.99) * 1e3, moves, events))
        rows.append(Row(what: "\(name) pointer:", cells: [String(format: "%.0f updates/s (goal ≥ 60), final %@;", rate, check),
                                                          String(format: "gaze → pointer p50 %.3f ms, p99 %.3f ms", gaze.quantile(0.5) * 1e3, gaze.quantile(0.99) * 1e3)]))
        return rows
    }

    private func cells(_ t: Typed, returns: Latency?, file: Latency?) -> [String] {
        [String(t.sent), String(t.arrived), t.firstMismatch.map(String.init) ?? "none",
         t.charsPerSecond.map { String(format: "%.0f", $0) } ?? "-", returns.map(ms) ?? "-", file.map(ms) ?? "-"]
    }

    private func ms(_ l: Latency) -> String {
        String(format: "%.2f / %.2f ms", l.quantile(0.5) * 1e3, l.quantile(0.99) * 1e3) + (l.lost > 0 ? " (\(l.lost) lost)" : "")
    }

    private func describe(_ t: Typed) -> String {
        let speed = t.charsPerSecond.map { String(format: "%.0f chars/s (first key to the last character in FILE)", $0) } ?? "not all arrived"
        let check = t.exact ? "all \(t.sent) arrived in order" : "\(t.arrived) of \(t.sent) arrived, first mismatch at offset \(t.firstMismatch ?? 0)"
        return "  \(t.typist): \(check); \(speed)"
    }

    /// Types `text` with `send`, waits for FILE to hold as many bytes (or to stop growing), and compares.
    private func typeText(_ text: String, into file: String, _ send: () throws -> Void) throws -> Typed {
        let bytes = text.utf8.count
        let watch = try FileWatch(file)
        let start = LiveClock().now()
        try send()
        let done = watch.wait(size: bytes, stall: 5)
        let got = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let mismatch = got == text ? nil : zip(got, text).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, text.count)
        return Typed(backEnd: "", typist: "", sent: text.count, arrived: got.count, firstMismatch: mismatch,
                     charsPerSecond: done.map { Double(text.count) / ($0 - start) })
    }

    /// `count` times: one key and Enter, timed to the call's return and to FILE growing by the two bytes.
    private func keyLatency(into file: String, count: Int? = nil, _ send: () throws -> Void) throws -> (returns: Latency, file: Latency) {
        let watch = try FileWatch(file)
        var returns = Latency(), arrived = Latency()
        // A pause after the long text, and a gap between keys: the Wayland sink paces keys past a burst of
        // 400 at 1,000 a second, which is for long texts; a key typed by a person comes after a pause.
        usleep(500_000)
        for _ in 0..<(count ?? keys) {
            let before = watch.size()
            let t0 = LiveClock().now()
            try send()
            returns.samples.append(LiveClock().now() - t0)
            if let t = watch.wait(size: before + 2, stall: 1) { arrived.samples.append(t - t0) } else { arrived.lost += 1 }
            usleep(3_000)
        }
        return (returns, arrived)
    }

    // MARK: The text

    /// A deterministic text of `chars` characters: letters, digits, punctuation and spaces, a line break
    /// every 50–70 characters (a cooked tty holds at most 4,095 of a line), ending with one.
    public static func text(chars: Int) -> String {
        let pool = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      .,;:!?'\"-_()[]{}<>/\\|@#$%^&*+=~`")
        var rng = Rng(seed: 42)
        var s = ""
        var line = 0, next = 60
        for i in 0..<max(1, chars) {
            if i == chars - 1 || line >= next {
                s.append("\n"); line = 0; next = 50 + Int(rng.next() % 21)
            } else {
                s.append(pool[Int(rng.next() % UInt64(pool.count))]); line += 1
            }
        }
        return s
    }

    struct Rng {
        var s: UInt64
        init(seed: UInt64) { s = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s >> 17 }
        mutating func unit() -> Double { Double(next() % 1_000_000) / 1_000_000 }
    }

    /// The CPU's model name from /proc/cpuinfo.
    static func cpuModel() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    }
}

/// A back end that cannot be measured on this machine (no Xvfb, no sway), with the reason.
struct DesktopBenchSkip: Error { var reason: String }

/// FILE's size, and waiting for it to reach a size, woken by inotify rather than polling.
final class FileWatch {
    let path: String
    private let fd: Int32

    init(_ path: String) throws {
        self.path = path
        fd = inotify_init1(Int32(IN_NONBLOCK))
        guard fd >= 0, inotify_add_watch(fd, path, UInt32(IN_MODIFY)) >= 0 else {
            if fd >= 0 { close(fd) }
            throw BenchError("cannot watch \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// FILE's size in bytes now (0 if it cannot be read).
    func size() -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// The time FILE reached `size` bytes, or nil once it has not grown for `stall` seconds.
    func wait(size want: Int, stall: Double) -> Double? {
        var last = size(), lastChange = LiveClock().now()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = size()
            if now >= want { return LiveClock().now() }
            if now != last { last = now; lastChange = LiveClock().now() }
            if LiveClock().now() - lastChange > stall { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 50) > 0 { _ = read(fd, &buffer, buffer.count) }
        }
    }
}

/// A desktop the bench types into: its sink, windows running `cat > FILE`, and its peer typist.
protocol BenchDesktop: AnyObject {
    /// The back end's name in the report: `X11`, `Wayland`.
    var label: String { get }
    /// The desktop and the receiving window, for the report.
    var describe: String { get }
    /// How our sink reaches it: `(XTest)`.
    var sinkLabel: String { get }
    /// The peer typist, nil when there is none.
    var peer: String? { get }
    /// Our sink for this desktop.
    func sink() -> any OutputSink
    /// Opens a terminal titled `title` running `cat > FILE`, focused; returns FILE once the window takes keys.
    func catWindow(_ title: String) throws -> String
    /// The peer's command line that types `text`.
    func peerTypeArguments(_ text: String) -> [String]
    /// Runs the peer to its end (as the compositor's user where that matters).
    func runPeer(_ arguments: [String]) throws
    /// Where the pointer is, against where `x`, `y` should have put it.
    func pointerCheck(x: Double, y: Double) -> String
    /// Ends what the desktop started (SIGKILL) and removes its files.
    func stop()
}

/// Runs `argv` to its end with `environment`; returns stdout, or throws with the status and stderr.
@discardableResult
private func runTool(_ argv: [String], environment: [String: String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: argv[0])
    p.arguments = Array(argv.dropFirst())
    p.environment = environment
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw BenchError("\(argv[0]) \(argv.dropFirst().prefix(3).joined(separator: " ")) exited with \(p.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Starts `argv` in the background with output to `log` (or nowhere).
private func startTool(_ argv: [String], environment: [String: String], log: FileHandle? = nil) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: argv[0])
    p.arguments = Array(argv.dropFirst())
    p.environment = environment
    p.standardOutput = log ?? FileHandle.nullDevice
    p.standardError = log ?? FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    try p.run()
    return p
}

/// Ends a child the bench started. SIGKILL: a child of a test process inherits its blocked SIGTERM.
private func end(_ p: Process) {
    if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
}

/// Waits until `done`, or throws naming `what` after `timeout` seconds.
private func waitFor(_ what: String, timeout: Double, _ done: () -> Bool) throws {
    let end = LiveClock().now() + timeout
    while !done() {
        guard LiveClock().now() < end else { throw BenchError("timed out waiting for \(what)") }
        usleep(20_000)
    }
}

/// Whether `path` is a program this process may run.
private func executable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

/// Xvfb on a free display (or the display given), xterms running `cat`, and xdotool.
final class XBenchDesktop: BenchDesktop {
    let display: String
    let directory: String
    private var server: Process?
    private var clients: [Process] = []
    private let env: [String: String]

    init(display given: String?) throws {
        for tool in ["/usr/bin/xterm", "/usr/bin/xdotool"] where !executable(tool) {
            throw DesktopBenchSkip(reason: "\(tool) is not installed")
        }
        directory = NSTemporaryDirectory() + "hf-bench-x11-\(getpid())"
        if let given {
            display = given
        } else {
            guard executable("/usr/bin/Xvfb") else { throw DesktopBenchSkip(reason: "no Xvfb and no --display") }
            // -displayfd: the server picks a free display itself and says which once it listens (tests start
            // servers in parallel, and two picking the same free-looking number race).
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            // -noreset: the server would otherwise reset whenever its last client leaves.
            p.arguments = ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            var text = ""
            while !text.contains("\n") {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let n = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                end(p)
                throw BenchError("Xvfb did not start (it said \(String(reflecting: text)))")
            }
            display = ":\(n)"
            server = p
        }
        env = ProcessInfo.processInfo.environment.merging(["DISPLAY": display, "LC_ALL": "C.UTF-8"]) { $1 }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    var label: String { "X11" }
    var describe: String { (server == nil ? "display \(display)" : "Xvfb \(display), 1280x800") + ", xterm running cat > FILE" }
    var sinkLabel: String { "(XTest)" }
    var peer: String? { "xdotool type" }
    func sink() -> any OutputSink { X11Sink(display: display) }

    func catWindow(_ title: String) throws -> String {
        let file = directory + "/\(title.replacingOccurrences(of: " ", with: "-")).txt"
        clients.append(try startTool(["/usr/bin/xterm", "-u8", "-T", title, "-e", "sh", "-c", "cat > '\(file)'"], environment: env))
        var window = ""
        try waitFor("the xterm \(title)", timeout: 15) {
            window = (try? runTool(["/usr/bin/xdotool", "search", "--name", "^\(title)$"], environment: env))?
                .split(separator: "\n").first.map(String.init) ?? ""
            return !window.isEmpty && FileManager.default.fileExists(atPath: file)
        }
        try runTool(["/usr/bin/xdotool", "windowfocus", "--sync", window], environment: env)
        return file
    }

    func peerTypeArguments(_ text: String) -> [String] { ["/usr/bin/xdotool", "type", "--delay", "0", text] }
    func runPeer(_ arguments: [String]) throws { try runTool(arguments, environment: env) }

    func pointerCheck(x: Double, y: Double) -> String {
        guard let geometry = try? runTool(["/usr/bin/xdotool", "getdisplaygeometry"], environment: env),
              let at = try? runTool(["/usr/bin/xdotool", "getmouselocation", "--shell"], environment: env) else { return "not read" }
        let size = geometry.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        guard size.count == 2 else { return "not read" }
        let want = (X11Sink.pixel(x, size: size[0]), X11Sink.pixel(y, size: size[1]))
        let fields = Dictionary(at.split(separator: "\n").compactMap { l -> (String, Int)? in
            let kv = l.split(separator: "="); return kv.count == 2 ? (String(kv[0]), Int(kv[1]) ?? -1) : nil
        }, uniquingKeysWith: { a, _ in a })
        let got = (fields["X"] ?? -1, fields["Y"] ?? -1)
        return got == want ? "\(got.0),\(got.1) as sent (xdotool getmouselocation)" : "WRONG: \(got.0),\(got.1), sent \(want.0),\(want.1)"
    }

    func stop() {
        for c in clients { end(c) }
        if let server {
            end(server)
            let n = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(n)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A headless sway (as `nobody` when we are root: wlroots refuses root) or the socket given, foots running
/// `cat`, and wtype.
final class SwayBenchDesktop: BenchDesktop {
    static let nobody = "65534"
    let base: String
    let runtime: String
    let socket: String
    private var sway: Process?
    private var clients: [Process] = []
    /// setpriv's prefix that runs a client as sway's user (empty when that is us).
    private let asUser: [String]
    private var windows = 0

    init(socket given: String?) throws {
        for tool in ["/usr/bin/foot", "/usr/bin/wtype"] where !executable(tool) {
            throw DesktopBenchSkip(reason: "\(tool) is not installed")
        }
        let fm = FileManager.default
        base = NSTemporaryDirectory() + "hf-bench-sway-\(getpid())"
        try? fm.removeItem(atPath: base)
        let root = getuid() == 0
        asUser = root && given == nil ? ["/usr/bin/setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"] : []
        if let given {
            let env = ProcessInfo.processInfo.environment
            if given.hasPrefix("/") {
                runtime = (given as NSString).deletingLastPathComponent
                socket = given
            } else {
                guard let dir = env["XDG_RUNTIME_DIR"] else { throw DesktopBenchSkip(reason: "--wayland-socket \(given) needs XDG_RUNTIME_DIR (or give a path)") }
                runtime = dir
                socket = dir + "/" + given
            }
            try fm.createDirectory(atPath: base + "/out", withIntermediateDirectories: true)
            return
        }
        guard executable("/usr/bin/sway") else { throw DesktopBenchSkip(reason: "no sway and no --wayland-socket") }
        if root && !executable("/usr/bin/setpriv") { throw DesktopBenchSkip(reason: "running as root, and no setpriv to run sway as nobody") }
        runtime = base + "/run"
        for dir in [runtime, base + "/out", base + "/home"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            // The runtime folder must be 0700 and the compositor's user's.
            var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
            if root { attributes[.ownerAccountID] = 65534; attributes[.groupOwnerAccountID] = 65534 }
            try fm.setAttributes(attributes, ofItemAtPath: dir)
        }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        try "xwayland disable\noutput HEADLESS-1 resolution 1280x800\n".write(toFile: base + "/config", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: base + "/config")
        _ = fm.createFile(atPath: base + "/sway.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: base + "/sway.log"))
        let started = try startTool(asUser + ["/usr/bin/sway", "-c", base + "/config"],
                             environment: ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "XDG_RUNTIME_DIR": runtime,
                                           "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"],
                             log: log)
        sway = started
        var found = ""
        let runtime = runtime
        do {
            try waitFor("sway's socket", timeout: 15) {
                found = ((try? fm.contentsOfDirectory(atPath: runtime)) ?? []).first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") } ?? ""
                return !found.isEmpty
            }
        } catch {
            end(started)
            let log = (try? String(contentsOfFile: base + "/sway.log", encoding: .utf8)) ?? ""
            try? fm.removeItem(atPath: base)
            throw BenchError("sway did not start: \(log)")
        }
        socket = runtime + "/" + found
    }

    var label: String { "Wayland" }
    var describe: String { (sway == nil ? "socket \(socket)" : "sway headless (pixman) \(socket)" + (asUser.isEmpty ? "" : " as nobody")) + ", foot running cat > FILE" }
    var sinkLabel: String { "(virtual keyboard)" }
    var peer: String? { "wtype" }
    func sink() -> any OutputSink { WaylandSink(socket: socket) }

    private var clientEnvironment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": sway == nil ? NSHomeDirectory() : base + "/home", "XDG_RUNTIME_DIR": runtime,
         "WAYLAND_DISPLAY": (socket as NSString).lastPathComponent, "LC_ALL": "C.UTF-8"]
    }

    func catWindow(_ title: String) throws -> String {
        let file = base + "/out/\(title.replacingOccurrences(of: " ", with: "-")).txt"
        clients.append(try startTool(asUser + ["/usr/bin/foot", "--title=\(title)", "-e", "sh", "-c", "cat > '\(file)'"],
                                     environment: clientEnvironment))
        windows += 1
        try waitFor("foot \(title)", timeout: 15) { FileManager.default.fileExists(atPath: file) }
        // The window must be mapped and focused (sway focuses a new window) before keys are sent: swaymsg
        // says when it is in the tree; without sway's socket, a pause.
        let ipc = ((try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []).first { $0.hasPrefix("sway-ipc.") }
        if let ipc, executable("/usr/bin/swaymsg") {
            let env = clientEnvironment.merging(["SWAYSOCK": runtime + "/" + ipc]) { $1 }
            try waitFor("foot's window \(title)", timeout: 15) {
                let tree = (try? runTool(asUser + ["/usr/bin/swaymsg", "-t", "get_tree"], environment: env)) ?? ""
                return tree.contains("\"name\": \"\(title)\"") && tree.components(separatedBy: "\"focused\": true").count > 1
            }
            usleep(200_000)
        } else {
            usleep(1_000_000)
        }
        return file
    }

    func peerTypeArguments(_ text: String) -> [String] { ["/usr/bin/wtype", text] }
    func runPeer(_ arguments: [String]) throws { try runTool(asUser + arguments, environment: clientEnvironment) }
    func pointerCheck(x: Double, y: Double) -> String { "not checked (sway reports no pointer position)" }

    func stop() {
        for c in clients { end(c) }
        if let sway { end(sway) }
        try? FileManager.default.removeItem(atPath: base)
    }
}
