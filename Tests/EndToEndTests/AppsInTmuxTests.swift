#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The apps in the built binary, in tmux at 100×30: the jaw threshold changed with the Settings slider by
/// frames over real loopback UDP is in effect at once; a note survives SIGKILL mid-typing; a damaged notes
/// file is reported and kept. Each test uses its own temporary config, state and data folders.
@Suite(.serialized) struct AppsInTmuxTests {
    typealias E = AppsE2E

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func jawThresholdFromTheSettingsSliderIsInEffect() throws {
        let launcher = try E.targets(E.run([E.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let settings = try E.targets(E.run([E.binary, "layout", "--screen", "settings", "--size", "100x30"]))
        let tile = try #require(launcher["launcher.settings"]), notes = try #require(launcher["launcher.notes"])
        let jaw = try #require(settings["settings.jaw"])
        let env = E.TempHome("jaw")
        defer { env.remove() }
        let port = try E.freeUDPPort()
        let tmux = E.Tmux("hf-apps-jaw-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        let send = try E.Sender(port: port)

        send.play(tile.center, [:], 0.8); send.play(tile.center, ["jawOpen": 0.8], 0.5); send.play(tile.center, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Settings") == true }, "Settings did not open:\n\(tmux.screen)")
        #expect(tmux.screen.contains("Jaw threshold: 0.5"))

        // The slider spans 0.2…0.9 over its track (inside the box border); 0.8 lies 6/7 of the way along.
        let x0 = jaw.x + 1, w = jaw.w - 2
        let at = (Double(x0) + (Double(w - 1) * 6 / 7).rounded() + 0.5, Double(jaw.y) + Double(jaw.h) / 2)
        send.play(at, [:], 0.8); send.play(at, ["jawOpen": 0.8], 0.5); send.play(at, [:], 0.4)
        #expect(tmux.waitFor { $0.contains { $0.contains("Jaw threshold: 0.8") } }, "slider did not move:\n\(tmux.screen)")

        send.play(at, ["eyeBlinkRight": 0.95], 0.7); send.play(at, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("›") == false }, "back did not return:\n\(tmux.screen)")

        // 0.65 activated before (above 0.5) and no longer does; 0.95 does.
        send.play(notes.center, [:], 0.8); send.play(notes.center, ["jawOpen": 0.65], 0.8); send.play(notes.center, [:], 0.6)
        #expect(tmux.screen.split(separator: "\n").first?.contains("›") == false, "0.65 must not activate now:\n\(tmux.screen)")
        send.play(notes.center, ["jawOpen": 0.95], 0.5); send.play(notes.center, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true }, "0.95 must activate:\n\(tmux.screen)")

        let saved = try String(contentsOfFile: env.config + "/handsfree/settings.toml", encoding: .utf8)
        #expect(saved.contains("jaw_threshold = 0.8"), "saved to the user's config")
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aNoteSurvivesSIGKILLMidTyping() throws {
        let env = E.TempHome("kill")
        defer { env.remove() }
        let tmux = E.Tmux("hf-apps-kill-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        tmux.keys("Right", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true })
        tmux.keys("Tab", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Notes › Note") == true }, "\(tmux.screen)")
        let text = "remember the milk and call Ana at five"
        tmux.literal(text)
        #expect(tmux.waitFor { $0.contains { $0.contains(text) } }, "\(tmux.screen)")
        // Killed mid-note: no chance to flush or clean up.
        let pid = try #require(tmux.panePID)
        #expect(Glibc.kill(pid, SIGKILL) == 0)
        usleep(200_000)
        let saved = try String(contentsOfFile: env.data + "/notes.txt", encoding: .utf8)
        #expect(saved.contains("\t" + text + "\n"), "the note is on disk whole: \(saved)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: env.data).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "no half-written temp files: \(leftovers)")
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aDamagedNotesFileIsReportedAndKept() throws {
        let env = E.TempHome("corrupt")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let damaged = "handsfree-notes 1\nnote\t1\tkept note\n\u{1}\u{2}torn li"
        try damaged.write(toFile: env.data + "/notes.txt", atomically: true, encoding: .utf8)
        let tmux = E.Tmux("hf-apps-corrupt-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        tmux.keys("Right", "Enter")
        #expect(tmux.waitFor { $0.contains { $0.contains("Damaged notes file kept as notes.txt.corrupt-1") } }, "\(tmux.screen)")
        #expect(tmux.screen.contains("kept note"))
        #expect(try String(contentsOfFile: env.data + "/notes.txt.corrupt-1", encoding: .utf8) == damaged)
    }
}

/// Helpers of these tests, in their own namespace so they cannot clash with other end-to-end suites.
enum AppsE2E {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let binary = root + "/.build/debug/handsfree"
    static let ready = FileManager.default.isExecutableFile(atPath: binary)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    struct Box {
        var x: Int, y: Int, w: Int, h: Int
        var center: (Double, Double) { (Double(x) + Double(w) / 2, Double(y) + Double(h) / 2) }
    }

    /// Temporary state, config and data folders, passed to the shell as environment variables.
    struct TempHome {
        let base: String
        init(_ tag: String) { base = NSTemporaryDirectory() + "hf-apps-\(tag)-\(getpid())" }
        var config: String { base + "/config" }
        var data: String { base + "/data" }
        var vars: String {
            "env LANG=C.UTF-8 XDG_STATE_HOME=\(base)/state XDG_CONFIG_HOME=\(config) HANDSFREE_DATA_DIR=\(data)"
        }
        func remove() { try? FileManager.default.removeItem(atPath: base) }
    }

    static func run(_ args: [String]) throws -> String {
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

    static func targets(_ json: String) throws -> [String: Box] {
        let arr = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        var out: [String: Box] = [:]
        for t in arr {
            if let id = t["id"] as? String, let x = t["x"] as? Int, let y = t["y"] as? Int, let w = t["w"] as? Int,
               let h = t["h"] as? Int { out[id] = Box(x: x, y: y, w: w, h: h) }
        }
        return out
    }

    static func freeUDPPort() throws -> UInt16 {
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

    /// NDJSON frames as UDP datagrams at 60 per second; gaze given in cells of a 100×30 screen.
    final class Sender {
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

        func play(_ cell: (Double, Double), _ blend: [String: Double], _ seconds: Double) {
            let gx = cell.0 / 100, gy = cell.1 / 30
            for _ in 0..<Int(seconds * 60) {
                let b = blend.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
                let line = "{\"t\": \(t), \"face\": true, \"blend\": {\(b)}, \"gaze\": [\(gx), \(gy)]}"
                var a = addr
                _ = line.withCString { p in
                    withUnsafePointer(to: &a) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, p, strlen(p), 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                t += 1.0 / 60
                usleep(16_667)
            }
        }
    }

    /// A detached tmux session at 100×30, always killed.
    final class Tmux {
        let name: String
        init(_ name: String) { self.name = name }

        func start(_ command: String) throws {
            // Not through `run`: the tmux server inherits stdout and would keep a pipe open for ever.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            p.arguments = ["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
        }
        var screen: String { (try? AppsE2E.run(["/usr/bin/tmux", "capture-pane", "-p", "-t", name])) ?? "" }
        var lines: [String] { screen.components(separatedBy: "\n") }
        var panePID: pid_t? {
            (try? AppsE2E.run(["/usr/bin/tmux", "display-message", "-p", "-t", name, "#{pane_pid}"]))
                .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        func keys(_ k: String...) {
            for key in k { _ = try? AppsE2E.run(["/usr/bin/tmux", "send-keys", "-t", name, key]); usleep(150_000) }
        }
        func literal(_ s: String) {
            for ch in s { _ = try? AppsE2E.run(["/usr/bin/tmux", "send-keys", "-t", name, "-l", String(ch)]); usleep(30_000) }
        }
        func waitFor(seconds: Double = 6, _ ok: ([String]) -> Bool) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if ok(lines) { return true }
                usleep(100_000)
            }
            return ok(lines)
        }
        func kill() { _ = try? AppsE2E.run(["/usr/bin/tmux", "kill-session", "-t", name]) }
    }
}
