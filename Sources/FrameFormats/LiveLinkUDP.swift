import CZlib
import TrackingCore

/// Decodes Live Link Face UDP packets (protocol version 6, big-endian).
///
/// `u8 6 · i32 len · DeviceId · i32 len · SubjectName · i32 frame · f32 subframe · i32 fps-num · i32 fps-den ·
/// u8 count(61) · count × f32`. A packet that ends after the frame-rate fields means no face is tracked.
public enum LiveLinkUDP {
    public static let version: UInt8 = 6
    /// The 61 values in packet order: 52 blend shapes, head yaw/pitch/roll, then each eye's yaw/pitch/roll.
    public static let shapeOrder: [BlendShape] = [
        .eyeBlinkLeft, .eyeLookDownLeft, .eyeLookInLeft, .eyeLookOutLeft, .eyeLookUpLeft, .eyeSquintLeft, .eyeWideLeft,
        .eyeBlinkRight, .eyeLookDownRight, .eyeLookInRight, .eyeLookOutRight, .eyeLookUpRight, .eyeSquintRight,
        .eyeWideRight, .jawForward, .jawLeft, .jawRight, .jawOpen, .mouthClose, .mouthFunnel, .mouthPucker,
        .mouthLeft, .mouthRight, .mouthSmileLeft, .mouthSmileRight, .mouthFrownLeft, .mouthFrownRight,
        .mouthDimpleLeft, .mouthDimpleRight, .mouthStretchLeft, .mouthStretchRight, .mouthRollLower, .mouthRollUpper,
        .mouthShrugLower, .mouthShrugUpper, .mouthPressLeft, .mouthPressRight, .mouthLowerDownLeft,
        .mouthLowerDownRight, .mouthUpperUpLeft, .mouthUpperUpRight, .browDownLeft, .browDownRight, .browInnerUp,
        .browOuterUpLeft, .browOuterUpRight, .cheekPuff, .cheekSquintLeft, .cheekSquintRight, .noseSneerLeft,
        .noseSneerRight, .tongueOut,
    ]
    static let maxNameLength = 4096

    /// Decodes one datagram; `index` (from 1) names it in messages.
    public static func decode<C: Collection<UInt8>>(_ packet: C, index: Int) -> DecodedItem {
        let pos = SourcePosition(.packet, index)
        var r = Reader(Array(packet))
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        guard let v = r.u8() else { return bad("empty packet") }
        guard v == version else { return bad("protocol version \(v), expected \(version)") }
        for field in ["device id", "subject name"] {
            guard let len = r.i32() else { return bad("truncated before the \(field)") }
            guard len >= 0, len <= maxNameLength else { return bad("\(field) length \(len) is out of range") }
            guard r.skip(Int(len)) else { return bad("truncated inside the \(field)") }
        }
        guard let frameNo = r.i32(), let sub = r.f32(), let num = r.i32(), let den = r.i32() else {
            return bad("truncated inside the frame time")
        }
        guard num > 0, den > 0 else { return bad("frame rate \(num)/\(den) is not positive") }
        let t = (Double(frameNo) + Double(sub)) * Double(den) / Double(num)
        if let p = FrameTime.problem(t) { return bad("\(p), from frame \(frameNo) + \(sub) at \(num)/\(den) fps") }
        if r.atEnd { return .frame(.noFace(at: t), pos) }
        guard let count = r.u8() else { return bad("truncated before the value count") }
        guard count >= 52 else { return bad("value count \(count), expected 61") }
        var frame = TrackingFrame(t: t)
        var values: [Float] = []
        values.reserveCapacity(Int(count))
        for k in 0..<Int(count) {
            guard let f = r.f32() else { return bad("truncated at value \(k + 1) of \(count)") }
            values.append(f)
        }
        guard r.atEnd else { return bad("\(r.remaining) unexpected bytes after the values") }
        for (k, shape) in shapeOrder.enumerated() { frame.blend[shape] = values[k] }
        if values.count >= 61 {
            frame.head = HeadPose(yaw: Double(values[52]), pitch: Double(values[53]), roll: Double(values[54]))
            frame.eyes = EyeAngles(leftYaw: Double(values[55]), leftPitch: Double(values[56]),
                                   rightYaw: Double(values[58]), rightPitch: Double(values[59]))
        }
        return .frame(frame, pos)
    }

