/// An edit dictation makes to a text; offsets count `Character`s.
public enum DictationEdit: Equatable, Sendable {
    /// Insert `text` at `offset` (the caret); the caret ends up after it.
    case insert(String, at: Int)
    /// Remove the characters in `range` (what "delete that" takes back); the caret goes to its start.
    case delete(Range<Int>)
    /// The user said "stop dictation".
    case stop
}

/// Turns final utterances into edits of a text field: spoken punctuation, "new line", "delete that" and
/// "stop dictation", capitals at sentence starts, spaces between words.
///
/// A pure value: feed it `SpeechEvent.final` texts; it keeps the text and caret it edits, and returns the
/// edits so a UI holding its own text model can mirror them.
public struct DictationSession: Equatable, Sendable {
    /// The text being dictated into.
    public private(set) var text: String
    /// Caret position in characters, 0...text.count.
    public private(set) var caret: Int
    /// False once "stop dictation" was heard.
    public private(set) var isActive = true
    /// Ranges of what each utterance (or part between commands) inserted, newest last, for "delete that".
    private var insertions: [Range<Int>] = []
    /// How numbers are written (nil: as the engine wrote them).
    public var numbers: NumberStyle?
    /// The language spoken: its punctuation words, "stop dictation" and "delete that", its number words.
    public var language = SpeechLanguage.english

    /// English's spoken words (lower case, as the recogniser writes them) and the characters they stand for.
    public static var punctuation: [(spoken: [String], mark: String)] {
        SpeechLanguage.english.punctuation.map { ($0.words, $0.value) }
    }

    public init(text: String = "", caret: Int? = nil) {
        self.text = text
        self.caret = min(max(0, caret ?? text.count), text.count)
    }

    /// Moves the caret (the user moved it by gesture); "delete that" history is dropped, since it may no
    /// longer point at what was said.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(0, offset), text.count)
        insertions = []
    }

    /// Whether an utterance is written text (Whisper's: capitals or punctuation), not a recogniser's bare
    /// lower-case words (PocketSphinx's): written text keeps its own capitals and punctuation.
    public static func isWritten(_ utterance: String) -> Bool {
        utterance.contains { $0.isUppercase || ($0.isPunctuation && $0 != "'") }
    }

    /// Applies one final utterance and returns the edits it made, in order.
    public mutating func apply(utterance: String) -> [DictationEdit] {
        guard isActive else { return [] }
        let written = Self.isWritten(utterance)
        var original = utterance.split(separator: " ").map(String.init)
        switch numbers {
        case .digits? where language.isEnglish: original = SpokenNumbers.digits(original)
        case .words? where language.isEnglish: original = SpokenNumbers.words(original)
        // Other languages' numbers are written as digits from their number words; digits stay digits.
        case .digits?: original = language.numbers?.digits(original) ?? original
        case .words?, nil: break
        }
        // Commands and spoken punctuation are matched without case, accents or the marks Whisper adds
        // ("Stop dictation.", "¿Signo de interrogación?").
        let words = original.map { w in
            SpeechLanguage.fold(written ? String(w.filter { !($0.isPunctuation && $0 != "'") }) : w)
        }
        var edits: [DictationEdit] = []
        var pending = ""  // text of the current segment, inserted when a command or the end comes
        func flush() {
            guard !pending.isEmpty else { return }
            let start = caret
            text.insert(contentsOf: pending, at: text.index(text.startIndex, offsetBy: caret))
            caret += pending.count
            insertions.append(start..<caret)
            edits.append(.insert(pending, at: start))
            pending = ""
        }
        var i = 0
        wordLoop: while i < words.count {
            let rest = words[i...]
            if language.stopDictation.contains(where: { !$0.isEmpty && rest.starts(with: $0) }) {
                flush()
                isActive = false
                edits.append(.stop)
                break wordLoop
            }
            if let delete = language.deleteThat.first(where: { !$0.isEmpty && rest.starts(with: $0) }) {
                // Take back what this utterance said so far, else the previous utterance.
                if !pending.isEmpty {
                    pending = ""
                } else if let last = insertions.popLast() {
                    text.removeSubrange(text.index(text.startIndex, offsetBy: last.lowerBound)
                                        ..< text.index(text.startIndex, offsetBy: last.upperBound))
                    caret = last.lowerBound
                    edits.append(.delete(last))
                }
                i += delete.count
                continue
            }
            for p in language.punctuation where !p.words.isEmpty && rest.starts(with: p.words) {
                // An opening mark ("¿", "«") stands apart from the word before it, as a word does.
                if let first = p.value.first, Self.opening.contains(first),
                   let b = lastCharacter(pending: pending), !b.isWhitespace { pending += " " }
                pending += p.value
                i += p.words.count
                continue wordLoop
            }
            var word = written ? original[i] : original[i].lowercased()
            if language.isEnglish, word == "i" || word.hasPrefix("i'") { word = "I" + word.dropFirst() }
            let before = lastCharacter(pending: pending)
            if before == nil || before == "\n" || sentenceEnded(pending: pending) {
                word = word.prefix(1).uppercased() + word.dropFirst()
            }
            if let b = before, !b.isWhitespace, !Self.opening.contains(b) { pending += " " }
            pending += word
            i += 1
        }
        flush()
        return edits
    }

    /// Marks the next word follows without a space.
    static let opening: Set<Character> = ["¿", "¡", "«", "(", "„", "“"]

    /// The character just before where the next one goes: the end of `pending`, else the text before the caret.
    private func lastCharacter(pending: String) -> Character? {
        if let c = pending.last { return c }
        guard caret > 0 else { return nil }
        return text[text.index(text.startIndex, offsetBy: caret - 1)]
    }

    /// Whether the next word starts a sentence (after ".", "?" or "!", ignoring spaces; or right after Spanish's
    /// opening "¿" and "¡").
    private func sentenceEnded(pending: String) -> Bool {
        let before = text.prefix(caret) + pending
        guard let last = before.last(where: { $0 != " " }) else { return true }
        if last == "¿" || last == "¡" {
            let earlier = before.dropLast().last(where: { $0 != " " })
            return earlier.map { $0 == "." || $0 == "?" || $0 == "!" || $0 == "\n" } ?? true
        }
        return last == "." || last == "?" || last == "!"
    }
}
