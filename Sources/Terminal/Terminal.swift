import CellUI
@preconcurrency import CNcursesw
import CTerminalGuard
import Foundation

/// Input read from the terminal.
public enum TerminalInput: Sendable, Equatable {
    case key(Key)
    case resized(Size)
}

/// Problems starting the terminal.
public struct TerminalError: Error, CustomStringConvertible {
    public var description: String
}

/// The full-screen terminal: owns curses, draws a `CellGrid` by writing only the cells that changed, reads
/// keys, and always gives the terminal back (`stop`, also called on deinit and at exit).
///
/// The only type in the project that talks to curses.
public final class Terminal {
    private var screen: OpaquePointer?
    private var previous: CellGrid?
    private var pairs: [UInt32: Int16] = [:]
    private var nextPair: Int16 = 1
    private let hasColors: Bool
    private var active = true
    private var outFile: UnsafeMutablePointer<FILE>?
    /// Cells written by the last `draw`, for benchmarks.
    public private(set) var lastChangedCells = 0
    /// The grid the terminal shows now (nil before the first drawing, or once a resize made it unknown).
    public var lastDrawn: CellGrid? { previous }

    /// Starts curses on the controlling terminal (`input`/`output` nil), or on the given streams (benchmarks
    /// draw into a pty or /dev/null). `type` overrides `$TERM`. `colour` false (`NO_COLOR`, `--no-color`)
    /// draws with attributes only: no colour sequence is ever sent.
    public init(type: String? = nil, output: UnsafeMutablePointer<FILE>? = nil,
                input: UnsafeMutablePointer<FILE>? = nil, colour: Bool = true) throws {
        // Wide characters and box drawing need a UTF-8 locale; C.UTF-8 exists everywhere on Debian.
        if setlocale(LC_ALL, "") == nil || !Terminal.localeIsUTF8 { setlocale(LC_ALL, "C.UTF-8") }
        let term = type ?? ProcessInfo.processInfo.environment["TERM"] ?? "xterm-256color"
        // Saved before curses changes anything, so a crash can put the terminal back as it was.
        handsfree_save_terminal(fileno(input ?? stdin), fileno(output ?? stdout))
        guard let s = newterm(term, output ?? stdout, input ?? stdin) else {
            handsfree_forget_terminal()
            throw TerminalError(description: "cannot start the terminal (TERM=\(term))")
        }
        screen = s
        outFile = output
        set_term(s)
        hasColors = colour && !Terminal.noColorRequested && has_colors()
        Terminal.current = self
        // Raw, not cbreak: Ctrl-C, Ctrl-Z and Ctrl-\ arrive as keys, so on the Terminal screen they reach the
        // program (a helper stops a runaway command); elsewhere the keyboard source turns them back into the
        // signals they were.
        raw(); noecho(); nonl()
        keypad(stdscr, true)
        nodelay(stdscr, true)
        set_escdelay(25)
        // No look for typed-ahead keys during each update: that is a poll of the input per drawing, and an
        // update put off for a pending key would hold back the echo of the key before it.
        typeahead(-1)
        curs_set(0)
        if hasColors {
            start_color()
            use_default_colors()
        }
        leaveok(stdscr, true)
        // Until curses has once come back from `endwin`, it flushes its output at every cursor move
        // (`_nc_mvcur` while `_endwin` is still "initial"): a drawing went out in one write per changed
        // stretch, each waking the terminal's reader, and a key's echo in two. Leaving and coming back once,
        // before anything is drawn, makes each drawing one write.
        endwin()
        doupdate()
        // `endwin` sent keypad_local (rmkx) and `doupdate` does not send keypad_xmit (smkx) back: curses waits
        // for the first read. A key pressed between the first drawing and that read came in the terminal's
        // normal mode (Right as ESC [ C, not ESC O C) and was taken as Esc, "[" and "C" (1 start in 30 in
        // tmux). Keypad mode is asked for again now, before anything is drawn.
        keypad(stdscr, true)
        // Terminals that ignore keypad mode (or a key already on its way) send the normal-mode forms: read
        // them as the same keys.
        for (sequence, key) in [("\u{1B}[A", KEY_UP), ("\u{1B}[B", KEY_DOWN), ("\u{1B}[C", KEY_RIGHT),
                                ("\u{1B}[D", KEY_LEFT), ("\u{1B}[H", KEY_HOME), ("\u{1B}[F", KEY_END)] {
            define_key(sequence, key)
        }
        Terminal.registerExitHook()
    }

