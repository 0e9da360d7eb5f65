import Foundation
import Testing

/// Issue 33's hostile files, given to the built binary: a config of deep dotted keys and headers, and a
/// gzip bomb of a recording. Each is refused with its file and line (or byte), quickly and in little memory.
@Suite(.serialized) struct HostileFilesEndToEndTests {
    static let binary = ShellInTmuxTests.binary
    static let built = FileManager.default.isExecutableFile(atPath: binary)
    /// GNU time reports a process's peak memory (`%M`, KB) from the kernel's own accounting.
    static let gnuTime = "/usr/bin/time"
    static let hasTime = FileManager.default.isExecutableFile(atPath: gnuTime)

    /// Runs a program; returns its status and what it printed (standard output and error together).
    static func run(_ args: [String]) throws -> (status: Int32, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0])
        p.arguments = Array(args.dropFirst())
        p.environment = ["HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        let err = Pipe()
        p.standardOutput = err
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    static func dir() throws -> String {
        let d = NSTemporaryDirectory() + "hf-hostile-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// A key 8,000 levels deep took 18 s to check, and `run` read it the same way.
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"),
          arguments: ["key", "header"])
    func aDeepConfigIsRefusedWithItsLine(_ shape: String) throws {
        let d = try Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let path = d + "/deep.toml"
        let parts = Array(repeating: "a", count: 8000).joined(separator: ".")
        let text = shape == "key" ? "# deep\n\(parts) = 1\n" : "# deep\n[\(parts)]\nx = 1\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, err) = try Self.run([Self.binary, "check", path])
        #expect(status == 1)
        #expect(err.contains("\(path):2: the \(shape == "key" ? "key a.a.a.a.…" : "table [a.a.a.a.…]") is 8000 levels deep, deeper than the 64 levels"),
                "\(err)")
    }

    /// A 600 KB `.gesichter` expanding to 600 MB used to reach 570 MB of memory before it was refused.
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func aGzipBombIsRefusedInLittleMemory() throws {
        let d = try Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let path = d + "/bomb.gesichter"
        // A container header (version 6, one packet) whose single packet claims 4 GB, then 600 MB of zeros, as
        // gzip: a Python one-liner keeps the test free of a second compressor.
        let py = """
        import struct, zlib
        co = zlib.compressobj(9, zlib.DEFLATED, 31)
        out = [co.compress(bytes([6]) + struct.pack(">I", 1) + struct.pack(">I", 0xFFFFFFF0))]
        z = bytes(1 << 20)
        for _ in range(600): out.append(co.compress(z))
        out.append(co.flush())
        open(\(String(reflecting: path)), "wb").write(b"".join(out))
        """
        let made = try Self.run(["/usr/bin/python3", "-c", py])
        try #require(made.status == 0, "\(made.err)")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(size < 1_000_000, "the bomb is small: \(size) bytes")
        let args = Self.hasTime ? [Self.gnuTime, "-f", "peak %M KB", Self.binary, "replay", "--fast", "--no-metrics", path]
            : [Self.binary, "replay", "--fast", "--no-metrics", path]
        let (status, err) = try Self.run(args)
        #expect(status != 0)
        #expect(err.contains("\(path): decompresses to more than 256 times its size"), "\(err)")
        if Self.hasTime, let r = err.range(of: "peak "), let kb = Int(err[r.upperBound...].prefix { $0.isNumber }) {
            #expect(kb < 100_000, "peak memory \(kb) KB")
        }
    }
}
