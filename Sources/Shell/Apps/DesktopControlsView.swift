import Config
import Localization
import TerminalModel

/// The Controls view's place in the list of the focused window's controls.
public struct ControlsView: Sendable, Equatable {
    /// The page shown (0-based); kept within the pages there are when drawn.
    public var page = 0
    /// Letters typed or said to narrow the list ("se" keeps Send and Settings).
    public var filter = ""
    public init() {}
}

/// One line of the Controls view: a group's heading, or a control.
public enum ControlsItem: Equatable, Sendable {
    case heading(String)
    case control(DesktopControl)

    public var isHeading: Bool { if case .heading = self { return true } else { return false } }
}

/// The Controls view on the Desktop screen: the focused window's actionable elements as large gaze targets,
/// grouped by role in the window's reading order, paged, each with its number; typed letters filter them.
/// Acting on one returns `Effect.performControl`; the runtime reads the window again whenever it changes.
extension DesktopScreen {
    static let controlPrefix = "desktop.control.", controlsPrevID = "desktop.controls.prev"
    static let controlsNextID = "desktop.controls.next", controlsReadID = "desktop.controls.read"
    static let controlsPointerID = "desktop.controls.pointer", controlsBackID = "desktop.controls.back"
    static let controlsID = "desktop.controls"

    /// The controls a filter keeps: those whose label's words start with the typed letters, or whose number
    /// starts with the typed digits.
    static func filtered(_ snapshot: ControlsSnapshot, _ filter: String) -> [DesktopControl] {
        let wanted = ControlNames.normalise(filter).replacingOccurrences(of: " ", with: "")
        guard !wanted.isEmpty else { return snapshot.controls }
        return snapshot.controls.filter { control in
            if wanted.allSatisfy(\.isNumber) { return String(control.index + 1).hasPrefix(wanted) }
            let words = ControlNames.normalise(snapshot.label(control))
            return words.replacingOccurrences(of: " ", with: "").hasPrefix(wanted)
                || words.split(separator: " ").contains { $0.hasPrefix(wanted) }
        }
    }

    /// The list's lines: a heading before each role's controls, the roles in the order their first control
    /// comes in the window, the controls of a role in reading order.
    static func items(_ controls: [DesktopControl]) -> [ControlsItem] {
        var order: [ControlRole] = []
        var groups: [ControlRole: [DesktopControl]] = [:]
        for c in controls {
            if groups[c.role] == nil { order.append(c.role) }
            groups[c.role, default: []].append(c)
        }
        return order.flatMap { role in [ControlsItem.heading(role.heading)] + (groups[role] ?? []).map(ControlsItem.control) }
    }

    /// The items split into pages of `columns` columns of `rows` rows, a heading one row, a control
    /// `entryHeight`; a heading is never left alone at the bottom of a column.
    static func pages(_ items: [ControlsItem], rows: Int, columns: Int, entryHeight: Int) -> [[[ControlsItem]]] {
        guard rows >= entryHeight, columns >= 1, !items.isEmpty else { return [[[]]] }
        var pages: [[[ControlsItem]]] = [[[]]]
        var used = 0
        for (i, item) in items.enumerated() {
            let h: Int
            switch item {
            case .heading: h = 1 + (i + 1 < items.count ? entryHeight : 0)
            case .control: h = entryHeight
            }
            if used + h > rows {
                if pages[pages.count - 1].count < columns { pages[pages.count - 1].append([]) } else { pages.append([[]]) }
                used = 0
            }
            pages[pages.count - 1][pages[pages.count - 1].count - 1].append(item)
            if case .heading = item { used += 1 } else { used += entryHeight }
        }
        return pages
    }

    /// The entry's text: its number, its label and, for what can be checked, its state.
    static func entryText(_ control: DesktopControl, _ snapshot: ControlsSnapshot, _ t: Catalog) -> String {
        var text = "\(control.index + 1)  "
        switch control.role {
        case .checkBox, .radioButton, .toggle:
            text += control.states.contains(.checked) || control.states.contains(.pressed) ? "☑ " : "☐ "
        default:
            if control.states.contains(.checked) { text += "☑ " }
        }
        text += snapshot.label(control)
        if control.states.contains(.expanded) { text += " ▾" }
        if control.states.contains(.disabled) { text += " " + t.tr("(greyed out)") }
        return text
    }

