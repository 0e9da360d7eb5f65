import CVTerm

/// A terminal screen emulated by libvterm: feed it the child's output, read value snapshots, and turn keys
/// into the bytes the child expects.
///
/// Not thread-safe and not Sendable: one owner (the shell's event loop) calls every method, and libvterm's
/// callbacks run inside those calls.
public final class VTermScreen {
    private let vt: OpaquePointer
    private let screen: OpaquePointer
    private let state: OpaquePointer
    /// libvterm keeps the pointer, not a copy, so the struct lives on the heap as long as the VTerm.
    private let callbacks: UnsafeMutablePointer<VTermScreenCallbacks>

    public private(set) var rows: Int
    public private(set) var cols: Int
    public private(set) var cursor = TerminalPosition(row: 0, col: 0)
    public private(set) var cursorVisible = true
    public private(set) var isAltScreen = false
    public private(set) var title = ""
    /// Rings the child sent (BEL) since the last `takeBells`.
    public private(set) var bells = 0

    /// The most lines the scrollback keeps; older lines are dropped.
    public let scrollbackLimit: Int
    private var scrollback: [ScrollbackLine] = []
    /// Index in `scrollback` of the oldest line once the ring is full.
    private var scrollbackHead = 0

    /// Bytes for the child: key encodings and replies to its queries.
    private var output: [UInt8] = []

    /// Cells as last read from libvterm, and per row the columns that changed since (`dirtyLo[r]..<dirtyHi[r]`,
    /// empty when none did): an echoed key re-reads a cell or two, not its row.
    private var cache: TerminalCells
    private var dirtyLo: [Int], dirtyHi: [Int]
    private var anyDirty = true

    /// Creates a `rows`×`cols` screen with UTF-8 input and a scrollback of `scrollbackLimit` lines.
    public init(rows: Int, cols: Int, scrollbackLimit: Int = 10_000) {
        // At least two columns: libvterm 0.1.4 writes out of bounds (and crashes) putting a wide character on a
        // one-column screen.
        let r = max(1, rows), c = max(2, cols)
        self.rows = r
        self.cols = c
        self.scrollbackLimit = max(0, scrollbackLimit)
        vt = vterm_new(Int32(r), Int32(c))
        // utf8 defaults to off, which would show every multi-byte character as several.
        vterm_set_utf8(vt, 1)
        screen = vterm_obtain_screen(vt)
        state = vterm_obtain_state(vt)
        callbacks = UnsafeMutablePointer<VTermScreenCallbacks>.allocate(capacity: 1)
        callbacks.initialize(to: VTermScreenCallbacks())
        cache = .blank(rows: r, cols: c)
        dirtyLo = Array(repeating: 0, count: r)
        dirtyHi = Array(repeating: c, count: r)
        installCallbacks()
        vterm_screen_enable_altscreen(screen, 1)
        // Scroll damage is merged and flushed once per feed: default merging calls back once per cell.
        vterm_screen_set_damage_merge(screen, VTERM_DAMAGE_SCROLL)
        // Mandatory before the first input: writing into a screen never reset crashes.
        vterm_screen_reset(screen, 1)
    }

    deinit {
        vterm_free(vt)
        callbacks.deinitialize(count: 1)
        callbacks.deallocate()
    }

    private func installCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        callbacks.pointee.damage = { rect, user in
            VTermScreen.from(user)?.markDirty(rect.start_row, rect.end_row, cols: rect.start_col, rect.end_col)
            return 1
        }
        callbacks.pointee.moverect = { dest, _, user in
            VTermScreen.from(user)?.markDirty(dest.start_row, dest.end_row, cols: dest.start_col, dest.end_col)
            return 1
        }
        callbacks.pointee.movecursor = { pos, _, _, user in
            guard let me = VTermScreen.from(user) else { return 1 }
            // Clamped: libvterm 0.1.4 reports a cursor off the screen in the middle of a resize.
            me.cursor = me.onTheScreen(TerminalPosition(row: Int(pos.row), col: Int(pos.col)))
            me.anyDirty = true
            return 1
        }
        callbacks.pointee.settermprop = { prop, val, user in
            guard let me = VTermScreen.from(user), let val else { return 1 }
            me.setProperty(prop, val)
            return 1
        }
        callbacks.pointee.bell = { user in
            VTermScreen.from(user)?.bells += 1
            return 1
        }
        callbacks.pointee.resize = { _, _, user in
            VTermScreen.from(user)?.markDirty(0, Int32.max)
            return 1
        }
        callbacks.pointee.sb_pushline = { cols, cells, user in
            guard let me = VTermScreen.from(user), let cells else { return 0 }
            me.pushScrollback(cells, count: Int(cols))
            return 1
        }
        callbacks.pointee.sb_popline = { cols, cells, user in
            guard let me = VTermScreen.from(user), let cells else { return 0 }
            return me.popScrollback(into: cells, count: Int(cols)) ? 1 : 0
        }
        vterm_screen_set_callbacks(screen, callbacks, me)
        vterm_output_set_callback(vt, { bytes, len, user in
            guard let me = VTermScreen.from(user), let bytes, len > 0 else { return }
            bytes.withMemoryRebound(to: UInt8.self, capacity: len) {
                me.output.append(contentsOf: UnsafeBufferPointer(start: $0, count: len))
            }
        }, me)
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> VTermScreen? {
        guard let user else { return nil }
        return Unmanaged<VTermScreen>.fromOpaque(user).takeUnretainedValue()
    }

