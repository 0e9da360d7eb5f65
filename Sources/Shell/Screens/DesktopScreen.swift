import Config
import Localization
import Prediction
import SpeechText
import TerminalModel

/// The Desktop screen: the Terminal screen's composer typing into the focused window of the user's desktop,
/// and a pointer mode that moves and clicks the desktop's pointer.
///
/// Keys go out as they are chosen (`Effect.desktop`), to whatever window has the focus, through the sink
/// `--output` chose (X11, Wayland, uinput). The shell's own window is not that window: the user places it
/// (along the bottom of the screen, say) and keeps the focus on the program they write in, as with an
/// on-screen keyboard. The screen cannot read the focused window, so it keeps what it typed since the last
/// key that may have moved the caret (`line`): the suggestions, a committed word and dictation's edits work
/// on that. The private latch keeps what is typed out of prediction and the action log (passwords).
public struct DesktopScreen: Screen {
    public let name = "desktop"
    /// Drawn at every frame: the desktop pointer's dwell fills with the frames' time.
    public var drawsFrames: Bool { true }
    public var title: String { isPrivate ? N_("Desktop · private") : N_("Desktop") }

    /// Ctrl, Alt and Super latched for the next key.
    public var latches = TerminalLatches()
    /// The keyboard shows the symbols and digits instead of the letters.
    public var symbolLayer = false
    /// A dictation hypothesis not yet final, shown on the info line.
    public var partial: String?
    /// What was typed since the last key that may have moved the caret or the focus (Enter, Tab, an arrow,
    /// a chord, a click): the context for suggestions and dictation.
    public private(set) var line = ""
    /// Private typing: nothing is learned, and the action log does not say what was typed.
    public private(set) var isPrivate = false
    /// Pointer mode's steering; nil while typing.
    public private(set) var pointer: DesktopPointer?
    /// The left button is held down (a drag under way).
    public private(set) var dragging = false
    /// The Controls view's page and filter while it shows instead of the keyboard; nil while typing.
    public internal(set) var controlsView: ControlsView?

    public init() {}

    /// Target ids.
    public static let keyboardID = "desktop.keyboard", suggestionID = "desktop.suggestion", leaveID = "desktop.leave"
    public static let layerID = "desktop.layer", pointerID = "desktop.pointer", privateID = "desktop.private"
    public static let lineID = "desktop.line", dwellID = "desktop.dwell", speakID = "desktop.speak"
    static let keyPrefix = "desktop.key."

    /// The key rows: moving around, then acting (latches for chords such as Ctrl-S, Alt-F4, Super).
    static let rowA = ["escape", "tab", "left", "up", "down", "right", "home", "end", "page-up", "page-down"]
    static let rowB = ["enter", "backspace", "delete", "ctrl", "alt", "super", "alt-tab"]
    /// The keys' caps: arrows and ⌫ by their signs, the others by the desktop's names in the language
    /// (`KeyCap`: "Entf", "Strg", "Bild↑" in German), as the messages name them.
    static func cap(_ id: String, _ catalog: Catalog, width: Int = .max) -> String {
        let signs = ["left": "←", "up": "↑", "down": "↓", "right": "→", "backspace": "⌫"]
        if let sign = signs[id] { return sign }
        if let m = latchKeys[id] { return KeyCap.modifiers(m, catalog).joined(separator: "+") }
        guard let press = TerminalKeyPress(name: id) else { return id }
        let text = KeyCap.text(press, catalog)
        return id == "enter" && CellGrid.columns(of: "⏎ " + text) <= width ? "⏎ " + text : text
    }
    static let latchKeys: [String: TerminalModifiers] = ["ctrl": .ctrl, "alt": .alt, "super": .logo]

    /// The most of `line` kept: enough for the predictor's context and a dictated sentence's edits.
    static let lineLimit = 400

    struct Layout {
        var panel: Rect, buttons: Rect?, info: Rect, suggestions: Rect, rowA: Rect, rowB: Rect, keyboard: Rect
    }