    /// Encodes a frame as a version-6 packet (used by tests and the demo's live sender).
    public static func encode(_ f: TrackingFrame, fps: Int32 = 60, device: String = "handsfree",
                              subject: String = "test") -> [UInt8] {
        var out: [UInt8] = [version]
        func i32(_ v: Int32) { withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) } }
        func f32(_ v: Float) { withUnsafeBytes(of: v.bitPattern.bigEndian) { out.append(contentsOf: $0) } }
        for s in [device, subject] { i32(Int32(s.utf8.count)); out.append(contentsOf: s.utf8) }
        let frames = f.t * Double(fps)
        // Int64(_:) traps on NaN and past ±9.2e18; the packet's frame number is an Int32 anyway.
        let whole = frames.isNaN ? 0 : min(max(frames.rounded(.down), Double(Int32.min)), Double(Int32.max))
        i32(Int32(whole))
        f32(Float(frames - whole))
        i32(fps); i32(1)
        guard f.face else { return out }
        out.append(61)
        for s in shapeOrder { f32(f.blend[s]) }
        let h = f.head ?? HeadPose(yaw: 0, pitch: 0, roll: 0)
        let e = f.eyes ?? EyeAngles(leftYaw: 0, leftPitch: 0, rightYaw: 0, rightPitch: 0)
        for v in [h.yaw, h.pitch, h.roll, e.leftYaw, e.leftPitch, 0, e.rightYaw, e.rightPitch, 0] { f32(Float(v)) }
        return out
    }
}

/// Reads big-endian fields from a byte array without ever reading past its end.
struct Reader {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }
    var atEnd: Bool { i >= b.count }
    var remaining: Int { b.count - i }
    mutating func u8() -> UInt8? { guard i < b.count else { return nil }; defer { i += 1 }; return b[i] }
    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { i += 4 }
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
    mutating func f32() -> Float? { u32().map { Float(bitPattern: $0) } }
    mutating func skip(_ n: Int) -> Bool { guard n >= 0, remaining >= n else { return false }; i += n; return true }
    mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, remaining >= n else { return nil }
        defer { i += n }
        return b[i..<(i + n)]
    }
}

/// The `.gesichter` container of recorded Live Link Face packets:
/// gzip of `u8 version(6) · u32be count · count × (u32be length · raw UDP payload)`.
public enum GesichterContainer {
    /// The most a container may decompress to: a few minutes of packets are a few MB, 512 MB is hours.
    public static let maxDecompressedBytes = 512 << 20

    /// The packets in a container, plus a problem if it is damaged or cut short.
    ///
    /// The packets before the damage are kept, and the problem names the packet it hit and the byte of the
    /// file where decompression failed.
    public static func packets(_ data: [UInt8]) -> (packets: [[UInt8]], problem: String?) {
        packets(data, limit: maxDecompressedBytes)
    }

    static func packets(_ data: [UInt8], limit: Int) -> (packets: [[UInt8]], problem: String?) {
        let z = gunzip(data, limit: limit)
        if z.output.isEmpty || z.refused, let p = z.problem { return ([], p) }
        var r = Reader(z.output)
        // Where the compressed data went wrong; the container itself is read as far as it decompressed.
        func cut(_ what: String) -> String { z.problem.map { "\($0), \(what)" } ?? what }
        guard let v = r.u8() else { return ([], cut("empty container")) }
        guard v == LiveLinkUDP.version else { return ([], cut("container version \(v), expected 6")) }
        guard let count = r.u32() else { return ([], cut("truncated before the packet count")) }
        var out: [[UInt8]] = []
        for k in 0..<Int(count) {
            guard let len = r.u32() else {
                return (out, cut("truncated before packet \(k + 1) of \(count)"))
            }
            guard let p = r.bytes(Int(len)) else {
                return (out, cut("truncated inside packet \(k + 1) of \(count) (\(len) bytes)"))
            }
            out.append(Array(p))
        }
        if let p = z.problem { return (out, "\(p), after all \(count) packets: some of them may hold wrong values") }
        if !r.atEnd { return (out, "\(r.remaining) unexpected bytes after the \(count) packets") }
        return (out, nil)
    }