    private func markDirty(_ start: Int32, _ end: Int32, cols startCol: Int32 = 0, _ endCol: Int32 = Int32.max) {
        anyDirty = true
        let lo = max(0, Int(start)), hi = min(rows, Int(end))
        // A cell more on each side: the other half of a wide character the change may have split.
        let c0 = max(0, Int(startCol) - 1), c1 = min(cols, Int(min(endCol, Int32.max - 1)) + 1)
        guard lo < hi, c0 < c1 else { return }
        for r in lo..<hi {
            if dirtyLo[r] >= dirtyHi[r] { dirtyLo[r] = c0; dirtyHi[r] = c1 }
            else { dirtyLo[r] = min(dirtyLo[r], c0); dirtyHi[r] = max(dirtyHi[r], c1) }
        }
    }

    private func setProperty(_ prop: VTermProp, _ val: UnsafeMutablePointer<VTermValue>) {
        anyDirty = true
        switch prop {
        case VTERM_PROP_CURSORVISIBLE: cursorVisible = val.pointee.boolean != 0
        case VTERM_PROP_ALTSCREEN:
            isAltScreen = val.pointee.boolean != 0
            markDirty(0, Int32(rows))
        case VTERM_PROP_TITLE:
            // libvterm 0.1.4 hands a NUL-terminated copy.
            if let s = val.pointee.string { title = String(decoding: UnsafeRawPointer(s).assumingMemoryBound(to: UInt8.self).bufferUntilNUL, as: UTF8.self) }
        default: break
        }
    }

    // MARK: Input from the child

