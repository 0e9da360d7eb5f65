import CZlib
import Foundation
import Testing
@testable import FrameFormats
import TrackingCore

/// A small `.gesichter` container is decompressed whole by libdeflate; everything it gives must be what
/// zlib's streaming gives, on real takes and on every kind of damage, and anything libdeflate would read
/// differently must go to zlib.
struct WholeGunzipTests {
    /// The packets, problem and counts of a scan, with or without the whole-member path.
    struct Outcome: Equatable, CustomStringConvertible {
        var packets: [[UInt8]]
        var problem: String?
        var refused: Bool
        var count: Int
        var output: Int
        var description: String {
            "\(packets.count) packets, \(count) counted, \(output) bytes out, refused \(refused), \(problem ?? "no problem")"
        }
    }

    static func scan(_ data: [UInt8], whole: Bool, limits: GunzipStream.Limits = GesichterContainer.limits) -> Outcome {
        var packets: [[UInt8]] = []
        let s = GesichterContainer.scan(ByteInput(bytes: data), limits: limits, allowWhole: whole) { p, _ in
            packets.append(Array(p))
        }
        return Outcome(packets: packets, problem: s.problem, refused: s.refused, count: s.packets, output: s.output)
    }

    static func tookWholePath(_ data: [UInt8], limits: GunzipStream.Limits = GesichterContainer.limits) -> Bool {
        GunzipStream(ByteInput(bytes: data), limits: limits).decompressedWhole
    }

    /// Both paths on `data`, which must agree.
    static func expectSame(_ data: [UInt8], _ note: String, limits: GunzipStream.Limits = GesichterContainer.limits,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let whole = scan(data, whole: true, limits: limits), streamed = scan(data, whole: false, limits: limits)
        #expect(whole == streamed, "\(note): whole \(whole), streamed \(streamed)", sourceLocation: sourceLocation)
    }

    static func realTake() throws -> [UInt8] {
        let path = try #require(SharedData.path("face/LLV_dao.gesichter"))
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(.enabled(if: SharedData.path("face/LLV_dao.gesichter") != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func aRealTakeIsDecompressedWholeToTheSamePackets() throws {
        let data = try Self.realTake()
        #expect(Self.tookWholePath(data))
        let whole = Self.scan(data, whole: true)
        #expect(whole.count == 180 && whole.problem == nil)
        #expect(whole == Self.scan(data, whole: false))
        // Through a file, as a replay reads it.
        let dir = NSTemporaryDirectory() + "hf-whole-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/take.gesichter"
        try Data(data).write(to: URL(fileURLWithPath: path))
        let file = try ByteInput(path: path)
        #expect(GunzipStream(file, limits: GesichterContainer.limits).decompressedWhole)
        #expect(try FrameFile.read(path: path) == (try FrameFile.decode(data, format: .auto, path: path)))
    }

    @Test(.enabled(if: SharedData.path("face/LLV_dao.gesichter") != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func damageToARealTakeReadsAsZlibReadsIt() throws {
        let data = try Self.realTake()
        // Flipped bytes: in the header, the compressed data and the CRC and size at the end.
        for at in Array(0..<24) + Array(stride(from: 24, to: data.count - 8, by: 89)) + Array((data.count - 8)..<data.count) {
            for x: UInt8 in [0x01, 0x80, 0xFF] {
                var d = data
                d[at] ^= x
                Self.expectSame(d, "byte \(at) ^ \(x)")
            }
        }
        // Cut off anywhere, most finely near the end.
        for n in Array(stride(from: 0, to: data.count - 64, by: 97)) + Array((data.count - 64)..<data.count) {
            Self.expectSame(Array(data.prefix(n)), "first \(n) bytes")
        }
        // Bytes after the member: ignored by zlib, and the size field is then not the last four bytes.
        for tail: [UInt8] in [[0], [0, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0x7F], Array(data.prefix(100)), data] {
            Self.expectSame(data + tail, "\(tail.count) bytes after the member")
        }
    }

    @Test(.enabled(if: SharedData.path("face/LLV_dao.gesichter") != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func aHeaderCRCIsLeftToZlibWhichChecksIt() throws {
        let data = try Self.realTake()
        // The header is 10 bytes and the file name up to its NUL; FHCRC adds the CRC's low 16 bits after it.
        let nameEnd = try #require(data[10...].firstIndex(of: 0)) + 1
        var header = Array(data[0..<nameEnd])
        header[3] |= 0x02
        let crc = header.withUnsafeBufferPointer { UInt16(truncatingIfNeeded: crc32(0, $0.baseAddress, UInt32($0.count))) }
        let body = Array(data[nameEnd...])
        let good = header + [UInt8(crc & 0xFF), UInt8(crc >> 8)] + body
        let bad = header + [UInt8(crc & 0xFF) ^ 1, UInt8(crc >> 8)] + body
        #expect(!Self.tookWholePath(good) && !Self.tookWholePath(bad))
        Self.expectSame(good, "a right header CRC")
        Self.expectSame(bad, "a wrong header CRC")
        #expect(Self.scan(good, whole: true).count == 180)
        #expect(Self.scan(bad, whole: true).problem?.contains("header crc mismatch") == true,
                "\(Self.scan(bad, whole: true))")
    }

    @Test func containersNearTheLimitsReadAsZlibReadsThem() {
        let take = GzipBombTests.take(50)
        Self.expectSame(GesichterContainer.encode(take), "a short take")
        #expect(Self.tookWholePath(GesichterContainer.encode(take)))
        Self.expectSame(GesichterContainer.encode([]), "no packets")
        Self.expectSame(GesichterContainer.gzip([]), "nothing at all")
        Self.expectSame([0x1F, 0x8B], "a gzip magic and nothing else")
        // Output just under, at and over what may be read without a check of its ratio.
        let header = GzipBombTests.header(count: 1)
        for extra in [-1, 0, 1] {
            let n = GesichterContainer.ratioFreeBytes - header.count - 4 + extra
            let file = GesichterContainer.gzip(header + GzipBombTests.be32(UInt32(n)) + [UInt8](repeating: 0, count: n))
            #expect(Self.tookWholePath(file) == (extra <= 0), "\(extra)")
            Self.expectSame(file, "\(extra) bytes past the ratio-free output")
        }
        // A lower size limit: output over it is refused, as zlib refuses it.
        var limits = GesichterContainer.limits
        limits.maxOutput = 4096
        let big = GesichterContainer.encode(GzipBombTests.take(200))
        #expect(!Self.tookWholePath(big, limits: limits))
        Self.expectSame(big, "over a 4 KB limit", limits: limits)
        #expect(Self.scan(big, whole: true, limits: limits).refused)
        // A size field promising less than comes out: libdeflate runs out of room, and zlib decides.
        var short = GesichterContainer.encode(take)
        short[short.count - 4] = 1
        short[short.count - 3] = 0
        short[short.count - 2] = 0
        short[short.count - 1] = 0
        #expect(!Self.tookWholePath(short))
        Self.expectSame(short, "a size field of 1")
    }
}
