import CLibFuzzer
import Foundation

/// Runs libFuzzer's driver with this process's arguments and `body` as the test of one input.
///
/// The targets call this from top-level code: SwiftPM links Linux executables with their own `main`, so
/// libFuzzer's `main` cannot be used.
public func runFuzzer(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The bytes of one fuzz input.
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The text of one fuzz input, as the programs read files (invalid UTF-8 becomes U+FFFD).
public func text(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    String(decoding: bytes(data, size), as: UTF8.self)
}

/// Walks a hosted program's output as the terminal targets encode it, from `start`: 0xFF 0xFF is a 0xFF byte
/// of output, 0xFF R C (R below 0x80) a resize, any other 0xFF X the end of a read. `read` gets each read's
/// bytes (never empty), `resize` each resize's two bytes.
public func terminalSteps(_ d: [UInt8], from start: Int, read: ([UInt8]) -> Void, resize: (UInt8, UInt8) -> Void) {
    var bytes: [UInt8] = []
    func flush() {
        guard !bytes.isEmpty else { return }
        read(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
    var i = start
    while i < d.count {
        let b = d[i]
        guard b == 0xff, i + 1 < d.count else { bytes.append(b); i += 1; continue }
        let op = d[i + 1]
        if op == 0xff { bytes.append(0xff); i += 2; continue }
        flush()
        if op < 0x80, i + 2 < d.count {
            resize(op, d[i + 2])
            i += 3
        } else {
            i += 2
        }
    }
    flush()
}
