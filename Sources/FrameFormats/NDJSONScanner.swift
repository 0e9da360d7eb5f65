import TrackingCore

/// Decodes the usual shape of a native NDJSON frame line straight from its bytes, or declines it.
///
/// The full parser (`JSONParser`, then `NDJSONDecoder.frame(from:)`) builds a value tree with a String for
/// every key, which is most of the cost of a line. This scanner reads the known keys in place and accepts a
/// line only when it can tell the full parser would turn it into exactly this frame: each of `t`, `face`,
/// `blend`, `gaze`, `eyes`, `head` at most once and no other key, no escapes in names, blend names spelt as
/// ARKit or Live Link Face spell them, numbers read by the same `FastFloat` the parser uses, and a usable
/// timestamp. Anything else (unknown or repeated keys, `null` values, bad syntax, a bad frame) gives nil, and
/// the caller hands the line to the full parser, which decides it and words any message.
struct NDJSONScanner {
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0

    private init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    /// The frame on `line`, or nil when the full parser must decide the line.
    static func frame(_ line: UnsafeBufferPointer<UInt8>) -> TrackingFrame? {
        var s = NDJSONScanner(line)
        return s.frame()
    }

    private static let quote = UInt8(ascii: "\"")

    private mutating func frame() -> TrackingFrame? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var t: Double?
        var face = true
        var blend: [Float] = []
        var gaze: GazePoint?
        var eyes: EyeAngles?
        var head: HeadPose?
        var seen: UInt8 = 0
        repeat {
            guard let k = key(), take(UInt8(ascii: ":")) else { return nil }
            let bit: UInt8
            switch k.count {
            case 1 where b[k.lowerBound] == UInt8(ascii: "t"):
                bit = 1
                guard let v = number() else { return nil }
                t = v
            case 4 where equals(k, "face"):
                bit = 2
                skipSpace()
                if literal("true") { face = true } else if literal("false") { face = false } else { return nil }
            case 5 where equals(k, "blend"):
                bit = 4
                guard blendObject(&blend) else { return nil }
            case 4 where equals(k, "gaze"):
                bit = 8
                guard take(UInt8(ascii: "[")), let x = number(), take(UInt8(ascii: ",")), let y = number(),
                      take(UInt8(ascii: "]")) else { return nil }
                gaze = GazePoint(x: x, y: y)
            case 4 where equals(k, "eyes"):
                bit = 16
                let at = i
                let fast = ordered4("{\"leftYaw\": ", ", \"leftPitch\": ", ", \"rightYaw\": ", ", \"rightPitch\": ")
                if fast == nil { i = at }
                guard let v = fast ?? numberObject(Self.eyeKeys) else { return nil }
                eyes = EyeAngles(leftYaw: v.0, leftPitch: v.1, rightYaw: v.2, rightPitch: v.3)
            case 4 where equals(k, "head"):
                bit = 32
                let at = i
                let fast = ordered3("{\"yaw\": ", ", \"pitch\": ", ", \"roll\": ")
                if fast == nil { i = at }
                guard let v = fast ?? numberObject(Self.headKeys) else { return nil }
                head = HeadPose(yaw: v.0, pitch: v.1, roll: v.2)
            default:
                return nil
            }
            // A repeated key: the full parser reads the first one; leave that to it.
            guard seen & bit == 0 else { return nil }
            seen |= bit
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        skipSpace()
        guard i == b.count, let t, FrameTime.problem(t) == nil else { return nil }
        let shapes = blend.isEmpty ? BlendShapes() : BlendShapes(values: blend) ?? BlendShapes()
        return TrackingFrame(t: t, face: face, blend: shapes, gaze: gaze, eyes: eyes, head: head)
    }

