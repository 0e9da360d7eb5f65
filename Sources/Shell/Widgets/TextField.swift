import Localization
import SpeechText
import Foundation
import Config
import Prediction

/// The text of a multi-line field and its caret. Text arrives through `insert` from every source (the
/// on-screen keyboard, a helper's keys, dictation, a committed suggestion), so they all behave the same.
public struct TextFieldModel: Sendable, Equatable {
    public private(set) var text: String
    /// Caret position, in characters from the start.
    public private(set) var caret: Int
    /// What dictation into this field remembers between utterances ("delete that"); see `dictate`.
    public var dictationMemo: DictationSession?
    /// The text and caret just after a committed suggestion left its space; any other edit makes it stale.
    private var autoSpace: Snapshot?
    private struct Snapshot: Sendable, Equatable { var text: String; var caret: Int }

    /// Remembers that the space before the caret was put there by a committed suggestion.
    public mutating func markAutoSpace() {
        autoSpace = text.prefix(caret).hasSuffix(" ") ? Snapshot(text: text, caret: caret) : nil
    }

    /// Whether nothing has changed since a committed suggestion left its space before the caret.
    public var atAutoSpace: Bool { autoSpace == Snapshot(text: text, caret: caret) }

    public init(_ text: String = "") {
        self.text = TextFieldModel.visible(text)
        caret = self.text.count
    }

    /// Inserts text at the caret, without invisible control characters; the caret lands after the inserted
    /// text even when it joins the character before it (a combining accent, the second half of a flag).
    public mutating func insert(_ s: String) {
        let s = TextFieldModel.visible(s)
        guard !s.isEmpty else { return }
        let i = index(caret)
        let end = text.utf8.distance(from: text.startIndex, to: i) + s.utf8.count
        text.insert(contentsOf: s, at: i)
        caret = TextFieldModel.characters(in: text, upToUTF8Offset: end)
    }

    /// Deletes the character (grapheme cluster: a letter with its accents, a whole flag) before the caret.
    public mutating func backspace() {
        guard caret > 0 else { return }
        text.remove(at: index(caret - 1))
        caret = min(caret - 1, text.count)
    }

    /// Deletes the word before the caret, with the spaces after it.
    public mutating func deleteWord() {
        var chars = Array(text)
        var i = caret
        while i > 0, chars[i - 1] == " " { i -= 1 }
        while i > 0, !chars[i - 1].isWhitespace { i -= 1 }
        chars.removeSubrange(i..<min(caret, chars.count))
        text = String(chars)
        // The characters either side of the cut may join into one (a space and a lone accent).
        caret = min(i, text.count)
    }

    /// Replaces the text from character `start` to the caret with `phrase` and a space (initials taken as a
    /// phrase), capitalised at a sentence start; the text after the caret stays. Returns the words to learn.
    public mutating func replace(from start: Int, with phrase: String) -> [Effect] {
        let s = min(max(0, start), caret)
        let head = String(text.prefix(s)), after = String(text.dropFirst(caret))
        var words = TextComposition.atSentenceStart(head) ? TextComposition.capitalisingFirst(phrase) : phrase
        if let l = head.last, !l.isWhitespace, !words.isEmpty { words = " " + words }
        let before = head + words + " "
        set(before + after)
        moveCaret(to: before.count)
        markAutoSpace()
        var learn: [Effect] = []
        var context = head
        for (w, _) in Tokens.words(phrase) {
            learn.append(.learnWord(w, after: context))
            context += w + " "
        }
        return learn
    }

    /// Replaces the whole text (e.g. after committing a suggestion), with the caret at the end.
    public mutating func set(_ s: String) { text = TextFieldModel.visible(s); caret = text.count }

    public mutating func moveCaret(to i: Int) { caret = min(text.count, max(0, i)) }

    /// The text before the caret (what word prediction completes).
    public var beforeCaret: String { String(text.prefix(caret)) }

    /// The string index of a caret position, clamped to the text.
    private func index(_ k: Int) -> String.Index {
        text.index(text.startIndex, offsetBy: max(0, k), limitedBy: text.endIndex) ?? text.endIndex
    }

    /// How many characters of `text` start before `offset` (UTF-8 bytes): a character the offset falls
    /// inside counts whole, so a caret placed there stays after it.
    static func characters(in text: String, upToUTF8Offset offset: Int) -> Int {
        var n = 0, at = 0
        for c in text {
            guard at < offset else { break }
            at += c.utf8.count
            n += 1
        }
        return n
    }

