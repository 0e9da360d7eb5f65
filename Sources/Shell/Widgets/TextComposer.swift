import Localization
import Prediction

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
    public var wordMessage: UIMessage?
    /// Whether the keyboard's Enter submits (Messages sends) instead of starting a new line.
    public let enterSubmits: Bool
    /// Initials mode: where the initials typed so far start (a character index of the text); nil when off. The
    /// bar and the word on the key offer whole phrases for them ("iwlacot" → "I would like a cup of tea").
    public var initialsFrom: Int?
    /// What the conversation partner said last (Messages): its words are likelier in a phrase.
    public var partner = ""
    /// The words a letter key offered for the word being typed that the user passed over (typed the key while its
    /// ★ showed them), and the text before that word: the keys offer the next best word instead. The phrases of the
    /// user's sentences passed over the same way are kept apart: their first word may still be the one meant.
    var passed: (before: String, words: Set<String>, phrases: Set<String>) = ("", [], [])
    /// A phrase on the key being taken word by word: the text before the caret after the last word taken, the key
    /// it was taken on, and the words not yet taken. While the text is still that, that key offers the next of them
    /// (no letter typed); the other keys offer their own words.
    var following: (after: String, key: String, words: [String])?

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

    /// The words the suggestion bar offers for the text before the caret; in initials mode, whole phrases.
    public func suggestions(_ ctx: ScreenContext) -> [String] {
        guard ctx.settings.suggestions > 0 else { return [] }
        if let (initials, before) = initials(of: field) {
            return Array(ctx.predictor.expand(initials, context: before, partner: partner, limit: ctx.settings.suggestions).prefix(ctx.settings.suggestions))
        }
        return Array(ctx.predictor.suggest(field.beforeCaret, limit: ctx.settings.suggestions).prefix(ctx.settings.suggestions))
    }

    /// The target id of the keyboard's initials key.
    public var initialsKeyID: String { keyboardID + ".initials" }
    /// The target id of the accent key (languages whose pack has accent cycles).
    public var accentKeyID: String { keyboardID + ".accent" }

    /// The accent key: the letter before the caret becomes the next form of its accent cycle (e → é → è → ê →
    /// ë → e); the word being typed is then predicted with it. Nothing for a letter no cycle has.
    mutating func applyAccent(_ board: LanguageBoard) -> Bool {
        guard let last = field.beforeCaret.last, let next = board.accented(last) else { return false }
        field.backspace()
        field.insert(String(next))
        return true
    }

    /// The initials typed in initials mode (from `initialsFrom` to the caret) and the text before them; nil when
    /// the mode is off, nothing is typed yet, or the caret went back before them.
    func initials(of m: TextFieldModel) -> (initials: String, before: String)? {
        initialsRange(of: m).map { (String(m.beforeCaret.dropFirst($0)), String(m.beforeCaret.prefix($0))) }
    }

    /// Where the initials typed start: the first letter at or after `initialsFrom` (a comma or space typed after a
    /// phrase stays), nil when none is typed before the caret.
    public func initialsRange(of m: TextFieldModel) -> Int? {
        guard let from = initialsFrom, from < m.caret else { return nil }
        let before = Array(m.beforeCaret)
        var s = from
        while s < before.count, !Tokens.isWordCharacter(before[s]) { s += 1 }
        return s < before.count ? s : nil
    }

    /// Types a key; in initials mode no word is learned (the letters are initials, not words).
    mutating func typeKey(_ k: KeyboardKey) -> [Effect] {
        guard initialsFrom == nil else { k.apply(to: &field); return [] }
        return k.applyLearning(to: &field)
    }

    /// Takes a suggestion: in initials mode a phrase in place of the initials (the mode stays on for the next
    /// phrase), else a word or a phrase at the caret. Returns the words to learn, and the sentence it finished.
    mutating func take(_ offered: String, _ ctx: ScreenContext) -> [Effect] {
        var learn: [Effect]
        if let from = initialsRange(of: field) {
            learn = field.replace(from: from, with: offered)
            initialsFrom = field.caret
        } else if offered.contains(" ") {
            // A phrase continuing the text: the partial word and what follows, each word learned.
            var head = field.beforeCaret
            while let l = head.last, Tokens.isWordCharacter(l) { head.removeLast() }
            learn = field.replace(from: head.count, with: offered)
        } else {
            learn = field.commit(offered, ctx.services)
        }
        if !enterSubmits { learn += Effect.learnFinishedSentence(field.beforeCaret) }
        return learn
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
        c.letterKeyboard(keyboardID, rows: ctx.keyboardRows, r, enter: enterSubmits ? N_("➤ send") : N_("⏎ new line"),
                         extra: ctx.settings.initialsKey && ctx.settings.suggestions > 0 ? (initialsKeyID, initialsFrom == nil ? ctx.tr("○ initials") : ctx.tr("● initials")) : nil,
                         accent: ctx.services.board.hasAccentKey ? (accentKeyID, ctx.services.board.accentLabel) : nil)
        // The word on the focused key, on its lower border where the eyes already are; it may reach over the
        // neighbours' borders but stays inside the keyboard.
        guard let f = ctx.focus, let key = c.hitMap.target(id: f), let (_, word) = wordOnKey(key, ctx) else { return }
        let label = " ★ " + word + " "
        let width = min(label.count, r.w)
        let x = min(max(r.x, key.rect.x + (key.rect.w - width) / 2), r.maxX - width)
        c.text(label, x: x, y: key.rect.maxY - 1, style: Theme.tileLabel, maxWidth: width)
    }

    /// What a keyboard key offers to the tongue: what it shows (after ★), what the tongue takes, the words left on
    /// the key after that, and whether the key's own letter (or space) is typed first.
    public struct Offer: Sendable, Equatable {
        public var key: KeyboardKey
        public var shown: String
        public var take: String
        public var rest: [String]
        public var typesKey: Bool
    }

    /// Whether `id` is a key of this keyboard whose wrong activation one ⌫ undoes: a letter or mark, space, ⌫.
    /// ⌫ word and the Enter key (which sends a message) are not.
    public func undoableKey(_ id: String) -> Bool {
        switch KeyboardKey.from(id, keyboard: keyboardID) {
        case .char, .space, .backspace: true
        case .enter, .deleteWord, nil: false
        }
    }

    /// The word on a keyboard key, as shown: see `offer`.
    public func wordOnKey(_ key: Target, _ ctx: ScreenContext) -> (KeyboardKey, String)? {
        offer(key, ctx).map { ($0.key, $0.shown) }
    }

    /// What a keyboard key offers: the first suggestion once the key's letter (or space) is typed, when it
    /// completes more than the key does; nil for other keys, keys too low to show it, or with the setting off.
    /// After the word, the next words the model is confident of (`Predictor.nextWords`): the tongue takes the
    /// word, and the next words stay on that key, taken one at a time by the tongue with no letter typed ("word by
    /// word": a phrase right for two words still pays). A phrase of the user's own sentences
    /// (`Predictor.suggestPhrase`) is taken whole; in initials mode, the first phrase for the initials with the key's
    /// letter. A word a key offered earlier for the same word and the user passed over (typed that key instead)
    /// gives way to the next best.
    public func offer(_ key: Target, _ ctx: ScreenContext) -> Offer? {
        guard ctx.settings.wordOnKey, ctx.settings.suggestions > 0, key.rect.h >= 3,
              let k = KeyboardKey.from(key.id, keyboard: keyboardID) else { return nil }
        switch k {
        case .char(let ch) where ch.isLetter || ch == "'": break
        case .space: break
        default: return nil
        }
        if initialsFrom == nil, let f = following, let next = f.words.first, f.key == key.id, f.after == field.beforeCaret {
            return Offer(key: k, shown: f.words.joined(separator: " "), take: next, rest: Array(f.words.dropFirst()), typesKey: false)
        }
        var after = field
        k.apply(to: &after)
        if initialsFrom != nil {
            guard let (initials, before) = initials(of: after),
                  let phrase = ctx.predictor.expand(initials, context: before, partner: partner, limit: 1).first else { return nil }
            return Offer(key: k, shown: phrase, take: phrase, rest: [], typesKey: true)
        }
        let text = after.beforeCaret
        // A word the user read on a key and passed over for this word is not offered again: the next best is.
        let sameWord = passed.before == Self.wordStart(text)
        let skip = sameWord ? passed.words : []
        // A phrase passed over is not offered again on the next keys of this word: the word is, in its place.
        let skipPhrases = sameWord ? passed.phrases : []
        if let phrase = ctx.predictor.suggestPhrase(text), !skipPhrases.contains(phrase.lowercased()),
           !skip.contains(phrase.split(separator: " ").first.map { $0.lowercased() } ?? "") {
            return Offer(key: k, shown: phrase, take: phrase, rest: [], typesKey: true)
        }
        guard let word = ctx.predictor.suggest(text, limit: 1 + min(skip.count, 8)).first(where: { !skip.contains($0.lowercased()) }) else { return nil }
        let partial = text.reversed().prefix { !$0.isWhitespace }.count
        guard word.count > partial else { return nil }
        let next = ctx.predictor.nextWords(after: Self.wordStart(text) + word + " ")
        return Offer(key: k, shown: ([word] + next).joined(separator: " "), take: word, rest: next, typesKey: true)
    }

    /// The text before the word being typed at the end of `text`.
    static func wordStart(_ text: String) -> String {
        var head = text
        while let l = head.last, Tokens.isWordCharacter(l) { head.removeLast() }
        return head
    }

    /// Notes that the letter key `t` was typed while its ★ offered a word or a phrase: the user passed over it.
    mutating func pass(_ t: Target, _ ctx: ScreenContext) {
        // The space key's next word is not passed over: the user looks at space to end a word, not to read the
        // next one (`bench typing`: counting it lost the next word whenever it was the model's first).
        guard initialsFrom == nil, let o = offer(t, ctx), o.typesKey, o.key != .space else { return }
        var after = field
        o.key.apply(to: &after)
        let before = Self.wordStart(after.beforeCaret)
        if passed.before != before { passed = (before, [], []) }
        // A phrase passed over says only that the whole phrase is not meant; its first word may be.
        if o.take.contains(" ") { passed.phrases.insert(o.take.lowercased()) } else { passed.words.insert(o.take.lowercased()) }
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
            if t.id == accentKeyID {
                return .handled(record: applyAccent(ctx.services.board) ? "accent" : "accent-none", effects: [])
            }
            if t.id == initialsKeyID {
                initialsFrom = initialsFrom == nil ? field.caret : nil
                return .handled(record: initialsFrom == nil ? "initials-off" : "initials-on", effects: [])
            }
            if let k = KeyboardKey.from(t.id, keyboard: keyboardID) {
                if k == .enter && enterSubmits { return .submit }
                pass(t, ctx)
                // In initials mode the letters are initials: no word is finished by a space between them.
                var learn = typeKey(k)
                if initialsFrom == nil, !enterSubmits, k == .enter || k.endsSentence { learn += Effect.learnFinishedSentence(field.beforeCaret) }
                if let from = initialsFrom, field.caret < from { initialsFrom = field.caret }
                return .handled(record: "type", effects: learn + echo())
            }
            if t.id == fieldID {
                if let g = gaze { field.moveCaret(to: field.caretIndex(at: g, in: t.rect)) }
                // Activating the field puts the caret there and opens the microphone for dictation.
                return .handled(record: "caret", effects: [.startDictation])
            }
            if let w = SuggestionBar.word(t.id, suggestionID, suggestions(ctx)) {
                let learn = take(w, ctx)
                return .handled(record: "commit-word", effects: learn + echo())
            }
            return nil
        case .action(.commitWord, let t, _):
            // The commit made on a key takes the word shown on it: the key, then the word, one action.
            if let t, let o = offer(t, ctx) {
                let learn = (o.typesKey ? typeKey(o.key) : []) + take(o.take, ctx)
                // The rest of a phrase stays on the key for the next tongue, while the text is as this left it.
                following = o.rest.isEmpty ? nil : (field.beforeCaret, t.id, o.rest)
                return .handled(record: "commit-word", effects: learn + echo())
            }
            var learn: [Effect] = []
            if let chosen = SuggestionBar.chosen(t, suggestionID, suggestions(ctx)) { learn = take(chosen, ctx) }
            return .handled(record: nil, effects: learn + echo())
        case .action(.deleteWord, _, _):
            field.deleteWord()
            if let from = initialsFrom, field.caret < from { initialsFrom = field.caret }
            return .handled(record: nil, effects: [])
        case .dictation(let text, let isFinal):
            guard isFinal else { partial = text.isEmpty ? nil : text; return .handled(record: nil, effects: []) }
            partial = nil
            let stop = field.dictate(text, ctx.services, numbers: ctx.settings.dictationNumbers)
            return .handled(record: nil, effects: [.dictationContext(field.beforeCaret)] + (stop ? [.stopDictation] : []))
        case .key(.char(let ch)):
            KeyboardKey.char(ch).apply(to: &field)
            let learn = initialsFrom == nil && !enterSubmits && Tokens.endsSentence(ch) ? Effect.learnFinishedSentence(field.beforeCaret) : []
            return .handled(record: nil, effects: learn + echo())
        case .key(.backspace):
            field.backspace()
            if let from = initialsFrom, field.caret < from { initialsFrom = field.caret }
            return .handled(record: nil, effects: [])
        default:
            return nil
        }
    }
}
