import Config

/// The root screen: large tiles for the apps, opened by looking at one and activating it. The tiles are the
/// registry's (`ScreenRegistry.tiles`), laid out in as many rows of up to four as they need.
public struct LauncherScreen: Screen {
    public let name = "launcher"
    public let title = "Home"

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
            c.tile("launcher." + t.screen, t.tile.label, r, detail: t.tile.detail)
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let target?, _) = input, target.id.hasPrefix("launcher."),
              let tile = ctx.screens.tiles.first(where: { "launcher." + $0.screen == target.id }) else { return .unhandled }
        return .open(tile.screen)
    }
}

/// How the active keymap says to activate, for hints ("open the jaw", "rest your gaze", "press Enter").
/// How the commit gesture bound on `screen` is made, in a few words ("stick the tongue out"); nil when none is.
func commitHint(_ ctx: ScreenContext, screen: String) -> String? {
    let bound = ctx.keymap.bindings(screen: screen).gestures.filter { $0.1 == .commitWord }.map(\.0)
    guard let g = bound.first, let d = ctx.gestures.first(where: { $0.name == g }) else { return nil }
    if case .dwell = d.kind { return nil }
    return GestureText.describe(d).components(separatedBy: ",").first ?? g
}

func activateHint(_ ctx: ScreenContext) -> String {
    let bound = ctx.keymap.bindings(screen: "launcher").gestures.filter { $0.1 == .activate }.map(\.0)
    if let g = bound.first, let d = ctx.gestures.first(where: { $0.name == g }) {
        if case .dwell = d.kind { return "rest your gaze on it" }
        return GestureText.describe(d).components(separatedBy: ",").first ?? g
    }
    return "press Enter"
}
