import PtyHost
import Testing

/// The plain-run skip in `VTermScreen.feed` must leave exactly what feeding every line through libvterm
/// leaves: the same screen, cursor and scrollback, whatever the stream and however it is cut into reads.
@Suite struct FastScrollTests {
    struct Rng {
        var s: UInt64
        mutating func next() -> Int { s = s &* 6364136223846793005 &+ 1442695040888963407; return Int(s >> 33) }
        mutating func below(_ n: Int) -> Int { next() % max(1, n) }
    }

    /// A stream of mostly plain CR LF lines with the things that must turn the skip off mixed in.
    static func stream(_ rng: inout Rng, cols: Int, bytes: Int) -> [UInt8] {
        let specials: [String] = ["\n", "\t", "é", "界", "\u{1b}[31m", "\u{1b}[0m", "\u{1b}[1m", "\u{1b}[5;3H", "\u{1b}[2J",
                                  "\u{1b}[2;5r", "\u{1b}[r", "\u{1b}[?7l", "\u{1b}[?7h", "\u{1b}[?1049h", "\u{1b}[?1049l",
                                  "\u{1b}[K", "\u{7}", "\r", "\u{1b}[?6h", "\u{1b}[?6l", "\u{1b}[44m", "\u{1b}[A", "\u{1b}c"]
        var out: [UInt8] = []
        var plainLeft = 0
        while out.count < bytes {
            // Phases of plain lines (what the skip is for) between bursts of everything else.
            if plainLeft == 0 {
                for _ in 0..<rng.below(8) { out += Array(specials[rng.below(specials.count)].utf8) }
                // A string left open is closed first (BEL, then ST), as a program that opened one would.
                out += Array("\u{7}\u{1b}\\".utf8)
                if rng.below(3) == 0 { out += Array("\u{1b}c".utf8) }
                if rng.below(2) == 0 { out += Array("\u{1b}[0m\u{1b}[r\u{1b}[?7h\u{1b}[?6l\u{1b}[?1049l".utf8) }
                plainLeft = rng.below(400)
                continue
            }
            plainLeft -= 1
            let len = rng.below(6) == 0 ? rng.below(3 * cols + 2) : rng.below(cols / 2 + 1)
            for _ in 0..<len { out.append(UInt8(0x20 + rng.below(95))) }
            out += [0x0d, 0x0a]
        }
        return out
    }

    static func same(_ a: VTermScreen, _ b: VTermScreen) -> String? {
        let sa = a.snapshot(), sb = b.snapshot()
        if sa.cursor != sb.cursor { return "cursor \(sa.cursor) vs \(sb.cursor)" }
        for r in 0..<sa.rows where sa.cells.rows[r] != sb.cells.rows[r] {
            return "row \(r): \(sa.lineText(r).debugDescription) vs \(sb.lineText(r).debugDescription)"
        }
        if a.scrollbackCount != b.scrollbackCount { return "scrollback \(a.scrollbackCount) vs \(b.scrollbackCount) lines" }
        for k in 0..<a.scrollbackCount where a.scrollbackLine(k) != b.scrollbackLine(k) {
            return "scrollback line \(k): \(a.scrollbackText(k).debugDescription) vs \(b.scrollbackText(k).debugDescription)"
        }
        return nil
    }

