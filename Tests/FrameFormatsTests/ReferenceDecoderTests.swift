import Foundation
import Testing
@testable import FrameFormats
import TrackingCore

/// The decoders made faster give exactly what their previous versions (kept in `References/`) gave: on every
/// frame of the real takes, in other spellings and orders, and on thousands of damaged copies.
@Suite struct ReferenceDecoderTests {
    /// Every frame of the real takes under ../shared/data/face (CSV takes and the `.gesichter` container).
    static func realFrames() throws -> [TrackingFrame] {
        guard let root = SharedData.root else { return [] }
        let dir = root.appendingPathComponent("face")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".csv") || $0.hasSuffix(".gesichter") }.sorted()
        var out: [TrackingFrame] = []
        for name in names {
            guard let data = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) else { continue }
            for case .frame(let f, _) in try FrameFile.decode([UInt8](data), format: .auto, path: name) { out.append(f) }
        }
        return out
    }

    /// The frames every comparison starts from: the real takes' when present, else made-up ones.
    static func frames() throws -> [TrackingFrame] {
        let real = try realFrames()
        return real.isEmpty ? (0..<500).map(TrackerFastPathTests.frame) : real
    }

    /// A shape's name with `_L`/`_R` for its side, as iFacialMocap spells it.
    static func sided(_ s: BlendShape) -> String {
        var n = s.name
        if n.hasSuffix("Left") { n = n.dropLast(4) + "_L" } else if n.hasSuffix("Right") { n = n.dropLast(5) + "_R" }
        return n
    }

    // MARK: iFacialMocap

    static func checkIFacialMocap(_ d: [UInt8], _ note: @autoclosure () -> String = "") -> DecodedItem {
        let new = d.withUnsafeBytes { IFacialMocap.decode($0, index: 9, arrival: 4.5) }
        let old = d.withUnsafeBytes { IFacialMocapReference.decode($0, index: 9, arrival: 4.5) }
        #expect(sameItem(new, old), "\(note()) \(String(decoding: d, as: UTF8.self).debugDescription): \(new) vs \(old)")
        // The general reading, with the one-pass reading off, against the reference's.
        let newGeneral = d.withUnsafeBytes { IFacialMocap.decode($0, index: 9, arrival: 4.5, fast: false) }
        let oldGeneral = d.withUnsafeBytes { IFacialMocapReference.decode($0, index: 9, arrival: 4.5, fast: false) }
        #expect(sameItem(newGeneral, oldGeneral), "\(note()) general: \(String(decoding: d, as: UTF8.self).debugDescription)")
        return new
    }

    /// An iFacialMocap datagram of `f` with its pairs as `spell` names them, in the order `order` gives.
    static func iFacialMocap(_ f: TrackingFrame, order: [BlendShape], separator: String = "-",
                             spell: (BlendShape) -> String) -> [UInt8] {
        Array((order.map { "\(spell($0))\(separator)\(Int((min(1, max(0, f.blend[$0])) * 100).rounded()))" }
            .joined(separator: "|") + "|=head#1.5,-2,3.25,0,0,0|rightEye#1,2,3|leftEye#4,5,6|").utf8)
    }

    @Test func iFacialMocapDecodesAsBefore() throws {
        let frames = try Self.frames()
        #expect(frames.count >= 180)
        var r = TrackerFastPathTests.LCG(state: 34)
        var shuffled = Array(BlendShape.allCases)
        for k in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(k, r.next(k + 1)) }
        var checked = 0, decoded = 0
        for (k, f) in frames.enumerated() {
            // As the bench and our tests send them, as an ARKit-named sender would, in the iPhone app's own
            // (unsorted) order, with `&`, and with a mix of both spellings.
            var datagrams = [TrackerDatagrams.iFacialMocap(f),
                             Self.iFacialMocap(f, order: BlendShape.allCases, spell: \.name),
                             Self.iFacialMocap(f, order: shuffled, spell: Self.sided),
                             Self.iFacialMocap(f, order: BlendShape.allCases.reversed(), separator: "&", spell: Self.sided),
                             Self.iFacialMocap(f, order: BlendShape.allCases, spell: { $0.rawValue % 3 == 0 ? $0.name : Self.sided($0) })]
            if k % 50 == 0 {
                for base in datagrams.prefix(3) {
                    datagrams += TrackerFastPathTests.damaged(base, 40, seed: UInt64(k + 1))
                    // Cut anywhere, as a truncated datagram would be.
                    datagrams += stride(from: 0, to: base.count, by: 7).map { Array(base.prefix($0)) }
                }
            }
            for d in datagrams {
                if case .frame = Self.checkIFacialMocap(d, "frame \(k)") { decoded += 1 }
                checked += 1
            }
        }
        #expect(checked > 5 * frames.count)
        #expect(decoded > checked / 3)
    }

    @Test func iFacialMocapHostileDatagramsDecodeAsBefore() {
        let hostile = [
            "", "|", "||", "-", "jawOpen", "jawOpen-", "jawOpen-|", "jawOpen-5", "jawOpen-5|", "jawOpen&5|jawOpen-7|",
            "jawOpen-1e2|", "jawOpen-12345678901234567|", "jawOpen-123456789012345|", "jawOpen-1234567890123456|",
            "jawOpen-5.5|", "jawOpen-.5|", "jawOpen-5.|", "jawOpen--5|", "jawOpen-5-|", "jawOpen -5|", " jawOpen-5|",
            "jawOpenX-5|", "jawOpe-5|", "JawOpen-5|", "eyeBlink_L-5|eyeBlink_R-6|", "eyeBlink_Left-5|", "eyeBlinkLeft-5|",
            "eyeBlinkLeft-5|eyeBlink_R-6|eyeLookDown_L-7|", "tongueOut-100|cheekPuff-100|", "jawOpen-5|=head#1,2|",
            "=head#1,2,3|", "head#1,2,3,4,5,6|", "=head#a,b,c|", "jawOpen-5|\u{7F}|", "jawOpen-5|\u{1}|", "jawOpen-\u{80}|",
            "mouthSmile_R-0|eyeLookOut_L-0|mouthUpperUp_L-11|eyeWide_R-0|mouthClose-8|mouthPucker-4|",
            "eyeBlink_L-0|eyeBlink_L-9|", "eyeSquint_L-5=head#1,2,3|", "eyeSquint_L-5#|", "x-1|y-2|",
            "jawOpen-5\r\n", "jawOpen-5|\n", "jawOpen&", "&5|", "-5|jawOpen-5",
        ]
        for s in hostile { _ = Self.checkIFacialMocap(Array(s.utf8)) }
    }

    // MARK: VMC

    /// Decodes `datagrams` in turn with the decoder and the reference, comparing what each gives and what
    /// each keeps.
    static func checkVMC(_ datagrams: [[UInt8]], fast: Bool = true, _ note: String = "") -> Int {
        var new = VMCDecoder(), old = VMCReferenceDecoder()
        new.useFastPath = fast
        old.useFastPath = fast
        var frames = 0
        for (k, d) in datagrams.enumerated() {
            let x = d.withUnsafeBytes { new.decode($0, index: k + 1, arrival: 2 + Double(k)) }
            let y = d.withUnsafeBytes { old.decode($0, index: k + 1, arrival: 2 + Double(k)) }
            #expect(x.count == y.count && zip(x, y).allSatisfy(sameItem), "\(note) datagram \(k): \(x) vs \(y)")
            #expect(new.values.map(\.bitPattern) == old.values.map(\.bitPattern), "\(note) datagram \(k)")
            #expect(new.head == old.head && new.lastShape == old.lastShape, "\(note) datagram \(k)")
            frames += x.filter { if case .frame = $0 { return true }; return false }.count
        }
        return frames
    }

    /// Values and Apply as separate datagrams, VRM names, the head bone, other VMC messages, and unknown ones.
    static func looseVMC(_ frames: [TrackingFrame]) -> [[UInt8]] {
        var loose: [[UInt8]] = []
        for (k, f) in frames.prefix(300).enumerated() {
            for s in BlendShape.allCases where (s.rawValue + k) % 4 == 0 {
                loose.append(OSC.encode("/VMC/Ext/Blend/Val", [.string(k % 2 == 0 ? s.name : Self.sided(s)), .float(Double(f.blend[s]))]))
            }
            loose.append(OSC.encode("/VMC/Ext/Blend/Val", [.string(["Blink_L", "A", "joy", "Surprised", "blink"][k % 5]), .float(0.4)]))
            loose.append(OSC.encode("/VMC/Ext/Blend/Val", [.string("JawOpen"), .int(Int64(k % 2))]))
            loose.append(OSC.encode("/VMC/Ext/Bone/Pos", [.string(k % 3 == 0 ? "Neck" : "Head"), .float(0), .float(0), .float(0),
                                                          .float(0.1), .float(Double(k % 7) / 10), .float(0), .float(0.99)]))
            loose.append(OSC.encode("/VMC/Ext/OK", [.int(1)]))
            if k % 10 == 0 { loose.append(OSC.encode("/other/thing", [.int(1)])) }
            loose.append(OSC.encode("/VMC/Ext/Blend/Apply", []))
        }
        return loose
    }

    @Test func vmcDecodesAsBefore() throws {
        let frames = try Self.frames()
        let bundles = frames.map(TrackerDatagrams.vmc)
        #expect(Self.checkVMC(bundles, "real") == bundles.count)
        #expect(Self.checkVMC(Array(bundles.prefix(300)), fast: false, "real, general") == min(300, bundles.count))
        let loose = Self.looseVMC(frames)
        #expect(Self.checkVMC(loose, "loose") > 250)
        #expect(Self.checkVMC([OSC.bundle(Array(loose.prefix(40)))] + loose.suffix(40), "one bundle") > 0)
    }

    /// Damaged copies of the real takes' bundles, in one sequence so that what a refused packet leaves behind
    /// is compared too. How many still decode to a frame depends on the frames damaged: the count below holds
    /// for the real takes, so without them the test is skipped, not checked against made-up frames (139 of
    /// them decode where 192 are expected).
    @Test(.enabled(if: SharedData.root != nil, "needs ../shared/data/face (the real takes) beside the package"))
    func damagedVMCDecodesAsBefore() throws {
        let frames = try Self.realFrames()
        try #require(frames.count >= 180, "the real takes under ../shared/data/face")
        let bundles = frames.map(TrackerDatagrams.vmc), loose = Self.looseVMC(frames)
        var damaged: [[UInt8]] = []
        for (k, base) in bundles.enumerated() where k % 40 == 0 {
            damaged += TrackerFastPathTests.damaged(base, 60, seed: UInt64(500 + k))
            damaged += stride(from: 0, to: base.count, by: 13).map { Array(base.prefix($0)) }
            damaged.append(base)
        }
        for (k, base) in loose.enumerated() where k % 25 == 0 {
            damaged += TrackerFastPathTests.damaged(base, 20, seed: UInt64(900 + k))
        }
        #expect(Self.checkVMC(damaged, "damaged") > damaged.count / 40)
        _ = Self.checkVMC(Array(damaged.prefix(2000)), fast: false, "damaged, general")
    }
}

