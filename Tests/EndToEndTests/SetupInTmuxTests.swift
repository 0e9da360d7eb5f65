#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The path a new user or a carer takes: the shell installed into a fresh prefix (`install.sh --binary`), run
/// from elsewhere with nothing set, `handsfree setup` driven by a helper's keys in tmux at 100×30, reading the
/// screen as they would; the face model from a real HTTP server on 127.0.0.1 that first sends a corrupted
/// copy, then cuts the download off, then sends the model.
@Suite(.serialized) struct SetupInTmuxTests {
    static let root = ShellInTmuxTests.root
    static let binary = ShellInTmuxTests.binary
    static let model = root + "/../shared/data/models/face_landmarker_with_blendshapes.task"
    static let venv = root + "/.venv"
    static let speech = root + "/../shared/data/speech/pocketsphinx-test/librivox"
    static let ready = ShellInTmuxTests.ready && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let webcamReady = ready && FileManager.default.fileExists(atPath: model) && venvImports("mediapipe")
        && FileManager.default.fileExists(atPath: speech)
    static let reason: Comment = "needs .build/debug/handsfree, tmux, python3, ../shared/data and the project's .venv with mediapipe"

    /// A fresh prefix with the shell installed, and a home with nothing in it.
    final class Prefix {
        let root = NSTemporaryDirectory() + "hf-setup-\(getpid())-\(UUID().uuidString.prefix(6))"
        var prefix: String { root + "/prefix" }
        var home: String { root + "/home" }
        var models: String { home + "/.local/share/handsfree/models" }
        var trackerFile: String { home + "/.config/handsfree/tracker.toml" }
        /// The environment a new user has: the prefix's bin on PATH, their own home, nothing else.
        var env: String {
            "env -i HOME=\(home) PATH=\(prefix)/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=xterm-256color"
        }
        init() throws {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            let r = try SetupInTmuxTests.process("/bin/bash", [SetupInTmuxTests.root + "/scripts/install.sh", "--prefix", prefix,
                                                                "--binary", SetupInTmuxTests.binary])
            try #require(r.status == 0, "install failed: \(r.err)")
        }
        func entries(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func process(_ exe: String, _ args: [String], env: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        if let env { p.environment = env }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        nonisolated(unsafe) var e = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { e = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// The labels drawn in reverse video: the focus, as a sighted helper sees it.
    static func focused(_ session: Tmux) -> String {
        let text = session.tmux(["capture-pane", "-p", "-e", "-t", session.name])
        var out = "", reverse = false
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "\u{1B}", let m = text[i...].range(of: #"\x1B\[[0-9;]*m"#, options: [.regularExpression, .anchored]) {
                let codes = text[m].dropFirst(2).dropLast().split(separator: ";")
                if codes.isEmpty || codes.contains("0") || codes.contains("27") { reverse = false; out += " " }
                if codes.contains("7") { reverse = true }
                i = m.upperBound
                continue
            }
            if reverse { out.append(text[i]) }
            i = text.index(after: i)
        }
        return out
    }

    /// The screen's text as one line, runs of spaces as one: what a reader takes from wrapped lines.
    static func flat(_ lines: [String]) -> String {
        lines.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// A helper moves the focus with Tab until it is on `label`, then presses Enter.
    static func press(_ label: String, _ session: Tmux) {
        for _ in 0..<12 {
            let was = focused(session)
            if was.contains(label) { break }
            session.keys("Tab")
            // The drawing after the key shows the focus moved on.
            _ = session.waitFor(seconds: 5) { _ in focused(session) != was }
        }
        #expect(focused(session).contains(label), "the focus never reached \(label):\n\(session.screen)")
        session.keys("Enter")
    }

    /// The test's HTTP server: `python/model_server.py` serving the real model and its broken forms.
    final class ModelServer {
        let process = Process()
        let port: Int
        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [SetupInTmuxTests.root + "/python/model_server.py", SetupInTmuxTests.model]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            port = try #require(Int(text.dropFirst(5)), "the model server said \(text)")
        }
        // SIGKILL: a child spawned from a test's thread inherits its blocked signals, SIGTERM among them.
        deinit { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    /// The whole path for a webcam, by a helper's keys. The venv `install.sh --with webcam` makes is stood in
    /// for by a link to the project's (the same packages, without a gigabyte downloaded in a test): the binary
    /// finds it beside the data by itself, with no HANDSFREE_PYTHON.
    @Test(.enabled(if: webcamReady, reason), .timeLimit(.minutes(3)))
    func aHelperSetsUpAWebcamOnAFreshPrefix() throws {
        let p = try Prefix()
        try FileManager.default.createSymbolicLink(atPath: p.prefix + "/share/handsfree/.venv", withDestinationPath: Self.venv)
        let server = try ModelServer()
        let wav = try #require(p.entries(Self.speech).first { $0.hasSuffix(".wav") })
        let spoken = p.home + "/spoken.wav"
        let session = Tmux(name: "hf-setup-\(getpid())")
        defer { session.kill() }
        try session.start("cd \(p.home) && \(p.env) handsfree setup --model-url http://127.0.0.1:\(server.port)/sequence "
                          + "--audio \(Self.speech)/\(wav) --speaker-file \(spoken); echo SETUP-ENDED $?; sleep 60")
        #expect(session.waitFor { $0.contains { $0.contains("What follows your face?") } }, "setup did not start:\n\(session.screen)")

        Self.press("Webcam", session)
        #expect(session.waitFor { $0.contains { $0.contains("Step 2 of 8: The webcam's Python parts") } }, "\(session.screen)")
        #expect(session.waitFor { Self.flat($0).contains("Found: MediaPipe 1.2.2, for \(p.prefix)/share/handsfree/.venv/bin/python.") },
                "the venv beside the data is found without HANDSFREE_PYTHON:\n\(session.screen)")
        Self.press("Next ▶", session)

        #expect(session.waitFor { $0.contains { $0.contains("Step 3 of 8: The face model") } }, "\(session.screen)")
        #expect(session.screen.contains("(2.4 MB, Apache-2.0) from 127.0.0.1"))
        // The server's first answer is a corrupted copy: refused by its checksum, nothing left behind.
        Self.press("⬇ Download", session)
        #expect(session.waitFor(seconds: 20) { $0.joined(separator: " ").contains("is not the face model: its SHA-256 is") },
                "the corrupted copy was not refused:\n\(session.screen)")
        #expect(p.entries(p.models).isEmpty, "nothing half-written where the shell looks: \(p.entries(p.models))")
        // The second is cut off half-way.
        Self.press("↻ Download again", session)
        #expect(session.waitFor(seconds: 20) { $0.joined(separator: " ").contains("stopped after 1.2 MB of 2.4 MB") },
                "the cut download was not named:\n\(session.screen)")
        #expect(p.entries(p.models).isEmpty, "\(p.entries(p.models))")
        // The third is the model.
        Self.press("↻ Download again", session)
        #expect(session.waitFor(seconds: 20) {
            let all = $0.joined(separator: " ")
            return all.contains("Ready: ~/.local/share/handsfree/models/face_landmarker_with_blendshapes.task, checked.")
        }, "\(session.screen)")
        #expect(p.entries(p.models) == ["face_landmarker_with_blendshapes.task"])
        let sum = try Self.process("/usr/bin/sha256sum", [p.models + "/face_landmarker_with_blendshapes.task"])
        #expect(sum.out.hasPrefix("b261925d4aad812b47a0e8d58c1baa1223270a5d1f663d78338bc881c003879d"))
        Self.press("Next ▶", session)

