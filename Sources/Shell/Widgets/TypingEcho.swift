import SpeechText

/// Echo as you type: what to say after a typing step changed the text before the caret from `before` to
/// `after`, under the speech settings' `speechEcho`.
///
/// A word is said when it is committed (a space or punctuation typed after it, or a suggestion committed), a
/// sentence when its `.`, `?` or `!` is typed. Only text that grew counts: deleting, moving the caret or a
/// second space says nothing. Dictation is not echoed (the screens call this for typing only).
public enum TypingEcho {
    static let wordEnds: Set<Character> = [" ", ".", ",", "?", "!", ";", ":", "\n"]
    static let sentenceEnds: Set<Character> = [".", "?", "!"]

    /// The text to say, or nil.
    public static func spoken(before: String, after: String, mode: SpeechEcho) -> String? {
        guard mode != .off, after.count > before.count, let last = after.last else { return nil }
        switch mode {
        case .off:
            return nil
        case .words:
            guard wordEnds.contains(last) else { return nil }
            let word = after.reversed().drop(while: { wordEnds.contains($0) }).prefix(while: { !wordEnds.contains($0) })
            let stem = String(after.dropLast(after.reversed().prefix(while: { wordEnds.contains($0) }).count))
            // The word was already committed when the text before held it with its ending (a second space).
            if let b = before.last, wordEnds.contains(b), before.hasPrefix(stem) { return nil }
            let w = String(word.reversed())
            return w.isEmpty ? nil : w
        case .sentences:
            let trimmed = String(after.reversed().drop(while: { $0 == " " || $0 == "\n" }).reversed())
            guard let end = trimmed.last, sentenceEnds.contains(end) else { return nil }
            let beforeTrimmed = String(before.reversed().drop(while: { $0 == " " || $0 == "\n" }).reversed())
            guard beforeTrimmed != trimmed else { return nil }
            let s = Sentences.sentence(before: trimmed.count, in: trimmed)
            return s.isEmpty ? nil : s
        }
    }

    /// The speak effect for a typing step, or none.
    public static func effects(before: String, after: String, _ ctx: ScreenContext) -> [Effect] {
        spoken(before: before, after: after, mode: ctx.settings.speechEcho).map { [ctx.speakEffect($0)] } ?? []
    }
}
