#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime
import Shell
import SystemIO

/// `handsfree bench controls`: listing a window's controls through the accessibility bus (the shell's
/// libatspi client) beside a pyatspi walk of the same window in the same run, a named command until the
/// application has acted, and the list's refresh after the focus moves to another window.
///
/// It starts a desktop of its own: a D-Bus session, Xvfb, the AT-SPI bus launcher, and the GTK 3 test
/// application `python/controls_app.py` (the Debian python, with python3-gi). The bench's own process joins
/// that session (`DBUS_SESSION_BUS_ADDRESS`), so it must run once per process.
public struct ControlsBench {
    /// Window sizes listed, in buttons.
    public var sizes = [50, 2_000]
    /// Listings timed per size (and pyatspi walks).
    public var runs = 30
    /// Buttons pressed by name for the command → action figures.
    public var presses = 50
    /// Focus changes for the refresh figures.
    public var switches = 30
    /// The Debian python with pyatspi and python3-gi.
    public var python = "/usr/bin/python3"
    /// The simulated user of the list-against-pointer-mode part (`ControlsAimBench`); nil skips it.
    public var aim: ControlsAimBench?

    public init() {}

    /// What a run measured.
    public struct Figures: Sendable, Equatable {
        /// Per size: controls listed, and the client's and pyatspi's p50 and p99 (seconds).
        public var listing: [Int: Listing] = [:]
        /// Command → the application's handler ran, each (seconds).
        public var actions: [Double] = []
        /// Focus moved → the list shows the new window, each (seconds).
        public var refreshes: [Double] = []
        /// Pressing a button by gaze on the list against pointer mode, per size.
        public var aim: [ControlsAimBench.Row] = []
    }

    /// One window size's listings; every figure lists the same controls, in reading order.
    public struct Listing: Sendable, Equatable {
        public var controls: Int
        /// Roles, names and states only: what the Controls view lists (`read(details: false)`), from
        /// libatspi's cache.
        public var names: [Double]
        /// pyatspi reading the same (roles, names, states) of the same window.
        public var peerNames: [Double]
        /// Roles, names and states with each control's action names and extents (`handsfree controls`,
        /// `--json`), asked on the application's own connection (the client's way).
        public var ours: [Double]
        /// The same asked through the bus daemon, as the client does with an application that offers no
        /// connection of its own.
        public var viaBus: [Double]
        /// pyatspi reading the same (roles, names, states, actions, extents).
        public var peer: [Double]
    }

    public func run(out: BenchReport) throws -> Figures {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/dbus-daemon", "/usr/libexec/at-spi-bus-launcher", python] {
            guard FileManager.default.isExecutableFile(atPath: tool) else {
                throw BenchError("\(tool) is not installed (scripts/install-deps.sh installs what bench controls needs)")
            }
        }
        let desk = try BusDesktop()
        defer { desk.stop() }
        setenv("DBUS_SESSION_BUS_ADDRESS", desk.sessionBus, 1)
        unsetenv("AT_SPI_BUS_ADDRESS")
        let client = AccessibilityClient()
        do throws(ControlsError) { try client.connect() } catch { throw BenchError(error.description) }
        out("desktop: Xvfb \(desk.display), a D-Bus session and the accessibility bus of the bench's own; GTK 3 windows of python/controls_app.py")

