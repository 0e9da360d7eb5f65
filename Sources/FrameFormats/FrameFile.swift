import Foundation
import TrackingCore

/// The frame formats the pipeline reads.
public enum FrameFormat: String, Sendable, CaseIterable {
    case auto, ndjson
    case livelinkCSV = "livelink-csv"
    case livelinkUDP = "livelink-udp"
    /// Live-only protocols: they arrive as datagrams (`run --listen`, `record`), not as files.
    case openseeface, vmc, ifacialmocap

    /// Whether frames of this format arrive only over the network.
    public var isLiveOnly: Bool { self == .openseeface || self == .vmc || self == .ifacialmocap }

    /// Guesses the format from the first bytes of a file or stream.
    public static func detect<C: Collection<UInt8>>(_ head: C) -> FrameFormat? {
        let bytes = Array(head.prefix(64))
        if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B { return .livelinkUDP }
        if bytes.first == LiveLinkUDP.version { return .livelinkUDP }
        var k = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { k = 3 }
        while k < bytes.count, isBlank(bytes[k]) { k += 1 }
        guard k < bytes.count else { return nil }
        if bytes[k] == UInt8(ascii: "{") { return .ndjson }
        if bytes[k...].starts(with: Array("Timecode".utf8)) { return .livelinkCSV }
        return nil
    }
}

/// An error reading a frame file as a whole (not one bad frame inside it).
public struct FrameFileError: Error, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Reads a whole recording into decoded items.
///
/// Every item is held at once; a replay takes them from a `FrameFileReader` instead, which holds a chunk.
public enum FrameFile {
    public static func read(path: String, format: FrameFormat = .auto) throws(FrameFileError) -> [DecodedItem] {
        Array(try FrameFileReader(path: path, format: format))
    }

    public static func decode(_ bytes: [UInt8], format: FrameFormat, path: String = "input")
        throws(FrameFileError) -> [DecodedItem] {
        let fmt = try resolve(format, head: bytes, path: path)
        switch fmt {
        case .auto, .openseeface, .vmc, .ifacialmocap:
            return []
        case .ndjson:
            var d = NDJSONDecoder()
            // Appending in place: `feed(bytes) + finish()` copied every item into a third array.
            var items = d.feed(bytes)
            items += d.finish()
            return items
        case .livelinkCSV:
            var d = LiveLinkCSVDecoder()
            var items = d.feed(bytes)
            items += d.finish()
            return items
        case .livelinkUDP:
            if bytes.first == LiveLinkUDP.version {
                return [LiveLinkUDP.decode(bytes, index: 1)]
            }
            var items: [DecodedItem] = []
            let s = GesichterContainer.scan(ByteInput(bytes: bytes), limits: GesichterContainer.limits) { p, k in
                items.append(LiveLinkUDP.decode(p, index: k))
            }
            return try FrameFileReader.finish(items, s, path: path)
        }
    }

    /// The format to decode with: `format`, or the one the first bytes show; live-only formats are refused.
    static func resolve(_ format: FrameFormat, head: some Collection<UInt8>, path: String)
        throws(FrameFileError) -> FrameFormat {
        var fmt = format
        if fmt == .auto {
            guard let d = FrameFormat.detect(head) else {
                throw FrameFileError(path: path, message: "cannot tell the format (expected NDJSON, a Live Link Face CSV take or a .gesichter container); use --format")
            }
            fmt = d
        }
        if fmt.isLiveOnly {
            throw FrameFileError(path: path, message: "\(fmt.rawValue) is a live protocol: listen for it (run --listen udp://127.0.0.1:PORT) or save it with `handsfree record`, which writes NDJSON")
        }
        return fmt
    }
}

/// Reads a recording a piece at a time, for a replay: it holds one chunk of the file, one packet and the
/// items decoded from that chunk, never the whole, so memory stays bounded whatever the recording's length
/// and however far a compressed container would expand.
///
/// A `.gesichter` container is decompressed through once when opened, decoding nothing, so a bomb or a
/// container with no usable packet is refused before the first item; then it is read again as the items are
/// taken.
public final class FrameFileReader: Sequence, IteratorProtocol {
    private enum Decoder {
        case ndjson(NDJSONDecoder)
        case csv(LiveLinkCSVDecoder)
        case container(GunzipStream, ContainerFraming)
        case ended
    }
    public let path: String
    /// The recording's format (found from its first bytes for `.auto`).
    public let format: FrameFormat
    private let input: ByteInput
    private var decoder: Decoder
    private var queue: [DecodedItem] = []
    private var head = 0
    private var firstPiece: ArraySlice<UInt8>?
    /// Read sizes: one chunk of the file at a time.
    static let chunk = 1 << 16
    /// The most items queued at once (those one chunk held).
    private(set) var maxQueued = 0
    /// The most bytes of a container held back at once, waiting for the rest of a packet.
    private(set) var maxHeld = 0