    func renderControls(_ c: inout Canvas, _ ctx: ScreenContext, _ view: ControlsView) {
        let b = c.bounds
        let x = b.x + 1, w = b.w - 2
        let snapshot = ctx.desktop.controls
        let buttonH = b.h >= 16 ? 3 : 1
        let buttons = Rect(x: x, y: b.maxY - buttonH, w: w, h: buttonH)
        var title = ctx.tr("Controls: reading the focused window…")
        if let snapshot, !snapshot.application.isEmpty || !snapshot.window.isEmpty {
            title = snapshot.window.isEmpty ? ctx.tr("Controls of {name}", ["name": snapshot.application])
                : snapshot.application.isEmpty ? ctx.tr("Controls of {name}", ["name": snapshot.window])
                : ctx.tr("Controls of {application}: {window}", ["application": snapshot.application, "window": snapshot.window])
        }
        c.text(title, x: x, y: b.y, style: Theme.tileLabel, maxWidth: w)
        var hint = ctx.tr("Look at a control and activate it, or say \"click\" and its name or number.")
        var hintStyle = Theme.hint
        if !view.filter.isEmpty { hint = ctx.tr("Showing what starts with \"{letters}\" · Backspace widens the list", ["letters": view.filter]) }
        if let note = ctx.desktop.controlsNote { hint = note.text(ctx.catalog); hintStyle = Theme.warning }
        c.text(hint, x: x, y: b.y + 1, style: hintStyle, maxWidth: w)

        let list = Rect(x: x, y: b.y + 3, w: w, h: max(1, buttons.y - b.y - 4))
        let shown = snapshot.map { Self.filtered($0, view.filter) } ?? []
        var pageCount = 1
        if let snapshot, shown.isEmpty {
            // Why nothing shows, whole, and the way on: pointer mode reaches what the bus does not.
            let why = snapshot.controls.isEmpty
                ? (snapshot.problemMessage.map { $0.text(ctx.catalog) } ?? snapshot.problem ?? ctx.tr("This window shows no controls to the accessibility bus."))
                : ctx.tr("No control starts with \"{letters}\".", ["letters": view.filter])
            var y = list.y
            for line in Canvas.wrap(why, width: max(10, w - 2)).prefix(max(1, list.h - 2)) {
                c.text(line, x: x + 1, y: y, style: Theme.error, maxWidth: w - 2)
                y += 1
            }
            if snapshot.controls.isEmpty {
                c.text(ctx.tr("Pointer mode clicks anything you look at: choose Pointer mode below."), x: x + 1, y: y + 1,
                       style: Theme.hint, maxWidth: w - 2)
            }
        } else if let snapshot {
            let columns = w >= 96 ? 3 : (w >= 60 ? 2 : 1)
            let entryHeight = list.h >= 18 ? 3 : 1
            let pages = Self.pages(Self.items(shown), rows: list.h, columns: columns, entryHeight: entryHeight)
            pageCount = pages.count
            let page = pages[min(view.page, pages.count - 1)]
            for (col, rect) in zip(page, list.columns(columns, gap: 2)) {
                var y = rect.y
                for item in col {
                    switch item {
                    case .heading(let text):
                        c.text(ctx.tr(text), x: rect.x, y: y, style: Theme.tile, maxWidth: rect.w)
                        y += 1
                    case .control(let control):
                        let r = Rect(x: rect.x, y: y, w: rect.w, h: entryHeight)
                        let text = Self.entryText(control, snapshot, ctx.catalog)
                        if entryHeight >= 3 {
                            c.grid.box(r, style: Theme.tile)
                            c.text(text, x: r.x + 2, y: r.y + 1, style: Theme.tileLabel, maxWidth: r.w - 4)
                        } else {
                            c.text(text, x: r.x, y: r.y, style: Style(attrs: .bold), maxWidth: r.w)
                        }
                        c.target(Self.controlPrefix + String(control.index), snapshot.label(control), r)
                        y += entryHeight
                    }
                }
            }
        }
        let page = min(view.page, pageCount - 1) + 1
        if pageCount > 1 {
            c.text(ctx.tr("page {page} of {pages}", ["page": "\(page)", "pages": "\(pageCount)"]), x: x, y: buttons.y - 1, style: Theme.hint, maxWidth: w)
        }
        let cols = buttons.columns(5, gap: 2)
        c.button(Self.controlsPrevID, ctx.tr("◀ Previous"), cols[0])
        c.button(Self.controlsNextID, ctx.tr("Next ▶"), cols[1])
        c.button(Self.controlsReadID, ctx.tr("↻ Read again"), cols[2])
        c.button(Self.controlsPointerID, ctx.tr("◎ Pointer mode"), cols[3])
        c.button(Self.controlsBackID, ctx.tr("◀ Keyboard"), cols[4])
    }

    /// The pages the Controls view would show these controls on (for tests).
    public static func pagesForTests(_ controls: [DesktopControl], rows: Int, columns: Int, entryHeight: Int) -> [[[ControlsItem]]] {
        pages(items(controls), rows: rows, columns: columns, entryHeight: entryHeight)
    }

    /// The spoken commands that act on a control on screen: "click Send", "press 12", "check Remember me",
    /// "open File", "focus Search", and the control's name or number alone ("Send", "12").
    static func controlPhrases(_ target: Target) -> [String] {
        guard target.id.hasPrefix(controlPrefix), let index = Int(target.id.dropFirst(controlPrefix.count)) else { return [] }
        let label = target.label.trimmingSpaces
        var out: [String] = []
        if label.contains(where: { $0.isLetter || $0.isNumber }) {
            for verb in ["click", "press", "open", "check", "focus"] { out.append(verb + " " + label) }
            out.append(label)
        }
        out += ["click \(index + 1)", "press \(index + 1)", String(index + 1)]
        return out
    }

