import Foundation
import Testing
@testable import TrackingCore

/// Frames at 60 fps with one shape following `values`.
private func frames(_ shape: BlendShape, _ values: [Float], start: Double = 0, fps: Double = 60,
                    other: [BlendShape: Float] = [:]) -> [TrackingFrame] {
    values.enumerated().map { i, v in
        var b = BlendShapes(other)
        b[shape] = v
        return TrackingFrame(t: start + Double(i) / fps, blend: b)
    }
}

private func run(_ spec: ThresholdSpec, _ fs: [TrackingFrame]) -> [Double] {
    var d = ThresholdDetector(spec)
    return fs.compactMap { f in d.step(f.blend, at: f.t).map { _ in f.t } }
}

private let jaw = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3, refractory: 0.3)

struct ThresholdDetectorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var values: [Float]
        var fires: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "rest never fires", values: Array(repeating: 0.1, count: 120), fires: 0),
        Case(name: "held 0.5 s fires once", values: [0.1] + Array(repeating: 0.8, count: 30) + [0.1], fires: 1),
        Case(name: "held 2 s still fires once", values: [0.1] + Array(repeating: 0.8, count: 120) + [0.1], fires: 1),
        Case(name: "held 0.25 s is too short", values: [0.1] + Array(repeating: 0.8, count: 15) + [0.1], fires: 0),
        Case(name: "two performances fire twice",
             values: [0.1] + Array(repeating: 0.8, count: 30) + Array(repeating: 0.1, count: 30)
                 + Array(repeating: 0.8, count: 30) + [0.1], fires: 2),
        Case(name: "hovering at the press threshold does not chatter",
             values: [0.1] + (0..<240).map { $0 % 2 == 0 ? 0.51 : 0.49 } + [0.1], fires: 0),
        Case(name: "a dip above release does not start a second performance",
             values: [0.1] + Array(repeating: 0.8, count: 30) + Array(repeating: 0.35, count: 10)
                 + Array(repeating: 0.8, count: 30) + [0.1], fires: 1),
        Case(name: "speech-like band between thresholds never accumulates hold",
             values: [0.1] + (0..<120).map { $0 % 12 < 6 ? 0.55 : 0.4 } + [0.1], fires: 0),
        Case(name: "starting pressed needs a release first", values: Array(repeating: 0.9, count: 60), fires: 0),
    ]

    @Test(arguments: cases)
    func table(_ c: Case) {
        #expect(run(jaw, frames(.jawOpen, c.values)).count == c.fires)
    }

    @Test func firesAfterTheHoldAtTheRightFrame() {
        let fs = frames(.jawOpen, [0.1] + Array(repeating: 0.8, count: 40))
        let fired = run(jaw, fs)
        #expect(fired.count == 1)
        // Pressed from t = 1/60; 0.3 s later is the frame at 19/60.
        #expect(abs((fired.first ?? 0) - 19.0 / 60) < 1e-9)
    }

    @Test func refractoryBlocksAQuickSecondPerformance() {
        var spec = jaw
        spec.refractory = 2
        let v: [Float] = [0.1] + Array(repeating: 0.8, count: 20) + [0.1, 0.1] + Array(repeating: 0.8, count: 30) + [0.1]
        #expect(run(spec, frames(.jawOpen, v)).count == 1)
    }

    @Test func progressFillsWhileHolding() {
        var d = ThresholdDetector(jaw)
        _ = d.step(BlendShapes([.jawOpen: 0.1]), at: 0)
        _ = d.step(BlendShapes([.jawOpen: 0.8]), at: 0.1)
        _ = d.step(BlendShapes([.jawOpen: 0.8]), at: 0.25)
        #expect(abs(d.progress - 0.5) < 1e-9)
        _ = d.step(BlendShapes([.jawOpen: 0.1]), at: 0.3)
        #expect(d.progress == 0)
    }
}

struct GuardTests {
    static let back = ThresholdSpec(signal: ShapeSignal([.eyeBlinkRight]), press: 0.6, release: 0.4, hold: 0.4,
                                    guards: [GuardCondition(ShapeSignal([.eyeBlinkLeft]), .le, 0.3)])

    @Test func rightEyeOnlyClosureIsABack() {
        let fs = frames(.eyeBlinkRight, [0] + Array(repeating: 0.9, count: 40) + [0], other: [.eyeBlinkLeft: 0.05])
        #expect(run(Self.back, fs).count == 1)
    }

