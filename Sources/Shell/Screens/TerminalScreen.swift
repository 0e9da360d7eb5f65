import Config
import Foundation
import Localization
import TerminalModel

/// The Terminal screen: the user's shell (or any program) in a pane, typed into from every modality.
///
/// The pane shows what the runtime last read of the program (`ScreenContext.terminal`); everything the user
/// does here becomes a `TerminalRequest` effect that the runtime carries out on its output sink (the pty, or
/// the tmux pane of `--type-into`); what the sink can do reaches the screen as `TerminalView.sink`. The letter
/// keyboard (with a symbol layer), a key row with what terminal programs need, the suggestion bar and
/// dictation all type into the program. Back does not leave: a running editor must not
/// lose the user to one stray gesture, so leaving is the ◀ Leave key or a `"leave"` binding.
public struct TerminalScreen: Screen {
    public let name = "terminal"
    public var title: String { N_("Terminal") }

    /// Ctrl and Alt latched for the next key.
    public var latches = TerminalLatches()
    /// The keyboard shows the symbols and digits instead of the letters.
    public var symbolLayer = false
    /// A dictation hypothesis not yet final, shown on the info line.
    public var partial: String?

    public init() {}

    /// The screen changes with the program's output and the user's input, never with time alone.
    public var wantsTicks: Bool { false }

    /// Target ids.
    public static let paneID = "terminal.pane", keyboardID = "terminal.keyboard", suggestionID = "terminal.suggestion"
    public static let leaveID = "terminal.leave", layerID = "terminal.layer", restartID = "terminal.restart"
    public static let speakID = "terminal.speak"
    static let keyPrefix = "terminal.key."

    /// The symbol layer's keyboard rows: digits, then `- / . | > < ~ $ * &`, then `; : = _ " '` and a few more.
    public static let symbolRows = ["1234567890()+", "-/.|><~$*&;:^", "=_\"'!#%@[]{}\\`"]

    /// The key row, in two lines: moving around, then acting.
    static let rowA = ["escape", "tab", "left", "up", "down", "right", "home", "end", "page-up", "page-down"]
    static let rowB = ["enter", "backspace", "ctrl-c", "ctrl-d", "ctrl-z", "ctrl-latch", "alt-latch"]
    /// The keys' caps: arrows and ⌫ by their signs, the others by the desktop's names in the language
    /// (`KeyCap`: "Strg+C", "Bild↑" in German), as the messages name them.
    static func cap(_ id: String, _ catalog: Catalog) -> String {
        let signs = ["left": "←", "up": "↑", "down": "↓", "right": "→", "backspace": "⌫"]
        if let sign = signs[id] { return sign }
        switch TerminalKeyRow.key(id: id)?.action {
        case .key(let k): return KeyCap.text(k, catalog)
        case .latch(let m): return KeyCap.modifiers(m, catalog).joined(separator: "+")
        case nil: return id
        }
    }

    /// `cap` on a key `width` columns wide: Enter gets its sign in front where that fits.
    static func cap(_ id: String, _ catalog: Catalog, width: Int) -> String {
        let text = cap(id, catalog)
        guard id == "enter" else { return text }
        return CellGrid.columns(of: "⏎ " + text) <= width ? "⏎ " + text : text
    }

    struct Layout {
        var info: Rect, pane: Rect, suggestions: Rect, rowA: Rect, rowB: Rect, keyboard: Rect, ended: Rect
    }

    /// Lays the screen out from the bottom: keyboard, key row, suggestions, an info line; the pane takes the
    /// rest. Keys are two rows high when that still leaves the pane twelve rows.
    func layout(_ b: Rect, keyRows: Int) -> Layout {
        let x = b.x + 1, w = b.w - 2
        let kbRows = keyRows + 1
        let unit = b.h - (1 + 2 + 4 + 2 * kbRows) >= 12 ? 2 : 1
        let kbH = kbRows * unit
        let kb = Rect(x: x, y: b.maxY - kbH, w: w, h: kbH)
        let rowB = Rect(x: x, y: kb.y - unit, w: w, h: unit)
        let rowA = Rect(x: x, y: rowB.y - unit, w: w, h: unit)
        let sugg = Rect(x: x, y: rowA.y - unit, w: w, h: unit)
        let info = Rect(x: x, y: sugg.y - 1, w: w, h: 1)
        let pane = Rect(x: b.x, y: b.y, w: b.w, h: max(1, info.y - b.y))
        let ended = Rect(x: x, y: rowA.y, w: w, h: b.maxY - rowA.y)
        return Layout(info: info, pane: pane, suggestions: sugg, rowA: rowA, rowB: rowB, keyboard: kb, ended: ended)
    }