    deinit { stop() }

    /// `NO_COLOR` is set and not empty (no-color.org): every terminal this process opens draws without colour.
    public static var noColorRequested: Bool { !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty }

    private static var localeIsUTF8: Bool {
        guard let l = setlocale(LC_CTYPE, nil) else { return false }
        let s = String(cString: l).lowercased()
        return s.contains("utf-8") || s.contains("utf8")
    }

    /// The terminal's size now.
    public var size: Size { Size(width: Int(getmaxx(stdscr)), height: Int(getmaxy(stdscr))) }

    /// Sets the size curses assumes (for terminals opened on a file or pty, which report none).
    public func resize(_ size: Size) {
        resize_term(Int32(size.height), Int32(size.width))
        invalidate()
    }

    /// Gives the terminal back to the shell it came from; safe to call more than once.
    public func stop() {
        guard active else { return }
        active = false
        endwin()
        handsfree_forget_terminal()
        if let s = screen { delscreen(s) }
        screen = nil
        if Terminal.current === self { Terminal.current = nil }
    }

    /// Rings the terminal bell (or flashes, where the terminal has no bell).
    public func bell() {
        guard active else { return }
        _ = beep()
    }

    /// Forgets what is on the screen, so the next draw repaints everything (after a resize).
    public func invalidate() {
        previous = nil
        clearok(stdscr, true)
    }

    /// Draws `grid`, writing only the cells that differ from the last grid drawn.
    public func draw(_ grid: CellGrid) {
        guard active else { return }
        if previous?.size != grid.size { invalidate(); werase(stdscr) }
        let w = grid.width
        var count = 0
        grid.cells.withUnsafeBufferPointer { cells in
            func drawRows(over before: UnsafeBufferPointer<Cell>?) {
                for y in 0..<grid.height {
                    let row = y * w..<(y + 1) * w
                    count += drawRow(y, cells.extracting(row), old: before?.extracting(row))
                }
            }
            if let old = previous { old.cells.withUnsafeBufferPointer { drawRows(over: $0) } } else { drawRows(over: nil) }
        }
        previous = grid
        finish(count)
    }

    /// Changes `rows` of the last drawing in place with `change` and writes the cells of those rows that
    /// differ: for a few rows (a key's echo in a pane), without copying the whole screen. False before a
    /// first drawing, and nothing is drawn.
    public func drawRows(_ rows: [Int], _ change: (inout CellGrid) -> Void) -> Bool {
        guard active, var grid = previous else { return false }
        // Let go of the stored grid, so `change` finds its cells uniquely held and changes them in place.
        previous = nil
        let w = grid.width
        let wanted = sortedUnique(rows.filter { $0 >= 0 && $0 < grid.height })
        let old = wanted.map { Array(grid.cells[$0 * w..<($0 + 1) * w]) }
        change(&grid)
        var count = 0
        grid.cells.withUnsafeBufferPointer { cells in
            for (y, before) in zip(wanted, old) {
                count += before.withUnsafeBufferPointer { drawRow(y, cells.extracting(y * w..<(y + 1) * w), old: $0) }
            }
        }
        previous = grid
        finish(count)
        return true
    }

