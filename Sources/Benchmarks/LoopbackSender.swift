#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket sending text datagrams to a port on 127.0.0.1, as a tracker app would (for the benches).
public final class LoopbackSender {
    private let fd: Int32
    private var addr = sockaddr_in()

    public init(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    }

    deinit { close(fd) }

    /// Sends one datagram (a lost one is as a lost tracker packet: not retried).
    public func send(_ text: String) {
        _ = text.withCString { p in
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, p, strlen(p), 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
