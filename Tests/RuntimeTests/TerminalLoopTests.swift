#if canImport(Glibc)
import Glibc
#endif
import Config
import FrameFormats
import Foundation
import PtyHost
@testable import Runtime
import Shell
import SystemIO
import Terminal
import Testing
import TrackingCore
import Transport

/// A display's input the test ends the loop with, as a terminal that goes away does (the loop leaves on its
/// hang-up, SIGHUP): a pipe whose writing end is closed once the test has seen what it waits for, or at a
/// deadline, so a loop driving a real child runs as long as the child needs and no longer.
final class HangUp {
    let fd: Int32
    private var writer: Int32
    private let deadline: Double
    init(after seconds: Double) {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        fd = fds[0]; writer = fds[1]
        deadline = LiveClock().now() + seconds
    }
    deinit { now(); close(fd) }
    /// Hangs up.
    func now() { if writer >= 0 { close(writer); writer = -1 } }
    /// Hangs up once `done` holds, or at the deadline.
    func when(_ done: Bool) { if done || LiveClock().now() > deadline { now() } }
    var happened: Bool { writer < 0 }
}

/// A display that keeps what the Terminal screen showed at each drawing; it hangs up once `done` holds.
final class PaneDisplay: ShellDisplay {
    let size = Size(width: 100, height: 30)
    var keys: [TerminalInput]
    /// Keys are held back until a drawing shows this text.
    let keysAfter: String?
    var views: [TerminalView] = []
    var lines: [String] = []
    /// The state of the last drawing.
    var state: ShellState?
    var done: (PaneDisplay) -> Bool = { _ in false }
    let hangUp = HangUp(after: 10)
    init(keys: [TerminalInput] = [], keysAfter: String? = nil) { self.keys = keys; self.keysAfter = keysAfter }
    var inputFD: Int32 { hangUp.fd }
    /// Asked at every turn of the loop.
    func readInput() -> TerminalInput? {
        hangUp.when(done(self))
        if let k = keysAfter, !lines.contains(where: { $0.contains(k) }) { return nil }
        return keys.isEmpty ? nil : keys.removeFirst()
    }
    func inputHungUp() -> Bool { hangUp.happened }
    func show(_ state: ShellState, performed: [ActionRecord]) {
        if let v = state.terminal { views.append(v) }
        lines = render(state, size: size).0.lines
        self.state = state
    }
    func stop() {}
}

/// The Terminal screen in the real loop: a real child on a pty, its output through libvterm into the pane.
@Suite struct TerminalLoopTests {
    static let settings = GestureConfig.defaults()

