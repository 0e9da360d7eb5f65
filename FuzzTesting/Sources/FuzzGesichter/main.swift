import FrameFormats
import FuzzDriver
import FuzzSupport

// Whole files as `replay` reads them: format detection, gzip, the .gesichter container, each packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGesichter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let b = bytes(data, size)
    if let items = try? FrameFile.decode(b, format: .auto) { exercise(items) }
    return 0
}

runFuzzer(fuzzGesichter)
