#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FrameFormats
import TrackingCore

/// Small wrappers over POSIX sockets for loopback (or explicitly chosen) addresses.
enum Socket {
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Creates a socket of the address's family and protocol.
    static func make(_ addr: ListenAddress) throws(TransportError) -> Int32 {
        let type = addr.proto == .udp ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
        let fd = socket(addr.host.contains(":") ? AF_INET6 : AF_INET, type, 0)
        guard fd >= 0 else { throw TransportError("\(addr): cannot create a socket: \(errnoText())") }
        return fd
    }

    /// Calls `body` with the C socket address for `addr` (IPv4 or IPv6); nil if the host is not an IP address.
    static func withSockaddr(_ addr: ListenAddress, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32? {
        if addr.host.contains(":") {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = addr.port.bigEndian
            guard inet_pton(AF_INET6, addr.host, &sa.sin6_addr) == 1 else { return nil }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = addr.port.bigEndian
        guard inet_pton(AF_INET, addr.host, &sa.sin_addr) == 1 else { return nil }
        return withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Creates a socket bound to `addr` (IPv4 or IPv6), listening if TCP, non-blocking.
    static func bound(_ addr: ListenAddress) throws(TransportError) -> Int32 {
        let fd = try make(addr)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if addr.proto == .udp {
            // A burst of packets (a phone reconnecting, a replayed take) must not overflow the default buffer
            // while the UI is busy drawing.
            var size: Int32 = 4 << 20
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard let rc = withSockaddr(addr, { bind(fd, $0, $1) }) else {
            close(fd)
            throw TransportError("\(addr): \"\(addr.host)\" is not an IP address")
        }
        guard rc == 0, addr.proto == .udp || listen(fd, 8) == 0 else {
            let e = errnoText()
            close(fd)
            throw TransportError("\(addr): cannot listen: \(e)")
        }
        setNonBlocking(fd)
        return fd
    }

    /// The port a socket is bound to (the one the system chose for port 0), or nil.
    static func boundPort(_ fd: Int32) -> UInt16? {
        var ss = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        guard rc == 0 else { return nil }
        let family = Int32(ss.ss_family)
        return withUnsafePointer(to: &ss) { p -> UInt16? in
            switch family {
            case AF_INET: return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6: return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            default: return nil
            }
        }
    }

    /// `127.0.0.1:54321` or `[::1]:54321` for a peer or sender address; `?` for other families.
    static func describe(_ ss: sockaddr_storage) -> String {
        var ss = ss
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if Int32(ss.ss_family) == AF_INET {
            return withUnsafePointer(to: &ss) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sa in
                    var a = sa.pointee.sin_addr
                    inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        + ":\(UInt16(bigEndian: sa.pointee.sin_port))"
                }
            }
        }
        if Int32(ss.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &ss) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sa in
                    var a = sa.pointee.sin6_addr
                    inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                    return "[" + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        + "]:\(UInt16(bigEndian: sa.pointee.sin6_port))"
                }
            }
        }
        return "?"
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// The port a socket is bound to (for port 0 in tests).
    static func localPort(_ fd: Int32) -> UInt16 {
        var ss = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &ss) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { return 0 }
        if Int32(ss.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        }
        return withUnsafePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
    }
}