    /// Skips JSON white space (the same four bytes as `JSONParser`).
    @inline(__always)
    private mutating func skipSpace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return }
            i += 1
        }
    }

    /// Skips space, then `c` if it comes next.
    @inline(__always)
    private mutating func take(_ c: UInt8) -> Bool {
        skipSpace()
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    /// `word` (1 to 16 bytes) if it comes next, compared a word at a time; nothing is skipped before it.
    ///
    /// The two words lie within the word's own `n` bytes, so `n` bytes left are enough: asking for sixteen
    /// sent the head's last key, near the end of the line, through `literal`'s byte loop.
    @inline(__always)
    private mutating func exactly(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard b.count &- i >= n, let base = b.baseAddress else { return literal(word) }
        let x = UnsafeRawPointer(base + i), y = UnsafeRawPointer(word.utf8Start)
        let same: Bool
        if n >= 8 {
            same = x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
                && x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        } else {
            var k = 0
            while k < n, x.load(fromByteOffset: k, as: UInt8.self) == y.load(fromByteOffset: k, as: UInt8.self) { k += 1 }
            same = k == n
        }
        if same { i += n }
        return same
    }

    /// The encoder's own spelling of a three-number object, `{"k0": n, "k1": n, "k2": n}` with its keys in
    /// order and its spacing, read without looking keys up; nil (with `i` moved) for anything else.
    @inline(__always)
    private mutating func ordered3(_ k0: StaticString, _ k1: StaticString, _ k2: StaticString) -> (Double, Double, Double, Double)? {
        skipSpace()
        guard exactly(k0), let v0 = number(), exactly(k1), let v1 = number(), exactly(k2), let v2 = number(),
              take(UInt8(ascii: "}")) else { return nil }
        return (v0, v1, v2, 0)
    }

    /// As `ordered3` for four numbers.
    @inline(__always)
    private mutating func ordered4(_ k0: StaticString, _ k1: StaticString, _ k2: StaticString, _ k3: StaticString) -> (Double, Double, Double, Double)? {
        skipSpace()
        guard exactly(k0), let v0 = number(), exactly(k1), let v1 = number(), exactly(k2), let v2 = number(),
              exactly(k3), let v3 = number(), take(UInt8(ascii: "}")) else { return nil }
        return (v0, v1, v2, v3)
    }

    /// `word` if it comes next.
    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard b.count - i >= n else { return false }
        let w = word.utf8Start
        for k in 0..<n where b[i + k] != w[k] { return false }
        i += n
        return true
    }

    @inline(__always)
    private func equals(_ r: Range<Int>, _ word: StaticString) -> Bool {
        let w = word.utf8Start
        guard r.count == word.utf8CodeUnitCount else { return false }
        for k in 0..<r.count where b[r.lowerBound + k] != w[k] { return false }
        return true
    }

    /// A member name with no escapes or control characters, as the byte range between its quotes.
    @inline(__always)
    private mutating func key() -> Range<Int>? {
        guard take(Self.quote) else { return nil }
        let start = i
        while i < b.count {
            let c = b[i]
            if c == Self.quote {
                i += 1
                return start..<(i - 1)
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// A JSON number, scanned and read exactly as `JSONParser` does; nil for `null` or anything else.
    ///
    /// The usual plain decimal is read in the same pass that finds its end; anything else (an exponent,
    /// a second dot, too many digits) is scanned as `JSONParser` scans it and read by `FastFloat.parse`.
    @inline(__always)
    private mutating func number() -> Double? {
        skipSpace()
        let n = b.count
        guard i < n else { return nil }
        let start = i
        let first = b[i]
        guard first == UInt8(ascii: "-") || first &- 0x30 < 10 else { return nil }
        let negative = first == UInt8(ascii: "-")
        if negative { i += 1 }
        // A lone zero, as the encoder writes 0 (head angles of a take without them): ended by a byte that
        // cannot continue a JSON number, it is 0 (-0 after a minus), as the general steps would read it.
        if n &- i >= 2, b[i] == UInt8(ascii: "0") {
            let c = b[i &+ 1]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == UInt8(ascii: " ") {
                i &+= 1
                return negative ? -0.0 : 0.0
            }
        }
        // Most blend values are a Float's description, `0.` and up to nine decimals.
        if let x = PlainDecimal.zeroPoint(b, &i, negative: negative) { return x }
        let r = PlainDecimal.digits(b, &i)
        if i < n {
            let c = b[i]
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                || c == UInt8(ascii: ".") {
                // Not a plain decimal: scan on as JSONParser does and let FastFloat read it.
                while i < n {
                    let c = b[i]
                    guard c &- 0x30 < 10 || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                            || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") else { break }
                    i += 1
                }
                return FastFloat.parse(b, start, i)
            }
        }
        return PlainDecimal.value(r, negative: negative) ?? FastFloat.parse(b, start, i)
    }

    /// `{"name": number, ...}` of blend shapes into `values` (all 52, made on the first), in order, a later
    /// value for a shape replacing an earlier one as in the full decoder.
    private mutating func blendObject(_ values: inout [Float]) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if values.isEmpty { values = BlendShapes.restValues }
        if take(UInt8(ascii: "}")) { return true }
        let names = BlendNames.table
        return values.withUnsafeMutableBufferPointer { v in
            names.keys.withUnsafeBufferPointer { keys in blendMembers(v, keys, names) }
        }
    }

    /// The members of a blend object after its `{`, through its `}`.
    ///
    /// The encoder's own spelling (`"name": 0.ddd, ` with names in shape order) is read with the position in
    /// a local, so it stays in a register: through `i` it went to memory and back at every step. Anything else
    /// takes the general steps. Positions on the fast steps only move forward within the line, checked
    /// against its length first, so their arithmetic cannot overflow and is left unchecked.
    @inline(__always)
    private mutating func blendMembers(_ v: UnsafeMutableBufferPointer<Float>, _ keys: UnsafeBufferPointer<BlendNames.Key>,
                                       _ names: BlendNames) -> Bool {
        guard let base = b.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let n = b.count
        let count = BlendShape.count
        // The encoder writes shapes in order, so the next name is most often the one after the last.
        var guess = 0
        var p = i
        while true {
            var shape = -1
            if n &- p >= 26, base[p] == Self.quote {
                // The key's first 24 bytes against each name and its closing quote, masked to the name's length.
                // `| 0x20` on the first byte accepts the capitalised spelling (names start with a lowercase letter).
                let x0 = raw.loadUnaligned(fromByteOffset: p &+ 1, as: UInt64.self) | 0x20
                let x1 = raw.loadUnaligned(fromByteOffset: p &+ 9, as: UInt64.self)
                let x2 = raw.loadUnaligned(fromByteOffset: p &+ 17, as: UInt64.self)
                var k = guess
                var tried = 0
                while tried < count {
                    let key = keys[k]
                    if (x0 ^ key.w0) & key.m0 | (x1 ^ key.w1) & key.m1 | (x2 ^ key.w2) & key.m2 == 0 {
                        shape = k
                        p &+= 1 &+ key.length
                        break
                    }
                    k = k &+ 1 == count ? 0 : k &+ 1
                    tried &+= 1
                }
                // Bytes equal to no name and its quote: escapes, other spacing or an unknown name; the general
                // steps below decide.
            }
            if shape < 0 {
                i = p
                guard let k = key(), let found = names.shape(b, k, guess: guess) else { return false }
                shape = found
                p = i
            }
            guess = shape &+ 1 == count ? 0 : shape &+ 1
            // ": 0." as one 32-bit word, then the decimals; ", " as one 16-bit word.
            if n &- p >= 21, raw.loadUnaligned(fromByteOffset: p, as: UInt32.self) == UInt32(littleEndian: 0x2E30_203A),
               let (x, k) = PlainDecimal.decimals(raw + (p &+ 4)) {
                p &+= 4 &+ k
                v[shape] = Float(x)
            } else {
                i = p
                guard take(UInt8(ascii: ":")), let d = number() else { return false }
                v[shape] = Float(d)
                p = i
            }
            if n &- p >= 2, raw.loadUnaligned(fromByteOffset: p, as: UInt16.self) == UInt16(littleEndian: 0x202C) {
                p &+= 2
                continue
            }
            i = p
            guard take(UInt8(ascii: ",")) else { break }
            p = i
        }
        return take(UInt8(ascii: "}"))
    }

    private static let eyeKeys: [StaticString] = ["leftYaw", "leftPitch", "rightYaw", "rightPitch"]
    private static let headKeys: [StaticString] = ["yaw", "pitch", "roll"]

    /// `{"k": number, ...}` with each of `keys` exactly once and nothing else; the values in `keys` order
    /// (the fourth is 0 for three keys).
    private mutating func numberObject(_ keys: [StaticString]) -> (Double, Double, Double, Double)? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var v = (0.0, 0.0, 0.0, 0.0)
        var seen = 0
        repeat {
            guard let k = key(), take(UInt8(ascii: ":")) else { return nil }
            guard let slot = keys.firstIndex(where: { equals(k, $0) }), seen & (1 << slot) == 0, let d = number() else {
                return nil
            }
            seen |= 1 << slot
            switch slot {
            case 0: v.0 = d
            case 1: v.1 = d
            case 2: v.2 = d
            default: v.3 = d
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), seen == (1 << keys.count) - 1 else { return nil }
        return v
    }
}

/// Blend-shape names looked up from bytes, as `BlendShape(name:)` looks them up from a String: the ARKit
/// name (`jawOpen`) or the same with a capital first letter (`JawOpen`).
final class BlendNames: Sendable {
    static let table = BlendNames()

    /// All names back to back; name `k` is `bytes[starts[k]..<starts[k + 1]]`.
    private let bytes: [UInt8]
    private let starts: [Int]

    /// A name and its closing quote as three little-endian words and masks, for comparing a key without
    /// first finding where it ends.
    struct Key {
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0
        var m0: UInt64 = 0, m1: UInt64 = 0, m2: UInt64 = 0
        /// The name's length plus its closing quote.
        var length = 0
    }

    /// One ``Key`` per shape, in ``BlendShape`` order.
    let keys: [Key]

    private init() {
        var bytes: [UInt8] = [], starts = [0]
        for s in BlendShape.allCases {
            bytes += Array(s.name.utf8)
            starts.append(bytes.count)
        }
        self.bytes = bytes
        self.starts = starts
        keys = BlendShape.allCases.map { shape in
            let text = Array(shape.name.utf8) + [UInt8(ascii: "\"")]
            precondition(text.count <= 24 && text[0] & 0x20 != 0, "a blend name must fit three words and start in lowercase")
            var words: [UInt64] = [0, 0, 0], masks: [UInt64] = [0, 0, 0]
            for (k, c) in text.enumerated() {
                words[k / 8] |= UInt64(c) << UInt64(k % 8 * 8)
                masks[k / 8] |= 0xFF << UInt64(k % 8 * 8)
            }
            return Key(w0: words[0], w1: words[1], w2: words[2], m0: masks[0], m1: masks[1], m2: masks[2], length: text.count)
        }
    }

    /// The index (``BlendShape`` raw value) of the shape named by `b[r]`, trying `guess` and the names after
    /// it first; nil if none is named so.
    @inline(__always)
    func shape(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>, guess: Int) -> Int? {
        let count = BlendShape.count
        guard r.count >= 2 else { return nil }
        for s in guess..<(guess + count) {
            let k = s < count ? s : s - count
            if matches(k, b, r) { return k }
        }
        return nil
    }

    /// The index of the shape `name` names, trying `guess` and the names after it first; nil if none.
    @inline(__always)
    func shape(_ name: UnsafeRawBufferPointer, guess: Int) -> Int? {
        let b = name.assumingMemoryBound(to: UInt8.self)
        return shape(b, 0..<b.count, guess: min(max(0, guess), BlendShape.count))
    }

    /// The shape whose name, followed by its closing quote, starts at `start`, and the index after that
    /// quote; nil if no name does. Trying `guess` and the names after it, most lines end the search at once.
    ///
    /// Bytes equal to a name and then a quote are exactly that key (no escapes, no control characters), so
    /// this needs no scan of the key first.
    @inline(__always)
    func name(at start: Int, in b: UnsafeBufferPointer<UInt8>, guess: Int) -> (Int, Int)? {
        let n = b.count
        for k in guess..<BlendShape.count {
            let s = starts[k], len = starts[k + 1] - s
            let end = start + len
            guard end < n, b[end] == UInt8(ascii: "\""), matches(k, b, start..<end) else { continue }
            return (k, end + 1)
        }
        return nil
    }

    /// True if `b[r]` is name `k`, or name `k` with its first letter capitalised.
    @inline(__always)
    private func matches(_ k: Int, _ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Bool {
        let s = starts[k], n = starts[k + 1] - s
        guard n == r.count else { return false }
        return bytes.withUnsafeBufferPointer { names in
            let f = b[r.lowerBound], first = names[s]
            // ARKit names start with a lowercase ASCII letter.
            guard f == first || f == first &- 0x20 else { return false }
            // The rest a word at a time, the last word overlapping the one before (names are 4–21 bytes).
            let x = UnsafeRawPointer(b.baseAddress.unsafelyUnwrapped + r.lowerBound + 1)
            let y = UnsafeRawPointer(names.baseAddress.unsafelyUnwrapped + s + 1)
            let m = n - 1
            guard m >= 8 else {
                var j = 0
                while j < m {
                    if x.load(fromByteOffset: j, as: UInt8.self) != y.load(fromByteOffset: j, as: UInt8.self) { return false }
                    j += 1
                }
                return true
            }
            var j = 0
            while m - j > 8 {
                if x.loadUnaligned(fromByteOffset: j, as: UInt64.self) != y.loadUnaligned(fromByteOffset: j, as: UInt64.self) {
                    return false
                }
                j += 8
            }
            return x.loadUnaligned(fromByteOffset: m - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: m - 8, as: UInt64.self)
        }
    }
}
