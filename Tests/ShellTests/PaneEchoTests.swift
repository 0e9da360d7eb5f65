import Config
import Localization
import Shell
import TerminalModel
import Testing
import TrackingCore

/// A key's echo is drawn as the Terminal screen's pane alone over the last drawing (`renderPane`), so the
/// pane must come out exactly as a full drawing would draw it, and nothing else may change.
@Suite struct PaneEchoTests {
    /// A small deterministic generator, so a failure names a seed that repeats it.
    struct Mix {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
    }

    /// A view of `rows`×`cols` with random text, colours and wide characters, the cursor somewhere in it.
    static func view(rows: Int, cols: Int, _ mix: inout Mix, from old: TerminalView? = nil) -> TerminalView {
        var v = old ?? TerminalView.blank(rows: rows, cols: cols, program: "bash")
        v.sink = [.showsPane, .ownsProgram]
        let letters = Array("abcdefghijklmnopqrstuvwxyz $#-/.") + ["é", "ß"]
        // An echo changes a few cells; now and then a whole line scrolls in.
        for _ in 0..<(mix.next(4) == 0 ? cols : 1 + mix.next(3)) {
            let row = mix.next(rows), col = mix.next(cols - 1)
            let i = row * cols + col
            if mix.next(12) == 0 {
                v.snapshot.cells[i] = TerminalCell(text: "界", width: 2)
                v.snapshot.cells[i + 1] = TerminalCell(text: "", width: 0)
                continue
            }
            // A cell that was the left half of a wide character is made whole again with its right half.
            if v.snapshot.cells[i].width == 2 { v.snapshot.cells[i + 1] = TerminalCell() }
            if v.snapshot.cells[i].width == 0, col > 0 { v.snapshot.cells[i - 1] = TerminalCell() }
            let colour: TerminalColor = mix.next(3) == 0 ? .indexed(UInt8(mix.next(16))) : .default
            v.snapshot.cells[i] = TerminalCell(text: String(letters[mix.next(letters.count)]),
                                               attributes: mix.next(5) == 0 ? [.bold] : [], foreground: colour)
        }
        v.snapshot.cursor = TerminalPosition(row: mix.next(rows), col: mix.next(cols))
        v.snapshot.cursorVisible = mix.next(10) != 0
        return v
    }

    /// The first cell of `r` where `a` and `b` differ, as "x,y: a → b"; nil when none does.
    static func firstDifference(_ a: CellGrid, _ b: CellGrid, in r: Rect) -> String? {
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX where a[x, y] != b[x, y] {
                return "\(x),\(y): \(a[x, y].ch) \(a[x, y].style) → \(b[x, y].ch) \(b[x, y].style)"
            }
        }
        return nil
    }

    static func terminalState(theme: ThemeKind = .standard) throws -> (ShellState, Rect) {
        var s = Fixture.state()
        s.settings.theme = theme
        s.show(screen: "terminal")
        let r = try #require(s.hitMap.target(id: TerminalScreen.paneID)).rect
        return (s, r)
    }

    @Test(arguments: [ThemeKind.standard, .highContrast, .colourBlindSafe])
    func echoesDrawnPaneAloneMatchAFullDrawingInsideThePaneAndChangeNothingOutside(theme: ThemeKind) throws {
        let (start, r) = try Self.terminalState(theme: theme)
        var mix = Mix(state: 7)
        var s = start
        var v = Self.view(rows: r.h, cols: r.w, &mix)
        _ = reduce(&s, .terminal(v))
        var shown = render(s, size: s.size).0
        var drawn = v
        for step in 0..<150 {
            v = Self.view(rows: r.h, cols: r.w, &mix, from: v)
            var probe = s
            probe.terminal = v
            // Drawn pane after pane with no full drawing between: a row the last echo missed would show.
            let pane = try #require(renderPane(probe, over: shown, drawn: step % 3 == 0 ? nil : drawn),
                                    "no pane drawing at step \(step)")
            let full = render(probe, size: probe.size).0
            let inside = Self.firstDifference(pane, full, in: r)
            #expect(inside == nil, "the pane at step \(step)")
            var outside = pane, before = shown
            outside.fill(r, "x"); before.fill(r, "x")
            #expect(Self.firstDifference(outside, before, in: outside.bounds) == nil, "outside the pane at step \(step)")
            if inside != nil { return }
            shown = pane
            drawn = v
        }
    }

    @Test func thePaneIsLeftToAFullDrawingWhenAnythingElseIsDrawnOnIt() throws {
        let (s0, r) = try Self.terminalState()
        var mix = Mix(state: 3)
        var s = s0
        _ = reduce(&s, .terminal(Self.view(rows: r.h, cols: r.w, &mix)))
        let last = render(s, size: s.size).0
        #expect(renderPane(s, over: last) != nil)

        var focused = s
        focused.focus.set(TerminalScreen.paneID, at: 0)
        #expect(renderPane(focused, over: last) == nil, "focus is drawn on the pane")

        var ended = s
        ended.terminal?.ended = .verbatim("bash ended (exit 0)")
        #expect(renderPane(ended, over: last) == nil, "an ended program's screen lays out again")

        var otherSize = s
        _ = reduce(&otherSize, .resized(Size(width: 120, height: 40)))
        #expect(renderPane(otherSize, over: last) == nil, "the last drawing was at another size")

        var launcher = Fixture.state()
        launcher.terminal = s.terminal
        #expect(renderPane(launcher, over: last) == nil, "not on the Terminal screen")
    }
}
