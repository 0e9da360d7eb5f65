import FrameFormats
import Testing

/// Replay pacing: the recording's own pace times the speed, never stalled by a damaged timestamp.
@Suite struct PacerTests {
    @Test func framesAreDueAtTheirPaceTimesTheSpeed() {
        var p = Pacer(speed: 2)
        #expect(p.due(10, now: 500) == 500)
        #expect(p.due(11, now: 500) == 500.5)
        #expect(p.due(13, now: 500.1) == 501.5)
    }

    @Test func aJumpWaitsAtMostFiveSecondsAndThePaceCarriesOnFromThere() {
        var p = Pacer(speed: 1)
        _ = p.due(0, now: 0)
        #expect(p.due(3600, now: 0) == Pacer.maxWait)
        #expect(p.due(3601, now: 5) == Pacer.maxWait + 1)
    }

    @Test func aStepBackWaitsNotAtAll() {
        var p = Pacer(speed: 1)
        _ = p.due(100, now: 0)
        _ = p.due(101, now: 0)
        #expect(p.due(50, now: 1) == 1)
        #expect(p.due(50.5, now: 1) == 1.5)
    }

    @Test func withoutASpeedEverythingIsDueNow() {
        var p = Pacer(speed: nil)
        #expect(p.due(0, now: 7) == 7)
        #expect(p.due(1e9, now: 7) == 7)
        var q = Pacer(speed: 0)
        #expect(q.due(5, now: 3) == 3)
        #expect(q.due(.nan, now: 3) == 3)
    }
}
