#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FrameFormats
import Logging
import TrackingCore

/// Live frames from a socket: UDP datagrams (one Live Link Face packet, or NDJSON lines) or TCP streams
/// (NDJSON, or length-prefixed Live Link Face packets), from any number of TCP clients.
///
/// Single-threaded and poll-based, so a UI loop can wait on it together with the keyboard.
public final class LiveSource {
    public let address: ListenAddress
    private let fd: Int32
    private var clients: [(fd: Int32, decoder: StreamDecoder)] = []
    private var udpIndex = 0
    private var udpNDJSONLine = 0
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private let logger: Logger
    /// Datagrams or stream chunks received so far.
    public private(set) var received = 0

    /// Binds the address; fails with a clear message (address in use, bad host…).
    public init(_ address: ListenAddress, logger: Logger = Logger(label: "handsfree.transport")) throws(TransportError) {
        self.address = address
        self.logger = logger
        fd = try Socket.bound(address)
    }

    deinit {
        for c in clients { close(c.fd) }
        close(fd)
    }

    /// The bound port (useful when binding port 0).
    public var port: UInt16 { Socket.localPort(fd) }

    /// File descriptors to wait on (for callers that poll the keyboard too).
    public var descriptors: [Int32] { [fd] + clients.map(\.fd) }

    /// Waits up to `timeoutMs` (0: don't wait, -1: forever) and returns what arrived.
    public func poll(timeoutMs: Int32) -> [DecodedItem] {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = Glibc.poll(&fds, nfds_t(fds.count), timeoutMs)
        guard n > 0 else { return [] }
        return drain()
    }

    /// Reads everything available now, without waiting.
    public func drain() -> [DecodedItem] {
        var out: [DecodedItem] = []
        switch address.proto {
        case .udp:
            while true {
                let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if got < 0 { break }
                received += 1
                udpIndex += 1
                out += decodeDatagram(Array(buffer[0..<got]))
            }
        case .tcp:
            while true {
                let c = accept(fd, nil, nil)
                if c < 0 { break }
                Socket.setNonBlocking(c)
                clients.append((c, StreamDecoder()))
                logger.info("client connected on \(address)")
            }
            var closed: [Int] = []
            for k in clients.indices {
                while true {
                    let got = buffer.withUnsafeMutableBytes { recv(clients[k].fd, $0.baseAddress, $0.count, 0) }
                    if got == 0 {
                        out += clients[k].decoder.finish()
                        closed.append(k)
                        break
                    }
                    if got < 0 {
                        if errno != EAGAIN && errno != EWOULDBLOCK { closed.append(k) }
                        break
                    }
                    received += 1
                    out += clients[k].decoder.feed(Array(buffer[0..<got]))
                }
            }
            for k in closed.reversed() {
                close(clients[k].fd)
                clients.remove(at: k)
            }
        }
        return out
    }

    private func decodeDatagram(_ d: [UInt8]) -> [DecodedItem] {
        guard let first = d.first else {
            return [.malformed(FrameIssue(SourcePosition(.packet, udpIndex), "empty datagram"))]
        }
        if first == UInt8(ascii: "{") || first == 0x20 || first == 0x0A {
            // NDJSON datagrams may carry several lines; positions name the datagram.
            var dec = NDJSONDecoder()
            return (dec.feed(d) + dec.finish()).map { item in
                switch item {
                case .frame(let f, _): return .frame(f, SourcePosition(.packet, udpIndex))
                case .malformed(let i): return .malformed(FrameIssue(SourcePosition(.packet, udpIndex), i.message))
                }
            }
        }
        return [LiveLinkUDP.decode(d, index: udpIndex)]
    }
}

/// Sends frames to a live source, for tests, the demo and benchmarks.
public final class FrameSender {
    private let fd: Int32
    public let address: ListenAddress

    public init(to address: ListenAddress) throws(TransportError) {
        self.address = address
        fd = try Socket.make(address)
        let rc = Socket.withSockaddr(address) { connect(fd, $0, $1) }
        guard rc == 0 else {
            let e = rc == nil ? "\"\(address.host)\" is not an IP address" : Socket.errnoText()
            close(fd)
            throw TransportError("\(address): cannot connect: \(e)")
        }
    }

    deinit { close(fd) }

    /// Sends one datagram (UDP) or a chunk of the stream (TCP).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            if address.proto == .udp { return true }
            off += n
        }
        return true
    }
}
