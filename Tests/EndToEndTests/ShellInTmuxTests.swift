#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The built binary in tmux at 100×30, driven by frames over a real loopback UDP socket, aimed at targets
/// from `handsfree layout`, read back with `tmux capture-pane`.
@Suite(.serialized) struct ShellInTmuxTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let binary = root + "/.build/debug/handsfree"
    static let ready = FileManager.default.isExecutableFile(atPath: binary) && Tmux.available

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func gazeAndJawOpenATileBlinkDoesNothingRightEyeReturns() throws {
        let layout = try run([Self.binary, "layout", "--screen", "launcher", "--size", "100x30"])
        let notes = try #require(try targets(layout)["launcher.notes"])
        let port = try freeUDPPort()
        let stateDir = NSTemporaryDirectory() + "hf-e2e-\(getpid())"
        let session = Tmux(name: "hf-e2e-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: stateDir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(stateDir) \(Self.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "the shell did not start:\n\(session.capture().joined(separator: "\n"))")

        let sender = try UDPSender(port: port)
        let gaze = ((Double(notes.x) + Double(notes.w) / 2) / 100, (Double(notes.y) + Double(notes.h) / 2) / 30)
        // A still face for a second first: nothing acts before (safe start).
        sender.play(gaze: gaze, blend: [:], seconds: 1.2)
        sender.play(gaze: gaze, blend: ["jawOpen": 0.8], seconds: 0.5)
        sender.play(gaze: gaze, blend: [:], seconds: 0.3)
        #expect(session.waitFor { $0.first?.contains("Home › Notes") == true },
                "gaze + jaw did not open Notes:\n\(session.capture().joined(separator: "\n"))")
        #expect(session.capture().contains { $0.contains("fps │ face ●") }, "the status line shows the face")

        // A full blink of both eyes is not a back gesture.
        sender.play(gaze: gaze, blend: ["eyeBlinkLeft": 0.95, "eyeBlinkRight": 0.95], seconds: 0.15)
        sender.play(gaze: gaze, blend: [:], seconds: 0.8)
        #expect(session.capture().first?.contains("Home › Notes") == true, "a blink must do nothing")

        sender.play(gaze: gaze, blend: ["eyeBlinkRight": 0.95], seconds: 0.7)
        sender.play(gaze: gaze, blend: [:], seconds: 0.3)
        #expect(session.waitFor { ($0.first?.contains("HandsFree │ Home") == true) && $0.first?.contains("Home ›") == false },
                "the right eye did not return:\n\(session.capture().joined(separator: "\n"))")
    }

    /// Issue 14: the tracker app restarts (its clock starts again from zero): the status line says so, and
    /// once a still face has been seen, gaze + jaw on a tile opens it. A jaw open during the restart does not.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aTrackerRestartIsAnnouncedAndGazePlusJawStillOpensATile() throws {
        let layout = try run([Self.binary, "layout", "--screen", "launcher", "--size", "100x30"])
        let notes = try #require(try targets(layout)["launcher.notes"])
        let port = try freeUDPPort()
        let stateDir = NSTemporaryDirectory() + "hf-e2e-restart-\(getpid())"
        let session = Tmux(name: "hf-e2e-restart-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: stateDir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(stateDir) \(Self.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "the shell did not start:\n\(session.capture().joined(separator: "\n"))")

        let sender = try UDPSender(port: port)
        let gaze = ((Double(notes.x) + Double(notes.w) / 2) / 100, (Double(notes.y) + Double(notes.h) / 2) / 30)
        // An hour into a session, the face still.
        sender.t = 3600
        sender.play(gaze: gaze, blend: [:], seconds: 1.2)
        #expect(session.waitFor { !$0.contains { $0.contains("waiting for a still face") } },
                "a still face must arm the shell:\n\(session.capture().joined(separator: "\n"))")
        // The tracker restarts with the jaw open: announced, and the open jaw does nothing.
        sender.t = 0
        sender.play(gaze: gaze, blend: ["jawOpen": 0.8], seconds: 0.5)
        #expect(session.waitFor { $0.contains { $0.contains("tracker restarted, hold still") } },
                "no restart on the status line:\n\(session.capture().joined(separator: "\n"))")
        #expect(session.capture().first?.contains("Home ›") == false,
                "a jaw open across a restart must not act:\n\(session.capture().joined(separator: "\n"))")
        sender.play(gaze: gaze, blend: [:], seconds: 1.2)
        sender.play(gaze: gaze, blend: ["jawOpen": 0.8], seconds: 0.5)
        sender.play(gaze: gaze, blend: [:], seconds: 0.3)
        #expect(session.waitFor { $0.first?.contains("Home › Notes") == true },
                "gaze + jaw after a restart did not open Notes:\n\(session.capture().joined(separator: "\n"))")
    }

    /// The demo's note is written with the real word list: letters typed, then two suggestions committed.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func headlessDemoWritesANoteWithRealSuggestions() throws {
        let out = try run([Self.binary, "demo", "--headless"])
        let actions = out.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(actions.filter { $0.contains("\"commit-word\"") }.count == 2, "\(out)")
        #expect(actions.contains { $0.contains("\"target\": \"note-editor.suggestion.1\"") })
        #expect(actions.last?.contains("\"back\", \"target\": \"help\"") == true)
        #expect(out.contains("The demo ends."))
    }

    /// A helper sets up names before the user starts; the suggestion bar's file is the one changed.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func wordsCommandAddsAndRemovesTheUsersWords() throws {
        let file = NSTemporaryDirectory() + "hf-words-\(getpid()).txt"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try run([Self.binary, "words", "add", "Zoë", "McDonald", "--user-file", file])
        _ = try run([Self.binary, "words", "remove", "theatre", "--user-file", file])
        let list = try run([Self.binary, "words", "list", "--user-file", file])
        #expect(list.contains("2 words, 1 removed") && list.contains("\tZoë\n") && list.contains("removed: theatre"), "\(list)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["predict", "--stdin", "-n", "3", "--user-file", file]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data("I met Mc\nthe theat\n".utf8))
        try input.fileHandleForWriting.close()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        p.waitUntilExit()
        #expect(lines.first?.split(separator: "\t").first == "McDonald")
        #expect(lines.count == 2 && !lines[1].split(separator: "\t").contains("theatre"))
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func keyboardHelperAndTerminalRestoredOnQuit() throws {
        let stateDir = NSTemporaryDirectory() + "hf-e2e-kb-\(getpid())"
        let session = Tmux(name: "hf-e2e-kb-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: stateDir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(stateDir) XDG_CONFIG_HOME=\(stateDir)/config \(Self.binary) run; echo SHELL-EXITED; sleep 30")
        // First start: nothing is set up, so setup comes first; after it, the onboarding help, generated from the keymap.
        #expect(session.waitFor { $0.contains { $0.contains("What follows your face?") } }, "\(session.screen)")
        SetupInTmuxTests.press("✕ Not now", session)
        #expect(session.waitFor { $0.first?.contains("Welcome") == true && $0.first?.contains("Set up") == false })
        #expect(session.capture().joined().contains("open the jaw"))
        session.keys("Escape")
        #expect(session.waitFor { $0.first?.contains("Home ›") == false })
        session.keys("Right", "Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("Home › Practice chat") == true })
        session.keys("Escape")
        session.keys("q")
        #expect(session.waitFor { $0.contains { $0.contains("SHELL-EXITED") } })
        #expect(FileManager.default.fileExists(atPath: stateDir + "/handsfree/onboarded"), "first start is remembered")
    }

    /// Arrow keys work from the first drawing. The shell's own output asks for keypad mode (smkx) after the
    /// last time it left it (rmkx) and before it draws anything; arrows in the terminal's normal mode
    /// (ESC [ C, as a terminal sends them before or without keypad mode) move the focus too. Before, curses
    /// asked at its first read, and keys pressed as Home first showed were taken as Esc, "[" and "C".
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func arrowKeysWorkFromTheFirstDrawing() throws {
        let stateDir = NSTemporaryDirectory() + "hf-e2e-keypad-\(getpid())"
        let bytesFile = stateDir + "/pane-output"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        let session = Tmux(name: "hf-e2e-keypad-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: stateDir) }
        // The pause lets the pipe of the pane's output start before the shell writes anything.
        try session.start("sleep 0.5; exec env LANG=C.UTF-8 XDG_STATE_HOME=\(stateDir) \(Self.binary) run --no-onboarding --no-speech")
        _ = session.tmux(["pipe-pane", "-O", "-t", session.name, "cat > " + Tmux.quote(bytesFile)])
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "the shell did not start:\n\(session.screen)")
        let out = [UInt8](FileManager.default.contents(atPath: bytesFile) ?? Data())
        func lastIndex(of s: String, before end: Int) -> Int? {
            let n = Array(s.utf8)
            guard end >= n.count else { return nil }
            return stride(from: end - n.count, through: 0, by: -1).first { Array(out[$0..<($0 + n.count)]) == n }
        }
        let title = try #require(lastIndex(of: "HandsFree", before: out.count), "no title in the pane's output")
        let xmit = lastIndex(of: "\u{1B}[?1h", before: title)
        let local = lastIndex(of: "\u{1B}[?1l", before: title) ?? -1
        #expect(xmit.map { $0 > local } == true, "keypad mode is not asked for before the first drawing (smkx at \(String(describing: xmit)), rmkx at \(local))")
        #expect(session.tmux(["display-message", "-p", "-t", session.name, "#{keypad_cursor_flag}"]).hasPrefix("1"))

        // Right, Right, Enter as a terminal in normal mode sends them.
        _ = session.tmux(["send-keys", "-t", session.name, "-H", "1b", "5b", "43", "1b", "5b", "43", "0d"])
        #expect(session.waitFor { $0.first?.contains("Home › Practice chat") == true }, "normal-mode arrows:\n\(session.screen)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func tooSmallWindowShowsAMessage() throws {
        let session = Tmux(name: "hf-e2e-small-\(getpid())", width: 60, height: 20)
        defer { session.kill() }
        try session.start("env LANG=C.UTF-8 \(Self.binary) run --no-onboarding")
        #expect(session.waitFor { $0.contains { $0.contains("too small") } })
    }
}

