import TrackingCore

/// Decodes Live Link Face CSV takes: a header naming the columns, then one row per frame.
///
/// Columns are mapped by name (the CSV order differs from the UDP order). `Timecode` is `HH:MM:SS:FF.fff`
/// with FF counting frames at `timecodeRate` per second (60 in the app's takes). A row whose
/// `BlendShapeCount` is 0 and has no values is a frame with no face.
public struct LiveLinkCSVDecoder: FrameDecoder {
    public let timecodeRate: Double
    private var lines = LineSplitter()
    private var columns: [Column]?
    private var headerCount = 0
    private var headerProblem: String?
    /// Per column, what `fastRow` does with it: a blend-shape index (0…51), or one of the codes below.
    private var codes: [Int16] = []
    private static let skip: Int16 = -1, count: Int16 = 100, headYaw: Int16 = 101, headPitch: Int16 = 102
    private static let headRoll: Int16 = 103, leftEyeYaw: Int16 = 104, leftEyePitch: Int16 = 105
    private static let rightEyeYaw: Int16 = 106, rightEyePitch: Int16 = 107

    enum Column: Sendable {
        case timecode, count, shape(BlendShape)
        case headYaw, headPitch, headRoll, leftEyeYaw, leftEyePitch, rightEyeYaw, rightEyePitch
        case ignored
    }

    /// Off in tests only, to compare `fastRow` with `decodeRow` on the same input.
    var useFastPath = true

    public init(timecodeRate: Double = 60) { self.timecodeRate = timecodeRate }

    public mutating func feed<C: Collection<UInt8>>(_ bytes: C) -> [DecodedItem] {
        var out: [DecodedItem] = []
        out.reserveCapacity(LineSplitter.newlines(in: bytes))
        // Move the splitter out so the closure may mutate self without overlapping access.
        var splitter = lines
        lines = LineSplitter()
        splitter.feedLines(bytes) { line, n in handle(line, n, &out) }
        lines = splitter
        return out
    }

    public mutating func finish() -> [DecodedItem] {
        var out: [DecodedItem] = []
        var splitter = lines
        lines = LineSplitter()
        splitter.finishLines { line, n in handle(line, n, &out) }
        lines = splitter
        return out
    }

    private mutating func handle(_ line: UnsafeBufferPointer<UInt8>?, _ n: Int, _ out: inout [DecodedItem]) {
        let pos = SourcePosition(.line, n)
        guard let line else {
            out.append(.malformed(FrameIssue(pos, "line longer than \(LineSplitter.maxLineLength) bytes"))); return
        }
        if isBlank(line) { return }
        guard let cols = columns else {
            readHeader(line)
            if let p = headerProblem { out.append(.malformed(FrameIssue(pos, p))) }
            return
        }
        if useFastPath, let f = fastRow(line) {
            out.append(.frame(f, pos))
        } else {
            out.append(decodeRow(Array(line), cols, pos))
        }
    }

