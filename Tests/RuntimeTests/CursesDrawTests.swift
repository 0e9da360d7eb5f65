#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import PtyHost
import Shell
@testable import Terminal
import TerminalModel

/// The curses terminal writes only the cells that changed: what reaches a real terminal (libvterm, reading
/// the pty curses draws into) must still be every grid drawn, cell for cell.
@Suite(.serialized) struct CursesDrawTests {
    @Test func theChangedSpanOfARowIsFoundByItsBytes() {
        func span(_ a: CellGrid, _ b: CellGrid) -> ClosedRange<Int>? {
            a.cells.withUnsafeBufferPointer { pa in b.cells.withUnsafeBufferPointer { Terminal.differingCells(pa, $0) } }
        }
        var a = CellGrid(Size(width: 10, height: 1)), b = a
        #expect(span(a, b) == nil)
        b.text("x", x: 3, y: 0)
        b.text("y", x: 7, y: 0, style: .reverse)
        #expect(span(a, b) == 3...7)
        a.text("中", x: 8, y: 0)
        #expect(span(a, b) == 3...9)
    }

    @Test(arguments: [7, 11, 23] as [UInt64])
    func randomDrawingsReachARealTerminalCellForCell(seed: UInt64) throws {
        let size = Size(width: 40, height: 12)
        guard let (master, slavePath) = Terminal.openPTY(), let slave = fopen(slavePath, "r+") else {
            Issue.record("cannot open a pty"); return
        }
        defer { fclose(slave); close(master) }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        let term = try Terminal(type: "xterm-256color", output: slave, input: slave)
        defer { term.stop() }
        term.resize(size)
        let screen = VTermScreen(rows: size.height, cols: size.width)
        var rng = SplitMix(seed: seed)
        let words = ["ab", "中文", "é", "x", "  ", "─│", "a中b", "😀", "z"]
        let styles: [Style] = [.plain, .reverse, .bold, Style(fg: .red), Style(bg: .blue, attrs: .bold)]
        var grid = CellGrid(size)
        term.draw(grid)
        for step in 0..<600 {
            // A few changes a step, on a few rows: most rows stay as they were, as between two frames.
            var rows: [Int] = []
            for _ in 0..<Int(rng.next() % 4) + 1 {
                let y = Int(rng.next() % UInt64(size.height)), x = Int(rng.next() % UInt64(size.width))
                let style = styles[Int(rng.next() % UInt64(styles.count))]
                if rng.next() % 4 == 0 {
                    grid.fill(Rect(x: x, y: y, w: Int(rng.next() % 6) + 1, h: 1), " ", style: style)
                } else {
                    grid.text(words[Int(rng.next() % UInt64(words.count))], x: x, y: y, style: style)
                }
                rows.append(y)
            }
            if step % 2 == 0 {
                term.draw(grid)
            } else {
                let target = grid
                #expect(term.drawRows(rows) { g in
                    for y in rows { for x in 0..<size.width { g[x, y] = target[x, y] } }
                })
            }
            let want = (0..<size.height).map { Self.drawn(grid, row: $0) }
            let snap = Self.read(master, into: screen, until: { s in (0..<size.height).map { Self.seen(s, row: $0, of: grid) } == want })
            let shown = (0..<size.height).map { Self.seen(snap, row: $0, of: grid) }
            #expect(shown == want, "step \(step)")
            guard shown == want else { return }
        }
    }

    /// A row's cells as `r` (reversed) and `.`, wide characters once, `?` for a background colour (drawn
    /// reversed where colours are off); `isReversed` says of a column whether it is reversed.
    static func marks(_ grid: CellGrid, row y: Int, _ isReversed: (Int) -> Bool) -> String {
        String((0..<grid.width).compactMap { x -> Character? in
            if grid[x, y].isContinuation { return nil }
            if grid[x, y].style.bg != .default { return "?" }
            return isReversed(x) ? "r" : "."
        })
    }

    /// A row as the grid has it: its text, then its `marks`.
    static func drawn(_ grid: CellGrid, row y: Int) -> String {
        text(of: grid, row: y) + "|" + marks(grid, row: y) { grid[$0, y].style.attrs.contains(.reverse) }
    }

    /// A row as `screen` shows it, in the form of `drawn` for the grid that was drawn.
    static func seen(_ screen: TerminalSnapshot, row y: Int, of grid: CellGrid) -> String {
        screen.lineText(y) + "|" + marks(grid, row: y) { screen.cells[y * screen.cols + $0].attributes.contains(.reverse) }
    }

    /// A row's text as a terminal shows it: wide characters once, trailing blanks dropped.
    static func text(of grid: CellGrid, row y: Int) -> String {
        var s = ""
        for x in 0..<grid.width where !grid[x, y].isContinuation { s.append(grid[x, y].ch) }
        while s.last == " " { s.removeLast() }
        return s
    }

    /// Feeds what curses wrote to `screen` until `done` holds of it, or a second passes; the screen then.
    static func read(_ fd: Int32, into screen: VTermScreen, until done: (TerminalSnapshot) -> Bool) -> TerminalSnapshot {
        var buf = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(1)
        var snap = screen.snapshot()
        while !done(snap), Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 20) > 0 else { continue }
            let n = Glibc.read(fd, &buf, buf.count)
            if n > 0 { _ = screen.feed(Array(buf[0..<n])) }
            snap = screen.snapshot()
        }
        return snap
    }
}

/// A small seeded generator, so a failing drawing can be run again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
