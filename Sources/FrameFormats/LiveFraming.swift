import TrackingCore

extension FrameFormat {
    /// The format of live input (a datagram, or the start of a TCP stream) from its first bytes: text whose
    /// first non-blank byte is `{` is NDJSON; anything else is Live Link Face's binary packets. Nil while
    /// only blanks have arrived.
    public static func live<C: Collection<UInt8>>(_ head: C) -> FrameFormat? {
        guard let first = head.first(where: { !isBlank($0) }) else { return nil }
        return first == UInt8(ascii: "{") ? .ndjson : .livelinkUDP
    }

    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}

/// Decodes the datagrams of one live source, in the format given or recognised from each datagram: NDJSON,
/// Live Link Face, OpenSeeFace, VMC (OSC) or iFacialMocap. Stateful because VMC spreads a frame over messages.
public struct LiveDecoder: Sendable {
    /// The format asked for (`--format`), or `.auto` to recognise each datagram.
    public let format: FrameFormat
    /// The format of the last datagram that was recognised (shown to the user).
    public private(set) var seen: FrameFormat?
    var vmc = VMCDecoder()

    public init(format: FrameFormat = .auto) { self.format = format }

    /// What a datagram looks like, or nil when it is none of the known formats.
    public static func recognise(_ d: UnsafeRawBufferPointer) -> FrameFormat? {
        guard let first = d.first(where: { !FrameFormat.isBlank($0) }) else { return nil }
        if first == UInt8(ascii: "{") { return .ndjson }
        if OpenSeeFace.looksLike(d) { return .openseeface }
        if OSC.looksLike(d) { return .vmc }
        if d.first == LiveLinkUDP.version { return .livelinkUDP }
        if IFacialMocap.looksLike(d) { return .ifacialmocap }
        return nil
    }

    /// Decodes one datagram that arrived at `arrival` seconds (the time given to frames of protocols that
    /// carry none); `index` (from 1) names it in messages.
    public mutating func decode(_ d: UnsafeRawBufferPointer, index: Int, arrival: Double) -> [DecodedItem] {
        guard !d.isEmpty else { return [.malformed(FrameIssue(SourcePosition(.packet, index), "empty datagram"))] }
        var fmt = format
        if fmt == .auto {
            guard let r = Self.recognise(d) else {
                return [.malformed(FrameIssue(SourcePosition(.packet, index),
                                              "not a known format (NDJSON, Live Link Face, OpenSeeFace, VMC or iFacialMocap); \(d.count) bytes"))]
            }
            fmt = r
        }
        seen = fmt
        switch fmt {
        case .ndjson, .auto, .livelinkCSV: return Datagram.decode(d, index: index)
        case .livelinkUDP: return [LiveLinkUDP.decode(d, index: index)]
        case .openseeface: return [OpenSeeFace.decode(d, index: index)]
        case .vmc: return vmc.decode(d, index: index, arrival: arrival)
        case .ifacialmocap: return [IFacialMocap.decode(d, index: index, arrival: arrival)]
        }
    }
}

/// One datagram of live input: NDJSON lines or one Live Link Face packet; positions name the datagram.
public enum Datagram {
    public static func decode(_ d: UnsafeRawBufferPointer, index: Int) -> [DecodedItem] {
        guard !d.isEmpty else {
            return [.malformed(FrameIssue(SourcePosition(.packet, index), "empty datagram"))]
        }
        guard FrameFormat.live(d) ?? .ndjson == .ndjson else { return [LiveLinkUDP.decode(d, index: index)] }
        // NDJSON datagrams may carry several lines.
        var dec = NDJSONDecoder()
        return (dec.feed(d) + dec.finish()).map { item in
            switch item {
            case .frame(let f, _): return .frame(f, SourcePosition(.packet, index))
            case .malformed(let i): return .malformed(FrameIssue(SourcePosition(.packet, index), i.message))
            }
        }
    }
}

/// Decodes a live byte stream (one TCP connection), detecting its format from the first bytes: NDJSON lines,
/// or Live Link Face packets framed as in the `.gesichter` container (u32be length, payload).
public struct FrameStream: Sendable {
    enum Mode: Sendable { case unknown, ndjson(NDJSONDecoder), lengthPrefixed }
    var mode: Mode = .unknown
    var pending: [UInt8] = []
    var packetIndex = 0
    /// The longest packet a stream may announce; a longer length is garbage, not a frame.
    public static let maxPacket = 1 << 16

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) -> [DecodedItem] {
        if case .unknown = mode {
            pending += bytes
            guard let format = FrameFormat.live(pending) else { return [] }
            let b = pending
            pending = []
            if format == .ndjson {
                var d = NDJSONDecoder()
                let out = d.feed(b)
                mode = .ndjson(d)
                return out
            }
            mode = .lengthPrefixed
            return feed(b)
        }
        switch mode {
        case .ndjson(var d):
            let out = d.feed(bytes)
            mode = .ndjson(d)
            return out
        case .lengthPrefixed:
            pending += bytes
            var out: [DecodedItem] = []
            var i = 0
            while pending.count - i >= 4 {
                let len = Int(pending[i]) << 24 | Int(pending[i + 1]) << 16 | Int(pending[i + 2]) << 8 | Int(pending[i + 3])
                guard len <= Self.maxPacket else {
                    packetIndex += 1
                    out.append(.malformed(FrameIssue(SourcePosition(.packet, packetIndex),
                                                     "packet length \(len) is too large; dropping the connection's buffer")))
                    pending = []
                    return out
                }
                guard pending.count - i - 4 >= len else { break }
                packetIndex += 1
                out.append(LiveLinkUDP.decode(pending[(i + 4)..<(i + 4 + len)], index: packetIndex))
                i += 4 + len
            }
            pending.removeFirst(i)
            return out
        case .unknown:
            return []
        }
    }

    /// The stream ended: a line without its newline is decoded; a packet cut short is reported.
    public mutating func finish() -> [DecodedItem] {
        switch mode {
        case .ndjson(var d):
            let out = d.finish()
            mode = .ndjson(d)
            return out
        case .lengthPrefixed where !pending.isEmpty:
            packetIndex += 1
            pending = []
            return [.malformed(FrameIssue(SourcePosition(.packet, packetIndex), "connection closed inside a packet"))]
        default:
            return []
        }
    }
}
