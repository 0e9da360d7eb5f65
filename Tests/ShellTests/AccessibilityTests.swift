import Config
import Shell
import Testing
import TrackingCore

@Suite struct ThemeTests {
    /// The grid with colours removed, as a terminal without colour (or NO_COLOR) shows it.
    static func colourless(_ g: CellGrid) -> [[Cell]] {
        (0..<g.height).map { y in (0..<g.width).map { x in var c = g[x, y]; c.style = c.style.withoutColour; return c } }
    }

    /// Renders the launcher with and without focus on Notes in `theme`; the focused target's cells differ in
    /// attributes or characters even with every colour removed.
    @Test(arguments: ThemeKind.allCases)
    func focusShowsWithoutColour(theme: ThemeKind) throws {
        var s = Fixture.state()
        s.settings.theme = theme
        let plain = Self.colourless(render(s, size: s.size).0)
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        #expect(s.focus.focused == "launcher.notes")
        let focused = Self.colourless(render(s, size: s.size).0)
        let t = try #require(s.hitMap.target(id: "launcher.notes"))
        var differing = 0, cells = 0
        for y in t.rect.y..<t.rect.maxY { for x in t.rect.x..<t.rect.maxX {
            cells += 1
            if plain[y][x] != focused[y][x] { differing += 1 }
        } }
        // Every cell of the target: the whole tile reads as focused, not one corner of it.
        #expect(differing == cells, "\(theme): \(differing) of \(cells) cells differ without colour")
        // Outside the target (and the status line, which shows the gaze) nothing changed.
        let other = try #require(s.hitMap.target(id: "launcher.messages"))
        #expect(plain[other.rect.y + 1][other.rect.x + 1] == focused[other.rect.y + 1][other.rect.x + 1])
    }

    /// A one-row button is already reversed; focus on it must still change something besides colour.
    @Test func focusOnAReversedCellUnderlinesIt() {
        let reversed = Style(attrs: [.reverse, .bold])
        let f = ThemeKind.focused(reversed)
        #expect(f.withoutColour != reversed)
        #expect(f.attrs.contains(.underline))
        #expect(ThemeKind.focused(.plain).attrs.contains(.reverse))
    }

    /// Dwell progress is drawn with bar characters, so it shows without colour too: along the tile's bottom
    /// border, with the label's row left as it was.
    @Test func dwellShowsByCharacters() {
        var s = Fixture.state("dwell")
        s.settings.theme = .highContrast
        let before = render(s, size: s.size).0
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        s.tracking.dwellTarget = "launcher.notes"
        s.tracking.dwellProgress = 0.5
        let after = render(s, size: s.size).0
        guard let t = s.hitMap.target(id: "launcher.notes") else { Issue.record("no target"); return }
        let row = t.rect.maxY - 1
        let chars = (t.rect.x + 1..<t.rect.maxX - 1).map { after[$0, row].ch }
        #expect(chars.contains("█"), "\(chars)")
        #expect(before.lines[row] != after.lines[row])
        for y in t.rect.y..<row { #expect(before.lines[y] == after.lines[y], "row \(y) of the tile is unchanged") }
    }

    @Test func highContrastDropsDimAndWeakColours() {
        let m = ThemeKind.highContrast.map(Style(fg: .cyan, bg: .blue, attrs: .dim))
        #expect(m == Style(fg: .white, bg: .black))
        #expect(ThemeKind.highContrast.map(ThemeKind.focused(.plain)).attrs.contains(.reverse))
    }

    @Test func colourBlindSafeHasNoRedOrGreen() {
        var s = Fixture.state()
        s.settings.theme = .colourBlindSafe
        s.tracking.meters.jaw = 0.8
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        let g = render(s, size: s.size).0
        let used = Set(g.cells.flatMap { [$0.style.fg, $0.style.bg] })
        #expect(!used.contains(.red) && !used.contains(.green), "\(used)")
    }

    @Test func largeTargetsMakeKeysTallerWhereThereIsRoom() throws {
        var s = Fixture.state()
        s.stack.append(NoteEditorScreen())
        s.relayout()
        let normal = try #require(s.hitMap.targets.first { $0.id.hasPrefix("note-editor.keyboard.key.") })
        s.settings.largeTargets = true
        s.relayout()
        let large = try #require(s.hitMap.targets.first { $0.id.hasPrefix("note-editor.keyboard.key.") })
        #expect(large.rect.h > normal.rect.h)
        // At the smallest screen there is no room: keys keep their size rather than squeeze the text away.
        var small = Fixture.state(size: Size.minimum)
        small.stack.append(NoteEditorScreen())
        small.relayout()
        let a = small.hitMap.targets.first { $0.id.hasPrefix("note-editor.keyboard.key.") }?.rect.h
        small.settings.largeTargets = true
        small.relayout()
        #expect(small.hitMap.targets.first { $0.id.hasPrefix("note-editor.keyboard.key.") }?.rect.h == a)
    }
}

@Suite struct AccessSettingsTests {
    @Test func themeLargeTargetsAndBellRoundTrip() {
        var s = ShellSettings()
        s.theme = .colourBlindSafe
        s.largeTargets = true
        s.bellOnActivate = true
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(problems.isEmpty)
        #expect(back == s)
        #expect(s.toml.contains("theme = \"colour-blind-safe\"") && s.toml.contains("bell_on_activate = true"))
    }

