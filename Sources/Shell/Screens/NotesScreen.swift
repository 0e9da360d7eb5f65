import Config
import Localization
import SpeechText

/// The list of notes: a New note button and a scrollable list; activating a note opens it in the editor.
public struct NotesScreen: Screen {
    public let name = "notes"
    /// Nothing on it moves with time: no tick is asked for.
    public var wantsTicks: Bool { false }
    public let title = N_("Notes")
    var list = ScrollList(rowHeight: 3)

    public init() {}

    struct Layout { var banner: Int; var new: Rect; var list: Rect }

    func layout(_ b: Rect) -> Layout {
        Layout(banner: b.y, new: Rect(x: b.x + 2, y: b.y + 1, w: 30, h: 3),
               list: Rect(x: b.x + 2, y: b.y + 5, w: b.w - 4, h: b.h - 5))
    }

    func rows(_ notes: [Note], _ ctx: ScreenContext) -> [ListRow] {
        notes.map { n in
            let words = n.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).count
            return ListRow(id: "notes.note.\(n.id)", n.title, detail: ctx.trn("{n} word", "{n} words", words))
        }
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds)
        let store = ctx.data
        if let p = store.notesProblem {
            c.text(p.text(ctx.catalog), x: c.bounds.x + 2, y: l.banner, style: Theme.error, maxWidth: c.bounds.w - 4)
        }
        c.button("notes.new", ctx.tr("＋ New note"), l.new)
        // Beside the button's middle row; a longer language's sentence wraps over the button's three rows
        // instead of ending cut ("…, um sie zu öffnen." did not fit at 80 columns).
        let hint = ctx.tr("Look at a note and {how} to open it.", ["how": activateHint(ctx)])
        let width = c.bounds.maxX - l.new.maxX - 5
        let lines = Canvas.wrap(hint, width: width).count
        c.paragraph(hint, Rect(x: l.new.maxX + 3, y: l.new.y + (lines == 1 ? 1 : 0), w: width, h: l.new.h),
                    style: Theme.hint)
        c.scrollList("notes.list", rows(store.notes, ctx), list, l.list, empty: ctx.tr("No notes yet: open New note to write one."))
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        if case .tick = input { return .unhandled }
        let store = ctx.data
        let l = layout(ctx.bounds)
        if list.handle(input, id: "notes.list", count: store.notes.count, in: l.list) { return Reply(record: "scroll") }
        switch input {
        case .action(.activate, let t?, _) where t.id == "notes.new":
            return .push(NoteEditorScreen(noteID: store.newNoteID()))
        case .action(.activate, let t?, _) where t.id.hasPrefix("notes.note."):
            guard let id = Int(t.id.dropFirst("notes.note.".count)), let n = store.note(id: id) else { return .unhandled }
            return .push(NoteEditorScreen(noteID: n.id, text: n.text))
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }
}
