import Foundation
import Testing
@testable import FrameFormats
import TrackingCore

/// True if two items are the same to the bit (NaN equal to the same NaN, -0 not equal to 0), which `==`
/// on frames cannot say.
func sameItem(_ a: DecodedItem, _ b: DecodedItem) -> Bool {
    switch (a, b) {
    case let (.malformed(x), .malformed(y)): return x == y
    case let (.frame(f, p), .frame(g, q)): return p == q && sameFrame(f, g)
    default: return false
    }
}

func sameFrame(_ f: TrackingFrame, _ g: TrackingFrame) -> Bool {
    func bits(_ d: Double?) -> UInt64? { d?.bitPattern }
    return f.t.bitPattern == g.t.bitPattern && f.face == g.face
        && f.blend.values.map(\.bitPattern) == g.blend.values.map(\.bitPattern)
        && bits(f.gaze?.x) == bits(g.gaze?.x) && bits(f.gaze?.y) == bits(g.gaze?.y)
        && [f.eyes?.leftYaw, f.eyes?.leftPitch, f.eyes?.rightYaw, f.eyes?.rightPitch].map(bits)
            == [g.eyes?.leftYaw, g.eyes?.leftPitch, g.eyes?.rightYaw, g.eyes?.rightPitch].map(bits)
        && [f.head?.yaw, f.head?.pitch, f.head?.roll].map(bits) == [g.head?.yaw, g.head?.pitch, g.head?.roll].map(bits)
}

/// The package's folder, for the fuzzing seeds under FuzzTesting/Corpus.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

private func corpus(_ target: String) -> [[UInt8]] {
    let dir = packageRoot.appendingPathComponent("FuzzTesting/Corpus/\(target)")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.sorted().compactMap { FileManager.default.contents(atPath: dir.appendingPathComponent($0).path).map { [UInt8]($0) } }
}

/// The real takes under ../shared/data/face, as (name, bytes).
private func realTakes() -> [(String, [UInt8])] {
    guard let root = SharedData.root else { return [] }
    let dir = root.appendingPathComponent("face")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".csv") }.sorted().compactMap { name in
        FileManager.default.contents(atPath: dir.appendingPathComponent(name).path).map { (name, [UInt8]($0)) }
    }
}