    /// Writes the cells of row `y` (`cells`) that differ from `old` (all of them without it), in runs of one
    /// style; returns how many.
    ///
    /// Only the cells from the first to the last whose bytes differ are compared: a cell with the same bytes
    /// is the same cell, and a row where a key changed one or two cells is not walked cell by cell.
    private func drawRow(_ y: Int, _ cells: UnsafeBufferPointer<Cell>, old: UnsafeBufferPointer<Cell>?) -> Int {
        let w = cells.count
        let old = old.flatMap { $0.count == w ? $0 : nil }
        var x = 0, end = w
        if let old {
            guard let span = Self.differingCells(cells, old) else { return 0 }
            // From the cell before: a wide character whose right half alone changed is redrawn whole.
            x = max(0, span.lowerBound - 1)
            end = span.upperBound + 1
        }
        var count = 0
        var run = ""
        var runX = 0, runStyle = Style.plain, inRun = false
        while x < end {
            let c = cells[x]
            var changed = true
            if let old {
                changed = old[x] != c
                // A wide character is redrawn whole when only its right half changed.
                if !changed, x + 1 < w, old[x + 1] != cells[x + 1], cells[x + 1].isContinuation {
                    changed = true
                }
            }
            if !changed || c.isContinuation {
                if inRun && !c.isContinuation { flush(&run, y, runX, runStyle); inRun = false }
                x += 1
                continue
            }
            if inRun && c.style != runStyle { flush(&run, y, runX, runStyle); inRun = false }
            if !inRun { inRun = true; runX = x; runStyle = c.style }
            run.append(c.ch)
            count += 1
            x += 1
        }
        if inRun { flush(&run, y, runX, runStyle) }
        return count
    }

    private func finish(_ count: Int) {
        lastChangedCells = count
        wnoutrefresh(stdscr)
        doupdate()
        if let f = outFile { fflush(f) }
    }

    /// The first and last of `a`'s cells whose bytes differ from `b`'s; nil when none do, or the counts differ.
    ///
    /// Cells hold no padding left to chance (`Cell.spare`), so equal bytes are equal cells; cells whose bytes
    /// differ may still be equal (a string stored another way) and are compared as cells by the caller.
    static func differingCells(_ a: UnsafeBufferPointer<Cell>, _ b: UnsafeBufferPointer<Cell>) -> ClosedRange<Int>? {
        guard let pa = a.baseAddress, let pb = b.baseAddress, a.count == b.count else { return nil }
        let stride = MemoryLayout<Cell>.stride
        let ra = UnsafeRawPointer(pa), rb = UnsafeRawPointer(pb)
        // Most rows are unchanged: one comparison of the whole row settles them.
        if memcmp(ra, rb, a.count * stride) == 0 { return nil }
        var lo = 0
        while memcmp(ra + lo * stride, rb + lo * stride, stride) == 0 { lo += 1 }
        var hi = a.count - 1
        while hi > lo, memcmp(ra + hi * stride, rb + hi * stride, stride) == 0 { hi -= 1 }
        return lo...hi
    }

    private func flush(_ run: inout String, _ y: Int, _ x: Int, _ style: Style) {
        wattrset(stdscr, attributes(style))
        _ = run.withCString { mvwaddstr(stdscr, Int32(y), Int32(x), $0) }
        run.removeAll(keepingCapacity: true)
    }

    private func attributes(_ s: Style) -> Int32 {
        var a: Int32 = 0
        if s.attrs.contains(.bold) { a |= handsfree_a_bold() }
        if s.attrs.contains(.reverse) { a |= handsfree_a_reverse() }
        if s.attrs.contains(.underline) { a |= handsfree_a_underline() }
        if s.attrs.contains(.dim) { a |= handsfree_a_dim() }
        if hasColors, s.fg != .default || s.bg != .default {
            a |= handsfree_color_pair(Int32(pair(s.fg, s.bg)))
        } else if !hasColors, s.bg != .default {
            // Without colours, a background colour means "stands out": show it reversed.
            a |= handsfree_a_reverse()
        }
        return a
    }

    /// Colour pairs are made on first use, so 8-colour terminals with few pairs still work.
    private func pair(_ fg: Color, _ bg: Color) -> Int16 {
        let key = UInt32(fg.code) << 16 | UInt32(bg.code)
        if let p = pairs[key] { return p }
        guard Int32(nextPair) < COLOR_PAIRS else { return 0 }
        let p = nextPair
        nextPair += 1
        init_pair(p, Self.cursesColor(fg), Self.cursesColor(bg))
        pairs[key] = p
        return p
    }