    /// From the bottom: keyboard, key rows, suggestions, an info line; the panel (what was typed, and the
    /// pointer, private and leave buttons) takes the rest.
    func layout(_ b: Rect, keyRows: Int) -> Layout {
        let x = b.x + 1, w = b.w - 2
        let kbRows = keyRows + 1
        let unit = b.h - (1 + 2 + 4 + 2 * kbRows) >= 8 ? 2 : 1
        let kb = Rect(x: x, y: b.maxY - kbRows * unit, w: w, h: kbRows * unit)
        let rowB = Rect(x: x, y: kb.y - unit, w: w, h: unit)
        let rowA = Rect(x: x, y: rowB.y - unit, w: w, h: unit)
        let sugg = Rect(x: x, y: rowA.y - unit, w: w, h: unit)
        let info = Rect(x: x, y: sugg.y - 1, w: w, h: 1)
        let panelH = max(1, info.y - b.y)
        let buttonH = panelH >= 6 ? 3 : 1
        let buttons = panelH >= 2 ? Rect(x: x, y: info.y - buttonH, w: w, h: buttonH) : nil
        let panel = Rect(x: x, y: b.y, w: w, h: max(1, (buttons?.y ?? info.y) - b.y))
        return Layout(panel: panel, buttons: buttons, info: info, suggestions: sugg, rowA: rowA, rowB: rowB, keyboard: kb)
    }

    /// Suggestions for the word being typed, from what this screen typed since the caret last moved; none
    /// while private or pointing.
    public func suggestions(_ ctx: ScreenContext) -> [String] {
        guard !isPrivate, pointer == nil, controlsView == nil, ctx.settings.suggestions > 0 else { return [] }
        return ctx.predictor.suggest(line, limit: ctx.settings.suggestions)
    }

