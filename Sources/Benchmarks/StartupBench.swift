#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PtyHost
import SystemIO

/// `handsfree bench startup`: how long `handsfree run` takes to draw its first screen and to offer its first
/// word suggestion, beside `tmux new-session` drawing its first screen, all spawned on a pty and read through
/// the same terminal emulator.
///
/// The shell starts on the Terminal screen running `cat` (`handsfree run --no-speech -- cat`), what the peer
/// runs too. Its first screen is the first drawing that holds the suggestion bar (words or "loading words…").
/// The bench then types `echo ` into `cat`, which makes the bar ask the word predictor (an argument, not a
/// command name); the first suggestion is the first drawing with the `echo ` line and a ★ word in the bar.
/// Each run has its own home, config, state and data folders; "cold" runs start with no compiled word
/// lists in the cache folder, "warm" ones with the file a run left there. Cold runs are made two ways: from
/// the data folder as it is (a source tree: the first start builds the compiled lists), and from a copy laid
/// out as `scripts/install.sh` lays it out, with the lists compiled beside them (`handsfree words compile`):
/// a user's first start after installing.
public struct StartupBench {
    /// The `handsfree` binary to start.
    public var executable: String
    /// The folder with `wordlists/`, `keymaps/` and `config/`, passed as `$HANDSFREE_HOME`.
    public var home: String?
    public var runs = 15
    public var coldRuns = 5
    public var rows = 30, cols = 100
    /// Longest wait for one start, in seconds.
    public var timeout = 20.0
    /// The screen of the last start that missed an event, to show why.
    private let lastScreen = Locked("")

    public init(executable: String, home: String?) {
        self.executable = executable; self.home = home
    }

    /// One start's times from spawning, in milliseconds; nil where the event never came.
    struct Times {
        var firstScreen: Double?
        var suggestion: Double?
    }

    public func run(out: BenchReport) throws {
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores (shared: other work on it shows in the figures)")
        out("screen \(cols)x\(rows); \(runs) warm runs, \(coldRuns) cold runs, \(runs) tmux runs, interleaved")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-bench-startup-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = root.appendingPathComponent("cache")
        // The warm runs need the compiled lists: one start makes them, as a user's first start would.
        _ = try startShell(root: root, cache: cache)
        guard FileManager.default.fileExists(atPath: cache.appendingPathComponent("handsfree/words-en.bin").path) else {
            throw BenchError("the first start left no compiled word lists in \(cache.path)")
        }
        let installed = try installedCopy(root)
        var warm: [Times] = [], cold: [Times] = [], coldInstalled: [Times] = [], tmux: [Double] = []
        for i in 0..<max(runs, coldRuns) {
            if i < runs { tmux.append(try startTmux(i)) }
            if i < runs { warm.append(try startShell(root: root, cache: cache)) }
            if i < coldRuns {
                cold.append(try startShell(root: root, cache: root.appendingPathComponent("cold-cache-\(i)")))
                coldInstalled.append(try startShell(root: root, cache: root.appendingPathComponent("cold-installed-cache-\(i)"),
                                                    home: installed.path))
            }
        }
        out(line("tmux new-session (cat), first screen", tmux))
        out(line("handsfree run, warm cache, first screen", warm.compactMap(\.firstScreen)))
        out(line("handsfree run, warm cache, first suggestion", warm.compactMap(\.suggestion)))
        out(line("handsfree run, cold cache, first screen", cold.compactMap(\.firstScreen)))
        out(line("handsfree run, cold cache, first suggestion", cold.compactMap(\.suggestion)))
        out(line("handsfree run, cold cache as installed (lists compiled beside them), first screen", coldInstalled.compactMap(\.firstScreen)))
        out(line("handsfree run, cold cache as installed (lists compiled beside them), first suggestion", coldInstalled.compactMap(\.suggestion)))
        let missed = (warm + cold + coldInstalled).filter { $0.firstScreen == nil || $0.suggestion == nil }.count
        if missed > 0 {
            out("\(missed) start(s) did not reach the first screen or suggestion within \(timeout) s; the last one's screen:")
            out(lastScreen.value)
        }
    }

    private func line(_ what: String, _ ms: [Double]) -> String {
        guard !ms.isEmpty else { return "\(what): no figures" }
        let s = ms.sorted()
        let p50 = s[s.count / 2], p99 = s[min(s.count - 1, Int(Double(s.count) * 0.99))]
        return String(format: "%@: median %.0f ms  p99 %.0f ms  (n=%d)", what, p50, p99, s.count)
    }

