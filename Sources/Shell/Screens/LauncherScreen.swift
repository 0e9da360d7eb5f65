import Config
import Localization
import TrackingCore

/// The root screen: large tiles for the apps, opened by looking at one and activating it. The tiles are the
/// registry's (`ScreenRegistry.tiles`), laid out in as many rows of up to four as they need.
public struct LauncherScreen: Screen {
    public let name = "launcher"
    public let title = N_("Home")
    /// Nothing on it moves with time: no tick is asked for.
    public var wantsTicks: Bool { false }

    public init() {}

    /// Rows and columns for `n` tiles: three to a row up to six (the tiles stay wide), else up to four.
    static func grid(_ n: Int) -> (rows: Int, columns: Int) {
        guard n > 0 else { return (0, 0) }
        if n <= 3 { return (1, n) }
        if n <= 6 { return (2, 3) }
        let rows = (n + 3) / 4
        return (rows, (n + rows - 1) / rows)
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let hint = "Look at a tile and \(activateHint(ctx)) to open it."
        c.grid.centered(hint, in: b, y: b.y + 1, style: Theme.hint)
        // Large tiles: big targets forgive gaze error, which is often a few cells.
        let tiles = ctx.screens.tiles
        let (rows, columns) = Self.grid(tiles.count)
        guard rows > 0 else { return }
        let area = Rect(x: b.x + 2, y: b.y + 3, w: b.w - 4, h: b.h - 4)
        let rects = area.rows(rows, gap: 1).flatMap { $0.columns(columns, gap: 2) }
        for (t, r) in zip(tiles, rects) {
            c.tile("launcher." + t.screen, ctx.tr(t.tile.label), r, detail: ctx.tr(t.tile.detail))
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let target?, _) = input, target.id.hasPrefix("launcher."),
              let tile = ctx.screens.tiles.first(where: { "launcher." + $0.screen == target.id }) else { return .unhandled }
        return .open(tile.screen)
    }
}

/// The first gesture the keymap binds to `action` on `screen`, with its definition.
func boundGesture(_ action: Action, _ ctx: ScreenContext, screen: String) -> GestureDefinition? {
    guard let g = ctx.keymap.bindings(screen: screen).gestures.first(where: { $0.1 == action })?.0 else { return nil }
    return ctx.gestures.first { $0.name == g }
}

/// How the commit gesture bound on `screen` is made, in a few words ("stick the tongue out"); nil when none is.
func commitHint(_ ctx: ScreenContext, screen: String) -> String? {
    guard let d = boundGesture(.commitWord, ctx, screen: screen) else { return nil }
    if case .dwell = d.kind { return nil }
    return GestureText.movement(d)
}

/// How the active keymap says to activate, for hints ("open the jaw", "rest your gaze", "press Enter").
func activateHint(_ ctx: ScreenContext) -> String {
    guard let d = boundGesture(.activate, ctx, screen: "launcher") else { return "press Enter" }
    if case .dwell = d.kind { return "rest your gaze on it" }
    return GestureText.movement(d)
}
