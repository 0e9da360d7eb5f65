import Config
import TrackingCore

/// Help and onboarding: every gesture and voice phrase of the active keymap with what it does.
///
/// Generated from the keymap and the gesture definitions, so it always tells the truth about the
/// bindings in effect.
public struct HelpScreen: Screen {
    public let name = "help"
    public var title: String { onboarding ? "Welcome" : "Help" }
    /// Shown on first start; leaving it is remembered.
    public var onboarding: Bool

    public init(onboarding: Bool = false) { self.onboarding = onboarding }

    /// The help text lines for a keymap: gesture lines and voice lines.
    public static func entries(_ keymap: Keymap, gestures: [GestureDefinition])
        -> (gestures: [(how: String, does: String)], voice: [(how: String, does: String)], screens: [String]) {
        let b = keymap.bindings(screen: "")
        let g = b.gestures.map { (name, action) -> (String, String) in
            let how = gestures.first { $0.name == name }.map(GestureText.describe) ?? name
            return (how, action.summary)
        }
        // Group phrases that do the same thing: "back" / "go back".
        var byAction: [Action: [String]] = [:]
        for (p, a) in b.voice { byAction[a, default: []].append(p) }
        let v = byAction.sorted { $0.value[0] < $1.value[0] }.map { (a, ps) in
            (ps.map { "\"\($0)\"" }.joined(separator: " / "), a.summary)
        }
        var screens: [String] = []
        for (screen, sec) in keymap.screens.sorted(by: { $0.key < $1.key }) {
            for (gname, a) in sec.gestures.sorted(by: { $0.key < $1.key }) {
                let how = gestures.first { $0.name == gname }.map(GestureText.describe) ?? gname
                screens.append("On \(screen): \(how) → \(a.summary)")
            }
            for (p, a) in sec.voice.sorted(by: { $0.key < $1.key }) { screens.append("On \(screen): \"\(p)\" → \(a.summary)") }
        }
        return (g, v, screens)
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let e = Self.entries(ctx.keymap, gestures: ctx.gestures)
        var y = b.y
        if onboarding {
            c.grid.centered("Welcome to HandsFree Shell. You drive it with your face and voice.", in: b, y: y, style: Theme.tileLabel)
            y += 1
        }
        let keymapLine = "Keymap \"\(ctx.keymap.name)\": \(ctx.keymap.description)"
        c.grid.centered(keymapLine, in: b, y: y, style: Theme.hint)
        y += 2
        let area = Rect(x: b.x + 1, y: y, w: b.w - 2, h: b.maxY - y - 4)
        // Gesture descriptions are longer than phrases, so their column gets more room.
        let lw = area.w * 55 / 100
        let cols = [Rect(x: area.x, y: area.y, w: lw, h: area.h),
                    Rect(x: area.x + lw + 2, y: area.y, w: area.w - lw - 2, h: area.h)]
        // Each entry is "how" then "→ what it does", wrapped to the column so nothing is cut off.
        func column(_ r: Rect, _ heading: String, _ items: [(how: String, does: String)], _ extra: [String]) {
            var y = r.y
            c.text(heading, x: r.x, y: y, style: Theme.tileLabel, maxWidth: r.w); y += 1
            for (how, does) in items {
                let one = how + " → " + does
                let lines: [(String, Style)] = CellGrid.columns(of: "• " + one) <= r.w
                    ? [("• " + one, .plain)]
                    : Canvas.wrap("• " + how, width: r.w - 2).enumerated().map { ($0.offset == 0 ? $0.element : "  " + $0.element, Style.plain) }
                        + Canvas.wrap("→ " + does, width: r.w - 4).map { ("    " + $0, Theme.hint) }
                guard y + lines.count <= r.maxY else { break }
                for l in lines { c.text(l.0, x: r.x, y: y, style: l.1, maxWidth: r.w); y += 1 }
            }
            for line in extra {
                let lines = Canvas.wrap(line, width: r.w)
                guard y + lines.count <= r.maxY else { break }
                for l in lines { c.text(l, x: r.x, y: y, style: Theme.hint, maxWidth: r.w); y += 1 }
            }
        }
        column(cols[0], "Gestures", e.gestures, [])
        column(cols[1], "Say" + (ctx.keymap.wakePhrase.map { " (after \"\($0)\")" } ?? ""), e.voice, e.screens)
        let keys = "Keyboard: arrows move · Enter activates · Esc back · ? help · q quits on Home"
        c.grid.centered(keys, in: b, y: b.maxY - 4, style: Theme.hint)
        let label = onboarding ? "Got it, start" : "Close help"
        c.button("help.close", label, Rect(x: b.x + (b.w - 30) / 2, y: b.maxY - 3, w: 30, h: 3))
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let t?, _) = input, t.id == "help.close" else { return .unhandled }
        return Reply(navigation: .back, effects: onboarding ? [.finishedOnboarding] : [], record: "back")
    }
}
