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
