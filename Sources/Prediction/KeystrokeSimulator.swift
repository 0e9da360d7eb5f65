/// Keystroke counts from simulating typing a text with word suggestions.
public struct KeystrokeSavings: Equatable, Sendable {
    /// Keystrokes needed with no prediction (kn).
    public var withoutPrediction = 0
    /// Characters typed with prediction on (ki).
    public var typed = 0
    /// Suggestions accepted, one keystroke each (ks).
    public var selections = 0
    /// Words simulated.
    public var words = 0

    /// KSR = (1 − (ki + ks) / kn) × 100, as Presage's simulator defines it.
    public var rate: Double {
        guard withoutPrediction > 0 else { return 0 }
        return (1 - Double(typed + selections) / Double(withoutPrediction)) * 100
    }
}

/// Simulates typing a text with a predictor, counting keystrokes the way `presage_simulator` does.
///
/// Presage's simulator (observed on Debian's presage 0.9.1) splits the text at every character
/// that is not a letter or digit, and charges each token its length plus one separator keystroke
/// (runs of separators count once; a separator at the very end counts one more). For each token
/// it asks for suggestions before each typed character; when the token is offered, the rest of
/// the word and the following space cost one keystroke. That is what this reproduces, with two
/// choices made explicit: a token that is a single word with an inner apostrophe ("don't") is one
/// word here, costing the same as Presage's "don" + "t" when neither is predicted; and words are
/// matched case-insensitively, like `presage_simulator -i`.
public enum KeystrokeSimulator {
    /// Simulates typing `text` with at most `suggestions` words offered, learning as it goes if `learn`.
    ///
    /// `trace`, if given, is called for each word with the letters typed before it was offered
    /// (nil if it never was) and the suggestions offered before its first letter, for diagnosing misses.
    public static func simulate(_ text: String, predictor: WordPredictor, suggestions: Int, learn: Bool = false,
                                trace: ((_ word: String, _ typedBeforeOffered: Int?, _ offeredFirst: [String]) -> Void)? = nil) -> KeystrokeSavings {
        var p = predictor
        var k = KeystrokeSavings()
        var typedSoFar = ""
        typedSoFar.reserveCapacity(text.utf8.count)
        var i = text.startIndex
        var pendingSeparator = false
        func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber }
        while i < text.endIndex {
            let c = text[i]
            if !isWordChar(c) {
                typedSoFar.append(c)
                i = text.index(after: i)
                pendingSeparator = true
                continue
            }
            // A word: letters/digits, joined by single inner apostrophes.
            var j = i
            while j < text.endIndex {
                let d = text[j]
                if isWordChar(d) { j = text.index(after: j); continue }
                if d == "'", case let n = text.index(after: j), n < text.endIndex, isWordChar(text[n]) {
                    j = n; continue
                }
                break
            }
            let word = String(text[i..<j])
            let chars = Array(word)
            let lower = word.lowercased()
            // Presage charges every token its length + 1 (the separator after it).
            k.withoutPrediction += chars.count + 1
            k.words += 1
            var hit = false
            var first: [String] = []
            for typed in 0..<chars.count {
                let offered = p.suggest(String(typedSoFar.suffix(300)) + String(chars[0..<typed]), limit: suggestions)
                if typed == 0 { first = offered }
                if offered.contains(where: { $0.lowercased() == lower }) {
                    k.typed += typed
                    k.selections += 1
                    hit = true
                    trace?(word, typed, first)
                    break
                }
            }
            if !hit { k.typed += chars.count + 1; trace?(word, nil, first) }
            if learn { p.learn(word: word, after: String(typedSoFar.suffix(300))) }
            typedSoFar += word
            i = j
            pendingSeparator = false
        }
        if pendingSeparator {
            // Presage counts an empty last token after trailing punctuation or a newline.
            k.withoutPrediction += 1
            k.typed += 1
        }
        return k
    }

    /// Keystrokes without prediction for `text`, counted as `presage_simulator` does.
    public static func presageBaseline(_ text: String) -> Int {
        var kn = 0, inWord = false, endsWithSeparator = false
        for c in text {
            if c.isLetter || c.isNumber {
                kn += 1; inWord = true; endsWithSeparator = false
            } else {
                if inWord { kn += 1 }
                inWord = false; endsWithSeparator = true
            }
        }
        if inWord { kn += 1 }
        if endsWithSeparator { kn += 1 }
        return kn
    }
}
