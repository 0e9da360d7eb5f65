/// The translations of one language, as a value: what the shell's state holds and hands to screens, so a
/// screen's drawing depends on the state alone (a replay draws the same in any language, byte for byte).
///
/// Made from a GNU gettext catalog (`POFile` from a `.po` file, `MOFile` from a `.mo` file `msgfmt` made);
/// reading the file is the caller's (the runtime's), so this module does no I/O. A message without a
/// translation shows its English text (the msgid), as gettext does; so does one whose translation was
/// refused (`problems`). English itself is the empty catalog.
public struct Catalog: Sendable, Equatable {
    /// The language's code (`es`, `pt_BR`); `en` for English.
    public let language: String
    /// Which plural form a number takes (the catalog's `Plural-Forms:` header).
    public let plural: PluralRule
    /// Translations by key (`msgid`, or `msgctxt EOT msgid` as in a `.mo` file): one string, or one per
    /// plural form.
    let strings: [String: [String]]
    /// Entries refused (a placeholder the msgid has not, a malformed brace, the wrong number of plural
    /// forms) and what else was wrong with the file, each with its place: they show in English.
    public let problems: [CatalogProblem]
    /// The system's own messages in this language (glibc's `libc.mo`: `strerror`'s "No such file or
    /// directory"), by their English text, for reasons the system gives (`UIMessage.system`).
    let system: [String: String]

    /// English: no translations, every message shows its msgid.
    public static let english = Catalog(language: "en", plural: .english, strings: [:], problems: [])

    init(language: String, plural: PluralRule, strings: [String: [String]], problems: [CatalogProblem],
         system: [String: String] = [:]) {
        self.language = language; self.plural = plural; self.strings = strings; self.problems = problems
        self.system = system
    }

    /// This catalog with the system's messages of `entries` (a `libc.mo`'s), which `systemText` looks up;
    /// their own problems are not this catalog's (a text missing there shows as the system gave it).
    public func withSystemMessages(_ entries: [CatalogEntry]) -> Catalog {
        var table: [String: String] = [:]
        for e in entries where !e.isHeader && !e.isFuzzy && e.context == nil && e.msgidPlural == nil {
            if let t = e.translations.first, !t.isEmpty { table[e.msgid] = t }
        }
        return Catalog(language: language, plural: plural, strings: strings, problems: problems, system: table)
    }

    /// `english`, a text of the system's own (`strerror`), in this language when the system's catalog for it
    /// was read (`withSystemMessages`); as it is otherwise.
    public func systemText(_ english: String) -> String { system[english] ?? english }

    /// A catalog of `entries` (a file's, named `file` in problems): the header's `Plural-Forms:` read, fuzzy
    /// and untranslated entries left out, and each translation checked against its msgid's placeholders,
    /// one refused alone when they differ (it shows in English).
    public init(language: String, entries: [CatalogEntry], file: String, problems earlier: [CatalogProblem] = []) {
        var problems = earlier
        /// A problem with `e`, named at its translation `form`'s line (its msgid's when there is none).
        func problem(_ e: CatalogEntry, form: Int? = nil, _ message: String) {
            let what = e.line == nil ? "msgid \"\(e.msgid.prefix(40))\": " : ""
            let line = form.flatMap { $0 < e.translationLines.count ? e.translationLines[$0] : nil } ?? e.line
            problems.append(CatalogProblem(file: file, line: line, message: what + message))
        }
        var plural = PluralRule.english
        var pluralKnown = false
        if let header = entries.first(where: \.isHeader), let text = header.translations.first {
            for line in text.split(separator: "\n") where line.lowercased().hasPrefix("plural-forms:") {
                do {
                    plural = try PluralRule(header: String(line.dropFirst("plural-forms:".count)))
                    pluralKnown = true
                } catch {
                    problem(header, "Plural-Forms: \(error.reason); messages with plural forms show in English")
                }
            }
            for line in text.split(separator: "\n") where line.lowercased().hasPrefix("content-type:") {
                let charset = line.lowercased().split(separator: "charset=").dropFirst().first.map { $0.trimmingCharacters(" ;\t") }
                if let charset, charset != "utf-8" {
                    problem(header, "charset \(charset): the file is read as UTF-8, which every catalog of this project is")
                }
            }
        }
        var strings: [String: [String]] = [:]
        for e in entries where !e.isHeader && !e.isFuzzy {
            guard e.translations.contains(where: { !$0.isEmpty }) else { continue }
            if let english = e.msgidPlural {
                guard pluralKnown else { continue }
                guard e.translations.count == plural.count else {
                    problem(e, "\(e.translations.count) plural forms where Plural-Forms says \(plural.count); shown in English")
                    continue
                }
                guard !e.translations.contains(where: \.isEmpty) else { continue }
                let refused = e.translations.enumerated().compactMap { i, t in
                    Placeholders.mismatch(original: english, translation: t, mayDrop: ["n"]).map { (i, "msgstr[\(i)]: \($0)") }
                }
                if let (form, why) = refused.first {
                    problem(e, form: form, "\(why) (its msgid_plural: \"\(english)\"); shown in English")
                    continue
                }
            } else {
                guard e.translations.count == 1 else { problem(e, "plural forms without msgid_plural"); continue }
                if let why = Placeholders.mismatch(original: e.msgid, translation: e.translations[0]) {
                    problem(e, form: 0, "\(why) (its msgid: \"\(e.msgid)\"); shown in English")
                    continue
                }
            }
            strings[Self.key(e.msgid, context: e.context)] = e.translations
        }
        self.init(language: language, plural: plural, strings: strings, problems: problems, system: [:])
    }

    /// How many messages it translates.
    public var count: Int { strings.count }

    static func key(_ msgid: String, context: String?) -> String {
        context.map { $0 + "\u{4}" + msgid } ?? msgid
    }

    /// The translation of `msgid` (in `context`) as written, placeholders unfilled; nil when the catalog has none.
    public func translation(_ msgid: String, context: String? = nil) -> String? {
        strings.isEmpty ? nil : strings[Self.key(msgid, context: context)]?.first
    }

    /// `msgid` in this language, its `{name}` placeholders filled from `arguments`.
    public func tr(_ msgid: String, _ arguments: [String: String] = [:], context: String? = nil) -> String {
        let t = strings.isEmpty ? msgid : strings[Self.key(msgid, context: context)]?.first ?? msgid
        return Placeholders.fill(t, arguments)
    }

    /// The form of `singular`/`plural` that `n` takes in this language, `{n}` filled with `n` and the other
    /// placeholders from `arguments`.
    public func trn(_ singular: String, _ plural: String, _ n: Int, _ arguments: [String: String] = [:],
                    context: String? = nil) -> String {
        var args = arguments
        if args["n"] == nil { args["n"] = String(n) }
        let forms = strings.isEmpty ? nil : strings[Self.key(singular, context: context)]
        let t = forms.map { $0[min(self.plural.form(n), $0.count - 1)] } ?? (n == 1 ? singular : plural)
        return Placeholders.fill(t, args)
    }
}
