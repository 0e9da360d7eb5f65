import Config
import FrameFormats
import Foundation
import Testing
import TrackingCore

private func decode(_ bytes: [UInt8], format: FrameFormat = .auto, arrival: Double = 5) -> [DecodedItem] {
    var d = LiveDecoder(format: format)
    return bytes.withUnsafeBytes { d.decode($0, index: 7, arrival: arrival) }
}

private func frame(_ items: [DecodedItem]) -> TrackingFrame? {
    if items.count == 1, case .frame(let f, _) = items[0] { return f }
    return nil
}

private func issue(_ items: [DecodedItem]) -> FrameIssue? {
    if let first = items.first, case .malformed(let i) = first { return i }
    return nil
}

/// OpenSeeFace, VMC and iFacialMocap: each decoded into the same frames, each datagram recognised, bad ones
/// reported with their packet number and never turned into a frame.
struct TrackerProtocolTests {
    static let features: [Float] = [0.9, 0.9, 0, 0.4, 0, 0, 0.2, 0, 0.5, 0, -0.3, 0, 0.8, 0.1]

    @Test func openSeeFaceFacesBecomeFrames() throws {
        let packet = OpenSeeFace.encode(t: 1_700_000_000.25, rightOpen: 0.1, leftOpen: 0.95,
                                        euler: (-175, 10, 95), features: Self.features)
        #expect(packet.count == 1785)
        let f = try #require(frame(decode(packet)))
        #expect(f.t == 1_700_000_000.25)
        #expect(abs(f.blend[.eyeBlinkRight] - 0.9) < 1e-6 && abs(f.blend[.eyeBlinkLeft] - 0.05) < 1e-6)
        #expect(abs(f.blend[.jawOpen] - 0.8) < 1e-6)
        #expect(abs(f.blend[.mouthSmileLeft] - 0.5) < 1e-6 && abs(f.blend[.mouthFrownRight] - 0.3) < 1e-6)
        #expect(abs(f.blend[.browOuterUpLeft] - 0.4) < 1e-6)
        let head = try #require(f.head)
        #expect(abs(head.yaw - 10 * .pi / 180) < 1e-6)
        #expect(abs(head.pitch - 5 * .pi / 180) < 1e-6)
        #expect(abs(head.roll - 5 * .pi / 180) < 1e-6)
        #expect(f.blend[.tongueOut] == 0)
    }

    @Test func openSeeFaceKeepsOneFaceAndReportsDamage() throws {
        let a = OpenSeeFace.encode(t: 10, id: 3, rightOpen: 1, leftOpen: 1, euler: (180, 0, 90), features: [])
        let b = OpenSeeFace.encode(t: 10, id: 1, rightOpen: 0, leftOpen: 0, euler: (180, 0, 90), features: [])
        let f = try #require(frame(decode(a + b)))
        #expect(f.blend[.eyeBlinkLeft] == 1)  // face 1, the lower id
        let lost = OpenSeeFace.encode(t: 11, success: false, rightOpen: 1, leftOpen: 1, euler: (0, 0, 0), features: [])
        #expect(frame(decode(lost))?.face == false)
        let cut = issue(decode(Array(a.dropLast(9)), format: .openseeface))
        #expect(cut?.description.contains("packet 7") == true)
        #expect(cut?.message.contains("1776 bytes, expected a multiple of 1785") == true)
        var nan = a
        nan.replaceSubrange(1729 + 48..<1729 + 52, with: withUnsafeBytes(of: Float.nan.bitPattern.littleEndian, Array.init))
        #expect(issue(decode(nan))?.message.contains("not a finite number") == true)
    }

    @Test func vmcBundlesAndLooseMessagesMakeFrames() throws {
        let vals = [OSC.encode("/VMC/Ext/Blend/Val", [.string("JawOpen"), .float(0.7)]),
                    OSC.encode("/VMC/Ext/Blend/Val", [.string("Blink_R"), .float(1)]),
                    OSC.encode("/VMC/Ext/Blend/Val", [.string("unknownShape"), .float(1)]),
                    OSC.encode("/VMC/Ext/Bone/Pos", [.string("Head"), .float(0), .float(0), .float(0),
                                                     .float(0), .float(sin(0.1)), .float(0), .float(cos(0.1))]),
                    OSC.encode("/VMC/Ext/Blend/Apply", [])]
        let f = try #require(frame(decode(OSC.bundle(vals), arrival: 42)))
        #expect(f.t == 42)
        #expect(abs(f.blend[.jawOpen] - 0.7) < 1e-6 && f.blend[.eyeBlinkRight] == 1 && f.blend[.eyeBlinkLeft] == 0)
        #expect(abs((f.head?.yaw ?? 0) - 0.2) < 1e-5)

        // One message per datagram: values persist until Apply.
        var d = LiveDecoder()
        var out: [DecodedItem] = []
        for (k, m) in vals.enumerated() { out += m.withUnsafeBytes { d.decode($0, index: k + 1, arrival: 43) } }
        #expect(out.count == 1)
        #expect(frame(out)?.blend[.jawOpen] == f.blend[.jawOpen])
        #expect(d.seen == .vmc)
    }

