#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FrameFormats
import Logging
import SystemIO
import TrackingCore

/// Live frames from a socket: UDP datagrams (NDJSON lines, Live Link Face, OpenSeeFace, VMC or iFacialMocap,
/// recognised per datagram unless a format is given) or TCP streams (NDJSON, or length-prefixed Live Link Face
/// packets), from a bounded number of TCP clients.
///
/// Single-threaded and poll-based, so a UI loop can wait on it together with the keyboard. Each `drain` does
/// a bounded amount of work: it reads at most `Limits.readsPerTurn` datagrams (or a byte budget per TCP
/// client) and hands on only the newest `Limits.keepPerTurn` items, counting the older ones as `dropped`. A
/// flood therefore costs a fixed slice of each loop turn and a fixed amount of memory; the kernel discards
/// what a full socket buffer cannot hold.
public final class LiveSource {
    /// How much one `drain` may read and hand on.
    public struct Limits: Sendable, Equatable {
        /// Datagrams read per turn (each costs one `recvfrom`; only the newest are decoded).
        public var readsPerTurn: Int
        /// Items handed on per turn; when more arrived, the newest win and the rest count as dropped.
        public var keepPerTurn: Int
        /// Bytes read from one TCP client per turn; TCP's flow control holds a faster sender back.
        public var tcpBytesPerClient: Int
        /// TCP clients served at once; further connections are closed at once and counted as refused.
        public var maxClients: Int

        public init(readsPerTurn: Int = 1024, keepPerTurn: Int = 32, tcpBytesPerClient: Int = 256 << 10,
                    maxClients: Int = 8) {
            self.readsPerTurn = max(1, readsPerTurn); self.keepPerTurn = max(1, keepPerTurn)
            self.tcpBytesPerClient = max(1, tcpBytesPerClient); self.maxClients = max(1, maxClients)
        }
    }

    /// The last packet that could not be used, and who sent it.
    public struct Unrecognised: Sendable, Equatable {
        /// `127.0.0.1:54321` (UDP sender or TCP peer).
        public var from: String
        public var issue: FrameIssue
    }

    /// Where it listens; port 0 asked for any free port, and holds the one the system chose.
    public private(set) var address: ListenAddress
    public let limits: Limits
    private let fd: Int32
    private var clients: [(fd: Int32, peer: String, decoder: FrameStream)] = []
    private var udpIndex = 0
    private var udpDecoder: LiveDecoder
    /// The newest datagrams of this turn: `keepPerTurn` slots of 64 KiB (the largest UDP payload fits).
    private var ring: [UInt8]
    private var ringLength: [Int]
    private var ringIndex: [Int]
    private var ringArrival: [Double]
    private var ringFrom: [sockaddr_storage]
    private static let slot = 65536
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private let logger: Logger
    /// Gives each datagram its arrival time.
    private let clock: any ShellClock
    /// Datagrams or stream chunks received so far.
    public private(set) var received = 0
    /// Datagrams or decoded items shed because more arrived in one turn than it could use (latest wins).
    public private(set) var dropped = 0
    /// Packets or lines that were not a frame (garbage, truncated, unknown format).
    public private(set) var unrecognised = 0
    /// TCP connections closed at once because `maxClients` were connected.
    public private(set) var refused = 0
    /// The newest unrecognised packet with its sender, for the status line.
    public private(set) var lastUnrecognised: Unrecognised?

    /// Binds the address; fails with a clear message (address in use, bad host…).
    public init(_ address: ListenAddress, format: FrameFormat = .auto, limits: Limits = Limits(),
                logger: Logger = Logger(label: "handsfree.transport"), clock: any ShellClock = LiveClock()) throws(TransportError) {
        self.address = address
        self.clock = clock
        udpDecoder = LiveDecoder(format: format)
        self.limits = limits
        self.logger = logger
        let slots = address.proto == .udp ? limits.keepPerTurn : 0
        ring = [UInt8](repeating: 0, count: slots * Self.slot)
        ringLength = [Int](repeating: 0, count: slots)
        ringIndex = [Int](repeating: 0, count: slots)
        ringArrival = [Double](repeating: 0, count: slots)
        ringFrom = [sockaddr_storage](repeating: sockaddr_storage(), count: slots)
        fd = try Socket.bound(address)
        if address.port == 0, let port = Socket.boundPort(fd) { self.address.port = port }
    }

    deinit {
        for c in clients { close(c.fd) }
        close(fd)
    }

    /// The format of the newest recognised datagram (UDP), for the status line.
    public var formatSeen: FrameFormat? { udpDecoder.seen }

