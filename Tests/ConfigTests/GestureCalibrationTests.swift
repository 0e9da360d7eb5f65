import Config
import Foundation
import Testing
import TrackingCore

/// The guided gesture calibration on constructed MediaPipe-shaped faces whose values differ from the config's
/// assumptions (a weak wink, a small jaw): the calibrated thresholds catch this user's gestures and still
/// ignore blinks, looking down and talking.
struct GestureCalibrationTests {
    typealias W = WebcamGestureTests

    /// The webcam config's activate and back, as the calibration screen would ask for them.
    static func run(_ settings: PipelineSettings) -> GestureCalibrationRun {
        let asked = settings.gestures.compactMap { g -> GestureCalibrationRun.Gesture? in
            guard ["activate", "back"].contains(g.name), case .threshold(let t) = g.kind else { return nil }
            return .init(name: g.name, signal: t.signal, press: t.press, release: t.release, hold: t.hold, calm: t.calm)
        }
        return GestureCalibrationRun(gestures: asked)
    }

    /// A user whose jaw opens only to 0.45 and whose wink reads 0.30 against 0.14: both below what the config
    /// expects. Neutral 2.5 s, then each gesture twice with rests between.
    static let session = W.track(14) { t, n in
        switch t {
        case 3.4..<4.6, 5.2..<6.4: return [.jawOpen: 0.45 + n.jitter(0.02)]
        case 7.0..<7.6, 8.5..<9.1: return [.eyeBlinkRight: 0.30 + n.jitter(0.02), .eyeBlinkLeft: 0.14 + n.jitter(0.01)]
        default: return [:]
        }
    }

    static func feed(_ run: inout GestureCalibrationRun, _ items: [DecodedItem]) {
        for case .frame(let f, _) in items { run.step(t: f.t, face: f.face, blend: f.blend) }
    }