    /// Feeds the child's output to the emulator; returns the bytes to write back to the child (query replies).
    ///
    /// A run of plain lines that would only scroll through the screen and off it (`seq`, `cat` of a log) skips
    /// libvterm's scrolling, which costs a move of the whole screen per line: those lines go straight to the
    /// scrollback and the screen is redrawn once with the lines that stay (see `skipPlainLines`). What the
    /// screen and the scrollback hold afterwards is the same as if every line had been fed.
    ///
    /// The bytes pass through a `VTermInputGuard` first: libvterm 0.1.4 crashes or hangs on some streams.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        inputGuard.filter(bytes.bindMemory(to: UInt8.self)) { feedGuarded($0, cursorRestores: $1) }
    }

    /// Rewrites what libvterm cannot take (see `VTermInputGuard`); kept across feeds, as a sequence or a
    /// character may be cut by a read.
    private var inputGuard = VTermInputGuard()

    /// Bytes the guard holds back until the next feed: an ESC, or the start of a UTF-8 character.
    public var heldBytes: Int { inputGuard.heldBytes }

    /// The cursor as libvterm's state has it: unclamped, unlike `cursor`, so that tests and the fuzzer can
    /// check that it never leaves the screen (libvterm writes out of bounds when it does).
    public var libvtermCursor: TerminalPosition {
        var pos = VTermPos()
        vterm_state_get_cursorpos(state, &pos)
        return TerminalPosition(row: Int(pos.row), col: Int(pos.col))
    }

    private func feedGuarded(_ bytes: UnsafeBufferPointer<UInt8>, cursorRestores: [Int]) -> [UInt8] {
        guard let p = bytes.baseAddress, bytes.count > 0 else {
            vterm_screen_flush_damage(screen)
            return takeOutput()
        }
        // A restored cursor may be off a screen that got smaller since it was saved: put back on before the
        // next byte is written there.
        var from = 0
        for end in cursorRestores where end > from {
            feedSegment(p + from, count: end - from)
            keepCursorOnTheScreen()
            from = end
        }
        if from < bytes.count { feedSegment(p + from, count: bytes.count - from) }
        vterm_screen_flush_damage(screen)
        return takeOutput()
    }

    /// Moves libvterm's cursor onto the screen if it is off (the parser stands between sequences).
    private func keepCursorOnTheScreen() {
        let c = libvtermCursor
        let on = onTheScreen(c)
        guard on != c else { return }
        write(Self.cursorMove(to: on))
    }

    /// `p` moved to the nearest cell of the screen.
    private func onTheScreen(_ p: TerminalPosition) -> TerminalPosition {
        TerminalPosition(row: min(max(0, p.row), rows - 1), col: min(max(0, p.col), cols - 1))
    }

    /// CUP to `p` (0-based).
    private static func cursorMove(to p: TerminalPosition) -> [UInt8] {
        Array("\u{1b}[\(p.row + 1);\(p.col + 1)H".utf8)
    }

    private func feedSegment(_ p: UnsafePointer<UInt8>, count: Int) {
        var start = 0
        if fastScroll, let run = PlainRun.find(p, count: count, cols: cols), run.rows >= rows {
            write(p, 0..<run.start)
            if canSkipPlainLines() {
                skipPlainLines(p, run)
                start = run.end
            } else {
                start = run.start
            }
        }
        write(p, start..<count)
    }

    /// Skips libvterm's scrolling for plain runs (on by default; off to compare against plain feeding).
    public var fastScroll = true
    /// Rows that went through the skip instead of libvterm's scrolling, so far.
    public private(set) var rowsSkipped = 0
    /// Skips that took the screen's rows from the bytes that drew them (`ScreenMirror`), not from libvterm.
    public private(set) var skipsFromBytes = 0
    /// Modes the skip depends on, followed through the bytes fed.
    private var modes = ModeWatch()

    /// Feeds bytes of our own to libvterm (through the mode watch, not the guard: they are safe).
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { b in if let base = b.baseAddress { write(base, 0..<b.count) } }
    }

    /// Feeds bytes to libvterm as they are, following the modes the skip depends on.
    private func write(_ p: UnsafePointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        modes.scan(p, range, rows: rows)
        if mirror.isValid { mirror.follow(p, range) }
        input(p, range)
    }

    /// The screen's rows as the bytes that drew them, while nothing but plain lines has been fed since the
    /// last skip: the next skip then takes the rows it pushes into the scrollback from these bytes instead of
    /// reading libvterm's cells one by one (in a flood, those rows are the last skip's own).
    private var mirror = ScreenMirror()
    /// Home and erase: how a skip's redraw starts.
    private static let clearScreen: [UInt8] = Array("\u{1b}[H\u{1b}[2J".utf8)

    /// Hands bytes to libvterm.
    private func input(_ p: UnsafePointer<UInt8>, _ range: Range<Int>) {
        _ = vterm_input_write(vt, UnsafeRawPointer(p + range.lowerBound).assumingMemoryBound(to: CChar.self), range.count)
    }

    /// Whether the screen is where a plain run can skip scrolling: the primary screen, the whole screen
    /// scrolling, autowrap on, the cursor at the start of an empty bottom row, and a default pen (the run's
    /// cells then have default colours and no attributes).
    private func canSkipPlainLines() -> Bool {
        // A one-row screen keeps no scrollback in libvterm (nothing moves when it scrolls).
        guard rows >= 2, !isAltScreen, modes.isPlain else { return false }
        var pos = VTermPos()
        vterm_state_get_cursorpos(state, &pos)
        guard Int(pos.row) == rows - 1, pos.col == 0 else { return false }
        var cell = VTermScreenCell()
        for c in 0..<cols {
            _ = vterm_screen_get_cell(screen, VTermPos(row: Int32(rows - 1), col: Int32(c)), &cell)
            var bg = cell.bg
            if cell.chars.0 != 0 || handsfree_vterm_color_is_default_bg(&bg) == 0 { return false }
        }
        var v = VTermValue()
        for attr in [VTERM_ATTR_BOLD, VTERM_ATTR_UNDERLINE, VTERM_ATTR_ITALIC, VTERM_ATTR_BLINK, VTERM_ATTR_REVERSE,
                     VTERM_ATTR_STRIKE, VTERM_ATTR_FONT] {
            v = VTermValue()
            guard vterm_state_get_penattr(state, attr, &v) != 0 else { return false }
            // Booleans and numbers share the first bytes of the union; zero is off for both.
            if v.number != 0 { return false }
        }
        v = VTermValue()
        guard vterm_state_get_penattr(state, VTERM_ATTR_FOREGROUND, &v) != 0, handsfree_vterm_color_is_default_fg(&v.color) != 0 else { return false }
        v = VTermValue()
        guard vterm_state_get_penattr(state, VTERM_ATTR_BACKGROUND, &v) != 0, handsfree_vterm_color_is_default_bg(&v.color) != 0 else { return false }
        return true
    }

    /// Does what feeding `run` would: the screen's rows above the cursor and the run's first rows scroll into
    /// the scrollback, and the screen shows the run's last rows with the cursor on the empty row below them.
    private func skipPlainLines(_ p: UnsafePointer<UInt8>, _ run: PlainRun) {
        // Read once: a property of the class read in the loops below is an exclusivity check each time.
        let rows = self.rows, cols = self.cols, screen = self.screen, limit = scrollbackLimit
        // The run's rows, each a byte range (a long line wraps at the screen's width).
        var wrapped: [Range<Int>] = []
        wrapped.reserveCapacity(run.rows)
        var i = run.start
        while i < run.end {
            var j = i
            while p[j] != 0x0d { j += 1 }
            for k in 0..<ScreenMirror.rowCount(ofLine: i..<j, cols: cols) { wrapped.append(ScreenMirror.row(k, ofLine: i..<j, cols: cols)) }
            i = j + 2
        }
        // What scrolls off: the screen's rows above the cursor, then the run's rows but the last rows - 1.
        // Kept as libvterm's cells, made into values only if read (most are pushed out by the flood first).
        let leaving = wrapped.count - (rows - 1)
        // Lines the run's own lines would push out of the ring at once are not made: of the screen's rows,
        // only the last `limit - leaving` stay.
        if limit > 0, leaving < limit {
            let firstKept = max(0, rows - 1 - (limit - leaving))
            if let shown = mirror.rowsAboveTheCursor(rows - 1, cols: cols) {
                mirror.bytes.withUnsafeBufferPointer { b in
                    if let base = b.baseAddress { pushPlainScrollback(base, shown[firstKept...]) }
                }
                skipsFromBytes += 1
            } else {
                for r in firstKept..<(rows - 1) {
                    let line = [VTermScreenCell](unsafeUninitializedCapacity: cols) { buf, count in
                        for c in 0..<cols {
                            buf[c] = VTermScreenCell()
                            _ = vterm_screen_get_cell(screen, VTermPos(row: Int32(r), col: Int32(c)), &buf[c])
                        }
                        count = cols
                    }
                    appendScrollback(.vterm(line))
                }
            }
        }
        rowsSkipped += leaving
        pushPlainScrollback(p, wrapped[max(0, leaving - limit)..<leaving])
        // The screen: cleared (which keeps the scrollback), the staying rows written from the top, the cursor
        // on the row below them; no row scrolls.
        var redraw: [UInt8] = Self.clearScreen
        for w in wrapped[leaving...] {
            redraw.append(contentsOf: UnsafeBufferPointer(start: p + w.lowerBound, count: w.count))
            redraw.append(0x0d); redraw.append(0x0a)
        }
        // Our own cursor move and erase change none of the modes the skip follows: no scan.
        redraw.withUnsafeBufferPointer { b in if let base = b.baseAddress { input(base, 0..<b.count) } }
        mirror.start(redraw, from: Self.clearScreen.count)
    }

    /// Keeps plain rows (ASCII letters in the default pen), the byte ranges `lines` of `p`, as scrollback lines.
    ///
    /// Kept as bytes: most such lines are never looked at (a flood pushes them out of the ring again), so they
    /// become cells only when read. The lines of one skip share one copy of their bytes (`PlainLines`): a
    /// flood past the scrollback (`seq 1 2000000`) made and freed an array for every line, and with an
    /// exclusivity check of the ring at each line that was a fifth of the shell's time in that flood.
    private func pushPlainScrollback(_ p: UnsafePointer<UInt8>, _ lines: ArraySlice<Range<Int>>) {
        guard scrollbackLimit > 0, let first = lines.first, let last = lines.last else { return }
        let base = first.lowerBound
        let shared = PlainLines(Array(UnsafeBufferPointer(start: p + base, count: last.upperBound - base)))
        var next = lines.startIndex
        while next < lines.endIndex, scrollback.count < scrollbackLimit {
            let r = lines[next]
            scrollback.append(.plain(shared, r.lowerBound - base..<r.upperBound - base))
            next += 1
        }
        guard next < lines.endIndex else { return }
        // The ring is full: one access of it for all the lines, each taking the oldest line's place.
        var head = scrollbackHead
        let limit = scrollbackLimit
        scrollback.withUnsafeMutableBufferPointer { ring in
            for r in lines[next...] {
                ring[head] = .plain(shared, r.lowerBound - base..<r.upperBound - base)
                head = head + 1 == limit ? 0 : head + 1
            }
        }
        scrollbackHead = head
    }

    /// Feeds the child's output to the emulator; returns the bytes to write back to the child (query replies).
    public func feed(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Bytes for the child produced since the last call (key encodings and query replies).
    public func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    /// Returns and clears the count of bells.
    public func takeBells() -> Int {
        defer { bells = 0 }
        return bells
    }

    // MARK: Keys to the child

    /// Encodes a key as the child's current modes want it; returns the bytes to write to the child.
    public func press(_ key: TerminalKey, modifiers: TerminalModifiers = []) -> [UInt8] {
        for call in key.calls(modifiers: modifiers) {
            switch call {
            case .key(let k, let m): vterm_keyboard_key(vt, VTermKey(rawValue: k), VTermModifier(rawValue: UInt32(m.rawValue)))
            case .unichar(let c, let m): vterm_keyboard_unichar(vt, c, VTermModifier(rawValue: UInt32(m.rawValue)))
            }
        }
        return takeOutput()
    }

    /// Encodes typed text (each character as if keyed); returns the bytes to write to the child.
    public func type(_ text: String) -> [UInt8] {
        for s in text.unicodeScalars { vterm_keyboard_unichar(vt, s.value, VTermModifier(rawValue: 0)) }
        return takeOutput()
    }

    /// Encodes text as a paste (bracketed if the child asked for it, so a newline inserts rather than runs).
    public func paste(_ text: String) -> [UInt8] {
        vterm_keyboard_start_paste(vt)
        for s in text.unicodeScalars { vterm_keyboard_unichar(vt, s.value, VTermModifier(rawValue: 0)) }
        vterm_keyboard_end_paste(vt)
        return takeOutput()
    }

    // MARK: Size

    /// Resizes the emulated screen (the child is told separately, through the pty).
    public func resize(rows: Int, cols: Int) {
        let r = max(1, rows), c = max(2, cols)
        guard r != self.rows || c != self.cols else { return }
        self.rows = r
        self.cols = c
        mirror.drop()
        cache = .blank(rows: r, cols: c)
        dirtyLo = Array(repeating: 0, count: r)
        dirtyHi = Array(repeating: c, count: r)
        vterm_set_size(vt, Int32(r), Int32(c))
        settleAfterResize()
        vterm_screen_flush_damage(screen)
        anyDirty = true
    }

    /// Resets the margins to the whole screen and puts the cursor back on it, as xterm does at a resize.
    ///
    /// libvterm 0.1.4 leaves both wrong after a resize, and writes out of bounds afterwards:
    /// - it moves the cursor up by the rows a shorter screen pushes into the scrollback, with no floor: with
    ///   text below the cursor (a prompt at the top, output below) it lands above row 0;
    /// - it keeps a scroll region's top (and a left margin) past a shorter (narrower) screen's bottom, and the
    ///   next line feed scrolls a region of negative height.
    /// A sequence still open is abandoned first (CAN), or these would become part of it.
    private func settleAfterResize() {
        let cursor = onTheScreen(libvtermCursor)
        var bytes: [UInt8] = inputGuard.abandonSequence() ? [0x18] : []
        // DECSTBM and DECSLRM with no parameters, which home the cursor; then the cursor back.
        bytes += Array("\u{1b}[r\u{1b}[s".utf8) + Self.cursorMove(to: cursor)
        write(bytes)
    }

    // MARK: Reading the screen

    /// Whether anything visible changed since the last snapshot.
    public var hasChanges: Bool { anyDirty }

    /// The screen now, as values. Only rows that changed since the last snapshot are read from libvterm.
    public func snapshot() -> TerminalSnapshot {
        for r in 0..<rows where dirtyLo[r] < dirtyHi[r] {
            readRow(r, dirtyLo[r]..<dirtyHi[r])
            dirtyLo[r] = 0
            dirtyHi[r] = 0
        }
        anyDirty = false
        return TerminalSnapshot(rows: rows, cols: cols, cells: cache, cursor: cursor, cursorVisible: cursorVisible,
                                isAltScreen: isAltScreen, title: title)
    }

    private func readRow(_ r: Int, _ columns: Range<Int>) {
        let screen = screen
        cache.changeRow(r) { row in
            var cell = VTermScreenCell()
            var c = columns.lowerBound
            while c < columns.upperBound {
                _ = vterm_screen_get_cell(screen, VTermPos(row: Int32(r), col: Int32(c)), &cell)
                row[c] = VTermScreen.convert(cell)
                c += 1
            }
        }
    }

    /// A libvterm cell as a value.
    static func convert(_ cell: VTermScreenCell) -> TerminalCell {
        var attrs: TerminalAttributes = []
        let a = cell.attrs
        if a.bold != 0 { attrs.insert(.bold) }
        if a.underline != 0 { attrs.insert(.underline) }
        if a.italic != 0 { attrs.insert(.italic) }
        if a.reverse != 0 { attrs.insert(.reverse) }
        if a.blink != 0 { attrs.insert(.blink) }
        if a.strike != 0 { attrs.insert(.strike) }
        var fg = cell.fg, bg = cell.bg
        let foreground = handsfree_vterm_color_is_default_fg(&fg) != 0 ? .default : color(fg)
        let background = handsfree_vterm_color_is_default_bg(&bg) != 0 ? .default : color(bg)
        let ch = cell.chars
        if ch.0 == 0xFFFF_FFFF {
            return TerminalCell(scalar: 0, width: 0, attributes: attrs, foreground: foreground, background: background)
        }
        let width = UInt8(clamping: max(1, Int(cell.width)))
        if ch.1 == 0 {
            // One scalar, most cells: no String is made.
            return TerminalCell(scalar: ch.0 == 0 ? 0x20 : ch.0, width: width, attributes: attrs,
                                foreground: foreground, background: background)
        }
        return TerminalCell(text: text(cell), width: width, attributes: attrs,
                            foreground: foreground, background: background)
    }

    private static func color(_ c: VTermColor) -> TerminalColor {
        var c = c
        if handsfree_vterm_color_is_indexed(&c) != 0 { return .indexed(c.indexed.idx) }
        return .rgb(c.rgb.red, c.rgb.green, c.rgb.blue)
    }

    /// The cell's character and combining marks; a space if empty.
    private static func text(_ cell: VTermScreenCell) -> String {
        let ch = cell.chars
        guard ch.0 != 0 else { return " " }
        if ch.1 == 0, let s = Unicode.Scalar(ch.0) { return String(Character(s)) }
        var out = String.UnicodeScalarView()
        for v in [ch.0, ch.1, ch.2, ch.3, ch.4, ch.5] {
            guard v != 0 else { break }
            // Invalid scalars (surrogates from binary garbage) show as U+FFFD.
            out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
        }
        return String(out)
    }

    // MARK: Scrollback

    /// Lines that scrolled off the top of the primary screen and are kept.
    public var scrollbackCount: Int { scrollback.count }

    /// A scrollback line, 0 being the one just above the screen; trailing blank cells are not kept.
    public func scrollbackLine(_ back: Int) -> [TerminalCell] {
        guard back >= 0, back < scrollback.count else { return [] }
        return scrollback[ringIndex(scrollback.count - 1 - back)].cells
    }

    /// What the pane shows scrolled back `offset` lines: the newest `offset` scrollback lines above the top of the
    /// screen, as a snapshot of the screen's size.
    ///
    /// `offset` is clamped to `0...scrollbackCount`; 0 is the live screen. Scrollback lines are cut or padded with
    /// blanks to the screen's width (they keep the width they had when they scrolled off). The cursor is hidden
    /// while scrolled back. On the alternate screen (vim, less) there is no scrollback to show: the live screen.
    public func view(scrolledBack offset: Int) -> TerminalSnapshot {
        let live = snapshot()
        let k = isAltScreen ? 0 : min(max(0, offset), scrollback.count)
        guard k > 0 else { return live }
        var shown: [[TerminalCell]] = []
        shown.reserveCapacity(rows)
        for i in 0..<rows {
            let j = i - k
            if j >= 0 {
                shown.append(live.cells.rows[j])
            } else {
                let line = scrollbackLine(-j - 1)
                let n = min(cols, line.count)
                var row = Array(line[0..<n])
                // A wide character cut at the right edge would leave half a glyph.
                if n > 0, n == cols, line.count > cols, row[n - 1].width == 2 { row[n - 1] = .blank }
                if n < cols { row += repeatElement(TerminalCell.blank, count: cols - n) }
                shown.append(row)
            }
        }
        var view = live
        view.cells = TerminalCells(rows: shown, cols: cols)
        view.cursorVisible = false
        view.cursor = TerminalPosition(row: min(rows - 1, live.cursor.row + k), col: live.cursor.col)
        return view
    }

    /// Scrollback lines oldest first: `count` lines ending `back` lines above the screen (0 is the line just
    /// above it). Clamped to what is kept; for reading a window of history without building a whole view.
    public func scrollbackWindow(back: Int, count: Int) -> [[TerminalCell]] {
        guard count > 0, back >= 0, back < scrollback.count else { return [] }
        let oldest = min(scrollback.count - 1, back + count - 1)
        return (back...oldest).reversed().map(scrollbackLine)
    }

    /// A scrollback line's text (see `scrollbackLine`).
    public func scrollbackText(_ back: Int) -> String { TerminalSnapshot.text(of: scrollbackLine(back)) }

    private func ringIndex(_ logical: Int) -> Int {
        scrollback.count < scrollbackLimit ? logical : (scrollbackHead + logical) % scrollbackLimit
    }

    private func pushScrollback(_ cells: UnsafePointer<VTermScreenCell>, count: Int) {
        guard scrollbackLimit > 0 else { return }
        appendScrollback(.cells(VTermScreen.convertLine(cells, count: count)))
    }

    /// A row of libvterm cells as values, without its trailing blanks (the common case: short lines on a wide
    /// screen), which are skipped before converting.
    static func convertLine(_ cells: UnsafePointer<VTermScreenCell>, count: Int) -> [TerminalCell] {
        var n = count
        while n > 0 {
            let c = cells[n - 1]
            var bg = c.bg
            if c.chars.0 != 0 || handsfree_vterm_color_is_default_bg(&bg) == 0 || c.attrs.reverse != 0 || c.attrs.underline != 0 { break }
            n -= 1
        }
        var line: [TerminalCell] = []
        line.reserveCapacity(n)
        for i in 0..<n { line.append(VTermScreen.convert(cells[i])) }
        return line
    }

    private func appendScrollback(_ line: ScrollbackLine) {
        if scrollback.count < scrollbackLimit {
            scrollback.append(line)
        } else {
            scrollback[scrollbackHead] = line
            scrollbackHead = (scrollbackHead + 1) % scrollbackLimit
        }
    }

    /// Gives back the newest scrollback line when the screen grows taller.
    private func popScrollback(into cells: UnsafeMutablePointer<VTermScreenCell>, count: Int) -> Bool {
        guard !scrollback.isEmpty else { return false }
        let newest = ringIndex(scrollback.count - 1)
        let line = scrollback[newest].cells
        if scrollback.count < scrollbackLimit || scrollbackHead == 0 {
            scrollback.remove(at: newest)
            if scrollbackHead > 0 { scrollbackHead = 0 }
        } else {
            // Unroll the ring first so removing the newest line keeps the order.
            scrollback = Array(scrollback[scrollbackHead...] + scrollback[..<scrollbackHead])
            scrollbackHead = 0
            scrollback.removeLast()
        }
        var defFG = VTermColor(), defBG = VTermColor()
        vterm_state_get_default_colors(state, &defFG, &defBG)
        for i in 0..<count {
            var out = VTermScreenCell()
            out.fg = defFG
            out.bg = defBG
            out.width = 1
            // A wide character in the last column would have libvterm write its second half past the row
            // (the line was kept from a wider screen): it comes back as a blank.
            if i < line.count, !(line[i].width == 2 && i == count - 1) {
                let src = line[i]
                var scalars = Array(src.text.unicodeScalars.prefix(6).map(\.value))
                if src.width == 0 { scalars = [0xFFFF_FFFF] }
                if scalars == [0x20] { scalars = [] }
                withUnsafeMutableBytes(of: &out.chars) { raw in
                    let p = raw.bindMemory(to: UInt32.self)
                    for (k, v) in scalars.enumerated() { p[k] = v }
                }
                out.width = CChar(src.width == 0 ? 1 : src.width)
                out.attrs.bold = src.attributes.contains(.bold) ? 1 : 0
                out.attrs.underline = src.attributes.contains(.underline) ? 1 : 0
                out.attrs.italic = src.attributes.contains(.italic) ? 1 : 0
                out.attrs.reverse = src.attributes.contains(.reverse) ? 1 : 0
                out.attrs.blink = src.attributes.contains(.blink) ? 1 : 0
                out.attrs.strike = src.attributes.contains(.strike) ? 1 : 0
                if let c = VTermScreen.vtermColor(src.foreground) { out.fg = c }
                if let c = VTermScreen.vtermColor(src.background) { out.bg = c }
            }
            cells[i] = out
        }
        return true
    }

    private static func vtermColor(_ c: TerminalColor) -> VTermColor? {
        var out = VTermColor()
        switch c {
        case .default: return nil
        case .indexed(let i): vterm_color_indexed(&out, i)
        case .rgb(let r, let g, let b): vterm_color_rgb(&out, r, g, b)
        }
        return out
    }
}

