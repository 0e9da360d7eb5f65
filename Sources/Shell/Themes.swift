import Localization

/// A colour theme for the whole shell, chosen in Settings or with `--theme`.
///
/// Themes only change colours and dimming: every cue that matters (focus, dwell, selection) is also shown by
/// reverse video, underline or characters, so it survives any theme, `NO_COLOR` and colour blindness.
public enum ThemeKind: String, Sendable, Equatable, CaseIterable {
    case standard = "default"
    /// White and yellow on black, nothing dimmed.
    case highContrast = "high-contrast"
    /// No red against green: green becomes cyan, red becomes magenta (told apart by people with the
    /// common red-green colour blindness).
    case colourBlindSafe = "colour-blind-safe"

    /// The name shown in Settings.
    public var label: String {
        switch self {
        case .standard: return N_("Default")
        case .highContrast: return N_("High contrast")
        case .colourBlindSafe: return N_("Colour-blind safe")
        }
    }

    /// The style a cell drawn with `s` gets in this theme.
    public func map(_ s: Style) -> Style {
        switch self {
        case .standard:
            return s
        case .highContrast:
            var o = s
            o.attrs.remove(.dim)
            switch s.bg {
            case .default, .yellow, .white: break
            default: o.bg = .black
            }
            switch s.fg {
            case .default, .yellow: break
            case .black: o.fg = (o.bg == .yellow || o.bg == .white) ? .black : .white
            default: o.fg = .white
            }
            return o
        case .colourBlindSafe:
            func safe(_ c: Color) -> Color { c == .green ? .cyan : (c == .red ? .magenta : c) }
            return Style(fg: safe(s.fg), bg: safe(s.bg), attrs: s.attrs)
        }
    }

    /// Restyles every cell of `grid` for this theme.
    public func apply(to grid: inout CellGrid) {
        apply(to: &grid, in: Rect(x: 0, y: 0, w: grid.width, h: grid.height))
    }

    /// Restyles the cells of `grid` in `rect` for this theme.
    public func apply(to grid: inout CellGrid, in rect: Rect) {
        guard self != .standard else { return }
        grid.restyle(rect) { $0 = map($0) }
    }

    /// The style of a focused target's cell: reverse video (or, on a cell already reversed, underline), bold,
    /// and black on yellow where there are colours. Reverse and underline keep focus visible without colour.
    public static func focused(_ s: Style) -> Style {
        if s.attrs.contains(.reverse) {
            return Style(fg: .black, bg: .yellow, attrs: s.attrs.subtracting([.reverse, .dim]).union([.bold, .underline]))
        }
        // Reversed: the terminal swaps these, showing black text on a yellow ground.
        return Style(fg: .yellow, bg: .black, attrs: s.attrs.subtracting(.dim).union([.bold, .reverse]))
    }
}

extension Style {
    /// The style without colours (for `NO_COLOR`); attributes stay.
    public var withoutColour: Style { Style(attrs: attrs) }
}

/// Key sizes of the on-screen keyboards.
enum KeyboardLayout {
    /// Rows per key: 3 (a box) when the text area keeps `minText` rows, else 2; with large targets up to 5,
    /// as tall as the body allows while the text area keeps `minText` rows. `fixed` counts the other rows.
    static func keyHeight(body h: Int, fixed: Int, minText: Int, rows: Int, large: Bool) -> Int {
        let candidates = large ? [5, 4, 3] : [3]
        return candidates.first { h >= fixed + minText + rows * $0 } ?? 2
    }
}
