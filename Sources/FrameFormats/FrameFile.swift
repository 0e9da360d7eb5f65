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
    public init(path: String, message: String) { self.path = path; self.message = message }
}

/// A whole recording's bytes into decoded items. Reading the file is the caller's (Runtime's `FrameFile.read`):
/// this module takes bytes only.
public enum FrameFile {
    /// Decodes a whole recording; `path` names it in errors.
    public static func decode(_ bytes: [UInt8], format: FrameFormat, path: String = "input")
        throws(FrameFileError) -> [DecodedItem] {
        var fmt = format
        if fmt == .auto {
            guard let d = FrameFormat.detect(bytes) else {
                throw FrameFileError(path: path, message: "cannot tell the format (expected NDJSON, a Live Link Face CSV take or a .gesichter container); use --format")
            }
            fmt = d
        }
        switch fmt {
        case .auto:
            return []
        case .openseeface, .vmc, .ifacialmocap:
            throw FrameFileError(path: path, message: "\(fmt.rawValue) is a live protocol: listen for it (run --listen udp://127.0.0.1:PORT) or save it with `handsfree record`, which writes NDJSON")
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
            let (packets, problem) = GesichterContainer.packets(bytes)
            if packets.isEmpty, let problem { throw FrameFileError(path: path, message: problem) }
            var items = packets.enumerated().map { LiveLinkUDP.decode($1, index: $0 + 1) }
            // The packet the damage hit (or the one after the last kept, for a cut-off container).
            if let problem { items.append(.malformed(FrameIssue(SourcePosition(.packet, packets.count + 1), problem))) }
            return items
        }
    }
}