    @Test func fullBlinksAreNeverABack() {
        // Long and short closures of both eyes.
        for n in [6, 12, 30, 90] {
            let fs = frames(.eyeBlinkRight, [0] + Array(repeating: 0.9, count: n) + [0], other: [.eyeBlinkLeft: 0.9])
            #expect(run(Self.back, fs).isEmpty, "both eyes closed for \(n) frames")
        }
    }

    @Test func holdCountsOnlyWhileTheGuardHolds() {
        // Both eyes closed 0.3 s, then the left opens while the right stays closed 0.3 s: 0.3 s < 0.4 s.
        var fs = frames(.eyeBlinkRight, [0] + Array(repeating: 0.9, count: 18), other: [.eyeBlinkLeft: 0.9])
        fs += frames(.eyeBlinkRight, Array(repeating: 0.9, count: 18) + [0], start: 19.0 / 60, other: [.eyeBlinkLeft: 0])
        #expect(run(Self.back, fs).isEmpty)
    }

    @Test func winkFiresOnReleaseOnlyWhenShort() {
        let wink = ThresholdSpec(signal: ShapeSignal([.eyeBlinkLeft]), press: 0.6, release: 0.4, hold: 0.08,
                                 maxHold: 0.35, guards: [GuardCondition(ShapeSignal([.eyeBlinkRight]), .le, 0.3)])
        #expect(run(wink, frames(.eyeBlinkLeft, [0] + Array(repeating: 0.9, count: 12) + [0])).count == 1)
        #expect(run(wink, frames(.eyeBlinkLeft, [0] + Array(repeating: 0.9, count: 40) + [0])).isEmpty)
        #expect(run(wink, frames(.eyeBlinkLeft, [0] + Array(repeating: 0.9, count: 2) + [0])).isEmpty)
        #expect(run(wink, frames(.eyeBlinkLeft, [0] + Array(repeating: 0.9, count: 12) + [0],
                                 other: [.eyeBlinkRight: 0.9])).isEmpty)
    }

    /// With a maximum hold too, only time at or above `press` counts: a jaw moving through the band between
    /// the thresholds while talking never adds up to a release-fired activation.
    @Test func maxHoldCountsOnlyTimeAbovePress() {
        var spec = jaw
        spec.maxHold = 1.5
        // 0.5 s in the band with brief touches of press, then released: no stretch reaches 0.3 s.
        let talk: [Float] = [0.1] + (0..<30).map { $0 % 6 < 2 ? 0.55 : 0.4 } + [0.1]
        #expect(run(spec, frames(.jawOpen, talk)).isEmpty)
        // A deliberate 0.5 s opening, even after a dip into the band, fires on release.
        let open: [Float] = [0.1] + Array(repeating: 0.4, count: 10) + Array(repeating: 0.8, count: 30) + [0.1]
        #expect(run(spec, frames(.jawOpen, open)) == [41.0 / 60])
        // Open longer than the maximum: nothing.
        #expect(run(spec, frames(.jawOpen, [0.1] + Array(repeating: 0.8, count: 100) + [0.1])).isEmpty)
    }
}

struct BlinkCountTests {
    private func blinks(_ gaps: [Int], closed: Int = 8) -> [TrackingFrame] {
        var both: [Float] = [0]
        for g in gaps { both += Array(repeating: 0.9, count: closed) + Array(repeating: 0, count: g) }
        return both.enumerated().map { i, v in
            TrackingFrame(t: Double(i) / 60, blend: BlendShapes([.eyeBlinkLeft: v, .eyeBlinkRight: v]))
        }
    }

    private func count(_ spec: BlinkCountSpec, _ fs: [TrackingFrame]) -> Int {
        var d = BlinkCountDetector(spec)
        return fs.filter { d.step($0.blend, at: $0.t) != nil }.count
    }

    @Test func doubleBlinkWithinWindowFires() {
        #expect(count(BlinkCountSpec(eye: .both, count: 2, window: 0.7), blinks([10, 30])) == 1)
    }

    @Test func blinksTooFarApartDoNot() {
        #expect(count(BlinkCountSpec(eye: .both, count: 2, window: 0.7), blinks([60, 60])) == 0)
    }

