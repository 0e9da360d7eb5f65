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