extension UnsafePointer where Pointee == UInt8 {
    /// The bytes up to the first NUL.
    fileprivate var bufferUntilNUL: UnsafeBufferPointer<UInt8> {
        var n = 0
        while self[n] != 0 { n += 1 }
        return UnsafeBufferPointer(start: self, count: n)
    }
}

/// A run of plain lines in a slice of child output: after the first CR LF, complete lines of printable ASCII
/// each ended by CR LF, up to the last such line.
struct PlainRun {
    /// Byte offsets: the run starts after the first CR LF and ends after its last CR LF.
    var start: Int, end: Int
    /// Screen rows the run's lines take (a line longer than the screen's width wraps).
    var rows: Int

    static func find(_ p: UnsafePointer<UInt8>, count: Int, cols: Int) -> PlainRun? {
        var i = 0
        while i + 1 < count, !(p[i] == 0x0d && p[i + 1] == 0x0a) { i += 1 }
        guard i + 1 < count else { return nil }
        let start = i + 2
        var end = start, rows = 0
        var lineStart = start
        i = start
        while i < count {
            let b = p[i]
            if b >= 0x20 && b < 0x7f { i += 1; continue }
            guard b == 0x0d, i + 1 < count, p[i + 1] == 0x0a else { break }
            rows += max(1, (i - lineStart + cols - 1) / cols)
            i += 2
            end = i
            lineStart = i
        }
        return end > start ? PlainRun(start: start, end: end, rows: rows) : nil
    }
}