/// The word-at-a-time digit steps `zeroPoint` reads decimals with, against a byte-by-byte count.
@Suite struct DigitWordTests {
    @Test func leadingDigitsCountsEveryByteExactly() {
        // Digits, their neighbours, the same with the top bit set, and the separators around numbers.
        let bytes: [UInt8] = [0x30, 0x31, 0x35, 0x39, 0x2F, 0x3A, 0x00, 0x0A, 0x20, 0x2C, 0x2E, 0x7D, 0x65, 0x45, 0x2B, 0x2D,
                              0xB0, 0xB9, 0xBA, 0xAF, 0x80, 0xFF, 0x7F, 0x3F, 0x40, 0x70, 0x79, 0x10, 0x19, 0xF0, 0xF9]
        var r = TrackerFastPathTests.LCG(state: 7)
        for round in 0..<40_000 {
            // Mostly digits, so that every count from 0 to 8 is common.
            let word = (0..<8).map { _ in r.next(3) > 0 ? UInt8(0x30 + r.next(10)) : bytes[r.next(bytes.count)] }
            let v = word.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
            let count = word.firstIndex { $0 < 0x30 || $0 > 0x39 } ?? 8
            #expect(PlainDecimal.leadingDigits(v) == count, "round \(round): \(word)")
            // The digits kept, then zeros: the value of the first `count` digits times 10^(8 - count).
            let value = word.prefix(count).reduce(UInt64(0)) { $0 * 10 + UInt64($1 - 0x30) }
            let filled = (0..<8).map { k in k < count ? word[k] : UInt8(0x30) }
            let f = filled.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
            #expect(PlainDecimal.keepDigits(v, count) == f, "round \(round): \(word)")
            let scale = (count..<8).reduce(UInt64(1)) { p, _ in p * 10 }
            #expect(PlainDecimal.eightDigits(PlainDecimal.keepDigits(v, count)) == value * scale, "round \(round): \(word)")
        }
    }

