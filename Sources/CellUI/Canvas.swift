import Localization
/// What a screen draws into: the grid, the hit map, and the body area it may use.
public struct Canvas: Sendable {
    public var grid: CellGrid
    public var hitMap: HitMap
    /// The body area, between the title bar and the status line.
    public var bounds: Rect
    /// Only the targets are wanted (`layout`): a screen may skip drawing that declares none, such as a
    /// terminal pane's cells.
    public var layoutOnly = false
    /// The language the widgets' own words are drawn in (the state's catalog, set where the screen is drawn).
    public var catalog = Catalog.english

    public init(grid: CellGrid, hitMap: HitMap = HitMap(), bounds: Rect) {
        self.grid = grid; self.hitMap = hitMap; self.bounds = bounds
    }

    /// Declares a target without drawing anything.
    public mutating func target(_ id: String, _ label: String, _ rect: Rect) {
        hitMap.add(Target(id: id, label: label, rect: rect))
    }

    /// Draws text; see `CellGrid.text`.
    @discardableResult
    public mutating func text(_ s: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int = .max) -> Int {
        grid.text(s, x: x, y: y, style: style, maxWidth: maxWidth)
    }
}

/// Colours and styles used across screens, so the look stays consistent.
public enum Theme {
    public static let title = Style(fg: .white, bg: .blue, attrs: .bold)
    public static let tile = Style(fg: .cyan)
    public static let tileLabel = Style(fg: .white, attrs: .bold)
    public static let hint = Style(fg: .default, attrs: .dim)
    public static let focus = Style(fg: .black, bg: .yellow, attrs: .bold)
    public static let dwell = Style(fg: .green, attrs: .bold)
    public static let cursor = Style(fg: .white, bg: .magenta, attrs: .bold)
    public static let status = Style(fg: .white, bg: .black)
    public static let meter = Style(fg: .green, bg: .black)
    public static let warning = Style(fg: .yellow, attrs: .bold)
    public static let error = Style(fg: .red, attrs: .bold)
}

// The basic widgets. Each draws itself and declares its target in one call, so a screen cannot draw a
// control that gaze cannot reach. Apps add their own in the same shape (see docs/shell.md).
extension Canvas {
    /// A large tile: a box with a centred label and an optional second line.
    public mutating func tile(_ id: String, _ label: String, _ rect: Rect, detail: String? = nil, icon: String? = nil) {
        grid.box(rect, border: .rounded, style: Theme.tile)
        let inner = rect.inset(1)
        var lines: [(String, Style)] = []
        if let icon { lines.append((icon, Theme.tileLabel)) }
        lines.append((label, Theme.tileLabel))
        // The detail wraps rather than ending in "…": on a narrow launcher "Practice chat" must still say
        // "nobody receives it".
        if let detail { lines += Canvas.wrap(detail, width: inner.w).map { ($0, Theme.hint) } }
        let top = inner.y + max(0, (inner.h - lines.count) / 2)
        for (i, l) in lines.enumerated() where top + i < inner.maxY {
            grid.centered(l.0, in: inner, y: top + i, style: l.1)
        }
        target(id, label, rect)
    }

    /// A one- or three-row button; three rows get a box.
    public mutating func button(_ id: String, _ label: String, _ rect: Rect) {
        if rect.h >= 3 {
            grid.box(rect, style: Theme.tile)
            grid.centered(label, in: rect.inset(1), y: rect.y + rect.h / 2, style: Theme.tileLabel)
        } else {
            grid.fill(rect, " ", style: Style(attrs: .reverse))
            grid.centered(label, in: rect, y: rect.y, style: Style(attrs: [.reverse, .bold]))
        }
        target(id, label, rect)
    }

    /// Lines of text wrapped at word boundaries to the rectangle's width; returns the rows used.
    @discardableResult
    public mutating func paragraph(_ s: String, _ rect: Rect, style: Style = .plain) -> Int {
        let lines = Canvas.wrap(s, width: rect.w)
        for (i, l) in lines.prefix(rect.h).enumerated() { grid.text(l, x: rect.x, y: rect.y + i, style: style, maxWidth: rect.w) }
        return min(lines.count, rect.h)
    }

    /// Wraps text at spaces to lines of at most `width` columns (long words are cut).
    public static func wrap(_ s: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var out: [String] = []
        for para in s.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in para.split(separator: " ") {
                let w = String(word)
                let sep = line.isEmpty ? "" : " "
                if CellGrid.columns(of: line + sep + w) <= width { line += sep + w; continue }
                if !line.isEmpty { out.append(line) }
                line = CellGrid.columns(of: w) <= width ? w : CellGrid.truncate(w, to: width)
            }
            out.append(line)
        }
        return out
    }
}
