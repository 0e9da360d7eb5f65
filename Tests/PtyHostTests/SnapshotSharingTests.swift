import PtyHost
import Testing
import TerminalModel

/// A snapshot is read from libvterm only where it changed (the damaged cells of the damaged rows) and shares
/// every other row with the snapshot before it: what it shows must still be exactly the whole screen.
@Suite struct SnapshotSharingTests {
    struct Rng {
        var s: UInt64
        mutating func next() -> Int { s = s &* 6364136223846793005 &+ 1442695040888963407; return Int(s >> 33) }
        mutating func below(_ n: Int) -> Int { next() % max(1, n) }
    }

    /// Bytes a program writes: text, wide and combining characters, colours, cursor moves, erases, scrolls,
    /// insertions and deletions, the alternate screen.
    static func chunk(_ rng: inout Rng) -> [UInt8] {
        let pieces: [String] = ["a", "hello ", "界", "e\u{301}", "\u{1b}[31m", "\u{1b}[0m", "\u{1b}[1;4m", "\u{1b}[38;2;1;2;3m",
                                "\u{1b}[5;3H", "\u{1b}[2J", "\u{1b}[K", "\u{1b}[1K", "\r\n", "\r", "\u{8}", "\u{1b}[3@",
                                "\u{1b}[2P", "\u{1b}[L", "\u{1b}[M", "\u{1b}[2;6r", "\u{1b}[r", "\u{1b}[?1049h",
                                "\u{1b}[?1049l", "\u{1b}[10C", "\u{1b}[A", "\t", "x\u{1b}[1;79Hyz界", "\u{1b}[S", "\u{1b}[T"]
        var out: [UInt8] = []
        for _ in 0..<(1 + rng.below(6)) { out += Array(pieces[rng.below(pieces.count)].utf8) }
        return out
    }

    @Test func aScreenReadAfterEveryChunkEqualsOneReadOnceAtTheEnd() {
        var rng = Rng(s: 7)
        for stream in 0..<40 {
            let stepped = VTermScreen(rows: 12, cols: 40)
            var chunks: [[UInt8]] = []
            for _ in 0..<(20 + rng.below(60)) {
                let c = Self.chunk(&rng)
                chunks.append(c)
                c.withUnsafeBytes { _ = stepped.feed($0) }
                _ = stepped.snapshot()
            }
            let once = VTermScreen(rows: 12, cols: 40)
            for c in chunks { c.withUnsafeBytes { _ = once.feed($0) } }
            let a = stepped.snapshot(), b = once.snapshot()
            #expect(a == b, "stream \(stream): \(a.text.debugDescription) vs \(b.text.debugDescription)")
            for r in 0..<a.rows where a.cells.rows[r] != b.cells.rows[r] {
                Issue.record("stream \(stream) row \(r): \(a.lineText(r).debugDescription) vs \(b.lineText(r).debugDescription)")
            }
        }
    }

    @Test func anEchoedKeyChangesOneRowAndSharesTheRest() throws {
        let screen = VTermScreen(rows: 24, cols: 80)
        Array("$ ls\r\nfile\r\n$ ".utf8).withUnsafeBytes { _ = screen.feed($0) }
        let before = screen.snapshot()
        Array("a".utf8).withUnsafeBytes { _ = screen.feed($0) }
        let after = screen.snapshot()
        #expect(after.lineText(2) == "$ a")
        var changed: [Int] = []
        for r in 0..<24 where !TerminalCells.sameRow(before.cells, r, after.cells, r) { changed.append(r) }
        #expect(changed == [2])
        // Shared, not merely equal: the row's buffer is the same one.
        let shared = before.cells.rows[0].withUnsafeBufferPointer { a in
            after.cells.rows[0].withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
        #expect(shared)
        // The snapshot taken before still shows the screen as it was.
        #expect(before.lineText(2) == "$")
    }

    @Test func aCellKeepsItsTextAsWrittenWithinItsRoom() {
        #expect(TerminalCell(text: "e\u{301}").text == "e\u{301}")
        #expect(TerminalCell(text: "界", width: 2).text == "界")
        #expect(TerminalCell(text: "").text == "")
        #expect(TerminalCell(scalar: 0x41).text == "A")
        #expect(TerminalCell(scalar: 0x41).singleByte == 0x41)
        #expect(TerminalCell(text: "é").singleByte == nil)
        // A surrogate is not a character: shown as U+FFFD.
        #expect(TerminalCell(scalar: 0xD800).text == "\u{FFFD}")
        // Six 4-byte scalars fit (libvterm's most); a seventh is dropped whole, never cut in half.
        let six = String(repeating: "😀", count: 6)
        #expect(TerminalCell(text: six).text == six)
        #expect(TerminalCell(text: six + "😀").text == six)
        // Colours and attributes round-trip through their packed form.
        let c = TerminalCell(text: "x", attributes: [.bold, .reverse], foreground: .rgb(1, 2, 3), background: .indexed(200))
        #expect(c.foreground == .rgb(1, 2, 3) && c.background == .indexed(200) && c.attributes == [.bold, .reverse])
        #expect(c != TerminalCell(text: "x", attributes: [.bold, .reverse], foreground: .rgb(1, 2, 4), background: .indexed(200)))
        #expect(TerminalCell.blank.isBlank && !c.isBlank)
        #expect(MemoryLayout<TerminalCell>.size == MemoryLayout<TerminalCell>.stride)
    }
}