        var figures = Figures()
        for size in sizes {
            let file = try desk.startApp(python, "many", String(size))
            let snapshot = try settle(client, window: "Many", count: size)
            // What the Controls view reads (roles, names, states: libatspi's cache), then what the command
            // line lists (with every control's actions and extents asked of the application); pyatspi
            // reads each of the two afterwards, in its own process.
            var names: [Double] = [], ours: [Double] = [], viaBus: [Double] = []
            // CPU seconds spent per way, by this thread and by the application: on a busy machine the wall
            // times wait for cores, and these say what each listing costs.
            let app = desk.lastApp
            var cpu: [String: (ours: Double, app: Double)] = [:]
            func timed(_ way: String, _ times: inout [Double], _ reading: () -> ControlsSnapshot) -> ControlsSnapshot {
                let c0 = threadCPUSeconds(), a0 = processCPUSeconds(app)
                let t0 = LiveClock().now()
                let result = reading()
                times.append(LiveClock().now() - t0)
                let before = cpu[way] ?? (0, 0)
                cpu[way] = (before.ours + threadCPUSeconds() - c0, before.app + processCPUSeconds(app) - a0)
                return result
            }
            for _ in 0..<runs {
                let light = timed("names", &names) { client.read(window: "Many", details: false) }
                // Both ways in turn, so that a busy moment of the machine falls on both alike.
                client.direct = false
                let bus = timed("bus", &viaBus) { client.read(window: "Many") }
                client.direct = true
                let s = timed("ours", &ours) { client.read(window: "Many") }
                for reading in [light, bus, s] where reading.controls.count != size {
                    throw BenchError("a listing found \(reading.controls.count) controls, not \(size)")
                }
                guard s.controls == bus.controls else { throw BenchError("the two ways read different controls") }
            }
            let peerNames = try pyatspi(window: "Many", details: false, environment: desk.environment, app: app)
            let peer = try pyatspi(window: "Many", details: true, environment: desk.environment, app: app)
            figures.listing[size] = Listing(controls: snapshot.controls.count, names: names, peerNames: peerNames.seconds,
                                            ours: ours, viaBus: viaBus, peer: peer.seconds)
            for (what, way, times, peerTimes) in [
                ("roles, names, states (the Controls view's list)", "names", names, peerNames),
                ("roles, names, states, actions, extents (controls --json), on the application's own connection", "ours", ours, peer),
                ("roles, names, states, actions, extents, through the bus daemon", "bus", viaBus, peer),
            ] {
                let ratio = percentile(peerTimes.seconds, 0.5) / max(percentile(times, 0.5), 1e-9)
                let spent = cpu[way] ?? (0, 0)
                out(String(format: "list %5d buttons · ", size) + what
                    + String(format: ": ours p50 %7.1f ms p99 %7.1f ms · pyatspi, the same, p50 %7.1f ms p99 %7.1f ms · %.1fx faster",
                             percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000,
                             percentile(peerTimes.seconds, 0.5) * 1000, percentile(peerTimes.seconds, 0.99) * 1000, ratio)
                    + String(format: " · CPU a listing: ours %.1f ms + the application %.1f ms, pyatspi %.1f ms + the application %.1f ms",
                             spent.ours / Double(runs) * 1000, spent.app / Double(runs) * 1000,
                             peerTimes.cpu * 1000, peerTimes.app * 1000))
            }

            if size == sizes.first {
                figures.actions = try pressByName(client, file: file, count: presses, buttons: size)
                out(String(format: "command → action delivered (%d presses by name on the view's list: the element checked, its actions asked, the action done, until the application's handler wrote its line): p50 %.1f ms p99 %.1f ms",
                           figures.actions.count, percentile(figures.actions, 0.5) * 1000, percentile(figures.actions, 0.99) * 1000))
            }
            desk.endApps()
        }

