#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
///
/// Plain bytes throughout (the text inline, the colours packed, no padding left to chance), so a screen of
/// cells copies and compares as memory: a snapshot taken at every echo copies 5,000 of them, and the pane's
/// changed rows are found by comparing two screens row by row.
public struct TerminalCell: Hashable, Sendable {
    /// The text's UTF-8 bytes, zero-padded (text never holds a NUL): `CellText`.
    private var chars: CellText
    private var fg: UInt32
    private var bg: UInt32
    /// Columns the character takes: 1, 2 for a wide character, 0 for the right half of one.
    public var width: UInt8
    public var attributes: TerminalAttributes
    // Always zero: the cell's size equals its stride, so rows compare as bytes.
    private var spare16: UInt16 = 0
    private var spare32: UInt32 = 0

    public init(text: String = " ", width: UInt8 = 1, attributes: TerminalAttributes = [],
                foreground: TerminalColor = .default, background: TerminalColor = .default) {
        self.init(chars: CellText(text), width: width, attributes: attributes, foreground: foreground,
                  background: background)
    }

    /// A cell whose text is one Unicode scalar (0: no text, a wide character's right half).
    public init(scalar: UInt32, width: UInt8 = 1, attributes: TerminalAttributes = [],
                foreground: TerminalColor = .default, background: TerminalColor = .default) {
        self.init(chars: CellText(scalar: scalar), width: width, attributes: attributes, foreground: foreground,
                  background: background)
    }

    init(chars: CellText, width: UInt8, attributes: TerminalAttributes, foreground: TerminalColor,
         background: TerminalColor) {
        self.chars = chars
        self.fg = foreground.packed
        self.bg = background.packed
        self.width = width
        self.attributes = attributes
    }

    /// The character with its combining marks; a space for an empty cell, empty for a wide character's right
    /// half. At most `CellText.capacity` UTF-8 bytes are kept: marks beyond them are dropped.
    public var text: String {
        get { chars.string }
        set { chars = CellText(newValue) }
    }

    /// Appends the text's UTF-8 bytes to `bytes`.
    public func appendUTF8(to bytes: inout [UInt8]) { chars.appendUTF8(to: &bytes) }

    /// The text's only byte when it is one byte long (ASCII), else nil: the common case, without a `String`.
    public var singleByte: UInt8? { chars.singleByte }

    public var foreground: TerminalColor {
        get { TerminalColor(packed: fg) }
        set { fg = newValue.packed }
    }

    public var background: TerminalColor {
        get { TerminalColor(packed: bg) }
        set { bg = newValue.packed }
    }

    /// An empty cell in default colours.
    public static let blank = TerminalCell()

    /// Whether this cell shows nothing: a space with no attributes on the default background.
    public var isBlank: Bool { chars == CellText.space && attributes.isEmpty && bg == 0 }

    /// Whether `a` and `b` hold equal cells: their bytes compared, which for cells is their equality.
    public static func sameCells(_ a: UnsafeBufferPointer<TerminalCell>, _ b: UnsafeBufferPointer<TerminalCell>) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        return memcmp(pa, pb, a.count * MemoryLayout<TerminalCell>.stride) == 0
    }
}

/// A cell's text as inline UTF-8: up to 24 bytes, zero-padded.
///
/// libvterm keeps at most six scalars per cell (a character and its marks); 24 bytes hold six of any size.
/// Longer text (a tmux capture of an emoji sequence) is cut at a scalar boundary.
struct CellText: Hashable, Sendable {
    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0
    static let capacity = 24
    static let space = CellText(scalar: 0x20)

    init(scalar: UInt32) {
        guard scalar != 0 else { return }
        if scalar < 0x80 { w0 = UInt64(scalar); return }
        // Not a scalar (a surrogate from binary garbage): shown as U+FFFD.
        _ = append(scalar, at: 0)
    }

    init(_ s: String) {
        var n = 0
        for u in s.unicodeScalars where u.value != 0 {
            let m = append(u.value, at: n)
            // The first scalar that does not fit ends the text: what follows it is not kept either.
            guard m > n else { break }
            n = m
        }
    }

    /// Appends scalar `v`'s bytes after `count` bytes if they fit; returns the new count.
    mutating func append(_ v: UInt32, at count: Int) -> Int {
        let u = Unicode.Scalar(v) ?? "\u{FFFD}"
        let len = u.utf8.count
        guard v != 0, count + len <= Self.capacity else { return count }
        var n = count
        for b in u.utf8 { set(n, b); n += 1 }
        return n
    }

    private mutating func set(_ i: Int, _ b: UInt8) {
        let shift = UInt64((i & 7) * 8)
        switch i >> 3 {
        case 0: w0 |= UInt64(b) << shift
        case 1: w1 |= UInt64(b) << shift
        default: w2 |= UInt64(b) << shift
        }
    }

    var singleByte: UInt8? { w0 != 0 && w0 < 0x100 ? UInt8(truncatingIfNeeded: w0) : nil }

    func appendUTF8(to bytes: inout [UInt8]) {
        if Self.append(w0, to: &bytes), Self.append(w1, to: &bytes) { _ = Self.append(w2, to: &bytes) }
    }

