#if canImport(Glibc)
import Glibc
#endif
import TrackingCore

extension BlendShapes {
    /// Every shape at rest, as an array for a decoder to copy and fill.
    ///
    /// A copy of an existing array is allocated with the type it already has; a new one
    /// (`[Float](repeating:count:)`) looked its type up at run time, which cost a few percent of every frame.
    static let restValues = [Float](repeating: 0, count: BlendShape.count)
}

/// Turns a byte stream into frames, one piece at a time; bytes may arrive split anywhere.
public protocol FrameDecoder: Sendable {
    /// Feeds more bytes; returns the items completed by them.
    mutating func feed<C: Collection<UInt8>>(_ bytes: C) -> [DecodedItem]
    /// Ends the stream; returns what the last, unterminated piece held.
    mutating func finish() -> [DecodedItem]
}

/// Splits bytes into lines (LF or CRLF), counting them from 1 and bounding their length.
public struct LineSplitter: Sendable {
    public static let maxLineLength = 1 << 20
    private var buffer: [UInt8] = []
    private var overlong = false
    public private(set) var lineNumber = 0

    public init() {}

    /// Calls `body` with each complete line and its number; an overlong line is passed as nil.
    public mutating func feed<C: Collection<UInt8>>(_ bytes: C, _ body: (ArraySlice<UInt8>?, Int) -> Void) {
        feedLines(bytes) { line, n in body(line.map { Array($0)[...] }, n) }
    }

    /// How many newlines `bytes` holds (at most the number of lines a feed of them completes), counted with
    /// `memchr`; 0 for a collection without contiguous storage.
    ///
    /// For a decoder to reserve its items at once: grown by doubling, the items of a whole recording (some
    /// 150 bytes each) were copied about twice over, and each larger array was fresh memory to fault in.
    static func newlines<C: Collection<UInt8>>(in bytes: C) -> Int {
        bytes.withContiguousStorageIfAvailable { b -> Int in
            guard var p = b.baseAddress else { return 0 }
            let end = p + b.count
            var count = 0
            while p < end, let nl = memchr(p, 0x0A, end - p) {
                count += 1
                p = UnsafePointer(nl.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return count
        } ?? 0
    }

    /// Calls `body` with each complete line (its bytes valid only during the call) and its number; an
    /// overlong line is passed as nil.
    ///
    /// A line that arrives whole is passed where it lies in `bytes`; only a line split across calls is
    /// gathered in the buffer first.
    mutating func feedLines<C: Collection<UInt8>>(_ bytes: C, _ body: (UnsafeBufferPointer<UInt8>?, Int) -> Void) {
        // One concrete buffer, so the scanning below is specialised rather than generic over the collection.
        if let done: Void = bytes.withContiguousStorageIfAvailable({ feed(buffer: $0, body) }) { return done }
        let array = Array(bytes)
        array.withUnsafeBufferPointer { feed(buffer: $0, body) }
    }

    private mutating func feed(buffer bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?, Int) -> Void) {
        var start = 0
        let n = bytes.count
        guard let base = bytes.baseAddress else { return }
        while start < n {
            let nl = memchr(base + start, 0x0A, n - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? n
            guard nl < n else {
                append(UnsafeBufferPointer(rebasing: bytes[start..<n]))
                return
            }
            lineNumber += 1
            if buffer.isEmpty && !overlong {
                // The whole line is here: no copy.
                if nl - start > Self.maxLineLength {
                    body(nil, lineNumber)
                } else {
                    var end = nl
                    if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                    body(UnsafeBufferPointer(rebasing: bytes[start..<end]), lineNumber)
                }
            } else {
                append(UnsafeBufferPointer(rebasing: bytes[start..<nl]))
                flush(body)
            }
            start = nl + 1
        }
    }

    /// Adds part of a line to the buffer, or marks the line overlong.
    private mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard !overlong else { return }
        if buffer.count + piece.count > Self.maxLineLength {
            overlong = true
            buffer.removeAll()
        } else {
            buffer.append(contentsOf: piece)
        }
    }

    /// Passes the buffered line (without a final CR) and empties the buffer.
    private mutating func flush(_ body: (UnsafeBufferPointer<UInt8>?, Int) -> Void) {
        if overlong {
            body(nil, lineNumber)
        } else {
            var end = buffer.count
            if end > 0, buffer[end - 1] == 0x0D { end -= 1 }
            buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<end]), lineNumber) }
        }
        buffer.removeAll(keepingCapacity: true)
        overlong = false
    }

    /// Flushes a final line with no newline.
    public mutating func finish(_ body: (ArraySlice<UInt8>?, Int) -> Void) {
        finishLines { line, n in body(line.map { Array($0)[...] }, n) }
    }

    /// Flushes a final line with no newline (its bytes valid only during the call).
    mutating func finishLines(_ body: (UnsafeBufferPointer<UInt8>?, Int) -> Void) {
        guard !buffer.isEmpty || overlong else { return }
        lineNumber += 1
        if overlong {
            body(nil, lineNumber)
        } else {
            // The last line keeps a final CR, as it always has.
            buffer.withUnsafeBufferPointer { body($0, lineNumber) }
        }
        buffer.removeAll()
        overlong = false
    }
}