/// The modes a plain run's skip depends on, followed through the escape sequences the child sends:
/// a scroll region, autowrap off, origin mode, left and right margins, and the character set (DEC line
/// drawing shows ASCII letters as other glyphs). Conservative: a sequence it does not follow leaves the flags
/// as they are, and anything unusual turns the skip off until a reset.
struct ModeWatch {
    private(set) var scrollRegion = false
    private(set) var autowrapOff = false
    private(set) var originMode = false
    private(set) var lrMargins = false
    /// The sets designated as G0…G3 (`B`: ASCII), which of them is in use (SI picks G0, SO G1, ESC n G2,
    /// ESC o G3), and a single shift (SS2, SS3) waiting for the next character.
    private var sets: (UInt8, UInt8, UInt8, UInt8) = (0x42, 0x42, 0x42, 0x42)
    private var inUse = 0
    private var singleShift = false
    /// A control byte came inside the escape sequence being read.
    private var controlInEscape = false
    /// Where in a sequence the last byte left the parser, as libvterm's own parser follows it: an escape with
    /// its intermediates, a CSI, a character set's designation, or a string (OSC, DCS…) whose text prints
    /// nothing.
    private enum State { case ground, escape(intermediates: Bool), csi, designate(UInt8), string }
    private var state = State.ground
    private var params: [UInt8] = []