    /// Appends a word's bytes up to its first zero; true if all eight were text (more may follow).
    private static func append(_ w: UInt64, to bytes: inout [UInt8]) -> Bool {
        var v = w
        for _ in 0..<8 {
            guard v != 0 else { return false }
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        return true
    }

    var string: String {
        if let b = singleByte { return String(Unicode.Scalar(b)) }
        var bytes: [UInt8] = []
        appendUTF8(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension TerminalColor {
    /// The colour in four bytes: 0 the default, 1 in the top byte an index, 2 an RGB value.
    var packed: UInt32 {
        switch self {
        case .default: return 0
        case .indexed(let i): return 1 << 24 | UInt32(i)
        case .rgb(let r, let g, let b): return 2 << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        }
    }

    init(packed p: UInt32) {
        switch p >> 24 {
        case 1: self = .indexed(UInt8(truncatingIfNeeded: p))
        case 2: self = .rgb(UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p))
        default: self = .default
        }
    }
}

/// A cell position: row 0 is the top line, col 0 the left column.
public struct TerminalPosition: Hashable, Sendable {
    public var row: Int
    public var col: Int
    public init(row: Int, col: Int) { self.row = row; self.col = col }
}

/// A screen's cells, row-major as one collection (`cells[row * cols + col]`), kept as one array per row.
///
/// A row is its own copy-on-write buffer: a snapshot taken after an echo shares every row but the one that
/// changed with the snapshot before it, instead of copying the screen, and the rows two snapshots share are
/// known equal without comparing a cell (`sameRow`).
public struct TerminalCells: RandomAccessCollection, MutableCollection, Hashable, Sendable {
    /// The rows, each `cols` cells long.
    public private(set) var rows: [[TerminalCell]]
    public let cols: Int

    /// Cells given row-major, cut into rows of `cols` (a short last row is padded with blanks).
    public init(_ flat: [TerminalCell], cols: Int) {
        self.cols = Swift.max(0, cols)
        guard self.cols > 0 else { rows = []; return }
        var out: [[TerminalCell]] = []
        out.reserveCapacity((flat.count + self.cols - 1) / self.cols)
        var i = 0
        while i < flat.count {
            var row = Array(flat[i..<Swift.min(flat.count, i + self.cols)])
            if row.count < self.cols { row += repeatElement(TerminalCell.blank, count: self.cols - row.count) }
            out.append(row)
            i += self.cols
        }
        rows = out
    }

    /// Rows of `cols` cells each, as they are.
    public init(rows: [[TerminalCell]], cols: Int) {
        self.rows = rows
        self.cols = Swift.max(0, cols)
    }

    /// `rows` rows of `cols` blank cells.
    public static func blank(rows: Int, cols: Int) -> TerminalCells {
        TerminalCells(rows: Array(repeating: Array(repeating: .blank, count: Swift.max(0, cols)), count: Swift.max(0, rows)),
                      cols: cols)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count * cols }

    public subscript(i: Int) -> TerminalCell {
        get { rows[i / cols][i % cols] }
        set { rows[i / cols][i % cols] = newValue }
    }

    /// Changes row `r`'s cells in place.
    public mutating func changeRow<T>(_ r: Int, _ change: (inout [TerminalCell]) -> T) -> T { change(&rows[r]) }

    /// Whether row `r` of `a` and row `r'` of `b` hold the same cells: at once when they share their buffer
    /// (a row no change reached since one snapshot was taken from the other), else by comparing their bytes.
    public static func sameRow(_ a: TerminalCells, _ r: Int, _ b: TerminalCells, _ rb: Int) -> Bool {
        a.rows[r].withUnsafeBufferPointer { pa in
            b.rows[rb].withUnsafeBufferPointer { pb in
                pa.baseAddress == pb.baseAddress && pa.count == pb.count || TerminalCell.sameCells(pa, pb)
            }
        }
    }
}

/// What the emulated screen shows at one moment, as values a renderer can keep.
public struct TerminalSnapshot: Hashable, Sendable {
    public var rows: Int
    public var cols: Int
    /// Row-major, `rows * cols` cells.
    public var cells: TerminalCells
    public var cursor: TerminalPosition
    public var cursorVisible: Bool
    /// Whether the child switched to the alternate screen (vim, less, htop).
    public var isAltScreen: Bool
    /// The window title the child set (OSC 0/2), empty if none.
    public var title: String

    public init(rows: Int, cols: Int, cells: [TerminalCell], cursor: TerminalPosition, cursorVisible: Bool,
                isAltScreen: Bool, title: String) {
        self.init(rows: rows, cols: cols, cells: TerminalCells(cells, cols: cols), cursor: cursor,
                  cursorVisible: cursorVisible, isAltScreen: isAltScreen, title: title)
    }

    public init(rows: Int, cols: Int, cells: TerminalCells, cursor: TerminalPosition, cursorVisible: Bool,
                isAltScreen: Bool, title: String) {
        self.rows = rows; self.cols = cols; self.cells = cells; self.cursor = cursor
        self.cursorVisible = cursorVisible; self.isAltScreen = isAltScreen; self.title = title
    }

    /// The cell at `row`, `col`.
    public func cell(row: Int, col: Int) -> TerminalCell { cells.rows[row][col] }

    /// One line's text without trailing spaces.
    public func lineText(_ row: Int) -> String {
        TerminalSnapshot.text(of: cells.rows[row])
    }

    /// All lines' text, joined by newlines.
    public var text: String { (0..<rows).map(lineText).joined(separator: "\n") }

    /// Text of a run of cells as it stands, gathered as bytes: read at every event for the command line.
    public static func utf8Text<C: Collection>(of cells: C) -> String where C.Element == TerminalCell {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(cells.count)
        for c in cells { c.appendUTF8(to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Text of a run of cells with trailing spaces removed.
    public static func text<C: Collection>(of cells: C) -> String where C.Element == TerminalCell {
        var s = utf8Text(of: cells)
        while s.last == " " { s.removeLast() }
        return s
    }
}
