import TerminalModel

/// A terminal colour; `.default` is the terminal's own foreground or background.
public enum Color: Sendable, Equatable, Hashable {
    case `default`, black, red, green, yellow, blue, magenta, cyan, white
    /// An entry of the 256-colour palette, as a program on the Terminal screen set it: 0–7 the basic colours,
    /// 8–15 their bright forms, then a 6×6×6 cube and 24 greys. A terminal with fewer colours shows `basic`.
    case indexed(UInt8)

    /// The eight basic colours in palette order.
    public static let basics: [Color] = [.black, .red, .green, .yellow, .blue, .magenta, .cyan, .white]

    /// The nearest of the eight basic colours (itself for a basic colour or the default).
    public var basic: Color {
        guard case .indexed(let i) = self else { return self }
        if i < 16 { return Color.basics[Int(i % 8)] }
        if i >= 232 { return i < 244 ? .black : .white }
        let n = Int(i) - 16
        let on = { (level: Int) in level >= 3 }   // cube levels 0…5: 3 and up is the bright half
        return Color.basics[(on(n / 36) ? 1 : 0) | (on(n / 6 % 6) ? 2 : 0) | (on(n % 6) ? 4 : 0)]
    }

    /// A number per colour: 0 the default, 1–8 the basic colours, 9–264 the palette entries.
    public var code: UInt16 {
        switch self {
        case .default: return 0
        case .indexed(let i): return 9 + UInt16(i)
        default: return UInt16(Color.basics.firstIndex(of: self) ?? 0) + 1
        }
    }

    /// The palette entry nearest an RGB colour: the xterm 6×6×6 cube or its grey ramp, whichever is closer.
    public static func nearest(r: UInt8, g: UInt8, b: UInt8) -> Color {
        let levels = [0, 95, 135, 175, 215, 255]
        func cube(_ v: UInt8) -> Int { levels.indices.min { abs(levels[$0] - Int(v)) < abs(levels[$1] - Int(v)) } ?? 0 }
        let (cr, cg, cb) = (cube(r), cube(g), cube(b))
        let dist = { (x: Int, y: Int, z: Int) in
            (x - Int(r)) * (x - Int(r)) + (y - Int(g)) * (y - Int(g)) + (z - Int(b)) * (z - Int(b))
        }
        let cubeDist = dist(levels[cr], levels[cg], levels[cb])
        let avg = (Int(r) + Int(g) + Int(b)) / 3
        let grey = min(23, max(0, (avg - 8 + 5) / 10))
        let gv = 8 + grey * 10
        if dist(gv, gv, gv) < cubeDist { return .indexed(UInt8(232 + grey)) }
        return .indexed(UInt8(16 + 36 * cr + 6 * cg + cb))
    }
}

/// Text attributes of a cell.
public struct Attributes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = Attributes(rawValue: 1)
    public static let reverse = Attributes(rawValue: 2)
    public static let underline = Attributes(rawValue: 4)
    public static let dim = Attributes(rawValue: 8)
}

/// How a cell is drawn: colours and attributes.
public struct Style: Sendable, Equatable, Hashable {
    public var fg: Color
    public var bg: Color
    public var attrs: Attributes
    public init(fg: Color = .default, bg: Color = .default, attrs: Attributes = []) {
        self.fg = fg; self.bg = bg; self.attrs = attrs
    }
    public static let plain = Style()
    public static let bold = Style(attrs: .bold)
    public static let dim = Style(attrs: .dim)
    public static let reverse = Style(attrs: .reverse)
}

/// One terminal cell: a character (a whole grapheme) and its style.
public struct Cell: Sendable, Equatable, Hashable {
    public var ch: Character { didSet { isContinuation = Cell.isContinuation(ch) } }
    public var style: Style
    /// Whether `ch` is `continuation`, kept beside it: the grid asks of the cells around every write, and a
    /// byte is read for a fraction of what comparing a `Character` costs.
    public private(set) var isContinuation: Bool
    /// Fills the cell to its stride, always zero: with no padding bytes left to chance, equal cells have equal
    /// bytes, and the terminal's row-by-row `memcmp` finds unchanged rows (an optimised build wrote some cells
    /// whole and others field by field, so equal rows differed in their padding and were compared cell by cell).
    private var spare: (UInt8, UInt8) = (0, 0)
    public init(_ ch: Character = " ", _ style: Style = .plain) {
        self.ch = ch; self.style = style; isContinuation = Cell.isContinuation(ch)
    }

    /// A cell whose writer knows whether it is a right half: the pane makes thousands a drawing.
    public init(_ ch: Character, _ style: Style, isContinuation: Bool) {
        self.ch = ch; self.style = style; self.isContinuation = isContinuation
    }

    public static func == (a: Cell, b: Cell) -> Bool { a.ch == b.ch && a.style == b.style }
    public func hash(into h: inout Hasher) { h.combine(ch); h.combine(style) }