    @Test(arguments: [(5, 10, UInt64(1)), (24, 80, 2), (13, 100, 3), (40, 120, 4), (7, 33, 5), (30, 17, 6), (1, 40, 7),
                      (2, 1, 8), (42, 120, 9), (60, 200, 10)])
    func skippingGivesWhatFeedingEveryLineGives(_ rows: Int, _ cols: Int, _ seed: UInt64) {
        var rng = Rng(s: seed)
        let fast = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 300)
        let slow = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 300)
        slow.fastScroll = false
        let data = Self.stream(&rng, cols: cols, bytes: 400_000)
        var i = 0, reads = 0
        while i < data.count {
            let n = min(data.count - i, 1 + rng.below(rng.below(4) == 0 ? 40 : 20_000))
            _ = fast.feed(Array(data[i..<(i + n)]))
            _ = slow.feed(Array(data[i..<(i + n)]))
            i += n
            reads += 1
            if let d = Self.same(fast, slow) {
                Issue.record("\(rows)x\(cols) seed \(seed), after read \(reads) (byte \(i)): \(d)")
                return
            }
        }
        // A one-row screen never skips (libvterm keeps no scrollback there): it checks that nothing goes wrong.
        #expect(rows == 1 || fast.rowsSkipped > 0, "the skip was never taken, so this compared nothing")
        #expect(rows == 1 || fast.skipsFromBytes > 0, "no skip took the screen's rows from their bytes")
    }

    /// Between two skips, one line holding something other than plain text: the second skip must not take the
    /// screen's rows from the bytes (`ScreenMirror`), or it pushes that line's bytes, not what it drew.
    @Test(arguments: ["\u{1b}[31mred\u{1b}[0m", "\u{1b}[3;4Hmoved", "a\tb", "a\nb", "a\rb", "é", "界", "ab\u{8}c",
                      "\u{1b}[2J", "\u{1b}[1;2r\u{1b}[r\u{1b}[6;1H", "\u{1b}[?7l\u{1b}[?7h", "\u{1b}(0q\u{1b}(B", "\u{e}q\u{f}"])
    func aSkipAfterAnythingButPlainLinesReadsTheScreen(_ piece: String) {
        let fast = VTermScreen(rows: 6, cols: 12, scrollbackLimit: 100)
        let slow = VTermScreen(rows: 6, cols: 12, scrollbackLimit: 100)
        slow.fastScroll = false
        var lines: [UInt8] = []
        for k in 0..<20 { lines += Array("line \(k) of a long one\r\n".utf8) }
        // The first lines leave the cursor on the bottom row, the second take the skip and leave its redraw.
        for chunk in [lines, lines, Array("before \(piece) after\r\n".utf8), Array("x\r\n".utf8), lines] {
            _ = fast.feed(chunk)
            _ = slow.feed(chunk)
            if let d = Self.same(fast, slow) { Issue.record("\(piece.debugDescription): \(d)"); return }
        }
        #expect(fast.rowsSkipped > 60)
    }

    @Test func seqOutputSkipsAlmostEveryRow() {
        let s = VTermScreen(rows: 40, cols: 120)
        var text = ""
        for k in 1...20_000 { text += "\(k)\r\n" }
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count { let n = min(16_384, bytes.count - i); _ = s.feed(Array(bytes[i..<(i + n)])); i += n }
        #expect(s.snapshot().lineText(38) == "20000")
        // Rows 0…38 show 19962…20000; the newest scrollback line is the one before.
        #expect(s.snapshot().lineText(0) == "19962")
        #expect(s.scrollbackText(0) == "19961")
        #expect(s.scrollbackCount == 10_000)
        // Per 16 KB read (about 2,300 lines) all but a screenful and the partial lines at its ends skip.
        #expect(s.rowsSkipped > 15_000, "\(s.rowsSkipped)")
        // After the first, each skip finds the screen as the last one left it with a few lines more: its rows
        // are pushed from the bytes that drew them.
        #expect(s.skipsFromBytes > 0)
    }
}

/// The fast path against plain feeding on streams with everything a terminal meets, not only what turns the
/// skip off: UTF-8 (wide, combining, invalid), controls (CR, LF, tab, backspace, shift in and out), colours,
/// cursor moves, scroll regions, the alternate screen, insert mode, other character sets, titles, and
/// sequences cut anywhere (by the reads, and left unfinished in the stream).
@Suite struct FastPathDifferentialTests {
    typealias Rng = FastScrollTests.Rng

    static let pieces: [String] = [
        "\n", "\r", "\r\n", "\t", "\u{8}", "\u{8}\u{8}\u{8}", "\u{7}", "\u{e}", "\u{f}",
        "é", "界", "😀", "e\u{301}", "ｱ", "\u{200b}", "→",
        "\u{1b}[31m", "\u{1b}[0m", "\u{1b}[1;4;7m", "\u{1b}[38;5;202m", "\u{1b}[48;2;10;20;30m", "\u{1b}[m", "\u{1b}[39;49m",
        "\u{1b}[H", "\u{1b}[5;3H", "\u{1b}[99;99H", "\u{1b}[A", "\u{1b}[3B", "\u{1b}[2C", "\u{1b}[9D", "\u{1b}[G", "\u{1b}[7d",
        "\u{1b}[2J", "\u{1b}[J", "\u{1b}[1J", "\u{1b}[K", "\u{1b}[1K", "\u{1b}[2K", "\u{1b}[3L", "\u{1b}[2M", "\u{1b}[4P",
        "\u{1b}[3@", "\u{1b}[2X", "\u{1b}[2S", "\u{1b}[T", "\u{1b}M", "\u{1b}D", "\u{1b}E", "\u{1b}7", "\u{1b}8",
        "\u{1b}[s", "\u{1b}[u",
        "\u{1b}[2;5r", "\u{1b}[3r", "\u{1b}[r", "\u{1b}[?6h", "\u{1b}[?6l", "\u{1b}[?7l", "\u{1b}[?7h", "\u{1b}[?69h",
        "\u{1b}[2;30s", "\u{1b}[?69l", "\u{1b}[4h", "\u{1b}[4l", "\u{1b}[20h", "\u{1b}[20l",
        "\u{1b}[?1049h", "\u{1b}[?1049l", "\u{1b}[?47h", "\u{1b}[?47l", "\u{1b}[?1047h", "\u{1b}[?1047l",
        "\u{1b}(0", "\u{1b}(B", "\u{1b})0", "\u{1b})B", "\u{1b}*0", "\u{1b}+0", "\u{1b}N", "\u{1b}O", "\u{1b}n", "\u{1b}o",
        "\u{1b}]0;title\u{7}", "\u{1b}]2;other\u{1b}\\", "\u{1b}P1$r\u{1b}\\", "\u{1b}[!p", "\u{1b}c", "\u{1b}[?25l", "\u{1b}[?25h",
        // Unfinished: the rest of the stream goes on as if they were not there, or eats a byte of it.
        "\u{1b}", "\u{1b}[", "\u{1b}[3", "\u{1b}[38;5", "\u{1b}]0;unterminated", "\u{1b}(",
        "\u{ff}", "\u{c3}",
    ]