    @Test func longClosuresAreNotBlinks() {
        #expect(count(BlinkCountSpec(eye: .both, count: 2, window: 3), blinks([10, 10], closed: 40)) == 0)
    }

    @Test func leftEyeBlinksIgnoreFullBlinks() {
        #expect(count(BlinkCountSpec(eye: .left, count: 2, window: 0.7), blinks([10, 30])) == 0)
    }
}

struct DwellTests {
    @Test func dwellFiresOnceAfterItsTime() {
        var d = DwellDetector(DwellSpec(dwell: 1, grace: 0.15))
        var fired: [String] = []
        for i in 0...150 { if let t = d.step(target: "a", at: Double(i) / 60) { fired.append(t) } }
        #expect(fired == ["a"])
    }

    @Test func briefGlanceAwayIsForgiven() {
        var d = DwellDetector(DwellSpec(dwell: 1, grace: 0.15))
        var fired: [Double] = []
        for i in 0...80 {
            let t = Double(i) / 60
            // Looks away for 5 frames (83 ms) in the middle.
            let target = (30..<35).contains(i) ? "b" : "a"
            if d.step(target: target, at: t) != nil { fired.append(t) }
        }
        #expect(fired.count == 1)
        #expect(abs((fired.first ?? 0) - 1.0) < 0.02)
    }

    @Test func longLookAwayRestarts() {
        var d = DwellDetector(DwellSpec(dwell: 1, grace: 0.15))
        var fired = 0
        for i in 0...100 {
            let target = (30..<50).contains(i) ? "b" : "a"
            if d.step(target: target, at: Double(i) / 60) != nil { fired += 1 }
        }
        #expect(fired == 0)
        #expect(d.progress > 0.7)
    }
}

/// The level a blink-count gesture's release is compared with, read without making its spec, is the spec's.
@Test func blinkLevelIsTheBlinkSpecsSignal() {
    for eye in [BlinkEye.left, .right, .both] {
        let spec = BlinkCountSpec(eye: eye, count: 2, window: 1)
        for (l, r) in [(0, 0), (0.9, 0.1), (0.1, 0.9), (0.5, 0.5), (1, 0.3)] as [(Float, Float)] {
            let b = BlendShapes([.eyeBlinkLeft: l, .eyeBlinkRight: r])
            #expect(spec.blinkLevel(b) == spec.blinkSpec.signal.value(b), "\(eye) \(l) \(r)")
        }
    }
}

