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
                guard let v = numberObject(Self.eyeKeys) else { return nil }
                eyes = EyeAngles(leftYaw: v.0, leftPitch: v.1, rightYaw: v.2, rightPitch: v.3)
            case 4 where equals(k, "head"):
                bit = 32
                guard let v = numberObject(Self.headKeys) else { return nil }
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
        if values.isEmpty { values = [Float](repeating: 0, count: BlendShape.count) }
        if take(UInt8(ascii: "}")) { return true }
        let names = BlendNames.table
        // The encoder writes shapes in order, so the next name is most often the one after the last.
        var guess = 0
        return values.withUnsafeMutableBufferPointer { v in
            let n = b.count
            while true {
                let shape: Int
                skipSpace()
                if i < n, b[i] == Self.quote, let (found, end) = names.name(at: i + 1, in: b, guess: guess) {
                    shape = found
                    i = end
                } else {
                    guard let k = key(), let found = names.shape(b, k, guess: guess) else { return false }
                    shape = found
                }
                guess = shape + 1
                // The encoder's own spacing, `": 0.ddd, "`, is read without the general steps; anything else
                // (other spacing, other numbers) goes through them.
                var j = i + 2
                if n - i >= 2, b[i] == UInt8(ascii: ":"), b[i + 1] == 0x20, let x = PlainDecimal.zeroPoint(b, &j, negative: false) {
                    i = j
                    v[shape] = Float(x)
                } else {
                    guard take(UInt8(ascii: ":")), let d = number() else { return false }
                    v[shape] = Float(d)
                }
                if n - i >= 2, b[i] == UInt8(ascii: ","), b[i + 1] == 0x20 {
                    i += 2
                } else if !take(UInt8(ascii: ",")) {
                    break
                }
            }
            return take(UInt8(ascii: "}"))
        }
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

    private init() {
        var bytes: [UInt8] = [], starts = [0]
        for s in BlendShape.allCases {
            bytes += Array(s.name.utf8)
            starts.append(bytes.count)
        }
        self.bytes = bytes
        self.starts = starts
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