    /// Plain lines (long enough to take the skip) between runs of random pieces and random text.
    static func stream(_ rng: inout Rng, rows: Int, cols: Int, bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < bytes {
            switch rng.below(3) {
            case 0:
                for _ in 0..<rng.below(12) {
                    let p = pieces[rng.below(pieces.count)]
                    // Some pieces are bytes, not text: invalid UTF-8 on purpose.
                    if p == "\u{ff}" { out.append(0xff) } else if p == "\u{c3}" { out.append(0xc3) } else { out += Array(p.utf8) }
                    if rng.below(3) == 0 { for _ in 0..<rng.below(cols) { out.append(UInt8(0x20 + rng.below(95))) } }
                }
            case 1:
                // A reset now and then, so the skip gets its chance again.
                // A string left open is closed first (BEL, then ST), as a program that opened one would.
                out += Array("\u{7}\u{1b}\\".utf8)
                if rng.below(3) == 0 { out += Array("\u{1b}c".utf8) }
                if rng.below(2) == 0 { out += Array("\u{1b}[0m\u{1b}[r\u{1b}[?7h\u{1b}[?6l\u{1b}[?1049l\u{1b}(B\u{1b})B\u{1b}*B\u{1b}+B\u{f}\u{1b}[4l\u{1b}[?69l".utf8) }
                fallthrough
            default:
                // A sequence left open just before the lines: libvterm reads the lines as its rest.
                if rng.below(4) == 0 { out += Array(["\u{1b}", "\u{1b}[", "\u{1b}[?", "\u{1b}]0;", "\u{1b}P", "\u{1b}(", "\u{1b}#"][rng.below(7)].utf8) }
                for _ in 0..<rng.below(300 + 4 * rows) {
                    let len = rng.below(6) == 0 ? rng.below(3 * cols + 2) : rng.below(cols / 2 + 1)
                    for _ in 0..<len { out.append(UInt8(0x20 + rng.below(95))) }
                    out += [0x0d, 0x0a]
                }
            }
        }
        return out
    }

    // Seeds whose streams take the skip at their sizes (a few leave it no chance: a string or mode left on).
    @Test(arguments: (Array(300..<315) + [316]).map { k in ([24, 5, 13, 42, 7, 2, 3, 40][k % 8], [80, 10, 100, 120, 33, 3, 7, 120][k % 8], UInt64(k)) })
    func randomStreamsLeaveTheSameScreenWithTheFastPathOnAndOff(_ rows: Int, _ cols: Int, _ seed: UInt64) {
        var rng = Rng(s: seed)
        let fast = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 500)
        let slow = VTermScreen(rows: rows, cols: cols, scrollbackLimit: 500)
        slow.fastScroll = false
        let data = Self.stream(&rng, rows: rows, cols: cols, bytes: 600_000)
        var i = 0, reads = 0
        while i < data.count {
            // Reads of a pty's sizes (up to 4 KB), of a gathered slice (64 KB), and tiny ones that cut sequences.
            let sizes = [1 + rng.below(8), 1 + rng.below(4096), 1 + rng.below(65_536)]
            let n = min(data.count - i, sizes[rng.below(sizes.count)])
            let slice = Array(data[i..<(i + n)])
            #expect(fast.feed(slice) == slow.feed(slice), "replies to the child differ")
            i += n
            reads += 1
            if let d = FastScrollTests.same(fast, slow) {
                Issue.record("\(rows)x\(cols) seed \(seed), after read \(reads) (byte \(i)): \(d)")
                return
            }
            let a = fast.snapshot(), b = slow.snapshot()
            if a.isAltScreen != b.isAltScreen || a.cursorVisible != b.cursorVisible || a.title != b.title {
                Issue.record("\(rows)x\(cols) seed \(seed), after read \(reads): modes differ")
                return
            }
        }
        #expect(rows < 2 || fast.rowsSkipped > 0, "the skip was never taken, so this compared nothing")
        #expect(rows < 2 || fast.skipsFromBytes > 0, "no skip took the screen's rows from their bytes")
    }
}
