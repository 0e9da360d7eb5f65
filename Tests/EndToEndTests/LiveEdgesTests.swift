#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The live edges of the built binary: a status line that tells the truth about the source, and clean ends
/// on signals and crashes (files complete, summary printed, terminal restored).
@Suite(.serialized) struct LiveEdgesTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// The local port a UDP socket sends from (after its first send).
    static func localPort(_ fd: Int32) -> UInt16 {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: a.sin_port)
    }

    static func send(_ fd: Int32, port: UInt16, _ bytes: [UInt8]) {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// When the sender stops, the status line says so within about a second instead of showing the last
    /// frame's face and rate forever; a garbage packet is counted and its sender named.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theStatusLineGoesStaleWhenFramesStop() throws {
        let port = try freeUDPPort()
        let dir = NSTemporaryDirectory() + "hf-e2e-stale-\(getpid())"
        let session = Tmux(name: "hf-e2e-stale-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data \(Self.binary) run --no-speech --no-onboarding --listen udp://127.0.0.1:\(port)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender = try UDPSender(port: port)
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 0.5)
        let status = { (lines: [String]) in lines.last { $0.contains("fps │") } ?? "" }
        #expect(session.waitFor(seconds: 5) { status($0).contains("face ? no frames for") },
                "the status line must say frames stopped:\n\(session.screen)")
        #expect(!status(session.capture()).contains("face ●"))
        #expect(status(session.capture()).contains(" 0 fps"), "no frames arrive, so the rate is 0:\n\(session.screen)")

        Self.send(sender.fd, port: port, [0xFF, 0x00, 0x13])
        let from = "127.0.0.1:\(Self.localPort(sender.fd))"
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("unrecognised packets from \(from)") == true },
                "the sender of garbage is named:\n\(session.screen)")
        #expect(status(session.capture()).contains("1 unrecognised"), "\(session.screen)")

        // Frames again: the face is back, with a real rate.
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 1.2)
        #expect(session.waitFor(seconds: 5) { status($0).contains("face ●") }, "\(session.screen)")
    }

    /// An OpenSeeFace face as `facetracker.py` packs it: 1,785 little-endian bytes, eyes open, head level.
    static func openSeeFaceFace(t: Double) -> [UInt8] {
        var b: [UInt8] = []
        func f(_ v: Float) { withUnsafeBytes(of: v.bitPattern.littleEndian) { b += $0 } }
        withUnsafeBytes(of: t.bitPattern.littleEndian) { b += $0 }
        withUnsafeBytes(of: Int32(0).littleEndian) { b += $0 }
        f(640); f(480); f(1); f(1)
        b.append(1)
        f(0); f(0); f(0); f(0); f(1); f(180); f(0); f(90); f(0); f(0); f(0)
        for _ in 0..<(68 + 136 + 210 + 14) { f(0) }
        return b
    }

    /// A source that cannot make a bound gesture is named on the screen: OpenSeeFace, recognised from its
    /// datagrams, has no tongue for `commit`; `--source mediapipe` says the same for a webcam before any frame.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theScreenSaysWhichGesturesTheSourceCannotMake() throws {
        let port = try freeUDPPort()
        let dir = NSTemporaryDirectory() + "hf-e2e-caps-\(getpid())"
        let session = Tmux(name: "hf-e2e-caps-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data \(Self.binary) run --no-speech --no-onboarding --listen udp://127.0.0.1:\(port)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender = try UDPSender(port: port)
        for k in 0..<30 {
            Self.send(sender.fd, port: port, Self.openSeeFaceFace(t: 1_700_000_000 + Double(k) / 30))
            usleep(33_000)  // pacing, not waiting: OpenSeeFace's 30 frames a second, each with its own time
        }
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("openseeface: commit needs tongueOut") } },
                "\(session.screen)")
        let status = { (lines: [String]) in lines.last { $0.contains("fps │") } ?? "" }
        #expect(status(session.capture()).contains("face ●"), "OpenSeeFace frames drive the shell:\n\(session.screen)")
        session.kill()

        let webcam = Tmux(name: "hf-e2e-caps2-\(getpid())")
        defer { webcam.kill() }
        try webcam.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data \(Self.binary) run --no-speech --no-onboarding --source mediapipe --listen udp://127.0.0.1:\(port)")
        #expect(webcam.waitFor { $0.first?.contains("mediapipe: commit needs tongueOut") == true }, "\(webcam.screen)")
    }

    /// The pid of the command a tmux pane runs (the shell's child when the pane runs `sh -c "a; b"`).
    static func child(of pane: pid_t) -> pid_t? {
        let text = (try? String(contentsOfFile: "/proc/\(pane)/task/\(pane)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// `run` in tmux ended by a signal: the exit status is 128 + the signal, the summary is printed, and
    /// the terminal is back in canonical mode with echo (read with `stty -a` in the same pane).
    static func runEndedBy(_ sig: Int32, tag: String) throws -> (status: String, stty: String, screen: String) {
        let dir = NSTemporaryDirectory() + "hf-e2e-sig\(tag)-\(getpid())"
        let session = Tmux(name: "hf-e2e-sig\(tag)-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 SWIFT_BACKTRACE=enable=no XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data "
            + "\(Self.binary) run --no-speech --no-onboarding; echo \"EXIT:$?\"; stty -a | tr ' ' '\\n' "
            + "| grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo STTY-DONE; sleep 30")
        guard session.waitFor({ $0.first?.contains("HandsFree │ Home") == true }),
              let pane = session.panePID, let pid = Self.child(of: pane) else {
            return ("shell did not start", "", session.screen)
        }
        kill(pid, sig)
        _ = session.waitFor { $0.contains { $0.contains("STTY-DONE") } }
        let lines = session.capture()
        let status = lines.first { $0.contains("EXIT:") }.map { String($0[$0.range(of: "EXIT:")!.upperBound...]) } ?? "none"
        let stty = lines.first { $0.contains("STTY-DONE") } ?? ""
        return (status.trimmingCharacters(in: .whitespaces), stty, lines.joined(separator: "\n"))
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func runEndsCleanlyOnASignal(_ sig: Int32) throws {
        let r = try Self.runEndedBy(sig, tag: "\(sig)")
        #expect(r.status == "\(128 + sig)", "\(r.screen)")
        #expect(r.screen.contains("handsfree: ended by signal \(sig)"), "the summary is printed:\n\(r.screen)")
        #expect(r.stty.contains("icanon") && !r.stty.contains("-icanon"), "\(r.stty)")
        #expect(r.stty.contains("echo") && !r.stty.contains("-echo"), "\(r.stty)")
    }

    /// A crash must not leave the terminal raw: the crash handler restores it, then the signal ends the
    /// process as it would have.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"), arguments: [SIGSEGV, SIGABRT, SIGILL, SIGBUS, SIGFPE])
    func aCrashLeavesTheTerminalUsable(_ sig: Int32) throws {
        let r = try Self.runEndedBy(sig, tag: "crash\(sig)")
        #expect(r.status == "\(128 + sig)", "killed by the signal, as without the handler:\n\(r.screen)")
        #expect(r.stty.contains("icanon") && !r.stty.contains("-icanon"), "\(r.stty)\n\(r.screen)")
        #expect(r.stty.contains("echo") && !r.stty.contains("-echo"), "\(r.stty)")
    }

    /// A plain child process with its output in files.
    final class Child {
        let process = Process()
        let out: String, err: String
        init(_ args: [String], dir: String) throws {
            out = dir + "/stdout"; err = dir + "/stderr"
            _ = FileManager.default.createFile(atPath: out, contents: nil)
            _ = FileManager.default.createFile(atPath: err, contents: nil)
            process.executableURL = URL(fileURLWithPath: LiveEdgesTests.binary)
            process.arguments = args
            process.standardOutput = FileHandle(forWritingAtPath: out)
            process.standardError = FileHandle(forWritingAtPath: err)
            var env = ProcessInfo.processInfo.environment
            env["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = env
            try process.run()
        }
        var stdout: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        /// Waits until standard error contains `text` (at most `seconds`).
        func waitForStderr(_ text: String, seconds: Double = 20) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end { if stderr.contains(text) { return true }; usleep(50_000) }
            return false
        }
        /// Sends `sig` and waits for the exit (at most 10 s); returns the exit status, nil if killed or hung.
        func end(with sig: Int32) -> Int32? {
            kill(process.processIdentifier, sig)
            let end = Date().addingTimeInterval(10)
            while process.isRunning && Date() < end { usleep(20_000) }
            if process.isRunning { process.terminate(); return nil }
            return process.terminationReason == .exit ? process.terminationStatus : nil
        }
    }

    static func tempDir(_ tag: String) throws -> String {
        let dir = NSTemporaryDirectory() + "hf-e2e-\(tag)-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `record` ended by a signal while frames arrive: every line of its file is a whole frame, the count
    /// matches the summary, and the exit status is 128 + the signal.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func recordEndsCleanlyOnASignal(_ sig: Int32) throws {
        let dir = try Self.tempDir("rec\(sig)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try freeUDPPort()
        let file = dir + "/take.ndjson"
        let child = try Child(["record", "--listen", "udp://127.0.0.1:\(port)", "--out", file], dir: dir)
        #expect(child.waitForStderr("recording"), "\(child.stderr)")
        let sender = try UDPSender(port: port)
        sender.play(gaze: (0.5, 0.5), blend: ["jawOpen": 0.3], seconds: 0.5)
        #expect(child.end(with: sig) == 128 + sig, "\(child.stderr)")
        let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
        let parsed = lines.filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] }
        #expect(!lines.isEmpty && parsed.count == lines.count, "every line is a whole frame")
        #expect(child.stderr.contains("wrote \(lines.count) frames"), "\(child.stderr)")
        #expect(child.stderr.contains("stopped by signal \(sig)"), "\(child.stderr)")
    }

    /// `watch` ended by a signal prints its summary and exits with 128 + the signal.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func watchEndsCleanlyOnASignal(_ sig: Int32) throws {
        let dir = try Self.tempDir("watch\(sig)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try freeUDPPort()
        let child = try Child(["watch", "--listen", "udp://127.0.0.1:\(port)"], dir: dir)
        #expect(child.waitForStderr("listening on"), "\(child.stderr)")
        let sender = try UDPSender(port: port)
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 0.3)
        sender.play(gaze: (0.5, 0.5), blend: ["jawOpen": 0.8], seconds: 0.6)
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 0.3)
        #expect(child.end(with: sig) == 128 + sig, "\(child.stderr)")
        #expect(child.stdout.contains("\"gesture\": \"activate\""), "\(child.stdout)")
        #expect(child.stdout.contains("{\"summary\": {\"frames\": 72,"), "\(child.stdout)")
    }

    static let model = "/usr/share/pocketsphinx/model/en-us/en-us/mdef"

    /// `listen` on 30 s of silence through ALSA's file plugin, ended by a signal: the summary is printed
    /// and the exit status is 128 + the signal.
    @Test(.enabled(if: ready && FileManager.default.fileExists(atPath: model), "needs .build/debug/handsfree and pocketsphinx-en-us"),
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func listenEndsCleanlyOnASignal(_ sig: Int32) throws {
        let dir = try Self.tempDir("listen\(sig)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let raw = dir + "/silence.raw"
        _ = FileManager.default.createFile(atPath: raw, contents: Data(count: 32000 * 30))
        let child = try Child(["listen", "--replay", raw, "--seconds", "30"], dir: dir)
        // Said once its signals are caught: a signal now ends it cleanly.
        #expect(child.waitForStderr("listening on"), "\(child.stderr)")
        #expect(child.end(with: sig) == 128 + sig, "\(child.stderr)")
        #expect(child.stderr.contains("utterances; stopped by signal \(sig)"), "\(child.stderr)")
    }
}