private func blank(_ l: [UInt8]) -> Bool { l.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

private func lines(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { l in
        var l = Array(l)
        if l.last == 0x0D { l.removeLast() }
        return l
    }
}

/// The NDJSON lines of every frame of the real takes, as `record` writes them.
private func realNDJSONLines() throws -> [[UInt8]] {
    var out: [[UInt8]] = []
    for (name, bytes) in realTakes() {
        let items = try FrameFile.decode(bytes, format: .livelinkCSV, path: name)
        for case .frame(let f, _) in items { out.append(Array(NDJSONEncoder.encode(f).utf8)) }
    }
    return out
}

/// Lines that are almost frames: every way the scanner might accept what the full parser refuses.
private let hostileNDJSON: [String] = [
    #"{"t": 1}"#, #"{"t": 1,}"#, #"{"t": 1 "face": true}"#, #"{"t": 1}}"#, #"{"t": 1} x"#, #"{"t": 1}  "#, #" {"t":1} "#,
    #"{"t": 1, "t": 2}"#, #"{"t": null}"#, #"{"t": "1"}"#, #"{"t": 1e3}"#, #"{"t": 1E+3}"#, #"{"t": -0}"#, #"{"t": --1}"#,
    #"{"t": 1.}"#, #"{"t": -.5}"#, #"{"t": .5}"#, #"{"t": +1}"#, #"{"t": 01}"#, #"{"t": 1.2.3}"#, #"{"t": 1e999}"#,
    #"{"t": 1e-400}"#, #"{"t": 2e12}"#, #"{"t": 123456789012345678901234}"#, #"{"t": 0.30000000000000004}"#,
    #"{"t": 45296.56666666667}"#, #"{"t": 9007199254740993}"#, #"{"t": 9007199254740992.5}"#, #"{"t": 1, "x": 2}"#,
    #"{"\u0074": 1}"#, #"{"t\u0000": 1}"#, "{\"t\": 1, \"face\": tru}", "{\"t\": 1, \"face\": truex}",
    #"{"t": 1, "face": null}"#, #"{"t": 1, "face": false, "face": true}"#, #"{"t": 1, "face": 1}"#,
    #"{"t": 1, "blend": {}}"#, #"{"t": 1, "blend": {"jawOpen": 0.5,}}"#, #"{"t": 1, "blend": {"JawOpen": 0.5}}"#,
    #"{"t": 1, "blend": {"JAWOPEN": 0.5}}"#, #"{"t": 1, "blend": {"jawopen": 0.5}}"#, #"{"t": 1, "blend": {"jawOpen": null}}"#,
    #"{"t": 1, "blend": {"jawOpen": 0.5, "jawOpen": 0.7}}"#, #"{"t": 1, "blend": {"jaw\u004fpen": 0.5}}"#,
    #"{"t": 1, "blend": {"jawOpen": "0.5"}}"#, #"{"t": 1, "blend": {"x": 0.5}}"#, #"{"t": 1, "blend": {"": 0.5}}"#,
    #"{"t": 1, "blend": {"j": 0.5}}"#, #"{"t": 1, "blend": {"tongueOut": 1, "TongueOut": 0}}"#, #"{"t": 1, "blend": []}"#,
    #"{"t": 1, "blend": null}"#, #"{"t": 1, "blend": {"jawOpen" 0.5}}"#, #"{"t": 1, "blend": {"jawOpen": 0.5}"#,
    #"{"t": 1, "gaze": null}"#, #"{"t": 1, "gaze": [0.5]}"#, #"{"t": 1, "gaze": [0.5, 0.5, 0.5]}"#,
    #"{"t": 1, "gaze": [0.5, null]}"#, #"{"t": 1, "gaze": [ 0.5 , 0.25 ]}"#, #"{"t": 1, "gaze": {"x": 1}}"#,
    #"{"t": 1, "eyes": null, "head": null}"#, #"{"t": 1, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightYaw": 3}}"#,
    #"{"t": 1, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightYaw": 3, "rightPitch": 4}}"#,
    #"{"t": 1, "eyes": {"rightPitch": 4, "rightYaw": 3, "leftPitch": 2, "leftYaw": 1}}"#,
    #"{"t": 1, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightYaw": 3, "rightPitch": 4, "x": 5}}"#,
    #"{"t": 1, "eyes": {"leftYaw": 1, "leftYaw": 9, "leftPitch": 2, "rightYaw": 3, "rightPitch": 4}}"#,
    #"{"t": 1, "head": {"yaw": 1, "pitch": 2, "roll": 3}}"#, #"{"t": 1, "head": {"yaw": 1, "pitch": 2, "roll": null}}"#,
    #"{"t": 1, "head": {"yaw": 1, "pitch": 2}}"#, #"{"t": 1, "head": [1, 2, 3]}"#, #"{"t": 1, "head": {}}"#,
    "{\"t\": 1,\t\"face\":\rfalse}", "{\"t\": 1, \"blend\": {\"jawOpen\u{7F}\": 0.5}}", "{\"t\": 1, \"blend\": {\"jawOpén\": 0.5}}",
    "{\"t\": 1, \"blend\": {\"\u{212A}\": 0.5}}", "{\"t\": 1, \"blend\": {\"JawOpen\u{FF}\": 0.5}}", "{}", "{", "}", "[]", "", " ",
    "null", "1", #""t""#, #"{"t": 1, "blend": {"mouthSmileLeft": 0.25, "mouthSmileRight": 0.5, "browInnerUp": 1e-7}}"#,
    // Names out of shape order, names that a name is a prefix of, an escaped quote, names near the line's end.
    #"{"t": 1, "blend": {"tongueOut": 0.5, "browDownLeft": 0.25, "TongueOut": 0.125, "eyeBlinkLeft": 0.0625}}"#,
    #"{"t": 1, "blend": {"jawOpen": 0.5, "jawOpenX": 0.5, "mouthClose": 0.25}, "head": {"yaw": 0, "pitch": 0, "roll": 0}}"#,
    #"{"t": 1, "blend": {"jawOpen\"": 0.5, "mouthClose": 0.25}, "head": {"yaw": 0, "pitch": 0, "roll": 0}}"#,
    #"{"t": 1, "blend": {"eyeBlinkLeft": 0.5, "eyeBlinkLeft" : 0.25, "eyeBlinkRight":0.125,"jawOpen": 0.0000001}}"#,
    #"{"t": 1, "blend": {"eyeBlinkLeft": 0.12345678901234567, "eyeBlinkRight": 0.9999999999999999, "jawOpen": 1}}"#,
    // The encoder's eyes and head with other numbers, other spacing, and a key missing or out of order.
    #"{"t": 1, "eyes": {"leftYaw": 1e-7, "leftPitch": -0.5, "rightYaw": 0.25, "rightPitch": -2.5E+1}, "head": {"yaw": -0, "pitch": 0.5, "roll": 1}}"#,
    #"{"t": 1, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightYaw": 3, "rightPitch": 4 }, "head": {"yaw": 1,"pitch": 2, "roll": 3}}"#,
    #"{"t": 1, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightPitch": 4, "rightYaw": 3}, "head": {"pitch": 2, "yaw": 1, "roll": 3}}"#,
    #"{"t": 1, "head": {"yaw": 1, "pitch": 2, "roll": 3, "roll": 4}, "eyes": {"leftYaw": 1, "leftPitch": 2, "rightYaw": 3, "rightPitch": null}}"#,
]

/// The scanner must give exactly what the full parser gives, on real recordings and on hostile lines.
struct NDJSONFastPathTests {
    static func check(_ line: [UInt8], _ n: Int = 1) {
        let pos = SourcePosition(.line, n)
        let reference = NDJSONDecoder.decodeWithParser(line, position: pos)
        let fast = NDJSONDecoder.decode(line, position: pos)
        #expect(sameItem(fast, reference), "\(String(decoding: line, as: UTF8.self).debugDescription): \(fast) vs \(reference)")
        // What the scanner accepts must be a frame the parser also reads.
        if let f = line.withUnsafeBufferPointer({ NDJSONScanner.frame($0) }) {
            #expect(sameItem(.frame(f, pos), reference), "\(String(decoding: line, as: UTF8.self).debugDescription)")
        }
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func everyFrameOfTheRealTakesTakesTheFastPathAndDecodesAlike() throws {
        let all = try realNDJSONLines()
        #expect(all.count > 7000)
        var declined = 0
        for (k, line) in all.enumerated() {
            Self.check(line, k + 1)
            if line.withUnsafeBufferPointer({ NDJSONScanner.frame($0) }) == nil { declined += 1 }
        }
        // Otherwise the bench would measure the full parser, and this test would compare it with itself.
        #expect(declined == 0)
    }

    /// Zeros and minus zeros in every numeric place, followed by every byte that may end a number or
    /// continue it, and the head's keys at the very end of the line: as the parser reads them, to the sign of
    /// each zero.
    @Test func zerosAndKeysAtTheLineEndReadAsTheParserReadsThem() {
        let zeros = ["0", "-0", "0.0", "-0.0", "00", "0e0", "-0E-0", "0.", "0x", "0 ", "0\t", "0.5", "-0.25"]
        var checked = 0
        for z in zeros {
            for place in 0..<9 {
                func v(_ k: Int) -> String { k == place ? z : "0.5" }
                let line = "{\"t\": \(place == 0 ? (z.hasPrefix("-") ? "1" : "1" + z.dropFirst()) : "1.5"), "
                    + "\"blend\": {\"jawOpen\": \(v(1)), \"eyeBlinkLeft\": \(v(2))}, "
                    + "\"eyes\": {\"leftYaw\": \(v(3)), \"leftPitch\": \(v(4)), \"rightYaw\": 0, \"rightPitch\": \(v(5))}, "
                    + "\"head\": {\"yaw\": \(v(6)), \"pitch\": \(v(7)), \"roll\": \(v(8))}}"
                Self.check(Array(line.utf8))
                // Without the closing braces, and with the last key cut short: declined or malformed alike.
                for cut in 1...14 where cut < line.utf8.count { Self.check(Array(line.utf8.dropLast(cut))) }
                checked += 1
            }
        }
        #expect(checked == zeros.count * 9)
        // The usual line's zeros take the fast path, with their signs.
        let usual = "{\"t\": 2, \"face\": true, \"blend\": {}, \"head\": {\"yaw\": -0, \"pitch\": 0, \"roll\": -0}}"
        let f = Array(usual.utf8).withUnsafeBufferPointer { NDJSONScanner.frame($0) }
        #expect(f?.head.map { [$0.yaw, $0.pitch, $0.roll].map(\.sign) } == [.minus, .plus, .minus])
    }

    @Test func hostileLinesDecodeAsTheFullParserDecodesThem() {
        for (k, s) in hostileNDJSON.enumerated() { Self.check(Array(s.utf8), k + 1) }
        for (k, s) in hostileNDJSON.enumerated() where !s.isEmpty {
            // The same through the streaming decoder, with CRLF endings, against the parser line by line.
            var d = NDJSONDecoder()
            let items = d.feed(Array((s + "\r\n").utf8)) + d.finish()
            let expected = blank(Array(s.utf8)) ? [] : [NDJSONDecoder.decodeWithParser(Array(s.utf8), position: SourcePosition(.line, 1))]
            #expect(items.count == expected.count && zip(items, expected).allSatisfy(sameItem), "\(s.debugDescription)")
            _ = k
        }
    }

    @Test func fuzzingSeedsDecodeAlike() {
        let seeds = corpus("FuzzNDJSON")
        #expect(!seeds.isEmpty, "FuzzTesting/Corpus/FuzzNDJSON holds seeds")
        for seed in seeds {
            for (k, line) in lines(seed).enumerated() where !blank(line) { Self.check(line, k + 1) }
        }
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func everyCutAndEveryByteChangeOfRealLinesDecodesAlike() throws {
        let all = try realNDJSONLines()
        // A face-lost line, a frame with blend shapes and eyes, and one with a gaze (not in the takes).
        var picks = [all[0], all[all.count / 2]]
        if let lost = all.first(where: { $0.count < 60 }) { picks.append(lost) }
        picks.append(Array(#"{"t": 12.5, "face": true, "blend": {"jawOpen": 0.5}, "gaze": [0.125, 0.75], "head": {"yaw": 0.1, "pitch": 0.2, "roll": 0.3}}"#.utf8))
        let replacements: [UInt8] = Array("\"\\,:{}[] \tne-.0Xt".utf8) + [0x00, 0x0D, 0xFF]
        for line in picks {
            for cut in 0...line.count { Self.check(Array(line[0..<cut])) }
            // Every byte of the short lines; on the long ones every 7th, which still reaches each kind of place.
            for at in stride(from: 0, to: line.count, by: line.count > 300 ? 7 : 1) {
                for r in replacements where r != line[at] {
                    var l = line
                    l[at] = r
                    Self.check(l)
                }
                var dropped = line
                dropped.remove(at: at)
                Self.check(dropped)
            }
        }
    }

    @Test func randomBytesDecodeAlike() {
        var rng = SplitMix(seed: 16)
        let alphabet = Array("{}[]\":,. -+eE0123456789tfaceblndgzyhsruoOJpwYRPL\\".utf8)
        for _ in 0..<20000 {
            let n = Int(rng.next() % 80)
            let line = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            Self.check(line)
        }
    }
}

/// The decimal reader gives exactly the C library's correctly rounded Double.
struct FastFloatTests {
    @Test func agreesWithTheStandardLibraryOnLongDecimals() {
        var rng = SplitMix(seed: 53)
        for k in 0..<200_000 {
            let digits = 1 + Int(rng.next() % 20)
            var s = (0..<digits).map { _ in String(rng.next() % 10) }.joined()
            let dot = Int(rng.next() % UInt64(digits + 1))
            if dot < digits { s.insert(".", at: s.index(s.startIndex, offsetBy: dot)) }
            if k % 3 == 0 { s = "-" + s }
            let b = Array(s.utf8)
            let got = FastFloat.parse(b, 0, b.count)
            #expect(got?.bitPattern == Double(s)?.bitPattern, "\(s)")
        }
        for s in ["9007199254740992", "9007199254740993", "0.9007199254740993", "45296.56666666667", "-0", "0.", "1e5",
                  "1.2345e-05", "1E+22", "1e23", "9007199254740993e-22", "1e", "1e+", "e5", "1.5e-0005", "-7.25E3", "1.e5"] {
            let b = Array(s.utf8)
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == Double(s)?.bitPattern, "\(s)")
        }
    }
}

extension FastFloatTests {
    /// Seventeen to nineteen digits (a Double's shortest description often has seventeen) with up to nineteen
    /// decimals are read by one integer division, correctly rounded: every Double's description reads back as
    /// that Double, and random long decimals, exact halves included, as the C library reads them.
    @Test func longDigitsAreDividedExactly() {
        var rng = SplitMix(seed: 57)
        var divided = 0
        for k in 0..<200_000 {
            // Timestamps of a day and more, values of every size at or above 1, and angles and shapes below it.
            let scale = [1.0, 100.0, 86_400.0, 1e9, 1e15, 1.0, 0.01, 0.001][k % 8]
            let d = Double(rng.next() >> 11) / Double(1 << 53) * scale + (k % 8 < 5 ? 1 : 0)
            let s = "\(d)"
            let b = Array(s.utf8)
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == d.bitPattern, "\(s)")
            if s.filter(\.isNumber).count >= 17, FastFloat.exact(b.withUnsafeBufferPointer { $0 }, 0, b.count) != nil { divided += 1 }
        }
        #expect(divided > 10_000)
        for _ in 0..<100_000 {
            let digits = 17 + Int(rng.next() % 3)
            var s = (0..<digits).map { _ in String(rng.next() % 10) }.joined()
            // The dot anywhere, leading zeros included: "0.0031…" as much as "4486.78…".
            s.insert(".", at: s.index(s.startIndex, offsetBy: Int(rng.next() % UInt64(digits))))
            if s.hasPrefix(".") { s = "0" + s }
            let b = Array(s.utf8)
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == Double(s)?.bitPattern, "\(s)")
        }
        // Halfway between two Doubles: ties go to the even significand.
        for s in ["9007199254740993", "9007199254740995", "9007199254740993.0", "18014398509481990", "18014398509481986",
                  "4503599627370496.5", "4503599627370497.5", "1.000000000000000111", "0.12345678901234567",
                  "0.99999999999999999", "-0.0031094569712877274", "0.10043957084417343", "0.0000000000000000001"] {
            let b = Array(s.utf8)
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == Double(s)?.bitPattern, "\(s)")
            #expect(FastFloat.exact(b.withUnsafeBufferPointer { $0 }, 0, b.count) != nil, "\(s) is read without the C library")
        }
        // Integers of 2^54 and over, twenty digits and twenty decimals are left to the C library, and agree.
        for s in ["1152921504606846977", "9999999999999999999", "1.0000000000000001110", "0.00031094569712877274", "0.12345678901234567891"] {
            let b = Array(s.utf8)
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == Double(s)?.bitPattern, "\(s)")
            #expect(FastFloat.exact(b.withUnsafeBufferPointer { $0 }, 0, b.count) == nil, "\(s)")
        }
    }

    /// Exponents (what Float descriptions write below 1e-4) take the exact path too, and agree.
    @Test func agreesWithTheStandardLibraryOnExponents() {
        var rng = SplitMix(seed: 54)
        var exact = 0
        for k in 0..<200_000 {
            let digits = 1 + Int(rng.next() % 18)
            var s = (0..<digits).map { _ in String(rng.next() % 10) }.joined()
            let dot = Int(rng.next() % UInt64(digits + 1))
            if dot < digits { s.insert(".", at: s.index(s.startIndex, offsetBy: dot)) }
            s += ["e", "E", "e-", "e+", "E-"][Int(rng.next() % 5)] + String(rng.next() % 40)
            if k % 3 == 0 { s = "-" + s }
            let b = Array(s.utf8)
            if b.withUnsafeBufferPointer({ FastFloat.exact($0, 0, b.count) }) != nil { exact += 1 }
            #expect(FastFloat.parse(b, 0, b.count)?.bitPattern == Double(s)?.bitPattern, "\(s)")
        }
        #expect(exact > 50_000)
    }
}