func isBlank<C: Collection<UInt8>>(_ line: C) -> Bool {
    line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
}

/// Decodes the native NDJSON frame format (see docs/frames.md).
///
/// Each line goes through `NDJSONScanner` first, which reads the usual frame straight from its bytes; a line
/// it declines goes to the full JSON parser, which gives the same frames and words every message.
public struct NDJSONDecoder: FrameDecoder {
    private var lines = LineSplitter()
    public init() {}

    public mutating func feed<C: Collection<UInt8>>(_ bytes: C) -> [DecodedItem] {
        var out: [DecodedItem] = []
        lines.feedLines(bytes) { line, n in Self.decodeLine(line, n, into: &out) }
        return out
    }

    public mutating func finish() -> [DecodedItem] {
        var out: [DecodedItem] = []
        lines.finishLines { line, n in Self.decodeLine(line, n, into: &out) }
        return out
    }

    /// Appends what line `n` holds, if anything, to `out`: built there rather than returned, since each
    /// return of an item (some 150 bytes) was a copy.
    static func decodeLine(_ line: UnsafeBufferPointer<UInt8>?, _ n: Int, into out: inout [DecodedItem]) {
        let pos = SourcePosition(.line, n)
        guard let line else {
            out.append(.malformed(FrameIssue(pos, "line longer than \(LineSplitter.maxLineLength) bytes")))
            return
        }
        if isBlank(line) { return }
        if let f = NDJSONScanner.frame(line) {
            out.append(.frame(f, pos))
        } else {
            out.append(decodeWithParser(Array(line), position: pos))
        }
    }

    /// Decodes one NDJSON frame object.
    public static func decode<C: Collection<UInt8>>(_ bytes: C, position: SourcePosition?) -> DecodedItem {
        let array = Array(bytes)
        let fast = array.withUnsafeBufferPointer { NDJSONScanner.frame($0) }
        if let fast { return .frame(fast, position) }
        return decodeWithParser(array, position: position)
    }

    /// Decodes one NDJSON frame object with the full JSON parser: the reference `NDJSONScanner` must agree with.
    static func decodeWithParser(_ bytes: [UInt8], position: SourcePosition?) -> DecodedItem {
        let v: JSONValue
        do {
            v = try JSONParser.parse(array: bytes)
        } catch {
            return .malformed(FrameIssue(position, "not valid JSON (\(error))"))
        }
        switch frame(from: v) {
        case .success(let f): return .frame(f, position)
        case .failure(let e): return .malformed(FrameIssue(position, e.message))
        }
    }

    struct Problem: Error { var message: String }

    static func frame(from v: JSONValue) -> Result<TrackingFrame, Problem> {
        guard case .object = v else { return .failure(Problem(message: "a frame must be a JSON object")) }
        guard let tv = v["t"], let t = number(tv) else {
            return .failure(Problem(message: "missing number \"t\" (seconds)"))
        }
        if let p = FrameTime.problem(t) { return .failure(Problem(message: p)) }
        var frame = TrackingFrame(t: t)
        if let face = v["face"] {
            guard let b = face.bool else { return .failure(Problem(message: "\"face\" must be true or false")) }
            frame.face = b
        }
        if let blend = v["blend"] {
            guard case .object(let members) = blend else {
                return .failure(Problem(message: "\"blend\" must be an object of blend-shape values"))
            }
            for (name, value) in members {
                guard let shape = BlendShape(name: name) else {
                    return .failure(Problem(message: "unknown blend shape \"\(name)\" (known: ARKit names such as jawOpen, eyeBlinkRight, tongueOut)"))
                }
                guard let d = number(value) else {
                    return .failure(Problem(message: "blend shape \"\(name)\" must be a number"))
                }
                frame.blend[shape] = Float(d)
            }
        }
        if let gaze = v["gaze"], gaze != .null {
            guard case .array(let xy) = gaze, xy.count == 2, let x = number(xy[0]), let y = number(xy[1]) else {
                return .failure(Problem(message: "\"gaze\" must be [x, y]"))
            }
            frame.gaze = GazePoint(x: x, y: y)
        }
        if let eyes = v["eyes"], eyes != .null {
            guard let ly = number(eyes["leftYaw"]), let lp = number(eyes["leftPitch"]),
                  let ry = number(eyes["rightYaw"]), let rp = number(eyes["rightPitch"]) else {
                return .failure(Problem(message: "\"eyes\" needs leftYaw, leftPitch, rightYaw, rightPitch"))
            }
            frame.eyes = EyeAngles(leftYaw: ly, leftPitch: lp, rightYaw: ry, rightPitch: rp)
        }
        if let head = v["head"], head != .null {
            guard let yaw = number(head["yaw"]), let pitch = number(head["pitch"]), let roll = number(head["roll"]) else {
                return .failure(Problem(message: "\"head\" needs yaw, pitch, roll"))
            }
            frame.head = HeadPose(yaw: yaw, pitch: pitch, roll: roll)
        }
        return .success(frame)
    }