// MARK: helpers

func run(_ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: args[0])
    p.arguments = Array(args.dropFirst())
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

struct Box {
    var x: Int, y: Int, w: Int, h: Int
    /// The centre, in cells.
    var center: (Double, Double) { (Double(x) + Double(w) / 2, Double(y) + Double(h) / 2) }
}

func targets(_ json: String) throws -> [String: Box] {
    let arr = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
    var out: [String: Box] = [:]
    for t in arr {
        if let id = t["id"] as? String, let x = t["x"] as? Int, let y = t["y"] as? Int, let w = t["w"] as? Int, let h = t["h"] as? Int {
            out[id] = Box(x: x, y: y, w: w, h: h)
        }
    }
    return out
}

/// Whether the project's venv (`.venv`, made by scripts/python-env.sh) can import `modules` ("a, b").
func venvImports(_ modules: String) -> Bool {
    let py = ShellInTmuxTests.root + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: py) else { return false }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: py)
    p.arguments = ["-c", "import " + modules]
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}

/// A free loopback UDP port (bound to port 0, then released).
func freeUDPPort() throws -> UInt16 {
    let s = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(s) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, len) } }
    _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
    return UInt16(bigEndian: a.sin_port)
}

/// Sends NDJSON frames as UDP datagrams, paced at 60 per second like a live tracker.
final class UDPSender {
    let fd: Int32
    var addr = sockaddr_in()
    var t = 0.0
    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    }
    deinit { close(fd) }

    /// Plays frames whose gaze is a cell of a 100×30 screen.
    func play(_ cell: (Double, Double), _ blend: [String: Double], _ seconds: Double) {
        play(gaze: (cell.0 / 100, cell.1 / 30), blend: blend, seconds: seconds)
    }

    func play(gaze: (Double, Double), blend: [String: Double], seconds: Double) {
        let n = Int(seconds * 60)
        for _ in 0..<n {
            let b = blend.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
            let line = "{\"t\": \(t), \"face\": true, \"blend\": {\(b)}, \"gaze\": [\(gaze.0), \(gaze.1)]}"
            var a = addr
            _ = line.withCString { p in
                withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, p, strlen(p), 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            t += 1.0 / 60
            // Pacing, not waiting: a tracker's 60 frames a second, each with its own time (the shell keeps the
            // newest few of a turn, so frames sent at once would be dropped as a flood).
            usleep(16_667)
        }
    }
}

