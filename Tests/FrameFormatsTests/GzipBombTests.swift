import CZlib
import Foundation
import Testing
@testable import FrameFormats
import TrackingCore

/// A `.gesichter` gzip bomb is refused before it costs memory, and a genuine container is read a chunk at a
/// time (issue 33: a 600 KB bomb expanding to 600 MB was refused only once the process held 570 MB).
struct GzipBombTests {
    /// gzip of `head` followed by `zeros` zero bytes, deflated a MB at a time so the expansion is never held.
    static func bomb(head: [UInt8] = [], zeros: Int, tail: [UInt8] = []) -> [UInt8] {
        var strm = z_stream()
        guard deflateInit2_(&strm, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&strm) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        func put(_ piece: [UInt8], _ flush: Int32) {
            var input = piece
            input.withUnsafeMutableBufferPointer { inp in
                strm.next_in = inp.baseAddress
                strm.avail_in = UInt32(inp.count)
                repeat {
                    buf.withUnsafeMutableBufferPointer { o in
                        strm.next_out = o.baseAddress
                        strm.avail_out = UInt32(o.count)
                        _ = deflate(&strm, flush)
                        out.append(contentsOf: o[0..<(o.count - Int(strm.avail_out))])
                    }
                } while strm.avail_out == 0
            }
        }
        put(head, Z_NO_FLUSH)
        let mb = [UInt8](repeating: 0, count: 1 << 20)
        var left = zeros
        while left > 0 {
            put(left >= mb.count ? mb : Array(mb.prefix(left)), Z_NO_FLUSH)
            left -= mb.count
        }
        put(tail, Z_FINISH)
        return out
    }

    /// A container header: version 6 and a packet count.
    static func header(count: UInt32) -> [UInt8] { [6] + be32(count) }
    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    /// What a byte of the bomb's output may cost at most before the refusal: the ratio-free output plus the
    /// one chunk decompressed past it.
    static let outputBound = GesichterContainer.ratioFreeBytes + GunzipStream.chunk

    static func scan(_ data: [UInt8]) -> GesichterContainer.Scan {
        GesichterContainer.scan(ByteInput(bytes: data), limits: GesichterContainer.limits) { _, _ in }
    }

    @Test func sixHundredMBOfZerosIsRefusedAfterAboutOneMBOfOutput() {
        let b = Self.bomb(zeros: 600 << 20)
        #expect(b.count < 1 << 20, "a \(b.count)-byte file")
        let s = Self.scan(b)
        #expect(s.refused)
        #expect(s.problem?.contains("more than 256 times its size") == true, "\(s.problem ?? "nil")")
        #expect(s.problem?.contains("gzip bomb") == true)
        #expect(s.output <= Self.outputBound, "decompressed \(s.output) bytes before refusing")
        #expect(s.maxHeld <= 5, "only the container header is ever held back")
        #expect(GesichterContainer.packets(b).packets.isEmpty)
    }

