import FrameFormats
import Runtime
import Testing
import TrackingCore

/// The runtime's measures of the frame source, which the status line shows.
@Suite struct InputMeterTests {
    @Test func countsFramesAndMalformedItemsAndReportsOnlyChanges() {
        var m = InputMeter(start: 100)
        for k in 0..<30 { m.count(.frame(TrackingFrame(t: Double(k) / 60), nil), at: 100 + Double(k) / 60) }
        m.count(.malformed(FrameIssue(nil, "bad")), at: 100.5)
        let h = m.health(at: 100.5)
        #expect(h?.arrivalRate == 30)
        #expect(h?.unrecognised == 1)
        #expect(h?.quietSeconds == 0)
        #expect(m.health(at: 100.5) == nil, "the same measures are not reported twice")
        #expect(m.health(at: 102)?.quietSeconds == 1)
        #expect(m.used == 30)
    }
}
