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
            #expect(new.head == old.head && new.lastShape == old.lastShape && new.pendingShapes == old.pendingShapes,
                    "\(note) datagram \(k)")
            frames += x.filter { if case .frame = $0 { return true }; return false }.count
        }
        return frames
    }

    @Test func vmcDecodesAsBefore() throws {
        let frames = try Self.frames()
        let bundles = frames.map(TrackerDatagrams.vmc)
        #expect(Self.checkVMC(bundles, "real") == bundles.count)
        #expect(Self.checkVMC(Array(bundles.prefix(300)), fast: false, "real, general") == min(300, bundles.count))
        // Values and Apply as separate datagrams, VRM names, the head bone, other VMC messages, and unknown ones.
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
        #expect(Self.checkVMC(loose, "loose") > 250)
        #expect(Self.checkVMC([OSC.bundle(Array(loose.prefix(40)))] + loose.suffix(40), "one bundle") > 0)
        // Damaged copies, in one sequence so that what a refused packet leaves behind is compared too.
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
