import FrameFormats
import FuzzDriver
import FuzzSupport

// One input is a run of Live Link Face datagrams, each `u16be length · payload`, as a live socket delivers
// them; a single short input is one datagram.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLiveLinkUDP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let b = bytes(data, size)
    var d = LiveLinkUDPDecoder()
    var items = [d.decode(b)]
    var i = 0
    while i + 2 <= b.count {
        let n = Int(b[i]) << 8 | Int(b[i + 1])
        let end = min(b.count, i + 2 + n)
        items.append(d.decode(b[(i + 2)..<end]))
        i = end
    }
    exercise(items)
    return 0
}

runFuzzer(fuzzLiveLinkUDP)
