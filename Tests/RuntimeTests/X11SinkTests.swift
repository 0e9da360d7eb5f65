#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import PtyHost
import Runtime
import Localization
import Shell
@testable import Sinks
import Testing

/// The X11 sink against a real X server: Xvfb with xterms running `cat > FILE`, the focused one typed
/// into through the sink alone, in the US, German and French layouts; a display that is not there, and
/// one that goes away mid-session.
@Suite(.serialized) struct X11SinkTests {
    static let tools = ["Xvfb", "xterm", "xdotool", "setxkbmap"]
    static var missingTools: [String] {
        tools.filter { t in !["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { access($0 + t, X_OK) == 0 } }
    }
    static var hasTools: Bool { missingTools.isEmpty }
    static let skipReason: Comment = "needs Xvfb, xterm, xdotool and setxkbmap (scripts/install-deps.sh installs them)"

    /// An Xvfb display of its own, with programs started on it; all ended when it is.
    final class XSession {
        let display: String
        let directory: URL
        private var server = Process()
        private var clients: [Process] = []

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("x11sink-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var started = Process()
            display = try Self.startXvfb(&started)
            server = started
        }

        /// Starts Xvfb on a display number of its own choosing (`-displayfd`: suites and the bench start
        /// servers in parallel, and two picking the same free-looking number race); returns `:N` once it
        /// listens.
        static func startXvfb(_ server: inout Process) throws -> String {
            server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            // -noreset: by default the server resets, layout and all, whenever its last client leaves, as
            // setxkbmap does before any window is open.
            server.arguments = ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
            let out = Pipe()
            server.standardOutput = out
            server.standardError = FileHandle.nullDevice
            try server.run()
            var text = ""
            while !text.contains("\n") {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let n = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw OutputSinkError("Xvfb did not start (it said \(String(reflecting: text)))")
            }
            return ":\(n)"
        }

        /// Starts Xvfb again on the same display, after `killServer`.
        func startServer() throws {
            server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            server.arguments = [display, "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            try Self.wait("Xvfb on \(display)", timeout: 10) {
                FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display.dropFirst())")
            }
        }

        deinit { stop() }

        /// Ends the clients and the server.
        func stop() {
            // SIGKILL: children of the test process inherit its mask, which blocks SIGTERM.
            for p in clients where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
            killServer()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Ends the server alone, as a crash would, and removes the lock and socket it leaves.
        func killServer() {
            guard server.isRunning else { return }
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            let n = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(n)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
        }

        /// Runs a tool on the display to its end; returns what it printed.
        @discardableResult
        func run(_ tool: String, _ arguments: [String]) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
            p.arguments = arguments
            p.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                throw OutputSinkError("\(tool) \(arguments.joined(separator: " ")) exited with \(p.terminationStatus)")
            }
            return String(decoding: data, as: UTF8.self)
        }

        /// Starts an xterm titled `title` running `cat > FILE` in UTF-8 (at `geometry`, an X geometry such as
        /// `80x24+0+0`, if given), waits for its window and focuses it; returns FILE.
        func catWindow(_ title: String, focus: Bool = true, geometry: String? = nil) throws -> URL {
            let file = directory.appendingPathComponent("\(title).txt")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/xterm")
            p.arguments = ["-u8", "-T", title] + (geometry.map { ["-geometry", $0] } ?? [])
                + ["-e", "sh", "-c", "cat > '\(file.path)'"]
            p.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display, "LC_ALL": "C.UTF-8"]) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            clients.append(p)
            var window = ""
            try Self.wait("the window \(title)", timeout: 15) {
                window = (try? run("xdotool", ["search", "--name", "^\(title)$"]))?
                    .split(separator: "\n").first.map(String.init) ?? ""
                return !window.isEmpty && FileManager.default.fileExists(atPath: file.path)
            }
            // Under load the window may not be viewable yet as it is found, and focusing it then fails
            // (seen 3 times in 44 runs at load 12 to 14): it is tried again until it takes.
            if focus {
                try Self.wait("the focus on \(title)", timeout: 10) {
                    (try? run("xdotool", ["windowfocus", "--sync", window])) != nil
                }
            }
            return file
        }

        /// Waits until `done`, or throws naming `what` after `timeout` seconds.
        static func wait(_ what: String, timeout: Double, _ done: () throws -> Bool) throws {
            let end = Date().addingTimeInterval(timeout)
            while try !done() {
                guard Date() < end else { throw OutputSinkError("timed out waiting for \(what)") }
                usleep(20_000)
            }
        }

        /// What FILE holds once it holds `expected`, or after `timeout` seconds.
        static func contents(of file: URL, becoming expected: String, timeout: Double = 10) -> String {
            var now = ""
            try? wait("\(file.lastPathComponent)", timeout: timeout) {
                now = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                return now == expected || now.count > expected.count
            }
            return now
        }
    }

    // MARK: The option

    @Test func theOptionNamesADisplayOrTakesDISPLAY() throws {
        let own = try OutputSinks.parse("x11")
        #expect(own.kind.scheme == "x11" && own.argument == nil)
        #expect(X11Sink(display: nil, environment: ["DISPLAY": ":7"]).displayName == ":7")
        let other = try OutputSinks.parse("x11::1")
        let sink = other.open(OutputSetup(command: []))
        #expect((sink as? X11Sink)?.displayName == ":1")
        #expect(sink.name == "X11 :1")
        #expect(sink.traits == [])
        #expect(OutputSinkTests.refusal("x11:") == "x11 needs a DISPLAY after the colon, for example x11::0")
    }

    @Test func aDisplayMayBeANumberADisplayOrTheDisplayAlone() throws {
        // Issue 47: x11:77, x11::77 and :77 all mean display 77.
        for spec in ["x11:77", "x11::77", ":77"] {
            let sink = try OutputSinks.parse(spec).open(OutputSetup(command: []))
            #expect((sink as? X11Sink)?.displayName == ":77", "\(spec)")
        }
        #expect(X11Sink.displayName(from: "77.1") == ":77.1")
        #expect(X11Sink.displayName(from: "host:1") == "host:1")
    }

    @Test func charactersBecomeLatin1LegacyOrUnicodeKeysyms() {
        #expect(X11Sink.keysym(for: "a") == 0x61)
        #expect(X11Sink.keysym(for: "ä") == 0xE4)
        #expect(X11Sink.keysym(for: "€") == 0x20AC)
        #expect(X11Sink.keysym(for: "ł") == 0x1B3)
        #expect(X11Sink.keysym(for: "→") == 0x0100_2192)
        #expect(X11Sink.keysym(for: "\u{7}") == nil)
    }

    // MARK: Unreachable displays

    @Test func withoutADisplayCheckNamesTheCauseAndTheFix() {
        let sink = X11Sink(display: nil, environment: [:])
        #expect(throws: OutputSinkError("no DISPLAY: start an X session or name one, x11::0 (--output, --type-into)")) { try sink.check() }
        #expect(throws: OutputSinkError.self) { try sink.type("x") }
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X99"), "something serves display :99"))
    func aDisplayWithNothingThereFailsCheckWithItsName() throws {
        let sink = try OutputSinks.parse("x11::99").open(OutputSetup(command: []))
        let error = #expect(throws: OutputSinkError.self) { try sink.check() }
        #expect(error?.description.hasPrefix("cannot open X display :99: is its server running") == true)
    }

    // MARK: A real X server

    @Test(.enabled(if: hasTools, skipReason))
    func textKeysAndUmlautsReachTheFocusedWindow() throws {
        let x = try XSession()
        defer { x.stop() }
        _ = try x.catWindow("other", focus: false)
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        try sink.check()
        try sink.type("Hello, World! It's 3:45 (really?) - \"quoted\" #1 $HOME ~/a_b+c=d; 50% & <more> [x] {y} `z` ^")
        try sink.press(TerminalKeyPress(.enter))
        try sink.type("abx")
        try sink.press(TerminalKeyPress(.backspace))
        try sink.type("c\täöü ß € @ |\n")
        let expected = "Hello, World! It's 3:45 (really?) - \"quoted\" #1 $HOME ~/a_b+c=d; 50% & <more> [x] {y} `z` ^\nabc\täöü ß € @ |\n"
        #expect(XSession.contents(of: file, becoming: expected) == expected)
        // The US layout has no key for äöüß€: each went out on a borrowed keycode.
        #expect(sink.borrowedKeys == 5)
    }

    @Test(.enabled(if: hasTools, skipReason))
    func namedKeysAndChordsReachTheWindow() throws {
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        try sink.type("ab")
        for key in [TerminalKeyPress(.left), TerminalKeyPress(.home), TerminalKeyPress(.function(1)),
                    TerminalKeyPress(.char("x"), modifiers: .shift), TerminalKeyPress(.tab), TerminalKeyPress(.enter),
                    TerminalKeyPress(.ctrl("D"))] {
            try sink.press(key)
        }
        // xterm's escape sequences for Left, Home and F1 go into the file as they are; Ctrl-D ends cat.
        let expected = "ab\u{1B}[D\u{1B}[H\u{1B}OPX\t\n"
        #expect(XSession.contents(of: file, becoming: expected) == expected)
    }

    @Test(.enabled(if: hasTools, skipReason), arguments: ["de", "fr"])
    func theGermanAndFrenchLayoutsTypeWithTheirOwnKeys(layout: String) throws {
        let x = try XSession()
        defer { x.stop() }
        try x.run("setxkbmap", [layout])
        #expect(try x.run("setxkbmap", ["-query"]).contains("layout:     \(layout)"))
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        let text = "äöü ß € @ | Zürich, Noël; y=z*2 <a> 'q' \"w\" 1234567890 AZERTY QWERTZ\n"
        try sink.type(text)
        #expect(XSession.contents(of: file, becoming: text) == text)
        // German has keys for all but ë (a dead key's), € @ | on AltGr; French lacks äöü too (ß is AltGr-s).
        #expect(sink.borrowedKeys == (layout == "de" ? 1 : 4))
    }

    @Test(.enabled(if: hasTools, skipReason))
    func randomPrintableTextArrivesWholeAndInOrder() throws {
        let count = Int(ProcessInfo.processInfo.environment["X11_SINK_CHARS"] ?? "") ?? 10_000
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for i in 0..<count {
            text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
            // A cooked tty keeps at most 4095 characters of a line.
            if i % 64 == 63 { text += "\n" }
        }
        text += "\n"
        let start = Date()
        try sink.type(text)
        let sent = Date().timeIntervalSince(start)
        let got = XSession.contents(of: file, becoming: text, timeout: 60)
        let arrived = Date().timeIntervalSince(start)
        print("X11Sink: \(text.count) characters sent in \(String(format: "%.2f", sent)) s (\(Int(Double(text.count) / sent)) chars/s), all in FILE after \(String(format: "%.2f", arrived)) s")
        #expect(got == text)
        // For a figure beside the sink's: xdotool typing the same text into a second window, in this run.
        if ProcessInfo.processInfo.environment["X11_SINK_COMPARE_XDOTOOL"] != nil {
            let other = try x.catWindow("xdotool")
            let began = Date()
            try x.run("xdotool", ["type", "--delay", "0", text])
            let typed = Date().timeIntervalSince(began)
            let same = XSession.contents(of: other, becoming: text, timeout: 120) == text
            print("xdotool type --delay 0: \(text.count) characters in \(String(format: "%.2f", typed)) s (\(Int(Double(text.count) / typed)) chars/s), all in FILE: \(same)")
        }
        if got != text, let i = zip(got, text).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at \(i) of \(text.count), \(got.count) arrived; \(Self.differences(got, text))")
        }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aServerThatGoesAwayIsAnErrorAndTheProcessRunsOn() throws {
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        try sink.type("before\n")
        #expect(XSession.contents(of: file, becoming: "before\n") == "before\n")
        x.killServer()
        let error = #expect(throws: OutputSinkError.self) { try sink.type("after") }
        #expect(error?.description.contains(x.display) == true)
        // The next call tries to open it again, and says it cannot.
        let again = #expect(throws: OutputSinkError.self) { try sink.press(TerminalKeyPress(.enter)) }
        #expect(again?.description.hasPrefix("cannot open X display \(x.display)") == true)
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aServerKilledMidSessionGivesTheFailureEventTheTextStaysAndANewServerIsTypedInto() throws {
        let x = try XSession()
        defer { x.stop() }
        _ = try x.catWindow("first")
        let link = TerminalLink(X11Sink(display: x.display))
        _ = link.apply(.start(rows: 24, cols: 80))
        #expect(link.apply(.type("hello")).isEmpty)

        x.killServer()
        let events = link.apply(.type("kept"))
        guard case .output(.failed(let reason, let unsent))? = events.first, events.count == 1 else {
            Issue.record("no failure event: \(events)")
            return
        }
        #expect(unsent == "kept")
        #expect(reason.english.contains("X display \(x.display) went away"), "\(reason)")

        // The reducer keeps the text on the Terminal screen and says why.
        let gestures = GestureConfig.defaults().gestures
        var s = ShellState(keymap: try Setup.keymap("default", gestures: gestures), gestures: gestures)
        s.show(screen: "terminal")
        _ = reduce(&s, .terminal(link.view()))
        for e in events { _ = reduce(&s, e) }
        let screen = render(s, size: s.size).0.text
        #expect(screen.contains("not sent: kept · X display \(x.display) went away"), "\(screen)")

        // A server back on the display: the sink opens it again, and the delivery is reported.
        try x.startServer()
        let file = try x.catWindow("target")
        let again = link.apply(.type("back\n"))
        guard case .output(.delivered)? = again.first, again.count == 1 else {
            Issue.record("no delivery event: \(again)")
            return
        }
        #expect(XSession.contents(of: file, becoming: "back\n") == "back\n")
    }

    /// Stops `window`'s xterm (SIGSTOP) now and lets it go on after `seconds`, from another thread, so that it
    /// reads nothing of what is typed meanwhile: a window busy for that long.
    static func stop(_ x: XSession, title: String, for seconds: Double) throws -> Thread {
        let id = try pid(x, title: title)
        kill(id, SIGSTOP)
        let thread = Thread { usleep(UInt32(seconds * 1_000_000)); kill(id, SIGCONT) }
        thread.start()
        return thread
    }

    /// The process of `title`'s xterm.
    static func pid(_ x: XSession, title: String) throws -> pid_t {
        let pid = try x.run("xdotool", ["search", "--name", "^\(title)$", "getwindowpid"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let id = Int32(pid) else { throw OutputSinkError("no pid for the window \(title)") }
        return id
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aWindowBusyForHalfASecondGetsAccentsAndChineseWhole() throws {
        // Issue 49, item 1: the spare keycodes were given back 50 ms after the call, and a window that read
        // its keys later found them unbound ("café 中文" arrived as "caf ").
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("busy")
        _ = try Self.stop(x, title: "busy", for: 0.5)
        let sink = X11Sink(display: x.display)
        try sink.type("café 中文\n")
        #expect(XSession.contents(of: file, becoming: "café 中文\n") == "café 中文\n")
        // A later call, here a process of its own, finds the bindings listed and types with them again.
        _ = try Self.stop(x, title: "busy", for: 0.5)
        let again = X11Sink(display: x.display)
        try again.type("中文 é\n")
        #expect(again.borrowedKeys == 0)
        #expect(XSession.contents(of: file, becoming: "café 中文\n中文 é\n") == "café 中文\n中文 é\n")
    }

    @Test(.enabled(if: hasTools, skipReason))
    func bindingsFromAnotherProcessAreNotChangedWhileTheirKeysWait() throws {
        // A later sink finds every spare keycode bound by an earlier one, whose keys a stopped window has
        // not read: it may bind one again only once the window has shown it read them.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("busy")
        let chinese = (0..<160).compactMap { Unicode.Scalar(0x4E00 + 7 * UInt32($0)) }.map(String.init)
        let first = X11Sink(display: x.display)
        try first.type(chinese.joined() + "\n")
        // More characters than slots: every slot holds one of the last, and the next needs one of theirs.
        #expect(first.spareSlots < chinese.count)
        let bound = Array(chinese.suffix(first.spareSlots))
        #expect(bound.count >= 40)
        // The window stops; another sink types the bound characters, which wait in its queue, and then one
        // character more, which needs a keycode of theirs.
        _ = try Self.stop(x, title: "busy", for: 0.5)
        let second = X11Sink(display: x.display)
        try second.type(bound.joined())
        #expect(second.borrowedKeys == 0)
        let third = X11Sink(display: x.display)
        try third.type("文\n")
        let expected = chinese.joined() + "\n" + bound.joined() + "文\n"
        #expect(XSession.contents(of: file, becoming: expected) == expected)
    }

    /// An xterm whose spare keycodes an earlier sink bound, all of them, and which is stopped (SIGSTOP; let go
    /// by SIGCONT to the returned process) while a second sink queues `repeats` rounds of those characters on
    /// them, each round a line: the state the dry run's failure began from. Returns the window's file, the
    /// text it will hold once it handled every key, and the stopped process.
    static func bindingsWaitingInAStoppedWindow(_ x: XSession, repeats: Int) throws -> (file: URL, expected: String, pid: pid_t) {
        let file = try x.catWindow("busy")
        let chinese = (0..<160).compactMap { Unicode.Scalar(0x4E00 + 7 * UInt32($0)) }.map(String.init)
        let first = X11Sink(display: x.display)
        try first.type(chinese.joined() + "\n")
        #expect(first.spareSlots < chinese.count)
        let bound = chinese.suffix(first.spareSlots).joined() + "\n"
        let id = try pid(x, title: "busy")
        kill(id, SIGSTOP)
        let second = X11Sink(display: x.display)
        do { try second.type(String(repeating: bound, count: repeats)) } catch { kill(id, SIGCONT); throw error }
        #expect(second.borrowedKeys == 0)
        return (file, chinese.joined() + "\n" + String(repeating: bound, count: repeats), id)
    }

    @Test(.enabled(if: hasTools, skipReason))
    func anotherProcesssBindingsAreBoundAgainOnMarkerEvidenceNotOnAFetch() throws {
        // The last CI dry run (issue 49): a third sink, under load, left xterm's marker unanswered for 10 s
        // while xterm fetched the mapping, took it for a program that answers none, and bound a slot again
        // on the evidence that xterm fetched the mapping after a change: the 57th character another sink had
        // queued came out as the third's. A fetch shows xterm read the change, not that it handled the keys
        // queued before it. `assumeNoMarkers` puts the third sink in that state from the start; the slots
        // hold only the second sink's keys, so it may bind one again only once its own marker is answered.
        let x = try XSession()
        defer { x.stop() }
        let (file, queued, pid) = try Self.bindingsWaitingInAStoppedWindow(x, repeats: 6)
        let letGo = Thread { usleep(500_000); kill(pid, SIGCONT) }
        letGo.start()
        defer { kill(pid, SIGCONT) }
        let third = X11Sink(display: x.display)
        third.assumeNoMarkers = true
        try third.type("文\n")
        #expect(third.borrowedKeys == 1)
        // Stopped again as the call returns, the window must have handled every key queued before: the slot
        // was bound again on that evidence. (On a fetch, the last of those keys still waited: the window
        // fetches the mapping as it reads the change that comes after them, not after it handled them.)
        while !letGo.isFinished { usleep(1_000) }
        kill(pid, SIGSTOP)
        let handled = XSession.contents(of: file, becoming: queued, timeout: 2)
        #expect(handled.hasPrefix(queued), "\(handled.count) of the \(queued.count) characters queued before were handled")
        kill(pid, SIGCONT)
        let expected = queued + "文\n"
        let got = XSession.contents(of: file, becoming: expected)
        #expect(got == expected)
        if got != expected { Issue.record("\(Self.differences(got, expected))") }
    }

    /// A program of the test's own (`X11SlowClient`) that has handled one character on every spare slot, each
    /// bound once by a sink of its own: the state the cross-process tests start from. Returns the program and
    /// those characters; nil, with the issue recorded, when the display cannot be opened.
    static func slowClientWithEverySlotBound(_ x: XSession) throws -> (X11SlowClient, String)? {
        let probe = X11Sink(display: x.display)
        guard let client = X11SlowClient(display: x.display, title: "slow") else {
            Issue.record("cannot open \(x.display)")
            return nil
        }
        try probe.type("a")
        client.readAll()
        #expect(client.handle() == "a")
        // Exactly as many characters as slots: every slot bound, none bound twice, nothing to wait for.
        let chinese = (0..<probe.spareSlots).compactMap { Unicode.Scalar(0x4E00 + 7 * UInt32($0)) }.map(String.init).joined()
        try X11Sink(display: x.display).type(chinese)
        client.readAll()
        #expect(client.handle() == chinese)
        return (client, chinese)
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aProgramThatFetchedTheMappingButHoldsAnotherProcesssKeysKeepsTheirCharacters() throws {
        // The dry run's failure, step by step with a program of the test's own (`X11SlowClient`): it reads
        // everything sent to it, the sink's change included, and fetches the mapping at its next lookup,
        // as Xlib does, while keys another sink sent still wait in its queue. A sink judged by fetches
        // (`assumeNoMarkers`) took that fetch as leave to bind one of those keys' slots again.
        let x = try XSession()
        defer { x.stop() }
        guard let (client, chinese) = try Self.slowClientWithEverySlotBound(x) else { return }
        // Another sink's keys on every slot, twice, wait in the program's queue.
        let second = X11Sink(display: x.display)
        try second.type(chinese + chinese)
        #expect(second.borrowedKeys == 0)
        let lock = NSLock()
        nonisolated(unsafe) var failure: OutputSinkError?
        let display = x.display
        let third = Thread {
            let sink = X11Sink(display: display)
            sink.assumeNoMarkers = true
            sink.evidenceWait = 5
            do throws(OutputSinkError) { try sink.type("文") } catch { lock.withLock { failure = error } }
        }
        third.start()
        // The program reads what the third sink sent (a change, or a marker) and looks one key up: a fetch.
        usleep(300_000)
        client.readAll()
        var typed = client.handle(most: 1)
        // Busy with the rest for a while: a binding changed now changes a waiting key.
        var rebound = false
        try? XSession.wait("文 bound", timeout: 1) { rebound = client.isBound("文"); return rebound }
        client.readAll()
        typed += client.handle()
        try XSession.wait("the third sink", timeout: 10) {
            client.readAll()
            typed += client.handle()
            return third.isFinished
        }
        client.readAll()
        typed += client.handle()
        #expect(lock.withLock { failure } == nil, "\(String(describing: lock.withLock { failure }))")
        #expect(!rebound, "a slot was bound again while keys on it waited")
        let expected = chinese + chinese + "文"
        #expect(typed == expected)
        if typed != expected { Issue.record("\(Self.differences(typed, expected))") }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func anAnswerToAnotherProcesssMarkerWithTheSameStripIsNotTakenForThisSinks() throws {
        // An earlier sink's marker still waits in the program's queue, ahead of keys on every slot; the
        // next sink's marker happens to have its strip. The program's answer to the earlier one (the same
        // clearing) must not let the next sink bind a slot again while those keys wait.
        let x = try XSession()
        defer { x.stop() }
        guard let (client, chinese) = try Self.slowClientWithEverySlotBound(x) else { return }
        let (same, next) = (12_345, 54_321)
        let strip = X11Sink.strip(same)
        client.sendMarker(x: strip.x, width: strip.width)
        try X11Sink(display: x.display).type(chinese + chinese)
        let before = client.queued()
        let lock = NSLock()
        nonisolated(unsafe) var failure: OutputSinkError?
        let display = x.display
        let third = Thread {
            let sink = X11Sink(display: display)
            sink.evidenceWait = 5
            sink.testStrips = [same, next]
            do throws(OutputSinkError) { try sink.type("文") } catch { lock.withLock { failure = error } }
        }
        third.start()
        // The third sink's marker is queued; the program answers the earlier one, first in its queue.
        try XSession.wait("the third sink's marker", timeout: 10) { client.queued() > before }
        client.readAll()
        var typed = client.handle(most: 1)
        var rebound = false
        try? XSession.wait("文 bound", timeout: 1) { rebound = client.isBound("文"); return rebound }
        try XSession.wait("the third sink", timeout: 10) {
            client.readAll()
            typed += client.handle()
            return third.isFinished
        }
        client.readAll()
        typed += client.handle()
        #expect(lock.withLock { failure } == nil, "\(String(describing: lock.withLock { failure }))")
        #expect(!rebound, "a slot was bound again on the answer to another process's marker")
        let expected = chinese + chinese + "文"
        #expect(typed == expected)
        if typed != expected { Issue.record("\(Self.differences(typed, expected))") }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aWindowThatShowsNothingKeepsAnotherProcesssBindingsAndTheRestIsReportedUnsent() throws {
        // The same state, with a window stopped for longer than the sink waits: no slot may be bound again,
        // the error names the window, the character and the rest are unsent, and the queued keys arrive
        // unchanged once it runs.
        let x = try XSession()
        defer { x.stop() }
        let (file, queued, pid) = try Self.bindingsWaitingInAStoppedWindow(x, repeats: 1)
        defer { kill(pid, SIGCONT) }
        for assumeNoMarkers in [true, false] {
            let third = X11Sink(display: x.display)
            third.assumeNoMarkers = assumeNoMarkers
            third.evidenceWait = 1
            let error = #expect(throws: OutputSinkError.self) { try third.type("文 and more\n") }
            #expect(error?.unsent == "文 and more\n", "\(String(describing: error))")
            #expect(error?.description.contains("\"busy\"") == true, "the window is named: \(String(describing: error))")
            #expect(third.borrowedKeys == 0)
        }
        kill(pid, SIGCONT)
        try X11Sink(display: x.display).type("\n")
        let expected = queued + "\n"
        let got = XSession.contents(of: file, becoming: expected)
        #expect(got == expected)
        if got != expected { Issue.record("\(Self.differences(got, expected))") }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func threeThousandChineseCharactersArriveWhole() throws {
        // Issue 49, item 1: spare keycodes were bound again while keys on them still waited in xterm's queue,
        // and 7 to 159 of 3,000 characters were lost or changed. Each has a keycode of its own for a while.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("target")
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for i in 0..<3000 {
            text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &generator)) ?? "中")
            if i % 50 == 49 { text += "\n" }
        }
        try Self.typeAndExpectWhole(text, "3,000 Chinese characters", display: x.display, file: file)
    }

    @Test(.enabled(if: hasTools, skipReason))
    func chineseAccentsAsciiAndEnterInterleavedArriveWhole() throws {
        // Issue 49, item 1: characters bound to spare keycodes in the second group, typed between the layout's
        // own keys: each must come out as sent, and the user's group is back for the ASCII after them.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("target")
        let accented = Array("éèêëàâäçñøåæœłőűěščžýúíóáüößÉÜÖÑÇŁ€")
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for i in 0..<2000 {
            switch UInt8.random(in: 0..<4, using: &generator) {
            case 0, 1: text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &generator)) ?? "中")
            case 2: text.append(accented.randomElement(using: &generator) ?? "é")
            default: text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
            }
            if i % 40 == 39 { text += "\n" }
        }
        text += "\nplain ASCII at the end\n"
        try Self.typeAndExpectWhole(text, "2,000 mixed characters", display: x.display, file: file)
    }

    /// Types `text` through a new sink on `display` into the window that writes `file`, prints the sink's
    /// bindings and time, and expects every character to arrive as it was sent, naming each difference if
    /// one does not. The sink may stop early, reporting the rest unsent (issue 49 allows that for a window
    /// too slow to show it read its keys, never a changed or lost one): then exactly the part before the
    /// unsent rest must arrive, the rest must be the text's end, and the sink must say why.
    static func typeAndExpectWhole(_ text: String, _ what: String, display: String, file: URL) throws {
        let sink = X11Sink(display: display)
        let start = Date()
        var expected = text
        var outcome = "all sent"
        do {
            try sink.type(text)
        } catch {
            let unsent = error.unsent ?? text
            let scalars = text.unicodeScalars
            #expect(unsent.isEmpty == false && String(scalars.suffix(unsent.unicodeScalars.count)) == unsent,
                    "the unsent part must be the text's end: \(error.description)")
            #expect(error.description.contains("did not read its keys"), "\(error.description)")
            // A cooked tty hands `cat` whole lines only: an Enter ends the sent part's last line.
            expected = String(scalars.prefix(scalars.count - unsent.unicodeScalars.count)) + "\n"
            outcome = "\(unsent.unicodeScalars.count) of \(scalars.count) characters reported unsent: \(error.description)"
            try sink.type("\n")
        }
        print("X11Sink: \(what) (\(sink.borrowedKeys) bindings on \(sink.spareSlots) slots of \(sink.spareKeycodes) spare keycodes, "
              + "\(sink.provenChanges) waited for the window) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, \(outcome)")
        let got = XSession.contents(of: file, becoming: expected, timeout: 30)
        #expect(got == expected)
        if got != expected {
            print("X11Sink: \(what) arrived changed (\(outcome)): \(differences(got, expected))")
            Issue.record("\(got.count) of \(expected.count) arrived (\(outcome)); \(differences(got, expected))")
        }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aWindowBusyForSixSecondsAtTheFirstReuseGetsEveryCharacterUnchanged() throws {
        // Issue 49, item 1: a slot was bound again on evidence that an xterm had *read* the keys on it (a
        // mapping fetch, or an Xt table rebuild, which Xlib's lazy refetch at a key lookup reads the same as),
        // not that it had handled them. Busy for 6 s at the first reuse (less than the 10 s the sink waits),
        // it must get all. The old evidence passed on an idle machine and failed only under 16 busy loops
        // (load ~25), which this test does not start: main changed 61-144 of 216 characters, each into the
        // one typed 72 later (a slot bound again while its key waited), and after a first fix 9 in one of
        // four runs. With markers (see X11Sink) 12 of 12 runs under that load got all (the last 4 with a
        // strip of its own for each marker); run it under load by hand:
        // `for i in $(seq 16); do timeout 300 sh -c 'while :; do :; done' & done`.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("busy")
        let probe = X11Sink(display: x.display)
        try probe.type("\n")
        let count = probe.spareSlots * 3
        let chinese = (0..<count).compactMap { Unicode.Scalar(0x7000 + 3 * UInt32($0)) }.map(String.init).joined() + "\n"
        let stopped = try Self.stop(x, title: "busy", for: 6)
        let sink = X11Sink(display: x.display)
        let start = Date()
        var failure: OutputSinkError?
        do { try sink.type(chinese) } catch { failure = error }
        print("X11Sink: \(count) characters into a window busy for 6 s in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; "
              + "\(failure.map { "stopped: \($0.description)" } ?? "all sent")")
        #expect(failure == nil, "\(String(describing: failure))")
        while !stopped.isFinished { usleep(50_000) }
        let expected = "\n" + chinese
        let got = XSession.contents(of: file, becoming: expected)
        #expect(got == expected)
        if got != expected { Issue.record("\(Self.differences(got, expected))") }
    }

    /// Stops `title`'s xterm for `stopped` seconds, lets it run for `running`, and again, until the returned
    /// stop is called (which lets it run for good): a window that reads its keys in short bursts.
    static func pause(_ x: XSession, title: String, stopped: Double, running: Double) throws -> () -> Void {
        let pid = try x.run("xdotool", ["search", "--name", "^\(title)$", "getwindowpid"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let id = Int32(pid) else { throw OutputSinkError("no pid for the window \(title)") }
        let done = NSLock()
        nonisolated(unsafe) var ending = false
        let thread = Thread {
            while !done.withLock({ ending }) {
                kill(id, SIGSTOP)
                usleep(UInt32(stopped * 1_000_000))
                kill(id, SIGCONT)
                usleep(UInt32(running * 1_000_000))
            }
        }
        thread.start()
        return {
            done.withLock { ending = true }
            while !thread.isFinished { usleep(10_000) }
            kill(id, SIGCONT)
        }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aWindowThatKeepsStoppingGetsEveryCharacterUnchanged() throws {
        // Issue 49, item 1: a window busy again and again, reading its keys in 50 ms bursts twice a second,
        // while twice as many distinct characters as the spare keycodes hold are typed into it: every slot is
        // bound again while keys typed earlier may still wait, and each must come out as it was sent.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("slow")
        let probe = X11Sink(display: x.display)
        try probe.type("\n")
        let count = probe.spareSlots * 2 + 10
        let chinese = (0..<count).compactMap { Unicode.Scalar(0x6000 + 5 * UInt32($0)) }.map(String.init).joined() + "\n"
        let resume = try Self.pause(x, title: "slow", stopped: 0.5, running: 0.05)
        let sink = X11Sink(display: x.display)
        let start = Date()
        var failure: OutputSinkError?
        do { try sink.type(chinese) } catch { failure = error }
        resume()
        print("X11Sink: \(count) characters into a window running 50 ms of every 550 in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, "
              + "\(sink.provenChanges) waited for it; \(failure.map { "stopped: \($0.description)" } ?? "all sent")")
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(sink.provenChanges > 0, "the window's keys were waited for")
        let expected = "\n" + chinese
        let got = XSession.contents(of: file, becoming: expected)
        #expect(got == expected)
        if got != expected { Issue.record("\(Self.differences(got, expected))") }
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aCharacterThatCannotBeBoundSafelyIsReportedUnsentNotChanged() throws {
        // Issue 49, item 1: a stopped window holds keys on every slot; the next character would need one of
        // them bound again, which would change a waiting key. The sink waits for the window, then gives up:
        // that character and the rest are unsent, and what was sent arrives unchanged.
        let x = try XSession()
        defer { x.stop() }
        let file = try x.catWindow("busy")
        let probe = X11Sink(display: x.display)
        try probe.type("\n")
        let count = probe.spareSlots + 10
        let chinese = (0..<count).compactMap { Unicode.Scalar(0x5000 + 3 * UInt32($0)) }.map(String.init).joined()
        // The sink waits 2 s where the shipped one waits `evidenceTimeout` (10 s), to keep the test short.
        let sink = X11Sink(display: x.display)
        sink.evidenceWait = 2
        let stopped = try Self.stop(x, title: "busy", for: sink.evidenceWait + 2)
        let error = #expect(throws: OutputSinkError.self) { try sink.type(chinese) }
        let unsent = error?.unsent ?? ""
        #expect(!unsent.isEmpty && chinese.hasSuffix(unsent), "\(String(describing: error))")
        #expect(error?.description.contains("did not read its keys") == true, "\(String(describing: error))")
        let sent = String(chinese.dropLast(unsent.count))
        #expect(sent.count == probe.spareSlots, "every slot was bound once, and no more")
        while !stopped.isFinished { usleep(50_000) }
        try sink.type("\n")
        let expected = "\n" + sent + "\n"
        let got = XSession.contents(of: file, becoming: expected)
        #expect(got == expected)
        if got != expected { Issue.record("\(Self.differences(got, expected))") }
    }

    /// Where `got` differs from `expected`, for a failure to say what happened: the first differing
    /// positions, each with the character expected and the one that came, and for a changed one where else
    /// in the text that character was typed (a keycode bound again to a later character while its key
    /// still waited turns it into that later one).
    static func differences(_ got: String, _ expected: String, most: Int = 12) -> String {
        let g = Array(got), e = Array(expected)
        func name(_ c: Character) -> String {
            c.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined() + " \(String(reflecting: c))"
        }
        var found: [String] = []
        var count = 0
        for i in 0..<min(g.count, e.count) where g[i] != e[i] {
            count += 1
            guard found.count < most else { continue }
            var line = "at \(i) expected \(name(e[i])) got \(name(g[i]))"
            let later = e[(i + 1)...].firstIndex(of: g[i]), earlier = e[..<i].lastIndex(of: g[i])
            if let later { line += ", typed \(later - i) characters later" }
            if let earlier { line += ", typed \(i - earlier) characters earlier" }
            if later == nil, earlier == nil { line += ", typed nowhere in the text" }
            found.append(line)
        }
        if g.count != e.count {
            found.append("\(g.count) characters arrived of \(e.count)")
        }
        return "\(count) differ: " + found.joined(separator: "; ")
    }

    @Test(.enabled(if: hasTools, skipReason))
    func aDisplayWithNoFocusedWindowIsAnErrorAndNothingIsTyped() throws {
        // Issue 47: typing into a display where no window has the focus exited 0 having typed nowhere.
        let x = try XSession()
        defer { x.stop() }
        let sink = X11Sink(display: x.display)
        let error = #expect(throws: OutputSinkError.self) { try sink.type("lost") }
        #expect(error?.description == "no window has the keyboard focus on X display \(x.display): it follows the pointer, "
                + "which is over no window, so the keys would reach no program")
        #expect(error?.unsent == nil, "none of it went: all of it is unsent")
        let click = #expect(throws: OutputSinkError.self) { try sink.point(.click(.left, count: 1)) }
        #expect(click?.description.hasPrefix("no window is under the pointer on X display \(x.display)") == true)
        // A release over nothing still goes, so no button is left held.
        try sink.point(.button(.left, down: false))
    }

    /// A server that answers the connection setup and then goes away, as one that dies while a client
    /// opens it: on a display number nothing uses, for one connection.
    final class DyingServer {
        let display: String
        private let path: String
        private let listener: Int32

        init() throws {
            guard let n = (150..<250).first(where: { !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)")
                                                      && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") }) else {
                throw OutputSinkError("no free display number")
            }
            display = ":\(n)"
            path = "/tmp/.X11-unix/X\(n)"
            try? FileManager.default.createDirectory(atPath: "/tmp/.X11-unix", withIntermediateDirectories: true)
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 1) == 0 else { throw OutputSinkError("cannot listen on \(path)") }
            let fd = listener
            Thread {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var request = [UInt8](repeating: 0, count: 1024)
                _ = read(client, &request, request.count)
                let reply = Self.setupReply()
                _ = reply.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                // Gone before the first request XOpenDisplay waits for an answer to.
                close(client)
            }.start()
        }

        /// Stops listening and removes the socket.
        func stop() {
            close(listener)
            unlink(path)
        }

        /// A valid setup answer, little-endian: one screen of one TrueColor visual.
        static func setupReply() -> [UInt8] {
            var bytes: [UInt8] = []
            func u8(_ v: Int) { bytes.append(UInt8(v)) }
            func u16(_ v: Int) { u8(v & 0xFF); u8(v >> 8 & 0xFF) }
            func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16 & 0xFFFF) }
            u8(1); u8(0); u16(11); u16(0); u16(29)                                      // prefix: 116 bytes follow
            u32(1); u32(0x0020_0000); u32(0x001F_FFFF); u32(0); u16(4); u16(65_535)    // release, ids, vendor length
            u8(1); u8(1); u8(0); u8(0); u8(32); u8(32); u8(8); u8(255); u32(0)         // 1 screen, 1 format, keycodes
            bytes += Array("fake".utf8)
            u8(24); u8(32); u8(32); u8(0); u32(0)                                       // the pixmap format
            u32(0x100); u32(0x20); u32(0xFF_FFFF); u32(0); u32(0); u16(640); u16(480); u16(200); u16(150)
            u16(1); u16(1); u32(0x21); u8(0); u8(0); u8(24); u8(1)                      // the root window's screen
            u8(24); u8(0); u16(1); u32(0)                                               // one depth, one visual
            u32(0x21); u8(4); u8(8); u16(256); u32(0xFF_0000); u32(0xFF00); u32(0xFF); u32(0)
            return bytes
        }
    }

    @Test func aServerThatDiesWhileItIsOpenedIsAnErrorNotTheEndOfTheProcess() throws {
        // Issue 49, item 6: Xlib's default handler ended the process (inside `run`, the whole session) when
        // the server went away inside XOpenDisplay, before the sink's exit handler could be set.
        let server = try DyingServer()
        defer { server.stop() }
        let sink = X11Sink(display: server.display)
        let error = #expect(throws: OutputSinkError.self) { try sink.check() }
        #expect(error?.description.hasPrefix("cannot open X display \(server.display)") == true, "\(String(describing: error))")
    }

    @Test(.enabled(if: hasTools && access("/usr/bin/xmodmap", X_OK) == 0, "needs xmodmap (x11-xserver-utils)"))
    func aCharacterWithNoKeyAndNoSpareKeycodeIsAnErrorNamingIt() throws {
        let x = try XSession()
        defer { x.stop() }
        // Every keycode without a keysym gets one, so none is left to borrow.
        let empty = try x.run("xmodmap", ["-pke"]).split(separator: "\n")
            .filter { $0.hasSuffix("=") || $0.hasSuffix("= ") }
            .map { $0.split(separator: "=")[0].trimmingCharacters(in: .whitespaces) }
        #expect(!empty.isEmpty)
        try x.run("xmodmap", empty.flatMap { ["-e", "\($0) = F35"] })
        let file = try x.catWindow("target")
        let sink = X11Sink(display: x.display)
        let error = #expect(throws: OutputSinkError.self) { try sink.type("abéd") }
        #expect(error?.description == "X display \(x.display) has no key for \"é\" (U+00E9) and no spare keycode to bind it to")
        // What came before it went out, and what did not is named.
        #expect(error?.unsent == "éd")
        // What came before it went out; the sink still types what the layout has.
        try sink.type("c\n")
        #expect(XSession.contents(of: file, becoming: "abc\n") == "abc\n")
    }
}