extension FastFloatTests {
    /// The Live Link app's `d.dddddddddd` read in two word loads is the general reader's Double, and any
    /// other shape is declined with the position unmoved.
    @Test func tenDecimalsAgreeWithTheGeneralReaderAndDeclineOtherShapes() {
        var rng = SplitMix(seed: 55)
        for k in 0..<100_000 {
            var s = String(rng.next() % 10) + "." + (0..<10).map { _ in String(rng.next() % 10) }.joined()
            let negative = k % 2 == 0
            if k % 7 == 0 { s += ",0.5" }
            let b = Array(s.utf8)
            b.withUnsafeBufferPointer { p in
                var j = 0
                let got = PlainDecimal.tenDecimals(p, &j, negative: negative)
                let field = String(s.prefix(12))
                #expect(got?.bitPattern == Double((negative ? "-" : "") + field)?.bitPattern, "\(s)")
                #expect(j == 12)
            }
        }
        for s in ["0.123456789", "0.12345678901", "0.1234567890x", "00.123456789", "0,1234567890", "0.12345a7890", "1.234567890e", ""] {
            let b = Array(s.utf8)
            b.withUnsafeBufferPointer { p in
                var j = 0
                #expect(PlainDecimal.tenDecimals(p, &j, negative: false) == nil, "\(s)")
                #expect(j == 0)
            }
        }
    }
}

