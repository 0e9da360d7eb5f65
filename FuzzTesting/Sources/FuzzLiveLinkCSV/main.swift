import FrameFormats
import FuzzDriver
import FuzzSupport

// Live Link Face CSV takes, fed in two pieces split at a point the input chooses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLiveLinkCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let b = bytes(data, size)
    var d = LiveLinkCSVDecoder()
    let cut = b.isEmpty ? 0 : Int(b[0]) % (b.count + 1)
    exercise(d.feed(b[..<cut]) + d.feed(b[cut...]) + d.finish())
    return 0
}

runFuzzer(fuzzLiveLinkCSV)
