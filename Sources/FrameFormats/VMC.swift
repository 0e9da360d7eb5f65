import Foundation
import TrackingCore

/// One OSC message: an address and its arguments (the types VMC senders use).
public struct OSCMessage: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case int(Int64), float(Double), string(String), blob([UInt8]), bool(Bool), none
        var number: Double? {
            switch self {
            case .int(let i): return Double(i)
            case .float(let f): return f
            default: return nil
            }
        }
    }
    public var address: String
    public var arguments: [Argument]
}

/// Parses OSC 1.0 packets: a message, or a `#bundle` of elements (nested up to `maxDepth`).
public enum OSC {
    static let maxDepth = 8

    /// Whether a datagram starts like an OSC packet.
    public static func looksLike(_ d: UnsafeRawBufferPointer) -> Bool {
        d.count >= 4 && d.count % 4 == 0 && (d[0] == UInt8(ascii: "/") || isBundle(d))
    }

    /// Whether the packet starts with `#bundle` and its NUL (compared as one word, since every datagram of
    /// another format is asked too).
    @inline(__always)
    static func isBundle(_ d: UnsafeRawBufferPointer) -> Bool {
        d.count >= 8 && UInt64(littleEndian: d.loadUnaligned(as: UInt64.self)) == 0x0065_6c64_6e75_6223
    }