    /// A data folder as the installer makes it, under `root`: the keymaps and config linked, the word-list
    /// folder copied whole as `scripts/install.sh` copies it (so the lists' times are new, as an install's
    /// are) and compiled beside them by the measured binary.
    private func installedCopy(_ root: URL) throws -> URL {
        guard let home else { throw BenchError("no data folder (keymaps, config, wordlists) to copy") }
        let fm = FileManager.default
        let source = URL(fileURLWithPath: home), copy = root.appendingPathComponent("installed")
        let lists = copy.appendingPathComponent("wordlists")
        try fm.createDirectory(at: copy, withIntermediateDirectories: true)
        for d in ["keymaps", "config"] {
            try fm.createSymbolicLink(at: copy.appendingPathComponent(d), withDestinationURL: source.appendingPathComponent(d))
        }
        try fm.copyItem(at: source.appendingPathComponent("wordlists"), to: lists)
        var env = PtyProcess.childEnvironment(overrides: ["HANDSFREE_HOME": copy.path])
        env["HANDSFREE_LOG"] = "/dev/null"
        let compile = try startHosted([executable, "words", "compile"], env)
        _ = compile.run(until: { $0.reapIfExited() != nil }, timeout: 60)
        guard compile.exitStatus == .exited(0), fm.fileExists(atPath: lists.appendingPathComponent("words-en.bin").path) else {
            throw BenchError("handsfree words compile did not compile the lists in \(lists.path):\n\(compile.screen.snapshot().text)")
        }
        return copy
    }

    /// Starts `handsfree run -- cat` with its folders under `root`, its cache folder at `cache`, and its data
    /// folder at `home` (default: the bench's).
    private func startShell(root: URL, cache: URL, home: String? = nil) throws -> Times {
        let h = root.appendingPathComponent("home")
        var env = PtyProcess.childEnvironment(overrides: [
            "HOME": h.path, "XDG_CONFIG_HOME": h.appendingPathComponent("config").path,
            "XDG_STATE_HOME": h.appendingPathComponent("state").path, "XDG_DATA_HOME": h.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": cache.path,
        ])
        for k in ["HANDSFREE_DATA_DIR", "HANDSFREE_CONFIG_DIR", "HANDSFREE_LOG"] { env[k] = nil }
        if let h = home ?? self.home { env["HANDSFREE_HOME"] = h }
        let argv = [executable, "run", "--no-speech", "--no-onboarding", "--no-metrics", "--", "cat"]
        let t0 = LiveClock().now()
        let t = try startHosted(argv, env)
        defer { t.process.terminate(grace: 0.5) }
        var times = Times()
        let typed = "echo "
        // A screen line drops its trailing spaces: the pane's line reads "echo" alone.
        func echoed(_ text: String) -> Bool { text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "echo" } }
        _ = t.run(until: { t in
            let text = t.screen.snapshot().text
            let bar = text.contains("loading words…") || text.contains("★")
            if times.firstScreen == nil, bar {
                times.firstScreen = (LiveClock().now() - t0) * 1000
                t.type(typed)
            }
            guard times.firstScreen != nil, echoed(text), text.contains("★") else { return false }
            // The pane may be drawn before the bar below it in the same frame: the rest of it, if any, comes now.
            let seen = LiveClock().now()
            _ = t.run(until: { _ in false }, timeout: 0.01)
            let now = t.screen.snapshot().text
            guard echoed(now), now.contains("★"), !now.contains("loading words…") else { return false }
            times.suggestion = (seen - t0) * 1000
            return true
        }, timeout: timeout)
        if times.suggestion == nil { lastScreen.update { $0 = t.screen.snapshot().text } }
        return times
    }

    /// Starts `tmux new-session cat` on a private server and returns when its status line is drawn.
    private func startTmux(_ n: Int) throws -> Double {
        // A server of its own per start: one still shutting down must not take the next start's session.
        let socket = "handsfree-bench-startup-\(getpid())-\(n)"
        let argv = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "cat"]
        let t0 = LiveClock().now()
        let t = try startHosted(argv, PtyProcess.childEnvironment())
        var ms: Double?
        _ = t.run(until: { t in
            guard t.screen.snapshot().text.contains("[0] 0:") else { return false }
            ms = (LiveClock().now() - t0) * 1000
            return true
        }, timeout: timeout)
        let kill = try? PtyProcess(argv: ["tmux", "-L", socket, "kill-server"], rows: 5, cols: 40)
        _ = kill?.waitForExit(timeout: 5)
        t.process.terminate(grace: 0.5)
        guard let ms else {
            throw BenchError("tmux did not draw its status line within \(timeout) s; its screen:\n\(t.screen.snapshot().text)")
        }
        return ms
    }

    private func startHosted(_ argv: [String], _ env: [String: String]) throws -> HostedTerminal {
        do { return try HostedTerminal(argv: argv, environment: env, rows: rows, cols: cols) } catch {
            throw BenchError("cannot start \(argv[0]): \(error)")
        }
    }
}