    @Test func thresholdsFollowThisUsersFaceAndCatchItsGestures() throws {
        let webcam = try W.config("webcam")
        // Before: this user's gestures are too weak for the config.
        let jaw = W.track(4) { t, n in (1.0..<2.5).contains(t) ? [.jawOpen: 0.45 + n.jitter(0.02)] : [:] }
        let wink = W.track(3) { t, n in (1.0..<1.6).contains(t) ? [.eyeBlinkRight: 0.30 + n.jitter(0.02), .eyeBlinkLeft: 0.14] : [:] }
        #expect(!W.gestures(jaw, webcam).contains("activate"))

        var run = Self.run(webcam)
        Self.feed(&run, Self.session)
        #expect(run.isDone && run.problem == nil, "\(run.problem ?? "")")
        #expect(run.peaks.map(\.count) == [2, 2])
        let fitted = try run.fit().get()
        let press = Dictionary(uniqueKeysWithValues: fitted.map { ($0.name, $0.press) })
        let release = Dictionary(uniqueKeysWithValues: fitted.map { ($0.name, $0.release) })
        // Halfway between this user's neutral face and the weaker performance.
        #expect(abs((press["activate"] ?? 0) - 0.25) < 0.04, "\(fitted)")
        #expect(abs((press["back"] ?? 0) - 0.09) < 0.03, "\(fitted)")
        for t in fitted { #expect(t.release < t.press) }
        #expect((release["activate"] ?? 1) > 0.05)

        var calibrated = webcam
        calibrated.gestures = GestureThreshold.apply(fitted, to: webcam.gestures)
        #expect(W.gestures(jaw, calibrated).filter { $0 == "activate" }.count == 1)
        #expect(W.gestures(wink, calibrated).filter { $0 == "back" }.count == 1)
        // Still not: symmetric blinks, looking down, talking.
        let blinks = W.track(6) { t, n in
            t.truncatingRemainder(dividingBy: 1.5) < 0.3 ? [.eyeBlinkLeft: 0.9 + n.jitter(0.05), .eyeBlinkRight: 0.9 + n.jitter(0.05)] : [:]
        }
        let lookDown = W.track(6) { t, n in
            (1.0..<4.0).contains(t) ? [.eyeBlinkLeft: 0.6 + n.jitter(0.05), .eyeBlinkRight: 0.6 + n.jitter(0.05)] : [:]
        }
        #expect(!W.gestures(blinks, calibrated).contains("back"))
        #expect(!W.gestures(lookDown, calibrated).contains("back"))
        #expect(!W.gestures(W.talking, calibrated).contains("activate"))
    }

    /// Issue 32: a user whose deliberate opening rises slowly (0.6 s to the top, an "O", reaching only 0.62) and
    /// holds 0.7 s past the config's press — the webcam config wants a rise within 0.4 s and a hold of 0.9 s, so
    /// it takes none. The calibration learns this user's thresholds and hold; the rhythm guard still keeps
    /// talking out.
    @Test func theCalibrationLearnsASlowShortRhythmAndTalkingStaysOut() throws {
        let webcam = try W.config("webcam")
        /// One "O": a rise over 0.6 s to 0.62, held 0.7 s, let go.
        func o(_ t: Double, from t0: Double, _ n: inout W.Noise) -> [BlendShape: Float]? {
            let s = t - t0
            guard s >= 0, s < 1.45 else { return nil }
            let v = s < 0.6 ? 0.62 * s / 0.6 : s < 1.3 ? 0.62 : 0.62 * (1 - (s - 1.3) / 0.15)
            return [.jawOpen: Float(v) + n.jitter(0.01)]
        }
        let use = W.track(6) { t, n in o(t, from: 2.0, &n) ?? [:] }
        #expect(!W.gestures(use, webcam).contains("activate"), "the config takes this user's opening as it is")

        var run = Self.run(webcam)
        Self.feed(&run, W.track(20) { t, n in
            o(t, from: 3.5, &n) ?? o(t, from: 5.6, &n)
                ?? ((8.0..<8.6).contains(t) || (9.6..<10.2).contains(t) ? [.eyeBlinkRight: 0.30, .eyeBlinkLeft: 0.14] : [:])
        })
        #expect(run.isDone && run.problem == nil, "\(run.problem ?? "")")
        let fitted = try run.fit().get()
        let activate = try #require(fitted.first { $0.name == "activate" })
        // Its own press (halfway to its weaker performance) makes the slow rise quick enough; its hold is what
        // the shorter of its two performances still makes.
        #expect(activate.hold.map { $0 < 0.9 && $0 >= GestureCalibrationRun.minimumHold } == true, "\(activate)")
        var calibrated = webcam
        calibrated.gestures = GestureThreshold.apply(fitted, to: webcam.gestures)
        #expect(W.gestures(use, calibrated).filter { $0 == "activate" }.count == 1)
        #expect(!W.gestures(W.talking, calibrated).contains("activate"), "talking never rests before it rises")
    }

    @Test func aPerformanceBeforeThePromptWasSeenDoesNotCount() throws {
        var run = Self.run(try W.config("webcam"))
        // The jaw is already open as the first prompt appears (3 s) and stays so: no rest, no performance;
        // then two clear ones.
        Self.feed(&run, W.track(12) { t, n in
            (2.95..<3.6).contains(t) || (4.2..<5.0).contains(t) || (5.6..<6.4).contains(t) ? [.jawOpen: 0.7 + n.jitter(0.02)] : [:]
        })
        #expect(run.peaks[0].count == 2)
        #expect(run.traces[0].allSatisfy { $0.first.map { $0.t >= 3.6 } ?? false }, "the open held over the prompt was not counted")
        // Each performance's frames start at its own rest.
        #expect(run.traces[0].allSatisfy { $0.first.map { $0.v < 0.2 } ?? false })
    }

    @Test func aFaceLostMidwayIsRefused() throws {
        var run = Self.run(try W.config("webcam"))
        var items = Self.session
        items.insert(.frame(.noFace(at: 5.5), nil), at: items.count / 2)
        Self.feed(&run, items)
        guard case .failure(let p) = run.fit() else { Issue.record("a lost face must refuse the calibration"); return }
        #expect(p.message.contains("face was lost"), "\(p)")
    }

    @Test func keepingStillStopsTheRunAfterTwoGesturesUnseen() throws {
        var run = Self.run(try W.config("webcam"))
        // Neutral, then nothing: neither the jaw nor the wink comes within its time.
        Self.feed(&run, W.track(20) { _, _ in [:] })
        #expect(run.isDone && run.skipped == [0, 1])
        guard case .failure(let p) = run.fit() else { Issue.record("must be refused"); return }
        #expect(p.message == "no gesture was seen for 12 s, so the calibration stopped")
    }

    @Test func aGestureTheTrackerCannotMakeIsSkippedAndTheRestCalibrated() throws {
        let webcam = try W.config("webcam")
        // The default keymap's tongue commit, asked of a webcam face that has no tongue, between jaw and wink.
        var asked = Self.run(webcam).gestures
        asked.insert(.init(name: "commit", signal: ShapeSignal([.tongueOut]), press: 0.5, release: 0.3), at: 1)
        var run = GestureCalibrationRun(gestures: asked)
        // Jaw twice, six quiet seconds for the tongue, then the wink twice.
        Self.feed(&run, W.track(20) { t, n in
            switch t {
            case 3.4..<4.6, 5.2..<6.4: return [.jawOpen: 0.45 + n.jitter(0.02)]
            case 14.0..<14.6, 15.5..<16.1: return [.eyeBlinkRight: 0.30 + n.jitter(0.02), .eyeBlinkLeft: 0.14]
            default: return [:]
            }
        })
        #expect(run.skipped == [1])
        let fitted = try run.fit().get()
        #expect(fitted.map(\.name) == ["activate", "back"])
    }

    @Test func aPerformanceTooWeakToTellFromTheNeutralFaceIsRefused() throws {
        var run = Self.run(try W.config("webcam"))
        // The jaw rises about 0.11 above the neutral face, then 0.10: seen, but too close to it to tune by.
        let weak = W.track(12) { t, n in
            switch t {
            case 3.4..<4.2: return [.jawOpen: 0.16]
            case 5.0..<6.0: return [.jawOpen: 0.15]
            case 7.0..<7.4, 8.5..<8.9: return [.eyeBlinkRight: 0.30, .eyeBlinkLeft: 0.14]
            default: return [:]
            }
        }
        Self.feed(&run, weak)
        guard case .failure(let p) = run.fit() else { Issue.record("must be refused: \(run.peaks)"); return }
        #expect(p.message.hasPrefix("activate rose only 0.1"), "\(p)")
    }

    @Test func applyingTouchesOnlyTheNamedThresholdGestures() throws {
        let webcam = try W.config("webcam")
        let out = GestureThreshold.apply([GestureThreshold(name: "activate", press: 0.3, release: 0.1),
                                          GestureThreshold(name: "dwell", press: 0.3, release: 0.1),
                                          GestureThreshold(name: "nonesuch", press: 0.3, release: 0.1)], to: webcam.gestures)
        for (a, b) in zip(webcam.gestures, out) {
            if a.name == "activate", case .threshold(let t) = b.kind {
                #expect(t.press == 0.3 && t.release == 0.1)
            } else {
                #expect(a == b)
            }
        }
    }
}