    /// Runs the loop on the Terminal screen with `argv` until `done` holds (10 s at most), then the display
    /// hangs up and the loop leaves; with `seconds`, a paced replay of still frames runs meanwhile.
    func run(_ argv: [String], seconds: Double? = nil, keys: [TerminalInput] = [], keysAfter: String? = nil,
             until done: @escaping (PaneDisplay) -> Bool = { _ in false }) throws -> (ShellRuntime, PaneDisplay) {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var state = ShellState(keymap: km, gestures: Self.settings.gestures)
        state.show(screen: "terminal")
        let session = Session(state: state, settings: Self.settings)
        let items: [DecodedItem] = (0..<Int((seconds ?? 0) * 60)).map { .frame(TrackingFrame(t: Double($0) / 60), nil) }
        var r = ShellRuntime(session: session, feed: seconds == nil ? .none : .replay(items: items, speed: 1, name: "still"),
                             exitAtEnd: false, paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        r.terminal = TerminalLink(.child(argv: argv))
        let display = PaneDisplay(keys: keys, keysAfter: keysAfter)
        display.done = done
        r.display = { display }
        try r.run()
        return (r, display)
    }

    /// Whether the pane shows is the state's (`ShellState.terminalPane.showing`); the link's copy is only what
    /// the reducer last told it (`.terminal(.showing)`), and so follows it through every way the pane comes and
    /// goes: the Terminal screen opened, a screen on top, the window too small, another screen.
    @Test func theLinkLooksAtTheProgramExactlyWhileTheStateSaysThePaneShows() throws {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var r = ShellRuntime(session: Session(state: ShellState(keymap: km, gestures: Self.settings.gestures), settings: Self.settings),
                             feed: .none, exitAtEnd: false, paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        r.terminal = TerminalLink(.child(argv: ["/bin/cat"]))
        var seen: [Bool] = []
        func send(_ e: ShellEvent) {
            _ = r.runEffects(r.session.send(e))
            #expect(r.terminal.showing == r.session.state.terminalPane.showing, "after \(e)")
            seen.append(r.terminal.showing)
        }
        send(.tick(at: 0.1))
        _ = r.session.state.show(screen: "terminal")
        send(.tick(at: 0.2))
        r.session.state.stack.append(AppHelpScreen(app: "terminal", appTitle: "Terminal"))
        r.session.state.relayout()
        send(.tick(at: 0.3))
        r.session.state.stack.removeLast()
        r.session.state.relayout()
        send(.tick(at: 0.4))
        send(.resized(Size(width: 30, height: 8)))
        send(.resized(Size(width: 120, height: 40)))
        _ = r.session.state.show(screen: "launcher")
        send(.tick(at: 0.5))
        #expect(seen == [false, true, false, true, false, true, false])
    }

    @Test func aChildsOutputReachesThePaneAndItsEndIsShownAndReaped() throws {
        let (r, d) = try run(["/bin/sh", "-c", "echo ready-$((40+2)); exit 3"]) { d in
            d.views.last?.ended != nil && d.lines.contains { $0.contains("↻ Restart") }
        }
        #expect(d.lines.contains { $0.hasPrefix("ready-42") }, "\(d.lines.joined(separator: "\n"))")
        #expect(d.views.last?.ended?.english == "/bin/sh exited with status 3")
        #expect(d.lines.contains { $0.contains("↻ Restart") })
        // Reaped: no zombie is left behind.
        let pid = try #require((r.terminal.sink as? PtySink)?.hosted?.process.pid)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child is still there")
    }

    @Test func thePtyIsTheSizeOfThePane() throws {
        var s = ShellState(keymap: try Setup.keymap("default", gestures: Self.settings.gestures))
        s.show(screen: "terminal")
        let pane = try #require(s.hitMap.target(id: TerminalScreen.paneID)).rect
        let (_, d) = try run(["/bin/sh", "-c", "sleep 0.2; stty size; sleep 5"]) { d in
            d.lines.contains { $0.hasPrefix("\(pane.h) \(pane.w)") }
        }
        #expect(d.lines.contains { $0.hasPrefix("\(pane.h) \(pane.w)") }, "\(d.lines.prefix(5)) pane \(pane)")
    }

    @Test func helperKeysAreTypedIntoTheChild() throws {
        let keys: [TerminalInput] = "echo typed-ok".map { .key(.char($0)) } + [.key(.enter)]
        // sh may print its prompt after the echo of input typed before it started: "# typed-ok".
        let ran = { (d: PaneDisplay) in d.lines.contains { $0.contains("typed-ok") && !$0.contains("echo") } }
        let (_, d) = try run(["/bin/sh"], keys: keys, until: ran)
        #expect(ran(d), "\(d.lines.prefix(6).joined(separator: "\n"))")
    }

    /// A helper's keys reach the program before they are reduced; typed after it ended, they come back
    /// undelivered and are kept, as the reduction of each is told.
    @Test func keysTypedAfterTheProgramEndedAreKept() throws {
        let keys: [TerminalInput] = "kept".map { .key(.char($0)) }
        let (r, d) = try run(["/bin/sh", "-c", "echo gone-$((6*7))"], keys: keys, keysAfter: "exited") { d in
            d.keys.isEmpty && d.state?.output.unsent == "kept"
        }
        #expect(d.keys.isEmpty, "the keys were typed once the end was shown")
        #expect(r.session.state.output.unsent == "kept", "\(r.session.state.output)")
    }

    /// The loop sleeps until its next deadline, and while a key's echo is awaited: poll's timeout is whole
    /// milliseconds, and rounded down a wake due in under one was a zero timeout, so the loop spun for up to
    /// a millisecond before each displayed frame, and for the whole echo wait when the program echoed nothing.
    @Test func theLoopSleepsUntilItsDeadlinesAndThroughAnEchoThatDoesNotCome() throws {
        let keys: [TerminalInput] = "secret".map { .key(.char($0)) }
        let start = LiveClock().now()
        // The marker is computed, since the info line shows the command and a literal would be found there
        // at once, before stty had run. A second of frames, in real time: the measure is of the loop's sleep.
        let (r, d) = try run(["/bin/sh", "-c", "stty -echo; echo quiet-$((6*7)); sleep 5"], seconds: 1, keys: keys,
                             keysAfter: "quiet-42") { d in d.keys.isEmpty && LiveClock().now() - start >= 1 }
        let seconds = LiveClock().now() - start
        #expect(d.keys.isEmpty, "the keys were sent once echo was off")
        #expect(!d.lines.contains { $0.contains("secret") },
                "and not echoed: \(d.lines.filter { $0.contains("secret") }), hidden \(d.views.map(\.inputHidden).suffix(3)), ended \(d.views.last?.ended?.english ?? "no")")
        // 60 frames a second, the terminal's own checks and the keys: well under 200 wake-ups a second.
        #expect(Double(r.wakeups) / seconds < 200, "\(r.wakeups) wake-ups in \(seconds) s")
    }

    /// The display reads raw keys and the keyboard source gives every one as a key, whatever the screen (a source
    /// never reads the state); the reducer decides: off the Terminal screen Ctrl-C and Ctrl-\ still end the
    /// shell as the interrupt and quit signals did, on it they are keys for the program like every other.
    @Test func ctrlCIsTheProgramsOnTheTerminalScreenAndEndsTheShellElsewhere() throws {
        let keys: [TerminalInput] = [.key(.ctrl("c")), .key(.ctrl("\\")), .key(.ctrl("r")), .key(.char("x"))]
        var source = KeyboardSource(PaneDisplay(keys: keys))
        let given = source.events(Wakeup(now: 0)).map { e -> String in
            if case .shell(.key(let k)) = e { return "\(k)" }
            return "other"
        }
        #expect(given == ["ctrl(\"c\")", "ctrl(\"\\\\\")", "ctrl(\"r\")", "char(\"x\")"])
        func ends(_ key: Key, on screen: String) throws -> Int32?? {
            var state = ShellState(keymap: try Setup.keymap("default", gestures: Self.settings.gestures))
            state.show(screen: screen)
            var session = Session(state: state, settings: Self.settings)
            for case .end(let signal, _) in session.send(.key(key)) { return .some(signal) }
            return .none
        }
        #expect(try ends(.ctrl("c"), on: "launcher") == .some(SIGINT))
        #expect(try ends(.ctrl("\\"), on: "launcher") == .some(SIGQUIT))
        #expect(try ends(.ctrl("c"), on: "desktop") == .some(SIGINT))
        #expect(try ends(.ctrl("r"), on: "launcher") == .none)
        #expect(try ends(.ctrl("c"), on: "terminal") == .none, "the program's")
        #expect(try ends(.ctrl("\\"), on: "terminal") == .none)
    }

    /// A key's echo is drawn as the pane alone, in the real loop with a real child: each such drawing,
    /// made over what the display shows, has the pane a full drawing of that moment would have.
    @Test func echoesAreDrawnAsThePaneAloneAndMatchAFullDrawing() throws {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var state = ShellState(keymap: km, gestures: Self.settings.gestures)
        state.show(screen: "terminal")
        // Frames come meanwhile, as from a tracker: each turn of the loop may bring one beside an echo.
        let items: [DecodedItem] = (0..<Int(10 * 60)).map { .frame(TrackingFrame(t: Double($0) / 60), nil) }
        var r = ShellRuntime(session: Session(state: state, settings: Self.settings),
                             feed: .replay(items: items, speed: 1, name: "still"), exitAtEnd: false,
                             paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        // cat on a tty in canonical mode: the line discipline echoes each key.
        r.terminal = TerminalLink(.child(argv: ["/bin/cat"]))
        let display = EchoDisplay(keys: "hello world")
        r.display = { display }
        try r.run()
        // Most echoes come within the 5 ms the loop waits for them; one that comes later is drawn in full.
        #expect(r.paneDrawings >= 4, "\(r.paneDrawings) echoes drawn as the pane alone: \(display.paneLines)")
        #expect(display.shownLine == "hello world", "\(display.paneLines)")
        #expect(display.mismatches.isEmpty, "\(display.mismatches.prefix(3))")
    }

    /// Bad input: a megabyte of random bytes through libvterm and the pane's drawing, slice by slice.
    @Test func binaryGarbageIsDrawnWithoutACrash() {
        let km = Keymap(name: "t")
        var s = ShellState(keymap: km)
        s.show(screen: "terminal")
        let screen = VTermScreen(rows: 13, cols: 100)
        var seed: UInt64 = 0x5eed
        for _ in 0..<256 {
            var chunk = [UInt8](repeating: 0, count: 4096)
            for i in chunk.indices {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                chunk[i] = UInt8(truncatingIfNeeded: seed >> 33)
            }
            _ = screen.feed(chunk)
            _ = reduce(&s, .terminal(TerminalView(snapshot: screen.snapshot(), program: "garbage")))
            _ = render(s, size: s.size)
        }
        #expect(s.top.name == "terminal")
    }
}

/// Keeps the grid it shows, as a terminal would, and draws echoes as the pane alone over it; types one key
/// at a time, each once the last one's echo was drawn, and hangs up once the last one's was.
final class EchoDisplay: ShellDisplay {
    let size = Size(width: 100, height: 30)
    private var keys: [Character]
    private var typed = ""
    private var grid: CellGrid?
    /// The pane's cursor line after each echo drawn as the pane alone.
    var paneLines: [String] = []
    /// Echo drawings whose pane differed from a full drawing's, with the first differing row.
    var mismatches: [String] = []
    private let hangUp = HangUp(after: 10)
    init(keys: String) { self.keys = Array(keys) }
    var inputFD: Int32 { hangUp.fd }
    /// The pane's cursor line at the last drawing, full or of the pane alone (nil before cat has started).
    private(set) var shownLine: String?
    func readInput() -> TerminalInput? {
        hangUp.when(keys.isEmpty && shownLine == typed)
        // The next key once the line shows what was typed so far: cat started, the last echo drawn.
        guard !keys.isEmpty, shownLine == typed else { return nil }
        let k = keys.removeFirst()
        typed.append(k)
        return .key(.char(k))
    }
    func inputHungUp() -> Bool { hangUp.happened }
    func show(_ state: ShellState, performed: [ActionRecord]) {
        grid = render(state, size: size).0
        if let v = state.terminal, v.program == "/bin/cat" || v.program == "cat" { shownLine = v.lineBeforeCursor }
    }
    func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool {
        // The full drawing it is compared with is of the state with the view in its pane.
        var state = state
        state.terminal = view
        guard let g = grid, let drawnGrid = renderPane(state, over: g, drawn: drawn),
              let pane = state.hitMap.target(id: TerminalScreen.paneID)?.rect else { return false }
        let full = render(state, size: size).0
        for y in pane.y..<pane.maxY where (pane.x..<pane.maxX).contains(where: { drawnGrid[$0, y] != full[$0, y] }) {
            mismatches.append("row \(y): \(drawnGrid.lines[y]) ≠ \(full.lines[y])")
            break
        }
        grid = drawnGrid
        paneLines.append(state.terminal?.lineBeforeCursor ?? "")
        shownLine = state.terminal?.lineBeforeCursor
        return true
    }
    func stop() {}
}
