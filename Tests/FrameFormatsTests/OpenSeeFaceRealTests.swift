import FrameFormats
import Foundation
import Testing
import TrackingCore

/// Datagrams the real OpenSeeFace tracker sent (model 0, the astronaut photo rolling ±8°), decoded as received.
///
/// Fixtures/openseeface/README.md says how they were recorded and what the raw values are.
struct OpenSeeFaceRealTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openseeface/astronaut-model0.bin")
    /// Datagrams in the recording: one per frame of the 60-frame video.
    static let count = 60

    /// The recording split into its datagrams (one face of 1,785 bytes each).
    static func datagrams() throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: fixture))
        try #require(bytes.count == count * OpenSeeFace.faceSize)
        return stride(from: 0, to: bytes.count, by: OpenSeeFace.faceSize).map {
            Array(bytes[$0..<$0 + OpenSeeFace.faceSize])
        }
    }

    /// One datagram as raw fields, read at the offsets `facetracker.py` packs them.
    struct Raw {
        let bytes: [UInt8]
        func f64(_ o: Int) -> Double {
            bytes.withUnsafeBytes { Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt64.self))) }
        }
        func f32(_ o: Int) -> Float {
            bytes.withUnsafeBytes { Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt32.self))) }
        }
        var time: Double { f64(0) }
        var faceID: Int32 { bytes.withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: Int32.self)) } }
        var size: (Float, Float) { (f32(12), f32(16)) }
        var openness: (right: Float, left: Float) { (f32(20), f32(24)) }
        var success: UInt8 { bytes[28] }
        var quaternion: [Float] { (0..<4).map { f32(33 + 4 * $0) } }
        /// Feature `k` of the 14 (12 is mouth_open, 13 mouth_wide).
        func feature(_ k: Int) -> Float { f32(1729 + 4 * k) }
    }

    /// Decodes one datagram as the live source does, `format` `.auto` recognising it first.
    static func decode(_ bytes: [UInt8], format: FrameFormat = .auto, index: Int = 1) -> [DecodedItem] {
        var d = LiveDecoder(format: format)
        return bytes.withUnsafeBytes { d.decode($0, index: index, arrival: 0) }
    }

    static func frames() throws -> [TrackingFrame] {
        try datagrams().enumerated().map { k, bytes in
            let items = decode(bytes, index: k + 1)
            guard items.count == 1, case .frame(let f, _) = items[0] else {
                Issue.record("datagram \(k + 1) did not decode to one frame: \(items)")
                return TrackingFrame.noFace(at: .nan)
            }
            return f
        }
    }

    @Test func theLayoutIsAsTheDecoderReadsIt() throws {
        let raws = try Self.datagrams().map(Raw.init)
        #expect(raws.count == 60)
        for (k, r) in raws.enumerated() {
            #expect(r.faceID == 0, "datagram \(k + 1)")
            // The video is 512 × 512; a fitted face has success 1 and a unit rotation quaternion.
            #expect(r.size.0 == 512 && r.size.1 == 512, "datagram \(k + 1)")
            #expect(r.success == 1, "datagram \(k + 1)")
            let norm = r.quaternion.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(norm - 1) < 1e-4, "datagram \(k + 1): quaternion norm \(norm)")
        }
    }

    @Test func everyDatagramIsRecognisedAndDecodedToAFace() throws {
        var live = LiveDecoder()
        for (k, bytes) in try Self.datagrams().enumerated() {
            #expect(bytes.withUnsafeBytes { LiveDecoder.recognise($0) } == .openseeface, "datagram \(k + 1)")
            let items = bytes.withUnsafeBytes { live.decode($0, index: k + 1, arrival: 0) }
            guard items.count == 1, case .frame(let f, let pos) = items[0] else {
                Issue.record("datagram \(k + 1): \(items)")
                continue
            }
            #expect(live.seen == .openseeface)
            #expect(pos == SourcePosition(.packet, k + 1))
            #expect(f.face && f.head != nil)
            #expect(f.t == Raw(bytes: bytes).time)
            // Asking for face 0 by id gives the same frame; there is no face 1.
            let byID = bytes.withUnsafeBytes { OpenSeeFace.decode($0, index: k + 1, faceID: 0) }
            #expect(byID == items[0])
            let missing = bytes.withUnsafeBytes { OpenSeeFace.decode($0, index: k + 1, faceID: 1) }
            guard case .malformed(let issue) = missing else {
                Issue.record("face 1 of datagram \(k + 1) decoded: \(missing)")
                continue
            }
            #expect(issue.message == "no face with id 1 among 1 faces")
        }
    }

    @Test func timestampsIncreaseOnTheWallClock() throws {
        let t = try Self.frames().map(\.t)
        #expect(zip(t, t.dropFirst()).allSatisfy { $0 < $1 })
        // time.time() when recorded (after 2023), and the unpaced run over 60 frames took under a second.
        #expect(t.allSatisfy { $0 > 1.7e9 })
        let span = try #require(t.last) - (try #require(t.first))
        #expect(span > 0.1 && span < 5, "span \(span) s")
    }

    @Test func headRollFollowsTheVideoAndYawAndPitchBarelyMove() throws {
        let heads = try Self.frames().map { try #require($0.head) }
        let deg = 180 / Double.pi
        let yaw = heads.map { $0.yaw * deg }, pitch = heads.map { $0.pitch * deg }, roll = heads.map { $0.roll * deg }
        for a in yaw + pitch + roll { #expect(a.isFinite && abs(a) < 25, "\(a)°") }
        // The photo only turns in its own plane: yaw and pitch stay within a few degrees (recorded −8.1…−1.5°
        // and −20.5…−17.7°; model 0 reads this level, frontal face as pitched about −19°).
        #expect(try Self.span(yaw) < 10)
        #expect(try Self.span(pitch) < 5)
        #expect(pitch.allSatisfy { (-25 ... -12).contains($0) })
        // Roll follows the video's 8° · sin(2π k / 59) turn, counter-clockwise first, which tilts the head toward
        // the subject's right shoulder: roll > 0, as the webcam bridge reads it (recorded r 0.999, slope 0.96).
        #expect(try Self.span(roll) > 12)
        let angle = (0..<roll.count).map { 8 * sin(2 * Double.pi * Double($0) / Double(roll.count - 1)) }
        let fit = Self.line(angle, roll)
        #expect(fit.r > 0.98, "r \(fit.r)")
        #expect((0.8...1.2).contains(fit.slope), "slope \(fit.slope)")
    }

    @Test func blendValuesComeFromTheRawFeaturesClamped() throws {
        let raws = try Self.datagrams().map(Raw.init)
        let frames = try Self.frames()
        for (r, f) in zip(raws, frames) {
            for s in BlendShape.allCases {
                #expect((0...1).contains(f.blend[s]), "\(s) \(f.blend[s])")
                if !OpenSeeFace.shapes.contains(s) { #expect(f.blend[s] == 0, "\(s)") }
            }
            // A photo never blinks: model 0 reports the eyes fully open in every datagram.
            #expect(r.openness.right == 1 && r.openness.left == 1)
            #expect(f.blend[.eyeBlinkLeft] == 0 && f.blend[.eyeBlinkRight] == 0)
            // mouth_open is self-calibrating −1…1 and here never rises above its median; jawOpen is its clamp.
            #expect(r.feature(12) <= 0)
            #expect(f.blend[.jawOpen] == 0)
        }
        // The clamp is exercised: mouth_open and mouth_wide reach about −0.8 as the tracker calibrates.
        #expect(try #require(raws.map { $0.feature(12) }.min()) < -0.5)
        #expect(try #require(raws.map { $0.feature(13) }.min()) < -0.5)
    }

    @Test func damagedCopiesAreReportedNeverDecoded() throws {
        let good = try Self.datagrams()[30]
        var badSuccess = good
        badSuccess[28] ^= 0xFF
        var badTime = good
        badTime[7] = 0x7F  // the time's sign and top exponent bits: about 1e300 s
        var negativeTime = good
        negativeTime[7] ^= 0x80  // the sign bit alone: a wall-clock time below zero
        let cases: [(String, [UInt8], String)] = [
            ("first 1000 bytes", Array(good.prefix(1000)), "OpenSeeFace datagram of 1000 bytes, expected a multiple of 1785"),
            ("one byte short", Array(good.dropLast()), "OpenSeeFace datagram of 1784 bytes, expected a multiple of 1785"),
            ("one byte over", good + [0], "OpenSeeFace datagram of 1786 bytes, expected a multiple of 1785"),
            ("success byte flipped", badSuccess, "success byte 254, expected 0 or 1"),
            ("time exponent overwritten", badTime, "is out of range"),
            ("time sign flipped", negativeTime, "is negative"),
        ]
        for (name, bytes, message) in cases {
            for format in [FrameFormat.openseeface, .auto] {
                let items = Self.decode(bytes, format: format, index: 31)
                guard items.count == 1, case .malformed(let issue) = items[0] else {
                    Issue.record("\(name) as \(format): \(items)")
                    continue
                }
                #expect(issue.description.hasPrefix("packet 31: "), "\(name)")
                // Told the format, the decoder says what is wrong; recognising, it says the format is unknown.
                if format == .openseeface {
                    #expect(issue.message.contains(message), "\(name): \(issue.message)")
                } else {
                    #expect(issue.message.hasPrefix("not a known format"), "\(name): \(issue.message)")
                }
            }
        }
    }

    /// How far apart the largest and smallest of `v` are.
    static func span(_ v: [Double]) throws -> Double { try #require(v.max()) - (try #require(v.min())) }

    /// The least-squares line of `y` on `x`, and their correlation.
    static func line(_ x: [Double], _ y: [Double]) -> (slope: Double, r: Double) {
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        let sxy = zip(x, y).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        let sxx = x.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }, syy = y.reduce(0) { $0 + ($1 - my) * ($1 - my) }
        return (sxy / sxx, sxy / (sxx * syy).squareRoot())
    }
}
