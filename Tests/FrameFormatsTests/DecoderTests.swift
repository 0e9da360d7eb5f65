import Testing
@testable import FrameFormats
import TrackingCore

private func frames(_ items: [DecodedItem]) -> [TrackingFrame] {
    items.compactMap { if case .frame(let f, _) = $0 { return f }; return nil }
}
private func issues(_ items: [DecodedItem]) -> [FrameIssue] {
    items.compactMap { if case .malformed(let i) = $0 { return i }; return nil }
}

/// Feeds bytes one at a time, in one piece, and in odd-sized chunks; all three must decode alike.
private func dripFeed<D: FrameDecoder>(_ make: () -> D, _ bytes: [UInt8]) -> [DecodedItem] {
    var whole = make()
    let expected = whole.feed(bytes) + whole.finish()
    var one = make()
    var drip: [DecodedItem] = []
    for b in bytes { drip += one.feed([b]) }
    drip += one.finish()
    #expect(drip == expected, "byte-at-a-time decoding differs")
    var chunked = make()
    var chunks: [DecodedItem] = []
    var i = 0
    var size = 1
    while i < bytes.count {
        let end = min(bytes.count, i + size)
        chunks += chunked.feed(bytes[i..<end])
        i = end
        size = size * 3 % 97 + 1
    }
    chunks += chunked.finish()
    #expect(chunks == expected, "chunked decoding differs")
    return expected
}

struct NDJSONTests {
    static let sample = """
    {"t": 1.250, "face": true, "blend": {"jawOpen": 0.62, "eyeBlinkRight": 0.05}, "gaze": [0.40, 0.72]}
    {"t": 1.267, "face": false}
    {"t": 1.283, "blend": {"tongueOut": 1}, "eyes": {"leftYaw": 0.1, "leftPitch": -0.1, "rightYaw": 0.12, "rightPitch": -0.08}, "head": {"yaw": 0.01, "pitch": 0.02, "roll": -0.03}}

    """

    @Test func decodesTheDocumentedExample() {
        let items = dripFeed(NDJSONDecoder.init, Array(Self.sample.utf8))
        let fs = frames(items)
        #expect(fs.count == 3)
        #expect(fs[0].t == 1.25 && fs[0].face && fs[0].blend[.jawOpen] == 0.62 && fs[0].blend[.eyeBlinkRight] == 0.05)
        #expect(fs[0].blend[.tongueOut] == 0, "missing blend shapes read as 0")
        #expect(fs[0].gaze == GazePoint(x: 0.4, y: 0.72))
        #expect(!fs[1].face)
        #expect(fs[2].face, "face defaults to true")
        #expect(fs[2].eyes == EyeAngles(leftYaw: 0.1, leftPitch: -0.1, rightYaw: 0.12, rightPitch: -0.08))
        #expect(fs[2].head == HeadPose(yaw: 0.01, pitch: 0.02, roll: -0.03))
    }

    @Test func encodeDecodeRoundTrip() {
        var f = TrackingFrame(t: 12.5, blend: BlendShapes([.jawOpen: 0.5, .mouthSmileLeft: 0.25]),
                              gaze: GazePoint(x: 0.125, y: 0.75))
        f.eyes = EyeAngles(leftYaw: 0.1, leftPitch: 0.2, rightYaw: 0.3, rightPitch: 0.4)
        let line = NDJSONEncoder.encode(f)
        #expect(frames([NDJSONDecoder.decode(Array(line.utf8), position: nil)]) == [f])
    }

    @Test func badLinesAreReportedWithTheirLineNumber() {
        let text = """
        {"t": 1.0, "blend": {"jawOpen": 0.1}}
        {"t": 1.1, "blend": {"jawOpen": 0.1}
        not json at all
        {"blend": {"jawOpen": 0.5}}
        {"t": 1.3, "blend": {"jawOpn": 0.5}}
        {"t": 1.4, "gaze": [0.5]}
        {"t": 1.5, "face": "yes"}
        [1, 2, 3]
        {"t": 1.6, "blend": {"jawOpen": "high"}}
        {"t": 1.7}
        {"t": 1.8, "blend
        """
        let items = dripFeed(NDJSONDecoder.init, Array(text.utf8))
        let bad = issues(items)
        #expect(frames(items).map(\.t) == [1.0, 1.7])
        #expect(bad.map { $0.position?.index ?? 0 } == [2, 3, 4, 5, 6, 7, 8, 9, 11])
        #expect(bad[0].description.hasPrefix("line 2: not valid JSON"))
        #expect(bad[2].description == "line 4: missing number \"t\" (seconds)")
        #expect(bad[3].description.contains("unknown blend shape \"jawOpn\""))
    }