extension FastFloatTests {
    /// `0.` and up to sixteen decimals read with two word loads is the general reader's Double; longer
    /// numbers, exponents, signs and second dots after them are declined with the position unmoved.
    @Test func zeroPointAgreesWithTheGeneralReaderAndDeclinesTheRest() {
        var rng = SplitMix(seed: 56)
        var taken = 0
        let tails = [",", "}", " ", "]", "e-5", "E3", "+", "-", ".5", "7", "x", "\"", ", \"jawOpen\": 0.5}"]
        for k in 0..<100_000 {
            let decimals = 1 + Int(rng.next() % 20)
            let number = "0." + (0..<decimals).map { _ in String(rng.next() % 10) }.joined()
            let s = number + tails[Int(rng.next() % UInt64(tails.count))] + String(repeating: " ", count: 20)
            let negative = k % 3 == 0
            let b = Array(s.utf8)
            b.withUnsafeBufferPointer { p in
                var j = 0
                if let got = PlainDecimal.zeroPoint(p, &j, negative: negative) {
                    taken += 1
                    // Taken only when the number, as a JSON scan ends it, is `0.` and decimals (at most sixteen).
                    let scanned = String(s.prefix { $0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "+" || $0 == "-" })
                    #expect(scanned.dropFirst(2).allSatisfy(\.isNumber) && scanned.count <= 18, "\(s)")
                    #expect(j == scanned.utf8.count)
                    #expect(got.bitPattern == Double((negative ? "-" : "") + scanned)?.bitPattern, "\(s)")
                } else {
                    #expect(j == 0)
                }
            }
        }
        #expect(taken > 30_000)
    }

