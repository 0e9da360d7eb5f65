/// Pure text edits for composing with suggestions: committing a word, spacing around punctuation.
public enum TextComposition {
    /// Punctuation that attaches to the word before it ("hello ," → "hello,").
    static let closing: Set<Character> = [".", ",", ";", ":", "!", "?", ")", "]", "}", "…"]

    /// `s` with its first letter uppercased.
    public static func capitalisingFirst(_ s: String) -> String {
        guard let f = s.first else { return s }
        return f.uppercased() + s.dropFirst()
    }

    /// True if a word placed at the end of `text` (after its partial token) starts a sentence.
    public static func atSentenceStart(_ text: String) -> Bool {
        var i = text.endIndex
        while i > text.startIndex {
            let j = text.index(before: i)
            let c = text[j]
            if c.isWhitespace || c == "\"" || c == "(" || c == "“" { i = j; continue }
            return Tokens.endsSentence(c, after: Tokens.wordEnding(at: j, in: text))
        }
        return true
    }

    /// Replaces the partial last word of `text` with `word`, then adds a space.
    ///
    /// The word is capitalised at a sentence start. Punctuation (`word` = "," or ".") is attached
    /// to the previous word, dropping the automatic space before it, and followed by a space. An elided word
    /// ("l'", "dell'", "qu'": a word ending in an apostrophe) gets no space: the next word joins it.
    public static func commit(_ word: String, into text: String) -> String {
        let w = word.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !w.isEmpty else { return text }
        var base = Substring(text)
        if w.allSatisfy({ closing.contains($0) }) {
            // "hello " + "," → "hello, "
            while let l = base.last, l == " " { base = base.dropLast() }
            return String(base) + w + " "
        }
        // Drop the partial token (the word characters at the end).
        while let l = base.last, Tokens.isWordCharacter(l) { base = base.dropLast() }
        let start = atSentenceStart(String(base))
        let shown = start ? capitalisingFirst(w) : w
        var prefix = String(base)
        if let l = prefix.last, !l.isWhitespace, l != "(", l != "\"", l != "“" { prefix += " " }
        let joins = shown.last == "'" || shown.last == "’"
        return prefix + shown + (joins ? "" : " ")
    }

    /// Tidies spacing around punctuation: no space before `,.;:!?)` and one space after them.
    public static func normaliseSpacing(_ text: String) -> String {
        var out = ""
        for c in text {
            if closing.contains(c) {
                while out.last == " " { out.removeLast() }
            }
            out.append(c)
        }
        return out
    }

    /// Removes the last word (and the spaces after it), as the keyboard's delete-word key does.
    public static func deleteWord(_ text: String) -> String {
        var s = Substring(text)
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        if let l = s.last, !Tokens.isWordCharacter(l) { return String(s.dropLast()) }
        while let l = s.last, Tokens.isWordCharacter(l) { s = s.dropLast() }
        return String(s)
    }
}
