import FrameFormats
import FuzzDriver
import FuzzSupport

// The other trackers' datagrams (OpenSeeFace, VMC/OSC, iFacialMocap), recognised per datagram as a live
// socket does. One input is a run of datagrams, each `u16be length · payload`; the whole input is also one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrackers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let b = bytes(data, size)
    var d = LiveDecoder()
    var items = b.withUnsafeBytes { d.decode($0, index: 1, arrival: 1) }
    var i = 0, k = 2
    while i + 2 <= b.count {
        let n = Int(b[i]) << 8 | Int(b[i + 1])
        let end = min(b.count, i + 2 + n)
        items += b[(i + 2)..<end].withUnsafeBytes { d.decode($0, index: k, arrival: Double(k)) }
        i = end
        k += 1
    }
    exercise(items)
    return 0
}

runFuzzer(fuzzTrackers)