    /// The messages in a packet, in order, or the reason it is not OSC.
    public static func messages(_ d: UnsafeRawBufferPointer) -> Result<[OSCMessage], OSCError> {
        var out: [OSCMessage] = []
        do throws(OSCError) {
            try walk(d) { out.append($0.message()) }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    public struct OSCError: Error, Sendable, Equatable { public var message: String }

    /// One message of a packet, read in place: its address, type tags and arguments as byte offsets into
    /// `d`, already checked to lie within it.
    struct MessageView {
        let d: UnsafeRawBufferPointer
        /// The address without its NUL.
        let address: Range<Int>
        /// The type tags after the ',' (empty for a message without a type tag string).
        let tags: Range<Int>
        /// Where the first argument starts.
        let arguments: Int
        /// Where the second argument starts, and where the first one's bytes end when it is a string.
        let second: Int, firstEnd: Int

        /// Whether the address is exactly `s`.
        @inline(__always)
        func addressIs(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard address.count == n else { return false }
            let a = d.baseAddress.unsafelyUnwrapped + address.lowerBound, b = UnsafeRawPointer(s.utf8Start)
            guard n >= 8 else { return memcmp(a, b, n) == 0 }
            // A word at a time from the end backwards (VMC addresses differ in their last part); the first
            // word may overlap the second.
            var k = n
            while true {
                k = max(0, k - 8)
                if a.loadUnaligned(fromByteOffset: k, as: UInt64.self) != b.loadUnaligned(fromByteOffset: k, as: UInt64.self) {
                    return false
                }
                if k == 0 { return true }
            }
        }

        /// The tag of argument `i` and where its bytes start, or nil when there are fewer arguments.
        func argument(_ i: Int) -> (tag: UInt8, at: Int)? {
            guard i < tags.count else { return nil }
            if i < 2 { return (d[tags.lowerBound + i], i == 0 ? arguments : second) }
            var k = arguments
            for j in 0..<i { k = OSC.skip(d[tags.lowerBound + j], d, k) }
            return (d[tags.lowerBound + i], k)
        }

        /// Argument `i` as bytes when it is a string.
        func string(_ i: Int) -> UnsafeRawBufferPointer? {
            guard let (tag, at) = argument(i), tag == UInt8(ascii: "s") || tag == UInt8(ascii: "S") else { return nil }
            if i == 0 { return UnsafeRawBufferPointer(rebasing: d[at..<firstEnd]) }
            var end = at
            while d[end] != 0 { end += 1 }
            return UnsafeRawBufferPointer(rebasing: d[at..<end])
        }

        /// Argument `i` as a number when it is an int or a float of either size.
        func number(_ i: Int) -> Double? {
            guard let (tag, at) = argument(i) else { return nil }
            return OSC.number(tag, d, at)
        }

        /// The message as a value, arguments decoded.
        func message() -> OSCMessage {
            var args: [OSCMessage.Argument] = []
            var k = arguments
            for tag in d[tags] {
                switch tag {
                case UInt8(ascii: "i"), UInt8(ascii: "h"):
                    args.append(.int(OSC.integer(tag, d, k)))
                case UInt8(ascii: "f"), UInt8(ascii: "d"):
                    args.append(.float(OSC.number(tag, d, k) ?? 0))
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    var end = k
                    while d[end] != 0 { end += 1 }
                    args.append(.string(String(decoding: d[k..<end], as: UTF8.self)))
                case UInt8(ascii: "b"):
                    let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                    args.append(.blob(Array(d[(k + 4)..<(k + 4 + n)])))
                case UInt8(ascii: "T"): args.append(.bool(true))
                case UInt8(ascii: "F"): args.append(.bool(false))
                default: args.append(.none)
                }
                k = OSC.skip(tag, d, k)
            }
            return OSCMessage(address: String(decoding: d[address], as: UTF8.self), arguments: args)
        }
    }

    /// Calls `body` for each message of a packet, in order, after checking each message whole (the packet
    /// after a bad message is not read); throws the reason a packet is not OSC. Allocates nothing.
    ///
    /// `handled` sees each message's bytes first and returns true when it has taken the message itself (a
    /// caller's fast path for one exact, valid shape of message); `body` then does not see it.
    static func walk(_ d: UnsafeRawBufferPointer, depth: Int = 0,
                     handled: (UnsafeRawBufferPointer) -> Bool = { _ in false },
                     _ body: (MessageView) throws(OSCError) -> Void) throws(OSCError) {
        guard depth <= maxDepth else { throw OSCError(message: "bundles nested deeper than \(maxDepth)") }
        guard d.count % 4 == 0 else { throw OSCError(message: "OSC packet of \(d.count) bytes is not a multiple of 4") }
        if isBundle(d) {
            guard d.count >= 16 else { throw OSCError(message: "bundle cut short before its time tag") }
            var k = 16
            while k < d.count {
                guard d.count - k >= 4 else { throw OSCError(message: "bundle element size cut short") }
                let size = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard size <= d.count - k else {
                    throw OSCError(message: "bundle element of \(size) bytes runs past the packet's end")
                }
                try walk(UnsafeRawBufferPointer(rebasing: d[k..<(k + size)]), depth: depth + 1, handled: handled, body)
                k += size
            }
            return
        }
        if handled(d) { return }
        var k = 0
        let address = try string(d, &k)
        guard d[address].first == UInt8(ascii: "/") else {
            throw OSCError(message: "OSC address \"\(String(decoding: d[address], as: UTF8.self))\" does not start with '/'")
        }
        // A message without a type tag string (old senders) has no arguments.
        guard k < d.count else {
            try body(MessageView(d: d, address: address, tags: k..<k, arguments: k, second: k, firstEnd: k))
            return
        }
        let tags = try string(d, &k)
        guard d[tags].first == UInt8(ascii: ",") else {
            throw OSCError(message: "type tags \"\(String(decoding: d[tags], as: UTF8.self))\" do not start with ','")
        }
        let arguments = k
        var second = k, firstEnd = k
        for (j, tag) in d[tags].dropFirst().enumerated() {
            if j == 1 { second = k }
            func need(_ n: Int) throws(OSCError) {
                guard d.count - k >= n else { throw OSCError(message: "argument '\(Character(Unicode.Scalar(tag)))' cut short") }
            }
            switch tag {
            case UInt8(ascii: "i"), UInt8(ascii: "f"):
                try need(4)
                k += 4
            case UInt8(ascii: "h"), UInt8(ascii: "d"):
                try need(8)
                k += 8
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                let r = try string(d, &k)
                if j == 0 { firstEnd = r.upperBound }
            case UInt8(ascii: "b"):
                try need(4)
                let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard n <= d.count - k else { throw OSCError(message: "blob of \(n) bytes runs past the packet's end") }
                k += (n + 3) & ~3
            case UInt8(ascii: "T"), UInt8(ascii: "F"), UInt8(ascii: "N"), UInt8(ascii: "I"):
                break
            default:
                throw OSCError(message: "unknown OSC type tag '\(printable(tag))'")
            }
        }
        if tags.count == 2 { second = k }
        try body(MessageView(d: d, address: address, tags: (tags.lowerBound + 1)..<tags.upperBound, arguments: arguments,
                             second: second, firstEnd: firstEnd))
    }

    /// A NUL-terminated string padded to 4 bytes at `k`, as the range of its bytes without the NUL; `k`
    /// moves past the padding.
    ///
    /// Strings start on a 4-byte boundary of a message whose size is a multiple of 4, so the NUL is looked
    /// for a word at a time.
    @inline(__always)
    private static func string(_ d: UnsafeRawBufferPointer, _ k: inout Int) throws(OSCError) -> Range<Int> {
        let start = k
        var w = k
        while d.count - w >= 4 {
            let v = UInt32(littleEndian: d.loadUnaligned(fromByteOffset: w, as: UInt32.self))
            let zero = (v &- 0x0101_0101) & ~v & 0x8080_8080
            if zero != 0 {
                let end = w + zero.trailingZeroBitCount / 8
                k = w + 4
                return start..<end
            }
            w += 4
        }
        while w < d.count {
            if d[w] == 0 {
                k = min(d.count, (w + 4) & ~3)
                return start..<w
            }
            w += 1
        }
        throw OSCError(message: "OSC string is not terminated")
    }

    /// Where the argument after one with `tag` at `k` starts (the argument was checked by `walk`).
    @inline(__always)
    static func skip(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Int {
        switch tag {
        case UInt8(ascii: "i"), UInt8(ascii: "f"): return k + 4
        case UInt8(ascii: "h"), UInt8(ascii: "d"): return k + 8
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            var end = k
            while d[end] != 0 { end += 1 }
            return min(d.count, (end + 4) & ~3)
        case UInt8(ascii: "b"):
            let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
            return k + 4 + ((n + 3) & ~3)
        default: return k
        }
    }

    /// The number an `i`, `h`, `f` or `d` argument at `k` holds; nil for other tags.
    @inline(__always)
    static func number(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Double? {
        switch tag {
        case UInt8(ascii: "f"): return Double(Float(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))
        case UInt8(ascii: "d"): return Double(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return Double(integer(tag, d, k))
        default: return nil
        }
    }

    /// The integer an `i` or `h` argument at `k` holds.
    @inline(__always)
    static func integer(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Int64 {
        tag == UInt8(ascii: "h")
            ? Int64(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
            : Int64(Int32(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))
    }

    private static func printable(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? String(Character(Unicode.Scalar(c))) : "0x" + String(c, radix: 16)
    }

    /// Encodes a message (for tests and senders): int, float and string arguments.
    public static func encode(_ address: String, _ args: [OSCMessage.Argument]) -> [UInt8] {
        var out: [UInt8] = []
        func str(_ s: String) { out += Array(s.utf8) + [0]; while out.count % 4 != 0 { out.append(0) } }
        str(address)
        var tags = ","
        for a in args {
            switch a {
            case .int: tags += "i"
            case .float: tags += "f"
            case .string: tags += "s"
            case .blob: tags += "b"
            case .bool(let b): tags += b ? "T" : "F"
            case .none: tags += "N"
            }
        }
        str(tags)
        for a in args {
            switch a {
            case .int(let i): withUnsafeBytes(of: Int32(truncatingIfNeeded: i).bigEndian) { out += $0 }
            case .float(let f): withUnsafeBytes(of: Float(f).bitPattern.bigEndian) { out += $0 }
            case .string(let s): str(s)
            case .blob(let b):
                withUnsafeBytes(of: UInt32(b.count).bigEndian) { out += $0 }
                out += b
                while out.count % 4 != 0 { out.append(0) }
            default: break
            }
        }
        return out
    }

    /// Wraps encoded messages in a bundle with an "immediately" time tag.
    public static func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        var out = Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
        for e in elements {
            withUnsafeBytes(of: UInt32(e.count).bigEndian) { out += $0 }
            out += e
        }
        return out
    }
}

/// Frames from the VMC protocol (OSC over UDP, port 39539): `/VMC/Ext/Blend/Val name value` sets a shape,
/// `/VMC/Ext/Blend/Apply` ends a frame, `/VMC/Ext/Bone/Pos "Head" px py pz qx qy qz qw` gives the head.
///
/// Values persist between frames as the protocol defines. Shape names may be ARKit's (`JawOpen`, `jawOpen`)
/// or VRM's (`Blink_L`, `A`, VRM 1.0 `blinkLeft`, `aa`). VMC carries no time, so frames take the time the
/// datagram arrived, given by the caller.
public struct VMCDecoder: Sendable {
    public static let defaultPort: UInt16 = 39539
    /// The values so far, in ``BlendShape`` order (a plain array of this module: no call per value).
    var values = [Float](repeating: 0, count: BlendShape.count)
    var head: HeadPose?
    var pendingShapes = false
    /// The shape the last value set: senders list shapes in the same order every frame, so the next name is
    /// looked for after it first.
    var lastShape = -1
    /// Off in tests only, to compare the fast path for values with the general reader on the same input.
    var useFastPath = true
    /// The blend-shape names, held here rather than looked up for every value.
    private let names = BlendNames.table

    public init() {}

    /// Decodes one datagram that arrived at `arrival` seconds; an Apply inside it yields a frame.
    ///
    /// The packet is read in place (`OSC.walk`), so the usual bundle of values and an Apply allocates only
    /// its result. A packet that is not OSC changes nothing, not even the values before the damage.
    public mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
        let pos = SourcePosition(.packet, index)
        var next = self
        var out: [DecodedItem] = []
        var messages = 0, unknown = 0
        var first: String?
        func general(_ e: UnsafeRawBufferPointer, depth: Int) throws(OSC.OSCError) {
            try OSC.walk(e, depth: depth, handled: { e in
                guard next.useFastPath, next.fastValue(e) else { return false }
                messages += 1
                return true
            }) { m in
                messages += 1
                if messages == 1, !m.addressIs("/VMC/Ext/Blend/Val"), !m.addressIs("/VMC/Ext/Blend/Apply") {
                    first = String(decoding: m.d[m.address].prefix(60), as: UTF8.self)
                }
                next.apply(m, pos, &out, &unknown, arrival)
            }
        }
        do throws(OSC.OSCError) {
            // The usual packet, one bundle of values and an Apply, is walked here so that each value goes
            // straight to `fastValue`; anything else, and any element it does not take, goes through `OSC.walk`,
            // which checks it as it would have inside the bundle.
            if useFastPath, d.count >= 16, d.count % 4 == 0, OSC.isBundle(d) {
                var k = 16
                while k < d.count {
                    guard d.count - k >= 4 else { throw OSC.OSCError(message: "bundle element size cut short") }
                    let size = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                    k += 4
                    guard size <= d.count - k else {
                        throw OSC.OSCError(message: "bundle element of \(size) bytes runs past the packet's end")
                    }
                    let e = UnsafeRawBufferPointer(rebasing: d[k..<(k + size)])
                    if next.fastValue(e) { messages += 1 } else { try general(e, depth: 1) }
                    k += size
                }
            } else {
                try general(d, depth: 0)
            }
        } catch {
            return [.malformed(FrameIssue(pos, error.message))]
        }
        self = next
        if out.isEmpty, unknown > 0, unknown == messages {
            out.append(.malformed(FrameIssue(pos, "OSC message \(first ?? "") is not a VMC message")))
        }
        return out
    }

    /// Applies one message: a value, the Apply that makes a frame, or the head bone.
    @inline(__always)
    private mutating func apply(_ m: OSC.MessageView, _ pos: SourcePosition, _ out: inout [DecodedItem],
                                _ unknown: inout Int, _ arrival: Double) {
        if m.addressIs("/VMC/Ext/Blend/Val") {
            guard let name = m.string(0), let v = m.number(1), v.isFinite else {
                out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Blend/Val needs a name and a number")))
                return
            }
            setValue(name, v)
        } else if m.addressIs("/VMC/Ext/Blend/Apply") {
            if let p = FrameTime.problem(arrival) { out.append(.malformed(FrameIssue(pos, p))); return }
            out.append(.frame(TrackingFrame(t: arrival, blend: BlendShapes(values: values) ?? BlendShapes(), head: head), pos))
            pendingShapes = false
        } else if m.addressIs("/VMC/Ext/Bone/Pos") {
            guard m.tags.count >= 8, let bone = m.string(0) else {
                out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos needs a bone name and 7 numbers")))
                return
            }
            guard bone.elementsEqual("Head".utf8) else { return }
            let q = (4...7).compactMap { m.number($0) }
            guard q.count == 4, q.allSatisfy(\.isFinite) else {
                out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos Head: the rotation is not 4 numbers")))
                return
            }
            head = Self.headPose(qx: q[0], qy: q[1], qz: q[2], qw: q[3])
        } else {
            // Other VMC messages (root, trackers, time, status) carry nothing a face gesture needs.
            if !UnsafeRawBufferPointer(rebasing: m.d[m.address]).starts(with: "/VMC/".utf8) { unknown += 1 }
        }
    }

    /// Sets the shape or shapes a `/VMC/Ext/Blend/Val` names.
    @inline(__always)
    private mutating func setValue(_ name: UnsafeRawBufferPointer, _ v: Double) {
        if let shape = names.shape(name, guess: lastShape &+ 1) {
            values[shape] = Float(min(1, max(0, v)))
            lastShape = shape
        } else {
            for (shape, scale) in Self.shapes(named: String(decoding: name, as: UTF8.self)) {
                values[shape.rawValue] = Float(min(1, max(0, v * scale)))
            }
        }
        pendingShapes = true
    }

    /// Takes a message that is exactly `/VMC/Ext/Blend/Val ,sf name value` with a finite value (what senders
    /// send dozens of times a frame) and returns true; anything else is left to the general reader.
    ///
    /// Every byte this accepts, `OSC.walk` would accept and read the same way.
    @inline(__always)
    private mutating func fastValue(_ e: UnsafeRawBufferPointer) -> Bool {
        let n = e.count
        guard n >= 32, n % 4 == 0 else { return false }
        // The first 24 bytes of every such message.
        let header: StaticString = "/VMC/Ext/Blend/Val\0\0,sf\0"
        let p = header.utf8Start
        let w0 = e.loadUnaligned(as: UInt64.self), w1 = e.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            w2 = e.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        guard w0 == UnsafeRawPointer(p).loadUnaligned(as: UInt64.self),
              w1 == UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 8, as: UInt64.self),
              w2 == UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 16, as: UInt64.self) else { return false }
        // The name: its NUL is in the last word before the float, which ends the message.
        var w = 24
        while true {
            guard n - w >= 8 else { return false }
            let v = UInt32(littleEndian: e.loadUnaligned(fromByteOffset: w, as: UInt32.self))
            let zero = (v &- 0x0101_0101) & ~v & 0x8080_8080
            if zero != 0 {
                guard w + 8 == n else { return false }
                let end = w + zero.trailingZeroBitCount / 8
                let value = Double(Float(bitPattern: UInt32(bigEndian: e.loadUnaligned(fromByteOffset: w + 4, as: UInt32.self))))
                guard value.isFinite else { return false }
                setValue(UnsafeRawBufferPointer(rebasing: e[24..<end]), value)
                return true
            }
            w += 4
        }
    }

    /// Head yaw, pitch and roll from a Unity (left-handed, y up, z forward) rotation quaternion.
    static func headPose(qx: Double, qy: Double, qz: Double, qw: Double) -> HeadPose {
        let n = (qx * qx + qy * qy + qz * qz + qw * qw).squareRoot()
        guard n > 1e-9 else { return HeadPose(yaw: 0, pitch: 0, roll: 0) }
        let (x, y, z, w) = (qx / n, qy / n, qz / n, qw / n)
        let yaw = atan2(2 * (w * y + x * z), 1 - 2 * (x * x + y * y))
        let pitch = asin(max(-1, min(1, 2 * (w * x - y * z))))
        let roll = atan2(2 * (w * z + x * y), 1 - 2 * (x * x + z * z))
        return HeadPose(yaw: yaw, pitch: pitch, roll: roll)
    }

    /// The blend shapes a VMC name sets, each with a scale.
    static func shapes(named name: String) -> [(BlendShape, Double)] {
        if let s = BlendShape(name: name) { return [(s, 1)] }
        if let v = vrm[name.lowercased()] { return v }
        return []
    }

    /// VRM 0.x and 1.0 expression names, lower-cased. "Left" is the avatar's (the user's own) left.
    static let vrm: [String: [(BlendShape, Double)]] = [
        "blink_l": [(.eyeBlinkLeft, 1)], "blink_r": [(.eyeBlinkRight, 1)],
        "blinkleft": [(.eyeBlinkLeft, 1)], "blinkright": [(.eyeBlinkRight, 1)],
        "blink": [(.eyeBlinkLeft, 1), (.eyeBlinkRight, 1)],
        "a": [(.jawOpen, 1)], "aa": [(.jawOpen, 1)], "o": [(.jawOpen, 0.6), (.mouthFunnel, 1)], "oh": [(.jawOpen, 0.6), (.mouthFunnel, 1)],
        "u": [(.mouthPucker, 1)], "ou": [(.mouthPucker, 1)],
        "joy": [(.mouthSmileLeft, 1), (.mouthSmileRight, 1)], "happy": [(.mouthSmileLeft, 1), (.mouthSmileRight, 1)],
        "fun": [(.mouthSmileLeft, 0.6), (.mouthSmileRight, 0.6)], "relaxed": [(.mouthSmileLeft, 0.6), (.mouthSmileRight, 0.6)],
        "angry": [(.browDownLeft, 1), (.browDownRight, 1)],
        "sorrow": [(.browInnerUp, 1), (.mouthFrownLeft, 1), (.mouthFrownRight, 1)],
        "sad": [(.browInnerUp, 1), (.mouthFrownLeft, 1), (.mouthFrownRight, 1)],
        "surprised": [(.browOuterUpLeft, 1), (.browOuterUpRight, 1), (.browInnerUp, 1), (.eyeWideLeft, 1), (.eyeWideRight, 1)],
    ]
}

/// Frames from iFacialMocap (UDP 49983), which Android apps speak too: `name-value|` or `name&value|` pairs
/// with values 0–100 and `_L`/`_R` for sides, then `=head#rx,ry,rz,px,py,pz|`, `rightEye#rx,ry,rz|` and
/// `leftEye#…|` in degrees.
///
/// The phone starts sending after the handshake datagram `handshake`, sent to its port 49983. The data carries
/// no time, so frames take the arrival time given by the caller.
public enum IFacialMocap {
    public static let defaultPort: UInt16 = 49983
    public static let handshake = "iFacialMocap_sahuasouryya9218sauhuiayeta91555dy3719"

    /// Whether a datagram looks like iFacialMocap text: printable ASCII with `|` separated pairs.
    public static func looksLike(_ d: UnsafeRawBufferPointer) -> Bool {
        guard d.count >= 4, let base = d.baseAddress, memchr(base, Int32(UInt8(ascii: "|")), d.count) != nil else { return false }
        let head = UnsafeRawBufferPointer(rebasing: d.prefix(64))
        guard printable(head) else { return false }
        return head.contains(UInt8(ascii: "-")) || head.contains(UInt8(ascii: "&")) || head.contains(UInt8(ascii: "#"))
    }

    /// Shape names as iFacialMocap writes them (`eyeBlink_L`) and as ARKit does (`eyeBlinkLeft`), in an
    /// open-addressing table keyed by `hash`; the bytes are compared too, so a collision cannot pick the
    /// wrong shape.
    struct Names: Sendable {
        /// Per slot, an index into `starts`, or -1.
        private var slots = [Int16](repeating: -1, count: Names.size)
        /// All names back to back (padded so that a word load past the last one stays inside); name `k` is
        /// `bytes[starts[k]..<starts[k + 1]]` and names `shapes[k]`.
        private var bytes: [UInt8] = []
        private var starts: [Int] = [0]
        private var shapes: [BlendShape] = []
        static let size = 512

        init() {
            for shape in BlendShape.allCases {
                var names = [shape.name]
                if shape.name.hasSuffix("Left") { names.append(shape.name.dropLast(4) + "_L") }
                if shape.name.hasSuffix("Right") { names.append(shape.name.dropLast(5) + "_R") }
                for name in names {
                    let b = Array(name.utf8)
                    var k = b.withUnsafeBytes { Names.hash($0, 0, $0.count) }
                    while slots[k] >= 0 { k = (k + 1) & (Names.size - 1) }
                    slots[k] = Int16(shapes.count)
                    bytes += b
                    starts.append(bytes.count)
                    shapes.append(shape)
                }
            }
        }

        /// A slot for `d[a..<b]`, from its length and its first and last (up to) 8 bytes.
        @inline(__always)
        static func hash(_ d: UnsafeRawBufferPointer, _ a: Int, _ b: Int) -> Int {
            let n = b - a
            var first: UInt64 = 0, last: UInt64 = 0
            if n >= 8 {
                first = d.loadUnaligned(fromByteOffset: a, as: UInt64.self)
                last = d.loadUnaligned(fromByteOffset: b - 8, as: UInt64.self)
            } else {
                for k in a..<b { first = first << 8 | UInt64(d[k]) }
            }
            let h = (first ^ (last >> 3 | last << 61) ^ UInt64(truncatingIfNeeded: n)) &* 0x9E37_79B9_7F4A_7C15
            return Int(truncatingIfNeeded: h >> 55) & (size - 1)
        }

        /// Whether two byte strings of the same length are equal, a word at a time.
        @inline(__always)
        static func same(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
            let n = x.count
            guard n >= 8 else { return x.elementsEqual(y) }
            var k = 0
            while n - k > 8 {
                if x.loadUnaligned(fromByteOffset: k, as: UInt64.self) != y.loadUnaligned(fromByteOffset: k, as: UInt64.self) { return false }
                k += 8
            }
            return x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }

        /// The shape `d[a..<b]` names, or nil.
        @inline(__always)
        func shape(_ d: UnsafeRawBufferPointer, _ a: Int, _ b: Int) -> BlendShape? {
            var k = Names.hash(d, a, b)
            let name = UnsafeRawBufferPointer(rebasing: d[a..<b])
            return bytes.withUnsafeBytes { all in
                while true {
                    let f = Int(slots[k])
                    if f < 0 { return nil }
                    let s = starts[f], e = starts[f + 1]
                    if e - s == name.count, Names.same(UnsafeRawBufferPointer(rebasing: all[s..<e]), name) { return shapes[f] }
                    k = (k + 1) & (Names.size - 1)
                }
            }
        }
    }

    static let names = Names()

    /// A plain decimal (`75`, `12.5`, `-21.48`), or nil.
    static func number(_ b: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> Double? {
        var i = from
        var negative = false
        if i < to, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var whole: Double = 0, digits = 0
        while i < to, b[i] >= 0x30, b[i] <= 0x39, digits < 15 { whole = whole * 10 + Double(b[i] - 0x30); i += 1; digits += 1 }
        var frac: Double = 0, scale: Double = 1
        if i < to, b[i] == UInt8(ascii: "."), digits > 0 {
            i += 1
            var f = 0
            while i < to, b[i] >= 0x30, b[i] <= 0x39 { if f < 15 { frac = frac * 10 + Double(b[i] - 0x30); scale *= 10; f += 1 }; i += 1 }
            if f == 0 { return nil }
        }
        guard digits > 0, i == to else {
            // Exponents and other spellings are rare: the general parser decides.
            guard from < to else { return nil }
            return Double(String(decoding: UnsafeRawBufferPointer(rebasing: b[from..<to]), as: UTF8.self))
        }
        let v = whole + frac / scale
        return negative ? -v : v
    }

    /// Whether every byte is printable ASCII (or a line break), checked 8 bytes at a time.
    @inline(__always)
    static func printable(_ d: UnsafeRawBufferPointer) -> Bool {
        let n = d.count
        var k = 0
        while n - k >= 8 {
            let v = d.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
            // A byte under 0x20, or one of 0x7F and above: leave the word to the byte test (line breaks).
            if (v &- ones &* 0x20) & ~v & high != 0 || (v | (v &+ ones)) & high != 0 { break }
            k += 8
        }
        while k < n {
            let c = d[k]
            guard c >= 0x20 && c < 0x7F || c == 0x0A || c == 0x0D else { return false }
            k += 1
        }
        return true
    }

    /// Where the name starting at `start` ends: the first `-`, `&`, `|`, `#`, `=`, space, control byte or
    /// byte of 0x7F and above at or after it, or the end. Eight bytes at a time.
    @inline(__always)
    static func nameEnd(_ d: UnsafeRawBufferPointer, _ start: Int) -> Int {
        let n = d.count
        var j = start
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & high }
        while n - j >= 8 {
            let v = UInt64(littleEndian: d.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            // Flags at or after the first stop byte; the lowest flag is exact.
            // Bytes of 0x7F and above stop too, so every byte a name takes is printable.
            let stops = zeroByte(v ^ (ones &* 0x2D)) | zeroByte(v ^ (ones &* 0x26)) | zeroByte(v ^ (ones &* 0x7C))
                | zeroByte(v ^ (ones &* 0x23)) | zeroByte(v ^ (ones &* 0x3D)) | ((v &- ones &* 0x21) & ~v & high)
                | zeroByte(v ^ (ones &* 0x7F)) | (v & high)
            if stops != 0 { return j + stops.trailingZeroBitCount / 8 }
            j += 8
        }
        while j < n {
            let c = d[j]
            if c == UInt8(ascii: "-") || c == UInt8(ascii: "&") || c == UInt8(ascii: "|") || c == UInt8(ascii: "#")
                || c == UInt8(ascii: "=") || c <= 0x20 || c >= 0x7F { break }
            j += 1
        }
        return j
    }

    /// What one `|`-separated part of a datagram adds to a frame being decoded.
    struct Parts {
        var head: HeadPose?
        /// The blend values, made into the frame at the end (a plain array of this module costs no call per
        /// value, and the frame's own array is made once).
        var values = [Float](repeating: 0, count: BlendShape.count)
        var shapes = 0
        /// The eyes' first three angles in radians (x, y, z), each side as it came.
        var right: (Double, Double, Double)?, left: (Double, Double, Double)?
    }

    public static func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> DecodedItem {
        decode(d, index: index, arrival: arrival, fast: true)
    }

    /// `decode`, with the one-pass reading of usual parts off (`fast: false`) for tests that compare the two.
    static func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double, fast: Bool) -> DecodedItem {
        let pos = SourcePosition(.packet, index)
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        if let p = FrameTime.problem(arrival) { return bad(p) }
        let unprintable = "iFacialMocap data must be printable text"
        // The one-pass reading checks the bytes as it reads them; the general reading checks them first.
        guard fast || printable(d) else { return bad(unprintable) }
        var parts = Parts()
        // Taken once: the table is read for every part.
        let table = names
        let n = d.count
        var start = 0
        while start < n {
            // The usual part, `name-value|` with a plain value, is read in one pass; anything else (spaces,
            // `#` angles, odd values) by `part`.
            let j = fast ? nameEnd(d, start) : start
            if j > start, j < n, d[j] == UInt8(ascii: "-") || d[j] == UInt8(ascii: "&") {
                var end = j + 1
                var whole = 0.0, plain = true
                while end < n, d[end] != UInt8(ascii: "|") {
                    let c = d[end]
                    if c &- 0x30 < 10 {
                        whole = whole * 10 + Double(c &- 0x30)
                    } else if c == UInt8(ascii: ".") {
                        plain = false
                    } else {
                        break
                    }
                    end += 1
                }
                // Up to 15 digits without a dot are exact as read; anything longer goes through `number`.
                if end == n || d[end] == UInt8(ascii: "|"), end > j + 1,
                   let value = plain && end - j <= 16 ? whole : number(d, j + 1, end), value.isFinite {
                    if let shape = table.shape(d, start, j) {
                        parts.values[shape.rawValue] = Float(min(1, max(0, value / 100)))
                        parts.shapes += 1
                    }
                    start = end + 1
                    continue
                }
            }
            var end = j
            while end < n, d[end] != UInt8(ascii: "|") { end += 1 }
            if fast, !printable(UnsafeRawBufferPointer(rebasing: d[start..<end])) { return bad(unprintable) }
            if let problem = part(d, start, end, &parts) {
                // As the general reading would: unprintable bytes anywhere are the datagram's first problem.
                return fast && !printable(UnsafeRawBufferPointer(rebasing: d[end...])) ? bad(unprintable) : bad(problem)
            }
            start = end + 1
        }
        guard parts.shapes > 0 || parts.head != nil else { return bad("no blend shape or head pose in the datagram") }
        var eyes: EyeAngles?
        if let r = parts.right, let l = parts.left {
            eyes = EyeAngles(leftYaw: l.1, leftPitch: l.0, rightYaw: r.1, rightPitch: r.0)
        }
        return .frame(TrackingFrame(t: arrival, blend: BlendShapes(values: parts.values) ?? BlendShapes(), eyes: eyes,
                                    head: parts.head), pos)
    }

    /// Reads the part `d[start..<end]` (between `|`s) into `parts`; the reason the datagram is bad, or nil.
    static func part(_ d: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ parts: inout Parts) -> String? {
        func text(_ a: Int, _ b: Int) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: d[a..<min(b, a + 40)]), as: UTF8.self) }
        var a = start, b = end
        while a < b, d[a] == 0x20 || d[a] == 0x0A || d[a] == 0x0D || d[a] == 0x09 { a += 1 }
        while b > a, d[b - 1] == 0x20 || d[b - 1] == 0x0A || d[b - 1] == 0x0D || d[b - 1] == 0x09 { b -= 1 }
        if a == b { return nil }
        var hashAt = a
        while hashAt < b, d[hashAt] != UInt8(ascii: "#") { hashAt += 1 }
        if hashAt < b {
            var n0 = a
            while n0 < hashAt, d[n0] == UInt8(ascii: "=") { n0 += 1 }
            // The first three angles, in a tuple: a datagram's head part is no reason to allocate.
            var values = (0.0, 0.0, 0.0), count = 0
            var k = hashAt + 1
            while k <= b {
                var e = k
                while e < b, d[e] != UInt8(ascii: ",") { e += 1 }
                var x = k, y = e
                while x < y, d[x] == 0x20 { x += 1 }
                while y > x, d[y - 1] == 0x20 { y -= 1 }
                guard let v = number(d, x, y), v.isFinite else { return "\(text(n0, hashAt))# needs at least 3 numbers" }
                let radians = v * .pi / 180
                switch count {
                case 0: values.0 = radians
                case 1: values.1 = radians
                case 2: values.2 = radians
                default: break
                }
                count += 1
                k = e + 1
            }
            guard count >= 3 else { return "\(text(n0, hashAt))# needs at least 3 numbers" }
            let name = UnsafeRawBufferPointer(rebasing: d[n0..<hashAt])
            if name.elementsEqual("head".utf8) { parts.head = HeadPose(yaw: values.1, pitch: values.0, roll: values.2) }
            else if name.elementsEqual("rightEye".utf8) { parts.right = values }
            else if name.elementsEqual("leftEye".utf8) { parts.left = values }
            return nil
        }
        // `name-value` (older) or `name&value`; a name never holds either separator.
        var sep = b - 1
        while sep > a, d[sep] != UInt8(ascii: "-"), d[sep] != UInt8(ascii: "&") { sep -= 1 }
        guard sep > a else { return "\"\(text(a, b))\" is not name-value" }
        guard let value = number(d, sep + 1, b), value.isFinite else {
            return "\"\(text(a, b))\": the value is not a number"
        }
        guard let shape = names.shape(d, a, sep) else { return nil }
        parts.values[shape.rawValue] = Float(min(1, max(0, value / 100)))
        parts.shapes += 1
        return nil
    }
}