    @Test func theRefusalNamesTheFile() throws {
        let dir = NSTemporaryDirectory() + "hf-bomb-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/bomb.gesichter"
        let b = Self.bomb(head: Self.header(count: 1) + Self.be32(0xFFFF_FFF0), zeros: 600 << 20)
        try Data(b).write(to: URL(fileURLWithPath: path))
        for message in [Self.refusal { _ = try FrameFileReader(path: path) },
                        Self.refusal { _ = try FrameFile.read(path: path) }] {
            #expect(message?.hasPrefix("\(path): decompresses to more than 256 times its size") == true,
                    "\(message ?? "not refused")")
            #expect(message?.contains("gzip bomb") == true)
        }
        #expect(throws: FrameFileError.self) { try FrameFile.decode(b, format: .auto, path: path) }
    }

    /// What `open` is refused with, nil if it is not.
    static func refusal(_ open: () throws -> Void) -> String? {
        do { try open() } catch let e as FrameFileError { return e.description } catch { return "\(error)" }
        return nil
    }

    @Test func aHugePacketLengthIsNeverBuffered() {
        let head = Self.header(count: 1) + Self.be32(0xFFFF_FFF0)
        // Under the ratio: random bytes after the length, far fewer than it claims.
        var rng = SplitMix(seed: 33)
        let noise = (0..<(256 << 10)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let s = Self.scan(GesichterContainer.gzip(head + noise))
        #expect(!s.refused)
        #expect(s.problem == "truncated inside packet 1 of 1 (4294967280 bytes)")
        #expect(s.maxHeld <= 5, "held \(s.maxHeld) bytes")
        // A length past any datagram with all its bytes there: the framing is lost, and said to be.
        let long = GesichterContainer.maxPacket + 1
        let t = Self.scan(GesichterContainer.gzip(Self.header(count: 2) + Self.be32(UInt32(long))
                                                  + [UInt8](repeating: 7, count: long + 100)))
        #expect(t.problem?.contains("packet 1 of 2 claims 65537 bytes, more than a UDP datagram holds") == true,
                "\(t.problem ?? "nil")")
        #expect(t.maxHeld <= 5)
    }

    @Test func aBombOfEmptyPacketsIsRefusedBeforeAnyItem() throws {
        // Four zero bytes are an empty packet: 600 MB of them would be 157 million malformed items.
        let b = Self.bomb(head: Self.header(count: .max), zeros: 600 << 20)
        let s = Self.scan(b)
        #expect(s.refused)
        #expect(s.output <= Self.outputBound)
        #expect(throws: FrameFileError.self) { try FrameFileReader(ByteInput(bytes: b), format: .auto, path: "b") }
        // Past the absolute size, under the ratio: refused for its size, having held no more than a packet.
        var limits = GesichterContainer.limits
        limits.maxOutput = 4 << 20
        limits.maxRatio = 1 << 20
        let small = GesichterContainer.scan(ByteInput(bytes: b), limits: limits) { _, _ in }
        #expect(small.problem?.hasPrefix("decompresses to more than 4 MB") == true, "\(small.problem ?? "nil")")
        #expect(small.output <= limits.maxOutput + GunzipStream.chunk)
        #expect(small.maxHeld <= 5)
    }

    /// `n` packets of a take that moves, as a phone would send them.
    static func take(_ n: Int) -> [[UInt8]] {
        (0..<n).map { k in
            var f = TrackingFrame(t: Double(k) / 60)
            f.blend[.jawOpen] = Float(k % 97) / 97
            f.blend[.eyeBlinkLeft] = Float(k % 13) / 13
            f.blend[.mouthSmileLeft] = Float((k * 7) % 101) / 101
            f.head = HeadPose(yaw: Double(k % 11) / 100, pitch: 0, roll: 0)
            return LiveLinkUDP.encode(f, device: "iPhone", subject: "take")
        }
    }

    @Test func aLongRecordingIsReadAChunkAtATime() throws {
        let packets = Self.take(40_000)
        let file = GesichterContainer.encode(packets)
        let reader = try FrameFileReader(ByteInput(bytes: file), format: .auto, path: "long.gesichter")
        let streamed = Array(reader)
        #expect(streamed.count == 40_000)
        #expect(streamed == (try FrameFile.decode(file, format: .auto, path: "long.gesichter")))
        #expect(reader.maxHeld <= packets[0].count + 4, "at most one packet held back, not \(reader.maxHeld) bytes")
        // Each item took at least its packet's bytes of one chunk of output.
        #expect(reader.maxQueued <= GunzipStream.chunk / packets[0].count + 1, "\(reader.maxQueued) items queued")
    }

    @Test func aTakeOfIdenticalFramesIsNotABomb() throws {
        // The most a genuine take expands: still frames, all zeros, about 70 times.
        let still = (0..<60_000).map { LiveLinkUDP.encode(TrackingFrame(t: Double($0) / 60)) }
        let file = GesichterContainer.encode(still)
        let s = Self.scan(file)
        #expect(!s.refused, "\(s.problem ?? "nil")")
        #expect(s.packets == 60_000)
        #expect(s.problem == nil)
    }

    @Test func aPipeIsReadOnceAndARefusalIsItsLastItem() throws {
        let dir = NSTemporaryDirectory() + "hf-fifo-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/take.gesichter"
        #expect(mkfifo(fifo, 0o600) == 0)
        func throughPipe(_ bytes: [UInt8]) throws -> [DecodedItem] {
            // Small enough for the pipe's buffer, so the writer finishes whatever the reader does.
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                guard fd >= 0 else { return }
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            writer.start()
            return Array(try FrameFileReader(path: fifo))
        }
        let good = GesichterContainer.encode(Self.take(50))
        #expect(try throughPipe(good) == (try FrameFile.decode(good, format: .auto, path: fifo)))
        // Not thrown when opened (that would take reading it twice): the refusal is the only item.
        let items = try throughPipe(Self.bomb(zeros: 8 << 20))
        #expect(items.count == 1)
        guard case .malformed(let only)? = items.first else { Issue.record("no refusal item"); return }
        #expect(only.message.contains("gzip bomb"), "\(only)")
    }

    @Test(.enabled(if: SharedData.path("face/LLV_dao.gesichter") != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func readingAsItGoesGivesWhatDecodingWholeGives() throws {
        let path = try #require(SharedData.path("face/LLV_dao.gesichter"))
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try FrameFile.read(path: path) == (try FrameFile.decode(data, format: .auto, path: path)))
        for at in stride(from: 0, to: data.count, by: 211) {
            var d = data
            d[at] ^= 0x41
            var whole: [DecodedItem] = [], streamed: [DecodedItem] = []
            let wholeRefusal = Self.refusal { whole = try FrameFile.decode(d, format: .auto, path: "d") }
            let streamedRefusal = Self.refusal {
                streamed = Array(try FrameFileReader(ByteInput(bytes: d), format: .auto, path: "d"))
            }
            #expect(wholeRefusal == streamedRefusal, "byte \(at)")
            // Compared as text: a flipped byte can make a value NaN, which equals nothing.
            #expect("\(whole)" == "\(streamed)", "byte \(at)")
        }
    }
}