    /// Whether the next bytes print as plain ASCII lines would: the modes are plain, and no sequence or
    /// string is open (libvterm would read the lines as the rest of it).
    var isPlain: Bool {
        guard case .ground = state else { return false }
        return !scrollRegion && !autowrapOff && !originMode && !lrMargins && !singleShift
            && [sets.0, sets.1, sets.2, sets.3][inUse] == 0x42
    }

    mutating func scan(_ p: UnsafePointer<UInt8>, _ range: Range<Int>, rows: Int) {
        var i = range.lowerBound
        while i < range.upperBound {
            let b = p[i]
            defer { i += 1 }
            // C0 controls act wherever they come, inside sequences and strings too (as libvterm's parser does):
            // CAN and SUB abandon a sequence, ESC starts another, SO and SI pick G1 or G0.
            if b < 0x20 {
                switch b {
                case 0x18, 0x1a: state = .ground
                case 0x1b: state = .escape(intermediates: false); controlInEscape = false
                case 0x0e: inUse = 1
                case 0x0f: inUse = 0
                case 0x07: if case .string = state { state = .ground }
                default: break
                }
                // What libvterm makes of an escape's intermediates once a control came between them and the
                // final byte is not followed: both readings are kept (see `controlInEscape`).
                if case .escape = state { controlInEscape = b != 0x1b }
                if case .designate(let slot) = state { designate(slot, 0); state = .escape(intermediates: true); controlInEscape = true }
                continue
            }
            switch state {
            case .ground:
                // A printed character takes the single shift (a UTF-8 sequence's lead byte counts).
                if b != 0x7f && (b < 0x80 || b >= 0xc0) { singleShift = false }
            case .string:
                break
            case .escape(let intermediates):
                // Bytes from 0x80 do not end an escape.
                if b >= 0x80 || b == 0x7f { break }
                if b < 0x30 {
                    if !intermediates, b >= 0x28 && b <= 0x2b { state = .designate(b) }   // ( ) * +
                    else { state = .escape(intermediates: true) }
                    break
                }
                state = .ground
                // With a control inside, the final may also be read as if there were no intermediates: what
                // that would open or shift is taken (a reset is not, which only keeps the skip off).
                if intermediates && !controlInEscape { break }
                switch b {
                case 0x5b: state = .csi; params.removeAll(keepingCapacity: true)   // [
                case 0x5d, 0x50, 0x58, 0x5e, 0x5f: state = .string   // ] P X ^ _
                case 0x63: if !controlInEscape { reset() }   // ESC c: full reset
                case 0x4e, 0x4f: singleShift = true   // ESC N, ESC O
                case 0x6e: inUse = 2   // ESC n
                case 0x6f: inUse = 3   // ESC o
                default: break
                }
            case .designate(let slot):
                if b >= 0x80 || b == 0x7f { break }
                // A set named with more intermediates is not ASCII: it is kept as not plain (0).
                designate(slot, b < 0x30 ? 0 : b)
                state = b < 0x30 ? .escape(intermediates: true) : .ground
            case .csi:
                if b >= 0x40 && b <= 0x7e {
                    finish(b, rows: rows)
                    state = .ground
                } else if b < 0x7f, params.count < 64 {
                    params.append(b)
                }
            }
        }
    }

