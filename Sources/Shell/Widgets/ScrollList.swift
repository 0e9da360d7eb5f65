import Localization
import Config

/// One row of a scrollable list.
public struct ListRow: Sendable, Equatable {
    /// The row's target id; nil for rows that are only read (messages of a conversation).
    public var id: String?
    public var label: String
    public var detail: String?
    public var style: Style
    public init(id: String?, _ label: String, detail: String? = nil, style: Style = .plain) {
        self.id = id; self.label = label; self.detail = detail; self.style = style
    }
}

/// A scrollable list's position. Looking at the list's top or bottom quarter and performing `scroll` moves it
/// a quarter page that way; `scroll-up` / `scroll-down` and the ▲ / ▼ targets do the same.
public struct ScrollList: Sendable, Equatable {
    /// Index of the first row shown.
    public var offset = 0
    public var rowHeight: Int

    public init(rowHeight: Int = 3, offset: Int = 0) { self.rowHeight = rowHeight; self.offset = offset }

    /// Width of the scroll bar column with its ▲ / ▼ targets.
    public static let barWidth = 5

    /// Rows that fit in `rect` (the scroll bar column excluded).
    public func visible(in rect: Rect) -> Int { max(1, rect.h / max(1, rowHeight)) }

    /// A quarter page, at least one row.
    public func quarter(in rect: Rect) -> Int { max(1, visible(in: rect) / 4) }

    public func maxOffset(count: Int, in rect: Rect) -> Int { max(0, count - visible(in: rect)) }

    /// Moves by `rows` (negative: up), kept within the list; returns whether it moved.
    @discardableResult
    public mutating func scroll(by rows: Int, count: Int, in rect: Rect) -> Bool {
        let o = min(maxOffset(count: count, in: rect), max(0, offset + rows))
        defer { offset = o }
        return o != offset
    }

    /// Scrolls so the last row shows (conversations keep the newest message in view).
    public mutating func scrollToEnd(count: Int, in rect: Rect) { offset = maxOffset(count: count, in: rect) }

    /// Handles a scroll action or a ▲ / ▼ activation on the list `id` laid out in `rect`; returns whether it
    /// was for this list (true even if it was already at the end, so the shell does not act on it too).
    public mutating func handle(_ input: ScreenInput, id: String, count: Int, in rect: Rect) -> Bool {
        guard case .action(let action, let target, let gaze) = input else { return false }
        let q = quarter(in: rect)
        switch action {
        case .scroll:
            // The gaze decides the direction: the top quarter scrolls up, the bottom quarter down.
            guard let g = gaze ?? target?.rect.center, rect.contains(g) else { return false }
            if g.y < rect.y + rect.h / 4 { scroll(by: -q, count: count, in: rect); return true }
            if g.y >= rect.maxY - rect.h / 4 { scroll(by: q, count: count, in: rect); return true }
            return true
        case .scrollUp, .scrollDown:
            if let g = gaze, !rect.contains(g), target?.id.hasPrefix(id) != true { return false }
            scroll(by: action == .scrollUp ? -q : q, count: count, in: rect)
            return true
        case .activate:
            guard let t = target?.id else { return false }
            if t == id + ".up" { scroll(by: -q, count: count, in: rect); return true }
            if t == id + ".down" { scroll(by: q, count: count, in: rect); return true }
            return false
        default:
            return false
        }
    }
}