/// A detached tmux session on its own tmux server, always killed.
///
/// Each session gets a server of its own (`-L name`): suites run in parallel, and on a shared server a
/// `new-session` that races the exit of a server whose last session was just killed is lost silently.
final class Tmux {
    let name: String, width: Int, height: Int
    init(name: String, width: Int = 100, height: Int = 30) { self.name = name; self.width = width; self.height = height }

    static var available: Bool {
        ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs tmux through the shell with popen: Foundation's Process hands the child a descriptor that the
    /// tmux server (forked by the first client) keeps open, so Process never sees the client exit.
    @discardableResult
    func tmux(_ args: [String]) -> String {
        let cmd = "LANG=C.UTF-8 tmux -L " + Tmux.quote(name) + " -f /dev/null " + args.map(Tmux.quote).joined(separator: " ") + " 2>/dev/null"
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

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    struct StartFailed: Error, CustomStringConvertible {
        let name: String
        var description: String { "tmux session \(name) did not start after 3 tries" }
    }

    /// Starts `command` in the session, retrying if tmux did not create it; throws if it never does.
    func start(_ command: String) throws {
        for _ in 0..<3 {
            tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command])
            if exists { return }
            usleep(200_000)  // a retry: the tmux server, just started, may refuse the first new-session
        }
        throw StartFailed(name: name)
    }

