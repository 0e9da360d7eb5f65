import Foundation
import TrackingCore

/// Decodes OpenSeeFace's UDP datagrams (port 11573): 1,785 little-endian bytes per face, faces back to back.
///
/// Per face: f64 time, i32 face id, f32 width, f32 height, f32 right and left eye openness, u8 success, f32 PnP
/// error, quaternion (4 × f32), euler (3 × f32, degrees), translation (3 × f32), 68 landmark confidences, 68 × 2
/// landmarks, 70 × 3 points, then 14 features: eye_l, eye_r, eyebrow steepness/updown/quirk (left, right), mouth
/// corner updown/inout (left, right), mouth_open, mouth_wide. Layout as `facetracker.py` packs it.
///
/// What the frame gets: eye openness → eyeBlinkLeft/Right; mouth_open (self-calibrating −1…1) → jawOpen; mouth
/// corners → smile and frown; eyebrows → brow shapes; euler → head yaw, pitch and roll in radians (x is pitch
/// and wraps at ±180°, y is yaw, z − 90° is roll). Its eye values barely move with model 0 or 1, so it is
/// treated as a head-pose and mouth source.
public enum OpenSeeFace {
    public static let faceSize = 1785
    public static let defaultPort: UInt16 = 11573
    /// The shapes this source produces (the rest stay 0).
    public static let shapes: Set<BlendShape> = [
        .eyeBlinkLeft, .eyeBlinkRight, .jawOpen, .mouthSmileLeft, .mouthSmileRight, .mouthFrownLeft,
        .mouthFrownRight, .browInnerUp, .browOuterUpLeft, .browOuterUpRight, .browDownLeft, .browDownRight,
        .mouthStretchLeft, .mouthStretchRight,
    ]

    /// Whether a datagram looks like OpenSeeFace's: a whole number of faces, a plausible time and a 0/1
    /// success byte in each.
    public static func looksLike(_ d: UnsafeRawBufferPointer) -> Bool {
        guard !d.isEmpty, d.count % faceSize == 0 else { return false }
        for k in stride(from: 0, to: d.count, by: faceSize) {
            let t = Double(bitPattern: UInt64(littleEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
            guard t.isFinite, t >= 0, t < 1e12, d[k + 28] <= 1 else { return false }
        }
        return true
    }

    /// Decodes one datagram; with several faces, the one with the lowest id (or `faceID` if given) is used.
    public static func decode(_ d: UnsafeRawBufferPointer, index: Int, faceID: Int32? = nil) -> DecodedItem {
        let pos = SourcePosition(.packet, index)
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        guard !d.isEmpty, d.count % faceSize == 0 else {
            return bad("OpenSeeFace datagram of \(d.count) bytes, expected a multiple of \(faceSize)")
        }
        var chosen: Int?
        var chosenID = Int32.max
        for k in stride(from: 0, to: d.count, by: faceSize) {
            let id = Int32(littleEndian: d.loadUnaligned(fromByteOffset: k + 8, as: Int32.self))
            if let want = faceID { if id == want { chosen = k; chosenID = id; break } else { continue } }
            if id < chosenID { chosen = k; chosenID = id }
        }
        guard let base = chosen else {
            return bad("no face with id \(faceID ?? 0) among \(d.count / faceSize) faces")
        }
        func f32(_ o: Int) -> Double {
            Double(Float(bitPattern: UInt32(littleEndian: d.loadUnaligned(fromByteOffset: base + o, as: UInt32.self))))
        }
        let t = Double(bitPattern: UInt64(littleEndian: d.loadUnaligned(fromByteOffset: base, as: UInt64.self)))
        if let p = FrameTime.problem(t) { return bad(p) }
        // The tracker stamps faces with the wall clock: a negative time is damage, as `looksLike` says.
        guard t >= 0 else { return bad("time \(t) s is negative") }
        guard d[base + 28] <= 1 else { return bad("success byte \(d[base + 28]), expected 0 or 1") }
        // A face the tracker could not fit (success 0): its points are whatever the last fit left, so no
        // usable face.
        if d[base + 28] == 0 { return .frame(.noFace(at: t), pos) }
        let rightOpen = f32(20), leftOpen = f32(24)
        let euler = (x: f32(49), y: f32(53), z: f32(57))
        // Offsets: time 0, id 8, size 12, eye openness 20 and 24, success 28, PnP error 29, quaternion 33,
        // euler 49, translation 61; features follow 73 + 68×4 + 68×8 + 70×12 bytes.
        let features = 1729
        let feature = (0..<14).map { f32(features + 4 * $0) }
        let values = [rightOpen, leftOpen, euler.x, euler.y, euler.z] + feature
        guard values.allSatisfy(\.isFinite) else { return bad("a value is not a finite number") }
        var frame = TrackingFrame(t: t)
        func set(_ s: BlendShape, _ v: Double) { frame.blend[s] = Float(min(1, max(0, v))) }
        set(.eyeBlinkRight, 1 - rightOpen)
        set(.eyeBlinkLeft, 1 - leftOpen)
        set(.jawOpen, feature[12])
        // Mouth corners: up is a smile, down a frown; inout widens the mouth.
        set(.mouthSmileLeft, feature[8]); set(.mouthFrownLeft, -feature[8])
        set(.mouthSmileRight, feature[10]); set(.mouthFrownRight, -feature[10])
        set(.mouthStretchLeft, feature[13]); set(.mouthStretchRight, feature[13])
        // Eyebrows: updown raises (outer and inner) or lowers them.
        set(.browOuterUpLeft, feature[3]); set(.browOuterUpRight, feature[6])
        set(.browInnerUp, (feature[3] + feature[6]) / 2)
        set(.browDownLeft, -feature[3]); set(.browDownRight, -feature[6])
        func wrap(_ deg: Double) -> Double {
            var a = deg.truncatingRemainder(dividingBy: 360)
            if a > 180 { a -= 360 } else if a < -180 { a += 360 }
            return a
        }
        // Pitch is x measured from 180° (the camera faces the user). A level head reads near 0 only roughly:
        // model 0 reads a frontal, level photo at about -19°, which the pointer's centre and calibration absorb.
        let radians = Double.pi / 180
        frame.head = HeadPose(yaw: wrap(euler.y) * radians, pitch: wrap(euler.x + 180) * radians,
                              roll: wrap(euler.z - 90) * radians)
        return .frame(frame, pos)
    }

    /// Encodes a face as `facetracker.py` does (for tests and the bench); `rightOpen`/`leftOpen` are openness.
    public static func encode(t: Double, id: Int32 = 0, success: Bool = true, rightOpen: Float, leftOpen: Float,
                              euler: (Float, Float, Float), features: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(faceSize)
        func f(_ v: Float) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        withUnsafeBytes(of: t.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: id.littleEndian) { out.append(contentsOf: $0) }
        f(640); f(480); f(rightOpen); f(leftOpen)
        out.append(success ? 1 : 0)
        f(0)
        for v: Float in [0, 0, 0, 1] { f(v) }
        f(euler.0); f(euler.1); f(euler.2)
        for v: Float in [0, 0, 0] { f(v) }
        for _ in 0..<(68 + 68 * 2 + 70 * 3) { f(0) }
        for k in 0..<14 { f(k < features.count ? features[k] : 0) }
        return out
    }
}
