import FuzzDriver
import PtyHost

// The plain-run skip against plain feeding: one screen feeds a hosted program's output with the skip on, the
// other through libvterm alone; after every read both must show the same rows, cursor, modes and scrollback,
// and answer the program with the same bytes. Input as for FuzzTerminal: two bytes for the size (small, so
// that plain lines soon fill a screen), then the output, where 0xFF 0xFF is a 0xFF byte, 0xFF R C (R below
// 0x80) resizes both to R and C, and any other 0xFF X ends a read there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFastPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let d = FuzzDriver.bytes(data, size)
    guard d.count >= 2 else { return 0 }
    let rows = 1 + Int(d[0]) % 12, cols = 2 + Int(d[1]) % 40
    let fast = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 20)
    let slow = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 20)
    slow.fastScroll = false
    var reads = 0
    func compare(_ what: String) {
        let a = fast.snapshot(), b = slow.snapshot()
        var problem: String?
        if a.cursor != b.cursor { problem = "cursor \(a.cursor) vs \(b.cursor)" }
        for r in 0..<min(a.rows, b.rows) where problem == nil && a.cells.rows[r] != b.cells.rows[r] {
            problem = "row \(r): \(a.lineText(r).debugDescription) vs \(b.lineText(r).debugDescription)"
        }
        if problem == nil, a.isAltScreen != b.isAltScreen || a.cursorVisible != b.cursorVisible || a.title != b.title {
            problem = "modes differ"
        }
        if problem == nil, fast.scrollbackCount != slow.scrollbackCount {
            problem = "scrollback \(fast.scrollbackCount) vs \(slow.scrollbackCount) lines"
        }
        for k in 0..<fast.scrollbackCount where problem == nil && fast.scrollbackLine(k) != slow.scrollbackLine(k) {
            problem = "scrollback line \(k): \(fast.scrollbackText(k).debugDescription) vs \(slow.scrollbackText(k).debugDescription)"
        }
        if let problem { fatalError("\(rows)x\(cols), after \(what) (read \(reads)): \(problem)") }
    }
    terminalSteps(d, from: 2, read: { bytes in
        reads += 1
        if fast.feed(bytes) != slow.feed(bytes) { fatalError("replies to the program differ after read \(reads)") }
        compare("a read")
    }, resize: { r, c in
        fast.resize(rows: 1 + Int(r) % 12, cols: 2 + Int(c) % 40)
        slow.resize(rows: 1 + Int(r) % 12, cols: 2 + Int(c) % 40)
        compare("a resize")
    })
    return 0
}

runFuzzer(fuzzFastPath)