        figures.refreshes = try refreshAfterFocusMoves(client, desk: desk)
        out(String(format: "refresh after a focus change (%d changes, events on the bus → the list shows the new window): p50 %.1f ms p99 %.1f ms",
                   figures.refreshes.count, percentile(figures.refreshes, 0.5) * 1000, percentile(figures.refreshes, 0.99) * 1000))
        if let aim { figures.aim = try aim.run(out: out) }
        out("goals: 2,000 buttons listed in ≤ 100 ms p50 and ≥ 3x faster than pyatspi; command → action p50 ≤ 20 ms; refresh p99 ≤ 300 ms; the list faster than pointer mode at every size, and flat in size")
        return figures
    }

    /// Reads until the window shows all its `count` controls (an application registers some time after it
    /// shows); that reading.
    private func settle(_ client: AccessibilityClient, window: String, count: Int) throws -> ControlsSnapshot {
        let end = LiveClock().now() + 30
        var last = client.read(window: window)
        while last.controls.count != count {
            guard LiveClock().now() < end else {
                throw BenchError("the window \(window) listed \(last.controls.count) controls, not \(count): \(last.problem ?? "")")
            }
            usleep(100_000)
            last = client.read(window: window)
        }
        return last
    }

    /// The pyatspi walk's times, in its own process: roles, names and states, and with `details` each
    /// control's actions and extents; with the CPU seconds a walk took pyatspi's process and the application
    /// (`app`) on average, counted around each timed walk only (not pyatspi's start, which fetches the
    /// application's whole tree once, as the client does once a process).
    private func pyatspi(window: String, details: Bool, environment: [String: String], app: pid_t)
        throws -> (seconds: [Double], cpu: Double, app: Double) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [PythonEnv.script("pyatspi_walk.py"), window, String(runs), details ? "details" : "names", String(app)]
        p.environment = environment
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0,
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let seconds = object["seconds"] as? [Double], !seconds.isEmpty,
              let cpu = object["cpu"] as? [Double], let spent = object["app"] as? [Double] else {
            throw BenchError("the pyatspi walk failed (is python3-pyatspi installed?)")
        }
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(max(values.count, 1)) }
        return (seconds, mean(cpu), mean(spent))
    }

    /// Presses buttons by name on the Controls view's list (read without actions or extents) and times each
    /// until the application's handler wrote its line: each press checks that its element is still the one
    /// listed and asks for its actions then.
    private func pressByName(_ client: AccessibilityClient, file: String, count: Int, buttons: Int) throws -> [Double] {
        let watch = try FileWatch(file)
        var times: [Double] = []
        let reading = client.read(window: "Many", details: false)
        for i in 0..<count {
            let name = "Button \(i % buttons + 1)"
            guard case .one(let control) = reading.match(name) else { throw BenchError("no single control is called \(name)") }
            let before = watch.size()
            let expected = before + "pressed=\(i % buttons + 1)\n".utf8.count
            let t0 = LiveClock().now()
            do throws(ControlsError) {
                _ = try client.perform(ControlTarget(generation: reading.generation, control: control))
            } catch { throw BenchError(error.description) }
            guard let t1 = watch.wait(size: expected, stall: 2) else { throw BenchError("\(name) was pressed, and its handler never ran") }
            times.append(t1 - t0)
        }
        return times
    }

    /// Moves the focus between two windows by pressing a button in each, and times until a reading made as
    /// the live view makes them (events, else polling: `ControlsFollower`) shows the other window.
    private func refreshAfterFocusMoves(_ client: AccessibilityClient, desk: BusDesktop) throws -> [Double] {
        _ = try desk.startApp(python, "switch")
        do throws(ControlsError) { try client.watch() } catch { throw BenchError(error.description) }
        var reading = try settle(client, window: "First", count: 1)
        var times: [Double] = []
        for i in 0..<switches {
            let (button, next) = i % 2 == 0 ? ("Go to second", "Second") : ("Go to first", "First")
            guard case .one(let control) = reading.match(button) else {
                throw BenchError("the window \(reading.window) has no \(button) button")
            }
            _ = client.takeChanges()
            let t0 = LiveClock().now()
            do throws(ControlsError) {
                _ = try client.perform(ControlTarget(generation: reading.generation, control: control))
            } catch { throw BenchError(error.description) }
            var follower = ControlsFollower()
            follower.read(at: t0)
            let end = t0 + 5
            while true {
                let now = LiveClock().now()
                guard now < end else { throw BenchError("the list never showed the window \(next) after \(button)") }
                if follower.due(now: now, changes: client.takeChanges()) {
                    reading = client.read()
                    follower.read(at: LiveClock().now())
                    if reading.window == next { break }
                }
                usleep(2_000)
            }
            times.append(LiveClock().now() - t0)
        }
        return times
    }
}