    /// `digits` against a byte-by-byte reading of digits and one dot, on runs of every length around the
    /// eight a word holds, with dots, second dots and other bytes between and after them.
    @Test func digitsReadsAsAByteByByteReading() {
        var r = TrackerFastPathTests.LCG(state: 11)
        let others: [UInt8] = Array("., e-+}x\"".utf8)
        for round in 0..<40_000 {
            let length = r.next(40)
            let bytes = (0..<length).map { _ in r.next(5) > 0 ? UInt8(0x30 + r.next(10)) : others[r.next(others.count)] }
            let start = length == 0 ? 0 : r.next(length)
            // The reference: one byte at a time.
            var m: UInt64 = 0, count = 0, frac = 0, dot = false, end = start
            while end < bytes.count {
                let c = bytes[end]
                if c >= 0x30 && c <= 0x39 {
                    m = m &* 10 &+ UInt64(c - 0x30)
                    count += 1
                    if dot { frac += 1 }
                } else if c == UInt8(ascii: "."), !dot {
                    dot = true
                } else {
                    break
                }
                end += 1
            }
            bytes.withUnsafeBufferPointer { b in
                var j = start
                let got = PlainDecimal.digits(b, &j)
                #expect(got.mantissa == m && got.count == count && got.frac == frac && j == end,
                        "round \(round): \(String(decoding: bytes, as: UTF8.self)) from \(start)")
            }
        }
    }
}

/// NDJSON of every real frame, the `.gesichter` take's too (whose angles are Floats written as Doubles, with
/// leading zeros and 17 digits), read by the scanner as the full parser reads it.
@Suite struct RealNDJSONTests {
    @Test func everyRealFrameReadsAsTheParserReadsIt() throws {
        let frames = try ReferenceDecoderTests.frames()
        var checked = 0
        for (k, f) in frames.enumerated() {
            let line = Array(NDJSONEncoder.encode(f).utf8)
            let pos = SourcePosition(.line, k + 1)
            let fast = NDJSONDecoder.decode(line, position: pos)
            let reference = NDJSONDecoder.decodeWithParser(line, position: pos)
            #expect(sameItem(fast, reference), "\(String(decoding: line, as: UTF8.self))")
            checked += 1
        }
        #expect(checked == frames.count)
    }
}
