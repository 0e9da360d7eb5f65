/// What a language asks of prediction beyond its word lists: the rules that used to be English and
/// hard-wired, now given by the language pack (`languages/LL/pack.toml`, read by Runtime's `LanguagePack`).
///
/// A value, handed to the predictor when it is loaded; nothing reads a language from anywhere else.
public struct LanguageRules: Sendable, Equatable {
    /// The language's code ("en", "es", "pt-BR"): for messages and file names, never for behaviour.
    public var code: String
    /// Elided words that are written joined to the next one by an apostrophe, lowercase, each ending in `'`:
    /// French `l'`, `j'`, `d'`, `qu'`; Italian `dell'`, `all'`, `un'`. After one the next word is predicted
    /// ("l'h" offers "l'homme"), and each part is learned as its own word.
    public var elisions: Set<String>
    /// Whether a word's possessive is generated ("mother's", "Emma's"): English's `'s`.
    public var possessive: Bool
    /// Words always shown in a form of their own whatever the position (English "i" → "I", "i'm" → "I'm"),
    /// lowercase word → form.
    public var capitalised: [String: String]

    public init(code: String, elisions: Set<String> = [], possessive: Bool = false, capitalised: [String: String] = [:]) {
        self.code = code
        self.elisions = Set(elisions.map { Folding.fold($0) })
        self.possessive = possessive
        self.capitalised = capitalised
    }

    /// English as the shell always predicted it: possessives, "I" capitalised, no elisions.
    public static let english = LanguageRules(
        code: "en", possessive: true,
        capitalised: ["i": "I", "i'm": "I'm", "i'll": "I'll", "i've": "I've", "i'd": "I'd"])

    /// A language with no special rules (its word lists only).
    public static func plain(_ code: String) -> LanguageRules { LanguageRules(code: code) }

    /// The length in characters of the elision `token` starts with ("l'" of "l'homme", "dell'" of "dell'anno"),
    /// or nil when it starts with none. A token that is only the elision ("l'") counts too.
    public func elisionLength(_ token: some StringProtocol) -> Int? {
        guard !elisions.isEmpty else { return nil }
        var n = 0
        for c in token {
            n += 1
            if c == "'" || c == "’" {
                return elisions.contains(Folding.fold(String(token.prefix(n)))) ? n : nil
            }
            // The longest elision is a handful of letters ("lorsqu'"): stop looking well before a long word's end.
            if n > 8 || !Tokens.isLetter(c) { return nil }
        }
        return nil
    }

    /// `token` split after its elisions: "l'homme" → ["l'", "homme"], "dell'anno" → ["dell'", "anno"];
    /// any other token as it is.
    public func splitElisions(_ token: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(token)
        while let n = elisionLength(rest), n < rest.count {
            parts.append(Tokens.straightApostrophes(rest.prefix(n)))
            rest = rest.dropFirst(n)
        }
        parts.append(String(rest))
        return parts
    }
}
