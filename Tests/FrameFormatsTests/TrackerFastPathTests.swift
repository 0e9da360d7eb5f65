import Foundation
import Testing
@testable import FrameFormats
import TrackingCore

/// The one-pass readers of VMC values and iFacialMocap parts decide every datagram exactly as the general
/// readers do: on real-shaped datagrams and on thousands of damaged copies.
@Suite struct TrackerFastPathTests {
    /// A seeded generator, so a failure names a reproducible case.
    struct LCG {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    /// Bytes that matter to the readers: separators, digits, signs, NUL, spaces and letters.
    static let interesting: [UInt8] = Array("-&|#=.,0159 eE+\u{0}\n_LRabz/".utf8) + [0x7F, 0xC3, 0x01, 0x3F, 0x80]

    /// Copies of `base` with one to three bytes changed, dropped, inserted or cut off.
    static func damaged(_ base: [UInt8], _ count: Int, seed: UInt64) -> [[UInt8]] {
        var r = LCG(state: seed)
        var out: [[UInt8]] = []
        for _ in 0..<count {
            var d = base
            for _ in 0...r.next(3) where !d.isEmpty {
                let k = r.next(d.count)
                switch r.next(5) {
                case 0: d[k] = interesting[r.next(interesting.count)]
                case 1: d.remove(at: k)
                case 2: d.insert(interesting[r.next(interesting.count)], at: k)
                case 3: d[k] = UInt8(r.next(256))
                default: d.removeLast(r.next(d.count))
                }
            }
            out.append(d)
        }
        return out
    }

    static func frame(_ k: Int) -> TrackingFrame {
        var f = TrackingFrame(t: Double(k) / 60)
        for s in BlendShape.allCases { f.blend[s] = Float((s.rawValue * 37 + k * 11) % 101) / 100 }
        return f
    }

    @Test func iFacialMocapPartsReadInOnePassMatchTheGeneralReader() {
        var bases: [[UInt8]] = (0..<4).map { TrackerDatagrams.iFacialMocap(Self.frame($0)) }
        bases.append(Array("mouthSmile_R&35|eyeBlink_L-0.5| jawOpen-100 |=head#-1.5,2,3,0,0,0|rightEye#1,2,3|leftEye#4,5,6|".utf8))
        bases.append(Array("jawOpen-1e2|eyeBlink_L--5|tongueOut-007|cheekPuff-|-5|x&y&3|jawOpen-12345678901234567|".utf8))
        var checked = 0, frames = 0
        for (b, base) in bases.enumerated() {
            for d in [base] + Self.damaged(base, 1500, seed: UInt64(b + 1)) {
                let fast = d.withUnsafeBytes { IFacialMocap.decode($0, index: 7, arrival: 3, fast: true) }
                let general = d.withUnsafeBytes { IFacialMocap.decode($0, index: 7, arrival: 3, fast: false) }
                #expect(sameItem(fast, general), "\(String(decoding: d, as: UTF8.self))")
                if case .frame = fast { frames += 1 }
                checked += 1
            }
        }
        #expect(checked > 9000)
        // The damage must leave many datagrams decodable, or the comparison would test only the refusals.
        #expect(frames > checked / 4)
    }

    @Test func vmcValuesReadInPlaceMatchTheGeneralReader() {
        var bases = (0..<3).map { TrackerDatagrams.vmc(Self.frame($0)) }
        bases.append(OSC.bundle([OSC.encode("/VMC/Ext/Blend/Val", [.string("Blink_L"), .float(0.7)]),
                                 OSC.encode("/VMC/Ext/Blend/Val", [.string("A"), .int(1)]),
                                 OSC.encode("/VMC/Ext/Blend/Val", [.string("JawOpen"), .float(0.25)]),
                                 OSC.encode("/VMC/Ext/Bone/Pos", [.string("Head"), .float(0), .float(0), .float(0),
                                                                   .float(0), .float(0.1), .float(0), .float(0.99)]),
                                 OSC.encode("/VMC/Ext/Blend/Apply", [])]))
        var checked = 0, frames = 0
        for (b, base) in bases.enumerated() {
            // Decoders keep values between datagrams, so both see the same sequence.
            var fast = VMCDecoder(), general = VMCDecoder()
            general.useFastPath = false
            for d in [base] + Self.damaged(base, 1500, seed: UInt64(100 + b)) {
                let x = d.withUnsafeBytes { fast.decode($0, index: 1, arrival: 2) }
                let y = d.withUnsafeBytes { general.decode($0, index: 1, arrival: 2) }
                #expect(x.count == y.count && zip(x, y).allSatisfy(sameItem))
                frames += x.filter { if case .frame = $0 { return true }; return false }.count
                checked += 1
            }
        }
        #expect(checked > 6000)
        // Most damage breaks a bundle's framing; enough must still decode to compare the value readers.
        #expect(frames > checked / 10)
    }

    @Test func aDamagedBundleChangesNothing() {
        var d = VMCDecoder()
        let good = OSC.bundle([OSC.encode("/VMC/Ext/Blend/Val", [.string("jawOpen"), .float(0.5)]),
                               OSC.encode("/VMC/Ext/Blend/Apply", [])])
        _ = good.withUnsafeBytes { d.decode($0, index: 0, arrival: 1) }
        // A value for the jaw, then a message whose string runs past the end: the value must not stick.
        var bad = OSC.bundle([OSC.encode("/VMC/Ext/Blend/Val", [.string("jawOpen"), .float(0.9)]),
                              OSC.encode("/VMC/Ext/Blend/Val", [.string("eyeBlinkLeft"), .float(0.9)])])
        bad.replaceSubrange((bad.count - 12)..<bad.count, with: Array(repeating: UInt8(ascii: "x"), count: 12))
        let items = bad.withUnsafeBytes { d.decode($0, index: 1, arrival: 2) }
        guard case .malformed(let issue) = items.first else { Issue.record("expected a malformed packet"); return }
        #expect(issue.message.contains("not terminated"))
        let apply = OSC.encode("/VMC/Ext/Blend/Apply", [])
        let after = apply.withUnsafeBytes { d.decode($0, index: 2, arrival: 3) }
        guard case .frame(let f, _) = after.first else { Issue.record("expected a frame"); return }
        #expect(f.blend[.jawOpen] == 0.5)
    }
}