    /// Names the set of G0…G3 (`slot` is the byte after ESC: `(`, `)`, `*`, `+`); 0 for one not known.
    private mutating func designate(_ slot: UInt8, _ set: UInt8) {
        switch slot {
        case 0x28: sets.0 = set
        case 0x29: sets.1 = set
        case 0x2a: sets.2 = set
        default: sets.3 = set
        }
    }

    private mutating func reset() {
        scrollRegion = false; autowrapOff = false; originMode = false; lrMargins = false
        sets = (0x42, 0x42, 0x42, 0x42); inUse = 0; singleShift = false
    }

    private mutating func finish(_ final: UInt8, rows: Int) {
        let privateMode = params.first == 0x3f
        // CSI ! p (a soft reset) is not followed: libvterm 0.1.4 reads `!` as a leader there and does nothing,
        // so a scroll region set before it stays.
        let numbers = String(decoding: params.drop { $0 == 0x3f }, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        switch (final, privateMode) {
        case (0x72, false):   // DECSTBM
            let top = numbers.first.flatMap { $0 } ?? 1, bottom = numbers.count > 1 ? (numbers[1] ?? rows) : rows
            scrollRegion = !(top <= 1 && (bottom == 0 || bottom >= rows))
        case (0x68, true), (0x6c, true):   // DECSET / DECRST
            let on = final == 0x68
            for n in numbers {
                switch n {
                case 6: originMode = on
                case 7: autowrapOff = !on
                case 69: lrMargins = on
                default: break
                }
            }
        default:
            break
        }
    }
}

/// A scrollback line as kept: cells, or for a plain row that skipped libvterm, its ASCII bytes (written spaces
/// included) in a copy shared with the rows skipped with it, made into default-pen cells when read.
enum ScrollbackLine {
    case cells([TerminalCell])
    /// A plain line: its bytes in a copy shared with the other lines pushed with it.
    case plain(PlainLines, Range<Int>)
    /// A screen row as libvterm's cells, converted when read.
    case vterm([VTermScreenCell])

