@testable import FrameFormats
import Testing
import TrackingCore

/// Live Link Face's timecode is the time of day: at midnight it wraps from 23:59:59 to 00:00:00. Through the
/// real CSV decoder and the pipeline, that is a continuation of the session, not a tracker restart.
struct MidnightTests {
    @Test func aLiveLinkTakeAcrossMidnightIsOneEpochAndAGestureHeldAcrossItFiresOnce() {
        // Frames 60 per second from 23:59:59, frame 40 to 00:00:00, frame 30; the jaw opens at frame 50.
        var rows: [String] = [LiveLinkCSVTests.header]
        for (second, from, to) in [("23:59:59", 40, 59), ("00:00:00", 0, 30)] {
            for f in from...to {
                let open = second == "00:00:00" || f >= 50
                let tc = second + ":" + (f < 10 ? "0" : "") + String(f) + ".000"
                rows.append(LiveLinkCSVTests.row(tc, jaw: open ? 0.9 : 0.05))
            }
        }
        var decoder = LiveLinkCSVDecoder()
        let items = decoder.feed(Array(rows.joined(separator: "\n").utf8)) + decoder.finish()
        let jaw = GestureDefinition(
            name: "activate",
            kind: .threshold(ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3)))
        var p = Pipeline(PipelineSettings(gestures: [jaw]))
        var events: [GestureEvent] = []
        for item in items { events += p.step(item) }
        #expect(p.stats.frames == 51)
        #expect(p.epoch == 0)
        #expect(p.stats.midnightWraps == 1)
        #expect(p.stats.clockJumps == 0)
        #expect(events.count == 1, "a jaw held from 23:59:59:50 past midnight is one gesture")
    }
}