    // MARK: - Drawing

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        if let controlsView {
            renderControls(&c, ctx, controlsView)
            return
        }
        if let pointer {
            renderPointing(&c, ctx, pointer)
            return
        }
        let l = layout(c.bounds, keyRows: TerminalScreen.keyboardRows(ctx.keymap))
        drawPanel(&c, ctx, l.panel)
        if let b = l.buttons {
            let cols = b.columns(5, gap: 2)
            // Narrow buttons (80 columns) take the short names rather than "◎ Pointer m…"; ● says on.
            let wide = cols[0].w - 2 >= 14
            c.button(Self.pointerID, wide ? ctx.tr("◎ Pointer mode") : ctx.tr("◎ Pointer"), cols[0])
            c.button(Self.privateID, isPrivate ? (wide ? ctx.tr("● Private: on") : ctx.tr("● Private")) : ctx.tr("○ Private"), cols[1])
            c.button(Self.dwellID, ctx.settings.desktopDwellClick ? (wide ? ctx.tr("● Dwell click") : ctx.tr("● Dwell"))
                                                                   : (wide ? ctx.tr("○ Dwell click") : ctx.tr("○ Dwell")), cols[2])
            c.button(Self.speakID, ctx.speaking ? ctx.tr("■ Stop") : ctx.tr("♪ Speak"), cols[3])
            c.button(Self.leaveID, ctx.tr("◀ Leave"), cols[4])
        }
        drawInfo(&c, ctx, l.info)
        if isPrivate {
            c.grid.centered(ctx.tr("Private: no suggestions, nothing learned or logged"), in: l.suggestions,
                            y: l.suggestions.y, style: Theme.warning)
        } else {
            SuggestionBar.render(&c, Self.suggestionID, suggestions(ctx), l.suggestions, ctx)
        }
        keyRow(&c, Self.rowA, l.rowA, extra: [])
        // At 80 columns a key of this row is 7 cells: the Controls key takes a short word there.
        let keyWidth = (l.rowB.w - Self.rowB.count - 1) / (Self.rowB.count + 2)
        keyRow(&c, Self.rowB, l.rowB, extra: [(Self.layerID, symbolLayer ? "abc" : "123 #+="),
                                             (Self.controlsID, keyWidth >= 10 ? ctx.tr("☰ Controls") : ctx.tr("☰ List"))])
        c.letterKeyboard(Self.keyboardID, rows: symbolLayer ? TerminalScreen.symbolRows : ctx.keyboardRows,
                         l.keyboard, enter: Self.cap("enter", ctx.catalog))
    }

    /// What was typed, or what to do first; the panel is a target that starts dictation.
    private func drawPanel(_ c: inout Canvas, _ ctx: ScreenContext, _ r: Rect) {
        let mid = r.y + r.h / 2
        // What went wrong, whole: the info line has room for its start only, and the fix is at the end.
        let problem = ctx.desktop.status.problem.map { $0.text(ctx.catalog) } ?? (ctx.desktop.sink == nil ? ctx.desktop.missing.map { ctx.tr("No desktop to type into: {reason}", ["reason": $0]) } : nil)
        var top = r.y
        if let problem {
            for line in Canvas.wrap(problem, width: max(10, r.w - 4)).prefix(max(1, r.h - 2)) {
                c.text(line, x: r.x + 2, y: top, style: Theme.error, maxWidth: r.w - 4)
                top += 1
            }
        } else if line.isEmpty {
            c.grid.centered(ctx.tr("Keys go to the focused window. Look here and activate to dictate."), in: r,
                            y: max(r.y, mid - 1), style: Theme.hint)
        }
        let shown = isPrivate ? String(repeating: "•", count: min(line.count, 40)) : TerminalScreen.printable(line)
        if !line.isEmpty {
            let room = max(1, r.w - 4)
            let tail = shown.count > room ? "…" + shown.suffix(room - 1) : shown
            c.text("› " + tail + "▏", x: r.x + 1, y: min(r.maxY - 1, max(top, mid)), style: Style(), maxWidth: r.w - 2)
        }
        c.target(Self.lineID, ctx.tr("Dictate"), r)
    }

    private func drawInfo(_ c: inout Canvas, _ ctx: ScreenContext, _ r: Rect) {
        let status = ctx.desktop.status
        var parts: [String] = []
        var style = Theme.hint
        if !status.unsent.isEmpty { parts.append(ctx.tr("not sent: {text}", ["text": TerminalScreen.printable(status.unsent)])); style = Theme.error }
        if status.problem != nil { parts.append(ctx.tr("see above")); style = Theme.error }
        if status.problem == nil {
            parts.append(ctx.desktop.sink.map { ctx.tr("typing into the focused window ({sink})", ["sink": $0]) } ?? ctx.tr("typing into the focused window"))
        }
        if isPrivate { parts.append(ctx.tr("private")) }
        if let p = partial, !isPrivate { parts.append(ctx.tr("hearing: {words}", ["words": p])) }
        let held = heldNames(ctx.catalog)
        let right = held.isEmpty ? "" : ctx.tr("{keys} held", ["keys": held])
        let rw = CellGrid.columns(of: right)
        c.text(parts.joined(separator: " · "), x: r.x, y: r.y, style: style, maxWidth: max(0, r.w - rw - 1))
        if !right.isEmpty { c.text(right, x: r.maxX - rw, y: r.y, style: Theme.warning) }
    }

    private func heldNames(_ catalog: Catalog) -> String {
        KeyCap.modifiers(latches.held, catalog).joined(separator: " ")
    }

    private func keyRow(_ c: inout Canvas, _ ids: [String], _ r: Rect, extra: [(String, String)]) {
        let rects = r.columns(ids.count + extra.count, gap: 1)
        for (id, kr) in zip(ids, rects) { c.button(Self.keyPrefix + id, label(id, c.catalog, width: kr.w), kr) }
        for ((id, text), kr) in zip(extra, rects.dropFirst(ids.count)) { c.button(id, text, kr) }
    }

    private func label(_ id: String, _ catalog: Catalog, width: Int) -> String {
        let base = Self.cap(id, catalog, width: width)
        if let m = Self.latchKeys[id], latches.held.contains(m) { return base + " ●" }
        return base
    }

    /// Pointer mode has no targets: where the user looks is the desktop's, and the jaw clicks there. The
    /// screen says how to click, drag, scroll and stop, and what holds the pointer still.
    private func renderPointing(_ c: inout Canvas, _ ctx: ScreenContext, _ p: DesktopPointer) {
        let b = c.bounds
        var lines: [(String, Style)] = []
        switch p.mode {
        case .gaze: lines.append((ctx.tr("Pointer mode: the pointer goes where you look."), Theme.tileLabel))
        case .head: lines.append((ctx.tr("Pointer mode: turn your head to steer the pointer."), Theme.tileLabel))
        }
        if let problem = ctx.desktop.status.problem { lines.append((problem.text(ctx.catalog), Theme.error)) }
        if ctx.readiness.paused {
            lines.append((ctx.tr("Paused: the pointer holds still until you resume."), Theme.warning))
        } else if !ctx.tracking.face {
            lines.append((ctx.tr("Face lost: the pointer holds still."), Theme.warning))
        }
        // Gestures in words ("open the jaw: click"), never by their names in the config.
        let gestures = ctx.keymap.bindings(screen: name).gestures
        let activate = gestures.first { $0.1 == .activate }.flatMap { g in ctx.gestures.first { $0.name == g.0 } }
        let back = gestures.first { $0.1 == .back }.flatMap { g in ctx.gestures.first { $0.name == g.0 } }
        let click = ctx.tr("{how}: click", ["how": activate.map { GestureText.movement($0, ctx.catalog) } ?? TerminalKey.enter.label.text(ctx.catalog)])
        lines.append((click + (back.map { " · " + ctx.tr("{how}: stop pointing", ["how": GestureText.movement($0, ctx.catalog)]) } ?? ""), Style()))
        for g in ctx.keymap.desktop.gestures.sorted(by: { $0.key < $1.key }) {
            let how = ctx.gestures.first { $0.name == g.key }.map { GestureText.movement($0, ctx.catalog) } ?? ctx.tr("a gesture the gesture config does not define")
            lines.append((how + ": " + g.value.summary(in: ctx.catalog), Style()))
        }
        lines.append((ctx.tr("Or say \"stop pointing\"."), Style()))
        if dragging { lines.append((ctx.tr("Dragging: the button is held. Click to let it go."), Theme.warning)) }
        if let d = p.dwell {
            let fill = p.dwellProgress(at: ctx.now)
            let bar = String(repeating: "█", count: Int(fill * 10)) + String(repeating: "░", count: 10 - Int(fill * 10))
            lines.append((ctx.tr("Dwell click after {time} of rest", ["time": GestureText.seconds(d, ctx.catalog)]) + "  " + bar, Theme.hint))
        }
        lines.append((ctx.tr("Nothing moves while a gesture is being made, while the face is lost or while paused."), Theme.hint))
        // A blank row between lines where they fit so; one line a row where they do not.
        let gap = lines.count * 2 <= b.h ? 2 : 1
        let top = b.y + max(0, (b.h - lines.count * gap) / 2)
        for (i, (text, style)) in lines.enumerated() where top + i * gap < b.maxY {
            c.grid.centered(text, in: b, y: top + i * gap, style: style)
        }
    }

    // MARK: - Input

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        let before = line, wasPrivate = isPrivate
        var reply = handleInput(input, ctx)
        // Echo as you type: typing only (dictation was heard already), and never while private.
        switch input {
        case .tick, .dictation: break
        default:
            if !wasPrivate, !isPrivate, pointer == nil, controlsView == nil {
                reply.effects += TypingEcho.effects(before: before, after: line, ctx)
            }
        }
        return reply
    }

    private mutating func handleInput(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        if let reply = handleControls(input, ctx) { return reply }
        switch input {
        case .tick:
            // The dwell's bar fills as time passes.
            return pointer?.dwell != nil ? Reply(record: nil) : .unhandled
        case .terminalKey(let press):
            return typed(press: latches.press(press.key).adding(press.modifiers))
        case .desktop(let command):
            return desktop(command, ctx)
        case .key(let k):
            switch k {
            case .char(let ch): return typed(type(String(ch), ctx))
            case .backspace: return typed(press: TerminalKeyPress(.backspace))
            case .enter: return typed(press: TerminalKeyPress(.enter))
            default: return .unhandled
            }
        case .dictation(let text, let isFinal):
            guard isFinal else { partial = text.isEmpty ? nil : text; return Reply(record: nil) }
            partial = nil
            return typed(dictate(text, ctx))
        case .action(.back, _, _):
            // Pointing: back stops it. Typing: swallowed, as on the Terminal screen, so a stray wink does not
            // take the keyboard away mid-word; leaving is the ◀ Leave key or a "leave" binding.
            if pointer != nil { return desktop(.stopPointing, ctx) }
            return Reply(record: "back-ignored")
        case .action(.activate, let t, _) where pointer != nil:
            _ = t
            return desktop(dragging ? .drag : .click, ctx)
        case .action(.activate, let t?, _):
            return activate(t, ctx)
        case .action(.commitWord, let t, _):
            guard pointer == nil, let w = SuggestionBar.chosen(t, Self.suggestionID, suggestions(ctx)) else {
                return Reply(record: nil)
            }
            return Reply(effects: commit(w, ctx), record: "commit-word", hideTarget: isPrivate)
        case .action(.deleteWord, _, _):
            return typed(deleteWord())
        case .action(.scrollUp, _, _):
            return desktop(.wheelUp, ctx)
        case .action(.scrollDown, _, _):
            return desktop(.wheelDown, ctx)
        case .action(.speak, _, _):
            return speak(ctx)
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    /// Speaks the sentence being typed (the last of `line`), else all of it; Stop while speaking. Never while
    /// private: a password is not said aloud.
    func speak(_ ctx: ScreenContext) -> Reply {
        if ctx.speaking { return Reply(effects: [.stopSpeaking], record: "stop-speaking") }
        guard !isPrivate else { return Reply(record: "speak-private") }
        var text = Sentences.sentence(before: line.count, in: line)
        if text.isEmpty { text = line }
        guard text.contains(where: { !$0.isWhitespace }) else { return Reply(record: "speak") }
        return Reply(effects: [ctx.speakEffect(text)], record: "speak")
    }

    /// The reply for keys and text sent to the window: while private, the log says only that something was
    /// typed.
    private func typed(_ effects: [Effect]) -> Reply {
        Reply(effects: effects, record: isPrivate ? "type-hidden" : "type", hideTarget: isPrivate)
    }

    private mutating func typed(press: TerminalKeyPress) -> Reply { typed(send(press)) }

    private mutating func activate(_ t: Target, _ ctx: ScreenContext) -> Reply {
        switch t.id {
        case Self.leaveID: return Reply(navigation: .back, record: "leave")
        case Self.layerID:
            symbolLayer.toggle()
            return Reply(record: "layer")
        case Self.pointerID: return desktop(.pointerMode, ctx)
        case Self.controlsID: return desktop(.controls, ctx)
        case Self.privateID: return desktop(.privateTyping, ctx)
        case Self.dwellID: return desktop(.dwellClick, ctx)
        case Self.speakID: return speak(ctx)
        case Self.lineID: return Reply(effects: [.startDictation], record: "dictate")
        default: break
        }
        if t.id.hasPrefix(Self.keyPrefix) {
            let id = String(t.id.dropFirst(Self.keyPrefix.count))
            if let m = Self.latchKeys[id] {
                latches.toggle(m)
                return Reply(record: "latch")
            }
            guard let press = TerminalKeyPress(name: id) else { return .unhandled }
            return typed(press: latches.press(press.key).adding(press.modifiers))
        }
        if let k = KeyboardKey.from(t.id, keyboard: Self.keyboardID) {
            switch k {
            case .char(let ch): return typed(type(String(ch), ctx))
            case .space: return typed(type(" ", ctx))
            case .backspace: return typed(press: latches.press(.backspace))
            case .enter: return typed(learnFinishedWord() + send(latches.press(.enter)))
            case .deleteWord: return typed(deleteWord())
            }
        }
        if let w = SuggestionBar.word(t.id, Self.suggestionID, suggestions(ctx)) {
            return Reply(effects: commit(w, ctx), record: "commit-word", hideTarget: isPrivate)
        }
        return .unhandled
    }

    /// A `[desktop]` command, a pointer-mode gesture, or one of the panel's buttons.
    private mutating func desktop(_ command: DesktopCommand, _ ctx: ScreenContext) -> Reply {
        func point(_ e: PointerEvent...) -> Reply {
            // A click may move the focus to another window: what was typed is no longer before the caret.
            line = ""
            return Reply(effects: e.map { .desktop(.point($0)) }, record: command.rawValue)
        }
        switch command {
        case .pointerMode where pointer == nil:
            let s = ctx.settings
            pointer = DesktopPointer(mode: s.desktopPointing, speed: s.desktopPointerSpeed,
                                     dwell: s.desktopDwellClick ? ctx.trackingInEffect.dwellTime : nil)
            latches = TerminalLatches()
            return Reply(record: "pointer-mode")
        case .pointerMode, .stopPointing:
            guard pointer != nil else { return Reply(record: nil) }
            pointer = nil
            // A drag left held would hold the button down while the user types.
            let release: [Effect] = dragging ? [.desktop(.point(.button(.left, down: false)))] : []
            dragging = false
            return Reply(effects: release, record: "stop-pointing")
        case .click:
            if dragging { dragging = false; return point(.button(.left, down: false)) }
            return point(.click(.left, count: 1))
        case .rightClick: return point(.click(.right, count: 1))
        case .middleClick: return point(.click(.middle, count: 1))
        case .doubleClick: return point(.click(.left, count: 2))
        case .drag:
            dragging.toggle()
            return point(.button(.left, down: dragging))
        case .wheelUp: return point(.scroll(dx: 0, dy: -3))
        case .wheelDown: return point(.scroll(dx: 0, dy: 3))
        case .wheelLeft: return point(.scroll(dx: -3, dy: 0))
        case .wheelRight: return point(.scroll(dx: 3, dy: 0))
        case .dwellClick:
            var s = ctx.settings
            s.desktopDwellClick.toggle()
            if pointer != nil { pointer?.dwell = s.desktopDwellClick ? ctx.trackingInEffect.dwellTime : nil }
            return Reply(effects: [.settingsChanged(s)], record: "dwell-click")
        case .privateTyping:
            isPrivate.toggle()
            return Reply(record: "private")
        case .controls:
            // Pointing stops (a held drag is let go); the list is read now and followed while it shows.
            let release: [Effect] = dragging ? [.desktop(.point(.button(.left, down: false)))] : []
            pointer = nil
            dragging = false
            latches = TerminalLatches()
            controlsView = ControlsView()
            return Reply(effects: release + [.readControls(follow: true)], record: "controls")
        }
    }

    /// Leaves the Controls view for the keyboard; the window is no longer followed.
    mutating func leaveControls() -> Reply {
        controlsView = nil
        line = ""
        return Reply(effects: [.readControls(follow: false)], record: "controls-off")
    }

    /// Private typing on: a password field was chosen from the Controls view.
    mutating func turnPrivate() { isPrivate = true }

    /// From the Controls view to pointer mode, for what the accessibility bus does not show.
    mutating func pointFromControls(_ ctx: ScreenContext) -> Reply {
        var reply = leaveControls()
        let pointing = desktop(.pointerMode, ctx)
        reply.effects += pointing.effects
        reply.record = "pointer-mode"
        return reply
    }

    /// Steers the pointer with a frame (the reducer calls this while pointing).
    mutating func follow(_ sample: TrackingSample, held: Bool) -> [PointerEvent] {
        guard pointer != nil else { return [] }
        let events = pointer?.follow(sample, held: held) ?? []
        if events.contains(where: { if case .click = $0 { return true } else { return false } }) { line = "" }
        return events
    }

    // MARK: - Typing

    /// Sends one key; a key that may move the caret or the focus starts a new line of context.
    private mutating func send(_ press: TerminalKeyPress) -> [Effect] {
        // A line ended with Enter is kept in the sentence history, never while private.
        let learn = press.key == .enter && press.modifiers.isEmpty && !isPrivate ? Effect.learnUnfinishedSentence(line) : []
        switch press.key {
        case .backspace where press.modifiers.isEmpty:
            if !line.isEmpty { line.removeLast() }
        case .char(let c) where press.modifiers.subtracting(.shift).isEmpty:
            remember(String(c))
        default:
            line = ""
        }
        return learn + [.desktop(.press(press))]
    }

    private mutating func remember(_ text: String) {
        line += text
        if let nl = line.lastIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\t" }) {
            line = String(line[line.index(after: nl)...])
        }
        if line.count > Self.lineLimit { line = String(line.suffix(Self.lineLimit)) }
    }

    /// Text typed by key: a latch turns its first character into a chord; a space after a word teaches the
    /// word (never while private).
    private mutating func type(_ text: String, _ ctx: ScreenContext) -> [Effect] {
        if !latches.held.isEmpty, let first = text.first {
            let chord = send(latches.press(.char(first)))
            let rest = String(text.dropFirst())
            if !rest.isEmpty { remember(rest) }
            return chord + (rest.isEmpty ? [] : [.desktop(.type(rest))])
        }
        var learn = text == " " ? learnFinishedWord() : []
        remember(text)
        if !isPrivate, text.count == 1, let c = text.first, Tokens.endsSentence(c) { learn += Effect.learnFinishedSentence(line) }
        return learn + [.desktop(.type(text))]
    }

    private func learnFinishedWord() -> [Effect] {
        isPrivate ? [] : Effect.learnFinishedWord(line)
    }

    /// Erases the word before the caret by as many Backspaces as it has characters (what was typed here is
    /// known exactly); with nothing known, the desktop's own word erase, Ctrl-Backspace.
    private mutating func deleteWord() -> [Effect] {
        guard !line.isEmpty else { return send(TerminalKeyPress(.backspace, modifiers: .ctrl)) }
        var trimmed = Substring(line)
        while let l = trimmed.last, l == " " { trimmed = trimmed.dropLast() }
        let (word, _) = TextFieldModel.trailingWord(trimmed)
        let count = line.count - trimmed.count + max(word.count, trimmed.isEmpty ? 0 : 1)
        line.removeLast(min(count, line.count))
        return Array(repeating: Effect.desktop(.press(TerminalKeyPress(.backspace))), count: count)
    }

    /// Commits a suggested word the way the note editor does (capitals, spacing), typed as the difference
    /// it makes to the line.
    func commitEdits(_ word: String, _ ctx: ScreenContext) -> (effects: [Effect], line: String) {
        let after = ctx.services.commit(word, line)
        let (_, context) = TextFieldModel.trailingWord(Substring(line))
        let learn: [Effect] = isPrivate ? [] : [.learnWord(word, after: String(context))]
        return (learn + Self.edits(from: line, to: after), after)
    }

    private mutating func commit(_ word: String, _ ctx: ScreenContext) -> [Effect] {
        let (effects, after) = commitEdits(word, ctx)
        line = ""
        remember(after)
        return effects
    }

    /// A final utterance through the dictation editor (spoken punctuation, "delete that"), typed as the
    /// difference it makes to the line.
    private mutating func dictate(_ utterance: String, _ ctx: ScreenContext) -> [Effect] {
        let r = ctx.services.dictate(utterance, DictationInput(text: line, caret: line.count,
                                                               numbers: ctx.settings.dictationNumbers,
                                                               language: ctx.services.speech))
        var effects = Self.edits(from: line, to: r.text)
        line = ""
        remember(r.text)
        if !isPrivate { effects.append(.dictationContext(String(r.text.prefix(r.caret)))) }
        if r.stop { effects.append(.stopDictation) }
        return effects
    }

    /// The keys that turn `old` into `new` at the end of a line: Backspaces back to what they share, then
    /// the rest typed.
    static func edits(from old: String, to new: String) -> [Effect] {
        let common = zip(old, new).prefix { $0 == $1 }.count
        var out = Array(repeating: Effect.desktop(.press(TerminalKeyPress(.backspace))), count: old.count - common)
        let add = String(new.dropFirst(common))
        if !add.isEmpty { out.append(.desktop(.type(add))) }
        return out
    }

    public func leaving(_ ctx: ScreenContext) -> [Effect] {
        (dragging ? [.desktop(.point(.button(.left, down: false)))] : []) + (controlsView != nil ? [.readControls(follow: false)] : [])
    }
}

