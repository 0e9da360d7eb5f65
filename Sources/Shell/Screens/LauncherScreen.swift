import Config

/// The root screen: large tiles for the apps, opened by looking at one and activating it.
public struct LauncherScreen: Screen {
    public let name = "launcher"
    public let title = "Home"

    /// The tiles in reading order: id suffix, label, screen opened, a line of detail.
    public static let tiles: [(id: String, label: String, screen: String, detail: String)] = [
        ("notes", "Notes", "notes", "write and dictate"),
        ("messages", "Messages", "messages", "talk to people"),
        ("settings", "Settings", "settings", "gestures and looks"),
        ("media", "Media", "media", "music and albums"),
        ("terminal", "Terminal", "terminal", "your shell and programs"),
        ("help", "Help", "help", "gestures and phrases"),
    ]

    public init() {}

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let hint = "Look at a tile and \(activateHint(ctx)) to open it."
        c.grid.centered(hint, in: b, y: b.y + 1, style: Theme.hint)
        // Two rows of large tiles: big targets forgive gaze error, which is often a few cells.
        let area = Rect(x: b.x + 2, y: b.y + 3, w: b.w - 4, h: b.h - 4)
        let rows = area.rows(2, gap: 1)
        let rects = rows[0].columns(3, gap: 2) + rows[1].columns(3, gap: 2)
        for (i, t) in Self.tiles.enumerated() where i < rects.count {
            c.tile("launcher." + t.id, t.label, rects[i], detail: t.detail)
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let target?, _) = input,
              let tile = Self.tiles.first(where: { "launcher." + $0.id == target.id }) else { return .unhandled }
        return .open(tile.screen)
    }
}

/// How the active keymap says to activate, for hints ("open the jaw", "rest your gaze", "press Enter").
func activateHint(_ ctx: ScreenContext) -> String {
    let bound = ctx.keymap.bindings(screen: "launcher").gestures.filter { $0.1 == .activate }.map(\.0)
    if let g = bound.first, let d = ctx.gestures.first(where: { $0.name == g }) {
        if case .dwell = d.kind { return "rest your gaze on it" }
        return GestureText.describe(d).components(separatedBy: ",").first ?? g
    }
    return "press Enter"
}
