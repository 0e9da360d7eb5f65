import FrameFormats
import FuzzDriver
import FuzzSupport

// NDJSON frames, fed in two pieces split at a point the input chooses (bytes may arrive split anywhere).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let b = bytes(data, size)
    var d = NDJSONDecoder()
    let cut = b.isEmpty ? 0 : Int(b[0]) % (b.count + 1)
    exercise(d.feed(b[..<cut]) + d.feed(b[cut...]) + d.finish())
    return 0
}

runFuzzer(fuzzNDJSON)
