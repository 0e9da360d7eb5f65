#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CDeflate
import CZlib

/// A recording's bytes, handed out a piece at a time: from a file that is never read whole, or from memory.
final class ByteInput {
    private enum Source { case file(Int32), memory([UInt8]) }
    private let source: Source
    /// The length in bytes, when known (a regular file's size when opened, or the bytes in memory).
    let size: Int?
    /// Bytes handed out so far.
    private(set) var offset = 0
    /// Why reading stopped before the end, if it did.
    private(set) var failure: String?
    private var buffer: [UInt8] = []

    init(bytes: [UInt8]) {
        source = .memory(bytes)
        size = bytes.count
    }

    /// Opens `path`; the message says why not (`no such file` or `cannot be read`).
    init(path: String) throws(FrameFileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FrameFileError(path: path, message: errno == ENOENT ? "no such file" : "cannot be read")
        }
        var st = stat()
        // Only a regular file's size is its length; a pipe's or a device's says nothing.
        size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        source = .file(fd)
    }

    deinit {
        if case .file(let fd) = source { close(fd) }
    }

    /// Whether `rewind` can start again from the first byte (not on a pipe).
    var canRewind: Bool {
        switch source {
        case .memory: return true
        case .file(let fd): return size != nil && lseek(fd, 0, SEEK_CUR) >= 0
        }
    }

    /// Starts again from the first byte; false where the input cannot seek.
    func rewind() -> Bool {
        if case .file(let fd) = source { guard canRewind, lseek(fd, 0, SEEK_SET) == 0 else { return false } }
        offset = 0
        failure = nil
        return true
    }

    /// Up to `max` more bytes: fewer only at the end, none at the end or after a failure.
    func read(max: Int) -> ArraySlice<UInt8> {
        switch source {
        case .memory(let bytes):
            let end = min(bytes.count, offset + max)
            defer { offset = end }
            return bytes[offset..<end]
        case .file(let fd):
            guard failure == nil else { return [] }
            if buffer.count < max { buffer = [UInt8](repeating: 0, count: max) }
            var n = 0
            // A pipe hands out what it has; keep reading so a short piece means the end.
            while n < max {
                let got = buffer.withUnsafeMutableBytes { readFile(fd, $0.baseAddress.map { $0 + n }, max - n) }
                if got > 0 { n += got; continue }
                if got < 0 && errno == EINTR { continue }
                if got < 0 {
                    let reason = String(cString: strerror(errno))
                    failure = offset + n == 0 ? "cannot be read (\(reason))" : "cannot be read past byte \(offset + n) (\(reason))"
                }
                break
            }
            offset += n
            return buffer[0..<n]
        }
    }
}

/// `read(2)`, under a name the methods called `read` do not hide.
private func readFile(_ fd: Int32, _ into: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, into, count) }

/// Decompresses gzip a chunk at a time, so no more than one chunk of output is ever held, and refuses a
/// bomb by the size and the ratio of its output as it comes out, long before the bomb could cost memory.
final class GunzipStream {
    /// What output is refused.
    struct Limits: Sendable, Equatable {
        /// The most output in all.
        var maxOutput: Int
        /// The most output per byte of input consumed so far.
        var maxRatio: Int
        /// Output below this is never refused for its ratio (a container's first bytes say little).
        var ratioFreeOutput: Int
    }

    /// How decompression ended.
    enum Outcome: Equatable {
        /// The gzip stream ended whole.
        case finished
        /// The data is cut off or corrupt; the output before the damage was handed out.
        case damaged(String)
        /// Not gzip, or past a limit: nothing of the output may be used.
        case refused(String)
    }

