#if canImport(Glibc)
import SystemIO
import Glibc
#endif
import Config
import Foundation
import LiveServices
import PtyHost
import Runtime
import Localization
import Shell
import Testing
import Transport

/// Output sinks: the one parser of `--type-into` and its registry, the real sinks (a child on a pty, a tmux
/// pane) driven through the protocol alone, and a sink that fails mid-session reported as an event that
/// keeps the text on screen.
@Suite struct OutputSinkTests {
    static var hasTmux: Bool {
        ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].contains { (path: String) in access(path, X_OK) == 0 }
    }

    /// The message `OutputSinks.parse` refuses `spec` with (nil: it took it).
    static func refusal(_ spec: String) -> String? {
        do throws(OutputSinkError) { _ = try OutputSinks.parse(spec); return nil } catch { return error.description }
    }

    // MARK: The registry

    @Test func theOptionNamesATmuxPaneOrThePty() throws {
        let tmux = try OutputSinks.parse("tmux:work:1.0")
        #expect(tmux.kind.scheme == "tmux" && tmux.argument == "work:1.0")
        let pane = tmux.open(OutputSetup(command: ["/bin/sh"]))
        #expect((pane as? TmuxPaneSink)?.tmux.target == "work:1.0")
        #expect(pane.name == "tmux work:1.0")
        #expect(pane.traits == .showsPane)

        let pty = try OutputSinks.parse("pty")
        #expect(pty.kind.scheme == "pty" && pty.argument == nil)
        let child = pty.open(OutputSetup(command: ["vim", "my notes.txt"]))
        #expect((child as? PtySink)?.argv == ["vim", "my notes.txt"])
        #expect(child.name == "vim 'my notes.txt'")
        #expect(child.traits == [.ownsProgram, .showsPane])
        // Without the option the pty runs the program the command line (or the setting) names.
        #expect((OutputSinks.standard.open(OutputSetup(command: ["/bin/bash"])) as? PtySink)?.argv == ["/bin/bash"])
    }

    @Test func aBadValueIsNamedAndTheKnownSinksListed() {
        #expect(Self.refusal("screen:1") == "unknown sink \"screen\" (known: pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto)")
        #expect(Self.refusal("") == "unknown sink \"\" (known: pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto)")
        #expect(Self.refusal("TMUX:w") == "unknown sink \"TMUX\" (known: pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto)")
        #expect(Self.refusal("tmux:") == "tmux needs a TARGET after the colon, for example tmux:work:1.0")
        #expect(Self.refusal("tmux") == "tmux needs a TARGET after the colon, for example tmux:work:1.0")
        #expect(Self.refusal("pty:zsh") == "pty takes nothing after it, write pty")
        #expect(Self.refusal("tmux:a\u{0}b") == "the tmux TARGET contains a NUL byte")
        #expect(Self.refusal("tmux:%3") == nil)
    }

    @Test func eachSinkIsRegisteredOnceUnderItsOwnScheme() {
        let schemes = OutputSinks.known.map(\.scheme)
        #expect(Set(schemes).count == schemes.count)
        #expect(OutputSinks.usage == "pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto")
        for kind in OutputSinks.known {
            #expect((try? OutputSinks.parse(kind.example))?.kind.scheme == kind.scheme, "\(kind.example)")
        }
    }

    // MARK: Real sinks through the protocol

    /// Text with quotes and UTF-8, a line edited with Backspace, then the end of input: the same keys
    /// through any sink, into `cat > FILE` on a tty in cooked mode.
    static func typeLines(_ sink: any TextSink) throws {
        try sink.type("-n 'a b' \"$HOME\" é")
        try sink.press(TerminalKeyPress(.enter))
        try sink.type("abx")
        try sink.press(TerminalKeyPress(.backspace))
        try sink.type("c")
        try sink.press(TerminalKeyPress(.enter))
        try sink.press(TerminalKeyPress(.ctrl("d")))
    }
    static let typed = "-n 'a b' \"$HOME\" é\nabc\n"

    @Test func aChildOnAPtyTakesTextAndKeysThroughTheProtocol() throws {
        let dir = try TmuxCat.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink: any TextSink & PaneHost = PtySink(argv: ["/bin/sh", "-c", "exec cat > '\(dir)/out.txt'"])
        try sink.start(rows: 24, cols: 80)
        try Self.typeLines(sink)
        let end = LiveClock().now() + 10
        while LiveClock().now() < end, sink.view(scrolledBack: 0)?.ended == nil {
            _ = sink.pump(limit: 1 << 16, budget: 0.01, ready: nil)
            usleep(10_000)
        }
        #expect(sink.view(scrolledBack: 0)?.ended?.english == "/bin/sh exited with status 0")
        #expect((try? String(contentsOfFile: dir + "/out.txt", encoding: .utf8)) == Self.typed)
        // Keys for a program that has ended are refused, not dropped.
        #expect(throws: OutputSinkError("/bin/sh -c 'exec cat > '\(dir)/out.txt'' has ended")) { try sink.type("late") }
    }

    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aTmuxPaneTakesTextAndKeysThroughTheProtocol() throws {
        let pane = try TmuxCat("proto")
        defer { pane.stop() }
        let sink: any TextSink & PaneHost = TmuxPaneSink(TmuxSink(target: "cat", serverArguments: ["-L", pane.socket]))
        try sink.check()
        try sink.start(rows: 24, cols: 80)
        #expect(try sink.look(), "the first look is a change")
        #expect(sink.view(scrolledBack: 0)?.snapshot.cols == 80, "the pane as tmux has it")
        try Self.typeLines(sink)
        #expect(pane.contents() == Self.typed)
        // The pane is gone with cat: its capture fails, naming the target.
        #expect(throws: OutputSinkError.self) { _ = try sink.look() }
    }

    // MARK: A sink failing mid-session

    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aTmuxServerKilledMidSessionGivesTheFailureEventAndTheTextStaysOnScreen() throws {
        let pane = try TmuxCat("killed")
        defer { pane.stop() }
        let link = TerminalLink(TmuxPaneSink(TmuxSink(target: "cat", serverArguments: ["-L", pane.socket])))
        #expect(link.apply(.start(rows: 24, cols: 80)).isEmpty)
        #expect(link.view().snapshot.cols == 80, "the start took a first look")
        #expect(link.apply(.type("hello")).isEmpty)
        #expect(link.apply(.press(TerminalKeyPress(.enter))).isEmpty)

        pane.run("kill-server")
        var events = link.apply(.type("kept"))
        guard case .output(.failed(let reason, let unsent))? = events.first, events.count == 1 else {
            Issue.record("no failure event: \(events)")
            return
        }
        #expect(unsent == "kept")
        #expect(reason.english.hasPrefix("tmux target cat: "), "\(reason)")
        // A key that could not be sent is reported too, with no text to keep.
        events += link.apply(.press(TerminalKeyPress(.enter)))
        #expect(events.count == 2)

        // The reducer shows it, and the text stays on the Terminal screen.
        let gestures = GestureConfig.defaults().gestures
        var s = ShellState(keymap: try Setup.keymap("default", gestures: gestures), gestures: gestures)
        s.show(screen: "terminal")
        _ = reduce(&s, .terminal(link.view()))
        for e in events { _ = reduce(&s, e) }
        #expect(s.output.unsent == "kept")
        // (The reason is the last failure's: a dying server first says it exited, then that none runs.)
        #expect(s.output.problem?.english.hasPrefix("tmux target cat: ") == true)
        let screen = render(s, size: s.size).0.text
        #expect(screen.contains("not sent: kept · tmux target cat: "), "\(screen)")
        #expect(screen.contains("HandsFree"))

        // The server back: the next delivery is reported once, and the reason clears; the kept text stays.
        try pane.start()
        let again = link.apply(.type("x"))
        guard case .output(.delivered)? = again.first, again.count == 1 else {
            Issue.record("no delivery event: \(again)")
            return
        }
        #expect(link.apply(.type("y")).isEmpty)
        for e in again { _ = reduce(&s, e) }
        #expect(s.output == OutputStatus(problem: nil, unsent: "kept"))
    }

    /// A pane that is not there, on a tmux server that runs: the failure the user reads on the Terminal screen's
    /// info line is in the shell's language, the target named, the text kept; its English is tmux's own words.
    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aMissingPaneIsNamedInTheUsersLanguage() throws {
        let pane = try TmuxCat("language")
        defer { pane.stop() }
        let link = TerminalLink(TmuxPaneSink(TmuxSink(target: "cat:7", serverArguments: ["-L", pane.socket])))
        _ = link.apply(.start(rows: 24, cols: 80))
        let events = link.apply(.type("hola"))
        guard case .output(.failed(let reason, let unsent))? = events.first, events.count == 1 else {
            Issue.record("no failure event: \(events)")
            return
        }
        #expect(unsent == "hola")
        #expect(reason.english == "tmux target cat:7: can't find window: 7")
        let gestures = GestureConfig.defaults().gestures
        for (language, shown) in [("es", "destino de tmux cat:7: no se encuentra la ventana 7"),
                                  ("de", "tmux-Ziel cat:7: Fenster 7 nicht gefunden")] {
            var s = ShellState(keymap: try Setup.keymap("default", gestures: gestures), gestures: gestures)
            _ = reduce(&s, .languageLoaded(Translations.catalog(language)))
            s.show(screen: "terminal")
            _ = reduce(&s, .terminal(link.view()))
            for e in events { _ = reduce(&s, e) }
            let screen = render(s, size: s.size).0.text
            #expect(screen.contains(shown), "\(language): \(screen)")
            #expect(!screen.contains("can't find window"), "\(language): \(screen)")
        }
    }

    /// The link keeps no pane size of its own (the state has it): the program is started, resized and restarted
    /// at the sizes the requests carry, as `stty size` in the program reports.
    @Test func theProgramTakesThePaneSizeFromEachRequest() throws {
        let link = TerminalLink(PtySink(argv: ["/bin/sh", "-c", "stty size; exit 0"]))
        var source = TerminalSource(link)
        func waitFor(_ text: String) -> Bool {
            let end = LiveClock().now() + 10
            while LiveClock().now() < end {
                _ = source.events(Wakeup(now: LiveClock().now()))
                if link.view().ended != nil, link.view().snapshot.text.contains(text) { return true }
                usleep(10_000)
            }
            return false
        }
        _ = link.apply(.start(rows: 9, cols: 41))
        #expect(waitFor("9 41"), "\(link.view().snapshot.text)")
        _ = link.apply(.resize(rows: 12, cols: 50))
        _ = link.apply(.restart(rows: 12, cols: 50))
        #expect(waitFor("12 50"), "\(link.view().snapshot.text)")
    }

    @Test func keysForAChildThatEndedAreReportedNotDropped() throws {
        let link = TerminalLink(PtySink(argv: ["/bin/sh", "-c", "exit 0"]))
        _ = link.apply(.start(rows: 24, cols: 80))
        var source = TerminalSource(link)
        let end = LiveClock().now() + 10
        while LiveClock().now() < end, link.view().ended == nil {
            _ = source.events(Wakeup(now: LiveClock().now()))
            usleep(10_000)
        }
        let events = link.apply(.type("late"))
        guard case .output(.failed(let reason, let unsent))? = events.first else {
            Issue.record("no failure event: \(events)")
            return
        }
        #expect(unsent == "late")
        #expect(reason.english == "/bin/sh -c 'exit 0' has ended")
    }
}