    private static func cursesColor(_ c: Color) -> Int16 {
        // Palette entries go through as numbers where the terminal has them, else as the nearest basic colour.
        if case .indexed(let i) = c {
            if Int32(i) < COLORS { return Int16(i) }
            return cursesColor(c.basic)
        }
        switch c {
        case .default: return -1
        case .black: return Int16(COLOR_BLACK)
        case .red: return Int16(COLOR_RED)
        case .green: return Int16(COLOR_GREEN)
        case .yellow: return Int16(COLOR_YELLOW)
        case .blue: return Int16(COLOR_BLUE)
        case .magenta: return Int16(COLOR_MAGENTA)
        case .cyan: return Int16(COLOR_CYAN)
        case .white: return Int16(COLOR_WHITE)
        case .indexed: return -1
        }
    }

    /// The next key or resize, without waiting; nil when there is none.
    ///
    /// Keys that stand for no text and no command (function keys other than F12, such as F5) are skipped; control
    /// characters come as `.ctrl` keys, never as characters, so none is stored raw in a note.
    public func readInput() -> TerminalInput? {
        guard active else { return nil }
        while true {
            var ch: wint_t = 0
            let r = wget_wch(stdscr, &ch)
            if r == ERR { return nil }
            if r == KEY_CODE_YES {
                switch Int32(ch) {
                case KEY_UP: return .key(.up)
                case KEY_DOWN: return .key(.down)
                case KEY_LEFT: return .key(.left)
                case KEY_RIGHT: return .key(.right)
                case KEY_ENTER: return .key(.enter)
                case KEY_BACKSPACE: return .key(.backspace)
                case KEY_HOME: return .key(.home)
                case KEY_END: return .key(.end)
                case KEY_PPAGE: return .key(.pageUp)
                case KEY_NPAGE: return .key(.pageDown)
                case KEY_DC: return .key(.delete)
                // F12 is the carer's restore key; the other function keys stand for nothing here.
                case KEY_F0 + 12: return .key(.restoreSettings)
                case KEY_RESIZE:
                    invalidate()
                    return .resized(size)
                default: continue
                }
            }
            switch ch {
            case 10, 13: return .key(.enter)
            case 27: return .key(.escape)
            case 9: return .key(.tab)
            case 8, 127: return .key(.backspace)
            case 1...26: return .key(.ctrl(Character(Unicode.Scalar(UInt8(ch) + 0x60))))
            case 28...31: return .key(.ctrl(Character(Unicode.Scalar(UInt8(ch) + 0x40))))
            default:
                // Not a character (WEOF from a terminal that hung up): report nothing rather than loop.
                guard let u = Unicode.Scalar(UInt32(ch)) else { return nil }
                if u.properties.generalCategory == .control { continue }
                return .key(.char(Character(u)))
            }
        }
    }

    // MARK: Restoring the terminal on signals and exit

    nonisolated(unsafe) private static var current: Terminal?
    nonisolated(unsafe) private static var hookRegistered = false
    nonisolated(unsafe) private static var pipeFDs: [Int32] = [-1, -1]

    private static func registerExitHook() {
        guard !hookRegistered else { return }
        hookRegistered = true
        // If anything calls exit() (an error path, ArgumentParser), the terminal is still restored.
        atexit { Terminal.current?.stop() }
    }

    /// Routes SIGINT, SIGTERM and SIGHUP to a pipe whose read end is returned; the main loop polls it and
    /// leaves normally, restoring the terminal. Call once.
    public static func installSignalPipe() -> Int32 {
        if pipeFDs[0] >= 0 { return pipeFDs[0] }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        pipeFDs = fds
        handsfree_install_signals(fds[1])
        return fds[0]
    }

    /// Opens a pseudo-terminal (for benchmarks): the master descriptor and the slave's path.
    public static func openPTY() -> (master: Int32, slave: String)? {
        var buf = [CChar](repeating: 0, count: 64)
        let fd = handsfree_open_pty(&buf, Int32(buf.count))
        guard fd >= 0 else { return nil }
        return (fd, String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Reads the signal that arrived on the pipe, if any.
    public static func pendingSignal() -> Int32? {
        guard pipeFDs[0] >= 0 else { return nil }
        var b: UInt8 = 0
        return read(pipeFDs[0], &b, 1) == 1 ? Int32(b) : nil
    }
}
