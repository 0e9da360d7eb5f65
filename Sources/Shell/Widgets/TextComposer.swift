/// A text field with its suggestion bar and letter keyboard, as Notes, Messages and any later text input use
/// them: typing by key, committing suggestions, dictation with its partial text, the caret by gaze, and adding
/// or removing words from the word list.
///
/// The screen keeps its own layout and says what to do with the text (save a note, keep a draft, send).
public struct TextComposer: Sendable {
    /// Target ids: the field, the suggestion bar (`ID.0`…) and the keyboard (`ID.q`…).
    public let fieldID: String, suggestionID: String, keyboardID: String
    public var field: TextFieldModel
    /// A dictation hypothesis not yet final, shown dimmed.
    public var partial: String?
    /// What the last add-word / remove-word did, shown until the text changes.
    public var wordMessage: String?
    /// Whether the keyboard's Enter submits (Messages sends) instead of starting a new line.
    public let enterSubmits: Bool

    public init(_ prefix: String, field: String = "text", text: String = "", enterSubmits: Bool = false) {
        fieldID = "\(prefix).\(field)"; suggestionID = "\(prefix).suggestion"; keyboardID = "\(prefix).keyboard"
        self.field = TextFieldModel(text)
        self.enterSubmits = enterSubmits
    }

    /// What handling an input came to.
    public enum Outcome: Sendable, Equatable {
        /// Taken by the composer, with the record to report (nil: the keymap action's own name) and effects.
        case handled(record: String?, effects: [Effect])
        /// Enter was pressed and submits: the screen sends.
        case submit
    }

    /// The words the suggestion bar offers for the text before the caret.
    public func suggestions(_ ctx: ScreenContext) -> [String] {
        ctx.settings.suggestions > 0
            ? Array(ctx.services.suggest(field.beforeCaret, ctx.settings.suggestions).prefix(ctx.settings.suggestions)) : []
    }

    /// Draws the field, the suggestion bar and the keyboard in the rectangles the screen laid out.
    public func render(_ c: inout Canvas, _ ctx: ScreenContext, label: String, placeholder: String, field fr: Rect,
                       suggestions sr: Rect, keyboard kr: Rect) {
        renderField(&c, label: label, placeholder: placeholder, fr)
        renderSuggestions(&c, ctx, sr)
        renderKeyboard(&c, ctx, kr)
    }

    /// The field alone (a screen with targets between the parts draws them in its own order).
    public func renderField(_ c: inout Canvas, label: String, placeholder: String, _ r: Rect) {
        c.textField(fieldID, label, field, r, placeholder: placeholder, partial: partial)
    }

    public func renderSuggestions(_ c: inout Canvas, _ ctx: ScreenContext, _ r: Rect) {
        SuggestionBar.render(&c, suggestionID, suggestions(ctx), r, ctx)
    }

    public func renderKeyboard(_ c: inout Canvas, _ ctx: ScreenContext, _ r: Rect) {
        c.letterKeyboard(keyboardID, rows: ctx.keymap.keyboardRows, r, enter: enterSubmits ? "➤ send" : "⏎ new line")
        // The word on the focused key, on its lower border where the eyes already are; it may reach over the
        // neighbours' borders but stays inside the keyboard.
        guard let f = ctx.focus, let key = c.hitMap.target(id: f), let (_, word) = wordOnKey(key, ctx) else { return }
        let label = " ★ " + word + " "
        let width = min(label.count, r.w)
        let x = min(max(r.x, key.rect.x + (key.rect.w - width) / 2), r.maxX - width)
        c.text(label, x: x, y: key.rect.maxY - 1, style: Theme.tileLabel, maxWidth: width)
    }

    /// The word on a keyboard key: the first suggestion once the key's letter (or space) is typed, when it
    /// completes more than the key does; nil for other keys, keys too low to show it, or with the setting off.
    public func wordOnKey(_ key: Target, _ ctx: ScreenContext) -> (KeyboardKey, String)? {
        guard ctx.settings.wordOnKey, ctx.settings.suggestions > 0, key.rect.h >= 3,
              let k = KeyboardKey.from(key.id, keyboard: keyboardID) else { return nil }
        switch k {
        case .char(let ch) where ch.isLetter || ch == "'": break
        case .space: break
        default: return nil
        }
        var after = field
        k.apply(to: &after)
        guard let word = ctx.services.suggest(after.beforeCaret, 1).first else { return nil }
        let partial = after.beforeCaret.reversed().prefix { !$0.isWhitespace }.count
        guard word.count > partial else { return nil }
        return (k, word)
    }

    /// Handles an input meant for the text, its suggestions or its keyboard; nil when it is not.
    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Outcome? {
        let before = field.text
        let typedBefore = field.beforeCaret
        defer { if field.text != before { wordMessage = nil } }
        // Echo as you type: typing steps only (keys, suggestions), never dictation, which was heard already.
        func echo() -> [Effect] { TypingEcho.effects(before: typedBefore, after: field.beforeCaret, ctx) }
        if let (m, effects) = SuggestionBar.wordListAction(input, field: field, id: suggestionID, words: suggestions(ctx)) {
            wordMessage = m
            return .handled(record: "word-list", effects: effects)
        }
        switch input {
        case .action(.activate, let t?, let gaze):
            if let k = KeyboardKey.from(t.id, keyboard: keyboardID) {
                if k == .enter && enterSubmits { return .submit }
                let learn = k.applyLearning(to: &field)
                return .handled(record: "type", effects: learn + echo())
            }
            if t.id == fieldID {
                if let g = gaze { field.moveCaret(to: field.caretIndex(at: g, in: t.rect)) }
                // Activating the field puts the caret there and opens the microphone for dictation.
                return .handled(record: "caret", effects: [.startDictation])
            }
            if let w = SuggestionBar.word(t.id, suggestionID, suggestions(ctx)) {
                let learn = field.commit(w, ctx.services)
                return .handled(record: "commit-word", effects: learn + echo())
            }
            return nil
        case .action(.commitWord, let t, _):
            // The commit made on a key takes the word shown on it: the key, then the word, one action.
            if let t, let (k, word) = wordOnKey(t, ctx) {
                let learn = k.applyLearning(to: &field) + field.commit(word, ctx.services)
                return .handled(record: "commit-word", effects: learn + echo())
            }
            let learn = SuggestionBar.chosen(t, suggestionID, suggestions(ctx)).map { field.commit($0, ctx.services) } ?? []
            return .handled(record: nil, effects: learn + echo())
        case .action(.deleteWord, _, _):
            field.deleteWord()
            return .handled(record: nil, effects: [])
        case .dictation(let text, let isFinal):
            guard isFinal else { partial = text; return .handled(record: nil, effects: []) }
            partial = nil
            let stop = field.dictate(text, ctx.services, numbers: ctx.settings.dictationNumbers)
            return .handled(record: nil, effects: [.dictationContext(field.beforeCaret)] + (stop ? [.stopDictation] : []))
        case .key(.char(let ch)):
            KeyboardKey.char(ch).apply(to: &field)
            return .handled(record: nil, effects: echo())
        case .key(.backspace):
            field.backspace()
            return .handled(record: nil, effects: [])
        default:
            return nil
        }
    }
}