    /// Marks the second cell of a double-width character; terminals draw nothing there.
    public static let continuation: Character = "\u{0}"
    /// Whether `ch` is `continuation`, by its first byte (half the time of comparing it): NUL is a control
    /// character, which always stands alone as a grapheme.
    private static func isContinuation(_ ch: Character) -> Bool { ch.utf8.first == 0 }
    public static let blank = Cell()
}

/// An in-memory screen: a grid of cells that screens draw into and the terminal diffs against.
///
/// Writes outside the grid are clipped, so drawing code never has to check bounds.
public struct CellGrid: Sendable, Equatable {
    public let size: Size
    public private(set) var cells: [Cell]

    /// Whether the grid keeps no cells (`discarding`).
    private var discards = false

    public init(_ size: Size) {
        self.size = Size(width: max(0, size.width), height: max(0, size.height))
        cells = Array(repeating: .blank, count: self.size.width * self.size.height)
    }

    /// A grid of `size` that keeps no cells: writes are dropped and every cell reads as a blank. `layout`
    /// draws into one, since it wants only the targets: making and freeing a screen of cells was a third of
    /// its cost, paid at every echoed key.
    public static func discarding(_ size: Size) -> CellGrid {
        CellGrid(size: Size(width: max(0, size.width), height: max(0, size.height)), discarding: true)
    }

    private init(size: Size, discarding: Bool) {
        self.size = size
        cells = []
        discards = discarding
    }

    public var width: Int { size.width }
    public var height: Int { size.height }
    public var bounds: Rect { Rect(x: 0, y: 0, w: width, h: height) }

    public subscript(x: Int, y: Int) -> Cell {
        get { (!discards && x >= 0 && y >= 0 && x < width && y < height) ? cells[y * width + x] : .blank }
        set {
            guard !discards && x >= 0 && y >= 0 && x < width && y < height else { return }
            let i = y * width + x
            // Never half of a wide character: a cell written over one half leaves the other half blank, or a
            // terminal would draw the wide character over its neighbour, or a stray half of it.
            if !newValue.isContinuation, x > 0, cells[i].isContinuation { cells[i - 1] = Cell(" ", cells[i - 1].style) }
            if x + 1 < width, cells[i + 1].isContinuation { cells[i + 1] = Cell(" ", cells[i + 1].style) }
            cells[i] = newValue
        }
    }

    /// Writes a cell as it is, without the subscript's mending of wide characters around it: for a writer that
    /// fills a blank region left to right from whole cells (the pane, from the emulator's rows), where there is
    /// nothing to mend and the checks were a third of the pane's drawing.
    @inline(__always)
    public mutating func place(_ cell: Cell, x: Int, y: Int) {
        if !discards && x >= 0 && y >= 0 && x < width && y < height { cells[y * width + x] = cell }
    }

    /// How many columns a character takes: 2 for East Asian wide characters and emoji, 0 for control characters.
    public static func columns(of ch: Character) -> Int {
        guard let s = ch.unicodeScalars.first else { return 0 }
        let v = s.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        return CharacterWidth.isWide(v) ? 2 : 1
    }

    /// The number of columns a string takes.
    public static func columns(of s: String) -> Int { s.reduce(0) { $0 + columns(of: $1) } }

    /// Cuts a string to at most `width` columns, ending with `…` when something was cut.
    public static func truncate(_ s: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if columns(of: s) <= width { return s }
        var out = "", used = 0
        for ch in s {
            let c = columns(of: ch)
            if used + c > width - 1 { break }
            out.append(ch); used += c
        }
        return out + "…"
    }