    @Test func garbageBytesNeverCrash() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<200 {
            let bytes = (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var d = NDJSONDecoder()
            let items = d.feed(bytes) + d.finish()
            // Random bytes are never a frame, and each line that is not blank is one issue naming that line.
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            let expected = lines.indices.filter { i in
                !lines[i].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            }.map { $0 + 1 }
            #expect(frames(items).isEmpty)
            #expect(issues(items).map { $0.position } == expected.map { SourcePosition(.line, $0) })
        }
    }

    @Test func overlongLinesAreRefusedNotBuffered() {
        var d = NDJSONDecoder()
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: LineSplitter.maxLineLength + 10) + [0x0A]
        let items = d.feed(big) + d.feed(Array("{\"t\": 1}\n".utf8))
        #expect(issues(items).count == 1)
        #expect(frames(items).count == 1)
    }

    @Test func deeplyNestedJSONIsRejected() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(issues([NDJSONDecoder.decode(Array(deep.utf8), position: nil)]).count == 1)
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

struct LiveLinkCSVTests {
    static let header = "Timecode,BlendShapeCount," + LiveLinkUDP.shapeOrder.map { $0.name.prefix(1).uppercased() + $0.name.dropFirst() }.joined(separator: ",")
        + ",HeadYaw,HeadPitch,HeadRoll,LeftEyeYaw,LeftEyePitch,LeftEyeRoll,RightEyeYaw,RightEyePitch,RightEyeRoll"

    static func row(_ tc: String, jaw: Double) -> String {
        let values = LiveLinkUDP.shapeOrder.map { $0 == .jawOpen ? String(jaw) : "0.0000000000" } + Array(repeating: "0.1", count: 9)
        return tc + ",61," + values.joined(separator: ",")
    }

    @Test func decodesRowsFaceLostRowsAndTimecodes() {
        let text = [Self.header, Self.row("16:55:51:38.453", jaw: 0.62), "16:55:51:40.453,0", Self.row("16:55:51:42.453", jaw: 0.1)]
            .joined(separator: "\r\n") + "\r\n"
        let items = dripFeed({ LiveLinkCSVDecoder() }, Array(text.utf8))
        let fs = frames(items)
        #expect(fs.count == 3)
        #expect(abs(fs[0].t - (16 * 3600 + 55 * 60 + 51 + 38.453 / 60)) < 1e-9)
        #expect(fs[0].blend[.jawOpen] == 0.62)
        #expect(fs[0].eyes?.leftYaw == 0.1)
        #expect(!fs[1].face)
        #expect(abs(fs[2].t - fs[0].t - 4.0 / 60) < 1e-9)
    }

    @Test func shortRowsAndBadValuesAreMalformed() {
        let full = Self.row("00:00:01:00.000", jaw: 0.5)
        let short = String(full.split(separator: ",").dropLast(5).joined(separator: ","))
        let badNumber = full.replacingOccurrences(of: ",0.1,", with: ",abc,")
        let text = [Self.header, short, badNumber, "garbage", full].joined(separator: "\n")
        let items = dripFeed({ LiveLinkCSVDecoder() }, Array(text.utf8))
        #expect(frames(items).count == 1)
        let bad = issues(items)
        #expect(bad.map { $0.position?.index ?? 0 } == [2, 3, 4])
        #expect(bad[0].message.contains("row has"))
    }

    @Test func missingHeaderIsReported() {
        var d = LiveLinkCSVDecoder()
        let items = d.feed(Array("1,2,3\n".utf8)) + d.finish()
        #expect(issues(items).first?.description.contains("line 1: expected a Live Link Face header") == true)
    }
}

extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        var out = ""
        var rest = self[...]
        while let r = rest.range(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

struct LiveLinkUDPTests {
    static func frame() -> TrackingFrame {
        var f = TrackingFrame(t: 100, blend: BlendShapes([.jawOpen: 0.75, .eyeBlinkRight: 0.5, .tongueOut: 0.25]))
        f.head = HeadPose(yaw: 0.1, pitch: 0.2, roll: 0.3)
        f.eyes = EyeAngles(leftYaw: 0.25, leftPitch: -0.25, rightYaw: 0.5, rightPitch: -0.5)
        return f
    }

    @Test func roundTrip() {
        let p = LiveLinkUDP.encode(Self.frame())
        guard case .frame(let f, let pos) = LiveLinkUDP.decode(p, index: 3) else { Issue.record("not a frame"); return }
        #expect(pos == SourcePosition(.packet, 3))
        #expect(abs(f.t - 100) < 1e-3)
        #expect(f.blend[.jawOpen] == 0.75 && f.blend[.eyeBlinkRight] == 0.5 && f.blend[.tongueOut] == 0.25)
        #expect(f.eyes == Self.frame().eyes)
    }

    @Test func shortPacketMeansNoFace() {
        let p = LiveLinkUDP.encode(TrackingFrame.noFace(at: 10))
        guard case .frame(let f, _) = LiveLinkUDP.decode(p, index: 1) else { Issue.record("not a frame"); return }
        #expect(!f.face)
    }

    @Test func everyTruncationIsReportedNeverCrashes() {
        let p = LiveLinkUDP.encode(Self.frame())
        let shortLength = LiveLinkUDP.encode(TrackingFrame.noFace(at: 100)).count
        for n in 0..<p.count where n != shortLength {
            let item = LiveLinkUDP.decode(p[0..<n], index: 5)
            guard case .malformed(let issue) = item else { Issue.record("truncated at \(n) decoded as a frame"); continue }
            #expect(issue.position == SourcePosition(.packet, 5))
        }
    }

    @Test func garbageAndWrongVersionsAreMalformed() {
        #expect(issues([LiveLinkUDP.decode([5, 0, 0], index: 1)]).first?.message == "protocol version 5, expected 6")
        var p = LiveLinkUDP.encode(Self.frame())
        p[1] = 0x7F
        #expect(issues([LiveLinkUDP.decode(p, index: 2)]).first?.message.contains("device id length") == true)
        var rng = SplitMix(seed: 1)
        for _ in 0..<500 {
            var q = p
            q[Int(rng.next() % UInt64(q.count))] = UInt8(truncatingIfNeeded: rng.next())
            _ = LiveLinkUDP.decode(q, index: 1)
        }
    }

    @Test func containerRoundTripAndTruncation() {
        let packets = (0..<5).map { k in LiveLinkUDP.encode(TrackingFrame(t: Double(k) / 60)) }
        let c = GesichterContainer.encode(packets)
        #expect(GesichterContainer.packets(c).packets == packets)
        let raw = GesichterContainer.gzip([6, 0, 0, 0, 3, 0, 0, 0, 2, 1, 2])
        let (got, problem) = GesichterContainer.packets(raw)
        #expect(got == [[1, 2]])
        #expect(problem == "truncated before packet 2 of 3")
        #expect(GesichterContainer.packets([1, 2, 3]).problem == "not gzip data")
    }
}

struct FormatDetectionTests {
    @Test func detectsEachFormat() {
        #expect(FrameFormat.detect(Array("  {\"t\": 1}".utf8)) == .ndjson)
        #expect(FrameFormat.detect(Array("Timecode,BlendShapeCount".utf8)) == .livelinkCSV)
        #expect(FrameFormat.detect([0x1F, 0x8B, 8]) == .livelinkUDP)
        #expect(FrameFormat.detect(Array("hello".utf8)) == nil)
    }

    @Test func unknownFileFormatIsAClearError() {
        #expect(throws: FrameFileError.self) { try FrameFile.decode(Array("hello".utf8), format: .auto, path: "x.txt") }
    }
}
