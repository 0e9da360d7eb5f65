import Foundation

/// Text cut into sentences for speaking: each is synthesised and played on its own, so the first is heard
/// while the rest are still being made, and 10,000 characters at once become many short requests.
public enum Sentences {
    /// The longest piece sent to a voice at once; a longer sentence is cut at a comma, else at a space.
    public static let longestPiece = 240

    /// Splits `text` after `.`, `!`, `?`, `;`, `:` or a line break followed by a space or the end; pieces are
    /// trimmed, empty ones dropped, and a piece longer than `longest` is cut again.
    public static func split(_ text: String, longest: Int = longestPiece) -> [String] {
        var out: [String] = []
        var current = ""
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\n" || c == "\r" {
                flush(&current, into: &out, longest: longest)
            } else {
                current.append(c)
                let next = i + 1 < chars.count ? chars[i + 1] : " "
                if ".!?;:".contains(c) && (next.isWhitespace || next == "\"" || next == ")") && !isAbbreviation(current) {
                    // A closing quote or bracket belongs to the sentence it ends.
                    if next == "\"" || next == ")" { current.append(next); i += 1 }
                    flush(&current, into: &out, longest: longest)
                }
            }
            i += 1
        }
        flush(&current, into: &out, longest: longest)
        return out
    }

    /// The sentence that ends at or before `caret` (a character offset): the one being written when the caret
    /// is inside or right after it, else the last whole one before it.
    public static func sentence(before caret: Int, in text: String) -> String {
        let head = String(text.prefix(max(0, caret)))
        return split(head).last ?? ""
    }

    private static let abbreviations: Set<String> = ["mr.", "mrs.", "ms.", "dr.", "st.", "e.g.", "i.e.", "etc.", "vs."]

    private static func isAbbreviation(_ piece: String) -> Bool {
        guard let last = piece.split(whereSeparator: \.isWhitespace).last else { return false }
        return abbreviations.contains(last.lowercased())
    }

    private static func flush(_ piece: inout String, into out: inout [String], longest: Int) {
        var rest = Substring(piece.trimmingCharacters(in: .whitespacesAndNewlines))
        piece = ""
        while rest.count > longest {
            let window = rest.prefix(longest)
            let cut = window.lastIndex(of: ",").map { rest.index(after: $0) }
                ?? window.lastIndex(where: \.isWhitespace)
                ?? window.endIndex
            let head = rest[..<cut].trimmingCharacters(in: .whitespaces)
            if !head.isEmpty { out.append(head) }
            rest = rest[cut...].drop(while: \.isWhitespace)
        }
        if !rest.isEmpty { out.append(String(rest)) }
    }
}