    /// Draws text at (x, y), clipped to `maxWidth` columns and the grid; returns the columns used.
    ///
    /// A wide character that would straddle the clip edge is replaced by a space, never half drawn.
    @discardableResult
    public mutating func text(_ s: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int = .max) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(maxWidth, width - x)
        var cx = x, used = 0
        for ch in s {
            let c = CellGrid.columns(of: ch)
            if c == 0 { continue }
            if used + c > limit {
                if used < limit && c == 2 { self[cx, y] = Cell(" ", style); used += 1 }
                break
            }
            if cx >= 0 {
                // The subscript blanks the other half of any wide character these cells cut.
                self[cx, y] = Cell(ch, style)
                if c == 2 { self[cx + 1, y] = Cell(Cell.continuation, style) }
            }
            cx += c; used += c
        }
        return used
    }

    /// Draws text centred in a row of `rect`.
    public mutating func centered(_ s: String, in rect: Rect, y: Int, style: Style = .plain) {
        let t = CellGrid.truncate(s, to: rect.w)
        let x = rect.x + max(0, (rect.w - CellGrid.columns(of: t)) / 2)
        text(t, x: x, y: y, style: style, maxWidth: rect.maxX - x)
    }

    /// Fills a rectangle with one character.
    public mutating func fill(_ rect: Rect, _ ch: Character = " ", style: Style = .plain) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty, !discards else { return }
        let cell = Cell(ch, style)
        for y in r.y..<r.maxY {
            let row = y * width
            // A wide character cut by either edge keeps no half: its other half outside becomes a blank.
            if r.x > 0, cells[row + r.x].isContinuation { cells[row + r.x - 1] = Cell(" ", cells[row + r.x - 1].style) }
            if r.maxX < width, cells[row + r.maxX].isContinuation { cells[row + r.maxX] = Cell(" ", cells[row + r.maxX].style) }
            for x in r.x..<r.maxX { cells[row + x] = cell }
        }
    }

    /// Changes the style of every cell in a rectangle, keeping the characters.
    public mutating func restyle(_ rect: Rect, _ change: (inout Style) -> Void) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty, !discards else { return }
        for y in r.y..<r.maxY { for x in r.x..<r.maxX { change(&cells[y * width + x].style) } }
    }

    /// Box-drawing character sets.
    public enum Border: Sendable { case light, heavy, double, rounded }

    /// Draws a box outline, with an optional title in its top edge.
    public mutating func box(_ rect: Rect, border: Border = .light, style: Style = .plain, title: String? = nil) {
        guard rect.w >= 2, rect.h >= 2 else { return }
        let c: (h: Character, v: Character, tl: Character, tr: Character, bl: Character, br: Character)
        switch border {
        case .light: c = ("─", "│", "┌", "┐", "└", "┘")
        case .heavy: c = ("━", "┃", "┏", "┓", "┗", "┛")
        case .double: c = ("═", "║", "╔", "╗", "╚", "╝")
        case .rounded: c = ("─", "│", "╭", "╮", "╰", "╯")
        }
        for x in rect.x + 1..<rect.maxX - 1 {
            self[x, rect.y] = Cell(c.h, style); self[x, rect.maxY - 1] = Cell(c.h, style)
        }
        for y in rect.y + 1..<rect.maxY - 1 {
            self[rect.x, y] = Cell(c.v, style); self[rect.maxX - 1, y] = Cell(c.v, style)
        }
        self[rect.x, rect.y] = Cell(c.tl, style); self[rect.maxX - 1, rect.y] = Cell(c.tr, style)
        self[rect.x, rect.maxY - 1] = Cell(c.bl, style); self[rect.maxX - 1, rect.maxY - 1] = Cell(c.br, style)
        if let title, rect.w > 4 {
            text(" " + CellGrid.truncate(title, to: rect.w - 6) + " ", x: rect.x + 2, y: rect.y, style: style,
                 maxWidth: rect.w - 4)
        }
    }

    /// A horizontal bar `width` cells long filled to `fraction` (0…1) with eighth-block precision.
    public mutating func bar(x: Int, y: Int, width w: Int, fraction: Double, style: Style = .plain,
                             empty: Character = "░") {
        bar(x: x, y: y, width: w, eighths: CellGrid.eighths(fraction, of: w), style: style, empty: empty)
    }

    /// How many eighths of a cell a bar `width` cells long fills for `fraction` (0…1).
    public static func eighths(_ fraction: Double, of width: Int) -> Int {
        let f = min(1, max(0, fraction.isFinite ? fraction : 0))
        return Int((f * Double(max(0, width) * 8)).rounded())
    }

    /// A bar `width` cells long filled to `eighths` eighths of a cell.
    public mutating func bar(x: Int, y: Int, width w: Int, eighths: Int, style: Style = .plain, empty: Character = "░") {
        guard w > 0 else { return }
        let partial: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        for i in 0..<w {
            let e = eighths - i * 8
            let ch: Character = e >= 8 ? "█" : (e > 0 ? partial[e] : empty)
            self[x + i, y] = Cell(ch, style)
        }
    }

    /// The grid as plain text lines (styles dropped, trailing spaces kept), for tests and golden files.
    public var lines: [String] {
        (0..<height).map { y in
            var s = ""
            s.reserveCapacity(width)
            for x in 0..<width {
                let c = self[x, y]
                if !c.isContinuation { s.append(c.ch) }
            }
            return s
        }
    }

    /// The grid as one text block, one line per row.
    public var text: String { lines.joined(separator: "\n") }
}

/// `rows` sorted with repeats dropped: for the few row numbers of an echo, without a `Set`'s hashing and
/// allocation, which was half of working out what an echo redraws.
public func sortedUnique(_ rows: [Int]) -> [Int] {
    var out = rows.sorted()
    var n = 0
    for i in out.indices where i == 0 || out[i] != out[n - 1] {
        out[n] = out[i]
        n += 1
    }
    out.removeLast(out.count - n)
    return out
}