    /// Every decimal count from one to sixteen is read, the sixteenth only while the digits are below 2^52.
    @Test func zeroPointReadsEachDecimalCount() {
        for k in 1...17 {
            for digits in [String(repeating: "1", count: k), String(repeating: "9", count: k), "0" + String(repeating: "5", count: k - 1)] {
                let s = "0." + digits + ", \"jawOpen\": 0.5}          "
                let b = Array(s.utf8)
                b.withUnsafeBufferPointer { p in
                    var j = 0
                    let got = PlainDecimal.zeroPoint(p, &j, negative: false)
                    let fits = UInt64(digits).map { $0 < 1 << 52 } ?? false
                    if k <= 16 && fits {
                        #expect(got?.bitPattern == Double("0." + digits)?.bitPattern, "\(s)")
                        #expect(j == 2 + k)
                    } else {
                        #expect(got == nil && j == 0, "\(s)")
                    }
                }
            }
        }
    }
}

/// The one-pass row reader must give exactly what splitting into fields gives.
struct CSVFastPathTests {
    static let header = LiveLinkCSVTests.header

    /// Decodes `bytes` with and without the fast path, whole and in odd chunks; all must agree to the bit.
    static func check(_ bytes: [UInt8], _ note: @autoclosure () -> String = "") {
        var reference = LiveLinkCSVDecoder()
        reference.useFastPath = false
        let expected = reference.feed(bytes) + reference.finish()
        var fast = LiveLinkCSVDecoder()
        let got = fast.feed(bytes) + fast.finish()
        #expect(got.count == expected.count && zip(got, expected).allSatisfy(sameItem), "\(note())")
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func realTakesDecodeAlikeAndTakeTheFastPath() {
        let takes = realTakes()
        #expect(takes.count >= 3)
        for (name, bytes) in takes {
            Self.check(bytes, name)
            // The fast path must be what decodes the rows with a face, or the bench measures the reference.
            var d = LiveLinkCSVDecoder()
            let rows = lines(bytes).dropFirst().filter { !blank($0) }
            let faceRows = rows.filter { row in row.filter { $0 == UInt8(ascii: ",") }.count > 1 }
            _ = d.feed(Array(bytes.prefix(while: { $0 != 0x0A })) + [0x0A])
            let declined = faceRows.filter { row in row.withUnsafeBufferPointer { d.fastRowForTests($0) } == nil }
            #expect(declined.isEmpty, "\(name): \(declined.count) rows declined")
        }
    }

    @Test func fuzzingSeedsDecodeAlike() {
        let seeds = corpus("FuzzLiveLinkCSV")
        #expect(!seeds.isEmpty)
        for seed in seeds { Self.check(seed) }
    }

    @Test func hostileRowsDecodeAlike() {
        let good = LiveLinkCSVTests.row("00:00:01:00.000", jaw: 0.5)
        func with(_ value: String) -> String { good.replacingOccurrences(of: ",0.1,", with: "," + value + ",") }
        let tail = String(good.dropFirst(15))
        let rest: String = good.split(separator: ",").dropFirst().joined(separator: ",")
        var rows: [String] = [good, good + ",", good + ",1", String(good.dropLast(4))]
        rows += ["00:00:01:00.000,0", "00:00:01:00.000,0,", "00:00:01:00.000,", "00:00:01:00.000", "00:00:01.000,61"]
        rows += ["00:00:01:00:00.000," + rest]
        rows += [good.replacingOccurrences(of: ",61,", with: ",0,"), good.replacingOccurrences(of: ",61,", with: ",-0,")]
        rows += [good.replacingOccurrences(of: ",61,", with: ",abc,")]
        for v in ["1e-3", "+0.1", "-0.1", "", ".", "1.2.3", " 0.1", "0.1 ", "12345678901234567890", "0.30000000000000004",
                  "inf", "nan", "1e999", "-", "+", "0x1p3", "1,5"] {
            rows.append(with(v))
        }
        rows += ["99999999999999:00:00:00.000" + tail, "-1:00:00:00.000" + tail, "aa:00:00:00.000" + tail]
        rows.append("00:00:01:00.000,61" + String(repeating: ",0.5", count: 61))
        for r in rows {
            Self.check(Array((Self.header + "\n" + r + "\n").utf8), r)
            Self.check(Array((Self.header + "\r\n" + r).utf8), r)
        }
        // Headers with columns that are ignored, repeated or missing.
        let odd = ["Timecode,BlendShapeCount,JawOpen,Extra,JawOpen,HeadYaw", "Timecode,JawOpen", "Timecode", "Timecode,Timecode,JawOpen"]
        for h in odd {
            for r in ["00:00:01:00.000,61,0.5,x y,0.7,0.1", "00:00:01:00.000,0.5", "00:00:01:00.000", "00:00:01:00.000,00:00:02:00.000,0.5",
                      "00:00:01:00.000,1,0.5,,0.7,0.1", "00:00:01:00.000,0"] {
                Self.check(Array((h + "\n" + r + "\n").utf8), h + " / " + r)
            }
        }
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func everyCutAndEveryByteChangeOfARealRowDecodesAlike() throws {
        let (_, bytes) = try #require(realTakes().first)
        let all = lines(bytes)
        let header = all[0], row = all[all.count / 2]
        let replacements: [UInt8] = Array(",.-+e: 0x\t".utf8) + [0x00, 0x0D, 0xFF]
        func check(_ r: [UInt8]) { Self.check(header + [0x0A] + r + [0x0A], String(decoding: r, as: UTF8.self)) }
        for cut in stride(from: 0, through: row.count, by: 3) { check(Array(row[0..<cut])) }
        for at in stride(from: 0, to: row.count, by: 5) {
            for r in replacements where r != row[at] {
                var l = row
                l[at] = r
                check(l)
            }
        }
    }
}

/// `LiveLinkUDP.decode` reads a packet in place; these compare it with the array-copying reader it replaced.
struct LiveLinkUDPInPlaceTests {
    /// The decoder as it was before it read packets in place: every value through a bounds-checked array
    /// reader, then set shape by shape. Kept here as the reference the in-place reader must match.
    static func reference(_ packet: [UInt8], index: Int) -> DecodedItem {
        struct ArrayReader {
            let b: [UInt8]
            var i = 0
            var atEnd: Bool { i >= b.count }
            var remaining: Int { b.count - i }
            mutating func u8() -> UInt8? { guard i < b.count else { return nil }; defer { i += 1 }; return b[i] }
            mutating func u32() -> UInt32? {
                guard remaining >= 4 else { return nil }
                defer { i += 4 }
                return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
            }
            mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
            mutating func f32() -> Float? { u32().map { Float(bitPattern: $0) } }
            mutating func skip(_ n: Int) -> Bool { guard n >= 0, remaining >= n else { return false }; i += n; return true }
        }
        let pos = SourcePosition(.packet, index)
        var r = ArrayReader(b: packet)
        func bad(_ m: String) -> DecodedItem { .malformed(FrameIssue(pos, m)) }
        guard let v = r.u8() else { return bad("empty packet") }
        guard v == LiveLinkUDP.version else { return bad("protocol version \(v), expected \(LiveLinkUDP.version)") }
        for field in ["device id", "subject name"] {
            guard let len = r.i32() else { return bad("truncated before the \(field)") }
            guard len >= 0, len <= LiveLinkUDP.maxNameLength else { return bad("\(field) length \(len) is out of range") }
            guard r.skip(Int(len)) else { return bad("truncated inside the \(field)") }
        }
        guard let frameNo = r.i32(), let sub = r.f32(), let num = r.i32(), let den = r.i32() else {
            return bad("truncated inside the frame time")
        }
        guard num > 0, den > 0 else { return bad("frame rate \(num)/\(den) is not positive") }
        let t = (Double(frameNo) + Double(sub)) * Double(den) / Double(num)
        if let p = FrameTime.problem(t) { return bad("\(p), from frame \(frameNo) + \(sub) at \(num)/\(den) fps") }
        if r.atEnd { return .frame(.noFace(at: t), pos) }
        guard let count = r.u8() else { return bad("truncated before the value count") }
        guard count >= 52 else { return bad("value count \(count), expected 61") }
        var frame = TrackingFrame(t: t)
        var values: [Float] = []
        for k in 0..<Int(count) {
            guard let f = r.f32() else { return bad("truncated at value \(k + 1) of \(count)") }
            values.append(f)
        }
        guard r.atEnd else { return bad("\(r.remaining) unexpected bytes after the values") }
        for (k, shape) in LiveLinkUDP.shapeOrder.enumerated() { frame.blend[shape] = values[k] }
        if values.count >= 61 {
            frame.head = HeadPose(yaw: Double(values[52]), pitch: Double(values[53]), roll: Double(values[54]))
            frame.eyes = EyeAngles(leftYaw: Double(values[55]), leftPitch: Double(values[56]),
                                   rightYaw: Double(values[58]), rightPitch: Double(values[59]))
        }
        return .frame(frame, pos)
    }

    /// Decodes `packet` from an array, a slice, a buffer and a collection with no contiguous storage; every
    /// one must match the reference to the bit.
    static func check(_ packet: [UInt8], _ note: @autoclosure () -> String = "") {
        let expected = reference(packet, index: 7)
        let padded = [0xAA] + packet + [0xBB]
        let got = [LiveLinkUDP.decode(packet, index: 7), LiveLinkUDP.decode(padded[1..<(padded.count - 1)], index: 7),
                   packet.withUnsafeBufferPointer { LiveLinkUDP.decode($0, index: 7) },
                   LiveLinkUDP.decode(packet.lazy.map { $0 }, index: 7)]
        #expect(got.allSatisfy { sameItem($0, expected) }, "\(note())")
    }

    /// Packets of real faces: the recorded container's, and every frame of the real CSV takes encoded.
    static func realPackets() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        if let path = SharedData.path("face/LLV_dao.gesichter"), let data = FileManager.default.contents(atPath: path) {
            out += GesichterContainer.packets([UInt8](data)).packets
        }
        for (name, bytes) in realTakes() {
            for case .frame(let f, _) in try FrameFile.decode(bytes, format: .livelinkCSV, path: name) {
                out.append(LiveLinkUDP.encode(f))
            }
        }
        return out
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func realPacketsDecodeAlike() throws {
        let packets = try Self.realPackets()
        #expect(packets.count > 7000)
        for (k, p) in packets.enumerated() { Self.check(p, "packet \(k)") }
    }

    @Test func fuzzingSeedsAndTheirCutsDecodeAlike() {
        let seeds = corpus("FuzzLiveLinkUDP")
        #expect(!seeds.isEmpty)
        for seed in seeds {
            for cut in 0...seed.count { Self.check(Array(seed[0..<cut]), "cut at \(cut)") }
        }
    }

    @Test(.enabled(if: SharedData.root != nil, "needs the real takes in ../shared/data/face"))
    func mutatedRealPacketsDecodeAlike() throws {
        let packets = try Self.realPackets()
        var rng = SplitMix(seed: 61)
        for _ in 0..<20_000 {
            var p = packets[Int(rng.next() % UInt64(packets.count))]
            switch rng.next() % 6 {
            case 0: p = Array(p.prefix(Int(rng.next() % UInt64(p.count + 1))))
            case 1: p += (0..<Int(rng.next() % 9)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            case 2:
                // The value count: fewer than the shapes, the shapes alone, the full 61, more than sent.
                if let at = p.count >= 244 ? p.count - 245 : nil {
                    p[at] = [0, 51, 52, 53, 60, 61, 62, 255][Int(rng.next() % 8)]
                }
            case 3:
                // A name length, or a frame-rate field.
                let at = [1, 4, Int(rng.next() % UInt64(max(1, p.count)))][Int(rng.next() % 3)]
                if at < p.count { p[at] = UInt8(truncatingIfNeeded: rng.next()) }
            default:
                for _ in 0..<(1 + Int(rng.next() % 4)) where !p.isEmpty {
                    p[Int(rng.next() % UInt64(p.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            Self.check(p, "\(p)")
        }
    }
}

/// `LiveLinkCSVDecoder.timecode` reads the app's spelling itself; it must give what `FastFloat` gives for
/// each part, for every spelling.
struct CSVTimecodeTests {
    static func check(_ s: String, rate: Double = 60) {
        let b = Array(s.utf8)
        let (fast, general) = b.withUnsafeBufferPointer { p in
            (LiveLinkCSVDecoder.timecode(p, 0, p.count, rate: rate), LiveLinkCSVDecoder.generalTimecode(p, 0, p.count, rate: rate))
        }
        #expect(fast?.bitPattern == general?.bitPattern, "\(s) at \(rate)")
    }

    @Test func hostileTimecodesReadAsTheGeneralReaderReadsThem() {
        let cases = ["16:55:51:38.453", "00:00:00:00.000", "23:59:59:59.999", "1:2:3:4", "1:2:3:4.", "1:2:3:.5", "1:2:3:.",
                     "1:2:3:4.5.6", "1:2:3", "1:2:3:4:5", "1:2:3:", ":2:3:4", "1::3:4", "1.5:2:3:4", "1:2.5:3:4", "1:2:3.25:4",
                     "-1:2:3:4", "1:-2:3:4", "1:2:3:-4", "+1:2:3:4", "1:2:3:4e1", "1:2:3:4E-1", " 1:2:3:4", "1:2:3:4 ",
                     "123456789012345:0:0:0", "1234567890123456:0:0:0", "0:0:0:1.23456789012345", "0:0:0:1.234567890123456",
                     "99999999999999999999:0:0:0", "0:0:0:0.0000000000000000000001", "00:00:00:00.000\r", "", ":", ":::",
                     "1:2:3:4\u{0}", "١:2:3:4", "0x1:2:3:4", "inf:0:0:0", "nan:0:0:0"]
        for c in cases {
            for rate in [60, 30, 29.97, 0, -1, .nan, .infinity] { Self.check(c, rate: rate) }
        }
        // The app's spelling must be what the plain reader takes, or rows pay for FastFloat again.
        let app = Array("16:55:51:38.453".utf8)
        #expect(app.withUnsafeBufferPointer { LiveLinkCSVDecoder.plainTimecode($0, 0, $0.count, rate: 60) } != nil)
    }

    @Test func randomTimecodesReadAlike() {
        var rng = SplitMix(seed: 62)
        let alphabet = Array("0123456789:.-+e ".utf8)
        for _ in 0..<100_000 {
            var s = [UInt8]()
            if rng.next() % 2 == 0 {
                // Near the app's spelling: parts of 0-17 digits, perhaps a dot, perhaps a stray byte.
                for k in 0..<4 {
                    s += (0..<Int(rng.next() % 18)).map { _ in UInt8(ascii: "0") + UInt8(rng.next() % 10) }
                    if rng.next() % 3 == 0 { s.append(UInt8(ascii: ".")); s += (0..<Int(rng.next() % 6)).map { _ in UInt8(ascii: "0") + UInt8(rng.next() % 10) } }
                    if k < 3 { s.append(UInt8(ascii: ":")) }
                }
                if rng.next() % 4 == 0, !s.isEmpty { s[Int(rng.next() % UInt64(s.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            } else {
                s = (0..<Int(rng.next() % 24)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            }
            Self.check(String(decoding: s, as: UTF8.self), rate: [60, 30, 24][Int(rng.next() % 3)])
        }
    }
}
