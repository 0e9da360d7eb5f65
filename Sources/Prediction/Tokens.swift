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
        // ASCII answers on its byte: the Unicode properties' lookup was a tenth of a suggestion in long sentences.
        if let a = c.asciiValue { return isWordByte(a) }
        return c.isLetter || c.isNumber || c == "’"
    }

    /// `isWordCharacter` of an ASCII byte: a letter, a digit or '.
    @usableFromInline @inline(__always)
    static func isWordByte(_ a: UInt8) -> Bool {
        isLetterByte(a) || a &- UInt8(ascii: "0") < 10 || a == UInt8(ascii: "'")
    }

    /// Whether an ASCII byte is a letter (a-z, A-Z).
    @usableFromInline @inline(__always)
    static func isLetterByte(_ a: UInt8) -> Bool { (a | 0x20) &- UInt8(ascii: "a") < 26 }

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
        if let fast = text.utf8.withContiguousStorageIfAvailable({ splitLatin($0, maxContext: maxContext) }), let fast {
            return fast
        }
        return splitCharacters(text, maxContext: maxContext)
    }

    /// `split` for a language with elisions (`LanguageRules.elisions`): a token that starts with one ("l'homme",
    /// "dell'a") is two words, the elision and the rest, so after "l'" the next word is predicted and "l'h"
    /// completes "h". `elided` is the partial token's elision as typed ("L'"), which the suggestions for the
    /// rest are shown after; nil when it has none.
    public static func split(_ text: String, maxContext: Int = 2, rules: LanguageRules)
        -> (context: [String], partial: String, sentenceStart: Bool, elided: String?) {
        guard !rules.elisions.isEmpty else {
            let (context, partial, sentenceStart) = split(text, maxContext: maxContext)
            return (context, partial, sentenceStart, nil)
        }
        // One word more, as the last one may be split in two.
        let (context, partial, sentenceStart) = split(text, maxContext: maxContext + 1)
        var words: [String] = []
        for w in context { words += w == "<s>" ? [w] : rules.splitElisions(w) }
        var rest = partial
        var elided: String?
        if let n = rules.elisionLength(partial) {
            elided = String(partial.prefix(n))
            words.append(elided.map { straightApostrophes($0.lowercased()) } ?? "")
            rest = String(partial.dropFirst(n))
        }
        // A word before the partial one, or the one split from it, means it does not start the sentence.
        let starts = sentenceStart && elided == nil
        return (Array(words.suffix(maxContext)), rest, starts, elided)
    }

    /// All words of `text` in order, with whether each one starts a sentence, elisions split off
    /// ("l'homme" → "l'", "homme").
    public static func words(_ text: String, rules: LanguageRules) -> [(word: String, sentenceStart: Bool)] {
        let all = words(text)
        guard !rules.elisions.isEmpty else { return all }
        var out: [(String, Bool)] = []
        for (w, start) in all {
            for (k, part) in rules.splitElisions(w).enumerated() { out.append((part, start && k == 0)) }
        }
        return out
    }

    /// `split` walking Characters, for any text.
    static func splitCharacters(_ text: String, maxContext: Int) -> (context: [String], partial: String, sentenceStart: Bool) {
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

    /// `split` on UTF-8 bytes, for text whose examined tail is ASCII or Latin letters (U+0080–U+024F, two bytes each:
    /// `Folding.isLatinUTF8`); nil when it is not (then `split` walks Characters).
    ///
    /// Walking Characters costs most of a suggestion. Between two such scalars there is always a Character boundary
    /// (none of them combines with its neighbours) except inside "\r\n", which is a separator either way, so when every
    /// scalar looked at and the one before them are ASCII or Latin the two walks see the same characters and give the
    /// same result.
    static func splitLatin(_ b: UnsafeBufferPointer<UInt8>, maxContext: Int) -> (context: [String], partial: String, sentenceStart: Bool)? {
        @inline(__always) func isLatin(_ lead: UInt8, _ trail: UInt8) -> Bool { Folding.isLatinPair(lead, trail) }
        // Lowest index read, and whether every scalar read was ASCII or Latin.
        var low = b.count
        var latin = true
        // The scalar ending right before `x`: where it starts, whether it is a word character, and its byte (0x80 for a
        // Latin letter, which is never a separator that matters here).
        @inline(__always) func before(_ x: Int) -> (start: Int, word: Bool, byte: UInt8) {
            let c = b[x - 1]
            if c < 0x80 {
                if x - 1 < low { low = x - 1 }
                return (x - 1, isWordByte(c), c)
            }
            guard x >= 2, isLatin(b[x - 2], c) else { latin = false; return (x - 1, false, 0x80) }
            if x - 2 < low { low = x - 2 }
            return (x - 2, Folding.latinEntry(b[x - 2], c).isWordCharacter, 0x80)
        }
        var i = b.count
        // Moves i back over word characters; returns where the word ended.
        func previousWord() -> Int {
            let end = i
            while i > 0 {
                let p = before(i)
                if !latin || !p.word { break }
                i = p.start
            }
            return end
        }
        func lowerString(_ r: Range<Int>) -> String {
            guard b[r].allSatisfy({ $0 < 0x80 }) else {
                return String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self).lowercased()
            }
            // Written in place: decoding a lazily mapped slice went through a dynamic cast and a copy for every word.
            return String(unsafeUninitializedCapacity: r.count) { out in
                for (k, c) in b[r].enumerated() { out[k] = c &- UInt8(ascii: "A") < 26 ? c | 0x20 : c }
                return r.count
            }
        }
        var end = previousWord()
        guard latin else { return nil }
        var s = i
        while s < end, b[s] == UInt8(ascii: "'") { s += 1 }
        let partial = String(decoding: UnsafeBufferPointer(rebasing: b[s..<end]), as: UTF8.self)
        var words: [String] = []
        var sentenceStart = true
        scan: while words.count < maxContext {
            while i > 0 {
                let p = before(i)
                guard latin else { return nil }
                if p.word { break }
                let c = p.byte
                if c == UInt8(ascii: ".") || c == UInt8(ascii: "!") || c == UInt8(ascii: "?") {
                    if c != UInt8(ascii: ".") { break scan }
                    // The word right before the full stop decides: a title such as "Mr." does not end the sentence.
                    // Titles are ASCII: a word with another letter ends the sentence whatever its length.
                    var k = p.start
                    var ascii = true
                    while k > 0 {
                        let q = before(k)
                        guard latin else { return nil }
                        if !q.word { break }
                        if q.byte >= 0x80 { ascii = false }
                        k = q.start
                    }
                    let n = p.start - k
                    if n == 0 || !ascii || n > 7 || !abbreviations.contains(lowerString(k..<p.start)) { break scan }
                }
                i = p.start
            }
            if i == 0 { break }
            end = previousWord()
            guard latin else { return nil }
            var ws = i, we = end
            while ws < we, b[ws] == UInt8(ascii: "'") { ws += 1 }
            while we > ws, b[we - 1] == UInt8(ascii: "'") { we -= 1 }
            if ws < we { words.append(lowerString(ws..<we)); sentenceStart = false }
        }
        // The scalar before the lowest one read must be ASCII or Latin too, or the two could be one Character.
        if low > 0 {
            let c = b[low - 1]
            if c >= 0x80, !(low >= 2 && isLatin(b[low - 2], c)) { return nil }
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
        return straightApostrophes(s)
    }

    /// `s` with each "’" made "'". Foundation's search for "’" took a fifth of a suggestion, so its first byte
    /// (E2 80 99) is looked for first: without it there is none.
    static func straightApostrophes(_ s: some StringProtocol) -> String {
        guard s.utf8.contains(0xE2) else { return String(s) }
        return s.contains("’") ? s.replacingOccurrences(of: "’", with: "'") : String(s)
    }

    /// `Character.isLetter`, answered on the byte for ASCII (the Unicode properties' lookup is slow).
    @inline(__always)
    static func isLetter(_ c: Character) -> Bool {
        if let a = c.asciiValue { return isLetterByte(a) }
        return c.isLetter
    }
}
