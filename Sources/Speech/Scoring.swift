import Foundation

/// Word error counts between a reference transcript and a hypothesis (Levenshtein alignment on words).
public struct WordErrors: Equatable, Sendable {
    public var substitutions = 0
    public var deletions = 0
    public var insertions = 0
    /// Words in the reference.
    public var referenceWords = 0

    public init() {}

    /// Total errors.
    public var errors: Int { substitutions + deletions + insertions }
    /// Word error rate in percent (errors / reference words).
    public var rate: Double { referenceWords == 0 ? 0 : 100 * Double(errors) / Double(referenceWords) }

    /// Aligns `hypothesis` against `reference` (both already normalised words).
    public static func align(reference: [String], hypothesis: [String]) -> WordErrors {
        let n = reference.count, m = hypothesis.count
        // cost[i][j] with a backpointer kind: 0 match/sub, 1 deletion, 2 insertion.
        var cost = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = i }
        for j in 0...m { cost[0][j] = j }
        if n > 0 && m > 0 {
            for i in 1...n {
                for j in 1...m {
                    let sub = cost[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)
                    cost[i][j] = min(sub, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
                }
            }
        }
        var e = WordErrors()
        e.referenceWords = n
        var i = n, j = m
        while i > 0 || j > 0 {
            if i > 0 && j > 0 && cost[i][j] == cost[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1) {
                if reference[i - 1] != hypothesis[j - 1] { e.substitutions += 1 }
                i -= 1; j -= 1
            } else if i > 0 && cost[i][j] == cost[i - 1][j] + 1 {
                e.deletions += 1; i -= 1
            } else {
                e.insertions += 1; j -= 1
            }
        }
        return e
    }

    /// Adds another file's counts.
    public static func + (a: WordErrors, b: WordErrors) -> WordErrors {
        var r = a
        r.substitutions += b.substitutions
        r.deletions += b.deletions
        r.insertions += b.insertions
        r.referenceWords += b.referenceWords
        return r
    }
}

/// Transcript files in the CMU test-data formats.
public enum Transcripts {
    /// Lower-case words without fillers or alternate-pronunciation marks, for scoring.
    public static func normalise(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { w in
            let s = String(w)
            if s.hasPrefix("<") || s.hasPrefix("[") || s.hasPrefix("++") { return nil }
            return s.split(separator: "(", maxSplits: 1).first.map(String.init)
        }
    }

    /// Written text (Whisper's: capitals, punctuation, digits, "Mr.") as the words a transcript would have:
    /// lower case, no punctuation, hyphens as spaces, numbers as words, common titles spelt out, so both
    /// engines are scored the same way.
    public static func normaliseWritten(_ text: String) -> [String] {
        let titles = ["mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint"]
        var words: [String] = []
        for raw in text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "-" || $0 == "—" }) {
            var w = raw.filter { $0.isLetter || $0.isNumber || $0 == "'" }
            while w.hasPrefix("'") { w.removeFirst() }
            while w.hasSuffix("'") { w.removeLast() }
            if w.isEmpty { continue }
            if let t = titles[w] { words.append(t); continue }
            if let n = Int(w), n >= 0, n < 1_000_000 { words += numberWords(n); continue }
            words.append(w)
        }
        return words
    }

    /// `42` → ["forty", "two"]; below a million.
    public static func numberWords(_ n: Int) -> [String] {
        let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        if n < 20 { return [ones[n]] }
        if n < 100 { return [tens[n / 10]] + (n % 10 == 0 ? [] : [ones[n % 10]]) }
        if n < 1000 { return [ones[n / 100], "hundred"] + (n % 100 == 0 ? [] : numberWords(n % 100)) }
        return numberWords(n / 1000) + ["thousand"] + (n % 1000 == 0 ? [] : numberWords(n % 1000))
    }

    /// Parses lines like `<s> ten of clubs </s> (001)` into utterance id → text.
    ///
    /// The `(id)` at the end is the file's base name; lines without one are skipped.
    public static func parse(_ text: String) -> [(id: String, text: String)] {
        var out: [(id: String, text: String)] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let l = line.trimmingCharacters(in: .whitespaces)
            guard l.hasSuffix(")"), let open = l.lastIndex(of: "(") else { continue }
            let id = String(l[l.index(after: open)..<l.index(before: l.endIndex)])
            let words = normalise(String(l[..<open]))
            out.append((id: id, text: words.joined(separator: " ")))
        }
        return out
    }
}
