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
        d.count >= 4 && d.count % 4 == 0 && (d[0] == UInt8(ascii: "/") || d.starts(with: Array("#bundle\0".utf8)))
    }

    /// The messages in a packet, in order, or the reason it is not OSC.
    public static func messages(_ d: UnsafeRawBufferPointer) -> Result<[OSCMessage], OSCError> {
        var out: [OSCMessage] = []
        do throws(OSCError) {
            try parse(d, depth: 0, into: &out)
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    public struct OSCError: Error, Sendable, Equatable { public var message: String }

    private static func parse(_ d: UnsafeRawBufferPointer, depth: Int, into out: inout [OSCMessage]) throws(OSCError) {
        guard depth <= maxDepth else { throw OSCError(message: "bundles nested deeper than \(maxDepth)") }
        guard d.count % 4 == 0 else { throw OSCError(message: "OSC packet of \(d.count) bytes is not a multiple of 4") }
        if d.starts(with: Array("#bundle\0".utf8)) {
            guard d.count >= 16 else { throw OSCError(message: "bundle cut short before its time tag") }
            var k = 16
            while k < d.count {
                guard d.count - k >= 4 else { throw OSCError(message: "bundle element size cut short") }
                let size = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard size >= 0, size <= d.count - k else {
                    throw OSCError(message: "bundle element of \(size) bytes runs past the packet's end")
                }
                try parse(UnsafeRawBufferPointer(rebasing: d[k..<(k + size)]), depth: depth + 1, into: &out)
                k += size
            }
            return
        }
        var k = 0
        let address = try string(d, &k)
        guard address.hasPrefix("/") else { throw OSCError(message: "OSC address \"\(address)\" does not start with '/'") }
        // A message without a type tag string (old senders) has no arguments.
        guard k < d.count else { out.append(OSCMessage(address: address, arguments: [])); return }
        let tags = try string(d, &k)
        guard tags.hasPrefix(",") else { throw OSCError(message: "type tags \"\(tags)\" do not start with ','") }
        var args: [OSCMessage.Argument] = []
        for tag in tags.utf8.dropFirst() {
            func need(_ n: Int) throws(OSCError) {
                guard d.count - k >= n else { throw OSCError(message: "argument '\(Character(Unicode.Scalar(tag)))' cut short") }
            }
            switch tag {
            case UInt8(ascii: "i"):
                try need(4)
                args.append(.int(Int64(Int32(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))))
                k += 4
            case UInt8(ascii: "f"):
                try need(4)
                args.append(.float(Double(Float(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))))
                k += 4
            case UInt8(ascii: "h"):
                try need(8)
                args.append(.int(Int64(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))))
                k += 8
            case UInt8(ascii: "d"):
                try need(8)
                args.append(.float(Double(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))))
                k += 8
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                args.append(.string(try string(d, &k)))
            case UInt8(ascii: "b"):
                try need(4)
                let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard n <= d.count - k else { throw OSCError(message: "blob of \(n) bytes runs past the packet's end") }
                args.append(.blob(Array(d[k..<(k + n)])))
                k += (n + 3) & ~3
            case UInt8(ascii: "T"): args.append(.bool(true))
            case UInt8(ascii: "F"): args.append(.bool(false))
            case UInt8(ascii: "N"), UInt8(ascii: "I"): args.append(.none)
            default:
                throw OSCError(message: "unknown OSC type tag '\(printable(tag))'")
            }
        }
        out.append(OSCMessage(address: address, arguments: args))
    }

    /// Reads a NUL-terminated string padded to 4 bytes.
    private static func string(_ d: UnsafeRawBufferPointer, _ k: inout Int) throws(OSCError) -> String {
        var end = k
        while end < d.count, d[end] != 0 { end += 1 }
        guard end < d.count else { throw OSCError(message: "OSC string is not terminated") }
        let s = String(decoding: d[k..<end], as: UTF8.self)
        k = min(d.count, (end + 4) & ~3)
        return s
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
    var blend = BlendShapes()
    var head: HeadPose?
    var pendingShapes = false

    public init() {}

    /// Decodes one datagram that arrived at `arrival` seconds; an Apply inside it yields a frame.
    public mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
        let pos = SourcePosition(.packet, index)
        let messages: [OSCMessage]
        switch OSC.messages(d) {
        case .success(let m): messages = m
        case .failure(let e): return [.malformed(FrameIssue(pos, e.message))]
        }
        var out: [DecodedItem] = []
        var unknown = 0
        for m in messages {
            switch m.address {
            case "/VMC/Ext/Blend/Val":
                guard m.arguments.count >= 2, case .string(let name) = m.arguments[0], let v = m.arguments[1].number,
                      v.isFinite else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Blend/Val needs a name and a number")))
                    continue
                }
                for (shape, scale) in Self.shapes(named: name) {
                    blend[shape] = Float(min(1, max(0, v * scale)))
                }
                pendingShapes = true
            case "/VMC/Ext/Blend/Apply":
                if let p = FrameTime.problem(arrival) { out.append(.malformed(FrameIssue(pos, p))); continue }
                out.append(.frame(TrackingFrame(t: arrival, blend: blend, head: head), pos))
                pendingShapes = false
            case "/VMC/Ext/Bone/Pos":
                guard m.arguments.count >= 8, case .string(let bone) = m.arguments[0] else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos needs a bone name and 7 numbers")))
                    continue
                }
                guard bone == "Head" else { continue }
                let q = m.arguments[4...7].compactMap(\.number)
                guard q.count == 4, q.allSatisfy(\.isFinite) else {
                    out.append(.malformed(FrameIssue(pos, "/VMC/Ext/Bone/Pos Head: the rotation is not 4 numbers")))
                    continue
                }
                head = Self.headPose(qx: q[0], qy: q[1], qz: q[2], qw: q[3])
            default:
                // Other VMC messages (root, trackers, time, status) carry nothing a face gesture needs.
                if !m.address.hasPrefix("/VMC/") { unknown += 1 }
            }
        }
        if out.isEmpty, unknown > 0, unknown == messages.count {
            out.append(.malformed(FrameIssue(pos, "OSC message \(messages[0].address.prefix(60)) is not a VMC message")))
        }
        return out
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
        guard d.count >= 4, d.contains(UInt8(ascii: "|")) else { return false }
        let head = d.prefix(64)
        guard head.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D }) else { return false }
        return head.contains(UInt8(ascii: "-")) || head.contains(UInt8(ascii: "&")) || head.contains(UInt8(ascii: "#"))
    }

    /// Shape names as iFacialMocap writes them (`eyeBlink_L`) and as ARKit does (`eyeBlinkLeft`), by a hash of
    /// their bytes; the bytes are compared too, so a collision cannot pick the wrong shape.
    static let names: [UInt64: (bytes: [UInt8], shape: BlendShape)] = {
        var out: [UInt64: (bytes: [UInt8], shape: BlendShape)] = [:]
        for shape in BlendShape.allCases {
            var forms = [shape.name]
            if shape.name.hasSuffix("Left") { forms.append(shape.name.dropLast(4) + "_L") }
            if shape.name.hasSuffix("Right") { forms.append(shape.name.dropLast(5) + "_R") }
            for f in forms { let b = Array(f.utf8); out[hash(b[...])] = (b, shape) }
        }
        return out
    }()

    static func hash<C: Collection<UInt8>>(_ b: C) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for c in b { h = (h ^ UInt64(c)) &* 0x100000001b3 }
        return h
    }

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

    public static func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> DecodedItem {
        let pos = SourcePosition(.packet, index)
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        if let p = FrameTime.problem(arrival) { return bad(p) }
        for c in d where !(c >= 0x20 && c < 0x7F || c == 0x0A || c == 0x0D) { _ = c; return bad("iFacialMocap data must be printable text") }
        func text(_ a: Int, _ b: Int) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: d[a..<min(b, a + 40)]), as: UTF8.self) }
        var frame = TrackingFrame(t: arrival)
        var shapes = 0
        var right: [Double]?, left: [Double]?
        var start = 0
        while start < d.count {
            var end = start
            while end < d.count, d[end] != UInt8(ascii: "|") { end += 1 }
            defer { start = end + 1 }
            var a = start, b = end
            while a < b, d[a] == 0x20 || d[a] == 0x0A || d[a] == 0x0D || d[a] == 0x09 { a += 1 }
            while b > a, d[b - 1] == 0x20 || d[b - 1] == 0x0A || d[b - 1] == 0x0D || d[b - 1] == 0x09 { b -= 1 }
            if a == b { continue }
            var hashAt = a
            while hashAt < b, d[hashAt] != UInt8(ascii: "#") { hashAt += 1 }
            if hashAt < b {
                var n0 = a
                while n0 < hashAt, d[n0] == UInt8(ascii: "=") { n0 += 1 }
                var values: [Double] = []
                var k = hashAt + 1
                while k <= b {
                    var e = k
                    while e < b, d[e] != UInt8(ascii: ",") { e += 1 }
                    var x = k, y = e
                    while x < y, d[x] == 0x20 { x += 1 }
                    while y > x, d[y - 1] == 0x20 { y -= 1 }
                    guard let v = number(d, x, y), v.isFinite else { return bad("\(text(n0, hashAt))# needs at least 3 numbers") }
                    values.append(v * .pi / 180)
                    k = e + 1
                }
                guard values.count >= 3 else { return bad("\(text(n0, hashAt))# needs at least 3 numbers") }
                let name = UnsafeRawBufferPointer(rebasing: d[n0..<hashAt])
                if name.elementsEqual("head".utf8) { frame.head = HeadPose(yaw: values[1], pitch: values[0], roll: values[2]) }
                else if name.elementsEqual("rightEye".utf8) { right = values }
                else if name.elementsEqual("leftEye".utf8) { left = values }
                continue
            }
            // `name-value` (older) or `name&value`; a name never holds either separator.
            var sep = b - 1
            while sep > a, d[sep] != UInt8(ascii: "-"), d[sep] != UInt8(ascii: "&") { sep -= 1 }
            guard sep > a else { return bad("\"\(text(a, b))\" is not name-value") }
            guard let value = number(d, sep + 1, b), value.isFinite else {
                return bad("\"\(text(a, b))\": the value is not a number")
            }
            let name = UnsafeRawBufferPointer(rebasing: d[a..<sep])
            guard let entry = names[hash(name)], name.elementsEqual(entry.bytes) else { continue }
            frame.blend[entry.shape] = Float(min(1, max(0, value / 100)))
            shapes += 1
        }
        if let r = right, let l = left {
            frame.eyes = EyeAngles(leftYaw: l[1], leftPitch: l[0], rightYaw: r[1], rightPitch: r[0])
        }
        guard shapes > 0 || frame.head != nil else { return bad("no blend shape or head pose in the datagram") }
        return .frame(frame, pos)
    }
}
