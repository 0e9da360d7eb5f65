#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 29: the built binary in tmux on the Desktop screen types, by gaze and jaw alone, into a real X
/// window, and in pointer mode moves and clicks the desktop's pointer so that the next words go to another
/// window. Xvfb with two xterms running `cat > FILE`, no window manager: keys go to the window under the
/// pointer (the server's focus is PointerRoot), so where the pointer is decides which FILE the words reach.
@Suite(.serialized) struct DesktopInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let tools = ["Xvfb", "xterm", "xdotool"]
    static let ready = ShellInTmuxTests.ready && tools.allSatisfy { access("/usr/bin/" + $0, X_OK) == 0 }

    /// An Xvfb display with xterms on it; everything is ended with SIGKILL (SIGTERM is blocked in tests).
    final class Desktop {
        let display: String
        let directory: String
        private var processes: [Process] = []

        init(directory: String) throws {
            self.directory = directory
            // -displayfd: the server picks a free display itself (tests and the bench start servers in
            // parallel) and says which once it listens.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            p.arguments = ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            p.environment = ProcessInfo.processInfo.environment
            try p.run()
            var text = ""
            while !text.contains("\n") {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let n = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                kill(p.processIdentifier, SIGKILL)
                throw CocoaError(.featureUnsupported)
            }
            display = ":\(n)"
            processes.append(p)
        }

        deinit {
            for p in processes.reversed() where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
            let n = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(n)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
        }

        private func spawn(_ tool: String, _ args: [String]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = args
            p.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display, "LC_ALL": "C.UTF-8"]) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }

        /// An xterm titled `title` at `geometry` running `cat > title.txt`; returns the file's path.
        func catWindow(_ title: String, geometry: String) throws -> String {
            let file = directory + "/\(title).txt"
            try spawn("/usr/bin/xterm", ["-u8", "-T", title, "-geometry", geometry, "-e", "sh", "-c", "cat > '\(file)'"])
            #expect(Self.wait(15) {
                !((try? self.xdotool(["search", "--name", "^\(title)$"])) ?? "").isEmpty && FileManager.default.fileExists(atPath: file)
            }, "the window \(title) did not open")
            return file
        }

        @discardableResult
        func xdotool(_ args: [String]) throws -> String {
            try run(["/usr/bin/env", "DISPLAY=\(display)", "/usr/bin/xdotool"] + args)
        }

        /// The pointer's place, from `xdotool getmouselocation --shell`.
        func pointer() throws -> (x: Int, y: Int) {
            let fields = try xdotool(["getmouselocation", "--shell"]).split(separator: "\n").reduce(into: [String: Int]()) {
                let kv = $1.split(separator: "=")
                if kv.count == 2, let v = Int(kv[1]) { $0[String(kv[0])] = v }
            }
            return (fields["X"] ?? -1, fields["Y"] ?? -1)
        }

        static func wait(_ seconds: Double, _ done: () -> Bool) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while !done() {
                if Date() > end { return false }
                usleep(20_000)
            }
            return true
        }

        /// Ends the X server as a crash would (its windows go with it).
        func killServer() {
            guard let server = processes.first, server.isRunning else { return }
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }

        static func contents(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux, Xvfb, xterm and xdotool (scripts/install-deps.sh)"))
    func gazeAndJawTypeIntoAWindowAndAPointerClickSendsTheNextWordsToAnother() throws {
        let dir = try TerminalInTmuxTests.tempDir("desktop")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let x = try Desktop(directory: dir)
        // 80x24 xterms are 484x316 pixels: the second spans x 660…1143, y 0…315.
        let first = try x.catWindow("first", geometry: "80x24+0+0")
        let second = try x.catWindow("second", geometry: "80x24+660+0")
        try x.xdotool(["mousemove", "240", "150"])   // over the first: it has the keys

        let boxes = try targets(try run([Self.binary, "layout", "--screen", "desktop", "--size", "100x30"]))
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-desktop-\(getpid())")
        defer { session.kill() }
        try session.start("env DISPLAY=\(x.display) " + TerminalInTmuxTests.shell(in: dir, "--desktop --output x11 --listen udp://127.0.0.1:\(port)"))
        let screen = { TerminalInTmuxTests.screenText(session) }
        #expect(session.waitFor { $0.first?.contains("Home › Desktop") == true && $0.contains { $0.contains("X11 \(x.display)") } },
                "the Desktop screen did not connect to the display:\n\(screen())")
        let sender = try UDPSender(port: port)
        let key = try #require(boxes["desktop.keyboard.key.h"])
        sender.play(key.center, [:], 1.2)   // safe start: a still face first

        // A sentence by gaze and jaw: letters, a committed suggestion, Enter.
        for ch in "hi" { TerminalInTmuxTests.press("desktop.keyboard.key.\(ch)", boxes, sender) }
        TerminalInTmuxTests.press("desktop.keyboard.space", boxes, sender)
        for ch in "wor" { TerminalInTmuxTests.press("desktop.keyboard.key.\(ch)", boxes, sender) }
        var starred = ""
        #expect(session.waitFor(seconds: 10) { lines in
            guard let bar = lines.first(where: { $0.contains("★") }) else { return false }
            starred = String(bar.split(separator: "★")[1].split(separator: " ").first ?? "")
            return starred.lowercased().hasPrefix("wor")
        }, "no suggestion for \"wor\":\n\(screen())")
        // The tongue commits the starred word wherever the user looks.
        sender.play(key.center, ["tongueOut": 0.6], 0.45)
        sender.play(key.center, [:], 0.3)
        TerminalInTmuxTests.press("desktop.key.enter", boxes, sender)
        let line = "hi \(starred) \n"
        #expect(Desktop.wait(5) { Desktop.contents(first) == line },
                "the first window's file holds \(String(reflecting: Desktop.contents(first))), not \(String(reflecting: line)):\n\(screen())")

        // Pointer mode: the gaze goes to the second window, the jaw clicks there, the right eye stops pointing.
        TerminalInTmuxTests.press("desktop.pointer", boxes, sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("Pointer mode:") } }, "\(screen())")
        let target = (x: 902.0 / 1279, y: 158.0 / 799)
        sender.play(gaze: target, blend: [:], seconds: 0.8)
        let before = try x.pointer()
        #expect(abs(before.x - 902) <= 6 && abs(before.y - 158) <= 6, "the pointer is at \(before), not over the second window")
        // The jaw opens with the gaze dipping (as a real face's does): the pointer holds still all the while
        // the jaw is open, before and after the click fires.
        sender.play(gaze: (target.x, target.y + 0.05), blend: ["jawOpen": 0.8], seconds: 0.1)
        let opening = try x.pointer()
        sender.play(gaze: (target.x, target.y + 0.05), blend: ["jawOpen": 0.8], seconds: 0.35)
        let opened = try x.pointer()
        #expect(opening == opened, "the pointer moved while the jaw was open: \(opening) → \(opened)")
        sender.play(gaze: target, blend: [:], seconds: 0.3)
        sender.play(gaze: target, blend: ["eyeBlinkRight": 0.9], seconds: 0.6)
        sender.play(gaze: target, blend: [:], seconds: 0.3)
        #expect(session.waitFor(seconds: 5) { !$0.contains { $0.contains("Pointer mode:") } }, "pointing did not stop:\n\(screen())")

        for ch in "ok" { TerminalInTmuxTests.press("desktop.keyboard.key.\(ch)", boxes, sender) }
        TerminalInTmuxTests.press("desktop.key.enter", boxes, sender)
        #expect(Desktop.wait(5) { Desktop.contents(second) == "ok\n" },
                "the second window's file holds \(String(reflecting: Desktop.contents(second))):\n\(screen())")
        #expect(Desktop.contents(first) == line, "the first window got more than its line")

        // The session goes away: what is typed next is named as not sent, kept on screen, and the shell runs on.
        x.killServer()
        TerminalInTmuxTests.press("desktop.keyboard.key.z", boxes, sender)
        #expect(session.waitFor(seconds: 5) { s in s.contains { $0.contains("not sent: z") } && s.contains { $0.contains("X display \(x.display)") } },
                "the lost display was not named:\n\(screen())")
        #expect(session.waitFor(seconds: 2) { $0.contains { $0.contains("› z") } }, "the text was not kept:\n\(screen())")
    }

    @Test(.enabled(if: ShellInTmuxTests.ready, "needs .build/debug/handsfree and tmux"))
    func aDisplayThatIsNotThereIsNamedBeforeTheTerminalIsTaken() throws {
        let r = try WebcamBridgeTests.run(Self.binary, ["run", "--desktop", "--output", "x11::399", "--no-speech", "--no-onboarding"])
        #expect(r.status == 1)
        #expect(r.err.contains("cannot open X display :399"), "\(r.err)")
        let pty = try WebcamBridgeTests.run(Self.binary, ["run", "--output", "pty", "--no-speech"])
        #expect(pty.status == 64 && pty.err.contains("pty is the Terminal screen's own program"), "\(pty.err)")
    }

    /// The same on Wayland: sway (as nobody) tiling two foot windows; the shell, in tmux as root, reaches the
    /// compositor through its socket's path. Pointing at the other window and clicking focuses it (sway's
    /// tree says so), and the next words go to its file.
    @Test(.enabled(if: ready && WaylandSinkInSwayTests.ready, WaylandSinkInSwayTests.reason))
    func theSameOnSwayThroughTheVirtualKeyboardAndPointer() throws {
        let dir = try TerminalInTmuxTests.tempDir("desktop-sway")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let desk = try SwayDesktop(tag: "desktop-e2e", windows: 2)
        defer { desk.stop() }
        try #require(desk.waitForFoot(count: 2), "the two foot windows never appeared: \(desk.log)")
        var windows = try desk.windows()
        try #require(windows.count == 2 && windows.filter(\.focused).count == 1, "\(windows)")
        guard let focused = windows.first(where: \.focused), let other = windows.first(where: { !$0.focused }),
              let fi = Int(focused.name.dropFirst("window".count)), let oi = Int(other.name.dropFirst("window".count))
        else { Issue.record("windows not named windowN: \(windows)"); return }

        let boxes = try targets(try run([Self.binary, "layout", "--screen", "desktop", "--size", "100x30"]))
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-desktop-sway-\(getpid())")
        defer { session.kill() }
        try session.start(TerminalInTmuxTests.shell(in: dir, "--desktop --output wayland:\(desk.runtime)/wayland-1 --listen udp://127.0.0.1:\(port)"))
        let screen = { TerminalInTmuxTests.screenText(session) }
        #expect(session.waitFor { $0.first?.contains("Home › Desktop") == true && $0.contains { $0.contains("(wayland ") } },
                "the Desktop screen did not connect to sway:\n\(screen())")
        let sender = try UDPSender(port: port)
        let key = try #require(boxes["desktop.keyboard.key.h"])
        sender.play(key.center, [:], 1.2)
        for ch in "hi" { TerminalInTmuxTests.press("desktop.keyboard.key.\(ch)", boxes, sender) }
        TerminalInTmuxTests.press("desktop.key.enter", boxes, sender)
        #expect(desk.waitForFile("hi\n", path: desk.files[fi - 1]) == "hi\n", "\(screen())")

        TerminalInTmuxTests.press("desktop.pointer", boxes, sender)
        let target = ((other.x + other.width / 2) / 1280, (other.y + other.height / 2) / 800)
        sender.play(gaze: target, blend: [:], seconds: 0.8)
        sender.play(gaze: target, blend: ["jawOpen": 0.8], seconds: 0.45)
        sender.play(gaze: target, blend: [:], seconds: 0.3)
        windows = try desk.windows()
        #expect(windows.first(where: \.focused)?.name == other.name, "the click did not focus \(other.name): \(windows)")
        sender.play(gaze: target, blend: ["eyeBlinkRight": 0.9], seconds: 0.6)
        sender.play(gaze: target, blend: [:], seconds: 0.3)
        #expect(session.waitFor(seconds: 5) { !$0.contains { $0.contains("Pointer mode:") } }, "pointing did not stop:\n\(screen())")
        for ch in "ok" { TerminalInTmuxTests.press("desktop.keyboard.key.\(ch)", boxes, sender) }
        TerminalInTmuxTests.press("desktop.key.enter", boxes, sender)
        #expect(desk.waitForFile("ok\n", path: desk.files[oi - 1]) == "ok\n", "\(screen())")
        #expect(desk.waitForFile("hi\n", path: desk.files[fi - 1]) == "hi\n")
    }
}
