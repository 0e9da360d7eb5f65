// The iFacialMocap reader as it was before the successor guess and integer digits (commit 695c2c1), kept
// unchanged as the oracle the current reader must agree with byte for byte. Not used outside tests.

import Foundation
@testable import FrameFormats
import TrackingCore

/// Frames from iFacialMocap (UDP 49983), which Android apps speak too: `name-value|` or `name&value|` pairs
/// with values 0–100 and `_L`/`_R` for sides, then `=head#rx,ry,rz,px,py,pz|`, `rightEye#rx,ry,rz|` and
/// `leftEye#…|` in degrees.
///
/// The phone starts sending after the handshake datagram `handshake`, sent to its port 49983. The data carries
/// no time, so frames take the arrival time given by the caller.
enum IFacialMocapReference {
    static let defaultPort: UInt16 = 49983
    static let handshake = "iFacialMocap_sahuasouryya9218sauhuiayeta91555dy3719"

    /// Whether a datagram looks like iFacialMocap text: printable ASCII with `|` separated pairs.
    static func looksLike(_ d: UnsafeRawBufferPointer) -> Bool {
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

    static func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> DecodedItem {
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
