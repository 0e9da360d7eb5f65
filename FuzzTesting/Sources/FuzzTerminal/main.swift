import FuzzDriver
import PtyHost

// A hosted program's output, as the pane feeds it to libvterm: in reads cut anywhere, with resizes between
// them. Any input must leave libvterm's cursor on the screen and every call returning. Built against an
// AddressSanitizer build of libvterm (see README.md), it also catches libvterm's own out-of-bounds accesses.
//
// Input: two bytes for the screen's size, then the output. 0xFF starts a command: 0xFF 0xFF is a 0xFF
// byte of output, 0xFF R C (R below 0x80) resizes to R and C, any other 0xFF X ends a read there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTerminal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let d = FuzzDriver.bytes(data, size)
    guard d.count >= 2 else { return 0 }
    let screen = VTermScreen(rows: 1 + Int(d[0]) % 40, cols: 2 + Int(d[1]) % 120, scrollbackLimit: 50)
    func check() {
        let c = screen.libvtermCursor
        if c.row < 0 || c.row >= screen.rows || c.col < 0 || c.col >= screen.cols {
            fatalError("libvterm's cursor \(c.row),\(c.col) is off the \(screen.rows)x\(screen.cols) screen")
        }
    }
    terminalSteps(d, from: 2, read: { bytes in
        _ = screen.feed(bytes)
        check()
    }, resize: { r, c in
        screen.resize(rows: 1 + Int(r) % 40, cols: 2 + Int(c) % 120)
        check()
    })
    _ = screen.snapshot()
    _ = screen.view(scrolledBack: 3)
    return 0
}

runFuzzer(fuzzTerminal)
