import Config
import FrameFormats
import Foundation
import PtyHost
import Runtime
import Shell
import Terminal
import Testing
import TrackingCore

/// A display that keeps what the Terminal screen showed at each drawing.
final class PaneDisplay: ShellDisplay {
    let size = Size(width: 100, height: 30)
    var keys: [TerminalInput]
    var views: [TerminalView] = []
    var lines: [String] = []
    init(keys: [TerminalInput] = []) { self.keys = keys }
    var inputFD: Int32 { -1 }
    func readInput() -> TerminalInput? { keys.isEmpty ? nil : keys.removeFirst() }
    func inputHungUp() -> Bool { false }
    func show(_ state: ShellState, performed: [ActionRecord]) {
        if let v = state.terminal { views.append(v) }
        lines = render(state, size: size).0.lines
    }
    func stop() {}
}

/// The Terminal screen in the real loop: a real child on a pty, its output through libvterm into the pane.
@Suite struct TerminalLoopTests {
    static let settings = GestureConfig.defaults()

    /// Runs the loop on the Terminal screen with `argv` for `seconds` (a paced replay of still frames keeps
    /// it going, then it leaves).
    func run(_ argv: [String], seconds: Double, keys: [TerminalInput] = []) throws -> (ShellRuntime, PaneDisplay) {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var state = ShellState(keymap: km, gestures: Self.settings.gestures)
        state.show(screen: "terminal")
        let session = Session(state: state, settings: Self.settings)
        let n = Int(seconds * 60)
        let items: [DecodedItem] = (0..<n).map { .frame(TrackingFrame(t: Double($0) / 60), nil) }
        var r = ShellRuntime(session: session, feed: .replay(items: items, speed: 1, name: "still"), exitAtEnd: true,
                             paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        r.terminal = TerminalLink(.child(argv: argv))
        let display = PaneDisplay(keys: keys)
        r.display = { display }
        try r.run()
        return (r, display)
    }

    @Test func aChildsOutputReachesThePaneAndItsEndIsShownAndReaped() throws {
        let (r, d) = try run(["/bin/sh", "-c", "echo ready-$((40+2)); exit 3"], seconds: 0.5)
        #expect(d.lines.contains { $0.hasPrefix("ready-42") }, "\(d.lines.joined(separator: "\n"))")
        #expect(d.views.last?.ended == "/bin/sh exited with status 3")
        #expect(d.lines.contains { $0.contains("↻ Restart") })
        // Reaped: no zombie is left behind.
        let pid = try #require(r.terminal.hosted?.process.pid)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child is still there")
    }

    @Test func thePtyIsTheSizeOfThePane() throws {
        let (_, d) = try run(["/bin/sh", "-c", "sleep 0.2; stty size; sleep 5"], seconds: 0.8)
        var s = ShellState(keymap: try Setup.keymap("default", gestures: Self.settings.gestures))
        s.show(screen: "terminal")
        let pane = try #require(s.hitMap.target(id: TerminalScreen.paneID)).rect
        #expect(d.lines.contains { $0.hasPrefix("\(pane.h) \(pane.w)") }, "\(d.lines.prefix(5)) pane \(pane)")
    }

    @Test func helperKeysAreTypedIntoTheChild() throws {
        let keys: [TerminalInput] = "echo typed-ok".map { .key(.char($0)) } + [.key(.enter)]
        let (_, d) = try run(["/bin/sh"], seconds: 0.8, keys: keys)
        // sh may print its prompt after the echo of input typed before it started: "# typed-ok".
        #expect(d.lines.contains { $0.contains("typed-ok") && !$0.contains("echo") }, "\(d.lines.prefix(6).joined(separator: "\n"))")
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