    /// `s` without invisible control characters (NUL, escape, the C1 range…), which would be stored raw and
    /// shown as nothing; new lines and tabs stay, since notes and messages keep them.
    public static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isHiddenControl) else { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s.unicodeScalars.filter { !isHiddenControl($0) })
        return String(out)
    }

    /// A control character (general category Cc) other than new line and tab.
    static func isHiddenControl(_ u: Unicode.Scalar) -> Bool {
        u.properties.generalCategory == .control && u != "\n" && u != "\t"
    }

    /// Visual lines at `width` columns, word-wrapped: each with the index of its first character.
    public func lines(width: Int) -> [(start: Int, text: String)] {
        let w = max(1, width)
        var out: [(Int, String)] = []
        var start = 0
        for para in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var chars = Array(para)
            var s = start
            while chars.count > w {
                // Break after the last space that fits; a word longer than the line is cut.
                var cut = w
                if let sp = chars[0..<w].lastIndex(of: " "), sp > 0 { cut = sp + 1 }
                out.append((s, String(chars[0..<cut])))
                chars.removeFirst(cut)
                s += cut
            }
            out.append((s, String(chars)))
            start += para.count + 1
        }
        return out
    }

    /// The line and column of the caret at `width`.
    public func caretPosition(width: Int) -> (line: Int, column: Int) {
        let ls = lines(width: width)
        for (k, l) in ls.enumerated().reversed() where l.start <= caret {
            return (k, CellGrid.columns(of: String(l.text.prefix(caret - l.start))))
        }
        return (0, 0)
    }

    /// The caret index for a cell of the field drawn in `rect` (gaze or a click moves the caret there).
    public func caretIndex(at p: CellPoint, in rect: Rect) -> Int {
        let inner = rect.inset(dx: 2, dy: 1)
        let ls = lines(width: inner.w - 1)
        let first = TextFieldModel.firstLine(caretLine: caretPosition(width: inner.w - 1).line, count: ls.count, rows: inner.h)
        let k = min(ls.count - 1, max(0, first + p.y - inner.y))
        let l = ls[k]
        return min(l.start + l.text.count, l.start + max(0, p.x - inner.x))
    }

    /// The first line shown so the caret stays in view.
    static func firstLine(caretLine: Int, count: Int, rows: Int) -> Int { max(0, min(caretLine, count - 1) - (rows - 1)) }
}

extension Canvas {
    /// A multi-line text field with a caret (`▏`); one target (`ID`). `partial` is a dictation hypothesis
    /// shown dimmed after the caret until it is final.
    public mutating func textField(_ id: String, _ label: String, _ m: TextFieldModel, _ rect: Rect,
                                   placeholder: String = "", partial: String? = nil, focused: Bool = true) {
        grid.box(rect, border: .rounded, style: Theme.tile, title: label)
        let inner = rect.inset(dx: 2, dy: 1)
        let ls = m.lines(width: inner.w - 1)
        let cp = m.caretPosition(width: inner.w - 1)
        let first = TextFieldModel.firstLine(caretLine: cp.line, count: ls.count, rows: inner.h)
        if m.text.isEmpty && !placeholder.isEmpty {
            grid.text(placeholder, x: inner.x + 1, y: inner.y, style: Theme.hint, maxWidth: inner.w - 1)
        }
        for k in 0..<inner.h where first + k < ls.count {
            grid.text(ls[first + k].text, x: inner.x, y: inner.y + k, maxWidth: inner.w)
        }
        let cy = inner.y + cp.line - first, cx = inner.x + cp.column
        if focused {
            // Inside the text the caret is the reversed cell (the text keeps its place); at a line's end a bar.
            let lineEnd = ls.indices.contains(cp.line) ? CellGrid.columns(of: ls[cp.line].text.trimmingTrailingNewline) : 0
            if cx < inner.maxX, cp.column < lineEnd {
                var c = grid[cx, cy]; c.style = Style(attrs: .reverse); grid[cx, cy] = c
            } else {
                grid[min(cx, inner.maxX), cy] = Cell("▏", Style(fg: .yellow, attrs: .bold))
            }
        }
        if let partial, !partial.isEmpty {
            grid.text(partial, x: cx + 1, y: cy, style: Theme.hint, maxWidth: max(0, inner.maxX - cx - 1))
        }
        target(id, label, rect)
    }
}

extension TextFieldModel {
    /// The word (letters, digits, apostrophes: the predictor's `Tokens.isWordCharacter`) that `text` ends
    /// with, possibly empty, and the text before it.
    static func trailingWord(_ text: Substring) -> (word: Substring, before: Substring) {
        var start = text.endIndex
        while start > text.startIndex, case let p = text.index(before: start), Tokens.isWordCharacter(text[p]) {
            start = p
        }
        return (text[start...], text[..<start])
    }
}

extension Effect {
    /// Learning the word `text` ends with, if any: a word typed letter by letter that a space, a new line,
    /// sending or leaving the editor has just finished.
    public static func learnFinishedWord(_ text: String) -> [Effect] {
        let (w, before) = TextFieldModel.trailingWord(Substring(text))
        let word = w.trimmingCharacters(in: CharacterSet(charactersIn: "'’"))
        return word.contains(where: \.isLetter) ? [.learnWord(word, after: String(before))] : []
    }

