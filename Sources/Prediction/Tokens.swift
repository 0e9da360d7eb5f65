/// Splits text into words the way the predictor and the keystroke simulator see it.
///
/// A word is a run of letters, digits and apostrophes (an apostrophe only inside a word, so
/// "don't" is one word but the quotes in "'yes'" are not part of it). Everything else separates
/// words. `.`, `!` and `?` also end a sentence, which resets the n-gram context, except a `.`
/// right after a title such as "Mr" or "Dr" ("Mr. Weston" keeps "mr" as the context of "weston").
public enum Tokens {
    /// True for characters that can be part of a word.
    @inlinable
    public static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "'" || c == "’"
    }

    /// True for characters that end a sentence.
    @inlinable
    public static func endsSentence(_ c: Character) -> Bool {
        c == "." || c == "!" || c == "?"
    }

    /// Titles and short forms whose full stop does not end a sentence (lowercase, without the dot).
    public static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "messrs", "dr", "st", "jr", "sr", "prof", "rev", "hon", "capt", "col", "gen",
        "lt", "sgt", "mt", "mme", "mlle", "vs", "cf", "vol", "fig", "approx",
    ]

    /// True if the `.`/`!`/`?` that follows `word` (the word just before it, as typed) ends a sentence.
    @inlinable
    public static func endsSentence(_ c: Character, after word: Substring) -> Bool {
        guard endsSentence(c) else { return false }
        guard c == ".", !word.isEmpty, word.count <= 7 else { return true }
        return !abbreviations.contains(word.lowercased())
    }

    /// The last few words of `text`, lowercased, plus the partial last token.
    ///
    /// - Returns: `context` = up to `maxContext` complete words of the current sentence, preceded
    ///   by `<s>` when the sentence start is within reach; `partial` = the last token if the text
    ///   does not end with a separator (else empty), as typed; `sentenceStart` = true when the
    ///   partial token starts a sentence.
    public static func split(_ text: String, maxContext: Int = 2) -> (context: [String], partial: String, sentenceStart: Bool) {
        // Walk backwards so that long texts cost only as much as the last few words.
        var i = text.endIndex
        func previousWord() -> String {
            let end = i
            while i > text.startIndex {
                let j = text.index(before: i)
                if !isWordCharacter(text[j]) { break }
                i = j
            }
            return String(text[i..<end])
        }
        let partial = trimApostrophes(previousWord(), trailing: false)
        var words: [String] = []
        var sentenceStart = true
        scan: while words.count < maxContext {
            // Skip separators, stopping at a sentence end.
            while i > text.startIndex {
                let j = text.index(before: i)
                let c = text[j]
                if isWordCharacter(c) { break }
                if endsSentence(c), endsSentence(c, after: wordEnding(at: j, in: text)) { break scan }
                i = j
            }
            if i == text.startIndex { break }
            let w = trimApostrophes(previousWord()).lowercased()
            if !w.isEmpty { words.append(w); sentenceStart = false }
        }
        if words.count < maxContext { words.append("<s>") }
        return (words.reversed(), partial, sentenceStart)
    }

    /// The word characters that end right before `index` in `text` (empty if none).
    static func wordEnding(at index: String.Index, in text: String) -> Substring {
        var k = index
        while k > text.startIndex {
            let p = text.index(before: k)
            if !isWordCharacter(text[p]) { break }
            k = p
        }
        return text[k..<index]
    }

    /// All words of `text` in order, with whether each one starts a sentence.
    public static func words(_ text: String) -> [(word: String, sentenceStart: Bool)] {
        var out: [(String, Bool)] = []
        var current = ""
        var start = true
        func flush() {
            let w = trimApostrophes(current)
            if !w.isEmpty { out.append((w, start)); start = false }
            current = ""
        }
        for c in text {
            if isWordCharacter(c) {
                current.append(c)
            } else {
                let before = current
                flush()
                if endsSentence(c, after: Substring(before)) { start = true }
            }
        }
        flush()
        return out
    }

    /// Drops apostrophes used as quote marks at the ends of a token.
    static func trimApostrophes(_ w: String, trailing: Bool = true) -> String {
        var s = Substring(w)
        while let f = s.first, f == "'" || f == "’" { s = s.dropFirst() }
        if trailing { while let l = s.last, l == "'" || l == "’" { s = s.dropLast() } }
        return s.contains("’") ? s.replacingOccurrences(of: "’", with: "'") : String(s)
    }
}
