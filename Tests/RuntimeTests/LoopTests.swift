#if canImport(Glibc)
import Glibc
#endif
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

/// The live loop, run for real on a paced replay with a scripted keyboard, on a clock the test drives: the
/// replay's seconds and the second the loop waits after it pass as the loop waits, not in real time.
@Suite struct LoopTests {
    static let settings = GestureConfig.defaults()

    func runtime(_ feed: FrameFeed, keys: [TerminalInput], clock: TestClock) throws -> (ShellRuntime, ScriptedDisplay, URL) {
        let km = try Setup.keymap("default", gestures: Self.settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString)")
        let session = Session(state: ShellState(keymap: km, gestures: Self.settings.gestures), settings: Self.settings)
        var r = ShellRuntime(session: session, feed: feed, exitAtEnd: true,
                             paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        let display = ScriptedDisplay(keys: keys)
        r.display = { display }
        r.clock = clock
        return (r, display, home)
    }

    @Test func aReplayIsPacedDrawnAtMostOncePerFrameAndKeysAct() throws {
        // 120 frames at 60 frames/s played 4× faster: half a second.
        let items: [DecodedItem] = (0..<120).map { .frame(TrackingFrame(t: 100 + Double($0) / 60, gaze: GazePoint(x: 0.5, y: 0.5)), nil) }
        let clock = TestClock()
        var (r, display, home) = try runtime(.replay(items: items, speed: 4, name: "test"), keys: [.key(.char("?"))], clock: clock)
        defer { try? FileManager.default.removeItem(at: home) }
        let start = clock.now()
        try r.run()
        // The half second of frames, then the second the loop waits before it leaves.
        #expect(clock.now() - start >= 1.49 && clock.now() - start < 1.6, "\(clock.now() - start) s")
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
    /// source did, before its program started) would spin the loop and burn a core. On the test's clock such a
    /// loop makes a thousand wake-ups a millisecond (`TestClock.mostStillWaits`); an idle one wakes for its
    /// ticks alone.
    @Test func anIdleShellSleepsInPoll() throws {
        let items: [DecodedItem] = [.frame(TrackingFrame(t: 0), nil)]
        let clock = TestClock()
        var (r, _, home) = try runtime(.replay(items: items, speed: 1, name: "idle"), keys: [], clock: clock)
        defer { try? FileManager.default.removeItem(at: home) }
        let start = clock.now()
        try r.run()
        let seconds = clock.now() - start
        #expect(seconds >= 1, "the loop waits a second after the replay ends")
        #expect(Double(r.wakeups) / seconds < 100, "\(r.wakeups) wake-ups in \(seconds) s")
    }

    /// The live clock's wait lasts until its deadline, however near: poll's timeout is whole milliseconds,
    /// and rounded down a deadline under one away was a zero timeout, so the loop spun until it came.
    @Test func theLiveClockWaitsUntilItsDeadline() {
        let clock = LiveClock()
        var none: [pollfd] = []
        for gap in [0.0002, 0.0009, 0.0021] {
            let deadline = clock.now() + gap
            #expect(clock.poll(&none, until: deadline) == 0)
            #expect(clock.now() >= deadline, "woke \(deadline - clock.now()) s early")
            clock.sleep(until: deadline + gap)
            #expect(clock.now() >= deadline + gap)
        }
    }
}