    /// Keeping the sentence `text` has just finished (it ends in `.`, `!`, `?` or a new line, spaces aside) in
    /// the user's sentence history; none otherwise.
    public static func learnFinishedSentence(_ text: String) -> [Effect] {
        let trimmed = text.reversed().drop { $0 == " " }
        guard let last = trimmed.first, Tokens.endsSentence(last) || last == "\n" else { return [] }
        // "?!" or a blank line: the sentence was kept at its first mark.
        if let before = trimmed.dropFirst().first(where: { $0 != " " }), Tokens.endsSentence(before) || before == "\n" { return [] }
        let paragraph = text[(text.dropLast().lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex)...]
        guard let sentence = SentenceHistory.sentences(of: String(paragraph)).last else { return [] }
        return [.learnSentences(sentence)]
    }

    /// Keeping the sentence `text` ends with when it has not ended it yet (a line sent with Enter): the text after
    /// its last `.`, `!` or `?` (the sentences before were kept as they ended).
    public static func learnUnfinishedSentence(_ text: String) -> [Effect] {
        let tail = text.reversed().prefix { !Tokens.endsSentence($0) }
        return learnSentences(String(tail.reversed()))
    }

    /// Keeping every sentence of `text` (a message sent) in the user's sentence history.
    public static func learnSentences(_ text: String) -> [Effect] {
        SentenceHistory.sentences(of: text).isEmpty ? [] : [.learnSentences(text)]
    }
}

/// What a key of the on-screen keyboard does.
public enum KeyboardKey: Sendable, Equatable {
    case char(Character), space, backspace, enter, deleteWord

    /// The key a target id of the keyboard `id` names.
    public static func from(_ targetID: String, keyboard id: String) -> KeyboardKey? {
        guard targetID.hasPrefix(id + ".") else { return nil }
        let rest = targetID.dropFirst(id.count + 1)
        switch rest {
        case "space": return .space
        case "backspace": return .backspace
        case "enter": return .enter
        case "delete-word": return .deleteWord
        default:
            guard rest.hasPrefix("key."), rest.count == 5, let c = rest.last else { return nil }
            return .char(c)
        }
    }

    /// Applies the key to a text field; a space or new line after letters typed one by one returns the
    /// finished word to learn, so words the predictor lacks (names) are offered next time.
    public func applyLearning(to m: inout TextFieldModel) -> [Effect] {
        let learn = self == .space || self == .enter ? Effect.learnFinishedWord(m.beforeCaret) : []
        apply(to: &m)
        return learn
    }

    /// Whether the key ends a sentence (`.`, `!`, `?`).
    public var endsSentence: Bool { if case .char(let c) = self { Tokens.endsSentence(c) } else { false } }

    /// Marks that end a word and take no space before them.
    public static let closingPunctuation: Set<Character> = [".", ",", "?", "!", ";", ":"]

    /// Applies the key to a text field.
    public func apply(to m: inout TextFieldModel) {
        switch self {
        case .char(let c) where Self.closingPunctuation.contains(c) && m.atAutoSpace:
            // Punctuation after a committed word goes before the space the commit left ("word, " not
            // "word ,"), as phone keyboards do; the space follows it, so the next word starts at once.
            m.backspace()
            m.insert(String(c) + " ")
            m.markAutoSpace()
        case .char(let c): m.insert(String(c))
        case .space: m.insert(" ")
        case .backspace: m.backspace()
        case .enter: m.insert("\n")
        case .deleteWord: m.deleteWord()
        }
    }
}

extension Canvas {
    /// The on-screen letter keyboard: one target per key (`ID.key.a`…) from the keymap's rows, and a last row
    /// with delete word, space, backspace and new line. Keys get as much height as the rectangle allows.
    /// `extra`: one more key in the last row (id, label), the text composer's initials key.
    public mutating func letterKeyboard(_ id: String, rows: [String], _ rect: Rect, enter: String = N_("⏎ new line"),
                                        extra: (id: String, label: String)? = nil, accent: (id: String, label: String)? = nil) {
        var all = rows.map(Array.init) + [[]]
        // The accent key ends the last letter row, beside the letters it changes.
        if accent != nil, all.count >= 2 { all[all.count - 2].append("\u{0}") }
        let rowRects = rect.rows(all.count, gap: 0)
        for (k, keys) in all.enumerated() {
            let r = rowRects[k]
            if keys.isEmpty {
                var specials: [(String, String)] = [(id + ".delete-word", catalog.tr("⌫ word")), (id + ".space", catalog.tr("space")),
                                                     (id + ".backspace", catalog.tr("⌫ letter")), (id + ".enter", catalog.tr(enter))]
                if let extra { specials.insert((extra.id, extra.label), at: 0) }
                let cols = r.columns(specials.count, gap: 1)
                for ((kid, label), kr) in zip(specials, cols) { button(kid, label, kr) }
                continue
            }
            // Every letter row uses the width of the longest row, so keys line up in columns.
            let widest = max(1, all.map(\.count).max() ?? 1)
            let cols = r.columns(widest, gap: 1)
            let pad = (widest - keys.count) / 2
            for (j, ch) in keys.enumerated() where pad + j < cols.count {
                if ch == "\u{0}", let accent {
                    button(accent.id, accent.label, cols[pad + j])
                    continue
                }
                button(id + ".key." + String(ch), String(ch), cols[pad + j])
            }
        }
    }
}

extension String {
    var trimmingTrailingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
