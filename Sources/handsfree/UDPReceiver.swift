#if canImport(Glibc)
import Glibc
#endif
import FrameFormats
import TrackingCore

// TODO(merge): replace with Transport.LiveSource once the lead's Transport module is merged into main;
// this minimal receiver only exists so `run --listen udp://…` works on the shell branch before that.

/// A bound UDP socket on loopback that decodes each datagram (a Live Link Face packet or NDJSON lines).
final class UDPReceiver {
    let fd: Int32
    let description: String
    private var index = 0
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// Monotonic time at which the newest datagram was read (for latency figures).
    private(set) var lastReceived: Double = 0

    /// Parses `udp://HOST:PORT` and binds it.
    init(url: String) throws {
        guard url.hasPrefix("udp://") else {
            throw SetupError("\(url): only udp://HOST:PORT is supported on this branch (tcp arrives with Transport)")
        }
        let rest = url.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else {
            throw SetupError("\(url): expected udp://HOST:PORT, e.g. udp://127.0.0.1:11111")
        }
        let host = String(rest[..<colon])
        let s = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard s >= 0 else { throw SetupError("\(url): cannot create a socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host.isEmpty ? "127.0.0.1" : host, &addr.sin_addr) == 1 else {
            close(s); throw SetupError("\(url): \(host) is not an IPv4 address")
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { close(s); throw SetupError("\(url): cannot bind (\(String(cString: strerror(errno))))") }
        _ = fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK)
        // A bigger receive buffer, so a burst arriving while a frame is drawn is not dropped.
        var size: Int32 = 1 << 20
        _ = setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        fd = s
        description = "udp \(host):\(port)"
    }

    deinit { close(fd) }

    /// The bound port (when binding port 0 picked one).
    var boundPort: UInt16 {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: a.sin_port)
    }

    /// Everything that has arrived, decoded.
    func drain(now: () -> Double) -> [DecodedItem] {
        var out: [DecodedItem] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            lastReceived = now()
            index += 1
            let packet = buffer[0..<n]
            if packet.first == UInt8(ascii: "{") {
                var d = NDJSONDecoder()
                out += d.feed(packet) + d.finish()
            } else {
                out.append(LiveLinkUDP.decode(packet, index: index))
            }
        }
        return out
    }
}

/// Monotonic seconds, for pacing and latency (only the runtime reads a clock).
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