extension Canvas {
    /// A scrollable list: the rows that fit, each a target when it has an id, and a scroll bar column with
    /// ▲ / ▼ targets (`ID.up`, `ID.down`) and a thumb showing where the view is.
    public mutating func scrollList(_ id: String, _ rows: [ListRow], _ list: ScrollList, _ rect: Rect,
                                    empty: String = N_("(nothing here yet)")) {
        let bw = ScrollList.barWidth
        let body = Rect(x: rect.x, y: rect.y, w: rect.w - bw - 1, h: rect.h)
        let n = list.visible(in: rect)
        let rh = list.rowHeight
        if rows.isEmpty { grid.centered(catalog.tr(empty), in: body, y: body.y + body.h / 2, style: Theme.hint) }
        for k in 0..<n {
            let i = list.offset + k
            guard i < rows.count else { break }
            let row = rows[i]
            let r = Rect(x: body.x, y: body.y + k * rh, w: body.w, h: rh)
            if rh >= 3 {
                grid.box(r, border: .rounded, style: row.id == nil ? Theme.hint : Theme.tile)
                var x = r.x + 2
                x += grid.text(row.label, x: x, y: r.y + 1, style: row.style.attrs.isEmpty ? Theme.tileLabel : row.style,
                               maxWidth: r.w - 4)
                if let d = row.detail {
                    grid.text("  " + d, x: x, y: r.y + 1, style: Theme.hint, maxWidth: r.maxX - 2 - x)
                }
            } else {
                grid.text(row.label, x: r.x + 1, y: r.y, style: row.style, maxWidth: r.w - 2)
            }
            if let rid = row.id { target(rid, row.label, r) }
        }
        // The scroll bar: ▲ and ▼ targets at the ends, a track between them with the thumb.
        let bar = Rect(x: rect.maxX - bw, y: rect.y, w: bw, h: rect.h)
        let bh = min(3, max(1, bar.h / 4))
        let up = Rect(x: bar.x, y: bar.y, w: bw, h: bh), down = Rect(x: bar.x, y: bar.maxY - bh, w: bw, h: bh)
        let track = Rect(x: bar.x + bw / 2, y: up.maxY, w: 1, h: max(0, down.y - up.maxY))
        grid.fill(track, "│", style: Theme.hint)
        if track.h > 0 {
            let total = max(rows.count, 1)
            let th = max(1, min(track.h, track.h * n / total))
            let maxOff = max(1, rows.count - n)
            let ty = track.y + (rows.count > n ? (track.h - th) * list.offset / maxOff : 0)
            grid.fill(Rect(x: track.x, y: ty, w: 1, h: th), "█", style: Style(fg: .cyan))
        }
        button(id + ".up", "▲", up)
        button(id + ".down", "▼", down)
    }
}

/// A carousel's position: `next` / `previous` (right / left winks by default) move one card, wrapping.
public struct Carousel: Sendable, Equatable {
    public var index = 0
    public init(index: Int = 0) { self.index = index }

    public mutating func move(by d: Int, count: Int) {
        guard count > 0 else { return }
        index = ((index + d) % count + count) % count
    }

    /// Handles next/previous (when the gaze is on the carousel or nowhere) and the ◀ / ▶ targets.
    public mutating func handle(_ input: ScreenInput, id: String, count: Int) -> Bool {
        guard case .action(let action, let target, _) = input else { return false }
        let onIt = target.map { $0.id == id || $0.id.hasPrefix(id + ".") } ?? true
        switch action {
        case .next where onIt: move(by: 1, count: count); return true
        case .previous where onIt: move(by: -1, count: count); return true
        case .activate where target?.id == id + ".next": move(by: 1, count: count); return true
        case .activate where target?.id == id + ".prev": move(by: -1, count: count); return true
        default: return false
        }
    }
}

extension Canvas {
    /// A carousel: the current card large in the middle (target `ID`), the neighbours peeking at the sides,
    /// ◀ / ▶ targets (`ID.prev`, `ID.next`) and dots showing the position.
    public mutating func carousel(_ id: String, _ cards: [(title: String, detail: String)], _ c: Carousel, _ rect: Rect) {
        guard !cards.isEmpty else { return }
        let aw = 7
        let prev = Rect(x: rect.x, y: rect.y, w: aw, h: rect.h - 1)
        let next = Rect(x: rect.maxX - aw, y: rect.y, w: aw, h: rect.h - 1)
        let mid = Rect(x: prev.maxX + 1, y: rect.y, w: next.x - prev.maxX - 2, h: rect.h - 1)
        let n = cards.count
        let card = cards[c.index % n]
        // Neighbours peek at the sides only when there is room for them; otherwise the card takes it all.
        let peekW = (mid.w - 24) / 4 >= 4 && n > 1 ? (mid.w - 24) / 4 : 0
        if peekW > 0 {
            let l = cards[(c.index + n - 1) % n], r = cards[(c.index + 1) % n]
            let lr = Rect(x: mid.x, y: mid.y + 1, w: peekW, h: mid.h - 2)
            let rr = Rect(x: mid.maxX - peekW, y: mid.y + 1, w: peekW, h: mid.h - 2)
            grid.box(lr, style: Theme.hint); grid.box(rr, style: Theme.hint)
            grid.centered(l.title, in: lr.inset(1), y: lr.y + lr.h / 2, style: Theme.hint)
            grid.centered(r.title, in: rr.inset(1), y: rr.y + rr.h / 2, style: Theme.hint)
        }
        let cr = peekW > 0 ? Rect(x: mid.x + peekW + 1, y: mid.y, w: mid.w - 2 * peekW - 2, h: mid.h) : mid
        tile(id, card.title, cr, detail: card.detail)
        button(id + ".prev", "◀", prev)
        button(id + ".next", "▶", next)
        let dots = (0..<n).map { $0 == c.index % n ? "●" : "○" }.joined(separator: " ")
        grid.centered(dots, in: rect, y: rect.maxY - 1, style: Theme.hint)
    }
}