    @Test func unknownThemeIsReportedWithTheLineAndTheDefaultKept() {
        let (s, problems) = ShellSettings.parse("large_targets = true\ntheme = \"neon\"\n", file: "settings.toml")
        #expect(s.theme == .standard)
        #expect(s.largeTargets)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("settings.toml:2") == true, "\(problems)")
        #expect(problems.first?.contains("high-contrast") == true)
    }

    @Test func settingsScreenChangesThemeBellAndLargeTargets() throws {
        var s = Fixture.state()
        s.stack.append(SettingsScreen(tab: "access"))
        s.relayout()
        for id in ["settings.theme.high-contrast", "settings.large", "settings.bell"] {
            let t = try #require(s.hitMap.target(id: id), "no \(id)")
            var screen = s.top
            let r = screen.handle(.action(.activate, target: t, gaze: nil), s.context)
            s.stack[s.stack.count - 1] = screen
            guard case .settingsChanged(let n)? = r.effects.first else { Issue.record("\(id) changed nothing"); continue }
            s.settings = n
        }
        #expect(s.settings.theme == .highContrast && s.settings.largeTargets && s.settings.bellOnActivate)
    }

    /// Usage statistics are turned off from the Settings screen too, not only in settings.toml.
    @Test func settingsScreenTurnsUsageStatisticsOff() throws {
        var s = Fixture.state()
        s.stack.append(SettingsScreen(tab: "access"))
        s.relayout()
        #expect(s.settings.recordMetrics)
        let t = try #require(s.hitMap.target(id: "settings.metrics"), "no usage statistics toggle")
        var screen = s.top
        let r = screen.handle(.action(.activate, target: t, gaze: nil), s.context)
        guard case .settingsChanged(let n)? = r.effects.first else { Issue.record("the toggle changed nothing"); return }
        #expect(!n.recordMetrics)
        #expect(n.toml.contains("record_metrics = false"))
    }
}

@Suite struct DescribeChangesTests {
    @Test func firstViewSaysScreenAndFocus() {
        let v = PlainView(screens: ["Home"], focus: "Notes")
        #expect(describeChanges(nil, v) == ["screen opened Home", "focus on Notes"])
    }

    @Test func nothingChangedSaysNothing() {
        let v = PlainView(screens: ["Home"], focus: "Notes", fields: [PlainField(id: "f", label: "Note", text: "hi")])
        #expect(describeChanges(v, v).isEmpty)
    }

    @Test func activationThenNewScreen() {
        let old = PlainView(screens: ["Home"], focus: "Notes", labels: ["launcher.notes": "Notes"])
        var new = PlainView(screens: ["Home", "Notes"], focus: nil,
                            performed: [ActionRecord(t: 1, action: "open", target: "launcher.notes", screen: "notes")])
        #expect(describeChanges(old, new) == ["activated Notes", "screen opened Notes"])
        new.bell = true
        #expect(describeChanges(old, new).first == "activated Notes\u{07}")
        let back = PlainView(screens: ["Home"], focus: "Notes",
                             performed: [ActionRecord(t: 2, action: "back", target: "notes", screen: "launcher")])
        #expect(describeChanges(new, back) == ["back to Home", "focus on Notes"])
    }

    @Test func typingDeletingAndChangingText() {
        func v(_ t: String) -> PlainView { PlainView(screens: ["Note"], fields: [PlainField(id: "f", label: "Note", text: t)]) }
        #expect(describeChanges(v("how"), v("how to")) == ["typed \" to\", Note: \"how to\""])
        #expect(describeChanges(v("how to"), v("how t")) == ["deleted \"o\", Note: \"how t\""])
        #expect(describeChanges(v("ho"), v("How ")) == ["changed, Note: \"How \""])
        #expect(describeChanges(v("a"), v("a\nb")) == ["typed \"\\nb\", Note: \"a\\nb\""])
    }

    @Test func suggestionCommittedByTongueNamesTheFirstSuggestion() {
        let old = PlainView(screens: ["Note"], labels: ["e.suggestion.0": "★ How", "e.suggestion.1": "Hope"])
        let new = PlainView(screens: ["Note"],
                            performed: [ActionRecord(t: 1, action: "commit-word", target: "e.keyboard.key.o", screen: "note-editor")])
        #expect(describeChanges(old, new) == ["suggestion committed: How"])
        let picked = PlainView(screens: ["Note"],
                               performed: [ActionRecord(t: 1, action: "commit-word", target: "e.suggestion.1", screen: "note-editor")])
        #expect(describeChanges(old, picked) == ["suggestion committed: Hope"])
    }

    @Test func dictationAndNoticesAndNoEscapes() {
        let old = PlainView(screens: ["Note"])
        let new = PlainView(screens: ["Note"], dictating: true, notice: "Mic \u{1B}[31mred\u{1B}[0m")
        let lines = describeChanges(old, new)
        #expect(lines.first == "dictation on")
        #expect(lines.count == 2)
        #expect(!lines.joined().unicodeScalars.contains("\u{1B}"))
        #expect(describeChanges(new, old) == ["dictation off"])
    }

    /// The view of a real state: the focused label, the open screens and the note's text.
    @Test func viewOfAState() {
        var s = Fixture.state()
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.notes", in: s), at: 1))
        s.stack.append(NoteEditorScreen(text: "hello"))
        s.relayout()
        let v = PlainView(s)
        #expect(v.screens.count == 2)
        #expect(v.fields == [PlainField(id: "note-editor.text", label: "Note", text: "hello")])
    }
}