    /// A number member; `null` is a value that was not a finite number when recorded (see `NDJSONEncoder`),
    /// read back as NaN so the pipeline rejects the frame again.
    static func number(_ v: JSONValue?) -> Double? {
        switch v {
        case .number(let d): return d
        case .null: return .nan
        default: return nil
        }
    }
}

/// Encodes frames as native NDJSON lines.
///
/// Every value is written exactly (the shortest text that reads back as the same number), so a recording
/// replays as what was received: rounding could turn a frame the pipeline rejects (a value just outside its
/// tolerance, a timestamp just behind the last) into one it accepts. Values that are not finite numbers are
/// written as `null`, which the decoder reads back as NaN, so those frames stay rejected too.
public enum NDJSONEncoder {
    /// One line (without the newline) for `f`.
    public static func encode(_ f: TrackingFrame) -> String {
        var s = "{\"t\": \(number(f.t)), \"face\": \(f.face)"
        if f.face {
            let parts = f.blend.nonZero.map { "\"\($0.0.name)\": \(number($0.1))" }
            s += ", \"blend\": {\(parts.joined(separator: ", "))}"
            if let g = f.gaze { s += ", \"gaze\": [\(number(g.x)), \(number(g.y))]" }
            if let e = f.eyes {
                s += ", \"eyes\": {\"leftYaw\": \(number(e.leftYaw)), \"leftPitch\": \(number(e.leftPitch)), "
                s += "\"rightYaw\": \(number(e.rightYaw)), \"rightPitch\": \(number(e.rightPitch))}"
            }
            if let h = f.head {
                s += ", \"head\": {\"yaw\": \(number(h.yaw)), \"pitch\": \(number(h.pitch)), \"roll\": \(number(h.roll))}"
            }
        }
        return s + "}"
    }

    /// The shortest JSON number that reads back as `v` exactly, or `null` when `v` is not finite.
    public static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        var s = "\(v)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// The shortest JSON number that reads back (through Double) as `v` exactly, or `null` when not finite.
    public static func number(_ v: Float) -> String {
        guard v.isFinite else { return "null" }
        var s = "\(v)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// Formats with at most `digits` decimals and no trailing zeros, in the C locale (for printed times and
    /// points; not for recordings, which `number` writes exactly). Non-finite values print as 0.
    public static func fmt(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (v * scale).rounded() / scale
        var s = "\(r)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        // Swift writes small magnitudes as 1e-05; large ones (1e+16 and up) stay in exponent form, which is
        // valid JSON, since they have no decimals left to show.
        if s.contains("e"), abs(r) < 1 { s = String(format6: r) }
        return s
    }
}

extension String {
    /// Plain decimal notation, six decimals at most, for a magnitude below 1 that Swift prints in exponent form.
    init(format6 v: Double) {
        guard abs(v) < 1 else { self = "\(v)"; return }
        let neg = v < 0
        var frac = Int((abs(v) * 1_000_000).rounded())
        var whole = 0
        if frac >= 1_000_000 { whole = 1; frac -= 1_000_000 }
        var digits = ""
        for _ in 0..<6 { digits = String(frac % 10) + digits; frac /= 10 }
        while digits.hasSuffix("0") { digits.removeLast() }
        self = (neg && (whole > 0 || !digits.isEmpty) ? "-" : "") + String(whole) + (digits.isEmpty ? "" : "." + digits)
    }
}
