import Config
import Foundation
import Testing
import TrackingCore

/// The webcam config (config/webcam.toml) on constructed MediaPipe-shaped tracks with the properties measured on
/// real faces (../shared/data/README.md): talking crosses jawOpen 0.5 often and sometimes for 0.6-0.8 s; a real
/// wink reads 0.35-0.40 with the open eye at 0.10-0.16; looking down raises both eyes to 0.5-0.65; full blinks
/// are symmetric and last at most 0.45 s. Frames at 30 fps, as a webcam gives them.
struct WebcamGestureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func config(_ name: String) throws -> PipelineSettings {
        let path = root.appendingPathComponent("config/\(name).toml").path
        return try GestureConfig.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
    }

    /// A small deterministic generator for noise.
    struct Noise {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        mutating func jitter(_ amount: Double) -> Float { Float((next() - 0.5) * 2 * amount) }
    }

    /// Frames from `shape(t)`: blend values per time, 30 fps, `seconds` long.
    static func track(_ seconds: Double, _ shape: (Double, inout Noise) -> [BlendShape: Float]) -> [DecodedItem] {
        var noise = Noise(state: 42)
        return (0..<Int(seconds * 30)).map { k in
            let t = Double(k) / 30
            var f = TrackingFrame(t: t)
            // A neutral face as MediaPipe reads it: eyes slightly closed, mouth nearly shut.
            f.blend[.eyeBlinkLeft] = 0.12 + noise.jitter(0.02)
            f.blend[.eyeBlinkRight] = 0.12 + noise.jitter(0.02)
            f.blend[.jawOpen] = 0.03 + noise.jitter(0.02)
            for (s, v) in shape(t, &noise) { f.blend[s] = v }
            return .frame(f, nil)
        }
    }

    static func gestures(_ items: [DecodedItem], _ settings: PipelineSettings) -> [String] {
        var p = Pipeline(settings)
        return items.flatMap { p.step($0) }.map(\.name)
    }

    /// Speech: syllables at about 4 per second; every few seconds a long vowel holds the jaw past 0.5 for 0.7 s,
    /// right after other syllables.
    static let talking = track(30) { t, n in
        let phase = t.truncatingRemainder(dividingBy: 4)
        if phase > 2.0 && phase < 2.7 { return [.jawOpen: 0.62 + n.jitter(0.08)] }
        let syllable = abs(sin(t * .pi * 4))   // 4 openings a second
        return [.jawOpen: Float(0.15 + 0.5 * syllable) + n.jitter(0.05)]
    }

    @Test func talkingNeverActivatesWithTheWebcamConfig() throws {
        let webcam = try Self.config("webcam")
        #expect(!Self.gestures(Self.talking, webcam).contains("activate"))
        // The same speech through the threshold-and-hold config does activate: the rhythm is what tells.
        #expect(Self.gestures(Self.talking, try Self.config("gestures")).contains("activate"))
    }

    @Test func aDeliberateOpeningFromAStillMouthActivatesOnce() throws {
        let opening = Self.track(4) { t, n in
            guard t >= 1.5, t < 2.8 else { return [:] }
            // Straight up in about 0.15 s, then held.
            return [.jawOpen: Float(min(0.8, (t - 1.5) / 0.15 * 0.8)) + n.jitter(0.03)]
        }
        #expect(Self.gestures(opening, try Self.config("webcam")) == ["activate"])
    }

    @Test func aWeakRealWinkGoesBackButLookingDownAndBlinkingDoNot() throws {
        let webcam = try Self.config("webcam")
        let wink = Self.track(3) { t, n in
            guard t >= 1, t < 1.7 else { return [:] }
            return [.eyeBlinkRight: 0.38 + n.jitter(0.02), .eyeBlinkLeft: 0.13 + n.jitter(0.02)]
        }
        #expect(Self.gestures(wink, webcam) == ["back"])
        // The default config's absolute threshold misses it.
        #expect(!Self.gestures(wink, try Self.config("gestures")).contains("back"))

        let lookingDown = Self.track(4) { t, n in
            guard t >= 1, t < 3 else { return [:] }
            return [.eyeBlinkRight: 0.6 + n.jitter(0.05), .eyeBlinkLeft: 0.58 + n.jitter(0.05)]
        }
        #expect(Self.gestures(lookingDown, webcam).isEmpty)

        let blinks = Self.track(4) { t, n in
            let inBlink = (1.0..<1.35).contains(t) || (2.5..<2.9).contains(t)
            guard inBlink else { return [:] }
            let v = 0.9 + n.jitter(0.05)
            return [.eyeBlinkRight: v, .eyeBlinkLeft: v + n.jitter(0.04)]
        }
        #expect(!Self.gestures(blinks, webcam).contains { ["back", "wink_left", "wink_right"].contains($0) })
    }

    @Test func calmNeedsRestBeforeAndAQuickRise() {
        let spec = ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: 0.1, calm: 0.4)
        func run(_ values: [(Double, Float)]) -> [Double] {
            var d = ThresholdDetector(spec)
            var b = BlendShapes()
            return values.compactMap { t, v in b[.jawOpen] = v; return d.step(b, at: t) }
        }
        let rested = (0..<15).map { (Double($0) / 30, Float(0)) } + (15..<30).map { (Double($0) / 30, Float(0.8)) }
        #expect(run(rested) == [0.5])
        // Open, close for only 0.2 s, open again: the second opening is not from rest.
        let shortRest = [(0.0, Float(0)), (0.5, 0), (0.6, 0.8), (0.7, 0.8), (0.8, 0.8), (0.9, 0.1), (1.0, 0.1),
                         (1.1, 0.8), (1.2, 0.8), (1.3, 0.8)]
        #expect(run(shortRest) == [0.6])
        // A slow climb through the band (0.3…0.5) for 0.6 s is the rhythm of speech, not a deliberate opening.
        let slow = [(0.0, Float(0)), (0.5, 0), (0.6, 0.35), (0.9, 0.45), (1.2, 0.6), (1.3, 0.7), (1.4, 0.7)]
        #expect(run(slow).isEmpty)
    }

    @Test func webcamConfigAndKeymapAreValidAndMatch() throws {
        let webcam = try Self.config("webcam")
        #expect(webcam.gestures.contains { $0.name == "pucker" })
        #expect(!webcam.gestures.contains { g in
            if case .threshold(let s) = g.kind { return s.signal.shapes.contains(.tongueOut) }
            return false
        })
    }
}