    private mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>) {
        let names = Self.headerNames(line)
        guard names.first == "Timecode" else {
            headerProblem = "expected a Live Link Face header starting with Timecode,BlendShapeCount"
            columns = nil
            return
        }
        columns = names.map { name -> Column in
            switch name {
            case "Timecode": return .timecode
            case "BlendShapeCount": return .count
            case "HeadYaw": return .headYaw
            case "HeadPitch": return .headPitch
            case "HeadRoll": return .headRoll
            case "LeftEyeYaw": return .leftEyeYaw
            case "LeftEyePitch": return .leftEyePitch
            case "RightEyeYaw": return .rightEyeYaw
            case "RightEyePitch": return .rightEyePitch
            default: return BlendShape(name: name).map { .shape($0) } ?? .ignored
            }
        }
        headerCount = names.count
        headerProblem = nil
        codes = (columns ?? []).map { col -> Int16 in
            switch col {
            case .timecode, .ignored: return Self.skip
            case .count: return Self.count
            case .shape(let shape): return Int16(shape.rawValue)
            case .headYaw: return Self.headYaw
            case .headPitch: return Self.headPitch
            case .headRoll: return Self.headRoll
            case .leftEyeYaw: return Self.leftEyeYaw
            case .leftEyePitch: return Self.leftEyePitch
            case .rightEyeYaw: return Self.rightEyeYaw
            case .rightEyePitch: return Self.rightEyePitch
            }
        }
    }

    /// The frame of a complete row with a face, read in one pass over its bytes; nil for any other row
    /// (face lost, a bad timecode or value, a short or long row), which `decodeRow` then decides.
    ///
    /// `decodeRow` splits the row into fields first and is the reference: this gives the same frame for every
    /// row it accepts, reading each field with the same `FastFloat` and the timecode with the same `timecode`.
    private func fastRow(_ b: UnsafeBufferPointer<UInt8>) -> TrackingFrame? {
        let n = b.count
        // With two columns, a row whose second value is 0 is a face-lost row whatever the column: leave those
        // headers to decodeRow.
        guard codes.count > 2 else { return nil }
        var j = 0
        while j < n, b[j] != UInt8(ascii: ",") { j += 1 }
        guard j < n, let t = Self.timecode(b, 0, j, rate: timecodeRate), FrameTime.problem(t) == nil else { return nil }
        var angles = Angles()
        var ok = false
        var blend = BlendShapes.restValues
        blend.withUnsafeMutableBufferPointer { blend in
            ok = codes.withUnsafeBufferPointer { codes in Self.readValues(b, after: j, codes, blend, &angles) }
        }
        guard ok, let shapes = BlendShapes(values: blend) else { return nil }
        let a = angles
        return TrackingFrame(t: t, face: true, blend: shapes, gaze: nil,
                             eyes: EyeAngles(leftYaw: a.ly, leftPitch: a.lp, rightYaw: a.ry, rightPitch: a.rp),
                             head: HeadPose(yaw: a.hy, pitch: a.hp, roll: a.hr))
    }

    /// The head and eye angles of a row, as `readValues` finds them.
    private struct Angles { var ly = 0.0, lp = 0.0, ry = 0.0, rp = 0.0, hy = 0.0, hp = 0.0, hr = 0.0 }

    /// Reads the values of a row from the comma at `start` (the one after the timecode) into `blend` and
    /// `angles`; false when a field is not a number, the row is face-lost, or it has fewer or more fields
    /// than `codes`.
    ///
    /// Its own function, with every position a local: inside `fastRow`'s closures the position was captured
    /// by reference and went through memory for every byte looked at.
    @inline(__always)
    private static func readValues(_ b: UnsafeBufferPointer<UInt8>, after start: Int, _ codes: UnsafeBufferPointer<Int16>,
                                   _ blend: UnsafeMutableBufferPointer<Float>, _ angles: inout Angles) -> Bool {
        let n = b.count
        var j = start
        var a = Angles()
        for k in 1..<codes.count {
            // j is at the comma before field k.
            guard j < n else { return false }
            j += 1
            let code = codes[k]
            if code == Self.skip {
                while j < n, b[j] != UInt8(ascii: ",") { j += 1 }
                continue
            }
            let s = j
            var negative = false
            if j < n, b[j] == UInt8(ascii: "-") { negative = true; j += 1 } else if j < n, b[j] == UInt8(ascii: "+") { j += 1 }
            let v: Double
            // The app's own spelling, [-]d.dddddddddd, first; any other decimal through the general reader.
            if let x = PlainDecimal.tenDecimals(b, &j, negative: negative) {
                v = x
            } else {
                let r = PlainDecimal.digits(b, &j)
                if j < n, b[j] != UInt8(ascii: ",") {
                    // Something other than a plain decimal: let FastFloat read the whole field.
                    while j < n, b[j] != UInt8(ascii: ",") { j += 1 }
                    guard let x = FastFloat.parse(b, s, j) else { return false }
                    v = x
                } else if let x = PlainDecimal.value(r, negative: negative) {
                    v = x
                } else {
                    guard let x = FastFloat.parse(b, s, j) else { return false }
                    v = x
                }
            }
            switch code {
            case 0..<Int16(BlendShape.count): blend[Int(code)] = Float(v)
            case Self.count: if v == 0 { return false }
            case Self.headYaw: a.hy = v
            case Self.headPitch: a.hp = v
            case Self.headRoll: a.hr = v
            case Self.leftEyeYaw: a.ly = v
            case Self.leftEyePitch: a.lp = v
            case Self.rightEyeYaw: a.ry = v
            case Self.rightEyePitch: a.rp = v
            default: break
            }
        }
        angles = a
        // A field left over: more values than the header has columns.
        return j == n
    }

    /// `fastRow` for tests, which check that real rows take it.
    func fastRowForTests(_ b: UnsafeBufferPointer<UInt8>) -> TrackingFrame? { fastRow(b) }

    /// Decodes one row by splitting it into fields first: the reference `fastRow` must agree with, and the
    /// decoder of every row `fastRow` declines.
    func decodeRow(_ bytes: [UInt8], _ cols: [Column], _ pos: SourcePosition) -> DecodedItem {
        var fields: [(Int, Int)] = []
        fields.reserveCapacity(cols.count)
        var start = 0
        for i in 0..<bytes.count where bytes[i] == UInt8(ascii: ",") {
            fields.append((start, i)); start = i + 1
        }
        fields.append((start, bytes.count))
        guard let tc = fields.first, let t = bytes.withUnsafeBufferPointer({ Self.timecode($0, tc.0, tc.1, rate: timecodeRate) }) else {
            return .malformed(FrameIssue(pos, "bad timecode (expected HH:MM:SS:FF.fff)"))
        }
        if let p = FrameTime.problem(t) { return .malformed(FrameIssue(pos, "bad timecode: \(p)")) }
        if fields.count == 2, let c = FastFloat.parse(bytes, fields[1].0, fields[1].1), c == 0 {
            return .frame(.noFace(at: t), pos)
        }
        guard fields.count == cols.count else {
            return .malformed(FrameIssue(pos, "row has \(fields.count) values, header has \(cols.count)"))
        }
        var frame = TrackingFrame(t: t)
        var ly = 0.0, lp = 0.0, ry = 0.0, rp = 0.0, hy = 0.0, hp = 0.0, hr = 0.0
        for (k, col) in cols.enumerated() {
            switch col {
            case .timecode, .ignored: continue
            default: break
            }
            let (s, e) = fields[k]
            guard let v = FastFloat.parse(bytes, s, e) else {
                return .malformed(FrameIssue(pos, "value \(k + 1) is not a number"))
            }
            switch col {
            case .shape(let shape): frame.blend[shape] = Float(v)
            case .count:
                if v == 0 { return .frame(.noFace(at: t), pos) }
            case .headYaw: hy = v
            case .headPitch: hp = v
            case .headRoll: hr = v
            case .leftEyeYaw: ly = v
            case .leftEyePitch: lp = v
            case .rightEyeYaw: ry = v
            case .rightEyePitch: rp = v
            case .timecode, .ignored: break
            }
        }
        frame.eyes = EyeAngles(leftYaw: ly, leftPitch: lp, rightYaw: ry, rightPitch: rp)
        frame.head = HeadPose(yaw: hy, pitch: hp, roll: hr)
        return .frame(frame, pos)
    }

    /// Seconds since midnight for `HH:MM:SS:FF.fff`.
    static func timecode(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, rate: Double) -> Double? {
        if let t = plainTimecode(b, s, e, rate: rate) { return t }
        return generalTimecode(b, s, e, rate: rate)
    }

    /// `timecode` for the app's spelling: three whole numbers and a decimal, each of digits only (a dot in the
    /// last), none longer than fifteen; nil for anything else, which `generalTimecode` then reads.
    ///
    /// Each part's digits fit a significand exactly, so its value is the one `FastFloat` gives (an integer, or
    /// an integer over an exact power of ten), summed in the same order. `FastFloat` for each part cost as
    /// much as a row's eight next values.
    @inline(__always)
    static func plainTimecode(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, rate: Double) -> Double? {
        var parts = (0.0, 0.0, 0.0, 0.0)
        var i = s
        for k in 0..<4 {
            var m: UInt64 = 0, count = 0, frac = 0
            var dot = false
            while i < e {
                let c = b[i]
                if c &- 0x30 < 10 {
                    m = m &* 10 &+ UInt64(c &- 0x30)
                    count += 1
                    if dot { frac += 1 }
                } else if c == UInt8(ascii: "."), k == 3, !dot {
                    dot = true
                } else {
                    break
                }
                i += 1
            }
            // Only a colon may end the first three parts and only the field's end the last.
            guard count > 0, count <= 15, k == 3 ? i == e : (i < e && b[i] == UInt8(ascii: ":")) else { return nil }
            i += 1
            let v = frac == 0 ? PlainDecimal.exactDouble(m) : PlainDecimal.exactDouble(m) / PlainDecimal.pow10(frac)
            switch k {
            case 0: parts.0 = v
            case 1: parts.1 = v
            case 2: parts.2 = v
            default: parts.3 = v
            }
        }
        guard rate > 0 else { return nil }
        return parts.0 * 3600 + parts.1 * 60 + parts.2 + parts.3 / rate
    }

    /// `timecode` for any spelling: each part through `FastFloat`.
    static func generalTimecode(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, rate: Double) -> Double? {
        var parts = (0.0, 0.0, 0.0, 0.0)
        var count = 0
        var start = s
        for i in s...e where i == e || b[i] == UInt8(ascii: ":") {
            guard let v = FastFloat.parse(b, start, i) else { return nil }
            switch count {
            case 0: parts.0 = v
            case 1: parts.1 = v
            case 2: parts.2 = v
            case 3: parts.3 = v
            default: return nil
            }
            count += 1
            start = i + 1
        }
        guard count == 4, rate > 0 else { return nil }
        return parts.0 * 3600 + parts.1 * 60 + parts.2 + parts.3 / rate
    }
}

extension LiveLinkCSVDecoder {
    /// The header's column names: split at commas and trimmed of spaces, tabs and carriage returns on the
    /// bytes, in one pass, then decoded (bytes that are not UTF-8 become U+FFFD).
    ///
    /// Trimmed as Characters, a name whose spaces followed a byte that is not UTF-8 cost a pass over the
    /// whole line for each space dropped: 64 K spaces took 20 s, a fuzzed 200 KB file minutes.
    static func headerNames(_ line: UnsafeBufferPointer<UInt8>) -> [String] {
        func isSpace(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\t") }
        var names: [String] = []
        var start = 0
        for i in 0...line.count where i == line.count || line[i] == UInt8(ascii: ",") {
            var a = start, b = i
            while a < b, isSpace(line[a]) { a += 1 }
            while b > a, isSpace(line[b - 1]) { b -= 1 }
            names.append(String(decoding: UnsafeBufferPointer(rebasing: line[a..<b]), as: UTF8.self))
            start = i + 1
        }
        return names
    }
}