        // No camera here: said plainly, and the shell listens on a loopback port of its own for the bridge.
        #expect(session.waitFor { $0.contains { $0.contains("Step 4 of 8: Connect the tracker") } }, "\(session.screen)")
        #expect(session.waitFor { $0.contains { $0.contains("No camera was found (no /dev/video* device)") } }, "\(session.screen)")
        let listening = try #require(session.capture().first { $0.contains("Listening at udp://127.0.0.1:") })
        let after = try #require(listening.range(of: "udp://127.0.0.1:")).upperBound
        let port = try #require(UInt16(String(listening[after...].prefix { $0.isNumber })), "\(listening)")
        Self.press("Next ▶", session)

        // The microphone is a real recording through ALSA's file plugin; the speaker writes a WAV.
        #expect(session.waitFor { $0.contains { $0.contains("Step 5 of 8: Microphone and speaker") } }, "\(session.screen)")
        #expect(session.waitFor { $0.joined(separator: " ").contains("works: it heard") } && session.screen.contains("Microphone"),
                "\(session.screen)")
        #expect(session.waitFor { $0.contains { $0.contains("is saying a sentence: did you hear it?") } }, "\(session.screen)")
        #expect(session.waitFor { _ in ((try? FileManager.default.attributesOfItem(atPath: spoken)[.size] as? Int) ?? 0) > 10_000 },
                "the test sentence was spoken into \(spoken)")
        Self.press("✓ Heard it", session)
        #expect(session.waitFor { $0.contains { $0.contains("works ✓") } })
        Self.press("Next ▶", session)

        // The live check reads the frames the bridge would send; the bridge itself said why it stopped.
        #expect(session.waitFor { $0.contains { $0.contains("Step 6 of 8: Check a gesture") } }, "\(session.screen)")
        #expect(session.waitFor(seconds: 40) { $0.joined(separator: " ").contains("The webcam bridge stopped: cannot open /dev/video0") },
                "the bridge's own reason:\n\(session.screen)")
        let frames = try UDPSender(port: port)
        frames.play((50, 15), [:], 0.5)
        frames.play((50, 15), ["jawOpen": 0.7], 0.4)
        frames.play((50, 15), [:], 0.2)
        #expect(session.waitFor { $0.joined(separator: " ").contains("Widest so far 0.70, at rest 0.00") }, "\(session.screen)")
        #expect(session.screen.contains("✓ It works: next"))
        Self.press("It works", session)
        #expect(session.waitFor { $0.contains { $0.contains("Step 7 of 8: Point where you look") } }, "\(session.screen)")
        Self.press("Skip ▶", session)
        #expect(session.waitFor { $0.contains { $0.contains("Step 8 of 8: Ready") } }, "\(session.screen)")
        #expect(session.screen.contains("Face model: ready ✓") && session.screen.contains("Python parts: installed ✓"))
        Self.press("✓ Finish", session)
        #expect(session.waitFor { $0.contains { $0.contains("SETUP-ENDED 0") } }, "\(session.screen)")
        #expect(session.capture().joined().contains("setup: the tracker is a webcam (\(p.trackerFile)); start the shell with: handsfree run"),
                "\(session.screen)")
        let saved = try String(contentsOfFile: p.trackerFile, encoding: .utf8)
        #expect(saved.contains("tracker = \"webcam\"\ndevice = \"/dev/video0\""), "\(saved)")

        // A working webcam configuration: doctor finds the Python parts and the checked model where setup put them.
        let doctor = try Self.process(p.prefix + "/bin/handsfree", ["doctor"], env: ["HOME": p.home, "PATH": p.prefix + "/bin:/usr/bin:/bin"])
        #expect(doctor.out.contains("ok    webcam bridge: mediapipe 1.2.2, model \(p.models)/face_landmarker_with_blendshapes.task (checksum as expected)"),
                "\(doctor.out)")
        #expect(doctor.out.contains("warn  tracker: a webcam, but there is no camera at /dev/video0"), "\(doctor.out)")
        // And run listens to the webcam with its keymap, starting the bridge, with no option given.
        session.kill()
        let run = Tmux(name: "hf-setup-run-\(getpid())")
        defer { run.kill() }
        try run.start("cd \(p.home) && \(p.env) handsfree run --no-speech")
        #expect(run.waitFor { $0.contains { $0.contains("webcam 0 fps") && $0.contains("keymap webcam") } }, "\(run.screen)")
        #expect(run.waitFor(seconds: 40) { $0.contains { $0.contains("The webcam bridge stopped: cannot open /dev/video0") } },
                "run started the bridge, which says why it stopped:\n\(run.screen)")
        #expect(!run.screen.contains("What follows your face?"), "set up: run goes to the shell")
    }

    /// "Nothing is set up": no settings.toml and no tracker.toml. The first run opens setup; leaving it keeps
    /// "no tracker", and the next run goes to the shell. `--no-onboarding` (the tests) never opens it.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and python3"), .timeLimit(.minutes(2)))
    func theFirstRunOpensSetupOnceAndTheTestsNever() throws {
        let p = try Prefix()
        let session = Tmux(name: "hf-first-\(getpid())")
        defer { session.kill() }
        try session.start("cd \(p.home) && \(p.env) handsfree run --no-onboarding --no-speech; echo RUN-ENDED; sleep 30")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "\(session.screen)")
        #expect(!session.screen.contains("What follows your face?"))
        session.keys("q")
        #expect(session.waitFor { $0.contains { $0.contains("RUN-ENDED") } })
        session.kill()

        let first = Tmux(name: "hf-first2-\(getpid())")
        defer { first.kill() }
        try first.start("cd \(p.home) && \(p.env) handsfree run --no-speech; echo RUN-ENDED; sleep 30")
        #expect(first.waitFor { $0.contains { $0.contains("What follows your face?") } }, "the first run opens setup:\n\(first.screen)")
        Self.press("✕ Not now", first)
        #expect(first.waitFor { $0.first?.contains("Welcome") == true && $0.first?.contains("Set up") == false }, "then the onboarding help:\n\(first.screen)")
        first.keys("Escape")
        #expect(first.waitFor { $0.first?.contains("HandsFree │ Home ") == true })
        first.keys("q")
        #expect(first.waitFor { $0.contains { $0.contains("RUN-ENDED") } })
        #expect(try String(contentsOfFile: p.trackerFile, encoding: .utf8).contains("tracker = \"none\""))
        first.kill()

        let again = Tmux(name: "hf-first3-\(getpid())")
        defer { again.kill() }
        try again.start("cd \(p.home) && \(p.env) handsfree run --no-speech; echo RUN-ENDED; sleep 30")
        #expect(again.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "\(again.screen)")
        #expect(!again.screen.contains("What follows your face?"), "asked once")
    }

    /// What an installed prefix tells a new user: `install.sh --help` whole; doctor's fixes name commands the
    /// prefix has, and HANDSFREE_PYTHON; `install.sh --with` makes the venv the binary then finds by itself,
    /// and uninstall takes it away with the rest.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and python3 with venv and PyPI"), .timeLimit(.minutes(3)))
    func theInstalledPrefixNamesItsOwnCommands() throws {
        let help = try Self.process("/bin/bash", [Self.root + "/scripts/install.sh", "--help"])
        #expect(help.status == 0 && help.out.hasSuffix("gestures and pointer, one screen at a time), then handsfree run.\n"), "\(help.out)")
        #expect(help.out.contains("--with GROUPS") && !help.out.contains("set -euo"))

        let p = try Prefix()
        let env = ["HOME": p.home, "PATH": p.prefix + "/bin:/usr/bin:/bin"]
        let doctor = try Self.process(p.prefix + "/bin/handsfree", ["doctor"], env: env)
        let script = p.prefix + "/share/handsfree/scripts/python-env.sh"
        let fixes = doctor.out.split(separator: "\n").filter { $0.hasPrefix("      fix: ") }
        #expect(fixes.contains { $0.contains("\(script) webcam, or set HANDSFREE_PYTHON to a Python that has mediapipe") }, "\(doctor.out)")
        #expect(fixes.contains { $0.contains("\(script) whisper") } && fixes.contains { $0.contains("\(script) speak") })
        #expect(!fixes.contains { $0.contains(" scripts/python-env.sh") }, "no path the prefix lacks:\n\(doctor.out)")
        #expect(doctor.out.contains("fix: handsfree setup fetches it and checks it") || doctor.out.contains("mediapipe is not installed"))
        #expect(doctor.out.contains("warn  tracker: none chosen yet (\(p.trackerFile) is not there)")
                && doctor.out.contains("      fix: handsfree setup (the tracker,"), "a new user is sent to setup:\n\(doctor.out)")

        // install.sh --with: the venv beside the data, found with no HANDSFREE_PYTHON (python-osc: a small group).
        let with = try Self.process("/bin/bash", [Self.root + "/scripts/install.sh", "--prefix", p.prefix, "--binary", Self.binary,
                                                  "--with", "test"])
        try #require(with.status == 0, "install --with test: \(with.out)\(with.err)")
        let venvPython = p.prefix + "/share/handsfree/.venv/bin/python"
        #expect(FileManager.default.isExecutableFile(atPath: venvPython))
        let again = try Self.process(p.prefix + "/bin/handsfree", ["doctor"], env: env)
        #expect(again.out.contains("mediapipe is not installed for \(venvPython)"), "the prefix's venv is the Python used:\n\(again.out)")
        let uninstall = try Self.process("/bin/bash", [Self.root + "/scripts/uninstall.sh", "--prefix", p.prefix])
        #expect(uninstall.status == 0 && uninstall.out.contains("removed the Python parts"), "\(uninstall.out)\(uninstall.err)")
        #expect(!FileManager.default.fileExists(atPath: p.prefix + "/share/handsfree"), "\(p.entries(p.prefix + "/share"))")
    }
}