/// The webcam's jaw (`config/webcam.toml`): a still mouth before the opening (`calm`), and a repeat on the same
/// key allowed after a shorter stillness at the resting level (`repeatCalm`).
struct RepeatCalmTests {
    static let spec = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.55, release: 0.3, hold: 0.9,
                                    refractory: 0.3, calm: 0.4, repeatCalm: 0.2)
    /// Builds a jaw track at 60 frames/s from (seconds, value at each frame) pieces.
    static func track(_ pieces: [(Double, (Double) -> Float)]) -> [TrackingFrame] {
        var values: [Float] = []
        for (seconds, f) in pieces { values += (0..<Int(seconds * 60)).map { f(Double($0) / 60) } }
        return frames(.jawOpen, values)
    }
    static var rest: (Double, (Double) -> Float) { (1.0, { s in 0.04 + 0.01 * Float(sin(37 * s)) }) }
    static func open(_ seconds: Double) -> (Double, (Double) -> Float) { (seconds, { _ in 0.8 }) }
    /// The mouth closing in 80 ms, then at rest for `seconds`.
    static func close(_ seconds: Double, to level: Float = 0.03) -> (Double, (Double) -> Float) {
        (0.08 + seconds, { s in s < 0.08 ? 0.8 - (0.8 - level) * Float(s / 0.08) : level })
    }

    @Test func aReopeningSoonAfterAFiredOpeningCounts() {
        // "oo" in "good": open, close, reopen 0.25 s after the mouth closed; and a third time ("www").
        let twice = Self.track([Self.rest, Self.open(1.0), Self.close(0.25), Self.open(1.0), Self.close(0.25),
                                Self.open(1.0), Self.close(0.5)])
        #expect(run(Self.spec, twice).count == 3)
        // Without the repeat rule only the first opening counts: the trap a webcam user fell into.
        var strict = Self.spec
        strict.repeatCalm = 0
        #expect(run(strict, twice).count == 1)
    }

    @Test func talkingLikeOpeningsStillDoNot() {
        // Nothing fired first: a talking opening, a short close, a long opening is not a repeat.
        let noFireFirst = Self.track([Self.rest, Self.open(0.5), Self.close(0.25), Self.open(1.0), Self.close(0.5)])
        #expect(run(Self.spec, noFireFirst).isEmpty)
        // After a fired opening, a dip that does not come back to the closed level (0.2: below release only).
        let notClosed = Self.track([Self.rest, Self.open(1.0), Self.close(0.3, to: 0.2), Self.open(1.0), Self.close(0.5)])
        #expect(run(Self.spec, notClosed).count == 1)
        // After a fired opening, a talking dip that touches the closed level for only 0.1 s.
        let briefDip = Self.track([Self.rest, Self.open(1.0), Self.close(0.1), (0.2, { _ in 0.25 }), Self.open(1.0),
                                   Self.close(0.5)])
        #expect(run(Self.spec, briefDip).count == 1)
        // After a fired opening and a still close, a slow climb through the band is still the rhythm of speech.
        let slowClimb = Self.track([Self.rest, Self.open(1.0), Self.close(0.3),
                                    (0.6, { s in 0.3 + 0.25 * Float(s / 0.6) }), Self.open(1.0), Self.close(0.5)])
        #expect(run(Self.spec, slowClimb).count == 1)
        // Talking right after a fired opening: syllables 4 a second, the jaw 0.08…0.52, stressed ones held at 0.6.
        let talking = Self.track([Self.rest, Self.open(1.0), Self.close(0.25), (5.0, { s in
            let jaw = 0.3 + 0.22 * sin(2 * .pi * 4 * s)
            return Float(s.truncatingRemainder(dividingBy: 1.5) < 0.5 ? max(jaw, 0.6) : jaw)
        }), Self.close(0.5)])
        #expect(run(Self.spec, talking).count == 1)
    }
}