    @Test func vmcDamageIsReportedNotApplied() {
        let apply = OSC.encode("/VMC/Ext/Blend/Apply", [])
        #expect(issue(decode(Array(apply.dropLast(4)) + [0x2C, 0x7A, 0, 0], format: .vmc))?.message.contains("unknown OSC type tag") == true)
        #expect(issue(decode(Array(OSC.bundle([apply]).dropLast(4)), format: .vmc))?.message.contains("runs past") == true)
        #expect(issue(decode(OSC.encode("/VMC/Ext/Blend/Val", [.string("JawOpen")])))?.message.contains("needs a name and a number") == true)
        #expect(issue(decode(OSC.encode("/avatar/parameters/x", [.float(1)])))?.message.contains("not a VMC message") == true)
        var nested = apply
        for _ in 0..<20 { nested = OSC.bundle([nested]) }
        #expect(issue(decode(nested))?.message.contains("nested deeper") == true)
    }

    @Test func iFacialMocapTextBecomesFrames() throws {
        let text = "mouthSmile_R-40|eyeBlink_L-100|jawOpen-75|tongueOut-0|hapihapi-3|=head#-10.0,20.0,5.0,0.1,0.2,0.3|rightEye#4,8,0|leftEye#2,6,0|"
        let f = try #require(frame(decode(Array(text.utf8), arrival: 9)))
        #expect(f.t == 9)
        #expect(f.blend[.eyeBlinkLeft] == 1 && abs(f.blend[.jawOpen] - 0.75) < 1e-6 && abs(f.blend[.mouthSmileRight] - 0.4) < 1e-6)
        let head = try #require(f.head)
        #expect(abs(head.yaw - 20 * .pi / 180) < 1e-9 && abs(head.pitch + 10 * .pi / 180) < 1e-9)
        #expect(abs((f.eyes?.rightYaw ?? 0) - 8 * .pi / 180) < 1e-9)
        let amp = try #require(frame(decode(Array("eyeBlink_R&50|jawOpen&10|".utf8))))
        #expect(amp.blend[.eyeBlinkRight] == 0.5 && abs(amp.blend[.jawOpen] - 0.1) < 1e-6)
        #expect(issue(decode(Array("jawOpen-lots|".utf8), format: .ifacialmocap))?.message.contains("not a number") == true)
        #expect(issue(decode(Array("=head#1,2|".utf8), format: .ifacialmocap))?.message.contains("at least 3 numbers") == true)
    }

    @Test func eachFormatIsRecognisedFromOneDatagram() {
        func fmt(_ b: [UInt8]) -> FrameFormat? { b.withUnsafeBytes { LiveDecoder.recognise($0) } }
        #expect(fmt(Array("{\"t\": 1}\n".utf8)) == .ndjson)
        #expect(fmt(LiveLinkUDP.encode(TrackingFrame(t: 1))) == .livelinkUDP)
        #expect(fmt(OpenSeeFace.encode(t: 1, rightOpen: 1, leftOpen: 1, euler: (0, 0, 0), features: [])) == .openseeface)
        #expect(fmt(OSC.encode("/VMC/Ext/Blend/Apply", [])) == .vmc)
        #expect(fmt(OSC.bundle([OSC.encode("/VMC/Ext/Blend/Apply", [])])) == .vmc)
        #expect(fmt(Array("jawOpen-5|eyeBlink_L-0|".utf8)) == .ifacialmocap)
        #expect(fmt(Array("hello world".utf8)) == nil)
        #expect(fmt([0xFF, 0x00, 0x13]) == nil)
        let unknown = issue(decode([0xFF, 0x00, 0x13]))
        #expect(unknown?.description.contains("packet 7") == true && unknown?.message.contains("not a known format") == true)
    }

    @Test func liveOnlyFormatsAreNotFiles() {
        #expect(throws: FrameFileError.self) { try FrameFile.decode([1, 2, 3], format: .vmc, path: "x.osc") }
    }
}

/// Which bound gestures each source can make.
struct SourceCapabilitiesTests {
    @Test func sourcesWithoutATongueCannotCommitWithIt() throws {
        let gestures = GestureConfig.defaults().gestures
        let bound: Set<String> = ["activate", "back", "commit"]
        let mp = try #require(SourceCapabilities.named("mediapipe"))
        #expect(mp.problems(gestures: gestures, bound: bound) == ["commit needs tongueOut, which mediapipe does not produce"])
        let osf = try #require(SourceCapabilities.named("openseeface"))
        let p = osf.problems(gestures: gestures, bound: bound)
        #expect(p.count == 2 && p[0].hasPrefix("back reads eyeBlinkRight") && p[1].hasPrefix("commit needs tongueOut"))
        #expect(SourceCapabilities.named("livelink")?.problems(gestures: gestures, bound: bound) == [])
        #expect(mp.problems(gestures: gestures, bound: ["activate"]) == [])
        #expect(SourceCapabilities.of(.openseeface) == osf && SourceCapabilities.of(.ndjson) == nil)
    }
}
