import Config
import FrameFormats
import Foundation
import Runtime
import Shell
import SystemIO
import Terminal
import Testing
import TrackingCore
import Transport

/// A display with no terminal: keys come from a script, each drawing is kept.
final class ScriptedDisplay: ShellDisplay {
    let size = Size(width: 100, height: 30)
    var keys: [TerminalInput]
    var shown: [(screen: String, notice: String?, performed: [String])] = []
    init(keys: [TerminalInput]) { self.keys = keys }
    var inputFD: Int32 { -1 }
    func readInput() -> TerminalInput? { keys.isEmpty ? nil : keys.removeFirst() }
    func inputHungUp() -> Bool { false }
    func show(_ state: ShellState, performed: [ActionRecord]) {
        shown.append((state.top.name, state.notice, performed.map(\.action)))
    }
    func stop() {}
}

/// The live loop, run for real on a paced replay with a scripted keyboard.
@Suite struct LoopTests {
    static let settings = GestureConfig.defaults()

    func runtime(_ feed: FrameFeed, keys: [TerminalInput]) throws -> (ShellRuntime, ScriptedDisplay, URL) {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString)")
        let session = Session(state: ShellState(keymap: km, gestures: Self.settings.gestures), settings: Self.settings)
        var r = ShellRuntime(session: session, feed: feed, exitAtEnd: true,
                             paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        let display = ScriptedDisplay(keys: keys)
        r.display = { display }
        return (r, display, home)
    }

    @Test func aReplayIsPacedDrawnAtMostOncePerFrameAndKeysAct() throws {
        // 120 frames at 60 frames/s played 4× faster: half a second.
        let items: [DecodedItem] = (0..<120).map { .frame(TrackingFrame(t: 100 + Double($0) / 60, gaze: GazePoint(x: 0.5, y: 0.5)), nil) }
        var (r, display, home) = try runtime(.replay(items: items, speed: 4, name: "test"), keys: [.key(.char("?"))])
        defer { try? FileManager.default.removeItem(at: home) }
        try r.run()
        #expect(r.framesIn == 120)
        #expect(r.renders <= r.framesIn + 2, "at most one drawing per frame, plus the key's")
        #expect(display.shown.contains { $0.screen == "help" }, "the key opened help")
        #expect(display.shown.flatMap(\.performed).contains("help"))
        #expect(r.summary.contains("120 used"))
        // The action went to the log in the state folder given, nowhere else.
        let log = try String(contentsOf: home.appendingPathComponent(".local/state/handsfree/shell.log"), encoding: .utf8)
        #expect(log.contains("\"action\": \"help\"") || log.contains("\"action\":\"help\""))
    }

    /// An idle shell waits in poll: a source that always asks to be woken at once (the Terminal screen's
    /// source did, before its program started) would spin the loop and burn a core.
    @Test func anIdleShellSleepsInPoll() throws {
        let items: [DecodedItem] = [.frame(TrackingFrame(t: 0), nil)]
        var (r, _, home) = try runtime(.replay(items: items, speed: 1, name: "idle"), keys: [])
        defer { try? FileManager.default.removeItem(at: home) }
        let start = monotonicSeconds()
        try r.run()
        let seconds = monotonicSeconds() - start
        #expect(seconds >= 1, "the loop waits a second after the replay ends")
        #expect(Double(r.wakeups) / seconds < 1000, "\(r.wakeups) wake-ups in \(seconds) s")
    }
}
