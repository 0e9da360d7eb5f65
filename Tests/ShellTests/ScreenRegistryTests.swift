import Config
import Shell
import Testing

/// One registry names the screens: the launcher's tiles, the keymap's screen sections and `layout` read it,
/// and a new screen is one entry.
@Suite struct ScreenRegistryTests {
    /// A screen added by a single registry entry, as a new app would be.
    struct ClockScreen: Screen {
        let name = "clock"
        let title = "Clock"
        func render(_ c: inout Canvas, _ ctx: ScreenContext) {
            c.text("12:00", x: c.bounds.x + 2, y: c.bounds.y + 1)
            c.button("clock.ok", "OK", Rect(x: c.bounds.x + 2, y: c.bounds.y + 3, w: 10, h: 3))
        }
    }

    @Test(arguments: InputPath.allCases)
    func aNinthTileIsLaidOutAndOpensItsScreen(_ path: InputPath) {
        let registry = ScreenRegistry.standard.adding(ScreenEntry("clock", tile: .init("Clock", "the time")) { ClockScreen() })
        var d = Driver(path, screen: "launcher")
        d.session.state = ShellState(keymap: Fixture.keymap(path == .dwell ? "dwell" : "default"), registry: registry)
        let tiles = d.state.hitMap.targets.filter { $0.id.hasPrefix("launcher.") }
        #expect(tiles.count == 9, "\(tiles.map(\.id))")
        #expect(d.text.contains("Clock") && d.text.contains("the time"), "\(d.text)")
        // Every tile is whole, on screen and apart from the others.
        for (i, a) in tiles.enumerated() {
            #expect(a.rect.w >= 12 && a.rect.h >= 3, "\(a.id) \(a.rect)")
            #expect(a.rect.maxX <= 100 && a.rect.maxY <= 30, "\(a.id) \(a.rect)")
            for b in tiles[(i + 1)...] {
                let apart = a.rect.maxX <= b.rect.x || b.rect.maxX <= a.rect.x || a.rect.maxY <= b.rect.y || b.rect.maxY <= a.rect.y
                #expect(apart, "\(a.id) overlaps \(b.id)")
            }
        }
        d.activate("launcher.clock")
        #expect(d.screen == "clock")
        #expect(d.text.contains("12:00"))
    }

    @Test func theStandardLauncherKeepsItsEightTilesInTheirOrder() {
        let s = Fixture.state()
        let ids = s.hitMap.targets.map(\.id).filter { $0.hasPrefix("launcher.") }
        #expect(ids == ["launcher.notes", "launcher.messages", "launcher.settings", "launcher.media", "launcher.terminal", "launcher.desktop", "launcher.help", "launcher.phrases"])
    }

    @Test func manyTilesStillFit() {
        var registry = ScreenRegistry.standard
        for k in 0..<6 { registry = registry.adding(ScreenEntry("extra\(k)", tile: .init("Extra \(k)", "more")) { ClockScreen() }) }
        let s = ShellState(keymap: Fixture.keymap("default"), registry: registry)
        let tiles = s.hitMap.targets.filter { $0.id.hasPrefix("launcher.") }
        #expect(tiles.count == 14)
        #expect(tiles.allSatisfy { $0.rect.h >= 3 && $0.rect.w >= 12 }, "\(tiles.map(\.rect))")
    }

    @Test func keymapsMayHaveASectionForEveryRegisteredScreen() {
        #expect(ScreenRegistry.standard.names.contains("quit"))
        #expect(ScreenRegistry.standard.names == ScreenRegistry.standard.names.sorted())
        #expect(Set(ScreenRegistry.standard.names).count == ScreenRegistry.standard.entries.count, "no name twice")
    }
}
