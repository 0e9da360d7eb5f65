import Foundation

/// One OSC message: an address and its arguments (the types VMC senders use).
public struct OSCMessage: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case int(Int64), float(Double), string(String), blob([UInt8]), bool(Bool), none
        var number: Double? {
            switch self {
            case .int(let i): return Double(i)
            case .float(let f): return f
            default: return nil
            }
        }
    }
    public var address: String
    public var arguments: [Argument]
}

/// Parses OSC 1.0 packets: a message, or a `#bundle` of elements (nested up to `maxDepth`).
public enum OSC {
    static let maxDepth = 8

    /// Whether a datagram starts like an OSC packet.
    public static func looksLike(_ d: UnsafeRawBufferPointer) -> Bool {
        d.count >= 4 && d.count % 4 == 0 && (d[0] == UInt8(ascii: "/") || isBundle(d))
    }

    /// Whether the packet starts with `#bundle` and its NUL (compared as one word, since every datagram of
    /// another format is asked too).
    @inline(__always)
    static func isBundle(_ d: UnsafeRawBufferPointer) -> Bool {
        d.count >= 8 && UInt64(littleEndian: d.loadUnaligned(as: UInt64.self)) == 0x0065_6c64_6e75_6223
    }

    /// The messages in a packet, in order, or the reason it is not OSC.
    public static func messages(_ d: UnsafeRawBufferPointer) -> Result<[OSCMessage], OSCError> {
        var out: [OSCMessage] = []
        do throws(OSCError) {
            try walk(d) { out.append($0.message()) }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    public struct OSCError: Error, Sendable, Equatable { public var message: String }

    /// One message of a packet, read in place: its address, type tags and arguments as byte offsets into
    /// `d`, already checked to lie within it.
    struct MessageView {
        let d: UnsafeRawBufferPointer
        /// The address without its NUL.
        let address: Range<Int>
        /// The type tags after the ',' (empty for a message without a type tag string).
        let tags: Range<Int>
        /// Where the first argument starts.
        let arguments: Int
        /// Where the second argument starts, and where the first one's bytes end when it is a string.
        let second: Int, firstEnd: Int

        /// Whether the address is exactly `s`.
        @inline(__always)
        func addressIs(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard address.count == n else { return false }
            let a = d.baseAddress.unsafelyUnwrapped + address.lowerBound, b = UnsafeRawPointer(s.utf8Start)
            guard n >= 8 else { return memcmp(a, b, n) == 0 }
            // A word at a time from the end backwards (VMC addresses differ in their last part); the first
            // word may overlap the second.
            var k = n
            while true {
                k = max(0, k - 8)
                if a.loadUnaligned(fromByteOffset: k, as: UInt64.self) != b.loadUnaligned(fromByteOffset: k, as: UInt64.self) {
                    return false
                }
                if k == 0 { return true }
            }
        }

        /// The tag of argument `i` and where its bytes start, or nil when there are fewer arguments.
        func argument(_ i: Int) -> (tag: UInt8, at: Int)? {
            guard i < tags.count else { return nil }
            if i < 2 { return (d[tags.lowerBound + i], i == 0 ? arguments : second) }
            var k = arguments
            for j in 0..<i { k = OSC.skip(d[tags.lowerBound + j], d, k) }
            return (d[tags.lowerBound + i], k)
        }

        /// Argument `i` as bytes when it is a string.
        func string(_ i: Int) -> UnsafeRawBufferPointer? {
            guard let (tag, at) = argument(i), tag == UInt8(ascii: "s") || tag == UInt8(ascii: "S") else { return nil }
            if i == 0 { return UnsafeRawBufferPointer(rebasing: d[at..<firstEnd]) }
            var end = at
            while d[end] != 0 { end += 1 }
            return UnsafeRawBufferPointer(rebasing: d[at..<end])
        }

        /// Argument `i` as a number when it is an int or a float of either size.
        func number(_ i: Int) -> Double? {
            guard let (tag, at) = argument(i) else { return nil }
            return OSC.number(tag, d, at)
        }

        /// The message as a value, arguments decoded.
        func message() -> OSCMessage {
            var args: [OSCMessage.Argument] = []
            var k = arguments
            for tag in d[tags] {
                switch tag {
                case UInt8(ascii: "i"), UInt8(ascii: "h"):
                    args.append(.int(OSC.integer(tag, d, k)))
                case UInt8(ascii: "f"), UInt8(ascii: "d"):
                    args.append(.float(OSC.number(tag, d, k) ?? 0))
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    var end = k
                    while d[end] != 0 { end += 1 }
                    args.append(.string(String(decoding: d[k..<end], as: UTF8.self)))
                case UInt8(ascii: "b"):
                    let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                    args.append(.blob(Array(d[(k + 4)..<(k + 4 + n)])))
                case UInt8(ascii: "T"): args.append(.bool(true))
                case UInt8(ascii: "F"): args.append(.bool(false))
                default: args.append(.none)
                }
                k = OSC.skip(tag, d, k)
            }
            return OSCMessage(address: String(decoding: d[address], as: UTF8.self), arguments: args)
        }
    }

    /// Calls `body` for each message of a packet, in order, after checking each message whole (the packet
    /// after a bad message is not read); throws the reason a packet is not OSC. Allocates nothing.
    ///
    /// `handled` sees each message's bytes first and returns true when it has taken the message itself (a
    /// caller's fast path for one exact, valid shape of message); `body` then does not see it.
    static func walk(_ d: UnsafeRawBufferPointer, depth: Int = 0,
                     handled: (UnsafeRawBufferPointer) -> Bool = { _ in false },
                     _ body: (MessageView) throws(OSCError) -> Void) throws(OSCError) {
        guard depth <= maxDepth else { throw OSCError(message: "bundles nested deeper than \(maxDepth)") }
        guard d.count % 4 == 0 else { throw OSCError(message: "OSC packet of \(d.count) bytes is not a multiple of 4") }
        if isBundle(d) {
            guard d.count >= 16 else { throw OSCError(message: "bundle cut short before its time tag") }
            var k = 16
            while k < d.count {
                guard d.count - k >= 4 else { throw OSCError(message: "bundle element size cut short") }
                let size = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard size <= d.count - k else {
                    throw OSCError(message: "bundle element of \(size) bytes runs past the packet's end")
                }
                try walk(UnsafeRawBufferPointer(rebasing: d[k..<(k + size)]), depth: depth + 1, handled: handled, body)
                k += size
            }
            return
        }
        if handled(d) { return }
        var k = 0
        let address = try string(d, &k)
        guard d[address].first == UInt8(ascii: "/") else {
            throw OSCError(message: "OSC address \"\(String(decoding: d[address], as: UTF8.self))\" does not start with '/'")
        }
        // A message without a type tag string (old senders) has no arguments.
        guard k < d.count else {
            try body(MessageView(d: d, address: address, tags: k..<k, arguments: k, second: k, firstEnd: k))
            return
        }
        let tags = try string(d, &k)
        guard d[tags].first == UInt8(ascii: ",") else {
            throw OSCError(message: "type tags \"\(String(decoding: d[tags], as: UTF8.self))\" do not start with ','")
        }
        let arguments = k
        var second = k, firstEnd = k
        for (j, tag) in d[tags].dropFirst().enumerated() {
            if j == 1 { second = k }
            func need(_ n: Int) throws(OSCError) {
                guard d.count - k >= n else { throw OSCError(message: "argument '\(Character(Unicode.Scalar(tag)))' cut short") }
            }
            switch tag {
            case UInt8(ascii: "i"), UInt8(ascii: "f"):
                try need(4)
                k += 4
            case UInt8(ascii: "h"), UInt8(ascii: "d"):
                try need(8)
                k += 8
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                let r = try string(d, &k)
                if j == 0 { firstEnd = r.upperBound }
            case UInt8(ascii: "b"):
                try need(4)
                let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                k += 4
                guard n <= d.count - k else { throw OSCError(message: "blob of \(n) bytes runs past the packet's end") }
                k += (n + 3) & ~3
            case UInt8(ascii: "T"), UInt8(ascii: "F"), UInt8(ascii: "N"), UInt8(ascii: "I"):
                break
            default:
                throw OSCError(message: "unknown OSC type tag '\(printable(tag))'")
            }
        }
        if tags.count == 2 { second = k }
        try body(MessageView(d: d, address: address, tags: (tags.lowerBound + 1)..<tags.upperBound, arguments: arguments,
                             second: second, firstEnd: firstEnd))
    }

    /// A NUL-terminated string padded to 4 bytes at `k`, as the range of its bytes without the NUL; `k`
    /// moves past the padding.
    ///
    /// Strings start on a 4-byte boundary of a message whose size is a multiple of 4, so the NUL is looked
    /// for a word at a time.
    @inline(__always)
    private static func string(_ d: UnsafeRawBufferPointer, _ k: inout Int) throws(OSCError) -> Range<Int> {
        let start = k
        var w = k
        while d.count - w >= 4 {
            let v = UInt32(littleEndian: d.loadUnaligned(fromByteOffset: w, as: UInt32.self))
            let zero = (v &- 0x0101_0101) & ~v & 0x8080_8080
            if zero != 0 {
                let end = w + zero.trailingZeroBitCount / 8
                k = w + 4
                return start..<end
            }
            w += 4
        }
        while w < d.count {
            if d[w] == 0 {
                k = min(d.count, (w + 4) & ~3)
                return start..<w
            }
            w += 1
        }
        throw OSCError(message: "OSC string is not terminated")
    }

    /// Where the argument after one with `tag` at `k` starts (the argument was checked by `walk`).
    @inline(__always)
    static func skip(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Int {
        switch tag {
        case UInt8(ascii: "i"), UInt8(ascii: "f"): return k + 4
        case UInt8(ascii: "h"), UInt8(ascii: "d"): return k + 8
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            var end = k
            while d[end] != 0 { end += 1 }
            return min(d.count, (end + 4) & ~3)
        case UInt8(ascii: "b"):
            let n = Int(UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
            return k + 4 + ((n + 3) & ~3)
        default: return k
        }
    }

    /// The number an `i`, `h`, `f` or `d` argument at `k` holds; nil for other tags.
    @inline(__always)
    static func number(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Double? {
        switch tag {
        case UInt8(ascii: "f"): return Double(Float(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))
        case UInt8(ascii: "d"): return Double(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return Double(integer(tag, d, k))
        default: return nil
        }
    }

    /// The integer an `i` or `h` argument at `k` holds.
    @inline(__always)
    static func integer(_ tag: UInt8, _ d: UnsafeRawBufferPointer, _ k: Int) -> Int64 {
        tag == UInt8(ascii: "h")
            ? Int64(bitPattern: UInt64(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
            : Int64(Int32(bitPattern: UInt32(bigEndian: d.loadUnaligned(fromByteOffset: k, as: UInt32.self))))
    }

    private static func printable(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? String(Character(Unicode.Scalar(c))) : "0x" + String(c, radix: 16)
    }

    /// Encodes a message (for tests and senders): int, float and string arguments.
    public static func encode(_ address: String, _ args: [OSCMessage.Argument]) -> [UInt8] {
        var out: [UInt8] = []
        func str(_ s: String) { out += Array(s.utf8) + [0]; while out.count % 4 != 0 { out.append(0) } }
        str(address)
        var tags = ","
        for a in args {
            switch a {
            case .int: tags += "i"
            case .float: tags += "f"
            case .string: tags += "s"
            case .blob: tags += "b"
            case .bool(let b): tags += b ? "T" : "F"
            case .none: tags += "N"
            }
        }
        str(tags)
        for a in args {
            switch a {
            case .int(let i): withUnsafeBytes(of: Int32(truncatingIfNeeded: i).bigEndian) { out += $0 }
            case .float(let f): withUnsafeBytes(of: Float(f).bitPattern.bigEndian) { out += $0 }
            case .string(let s): str(s)
            case .blob(let b):
                withUnsafeBytes(of: UInt32(b.count).bigEndian) { out += $0 }
                out += b
                while out.count % 4 != 0 { out.append(0) }
            default: break
            }
        }
        return out
    }

    /// Wraps encoded messages in a bundle with an "immediately" time tag.
    public static func bundle(_ elements: [[UInt8]]) -> [UInt8] {
        var out = Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
        for e in elements {
            withUnsafeBytes(of: UInt32(e.count).bigEndian) { out += $0 }
            out += e
        }
        return out
    }
}
