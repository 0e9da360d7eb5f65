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
        // One concrete buffer, read in place: copying every packet into an array cost as much as reading it.
        if let item = packet.withContiguousStorageIfAvailable({ decode(buffer: $0, index: index) }) { return item }
        return Array(packet).withUnsafeBufferPointer { decode(buffer: $0, index: index) }
    }

    /// Where each value of a packet goes among the blend shapes, in packet order.
    private static let slots: [Int] = shapeOrder.map(\.rawValue)

    /// The two length-prefixed names at the start of a packet, as messages call them; one array made once,
    /// not a literal array allocated and freed at every packet.
    private static let nameFields = ["device id", "subject name"]

    /// `decode` on the packet's bytes.
    static func decode(buffer: UnsafeBufferPointer<UInt8>, index: Int) -> DecodedItem {
        let pos = SourcePosition(.packet, index)
        var r = Reader(buffer)
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        guard let v = r.u8() else { return bad("empty packet") }
        guard v == version else { return bad("protocol version \(v), expected \(version)") }
        for field in nameFields {
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
        let n = Int(count)
        guard r.remaining >= 4 * n else { return bad("truncated at value \(r.remaining / 4 + 1) of \(count)") }
        guard r.remaining == 4 * n else { return bad("\(r.remaining - 4 * n) unexpected bytes after the values") }
        // Every check is done: the values are all there, so they are read straight into their places.
        var blend = BlendShapes.restValues
        blend.withUnsafeMutableBufferPointer { blend in
            slots.withUnsafeBufferPointer { slots in r.f32s(into: blend, at: slots) }
        }
        var frame = TrackingFrame(t: t, blend: BlendShapes(values: blend) ?? BlendShapes())
        if n >= 61 {
            frame.head = HeadPose(yaw: Double(r.f32(at: 52)), pitch: Double(r.f32(at: 53)), roll: Double(r.f32(at: 54)))
            frame.eyes = EyeAngles(leftYaw: Double(r.f32(at: 55)), leftPitch: Double(r.f32(at: 56)),
                                   rightYaw: Double(r.f32(at: 58)), rightPitch: Double(r.f32(at: 59)))
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

/// Reads big-endian fields from a packet's bytes without ever reading past their end.
struct Reader {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0
    init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }
    var atEnd: Bool { i >= b.count }
    var remaining: Int { b.count - i }
    mutating func u8() -> UInt8? { guard i < b.count else { return nil }; defer { i += 1 }; return b[i] }
    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { i += 4 }
        return load(i)
    }
    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
    mutating func f32() -> Float? { u32().map { Float(bitPattern: $0) } }
    mutating func skip(_ n: Int) -> Bool { guard n >= 0, remaining >= n else { return false }; i += n; return true }
    /// The `k`th float from here, without moving; the caller has checked that `remaining` holds it.
    func f32(at k: Int) -> Float { Float(bitPattern: load(i + 4 * k)) }
    /// The first `slots.count` floats from here, without moving, each into `values[slots[k]]`; one check that
    /// they all lie inside the packet (which traps if not) stands for a check per float.
    func f32s(into values: UnsafeMutableBufferPointer<Float>, at slots: UnsafeBufferPointer<Int>) {
        precondition(i >= 0 && slots.count <= remaining / 4)
        guard let base = b.baseAddress else { return }
        let start = UnsafeRawPointer(base + i)
        for k in 0..<slots.count {
            values[slots[k]] = Float(bitPattern: UInt32(bigEndian: start.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self)))
        }
    }
    /// The big-endian u32 at byte `at`; a read outside the packet traps rather than read past it.
    private func load(_ at: Int) -> UInt32 {
        precondition(at >= 0 && at + 4 <= b.count)
        guard let base = b.baseAddress else { return 0 }
        return UInt32(bigEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
}

/// The `.gesichter` container of recorded Live Link Face packets:
/// gzip of `u8 version(6) · u32be count · count × (u32be length · raw UDP payload)`.
///
/// A container is decompressed and split into packets a chunk at a time (`scan`), so it costs one chunk and
/// one packet of memory however long the recording or however far a bomb would expand.
public enum GesichterContainer {
    /// The most a container may decompress to: a few minutes of packets are a few MB, 512 MB is hours.
    public static let maxDecompressedBytes = 512 << 20
    /// The most a container may expand per byte: real takes shrink about 2 times, a take of identical frames
    /// about 70 times; a gzip bomb of zeros expands about 1,000 times.
    public static let maxExpansion = 256
    /// Output below this is never refused for its ratio: the first bytes of a stream say little about it.
    public static let ratioFreeBytes = 1 << 20
    /// The longest packet: a packet was one UDP datagram, and a length past that means the framing is lost.
    public static let maxPacket = FrameStream.maxPacket

    /// The limits every container is read with.
    static let limits = GunzipStream.Limits(maxOutput: maxDecompressedBytes, maxRatio: maxExpansion,
                                            ratioFreeOutput: ratioFreeBytes)

    /// The packets in a container, plus a problem if it is damaged or cut short.
    ///
    /// The packets before the damage are kept, and the problem names the packet it hit and the byte of the
    /// file where decompression failed.
    public static func packets(_ data: [UInt8]) -> (packets: [[UInt8]], problem: String?) {
        packets(data, limits: limits)
    }

    static func packets(_ data: [UInt8], limit: Int) -> (packets: [[UInt8]], problem: String?) {
        var l = limits
        l.maxOutput = limit
        return packets(data, limits: l)
    }

    static func packets(_ data: [UInt8], limits: GunzipStream.Limits) -> (packets: [[UInt8]], problem: String?) {
        var out: [[UInt8]] = []
        let s = scan(ByteInput(bytes: data), limits: limits) { p, _ in out.append(Array(p)) }
        return (s.refused ? [] : out, s.problem)
    }

    /// How a `scan` ended.
    struct Scan: Equatable {
        /// Packets handed out.
        var packets = 0
        /// What is wrong with the container, as `packets` words it.
        var problem: String?
        /// Nothing of the container may be used: not gzip, or past a limit (a bomb).
        var refused = false
        /// Bytes of decompressed output seen (at most one chunk past a limit).
        var output = 0
        /// The most bytes held back at once, waiting for the rest of a header, length or packet.
        var maxHeld = 0
    }

    /// Decompresses and splits a container, calling `packet` with each packet (its bytes valid only during
    /// the call) and its number from 1 as soon as it is whole. A refused container may have handed out
    /// packets before the refusal; callers that must not use them check `refused`.
    static func scan(_ input: ByteInput, limits: GunzipStream.Limits, allowWhole: Bool = true,
                     packet: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Scan {
        let z = GunzipStream(input, limits: limits, allowWhole: allowWhole)
        var framing = ContainerFraming()
        while let piece = z.next() { framing.feed(piece, packet) }
        return framing.end(z.outcome ?? .finished, output: z.produced)
    }

    /// Why a container cannot be used at all (past a limit, not gzip, or not one whole packet), found by
    /// decompressing it through without keeping anything; nil when a replay may start on it.
    static func refusal(_ input: ByteInput, limits: GunzipStream.Limits) -> String? {
        let z = GunzipStream(input, limits: limits)
        var framing = ContainerFraming()
        // Past the first whole packet only the limits can refuse, and splitting millions of tiny packets
        // costs far more than inflating them.
        while let piece = z.next() { if framing.packets == 0 { framing.feed(piece) { _, _ in } } }
        let s = framing.end(z.outcome ?? .finished, output: z.produced)
        return s.refused || s.packets == 0 ? s.problem : nil
    }

    /// Writes packets into a container.
    public static func encode(_ packets: [[UInt8]]) -> [UInt8] {
        var raw: [UInt8] = [LiveLinkUDP.version]
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { raw.append(contentsOf: $0) } }
        u32(UInt32(packets.count))
        for p in packets { u32(UInt32(p.count)); raw.append(contentsOf: p) }
        return gzip(raw)
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

/// Splits a container's decompressed bytes into packets as they arrive, in pieces split anywhere.
///
/// It holds back at most one packet (a packet split across pieces), never the container: a packet arriving
/// whole is handed out where it lies. After a damaged header or a length no datagram has, the rest of the
/// output is only counted.
struct ContainerFraming {
    private enum Stage: Equatable {
        case header, length, payload(Int), trailing
        case badVersion(UInt8)
        /// A length longer than any packet, and how much of it followed.
        case oversized(Int, seen: Int)
    }
    private var stage = Stage.header
    private var held: [UInt8] = []
    private var count: UInt32 = 0
    private(set) var packets = 0
    private var trailing = 0
    private(set) var maxHeld = 0

    /// Takes the next piece of output, calling `packet` with each packet it completes.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ packet: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        var i = 0
        let n = bytes.count
        /// Gathers the bytes of a field or packet of `size` bytes; true once all are in `held`.
        func gather(_ size: Int) -> Bool {
            let take = min(size - held.count, n - i)
            held.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))
            i += take
            maxHeld = max(maxHeld, held.count)
            return held.count == size
        }
        func u32(_ b: some Collection<UInt8>) -> UInt32 { b.reduce(0) { $0 << 8 | UInt32($1) } }
        while i < n {
            switch stage {
            case .header:
                guard gather(5) else {
                    if let v = held.first, v != LiveLinkUDP.version { stage = .badVersion(v); held = [] }
                    continue
                }
                if held[0] != LiveLinkUDP.version { stage = .badVersion(held[0]); held = []; continue }
                count = u32(held[1...])
                held.removeAll(keepingCapacity: true)
                stage = count == 0 ? .trailing : .length
            case .length:
                let len: Int
                if held.isEmpty, n - i >= 4 {
                    // The whole length is in this piece: no copy (this runs once per packet).
                    len = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                    i += 4
                } else {
                    guard gather(4) else { continue }
                    len = Int(u32(held))
                    held.removeAll(keepingCapacity: true)
                }
                stage = len > GesichterContainer.maxPacket ? .oversized(len, seen: 0) : .payload(len)
            case .payload(let len):
                if held.isEmpty, n - i >= len {
                    // The whole packet is in this piece: no copy.
                    packets += 1
                    packet(UnsafeBufferPointer(rebasing: bytes[i..<(i + len)]), packets)
                    i += len
                } else {
                    guard gather(len) else { continue }
                    packets += 1
                    held.withUnsafeBufferPointer { packet($0, packets) }
                    held.removeAll(keepingCapacity: true)
                }
                stage = UInt32(packets) == count ? .trailing : .length
            case .oversized(let len, let seen):
                stage = .oversized(len, seen: min(len, seen + (n - i)))
                i = n
            case .trailing:
                trailing += n - i
                i = n
            case .badVersion:
                i = n
            }
        }
    }

    /// How the container ended, given how decompression ended and how much it put out.
    func end(_ outcome: GunzipStream.Outcome, output: Int) -> GesichterContainer.Scan {
        var s = GesichterContainer.Scan(packets: packets, output: output, maxHeld: maxHeld)
        var damage: String?
        switch outcome {
        case .refused(let p):
            s.refused = true
            s.problem = p
            return s
        case .damaged(let p):
            damage = p
            if output == 0 { s.problem = p; return s }
        case .finished:
            break
        }
        // Where the compressed data went wrong; the container itself is read as far as it decompressed.
        func cut(_ what: String) -> String { damage.map { "\($0), \(what)" } ?? what }
        switch stage {
        case .header:
            s.problem = cut(held.isEmpty ? "empty container" : "truncated before the packet count")
        case .badVersion(let v):
            s.problem = cut("container version \(v), expected \(LiveLinkUDP.version)")
        case .length:
            s.problem = cut("truncated before packet \(packets + 1) of \(count)")
        case .payload(let len):
            s.problem = cut("truncated inside packet \(packets + 1) of \(count) (\(len) bytes)")
        case .oversized(let len, let seen):
            s.problem = cut(seen < len ? "truncated inside packet \(packets + 1) of \(count) (\(len) bytes)"
                : "packet \(packets + 1) of \(count) claims \(len) bytes, more than a UDP datagram holds "
                    + "(\(GesichterContainer.maxPacket)): the container is damaged here")
        case .trailing:
            if let damage {
                s.problem = "\(damage), after all \(count) packets: some of them may hold wrong values"
            } else if trailing > 0 {
                s.problem = "\(trailing) unexpected bytes after the \(count) packets"
            }
        }
        return s
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