    /// Opens `path`; throws when it cannot be read, its format is unknown, or it is a container that is
    /// refused (a gzip bomb, not gzip) or holds no usable packet.
    public convenience init(path: String, format: FrameFormat = .auto) throws(FrameFileError) {
        try self.init(try ByteInput(path: path), format: format, path: path)
    }

    init(_ input: ByteInput, format: FrameFormat, path: String,
         limits: GunzipStream.Limits = GesichterContainer.limits) throws(FrameFileError) {
        self.input = input
        self.path = path
        let first = input.read(max: Self.chunk)
        if let failure = input.failure, first.isEmpty {
            throw FrameFileError(path: path, message: failure)
        }
        self.format = try FrameFile.resolve(format, head: first, path: path)
        switch self.format {
        case .ndjson:
            decoder = .ndjson(NDJSONDecoder())
            firstPiece = first
        case .livelinkCSV:
            decoder = .csv(LiveLinkCSVDecoder())
            firstPiece = first
        case .auto, .openseeface, .vmc, .ifacialmocap:
            decoder = .ended
        case .livelinkUDP where first.first == LiveLinkUDP.version:
            // One raw packet: a datagram is at most maxPacket bytes, so no more than that is read.
            var packet = Array(first)
            while packet.count <= GesichterContainer.maxPacket, input.failure == nil {
                let more = input.read(max: GesichterContainer.maxPacket + 1 - packet.count)
                if more.isEmpty { break }
                packet += more
            }
            decoder = .ended
            queue = [packet.count > GesichterContainer.maxPacket
                ? .malformed(FrameIssue(SourcePosition(.packet, 1), "longer than \(GesichterContainer.maxPacket) bytes: not one Live Link Face packet"))
                : LiveLinkUDP.decode(packet, index: 1)]
        case .livelinkUDP:
            var alreadyRead: ArraySlice<UInt8>? = first
            if input.canRewind {
                guard input.rewind() else { throw FrameFileError(path: path, message: "cannot be read") }
                if let refusal = GesichterContainer.refusal(input, limits: limits) {
                    throw FrameFileError(path: path, message: refusal)
                }
                guard input.rewind() else { throw FrameFileError(path: path, message: "cannot be read") }
                alreadyRead = nil
            }
            // Where the input cannot be read twice (a pipe), a refusal comes as the last item instead.
            decoder = .container(GunzipStream(input, limits: limits, head: alreadyRead), ContainerFraming())
        }
    }

    /// The items of a scanned container, with its problem as a last item; throws when nothing may be used.
    static func finish(_ items: [DecodedItem], _ s: GesichterContainer.Scan, path: String)
        throws(FrameFileError) -> [DecodedItem] {
        if s.refused || s.packets == 0, let problem = s.problem {
            throw FrameFileError(path: path, message: problem)
        }
        guard let problem = s.problem else { return items }
        // The packet the damage hit (or the one after the last kept, for a cut-off container).
        return items + [.malformed(FrameIssue(SourcePosition(.packet, s.packets + 1), problem))]
    }

    public func next() -> DecodedItem? {
        while head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
            guard fill() else { return nil }
            maxQueued = Swift.max(maxQueued, queue.count)
        }
        defer { head += 1 }
        return queue[head]
    }

    /// Decodes the next chunk into `queue`; false at the end.
    private func fill() -> Bool {
        switch decoder {
        case .ended:
            return false
        case .ndjson(var d):
            if step(&d) { decoder = .ndjson(d) }
        case .csv(var d):
            if step(&d) { decoder = .csv(d) }
        case .container(let z, var framing):
            if let piece = z.next() {
                framing.feed(piece) { p, k in queue.append(LiveLinkUDP.decode(p, index: k)) }
                maxHeld = Swift.max(maxHeld, framing.maxHeld)
                decoder = .container(z, framing)
            } else {
                let s = framing.end(z.outcome ?? .finished, output: z.produced)
                if let problem = s.problem {
                    queue.append(.malformed(FrameIssue(SourcePosition(.packet, s.packets + 1), problem)))
                }
                decoder = .ended
            }
        }
        return true
    }

    /// Feeds a line decoder the next chunk into `queue`, or at the end its last items; false (and the
    /// decoder ended) when the input is done.
    private func step<D: FrameDecoder>(_ d: inout D) -> Bool {
        let piece = firstPiece ?? input.read(max: Self.chunk)
        firstPiece = nil
        if piece.isEmpty {
            queue = d.finish()
            readFailure()
            decoder = .ended
            return false
        }
        queue = d.feed(piece)
        return true
    }

    /// A read that failed part-way ends the items with a problem saying where.
    private func readFailure() {
        if let failure = input.failure { queue.append(.malformed(FrameIssue(nil, failure))) }
    }
}
