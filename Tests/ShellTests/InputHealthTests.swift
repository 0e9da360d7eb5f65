import Shell
import Testing
import TrackingCore

/// The status line's account of the frame source: the runtime's measured arrival rate, a silent source
/// shown as such, and counts of dropped and unrecognised packets.
@Suite struct InputHealthTests {
    @Test func rateWindowCountsTheLastSecondAtAnyRate() {
        var w = RateWindow()
        for i in 0..<600 { w.add(at: Double(i) / 60) }
        #expect((57...60).contains(w.perSecond), "\(w.perSecond)")
        var flood = RateWindow()
        for i in 0..<1_000_000 { flood.add(at: Double(i) / 100_000) }
        #expect((95_000...100_000).contains(flood.perSecond), "\(flood.perSecond)")
        w.advance(to: 9.99 + 1.5)
        #expect(w.perSecond == 0, "a silent second leaves no rate")
    }

    @Test func rateWindowStartsOverWhenTheClockGoesFarBack() {
        var w = RateWindow()
        for i in 0..<120 { w.add(at: 3600 + Double(i) / 60) }
        for i in 0..<30 { w.add(at: Double(i) / 60) }
        #expect(w.perSecond == 30)
    }

    @Test func aSilentSourceShowsAsSuchNotAsAFace() {
        var s = Fixture.state()
        _ = reduce(&s, .frame(TrackingSample(t: 1, face: true, gaze: GazePoint(x: 0.5, y: 0.5))))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 60, quietSeconds: 0)))
        #expect(render(s, size: s.size).0.lines[29].contains("60 fps │ face ●"))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 0, quietSeconds: 20)))
        let line = render(s, size: s.size).0.lines[29]
        #expect(line.contains("0 fps │ face ? no frames for 20 s"), "\(line)")
        #expect(!line.contains("face ●"))
        #expect(s.tracking.gaze == nil, "no gaze cursor is drawn from a frame 20 s old")
    }

    /// A steady source's jitter of a frame or two a second does not change the figure shown (nor, so, the
    /// still face's look, which would redraw the screen for it); a real change of rate shows at once.
    @Test func theRateShownHoldsThroughJitterAndFollowsARealChange() {
        var s = Fixture.state()
        _ = reduce(&s, .frame(TrackingSample(t: 1, face: true, gaze: GazePoint(x: 0.5, y: 0.5))))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 60, quietSeconds: 0)))
        let look = FrameLook(s)
        for rate in [59, 61, 58, 62, 60] {
            _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: rate, quietSeconds: 0)))
            #expect(s.tracking.health?.arrivalRate == 60, "\(rate) fps")
            #expect(FrameLook(s) == look, "\(rate) fps changed the look")
        }
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 30, quietSeconds: 0)))
        #expect(render(s, size: s.size).0.lines[29].contains("30 fps"))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 0, quietSeconds: 1)))
        #expect(render(s, size: s.size).0.lines[29].contains("0 fps"))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 2, quietSeconds: 0)))
        #expect(s.tracking.health?.arrivalRate == 2, "a source starting again shows its rate")
    }

    @Test func dropsAndUnrecognisedPacketsAreCountedAndTheSenderNamed() {
        var s = Fixture.state()
        _ = reduce(&s, .frame(TrackingSample(t: 1, face: true)))
        _ = reduce(&s, .inputHealth(InputHealth(arrivalRate: 60, quietSeconds: 0, dropped: 1_234_567, unrecognised: 12,
                                                unrecognisedFrom: "127.0.0.1:5555", unrecognisedPacket: 17)))
        let grid = render(s, size: s.size).0
        #expect(grid.lines[29].contains("1.2M dropped │ 12 unrecognised"), "\(grid.lines[29])")
        #expect(grid.lines[0].contains("unrecognised packets from 127.0.0.1:5555 (packet 17)"), "\(grid.lines[0])")
    }
}
