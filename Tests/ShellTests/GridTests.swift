import Shell
import Testing

@Suite struct GridTests {
    @Test func textClipsAndHandlesWideCharacters() {
        var g = CellGrid(Size(width: 6, height: 2))
        #expect(g.text("ab漢字", x: 0, y: 0) == 6)
        #expect(g.lines[0] == "ab漢字")
        #expect(g[3, 0].isContinuation)
        // A wide character that would straddle the edge becomes a space.
        g.text("xyz漢", x: 0, y: 1, maxWidth: 4)
        #expect(g.lines[1] == "xyz   ")
        // Overwriting the second half of a wide character blanks its first half.
        g.text("Q", x: 3, y: 0)
        #expect(g.lines[0] == "ab Q字")
    }

    /// No write leaves half of a wide character: the other half becomes a blank, or a terminal draws the
    /// character over its neighbour (found by `CursesDrawTests` drawing random grids).
    @Test func noWriteLeavesHalfAWideCharacter() {
        func valid(_ g: CellGrid) -> Bool {
            (0..<g.height).allSatisfy { y in
                (0..<g.width).allSatisfy { x in
                    let wide = CellGrid.columns(of: g[x, y].ch) == 2
                    return g[x, y].isContinuation == (x > 0 && CellGrid.columns(of: g[x - 1, y].ch) == 2)
                        && (!wide || g[x + 1, y].isContinuation)
                }
            }
        }
        var g = CellGrid(Size(width: 8, height: 1))
        g.text("漢字ab", x: 0, y: 0)
        // A wide character's right half on another's left half.
        g.text("中", x: 1, y: 0)
        #expect(g.lines[0] == " 中 ab  ")
        #expect(valid(g))
        // A fill cutting one at either edge.
        g.text("漢字", x: 2, y: 0)
        g.fill(Rect(x: 3, y: 0, w: 2, h: 1))
        #expect(g.lines[0] == "        ")
        #expect(valid(g))
        // One cell written over either half.
        g.text("漢字", x: 0, y: 0)
        g[1, 0] = Cell("x")
        g[2, 0] = Cell("y")
        #expect(g.lines[0] == " xy     ")
        #expect(valid(g))
    }

    /// A cell has no padding bytes: equal cells have equal bytes, which the terminal's diff compares first.
    @Test func aCellFillsItsStride() {
        #expect(MemoryLayout<Cell>.size == MemoryLayout<Cell>.stride)
        var a = Cell("x", .bold), b = Cell("y", .bold)
        b.ch = "x"
        #expect(withUnsafeBytes(of: &a) { pa in withUnsafeBytes(of: &b) { pa.elementsEqual($0) } })
        b.ch = Cell.continuation
        #expect(b.isContinuation)
    }

    @Test func outOfBoundsWritesAreIgnored() {
        var g = CellGrid(Size(width: 3, height: 1))
        g.text("hello", x: -2, y: 0)
        g.text("x", x: 0, y: 5)
        #expect(g.lines == ["llo"])
    }

    @Test func boxAndBar() {
        var g = CellGrid(Size(width: 8, height: 3))
        g.box(Rect(x: 0, y: 0, w: 8, h: 3), title: "T")
        #expect(g.lines == ["┌─ T ──┐", "│      │", "└──────┘"])
        g.bar(x: 1, y: 1, width: 4, fraction: 0.5)
        #expect(g.lines[1] == "│██░░  │")
        g.bar(x: 1, y: 1, width: 4, fraction: 0.25 + 1.0 / 32)
        #expect(g.lines[1] == "│█▏░░  │")
    }

    @Test func truncateAndWrap() {
        #expect(CellGrid.truncate("abcdef", to: 4) == "abc…")
        #expect(CellGrid.truncate("abc", to: 4) == "abc")
        #expect(Canvas.wrap("one two three", width: 7) == ["one two", "three"])
    }

    @Test func hitMapTopmostAndJSON() {
        var m = HitMap()
        m.add(Target(id: "under", label: "U", rect: Rect(x: 0, y: 0, w: 10, h: 10)))
        m.add(Target(id: "over", label: "O \"q\"", rect: Rect(x: 2, y: 2, w: 2, h: 2)))
        #expect(m.hit(CellPoint(x: 2, y: 3))?.id == "over")
        #expect(m.hit(CellPoint(x: 5, y: 5))?.id == "under")
        #expect(m.hit(CellPoint(x: 10, y: 0)) == nil)
        #expect(m.json.contains(#"{"id": "over", "label": "O \"q\"", "x": 2, "y": 2, "w": 2, "h": 2}"#))
    }

    @Test func layoutOfLauncherMatchesItsTiles() {
        let s = Fixture.state()
        let ids = s.hitMap.targets.map(\.id)
        #expect(ids == ["launcher.notes", "launcher.messages", "launcher.settings", "launcher.media", "launcher.terminal", "launcher.desktop", "launcher.help", "launcher.phrases"])
        for t in s.hitMap.targets {
            #expect(t.rect.w >= 20 && t.rect.h >= 5, "tiles are large for gaze: \(t.id) is \(t.rect)")
        }
    }
}
