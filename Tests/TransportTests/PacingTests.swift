import FrameFormats
import SystemIO
import Testing
import TrackingCore
import Transport

/// `replay` (what `handsfree replay` plays a recording with) on a clock the test drives: each frame comes when
/// its timestamp says, and no real time passes.
@Suite struct PacingTests {
    /// The times, on `clock` since the start, at which `replay` handed each item on.
    func times(_ items: [DecodedItem], pace: ReplayPace, clock: TestClock) -> [Double] {
        let start = clock.now()
        var at: [Double] = []
        replay(items, pace: pace, clock: clock) { _ in at.append(clock.now() - start); return true }
        return at
    }

    @Test func framesComeAtTheirTimestampsPaceTimesTheSpeed() {
        var items = [0, 0.5, 0.5, 2].map { DecodedItem.frame(TrackingFrame(t: 100 + $0), nil) }
        items.append(.malformed(FrameIssue(nil, "bad")))
        #expect(times(items, pace: .speed(2), clock: TestClock()) == [0, 0.25, 0.25, 1, 1])
        #expect(times(items, pace: .realTime, clock: TestClock()) == [0, 0.5, 0.5, 2, 2])
        #expect(times(items, pace: .fast, clock: TestClock()) == [0, 0, 0, 0, 0])
    }

    /// A gap in a recording (the tracker lost the face for a minute) is waited out for at most
    /// `Pacer.maxWait`, and a timestamp that goes back is played at once; the pace goes on from each.
    @Test func aLongGapIsCutShortAndTimeGoingBackIsNotWaitedFor() {
        let items = [0, 60, 59, 61].map { DecodedItem.frame(TrackingFrame(t: $0), nil) }
        #expect(times(items, pace: .realTime, clock: TestClock()) == [0, Pacer.maxWait, Pacer.maxWait, Pacer.maxWait + 2])
    }

    /// Ending early (the body says so) stops at once.
    @Test func theBodyEndsTheReplay() {
        let clock = TestClock()
        var taken = 0
        replay((0..<10).map { DecodedItem.frame(TrackingFrame(t: Double($0)), nil) }, pace: .realTime, clock: clock) { _ in
            taken += 1
            return taken < 3
        }
        #expect(taken == 3)
    }
}
