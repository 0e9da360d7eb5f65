import Foundation

/// Accent- and case-insensitive keys for words: what a user who types without accents expects to match.
///
/// `cancion` matches `canción`, `ecole` matches `école`, `strasse` matches `Straße` (ß folds to "ss"), `oeuvre`
/// matches `œuvre`. The lexicon is sorted by these keys, so every typed prefix is still one range of ids.
/// Letters the user did type with an accent are honoured by `Folding.matches`: `canció` does not offer
/// `cancionero`.
public enum Folding {
    /// Letters that fold to more than their base letter, or have no decomposition.
    private static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l",
        "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i", "’": "'", "ʼ": "'",
    ]

    /// The folded key of `s`: lowercase, without accents, ß as "ss", ’ as '.
    public static func fold(_ s: String) -> String {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return asciiLowercased(s) }
        let bytes = Array(s.utf8)
        if isLatinUTF8(bytes) { return foldLatin(bytes) }
        return foldUncached(s)
    }

    /// `fold` worked out scalar by scalar through Foundation's normalisation, as for any script; `fold` of Latin text
    /// reads the same answers from a table.
    static func foldUncached(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.lowercased().unicodeScalars {
            appendFolded(scalar, to: &out)
        }
        return String(out)
    }

    /// The folded form of one character (its letters only: a combining mark alone folds to nothing).
    static func fold(_ c: Character) -> String {
        if let v = latinScalar(c) { return latin[v - latinRange.lowerBound].foldedCharacter }
        return slowFold(c)
    }

    private static func slowFold(_ c: Character) -> String {
        var out = String.UnicodeScalarView()
        for scalar in String(c).lowercased().unicodeScalars { appendFolded(scalar, to: &out) }
        return String(out)
    }

    /// The Latin letters past ASCII that accented words are made of (Latin-1 Supplement, Latin Extended-A and -B).
    private static let latinRange = 0x80..<0x250

    /// What folding and normalising each scalar of `latinRange` gives, worked out once by the general code below:
    /// the general code goes through Foundation's normalisation, a few microseconds a call, and a suggestion for
    /// accented letters typed made several such calls, and one per letter of each word it compared.
    private static let latin: [LatinScalar] = latinRange.map { v in
        guard let scalar = Unicode.Scalar(v) else { return LatinScalar() }
        let s = String(scalar), c = Character(scalar)
        return LatinScalar(foldedCharacter: slowFold(c), composed: Array(s.precomposedStringWithCanonicalMapping.utf8),
                           decomposed: Array(s.decomposedStringWithCanonicalMapping.unicodeScalars), isLetter: c.isLetter,
                           isUppercase: c.isUppercase, isWordCharacter: Tokens.isWordCharacter(c))
    }

    /// What `latin` keeps of one scalar.
    struct LatinScalar {
        /// `fold` of it: lowercased, then its letters without their marks.
        var foldedCharacter = ""
        var composed: [UInt8] = [], decomposed: [Unicode.Scalar] = []
        /// The scalar's `Character` properties.
        var isLetter = false, isUppercase = false
        /// `Tokens.isWordCharacter` of it.
        var isWordCharacter = false
    }

    /// Whether `lead`, `trail` is the UTF-8 of a scalar of `latinRange` past ASCII (U+0080–U+024F): a lead byte of
    /// 0xC2–0xC8, or 0xC9 with a trail below 0x90. 0xC9 with a higher trail is U+0250–U+027F (IPA letters), past
    /// the table: taking every 0xC9 read past its end (the fuzzer found "ɱ" crashing the predictor).
    @inline(__always)
    static func isLatinPair(_ lead: UInt8, _ trail: UInt8) -> Bool {
        trail & 0xC0 == 0x80 && (lead &- 0xC2 < 7 || (lead == 0xC9 && trail < 0x90))
    }

    /// The entry of `latin` for the two-byte UTF-8 sequence `lead`, `trail`, which `isLatinPair` accepts.
    @inline(__always)
    static func latinEntry(_ lead: UInt8, _ trail: UInt8) -> LatinScalar {
        latin[(Int(lead & 0x1F) << 6 | Int(trail & 0x3F)) - latinRange.lowerBound]
    }

    /// `fold` of text that `isLatinUTF8`, from the table: every scalar there is a Character, lowercased on its own.
    private static func foldLatin(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                out.append(b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b)
                i += 1
            } else {
                out.append(contentsOf: latinEntry(b, bytes[i + 1]).foldedCharacter.utf8)
                i += 2
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of `c`'s one scalar when it is a single scalar of `latinRange`, else nil.
    @inline(__always)
    private static func latinScalar(_ c: Character) -> Int? {
        let scalars = c.unicodeScalars
        guard let first = scalars.first, latinRange.contains(Int(first.value)),
              scalars.index(after: scalars.startIndex) == scalars.endIndex else { return nil }
        return Int(first.value)
    }

    /// `c` composed (NFC), in UTF-8.
    static func composedUTF8(_ c: Character) -> [UInt8] {
        if let v = latinScalar(c) { return latin[v - latinRange.lowerBound].composed }
        return Array(String(c).precomposedStringWithCanonicalMapping.utf8)
    }

    /// `c` decomposed (NFD), as scalars.
    static func decomposedScalars(_ c: Character) -> [Unicode.Scalar] {
        if let v = latinScalar(c) { return latin[v - latinRange.lowerBound].decomposed }
        return Array(String(c).decomposedStringWithCanonicalMapping.unicodeScalars)
    }

    private static func appendFolded(_ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        if scalar.isASCII { out.append(scalar); return }
        if let s = special[scalar] { out.append(contentsOf: s.unicodeScalars); return }
        // Canonical decomposition, keeping the base letter and dropping the marks: é → e, ñ → n, ü → u.
        for d in String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        where !d.properties.generalCategory.isMark {
            out.append(d)
        }
    }

    private static func asciiLowercased(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return s }
        return String(decoding: s.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// True when every letter of `typed` (lowercase) folds to itself: a user who typed it asked for no accent,
    /// so any accented word with that folded prefix may be offered.
    public static func isPlain(_ typed: String) -> Bool {
        typed.utf8.allSatisfy { $0 < 0x80 } || fold(typed) == typed
    }

    /// True when `bytes` are well-formed UTF-8 of ASCII and U+0080–U+024F only (Latin letters, no combining mark): a
    /// Character boundary lies between any two of their scalars, so the same bytes are the same Characters in any word.
    static func isLatinUTF8(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            guard i + 1 < bytes.count, isLatinPair(b, bytes[i + 1]) else { return false }
            i += 2
        }
        return true
    }

    /// The composed UTF-8 bytes of the first letter of `typed` that `matches` can only match as itself (a non-ASCII
    /// letter), when any word holding it must hold those bytes or a combining mark of U+0300–U+036F: it is an ASCII
    /// letter with such marks (é, ã, ç, ñ, ü). Nil for other letters (ß, œ, other scripts), which are not checked.
    static func accentedLetter(_ typed: String) -> [UInt8]? {
        guard let c = typed.first(where: { !$0.isASCII }) else { return nil }
        let parts = decomposedScalars(c)
        guard parts.count >= 2, parts[0].isASCII, parts.dropFirst().allSatisfy({ (0x300...0x36F).contains($0.value) }) else { return nil }
        return composedUTF8(c)
    }

    /// Whether the word `word` (lowercase) starts with what the user typed (`typed`, lowercase), where a plain
    /// letter typed stands for any accented form of it and an accented letter typed only for itself: `canci`
    /// and `canció` match `canción`, `cancio` too (folded), `cancíon` does not; `stras` matches `straße`.
    public static func matches(_ word: String, typed: String) -> Bool {
        var t = Substring(typed)
        for w in word {
            guard let next = t.first else { return true }
            if next == w { t = t.dropFirst(); continue }
            // A plain letter (or run of them) typed for this letter's folded form: "ss" for ß, "e" for é.
            let f = fold(w)
            guard !f.isEmpty, next.isASCII else { return false }
            var k = f[...]
            while let a = k.first, let b = t.first, a == b, b.isASCII { k = k.dropFirst(); t = t.dropFirst() }
            if !k.isEmpty && !t.isEmpty { return false }
        }
        return t.isEmpty
    }
}

extension Unicode.GeneralCategory {
    /// A combining mark (an accent as its own code point).
    var isMark: Bool { self == .nonspacingMark || self == .spacingMark || self == .enclosingMark }
}