/// `key_hold_ms`: a shorter hold while the focus is on a key that one ⌫ undoes, the full hold elsewhere.
struct KeyHoldTests {
    static let spec = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3,
                                    refractory: 0.3, keyHold: 0.2)
    /// The jaw open 0.25 s: past the key hold, short of the full hold.
    static let quarterSecond = frames(.jawOpen, [0.1] + Array(repeating: 0.8, count: 15) + [0.1])

    static func fires(_ spec: ThresholdSpec, onKey: Bool, _ fs: [TrackingFrame]) -> [Double] {
        var d = ThresholdDetector(spec)
        d.onKey = onKey
        return fs.compactMap { f in d.step(f.blend, at: f.t).map { _ in f.t } }
    }

    @Test func aKeyActsAfterTheKeyHoldAndOtherTargetsAfterTheFullHold() {
        let onKey = Self.fires(Self.spec, onKey: true, Self.quarterSecond)
        #expect(onKey.count == 1)
        // The frame at which the key hold (0.2 s) is reached after the press at 1/60 s.
        #expect(abs((onKey.first ?? 0) - (1.0 / 60 + 0.2)) < 1e-9)
        #expect(Self.fires(Self.spec, onKey: false, Self.quarterSecond).isEmpty)
        let long = frames(.jawOpen, [0.1] + Array(repeating: 0.8, count: 30) + [0.1])
        #expect(Self.fires(Self.spec, onKey: false, long).count == 1)
    }

    @Test func aKeyHoldNeverLengthensTheHoldNorChangesAWink() {
        var longer = Self.spec
        longer.keyHold = 0.5
        #expect(longer.hold(onKey: true) == 0.3)
        var wink = Self.spec
        wink.maxHold = 0.4
        #expect(wink.hold(onKey: true) == 0.3)
        #expect(Self.spec.hold(onKey: true) == 0.2 && Self.spec.hold(onKey: false) == 0.3)
    }

    /// The shipped jaw: 300 ms, 150 ms on a key, and the key hold only from a still face (`key_calm_ms` 500).
    static let guarded = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.3,
                                       refractory: 0.3, keyHold: 0.15, keyCalm: 0.5)
    /// `n` frames at 60 fps of a constant value.
    static func hold(_ v: Float, _ n: Int) -> [Float] { Array(repeating: v, count: n) }
    /// An opening past `press` for 0.25 s: past the key hold (0.15 s), short of the full hold (0.3 s).
    static let shortOpen: [Float] = [0.25, 0.4] + hold(0.55, 15) + [0.4, 0.2]

    @Test func talkingOnALetterKeyFiresNothingUnderTheKeyCalm() {
        // Shaped like the real talking take S07-001 (docs/prediction.md): the jaw rests at 0.03, climbs to a
        // 0.2-0.3 plateau for 0.7 s, then passes press for 0.25 s; and speech opening the jaw three times a
        // second, below and past press, before one such opening.
        let stepped = Self.hold(0.03, 60) + [0.1, 0.2] + Self.hold(0.27, 40) + Self.shortOpen + Self.hold(0.03, 60)
        let rhythm = Self.hold(0.03, 60) + Array(repeating: [0.2, 0.4, 0.55, 0.55, 0.4, 0.2] + Self.hold(0.05, 14), count: 4).flatMap { $0 }
            + Self.shortOpen + Self.hold(0.03, 60)
        for values in [stepped, rhythm] {
            let fs = frames(.jawOpen, values)
            #expect(Self.fires(Self.guarded, onKey: true, fs).isEmpty)
            // Without the calm the key hold would type a letter: the guard is what keeps it out.
            var bare = Self.guarded
            bare.keyCalm = nil
            #expect(Self.fires(bare, onKey: true, fs).count == 1)
        }
    }

    @Test func aDeliberatePressAfterStillnessActsAfterTheKeyHold() {
        // Talking first, then the jaw still for 0.6 s (past key_calm_ms), then a straight opening.
        let values = Self.hold(0.03, 30) + [0.2, 0.4, 0.55, 0.4, 0.2] + Self.hold(0.03, 36) + [0.3] + Self.hold(0.7, 20)
            + Self.hold(0.03, 10)
        let fs = frames(.jawOpen, values)
        let fired = Self.fires(Self.guarded, onKey: true, fs)
        #expect(fired.count == 1)
        // The jaw passes press at frame 72; the key hold (0.15 s) is reached 9 frames later.
        let acted = (fired.first ?? 0) - 72.0 / 60
        #expect(acted > 0.15 - 1e-9 && acted < 0.15 + 1.5 / 60, "acted \(acted) s after the press")
        // Still within key_calm_ms of the talking, the same opening waits for the full hold (0.3 s).
        let early = frames(.jawOpen, Self.hold(0.03, 30) + [0.2, 0.4, 0.55, 0.4, 0.2] + Self.hold(0.03, 12) + [0.3]
            + Self.hold(0.7, 20) + Self.hold(0.03, 10))
        let late = Self.fires(Self.guarded, onKey: true, early)
        #expect(late.count == 1)
        let waited = (late.first ?? 0) - 48.0 / 60
        #expect(waited > 0.3 - 1e-9 && waited < 0.3 + 1.5 / 60, "acted \(waited) s after the press")
    }

    @Test func aDoubleLetterTypedByTwoOpeningsActsTwiceUnderTheKeyCalm() {
        // "ll": open 0.2 s, close for 0.25 s (to rest, or only to 0.2: a quick double), open again.
        let open: [Float] = [0.3] + Self.hold(0.8, 12)
        for closed: Float in [0.03, 0.2] {
            let values = Self.hold(0.03, 40) + open + [0.4] + Self.hold(closed, 15) + open + Self.hold(0.03, 10)
            let fired = Self.fires(Self.guarded, onKey: true, frames(.jawOpen, values))
            #expect(fired.count == 2, "closed to \(closed)")
        }
    }

    @Test func thePipelineAppliesTheKeyHoldOnlyWhileTold() {
        let def = GestureDefinition(name: "activate", kind: .threshold(Self.spec))
        var settings = PipelineSettings()
        settings.gestures = [def]
        var p = Pipeline(settings)
        var fired: [GestureEvent] = []
        p.onKey = false
        for f in Self.quarterSecond { fired += p.step(f) }
        #expect(fired.isEmpty)
        p.onKey = true
        for f in frames(.jawOpen, [0.1] + Array(repeating: 0.8, count: 15) + [0.1], start: 2) { fired += p.step(f) }
        #expect(fired.count == 1)
    }
}