    /// Whether the session is there; it is gone once its command exits.
    var exists: Bool { !tmux(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").filter { $0 == name }.isEmpty }

    func capture() -> [String] { tmux(["capture-pane", "-p", "-t", name]).components(separatedBy: "\n") }
    var screen: String { capture().joined(separator: "\n") }
    var panePID: pid_t? { pid_t(tmux(["display-message", "-p", "-t", name, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) }
    func keys(_ k: String...) { tmux(["send-keys", "-t", name] + k) }
    /// Types text character by character, as a helper at the keyboard would.
    func literal(_ s: String) {
        // Pacing, not waiting: a helper's keys come one at a time, each its own read for the shell.
        for ch in s { tmux(["send-keys", "-t", name, "-l", String(ch)]); usleep(30_000) }
    }
    func kill() { tmux(["kill-server"]) }

    /// Polls the screen until `ok` holds (at most `seconds`).
    func waitFor(seconds: Double = 15, _ ok: ([String]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if ok(capture()) { return true }
            usleep(100_000)
        }
        return ok(capture())
    }

    /// Waits until process `pid`, killed, has exited (a zombie the tmux server has not reaped yet, or gone),
    /// at most `seconds`: whatever it was doing in the kernel when killed (a write, a rename) is then over.
    static func waitUntilGone(_ pid: pid_t, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        repeat {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            // The state follows the command's name, which is in parentheses and may hold any character.
            if let name = stat.lastIndex(of: ")"), stat[stat.index(after: name)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z") {
                return true
            }
            usleep(10_000)
        } while Date() < end
        return false
    }
}