    /// Rows the keyboard area has room for: the letters' or the symbols', whichever has more, so switching
    /// layers moves no key (and the pane keeps its size).
    static func keyboardRows(_ keymap: Keymap) -> Int { max(keymap.keyboardRows.count, symbolRows.count) }

    /// Suggestions for the command line before the cursor; none at a password prompt, while scrolled back,
    /// or once the program ended.
    public func suggestions(_ ctx: ScreenContext) -> [String] { completions(ctx).map(\.shown) }

    /// What the suggestion bar offers and how each edits the line: program names where a command begins,
    /// file names where a path is typed (from the program's working directory), and the predictor's words
    /// to fill the rest of an argument's bar.
    func completions(_ ctx: ScreenContext) -> [CommandLineCompletion.Completion] {
        guard let v = ctx.terminal, !v.inputHidden, v.ended == nil, v.scrolledBack == 0,
              ctx.settings.suggestions > 0 else { return [] }
        let limit = ctx.settings.suggestions
        let line = v.lineBeforeCursor
        let slot = CommandLineCompletion.slot(line)
        var out: [CommandLineCompletion.Completion] = []
        var listed = false
        // The predictor is asked once: its words rank the programs the user has typed, and fill the bar.
        let predicted = ctx.predictor.suggest(line, limit: max(12, limit))
        switch slot.kind {
        case .command:
            out = CommandLineCompletion.commands(slot, known: ctx.listings.commands ?? [],
                                                 learned: predicted.map(Self.uncapitalised), limit: limit)
        case .path, .argument:
            // A bare argument is completed from the working directory only once something is typed, or
            // after cd; a path's directory is read as typed.
            if let d = CommandLineListings.directory(for: slot, in: v), let read = ctx.listings.entries(d), let entries = read {
                out = CommandLineCompletion.files(slot, entries: entries, limit: limit)
                listed = true
            }
        }
        // A path, or cd's directory, is a name on disk: once the disk was read, a dictionary word there is only
        // noise. Where it could not be (a tmux pane's relative path), the predictor's words are all there is.
        if (listed && (slot.kind == .path || slot.directoriesOnly)) || out.count >= limit { return out }
        let shown = Set(out.map(\.shown))
        for w in words(line, Array(predicted.prefix(limit))) where !shown.contains(w) && out.count < limit {
            out.append(CommandLineCompletion.Completion(shown: w, erase: 0, insert: "", learn: true))
        }
        return out
    }

    /// The predictor's words for the line, as typed: it capitalises after a prompt as at a sentence start,
    /// and commands are lower case, so a word is offered as typed unless the user began it with a capital.
    private func words(_ line: String, _ words: [String]) -> [String] {
        guard TextFieldModel.trailingWord(Substring(line)).word.first?.isUppercase != true else { return words }
        return words.map(Self.uncapitalised)
    }

