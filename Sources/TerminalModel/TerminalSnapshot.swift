/// A cell colour as the child set it.
///
/// Indexed colours stay numbers (libvterm's 256-colour cube differs from xterm's, so a renderer passes the
/// number on to the host terminal); only RGB needs mapping.
public enum TerminalColor: Hashable, Sendable {
    /// The terminal's default foreground or background.
    case `default`
    /// A palette entry: SGR 31 is 1, `38;5;202` is 202.
    case indexed(UInt8)
    /// A direct colour (`38;2;R;G;B`).
    case rgb(UInt8, UInt8, UInt8)
}

/// Text attributes of one cell.
public struct TerminalAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = TerminalAttributes(rawValue: 1)
    public static let underline = TerminalAttributes(rawValue: 2)
    public static let italic = TerminalAttributes(rawValue: 4)
    public static let reverse = TerminalAttributes(rawValue: 8)
    public static let blink = TerminalAttributes(rawValue: 16)
    public static let strike = TerminalAttributes(rawValue: 32)
}

/// One cell of the emulated screen.
public struct TerminalCell: Hashable, Sendable {
    /// The character with its combining marks; a space for an empty cell, empty for a wide character's right half.
    public var text: String
    /// Columns the character takes: 1, 2 for a wide character, 0 for the right half of one.
    public var width: UInt8
    public var attributes: TerminalAttributes
    public var foreground: TerminalColor
    public var background: TerminalColor

    public init(text: String = " ", width: UInt8 = 1, attributes: TerminalAttributes = [],
                foreground: TerminalColor = .default, background: TerminalColor = .default) {
        self.text = text
        self.width = width
        self.attributes = attributes
        self.foreground = foreground
        self.background = background
    }

    /// An empty cell in default colours.
    public static let blank = TerminalCell()

    /// Whether this cell shows nothing: a space with no attributes on the default background.
    public var isBlank: Bool { text == " " && attributes.isEmpty && background == .default }
}

/// A cell position: row 0 is the top line, col 0 the left column.
public struct TerminalPosition: Hashable, Sendable {
    public var row: Int
    public var col: Int
    public init(row: Int, col: Int) { self.row = row; self.col = col }
}

/// What the emulated screen shows at one moment, as values a renderer can keep.
public struct TerminalSnapshot: Hashable, Sendable {
    public var rows: Int
    public var cols: Int
    /// Row-major, `rows * cols` cells.
    public var cells: [TerminalCell]
    public var cursor: TerminalPosition
    public var cursorVisible: Bool
    /// Whether the child switched to the alternate screen (vim, less, htop).
    public var isAltScreen: Bool
    /// The window title the child set (OSC 0/2), empty if none.
    public var title: String

    public init(rows: Int, cols: Int, cells: [TerminalCell], cursor: TerminalPosition, cursorVisible: Bool,
                isAltScreen: Bool, title: String) {
        self.rows = rows; self.cols = cols; self.cells = cells; self.cursor = cursor
        self.cursorVisible = cursorVisible; self.isAltScreen = isAltScreen; self.title = title
    }

    /// The cell at `row`, `col`.
    public func cell(row: Int, col: Int) -> TerminalCell { cells[row * cols + col] }

    /// One line's text without trailing spaces.
    public func lineText(_ row: Int) -> String {
        TerminalSnapshot.text(of: cells[(row * cols)..<((row + 1) * cols)])
    }

    /// All lines' text, joined by newlines.
    public var text: String { (0..<rows).map(lineText).joined(separator: "\n") }

    /// Text of a run of cells with trailing spaces removed.
    public static func text<C: Collection>(of cells: C) -> String where C.Element == TerminalCell {
        var s = ""
        for c in cells { s += c.text }
        while s.last == " " { s.removeLast() }
        return s
    }
}