    static let chunk = 1 << 16
    private let input: ByteInput
    private let limits: Limits
    private let strm: UnsafeMutablePointer<z_stream>
    private let inBuf: UnsafeMutablePointer<UInt8>
    private let outBuf: UnsafeMutablePointer<UInt8>
    private var started = false
    private var inputDone = false
    /// The whole output, when `decompressWhole` made it; handed out a chunk at a time from `wholeAt`.
    private var whole: UnsafeMutableBufferPointer<UInt8>?
    private var wholeAt = 0
    /// The input bytes of the member `whole` came from.
    private var wholeIn = 0
    /// Set once decompression has ended; `next` returns nil from then on.
    private(set) var outcome: Outcome?
    /// Bytes of output handed out (or refused) so far.
    private(set) var produced = 0
    /// Bytes of input inflate has consumed so far.
    var consumed: Int { whole == nil ? Int(strm.pointee.total_in) : wholeIn }

    /// Whether the output came from libdeflate in one piece (for tests, which compare it with zlib's).
    var decompressedWhole: Bool { whole != nil }

    /// Starts on `input`; `head`, when given, is its first piece, already read from it. `allowWhole: false`
    /// always streams through zlib (for tests, which compare the two).
    init(_ input: ByteInput, limits: Limits, head: ArraySlice<UInt8>? = nil, allowWhole: Bool = true) {
        self.input = input
        self.limits = limits
        // zlib keeps a pointer back to the stream, so it lives at one address for its whole life.
        strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        inBuf = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunk)
        outBuf = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunk)
        if allowWhole, head == nil, input.offset == 0, input.canRewind, let size = input.size,
           size <= limits.ratioFreeOutput {
            whole = Self.decompressWhole(input.read(max: size + 1), size: size, limits: limits, consumed: &wholeIn)
            if whole != nil { return }
            guard input.rewind() else {
                outcome = .refused(input.failure ?? "cannot be read")
                return
            }
        }
        let head = head ?? input.read(max: Self.chunk)
        guard head.count >= 2, head[head.startIndex] == 0x1F, head[head.startIndex + 1] == 0x8B else {
            outcome = .refused(input.failure ?? "not gzip data")
            return
        }
        guard inflateInit2_(strm, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            outcome = .refused("zlib failed to start")
            return
        }
        started = true
        load(head)
    }

    deinit {
        if started { inflateEnd(strm) }
        strm.deinitialize(count: 1)
        strm.deallocate()
        inBuf.deallocate()
        outBuf.deallocate()
        whole?.deallocate()
    }

    /// The whole output of a small container decompressed by libdeflate in one call, or nil when zlib must
    /// stream it instead; `consumed` is set to the bytes of the gzip member.
    ///
    /// libdeflate inflates these takes in about two thirds of zlib's time and checks the CRC several times
    /// faster, but only whole, so only where that is known to change nothing: all of `bytes` are the input
    /// (`size` of them), its last four bytes (the gzip size field, if nothing trails the member) promise no
    /// more output than `limits` let through without a check of size or ratio, and the header carries no
    /// CRC of its own (libdeflate skips one, zlib checks it). Output larger than promised, damage of any
    /// kind or anything libdeflate declines gives nil, and zlib then decides and words every message as
    /// before; memory stays bounded by `limits.ratioFreeOutput`.
    private static func decompressWhole(_ bytes: ArraySlice<UInt8>, size: Int, limits: Limits,
                                        consumed: inout Int) -> UnsafeMutableBufferPointer<UInt8>? {
        guard bytes.count == size, size >= 18 else { return nil }
        return bytes.withUnsafeBufferPointer { b -> UnsafeMutableBufferPointer<UInt8>? in
            // ID1 ID2 CM=8, and FLG without FHCRC (0x02).
            guard let base = b.baseAddress, b[0] == 0x1F, b[1] == 0x8B, b[2] == 8, b[3] & 0x02 == 0 else { return nil }
            let isize = Int(b[size - 4]) | Int(b[size - 3]) << 8 | Int(b[size - 2]) << 16 | Int(b[size - 1]) << 24
            guard isize <= min(limits.ratioFreeOutput, limits.maxOutput),
                  let d = libdeflate_alloc_decompressor() else { return nil }
            defer { libdeflate_free_decompressor(d) }
            // One byte more than promised, so that any output past the promise fails rather than fits.
            let out = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: isize + 1)
            var inBytes = 0, outBytes = 0
            let r = libdeflate_gzip_decompress_ex(d, base, size, out.baseAddress, isize + 1, &inBytes, &outBytes)
            guard r == LIBDEFLATE_SUCCESS, outBytes <= isize else {
                out.deallocate()
                return nil
            }
            consumed = inBytes
            return UnsafeMutableBufferPointer(rebasing: out[0..<outBytes])
        }
    }

    private func load(_ piece: ArraySlice<UInt8>) {
        if piece.count < Self.chunk { inputDone = true }
        piece.withUnsafeBufferPointer { if let base = $0.baseAddress { inBuf.update(from: base, count: $0.count) } }
        strm.pointee.next_in = inBuf
        strm.pointee.avail_in = UInt32(piece.count)
    }

    private var ofSize: String { input.size.map { " of \($0)" } ?? "" }

    /// Why the output so far is refused, if it is.
    private func refusal() -> String? {
        if produced > limits.maxOutput {
            return "decompresses to more than \(limits.maxOutput >> 20) MB (the limit for a recording; a gzip bomb?), "
                + "refused at byte \(consumed)\(ofSize)"
        }
        if produced > limits.ratioFreeOutput, produced / max(1, consumed) > limits.maxRatio {
            return "decompresses to more than \(limits.maxRatio) times its size (\(produced >> 10) KB from its first "
                + "\(consumed) bytes; recordings shrink only a few times: a gzip bomb?), refused at byte \(consumed)\(ofSize)"
        }
        return nil
    }

    /// The next piece of output (valid only until the next call), or nil once decompression has ended: then
    /// `outcome` says how.
    func next() -> UnsafeBufferPointer<UInt8>? {
        guard outcome == nil else { return nil }
        if let w = whole {
            // The whole output in chunks, as zlib hands it out, so readers hold no more at once than before.
            let n = min(Self.chunk, w.count - wholeAt)
            let piece = UnsafeBufferPointer(rebasing: w[wholeAt..<(wholeAt + n)])
            wholeAt += n
            produced += n
            if wholeAt == w.count { outcome = .finished }
            return n > 0 ? piece : nil
        }
        while true {
            if strm.pointee.avail_in == 0 && !inputDone { load(input.read(max: Self.chunk)) }
            let before = consumed
            strm.pointee.next_out = outBuf
            strm.pointee.avail_out = UInt32(Self.chunk)
            let status = inflate(strm, Z_NO_FLUSH)
            let n = Self.chunk - Int(strm.pointee.avail_out)
            produced += n
            if let r = refusal() { outcome = .refused(r); return nil }
            switch status {
            case Z_STREAM_END:
                outcome = .finished
            case Z_OK, Z_BUF_ERROR:
                guard n == 0, consumed == before else { break }
                // No progress: either the input has run out, or inflate wants what it cannot have.
                if strm.pointee.avail_in == 0 && inputDone {
                    outcome = .damaged(input.failure ?? "gzip data ends early (cut off at byte \(input.offset))")
                } else if strm.pointee.avail_in > 0 {
                    outcome = .damaged("corrupt gzip data at byte \(consumed)\(ofSize) (zlib status \(status))")
                }
            default:
                let reason = strm.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                // Damage is found where decompression fails; the output just before it may be garbled too,
                // which each packet's own checks then catch. A checksum mismatch is only found at the end.
                outcome = .damaged("corrupt gzip data at byte \(consumed)\(ofSize) (\(reason))")
            }
            if n > 0 { return UnsafeBufferPointer(start: outBuf, count: n) }
            if outcome != nil { return nil }
        }
    }
}