    static func uncapitalised(_ w: String) -> String {
        guard w.count > 1, let f = w.first, f.isUppercase, w.dropFirst().allSatisfy({ !$0.isUppercase }) else { return w }
        return f.lowercased() + w.dropFirst()
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds, keyRows: Self.keyboardRows(ctx.keymap))
        let view = ctx.terminal
        if let view, view.sink.contains(.showsPane) {
            // Thousands of cells and no target: a layout (after every echoed key) does without them.
            if !c.layoutOnly { Self.drawPane(&c.grid, view, l.pane) }
        } else if let view {
            // A sink that shows nothing of its program (a desktop window): the pane says where keys go.
            c.grid.centered(ctx.tr("Typing into {name}", ["name": view.program]), in: l.pane, y: l.pane.y + l.pane.h / 2, style: Theme.hint)
        } else { c.grid.centered(ctx.tr("Starting…"), in: l.pane, y: l.pane.y + l.pane.h / 2, style: Theme.hint) }
        c.target(Self.paneID, ctx.tr("Terminal"), l.pane)
        drawInfo(&c, view, ctx.output, l.info)
        if let view, view.ended != nil
            || (view.problem != nil && view.sink.contains(.ownsProgram) && !view.snapshot.text.contains(where: { !$0.isWhitespace })) {
            // The program is gone: the choice is restart or leave, in big keys.
            let halves = l.ended.columns(2, gap: 2)
            c.button(Self.restartID, ctx.tr("↻ Restart {program}", ["program": view.program]), halves[0])
            c.button(Self.leaveID, ctx.tr("◀ Leave"), halves[1])
            return
        }
        if view?.inputHidden == true {
            c.grid.centered(ctx.tr("Input is hidden: no suggestions, nothing learned or logged"), in: l.suggestions,
                            y: l.suggestions.y, style: Theme.warning)
        } else {
            SuggestionBar.render(&c, Self.suggestionID, suggestions(ctx), l.suggestions, ctx)
        }
        keyRow(&c, Self.rowA, l.rowA, extra: [])
        keyRow(&c, Self.rowB, l.rowB, extra: [(Self.layerID, symbolLayer ? "abc" : "123 #+="),
                                              (Self.speakID, ctx.speaking ? ctx.tr("■ Stop") : ctx.tr("♪ Speak")), (Self.leaveID, ctx.tr("◀ Leave"))])
        c.letterKeyboard(Self.keyboardID, rows: symbolLayer ? Self.symbolRows : ctx.keyboardRows, l.keyboard,
                         enter: "⏎ " + Self.cap("enter", ctx.catalog))
    }

    private func keyRow(_ c: inout Canvas, _ ids: [String], _ r: Rect, extra: [(String, String)]) {
        let rects = r.columns(ids.count + extra.count, gap: 1)
        for (id, kr) in zip(ids, rects) { c.button(Self.keyPrefix + id, label(id, c.catalog, width: kr.w), kr) }
        for ((id, text), kr) in zip(extra, rects.dropFirst(ids.count)) { c.button(id, text, kr) }
    }

    private func label(_ id: String, _ catalog: Catalog, width: Int) -> String {
        let cap = Self.cap(id, catalog, width: width)
        if id == "ctrl-latch", latches.held.contains(.ctrl) { return cap + " ●" }
        if id == "alt-latch", latches.held.contains(.alt) { return cap + " ●" }
        return cap
    }

    private func drawInfo(_ c: inout Canvas, _ view: TerminalView?, _ output: OutputStatus, _ r: Rect) {
        guard let view else { return }
        // Most important first, since a narrow window cuts the end: what was not sent, what went wrong.
        var parts: [String] = []
        var style = Theme.hint
        let catalog = c.catalog
        if !output.unsent.isEmpty { parts.append(catalog.tr("not sent: {text}", ["text": TerminalScreen.printable(output.unsent)])) }
        if let p = output.problem { parts.append(p.text(catalog)); style = Theme.error }
        if let p = view.problem, p != output.problem { parts.append(p.text(catalog)); style = Theme.error }
        let problem = output.problem ?? view.problem
        if let e = view.ended { parts.append(e.text(catalog)); if problem == nil { style = Theme.warning } }
        if view.inputHidden { parts.append(catalog.tr("password prompt: input is hidden")); style = Theme.warning }
        if problem == nil {
            parts.append(view.sink.contains(.ownsProgram) ? view.program : catalog.tr("typing into {name}", ["name": view.program]))
        }
        if let p = partial, !view.inputHidden { parts.append(catalog.tr("hearing: {words}", ["words": p])) }
        let left = parts.joined(separator: " · ")
        var right = ""
        if view.scrolledBack > 0 {
            right = catalog.trn("scrolled back {back} of {n} line", "scrolled back {back} of {n} lines", view.scrollback, ["back": "\(view.scrolledBack)"])
        } else if !latches.held.isEmpty {
            let keys = KeyCap.modifiers(latches.held, catalog).joined(separator: " ")
            right = catalog.tr("{keys} held", ["keys": keys])
        }
        let rw = CellGrid.columns(of: right)
        c.text(left, x: r.x, y: r.y, style: style, maxWidth: max(0, r.w - rw - 1))
        if !right.isEmpty { c.text(right, x: r.maxX - rw, y: r.y, style: Theme.warning) }
    }

    /// Control characters shown as `^X`, so unsent text never reaches the host terminal raw.
    static func printable(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            if u.value < 0x20 { out += "^" + String(UnicodeScalar(UInt8(u.value + 0x40))) }
            else if u.value == 0x7f || (0x80..<0xa0).contains(u.value) { out += "�" }
            else { out.unicodeScalars.append(u) }
        }
        return out
    }

    /// Draws the program's screen into the pane, which must be blank (a new canvas, or rows just filled):
    /// top-left aligned, keeping the cursor's row in view when the program's screen is taller than the pane
    /// (until its resize arrives).
    static func drawPane(_ g: inout CellGrid, _ v: TerminalView, _ r: Rect, rows only: [Int]? = nil) {
        let s = v.snapshot
        let shift = paneShift(s, r)
        let cols = min(r.w, s.cols)
        // Neighbouring cells mostly share a look, so a style is worked out only when the look changes: the
        // pane is the largest drawing the shell makes (5,040 cells at 200x60), redrawn at every echo.
        var look = (TerminalAttributes(), TerminalColor.default, TerminalColor.default)
        var lookStyle = Self.style(TerminalCell.blank)
        for row in only ?? Array(0..<min(r.h, s.rows - shift)) where row >= 0 && row < min(r.h, s.rows - shift) {
            let sr = row + shift
            guard sr < s.cells.rows.count else { break }
            let cells = s.cells.rows[sr]
            var col = 0
            while col < min(cols, cells.count) {
                let cell = cells[col]
                if cell.width == 0 {
                    col += 1
                    continue
                }
                if cell.width == 2 && col + 1 >= r.w { break }
                if cell.attributes != look.0 || cell.foreground != look.1 || cell.background != look.2 {
                    look = (cell.attributes, cell.foreground, cell.background)
                    lookStyle = Self.style(cell)
                }
                var style = lookStyle
                if s.cursorVisible && sr == s.cursor.row && col == s.cursor.col {
                    style.attrs.formSymmetricDifference(.reverse)
                }
                // The rows were blanked first, and the emulator's cells are whole: nothing to mend.
                g.place(Cell(Self.character(cell), style, isContinuation: false), x: r.x + col, y: r.y + row)
                if cell.width == 2 {
                    g.place(Cell(Cell.continuation, style, isContinuation: true), x: r.x + col + 1, y: r.y + row)
                }
                col += Int(max(1, cell.width))
            }
        }
    }

    /// The program's first row the pane shows: 0, or more while the cursor's row would be below the pane.
    static func paneShift(_ s: TerminalSnapshot, _ r: Rect) -> Int {
        max(0, min(s.rows - r.h, s.cursor.row - r.h + 1))
    }

    /// The pane's rows whose drawing may differ between `old` and `new`, drawn at `r`: rows whose cells differ,
    /// and the rows the cursor left and reached. Nil when everything may (another size, a scroll of the pane).
    static func changedPaneRows(from old: TerminalView, to new: TerminalView, _ r: Rect) -> [Int]? {
        let a = old.snapshot, b = new.snapshot
        guard a.rows == b.rows, a.cols == b.cols, a.cells.rows.count == b.rows, b.cells.rows.count == b.rows,
              a.cells.cols == b.cols, b.cells.cols == b.cols, paneShift(a, r) == paneShift(b, r) else { return nil }
        let shift = paneShift(b, r)
        var rows: [Int] = []
        for row in 0..<min(r.h, b.rows - shift) where !TerminalCells.sameRow(a.cells, row + shift, b.cells, row + shift) {
            rows.append(row)
        }
        if a.cursor != b.cursor || a.cursorVisible != b.cursorVisible {
            rows += [a.cursor.row - shift, b.cursor.row - shift]
        }
        return rows
    }

    /// The character that stands for a cell's text, made safe for the host terminal.
    ///
    /// The emulator's text is one character with its marks, which Swift may still count as more than one
    /// (marks after a control, stray jamo): the first stands for the cell. A single byte, most of any pane,
    /// needs no grapheme breaking.
    static func character(_ cell: TerminalCell) -> Character {
        if let b = cell.singleByte { return b < 0x20 || b == 0x7f ? " " : Character(Unicode.Scalar(b)) }
        return character(cell.text)
    }

    /// The character that stands for `text`, made safe for the host terminal (`character(_:)` of a cell).
    static func character(_ text: String) -> Character {
        let utf8 = text.utf8
        if utf8.count == 1, let b = utf8.first {
            return b < 0x20 || b == 0x7f ? " " : Character(Unicode.Scalar(b))
        }
        return safe(text.first ?? " ")
    }

    /// A character the host terminal can take: the emulator never stores controls, but a cell is data.
    static func safe(_ ch: Character) -> Character {
        guard let u = ch.unicodeScalars.first else { return " " }
        return u.value < 0x20 || (0x7f..<0xa0).contains(u.value) ? " " : ch
    }

    /// A cell's look in the shell's colours: palette numbers pass through (the display shows them as they are
    /// on a 256-colour terminal, else as the nearest basic colour) and RGB goes to the nearest palette entry.
    static func style(_ cell: TerminalCell) -> Style {
        var attrs: Attributes = []
        if cell.attributes.contains(.bold) { attrs.insert(.bold) }
        if cell.attributes.contains(.underline) { attrs.insert(.underline) }
        if cell.attributes.contains(.reverse) { attrs.insert(.reverse) }
        return Style(fg: color(cell.foreground), bg: color(cell.background), attrs: attrs)
    }

    static func color(_ c: TerminalColor) -> Color {
        switch c {
        case .default: return .default
        case .indexed(let i): return .indexed(i)
        case .rgb(let r, let g, let b): return Color.nearest(r: r, g: g, b: b)
        }
    }

    // MARK: - Input

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        let view = ctx.terminal
        func typed(_ effects: [Effect]) -> Reply { Self.typed(effects, ctx) }
        // A key for the program changes the keys' labels only if it releases a latch (Ctrl ● back to Ctrl).
        let held = latches
        func passedOn(_ effects: [Effect]) -> Reply {
            var reply = typed(effects)
            reply.keepsLayout = latches == held
            return reply
        }
        switch input {
        case .terminalKey(let press):
            return passedOn([.terminal(.press(latches.press(press.key).adding(press.modifiers)))])
        case .key(let k):
            // A helper's keyboard: characters and Backspace go to the program.
            switch k {
            case .char(let ch): return passedOn(type(String(ch), ctx))
            case .backspace: return passedOn([.terminal(.press(TerminalKeyPress(.backspace)))])
            default: return .unhandled
            }
        case .dictation(let text, let isFinal):
            guard isFinal else { partial = text.isEmpty ? nil : text; return Reply(record: nil) }
            partial = nil
            return typed(dictate(text, ctx))
        case .action(.back, _, _):
            // Swallowed on purpose (see the type's comment); dictation still stops by its own routing.
            return Reply(record: "back-ignored")
        case .action(.commitWord, let t, _):
            let offered = completions(ctx)
            guard let w = SuggestionBar.chosen(t, Self.suggestionID, offered.map(\.shown)) else { return Reply(record: nil) }
            return Reply(effects: commit(w, offered, ctx), record: "commit-word")
        case .action(.deleteWord, _, _):
            return typed([.terminal(.press(TerminalKeyPress(.ctrl("w"))))])
        case .action(.scroll, let t, let gaze):
            guard let view, t?.id == Self.paneID, let g = gaze, let r = t?.rect else { return .unhandled }
            if g.y < r.y + r.h / 4 { return scroll(by: r.h / 2, view) }
            if g.y >= r.maxY - r.h / 4 { return scroll(by: -r.h / 2, view) }
            return Reply(record: nil)
        case .action(.scrollUp, _, _):
            guard let view else { return .unhandled }
            return scroll(by: max(1, view.snapshot.rows / 2), view)
        case .action(.scrollDown, _, _):
            guard let view else { return .unhandled }
            return scroll(by: -max(1, view.snapshot.rows / 2), view)
        case .action(.activate, let t?, _):
            return activate(t, ctx)
        case .action(.speak, _, _):
            return speak(ctx)
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    /// ♪ Speak and "speak that": the command line as typed, never at a password prompt; Stop while speaking.
    func speak(_ ctx: ScreenContext) -> Reply {
        if ctx.speaking { return Reply(effects: [.stopSpeaking], record: "stop-speaking") }
        guard let v = ctx.terminal, !v.inputHidden else { return Reply(record: "speak-hidden") }
        let line = v.lineBeforeCursor.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return Reply(record: "speak") }
        return Reply(effects: [ctx.speakEffect(line)], record: "speak")
    }

    /// The reply for input typed into the program. At a password prompt nothing typed may reach the action
    /// log: the record says the kind of input, not the key.
    static func typed(_ effects: [Effect], _ ctx: ScreenContext) -> Reply {
        let hidden = ctx.terminal?.inputHidden == true
        return Reply(effects: effects, record: hidden ? "type-hidden" : "type", hideTarget: hidden)
    }

    private mutating func activate(_ t: Target, _ ctx: ScreenContext) -> Reply {
        switch t.id {
        case Self.leaveID:
            return Reply(navigation: .back, record: "leave")
        case Self.restartID:
            let pane = layout(ctx.bounds, keyRows: Self.keyboardRows(ctx.keymap)).pane
            return Reply(effects: [.terminal(.restart(rows: pane.h, cols: pane.w))], record: "restart")
        case Self.layerID:
            symbolLayer.toggle()
            return Reply(record: "layer")
        case Self.speakID:
            return speak(ctx)
        case Self.paneID:
            // Looking at the pane and activating opens the microphone: dictation types into the program.
            return Reply(effects: [.startDictation], record: "dictate")
        default: break
        }
        if t.id.hasPrefix(Self.keyPrefix), let key = TerminalKeyRow.key(id: String(t.id.dropFirst(Self.keyPrefix.count))) {
            guard let press = latches.press(key) else { return Reply(record: "latch") }
            return Self.typed([.terminal(.press(press))], ctx)
        }
        if let k = KeyboardKey.from(t.id, keyboard: Self.keyboardID) {
            let effects: [Effect]
            switch k {
            case .char(let ch): effects = type(String(ch), ctx)
            case .space: effects = type(" ", ctx)
            case .backspace: effects = [.terminal(.press(latches.press(.backspace)))]
            case .enter:
                effects = learnFinishedWord(ctx) + [.terminal(.press(latches.press(.enter)))]
            case .deleteWord: effects = [.terminal(.press(TerminalKeyPress(.ctrl("w"))))]
            }
            return Self.typed(effects, ctx)
        }
        let offered = completions(ctx)
        if let w = SuggestionBar.word(t.id, Self.suggestionID, offered.map(\.shown)) {
            return Reply(effects: commit(w, offered, ctx), record: "commit-word")
        }
        return .unhandled
    }

    private func scroll(by lines: Int, _ view: TerminalView) -> Reply {
        let to = min(view.scrollback, max(0, view.scrolledBack + lines))
        return Reply(effects: [.terminal(.scroll(to: to))], record: lines > 0 ? "scroll-back" : "scroll-forward")
    }

    /// Text typed by key: a latch turns its first character into a chord; a space after a word typed letter
    /// by letter teaches the word (never at a password prompt).
    private mutating func type(_ text: String, _ ctx: ScreenContext) -> [Effect] {
        if !latches.held.isEmpty, let first = text.first {
            let press = latches.press(.char(first))
            return [.terminal(.press(press))] + (text.count > 1 ? [.terminal(.type(String(text.dropFirst())))] : [])
        }
        // Echo as you type, from the line as the program shows it (never at a password prompt).
        var echo: [Effect] = []
        if let v = ctx.terminal, !v.inputHidden {
            echo = TypingEcho.effects(before: v.lineBeforeCursor, after: v.lineBeforeCursor + text, ctx)
        }
        return (text == " " ? learnFinishedWord(ctx) : []) + [.terminal(.type(text))] + echo
    }

    /// Learning the word before the cursor, never at a password prompt.
    private func learnFinishedWord(_ ctx: ScreenContext) -> [Effect] {
        guard let v = ctx.terminal, !v.inputHidden else { return [] }
        return Effect.learnFinishedWord(v.lineBeforeCursor)
    }

    /// Completes the word before the cursor with `word`: a program or file name as its completion says (a
    /// directory with a slash, so the path goes on), a predicted word with a space, typing only the missing
    /// letters when the word starts with what is there, else erasing the partial word first. `offered` is the
    /// bar the word was chosen from.
    func commit(_ word: String, _ offered: [CommandLineCompletion.Completion], _ ctx: ScreenContext) -> [Effect] {
        let hidden = ctx.terminal?.inputHidden ?? true
        let line = ctx.terminal?.lineBeforeCursor ?? ""
        if let c = offered.first(where: { $0.shown == word }), !c.insert.isEmpty {
            var learn: [Effect] = []
            if c.learn && !hidden {
                let slot = CommandLineCompletion.slot(line)
                learn = [.learnWord(word, after: String(line.dropLast(slot.partial.count)))]
            }
            return learn + Array(repeating: .terminal(.press(TerminalKeyPress(.backspace))), count: c.erase)
                + [.terminal(.type(c.insert))]
        }
        // The word being typed as the predictor and the text fields read it: word characters only, so the
        // "~/" of "~/Doc" stays when "Documents" is committed.
        let (typed, context) = TextFieldModel.trailingWord(Substring(line))
        let partial = String(typed)
        let learn: [Effect] = hidden ? [] : [.learnWord(word, after: String(context))]
        if word.lowercased().hasPrefix(partial.lowercased()) {
            return learn + [.terminal(.type(String(word.dropFirst(partial.count)) + " "))]
        }
        return learn + Array(repeating: .terminal(.press(TerminalKeyPress(.backspace))), count: partial.count)
            + [.terminal(.type(word + " "))]
    }

    /// A final utterance through the dictation editor (spoken punctuation, "delete that"), typed as the
    /// difference it makes to the line before the cursor.
    private mutating func dictate(_ utterance: String, _ ctx: ScreenContext) -> [Effect] {
        let before = ctx.terminal?.lineBeforeCursor ?? ""
        let r = ctx.services.dictate(utterance, DictationInput(text: before, caret: before.count,
                                                               numbers: ctx.settings.dictationNumbers,
                                                               language: ctx.services.speech))
        var effects: [Effect] = []
        let common = zip(before, r.text).prefix { $0 == $1 }.count
        let erase = before.count - common
        effects += Array(repeating: Effect.terminal(.press(TerminalKeyPress(.backspace))), count: erase)
        let add = String(r.text.dropFirst(common))
        if !add.isEmpty { effects += type(add, ctx) }
        effects.append(.dictationContext(String(r.text.prefix(r.caret))))
        if r.stop { effects.append(.stopDictation) }
        return effects
    }
}

extension TerminalKeyPress {
    /// This press with `extra` modifiers held too.
    func adding(_ extra: TerminalModifiers) -> TerminalKeyPress {
        TerminalKeyPress(key, modifiers: modifiers.union(extra))
    }
}

extension ShellState {
    /// What a helper's key becomes for the Terminal screen's program when that is certain before the key is
    /// reduced: a character or Backspace on the Terminal screen, with no latch held and no dictation (the
    /// screen then types a character as itself and presses Backspace, whatever else the key does). The
    /// runtime delivers it at once and the key's reduction leaves it out (`Session.send(key:delivered:)`), so
    /// the program has the key before the rest of the turn (the reduction, the metrics) is worked out; nil
    /// when only the reduction can say.
    public func keyForProgram(_ key: Key) -> TerminalRequest? {
        guard !dictating, top(as: TerminalScreen.self)?.latches.held.isEmpty == true else { return nil }
        switch key {
        case .char(let c): return .type(String(c))
        case .backspace: return .press(TerminalKeyPress(.backspace))
        default: return nil
        }
    }
}