    /// Writes packets into a container.
    public static func encode(_ packets: [[UInt8]]) -> [UInt8] {
        var raw: [UInt8] = [LiveLinkUDP.version]
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { raw.append(contentsOf: $0) } }
        u32(UInt32(packets.count))
        for p in packets { u32(UInt32(p.count)); raw.append(contentsOf: p) }
        return gzip(raw)
    }

    /// Decompresses gzip data; on damage or past `limit` bytes, returns what came out before it and why.
    /// `refused` means the output must not be used at all (past the size limit).
    static func gunzip(_ data: [UInt8], limit: Int = maxDecompressedBytes)
        -> (output: [UInt8], problem: String?, refused: Bool) {
        guard data.count >= 2, data[0] == 0x1F, data[1] == 0x8B else { return ([], "not gzip data", true) }
        var strm = z_stream()
        guard inflateInit2_(&strm, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return ([], "zlib failed to start", true)
        }
        defer { inflateEnd(&strm) }
        var out: [UInt8] = []
        var input = data
        let chunk = 1 << 16
        var buf = [UInt8](repeating: 0, count: chunk)
        var status: Int32 = Z_OK
        var overLimit = false
        input.withUnsafeMutableBufferPointer { inp in
            strm.next_in = inp.baseAddress
            strm.avail_in = UInt32(inp.count)
            repeat {
                buf.withUnsafeMutableBufferPointer { o in
                    strm.next_out = o.baseAddress
                    strm.avail_out = UInt32(chunk)
                    status = inflate(&strm, Z_NO_FLUSH)
                    out.append(contentsOf: o[0..<(chunk - Int(strm.avail_out))])
                }
                if out.count > limit { overLimit = true; out.removeSubrange(limit...) }
            } while !overLimit && status == Z_OK && (strm.avail_in > 0 || strm.avail_out == 0)
        }
        let at = data.count - Int(strm.avail_in)
        if overLimit {
            return ([], "decompresses to more than \(limit >> 20) MB (the limit for a recording; a gzip bomb?), "
                + "refused at byte \(at) of \(data.count)", true)
        }
        switch status {
        case Z_STREAM_END:
            return (out, nil, false)
        case Z_OK, Z_BUF_ERROR:
            return (out, "gzip data ends early (cut off at byte \(data.count))", false)
        default:
            let reason = strm.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            // Damage is found where decompression fails; the output just before it may be garbled too,
            // which each packet's own checks then catch. A checksum mismatch is only found at the end.
            return (out, "corrupt gzip data at byte \(at) of \(data.count) (\(reason))", false)
        }
    }

    static func gzip(_ data: [UInt8]) -> [UInt8] {
        var strm = z_stream()
        guard deflateInit2_(&strm, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&strm) }
        var input = data
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&strm, UInt(data.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                strm.next_in = inp.baseAddress
                strm.avail_in = UInt32(inp.count)
                strm.next_out = o.baseAddress
                strm.avail_out = UInt32(o.count)
                _ = deflate(&strm, Z_FINISH)
                return o.count - Int(strm.avail_out)
            }
        }
        return Array(out[0..<produced])
    }
}

/// A Live Link Face UDP stream: each datagram is one packet.
public struct LiveLinkUDPDecoder: Sendable {
    public private(set) var packetIndex = 0
    public init() {}
    public mutating func decode<C: Collection<UInt8>>(_ datagram: C) -> DecodedItem {
        packetIndex += 1
        return LiveLinkUDP.decode(datagram, index: packetIndex)
    }
}