    var cells: [TerminalCell] {
        switch self {
        case .cells(let c): return c
        case .vterm(let raw):
            return raw.withUnsafeBufferPointer { b in b.baseAddress.map { VTermScreen.convertLine($0, count: b.count) } ?? [] }
        case .plain(let shared, let range): return shared.bytes[range].map { TerminalCell(text: String(UnicodeScalar($0))) }
        }
    }
}

/// What libvterm was fed since a skip's redraw, kept while all of it is plain lines (printable ASCII, each line
/// ended by CR LF): the screen's rows above the cursor are then the last rows these bytes make.
///
/// Anything else (an escape, a control, a lone CR or LF, UTF-8) drops it until the next skip, as does a
/// resize; so does growing past `limit` (output that trickles in with no skip for long).
struct ScreenMirror {
    /// The redraw (from `base`) and what followed it; empty while dropped.
    private(set) var bytes: [UInt8] = []
    private var base = 0
    static let limit = 256 * 1024

    /// Whether the mirror holds the screen: a redraw always starts with its cursor move and erase.
    var isValid: Bool { !bytes.isEmpty }

    /// Starts over from a skip's redraw: `redraw[from...]` is the screen's rows, each ended by CR LF.
    mutating func start(_ redraw: [UInt8], from: Int) {
        bytes = redraw
        base = from
    }

    mutating func drop() { bytes = [] }

    /// Takes bytes fed to libvterm, or drops the mirror at the first that is not part of a plain line.
    mutating func follow(_ p: UnsafePointer<UInt8>, _ range: Range<Int>) {
        guard bytes.count + range.count <= Self.limit else { drop(); return }
        // A CR must be followed by an LF and an LF must follow a CR, across feeds too.
        var afterCR = bytes.last == 0x0d
        for i in range {
            let b = p[i]
            if afterCR {
                guard b == 0x0a else { drop(); return }
                afterCR = false
            } else if b == 0x0d {
                afterCR = true
            } else if b < 0x20 || b >= 0x7f {
                drop(); return
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: p + range.lowerBound, count: range.count))
    }

    /// How many screen rows a line of plain bytes takes: `cols` bytes a row, and an empty line one row.
    @inline(__always)
    static func rowCount(ofLine line: Range<Int>, cols: Int) -> Int { max(1, (line.count + cols - 1) / cols) }

    /// The bytes of the line's row `k` (counted from 0 at the line's start).
    @inline(__always)
    static func row(_ k: Int, ofLine line: Range<Int>, cols: Int) -> Range<Int> {
        line.lowerBound + k * cols..<min(line.upperBound, line.lowerBound + (k + 1) * cols)
    }

    /// The byte ranges of the last `count` screen rows the lines make, oldest first (a line longer than `cols`
    /// wraps); nil unless the mirror holds at least that many rows and ends at the start of a line.
    func rowsAboveTheCursor(_ count: Int, cols: Int) -> [Range<Int>]? {
        guard isValid, bytes.count - base >= 2, bytes[bytes.count - 1] == 0x0a else { return nil }
        var out: [Range<Int>] = []
        out.reserveCapacity(count)
        // Line by line from the newest: each line's rows newest first, then all of them turned round.
        var end = bytes.count - 2
        while out.count < count {
            var start = end
            while start > base, bytes[start - 1] != 0x0a { start -= 1 }
            let n = Self.rowCount(ofLine: start..<end, cols: cols)
            for k in stride(from: n - 1, through: 0, by: -1) where out.count < count {
                out.append(Self.row(k, ofLine: start..<end, cols: cols))
            }
            guard start > base else { break }
            end = start - 2
        }
        guard out.count == count else { return nil }
        out.reverse()
        return out
    }
}

/// The bytes of plain lines pushed into the scrollback together; each line holds it and its own range. It is
/// freed with the last of them, so the ring keeps at most its lines' bytes and one skip's more.
final class PlainLines {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