    /// Sends one datagram from the listening socket to the address the user named (iFacialMocap's handshake,
    /// which makes the phone start sending to this socket's port).
    public func send(_ bytes: [UInt8], to host: String, port: UInt16) throws(TransportError) {
        let to = ListenAddress(proto: .udp, host: host, port: port)
        guard address.proto == .udp else { throw TransportError("\(to): a handshake needs a UDP --listen address") }
        let sent = Socket.withSockaddr(to) { sa, len in Int32(sendto(fd, bytes, bytes.count, 0, sa, len)) }
        guard let sent else { throw TransportError("\(host) is not an IP address") }
        guard sent == bytes.count else {
            throw TransportError("\(to): cannot send the handshake from \(address): \(Socket.errnoText())"
                                 + (address.host.hasPrefix("127.") ? " (the phone cannot reach 127.0.0.1: listen on an address it can, e.g. --listen udp://0.0.0.0:\(address.port))" : ""))
        }
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

    /// Reads what is available now, without waiting and within `limits`; returns at most `keepPerTurn` items,
    /// the newest.
    public func drain() -> [DecodedItem] {
        switch address.proto {
        case .udp: return drainUDP()
        case .tcp: return drainTCP()
        }
    }

    private func drainUDP() -> [DecodedItem] {
        let keep = limits.keepPerTurn
        var got = 0
        var early: [DecodedItem] = []
        // Reads go straight into a ring of slots, so a datagram is copied once and only the newest `keep`
        // of the turn are decoded; older ones are overwritten unread. VMC is the exception: a frame is spread
        // over many small messages whose values persist, so each is decoded as it is read (cheaply).
        for _ in 0..<limits.readsPerTurn {
            let k = got % keep
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = ring.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &ringFrom[k]) { from in
                    from.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, raw.baseAddress.map { $0 + k * Self.slot }, Self.slot, 0, $0, &len)
                    }
                }
            }
            if n < 0 { break }
            received += 1
            udpIndex += 1
            // Each datagram's own arrival time, the time of frames whose protocol carries none (VMC,
            // iFacialMocap): frames of one turn must not share a timestamp.
            let arrival = clock.now()
            let isVMC = ring.withUnsafeBytes { raw in
                let d = UnsafeRawBufferPointer(rebasing: raw[(k * Self.slot)..<(k * Self.slot + n)])
                return udpDecoder.format == .vmc || (udpDecoder.format == .auto && OSC.looksLike(d))
            }
            if isVMC {
                let items = ring.withUnsafeBytes { raw in
                    udpDecoder.decode(UnsafeRawBufferPointer(rebasing: raw[(k * Self.slot)..<(k * Self.slot + n)]),
                                      index: udpIndex, arrival: arrival)
                }
                for item in items { note(item, from: ringFrom[k]) }
                early += items
                if early.count > 4 * keep { early = newest(early) }
                continue
            }
            ringLength[k] = n
            ringIndex[k] = udpIndex
            ringArrival[k] = arrival
            got += 1
        }
        let kept = min(got, keep)
        dropped += got - kept
        var out = early
        for j in (got - kept)..<got {
            let k = j % keep
            let items = ring.withUnsafeBytes { raw in
                udpDecoder.decode(UnsafeRawBufferPointer(rebasing: raw[(k * Self.slot)..<(k * Self.slot + ringLength[k])]),
                                  index: ringIndex[k], arrival: ringArrival[k])
            }
            for item in items { note(item, from: ringFrom[k]) }
            out += items
        }
        return newest(out)
    }

    private func drainTCP() -> [DecodedItem] {
        var out: [DecodedItem] = []
        // A bounded number of accepts per turn: a connection storm cannot hold the loop either.
        for _ in 0..<(limits.maxClients + 8) {
            var ss = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let c = withUnsafeMutablePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &len) } }
            if c < 0 { break }
            let peer = Socket.describe(ss)
            if clients.count >= limits.maxClients {
                close(c)
                refused += 1
                logger.warning("\(address): refused \(peer): \(limits.maxClients) clients already connected")
                continue
            }
            Socket.setNonBlocking(c)
            clients.append((c, peer, FrameStream()))
            logger.info("client \(peer) connected on \(address)")
        }
        var closed: [Int] = []
        for k in clients.indices {
            var budget = limits.tcpBytesPerClient
            while budget > 0 {
                let got = buffer.withUnsafeMutableBytes { recv(clients[k].fd, $0.baseAddress, min($0.count, budget), 0) }
                if got == 0 {
                    for item in clients[k].decoder.finish() { note(item, from: clients[k].peer); out.append(item) }
                    closed.append(k)
                    break
                }
                if got < 0 {
                    if errno != EAGAIN && errno != EWOULDBLOCK { closed.append(k) }
                    break
                }
                received += 1
                budget -= got
                for item in clients[k].decoder.feed(Array(buffer[0..<got])) { note(item, from: clients[k].peer); out.append(item) }
                // Only the newest items are handed on; trimming as we go keeps `out` small during a flood.
                if out.count > 4 * limits.keepPerTurn { out = newest(out) }
            }
        }
        for k in closed.reversed() {
            close(clients[k].fd)
            clients.remove(at: k)
        }
        return newest(out)
    }

    /// The newest `keepPerTurn` items; the rest count as dropped.
    private func newest(_ items: [DecodedItem]) -> [DecodedItem] {
        guard items.count > limits.keepPerTurn else { return items }
        dropped += items.count - limits.keepPerTurn
        return Array(items.suffix(limits.keepPerTurn))
    }

    /// Counts an unrecognised item and names its sender; the address is put in words only then, not for
    /// every datagram.
    private func note(_ item: DecodedItem, from: sockaddr_storage) {
        guard case .malformed = item else { return }
        note(item, from: Socket.describe(from))
    }

    private func note(_ item: DecodedItem, from: String) {
        guard case .malformed(let issue) = item else { return }
        unrecognised += 1
        lastUnrecognised = Unrecognised(from: from, issue: issue)
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

    /// The local port the sender sends from (the address a receiver sees).
    public var localPort: UInt16 { Socket.localPort(fd) }

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