/// A private tmux server (`-L name`) with one session `cat` running `cat > FILE`, killed with its files on
/// `stop`.
final class TmuxCat {
    let socket: String
    let dir: String
    let file: String

    static func tempDir() throws -> String {
        var template = Array("/tmp/hf-out-XXXXXX".utf8CString)
        guard let d = mkdtemp(&template) else { throw OutputSinkError("mkdtemp failed") }
        return String(cString: d)
    }

    init(_ tag: String) throws {
        socket = "hf-out-\(getpid())-\(tag)"
        dir = try Self.tempDir()
        file = dir + "/out.txt"
        try start()
    }

    /// Starts the server and its session, retrying if tmux did not.
    func start() throws {
        for _ in 0..<3 {
            run("-f /dev/null new-session -d -s cat -x 80 -y 24 'stty -echo; exec cat >> \(file)'")
            if run("has-session -t cat") == 0 { return }
            usleep(200_000)  // a retry: the tmux server, just started, may refuse the first new-session
        }
        throw OutputSinkError("tmux session cat on \(socket) did not start")
    }

    @discardableResult
    func run(_ args: String) -> Int32 {
        guard let f = popen("tmux -L \(socket) \(args) >/dev/null 2>&1 </dev/null", "r") else { return -1 }
        return pclose(f)
    }

    /// The file once `cat` has exited (the session is then gone), or what it holds after 10 s.
    func contents() -> String {
        let end = LiveClock().now() + 10
        while LiveClock().now() < end, run("has-session -t cat") == 0 { usleep(50_000) }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    func stop() {
        run("kill-server")
        try? FileManager.default.removeItem(atPath: dir)
    }
}