/// The CPU seconds (user and system) a process has used so far, from /proc; 0 when it cannot be read.
func processCPUSeconds(_ pid: pid_t) -> Double {
    guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return 0 }
    // After the command's name: state, then 11 more fields before utime and stime.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The sample at quantile `q` (0…1), as `bench desktop` reports its latencies.
private func percentile(_ values: [Double], _ q: Double) -> Double { DesktopBench.Latency(samples: values).quantile(q) }

/// A desktop with an accessibility bus, of the bench's own: a D-Bus session daemon (not forked: a forked
/// daemon keeps Foundation's watch on its parent open), Xvfb, the AT-SPI bus launcher, and the applications.
final class BusDesktop {
    let base: String
    let sessionBus: String
    let display: String
    private var services: [Process] = []
    private var apps: [Process] = []

    init() throws {
        base = NSTemporaryDirectory() + "hf-bench-controls-\(getpid())"
        try? FileManager.default.removeItem(atPath: base)
        try FileManager.default.createDirectory(atPath: base + "/home", withIntermediateDirectories: true)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address=1", "--nosyslog"]
        daemon.environment = ["PATH": "/usr/bin:/bin", "HOME": base + "/home"]
        let said = Pipe()
        daemon.standardOutput = said
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        services.append(daemon)
        sessionBus = Self.firstLine(said).trimmingCharacters(in: .whitespacesAndNewlines)

        let x = Process()
        x.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        x.arguments = ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
        let shown = Pipe()
        x.standardOutput = shown
        x.standardError = FileHandle.nullDevice
        try x.run()
        services.append(x)
        let number = Self.firstLine(shown).trimmingCharacters(in: .whitespacesAndNewlines)
        display = ":" + number
        guard !sessionBus.isEmpty, Int(number) != nil else {
            stop()
            throw BenchError("the D-Bus session or Xvfb did not start")
        }
        services.append(try spawn("/usr/libexec/at-spi-bus-launcher", ["--launch-immediately"]))
    }

    private static func firstLine(_ pipe: Pipe) -> String {
        var text = ""
        while !text.contains("\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": sessionBus, "LANG": "C.UTF-8"]
    }

    private func spawn(_ tool: String, _ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.environment = environment
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Starts `python/controls_app.py MODE OUT …` and waits until it says it shows; returns OUT.
    func startApp(_ python: String, _ mode: String, _ extra: String...) throws -> String {
        let out = base + "/\(mode)-\(apps.count).txt"
        FileManager.default.createFile(atPath: out, contents: nil)
        apps.append(try spawn(python, [PythonEnv.script("controls_app.py"), mode, out] + extra))
        let end = LiveClock().now() + 30
        while !((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready\n") {
            guard LiveClock().now() < end, apps.last?.isRunning == true else { throw BenchError("controls_app.py \(mode) did not start") }
            usleep(20_000)
        }
        return out
    }

    /// The process of the application started last, or 0.
    var lastApp: pid_t { apps.last?.processIdentifier ?? 0 }

    /// Ends the applications (SIGKILL: a child of a test inherits its blocked SIGTERM).
    func endApps() {
        for p in apps where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        apps = []
    }

    /// Ends everything, with what the buses started on demand (found by this session's address, which is
    /// in their environment).
    func stop() {
        endApps()
        var pids: [pid_t] = []
        if !sessionBus.isEmpty {
            let wanted = Data("DBUS_SESSION_BUS_ADDRESS=\(sessionBus)\u{0}".utf8)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(name), pid != getpid(),
                      let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), environ.range(of: wanted) != nil
                else { continue }
                pids.append(pid)
            }
        }
        for pid in pids { kill(pid, SIGKILL) }
        for p in services.reversed() where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        if display.count > 1 {
            let n = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(n)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
        }
        try? FileManager.default.removeItem(atPath: base)
    }
}