    /// The words of the ICAO spelling alphabet, "alpha" for a to "zulu" for z.
    static let spellingAlphabet = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
                                   "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
                                   "sierra", "tango", "uniform", "victor", "whiskey", "x-ray", "yankee", "zulu"]
    /// Said in the Controls view, empties the filter.
    static let clearLettersPhrase = "clear letters"

    /// The letter a spoken phrase names, by the letter's own name ("b", as the keymaps say "control l") or its
    /// word in the spelling alphabet ("bravo"); nil for anything else.
    static func spokenLetter(_ phrase: String) -> Character? {
        let said = Keymap.normalise(phrase)
        if said.count == 1, let ch = said.first, ch.isASCII, ch.isLetter { return ch }
        guard let i = spellingAlphabet.firstIndex(where: { $0 == said || $0.replacingOccurrences(of: "-", with: " ") == said })
        else { return nil }
        return Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(i)))
    }

    /// What the Controls view adds to the voice grammar while it shows: every letter by its name and by its
    /// spelling-alphabet word, which filter the list, and "clear letters".
    public var controlsVoicePhrases: [String] {
        guard controlsView != nil else { return [] }
        let names = (0..<26).map { String(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0)))) }
        return names + Self.spellingAlphabet + [Self.clearLettersPhrase]
    }

    /// The input a phrase the Controls view added stands for: a letter typed into the filter, or the filter
    /// emptied; nil when the view does not show or the phrase is not one of its own.
    public func controlsVoiceInput(_ phrase: String) -> ScreenInput? {
        guard controlsView != nil else { return nil }
        if Keymap.normalise(phrase) == Self.clearLettersPhrase { return .key(.escape) }
        return Self.spokenLetter(phrase).map { .key(.char($0)) }
    }

    /// What the Controls view does with an input; nil leaves it to the Desktop screen's usual handling.
    mutating func handleControls(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply? {
        guard var view = controlsView else { return nil }
        defer { if controlsView != nil { controlsView = view } }
        switch input {
        case .desktop(.controls), .action(.back, _, _):
            return leaveControls()
        case .key(.char(let ch)) where !ch.isWhitespace || !view.filter.isEmpty:
            view.filter.append(ch)
            view.page = 0
            return Reply(record: "controls-filter")
        case .key(.backspace):
            if !view.filter.isEmpty { view.filter.removeLast(); view.page = 0 }
            return Reply(record: "controls-filter")
        case .key(.escape):
            view.filter = ""
            view.page = 0
            return Reply(record: "controls-filter")
        case .terminalKey(let press) where press == TerminalKeyPress(.backspace) && !view.filter.isEmpty:
            // "delete letter" takes a letter off the filter; with none left it goes to the window as before.
            view.filter.removeLast()
            view.page = 0
            return Reply(record: "controls-filter")
        case .key(.enter):
            guard let snapshot = ctx.desktop.controls else { return Reply(record: nil) }
            let kept = Self.filtered(snapshot, view.filter)
            guard kept.count == 1 else { return Reply(record: nil) }
            return act(kept[0], snapshot)
        case .dictation(let text, let isFinal):
            guard isFinal else { return Reply(record: nil) }
            view.filter += text.filter { $0.isLetter || $0.isNumber }
            view.page = 0
            return Reply(record: "controls-filter")
        case .action(.scrollUp, _, _):
            view.page = max(0, view.page - 1)
            return Reply(record: "controls-page")
        case .action(.scrollDown, _, _):
            view.page += 1
            return Reply(record: "controls-page")
        case .action(.activate, let t?, _):
            switch t.id {
            case Self.controlsPrevID:
                view.page = max(0, view.page - 1)
                return Reply(record: "controls-page")
            case Self.controlsNextID:
                view.page += 1
                return Reply(record: "controls-page")
            case Self.controlsReadID:
                return Reply(effects: [.readControls(follow: true)], record: "controls-read")
            case Self.controlsBackID:
                return leaveControls()
            case Self.controlsPointerID:
                return pointFromControls(ctx)
            default:
                guard t.id.hasPrefix(Self.controlPrefix), let index = Int(t.id.dropFirst(Self.controlPrefix.count)),
                      let snapshot = ctx.desktop.controls, snapshot.controls.indices.contains(index) else { return .unhandled }
                return act(snapshot.controls[index], snapshot)
            }
        case .tick:
            return .unhandled
        default:
            return nil
        }
    }

    /// Acts on a control: a text field is focused and the keyboard comes back to type into it (private
    /// for a password field); anything else runs its action and the list stays, read again as it changes.
    private mutating func act(_ control: DesktopControl, _ snapshot: ControlsSnapshot) -> Reply {
        let effect = Effect.performControl(ControlTarget(generation: snapshot.generation, control: control))
        if control.role.takesText {
            var reply = leaveControls()
            if control.role == .passwordField { turnPrivate() }
            reply.effects.insert(effect, at: 0)
            reply.record = "control"
            reply.hideTarget = control.role == .passwordField
            return reply
        }
        return Reply(effects: [effect], record: "control")
    }
}
