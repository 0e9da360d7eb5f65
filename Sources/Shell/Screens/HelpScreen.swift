import Config
import Localization
import TrackingCore

/// Help and onboarding: every gesture and voice phrase of the active keymap with what it does.
///
/// Generated from the keymap and the gesture definitions, so it always tells the truth about the
/// bindings in effect.
public struct HelpScreen: Screen {
    public let name = "help"
    public var title: String { onboarding ? N_("Welcome") : N_("Help") }
    /// Nothing on it moves with time: no tick is asked for.
    public var wantsTicks: Bool { false }
    /// Shown on first start; leaving it is remembered.
    public var onboarding: Bool
    /// The page showing when the bindings do not fit (taken modulo the page count at render time, since
    /// the count depends on the terminal size).
    public var page = 0

    public init(onboarding: Bool = false) { self.onboarding = onboarding }

    /// The help text lines for a keymap: gesture lines and voice lines.
    public static func entries(_ keymap: Keymap, gestures: [GestureDefinition])
        -> (gestures: [(how: String, does: String)], voice: [(how: String, does: String)], screens: [String]) {
        let b = keymap.bindings(screen: "")
        let g = b.gestures.map { (name, action) -> (String, String) in (GestureText.describe(named: name, in: gestures), action.summary) }
        // Group phrases that do the same thing: "back" / "go back".
        var byAction: [Action: [String]] = [:]
        for (p, a) in b.voice { byAction[a, default: []].append(p) }
        let v = byAction.sorted { $0.value[0] < $1.value[0] }.map { (a, ps) in
            (ps.map { "\"\($0)\"" }.joined(separator: " / "), a.summary)
        }
        var screens: [String] = []
        for (screen, sec) in keymap.screens.sorted(by: { $0.key < $1.key }) {
            let place = Self.place(screen)
            for (gname, a) in sec.gestures.sorted(by: { $0.key < $1.key }) {
                screens.append("\(place): \(GestureText.describe(named: gname, in: gestures)) → \(a.summary)")
            }
            for (p, a) in sec.voice.sorted(by: { $0.key < $1.key }) { screens.append("\(place): \"\(p)\" → \(a.summary)") }
        }
        return (g, v, screens)
    }

    /// Where a keymap's `[screen.NAME]` section applies, in words: "While writing a note", not `note-editor`.
    static func place(_ screen: String) -> String {
        switch screen {
        case "note-editor": return "While writing a note"
        case "conversation": return "While writing a message"
        case QuitScreen.screenName: return "When asked whether to quit"
        case "launcher": return "On the home screen"
        default:
            guard let title = ScreenRegistry.standard.make(screen)?.title else { return "On another screen" }
            return "On the \(title) screen"
        }
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
        // The keys line names the carer's escape (F12): it wraps rather than lose its end at 80 columns.
        let keys = Canvas.wrap("Keys: arrows move · Enter activates · Esc back · ? help · q quits on Home · F12 restores settings",
                               width: b.w - 2)
        let area = Rect(x: b.x + 1, y: y, w: b.w - 2, h: b.maxY - y - 3 - keys.count)
        // Gesture descriptions are longer than phrases, so their column gets more room.
        let lw = area.w * 55 / 100
        let cols = [Rect(x: area.x, y: area.y, w: lw, h: area.h),
                    Rect(x: area.x + lw + 2, y: area.y, w: area.w - lw - 2, h: area.h)]
        // Each entry is "how" then "→ what it does", wrapped to the column so nothing is cut off; an entry
        // is never split across pages.
        func lines(_ width: Int, _ items: [(how: String, does: String)], _ extra: [String]) -> [[(String, Style)]] {
            var out: [[(String, Style)]] = []
            for (how, does) in items {
                let one = "• " + how + " → " + does
                out.append(CellGrid.columns(of: one) <= width
                    ? [(one, .plain)]
                    : Canvas.wrap("• " + how, width: width - 2).enumerated().map { ($0.offset == 0 ? $0.element : "  " + $0.element, Style.plain) }
                        + Canvas.wrap("→ " + does, width: width - 4).map { ("    " + $0, Theme.hint) })
            }
            for line in extra { out.append(Canvas.wrap(line, width: width).map { ($0, Theme.hint) }) }
            return out
        }
        func paginate(_ entries: [[(String, Style)]], rows: Int) -> [[[(String, Style)]]] {
            var pages: [[[(String, Style)]]] = [[]]
            var used = 0
            for e in entries {
                if used + e.count > rows, used > 0 { pages.append([]); used = 0 }
                pages[pages.count - 1].append(e)
                used += e.count
            }
            return pages
        }
        let rows = max(1, area.h - 1)
        let left = paginate(lines(cols[0].w, e.gestures, []), rows: rows)
        let right = paginate(lines(cols[1].w, e.voice, e.screens), rows: rows)
        let pages = max(left.count, right.count)
        let p = ((page % pages) + pages) % pages
        let headings = ["Gestures", "Say" + (ctx.keymap.wakePhrase.map { " (after \"\($0)\")" } ?? "")]
        for (i, col) in [left, right].enumerated() {
            let r = cols[i]
            c.text(headings[i] + (pages > 1 ? " (\(p + 1)/\(pages))" : ""), x: r.x, y: r.y, style: Theme.tileLabel, maxWidth: r.w)
            var y = r.y + 1
            if p < col.count {
                for entry in col[p] { for l in entry { c.text(l.0, x: r.x, y: y, style: l.1, maxWidth: r.w); y += 1 } }
            }
        }
        for (i, line) in keys.enumerated() {
            c.grid.centered(line, in: b, y: b.maxY - 3 - keys.count + i, style: Theme.hint)
        }
        let label = onboarding ? "Got it, start" : "Close help"
        if pages > 1 {
            let bw = min(30, (b.w - 6) / 2), x0 = b.x + (b.w - 2 * bw - 2) / 2
            c.button("help.more", "More (page \((p + 1) % pages + 1) of \(pages))", Rect(x: x0, y: b.maxY - 3, w: bw, h: 3))
            c.button("help.close", label, Rect(x: x0 + bw + 2, y: b.maxY - 3, w: bw, h: 3))
        } else {
            c.button("help.close", label, Rect(x: b.x + (b.w - 30) / 2, y: b.maxY - 3, w: 30, h: 3))
        }
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch input {
        case .action(.activate, let t?, _) where t.id == "help.close":
            return Reply(navigation: .back, effects: onboarding ? [.finishedOnboarding] : [], record: "back")
        case .action(.activate, let t?, _) where t.id == "help.more":
            page += 1
            return Reply(record: "next-page")
        case .action(.next, _, _), .action(.scrollDown, _, _):
            page += 1
            return Reply(record: "next-page")
        case .action(.previous, _, _), .action(.scrollUp, _, _):
            page -= 1
            return Reply(record: "previous-page")
        default:
            return .unhandled
        }
    }
}
