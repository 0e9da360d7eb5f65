import Config
import Localization
import SpeechText

/// Writing a note: a multi-line text field, a suggestion bar, the on-screen letter keyboard and a
/// hold-to-confirm Delete. Every change is saved at once; a failed save is shown and the text stays.
///
/// Text comes in through `TextFieldModel.insert` from the keyboard keys, a helper's keys, dictation
/// (`.dictation`) and committed suggestions (`Services.suggest` / `Services.commit`), so all sources meet
/// in one place.
public struct NoteEditorScreen: Screen {
    public let name = "note-editor"
    public let title = N_("Note")
    public var noteID: Int
    /// The note's text with its suggestions and keyboard.
    public var composer: TextComposer
    var delete = HoldToConfirm()

    /// A new note gets its id from the store when first saved (id 0 means "not yet assigned").
    public init(noteID: Int = 0, text: String = "") {
        self.noteID = noteID; composer = TextComposer("note-editor", text: text)
    }

    public var field: TextFieldModel { composer.field }
    public func undoableKey(_ id: String) -> Bool { composer.undoableKey(id) }
    public var hasUndoableKeys: Bool { true }
    /// A dictation hypothesis not yet final, shown dimmed.
    public var partial: String? { composer.partial }
    /// What the last add-word / remove-word did, shown in the banner until the text changes.
    public var wordMessage: UIMessage? { composer.wordMessage }

    struct Layout { var banner: Int; var field: Rect; var suggestions: Rect; var keyboard: Rect; var delete: Rect; var speak: Rect; var done: Rect }

    func layout(_ b: Rect, keyRows: Int, large: Bool = false) -> Layout {
        let rows = keyRows + 1
        let keyH = KeyboardLayout.keyHeight(body: b.h, fixed: 1 + 3 + 3, minText: 4, rows: rows, large: large)
        let kbH = rows * keyH
        let fieldH = b.h - 1 - 3 - kbH - 3
        let x = b.x + 1, w = b.w - 2
        let field = Rect(x: x, y: b.y + 1, w: w, h: fieldH)
        let sugg = Rect(x: x, y: field.maxY, w: w, h: 3)
        let kb = Rect(x: x, y: sugg.maxY, w: w, h: kbH)
        let bottom = Rect(x: x, y: kb.maxY, w: w, h: 3)
        let half = bottom.w / 2, quarter = bottom.w / 4
        return Layout(banner: b.y, field: field, suggestions: sugg, keyboard: kb,
                      delete: Rect(x: bottom.x, y: bottom.y, w: half, h: 3),
                      speak: Rect(x: bottom.x + half + 1, y: bottom.y, w: quarter - 1, h: 3),
                      done: Rect(x: bottom.x + half + quarter + 1, y: bottom.y, w: bottom.w - half - quarter - 1, h: 3))
    }

    func suggestions(_ ctx: ScreenContext) -> [String] { composer.suggestions(ctx) }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds, keyRows: ctx.keymap.keyboardRows.count, large: ctx.settings.largeTargets)
        if let p = ctx.data.notesProblem {
            c.text(p.text(ctx.catalog), x: c.bounds.x + 2, y: l.banner, style: Theme.error, maxWidth: c.bounds.w - 4)
        } else if let m = wordMessage {
            c.text(m.text(ctx.catalog), x: c.bounds.x + 2, y: l.banner, style: Theme.hint, maxWidth: c.bounds.w - 4)
        } else {
            let saved = ctx.data.note(id: noteID) != nil
            let onKey = ctx.settings.wordOnKey && ctx.settings.suggestions > 0 ? commitHint(ctx, screen: name) : nil
            let how = activateHint(ctx)
            let line = switch (saved, onKey) {
            case (true, let k?): ctx.tr("Saved. Look at a key and {how} to type; {commit} for a key's ★ word.", ["how": how, "commit": k])
            case (false, let k?): ctx.tr("Not saved yet. Look at a key and {how} to type; {commit} for a key's ★ word.", ["how": how, "commit": k])
            case (true, nil): ctx.tr("Saved. Look at a key and {how} to type.", ["how": how])
            case (false, nil): ctx.tr("Not saved yet. Look at a key and {how} to type.", ["how": how])
            }
            c.text(line, x: c.bounds.x + 2, y: l.banner,
                   style: Theme.hint, maxWidth: c.bounds.w - 4)
        }
        composer.render(&c, ctx, label: ctx.tr("Note"), placeholder: ctx.tr("Your note…"), field: l.field, suggestions: l.suggestions,
                        keyboard: l.keyboard)
        c.holdToConfirm("note-editor.delete", ctx.tr("Delete note"), delete, screen: name, ctx, l.delete)
        c.button("note-editor.speak", ctx.speaking ? ctx.tr("■ Stop") : ctx.tr("♪ Speak"), l.speak)
        c.button("note-editor.done", ctx.tr("✓ Done"), l.done)
    }

    /// Speak: the sentence before the caret (the one just written), else the whole note; Stop while speaking.
    func speak(_ ctx: ScreenContext) -> Reply {
        if ctx.speaking { return Reply(effects: [.stopSpeaking], record: "stop-speaking") }
        let text = field.text
        var sentence = Sentences.sentence(before: field.caret, in: text)
        if sentence.isEmpty { sentence = text }
        guard !sentence.trimmingSpaces.isEmpty else { return Reply(record: "speak") }
        return Reply(effects: [ctx.speakEffect(sentence)], record: "speak")
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch delete.handle(input, id: "note-editor.delete", screen: name, ctx) {
        case .confirmed:
            return Reply(navigation: .back, record: "delete", changes: [.deleteNote(id: noteID)])
        case .armed: return Reply(record: "arm")
        case .cancelled: return Reply(record: "cancel")
        case .changed: return .handled
        case .ignored: break
        }
        switch input {
        case .action(.speak, _, _): return speak(ctx)
        case .action(.savePhrase, _, _):
            var sentence = Sentences.sentence(before: field.caret, in: field.text)
            if sentence.isEmpty { sentence = field.text.trimmingSpaces }
            guard !sentence.isEmpty else { composer.wordMessage = UIMessage("Write something first, then save it as a phrase."); return .handled }
            composer.wordMessage = UIMessage("Saved “{phrase}” to your phrases (Phrases › Saved).", ["phrase": sentence])
            return Reply(record: "save-phrase", changes: [.addPhrase(sentence, group: "saved")])
        case .action(.activate, let t?, _) where t.id == "note-editor.speak": return speak(ctx)
        default: break
        }
        let before = composer.field.text
        if let outcome = composer.handle(input, ctx) {
            var changes: [AppData.Change] = []
            if composer.field.text != before {
                if noteID == 0 { noteID = ctx.data.newNoteID() }
                changes.append(.setNote(id: noteID, text: composer.field.text))
            }
            guard case .handled(let record, let effects) = outcome else { return Reply(changes: changes) }
            return Reply(effects: effects, record: record, changes: changes)
        }
        switch input {
        case .action(.activate, let t?, _) where t.id == "note-editor.done":
            return Reply(navigation: .back, effects: leaving(ctx), record: "back")
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    /// Leaving finishes a last word typed letter by letter.
    public func leaving(_ ctx: ScreenContext) -> [Effect] { Effect.learnFinishedWord(composer.field.text) }
}
