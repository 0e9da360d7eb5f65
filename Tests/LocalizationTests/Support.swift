import Foundation
@testable import Localization

/// Files and tools the localization tests use.
enum Support {
    /// This test folder's `Fixtures/NAME`.
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + name)
    }

    /// The package root (three levels above this file).
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func text(_ name: String) throws -> String { try String(contentsOf: fixture(name), encoding: .utf8) }

    /// GNU gettext's compiler (Debian's `gettext` package), which the `.mo` tests read the output of.
    static let msgfmt = "/usr/bin/msgfmt"
    static var haveMsgfmt: Bool { FileManager.default.isExecutableFile(atPath: msgfmt) }
    static let python = "/usr/bin/python3"
    static var havePython: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// Runs a program; its exit status and standard output and error together.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let input = Pipe()
        if stdin != nil { p.standardInput = input }
        try p.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-l10n-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    /// `po` compiled by the real msgfmt with `options`, read back as bytes.
    static func compile(_ po: URL, _ options: [String] = []) throws -> [UInt8] {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mo = dir.appendingPathComponent("out.mo")
        let r = try run(msgfmt, options + ["-o", mo.path, po.path])
        guard r.status == 0 else { throw CompileFailed(output: r.output) }
        return Array(try Data(contentsOf: mo))
    }

    struct CompileFailed: Error { var output: String }
}
