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

    enum Column: Sendable {
        case timecode, count, shape(BlendShape)
        case headYaw, headPitch, headRoll, leftEyeYaw, leftEyePitch, rightEyeYaw, rightEyePitch
        case ignored
    }

    public init(timecodeRate: Double = 60) { self.timecodeRate = timecodeRate }

    public mutating func feed<C: Collection<UInt8>>(_ bytes: C) -> [DecodedItem] {
        var out: [DecodedItem] = []
        // Move the splitter out so the closure may mutate self without overlapping access.
        var splitter = lines
        lines = LineSplitter()
        splitter.feed(bytes) { line, n in handle(line, n, &out) }
        lines = splitter
        return out
    }

    public mutating func finish() -> [DecodedItem] {
        var out: [DecodedItem] = []
        var splitter = lines
        lines = LineSplitter()
        splitter.finish { line, n in handle(line, n, &out) }
        lines = splitter
        return out
    }

    private mutating func handle(_ line: ArraySlice<UInt8>?, _ n: Int, _ out: inout [DecodedItem]) {
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
        out.append(decodeRow(line, cols, pos))
    }

    private mutating func readHeader(_ line: ArraySlice<UInt8>) {
        let names = String(decoding: line, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces }
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
    }

    private func decodeRow(_ line: ArraySlice<UInt8>, _ cols: [Column], _ pos: SourcePosition) -> DecodedItem {
        let bytes = Array(line)
        var fields: [(Int, Int)] = []
        fields.reserveCapacity(cols.count)
        var start = 0
        for i in 0..<bytes.count where bytes[i] == UInt8(ascii: ",") {
            fields.append((start, i)); start = i + 1
        }
        fields.append((start, bytes.count))
        guard let tc = fields.first, let t = Self.timecode(bytes, tc.0, tc.1, rate: timecodeRate) else {
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
    static func timecode(_ b: [UInt8], _ s: Int, _ e: Int, rate: Double) -> Double? {
        var parts: [Double] = []
        var start = s
        for i in s...e where i == e || b[i] == UInt8(ascii: ":") {
            guard let v = FastFloat.parse(b, start, i) else { return nil }
            parts.append(v)
            start = i + 1
        }
        guard parts.count == 4, rate > 0 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / rate
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\r" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\r" || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
