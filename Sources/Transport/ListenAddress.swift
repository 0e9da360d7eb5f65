/// Where to listen for live frames: `udp://127.0.0.1:11111` or `tcp://127.0.0.1:7007`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Proto: String, Sendable { case udp, tcp }
    public var proto: Proto
    public var host: String
    public var port: UInt16

    /// The address used when a URL names no host: loopback only, so nothing off the machine can send frames
    /// unless the user asks for it.
    public static let defaultHost = "127.0.0.1"

    public init(proto: Proto, host: String = ListenAddress.defaultHost, port: UInt16) {
        self.proto = proto; self.host = host; self.port = port
    }

    /// Parses `udp://HOST:PORT`, `tcp://HOST:PORT` or `udp://:PORT`.
    public init(parsing url: String) throws(TransportError) {
        let parts = url.split(separator: "://", maxSplits: 1).map(String.init)
        guard parts.count == 2, let proto = Proto(rawValue: parts[0].lowercased()) else {
            throw TransportError("\"\(url)\": expected udp://HOST:PORT or tcp://HOST:PORT")
        }
        let rest = parts[1]
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
            throw TransportError("\"\(url)\": missing or bad port (1…65535)")
        }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = Self.defaultHost }
        if host == "localhost" { host = Self.defaultHost }
        self.init(proto: proto, host: host, port: port)
    }

    public var description: String { "\(proto.rawValue)://\(host):\(port)" }
}

/// A socket or address problem, with what it concerns.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
