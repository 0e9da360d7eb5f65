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
        var out = String.UnicodeScalarView()
        for scalar in s.lowercased().unicodeScalars {
            appendFolded(scalar, to: &out)
        }
        return String(out)
    }

    /// The folded form of one character (its letters only: a combining mark alone folds to nothing).
    static func fold(_ c: Character) -> String {
        var out = String.UnicodeScalarView()
        for scalar in String(c).lowercased().unicodeScalars { appendFolded(scalar, to: &out) }
        return String(out)
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

    /// The composed UTF-8 bytes of the first letter of `typed` that `matches` can only match as itself (a non-ASCII
    /// letter), when any word holding it must hold those bytes or a combining mark of U+0300–U+036F: it is an ASCII
    /// letter with such marks (é, ã, ç, ñ, ü). Nil for other letters (ß, œ, other scripts), which are not checked.
    static func accentedLetter(_ typed: String) -> [UInt8]? {
        guard let c = typed.first(where: { !$0.isASCII }) else { return nil }
        let parts = Array(String(c).decomposedStringWithCanonicalMapping.unicodeScalars)
        guard parts.count >= 2, parts[0].isASCII, parts.dropFirst().allSatisfy({ (0x300...0x36F).contains($0.value) }) else { return nil }
        return Array(String(c).precomposedStringWithCanonicalMapping.utf8)
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
