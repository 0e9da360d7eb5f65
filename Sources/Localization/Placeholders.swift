/// Named placeholders in a message: `"Saved {name}"`, filled by name so that a translation may put them in
/// another order (`"{name} guardada"`).
///
/// The syntax is Python's `str.format` with names only (gettext's `python-brace-format`, which
/// `msgfmt --check-format` verifies): `{name}` is a placeholder, `{{` and `}}` are a literal brace. A name is
/// letters, digits and `_`, not starting with a digit.
public enum Placeholders {
    /// One piece of a message: literal text, or a placeholder's name.
    enum Piece: Equatable {
        case text(String)
        case name(String)
    }

    /// What is wrong with a message's braces (a lone `{` or `}`, an empty or odd name).
    public struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The message split into text and placeholders; nil when its braces are malformed.
    static func pieces(_ s: String) -> [Piece]? {
        var out: [Piece] = []
        var text = ""
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            let next = s.index(after: i)
            if c == "{" {
                if next < s.endIndex, s[next] == "{" { text.append("{"); i = s.index(after: next); continue }
                guard let close = s[next...].firstIndex(of: "}") else { return nil }
                let name = String(s[next..<close])
                guard isName(name) else { return nil }
                if !text.isEmpty { out.append(.text(text)); text = "" }
                out.append(.name(name))
                i = s.index(after: close)
            } else if c == "}" {
                guard next < s.endIndex, s[next] == "}" else { return nil }
                text.append("}")
                i = s.index(after: next)
            } else {
                text.append(c)
                i = next
            }
        }
        if !text.isEmpty { out.append(.text(text)) }
        return out
    }

    static func isName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return s.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// The placeholders' names in order of appearance (a name used twice appears twice); throws when the
    /// braces are malformed.
    public static func names(in s: String) throws(Malformed) -> [String] {
        guard let p = pieces(s) else { throw Malformed(reason: "a brace that opens no placeholder ({{ and }} are literal braces)") }
        return p.compactMap { if case .name(let n) = $0 { n } else { nil } }
    }

    /// `template` with each `{name}` replaced by `arguments[name]`; a name with no argument stays as it is
    /// written, braces and all, so a missing argument shows rather than vanishing. Malformed braces leave the
    /// template as it is.
    public static func fill(_ template: String, _ arguments: [String: String]) -> String {
        guard template.contains("{") || template.contains("}"), let p = pieces(template) else { return template }
        var out = ""
        for piece in p {
            switch piece {
            case .text(let t): out += t
            case .name(let n): out += arguments[n] ?? "{\(n)}"
            }
        }
        return out
    }

    /// Why `translation` may not stand for `original`, or nil when it may: its braces are malformed, or
    /// the names it uses differ from the original's. `mayDrop` names the original may have that the
    /// translation may leave out (a plural form that stands for one number only: "one file", not "{n} file").
    public static func mismatch(original: String, translation: String, mayDrop: Set<String> = []) -> String? {
        guard let want = try? names(in: original) else { return nil }
        let got: [String]
        do { got = try names(in: translation) } catch { return "the translation has \(error.reason)" }
        let wanted = Set(want), have = Set(got)
        let missing = wanted.subtracting(have).subtracting(mayDrop).sorted()
        let extra = have.subtracting(wanted).sorted()
        guard !missing.isEmpty || !extra.isEmpty else { return nil }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("lacks " + missing.map { "{\($0)}" }.joined(separator: ", ")) }
        if !extra.isEmpty { parts.append("has " + extra.map { "{\($0)}" }.joined(separator: ", ") + " that the original has not") }
        return "the translation " + parts.joined(separator: " and ")
    }
}
