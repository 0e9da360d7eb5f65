/// Which language the shell speaks, from the command line (`--language`), the setting (`language = "es"`)
/// and the environment (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, as gettext reads them), given the
/// language packs installed. Pure: the caller hands in the environment and the packs it found.
public struct LanguageChoice: Sendable, Equatable {
    /// Where the choice came from.
    public enum Source: Sendable, Equatable {
        case commandLine
        case setting
        /// The environment variable that named it (`LANG`).
        case environment(String)
        /// Nothing asked for a language: English.
        case none
    }

    /// The language used: an installed pack's code, or `en`.
    public var language: String
    public var source: Source
    /// A language that was asked for (by the setting or the environment) and has no pack: the shell uses
    /// English and says so once.
    public var missing: String?

    public init(language: String, source: Source, missing: String? = nil) {
        self.language = language; self.source = source; self.missing = missing
    }

    /// English, built in: always there, never a pack.
    public static let english = "en"

    /// The setting's value that follows the environment.
    public static let automatic = "auto"

    /// `code` written the way packs are named: `es`, `pt_BR` (`ES`, `pt-br`, `pt_BR.UTF-8` too); nil when it
    /// is not a language code (two or three letters, then an optional `_` and two letters or three digits).
    public static func normalise(_ code: String) -> String? {
        var s = code
        if let cut = s.firstIndex(where: { $0 == "." || $0 == "@" }) { s = String(s[..<cut]) }
        let parts = s.split(separator: s.contains("_") ? "_" : "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let lang = parts[0].lowercased()
        guard (2...3).contains(lang.count), lang.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) else { return nil }
        guard parts.count == 2 else { return lang }
        let region = parts[1].uppercased()
        let letters = region.count == 2 && region.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
        let digits = region.count == 3 && region.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        guard letters || digits else { return nil }
        return lang + "_" + region
    }

    /// Whether `code` (normalised) is English, which needs no pack.
    public static func isEnglish(_ code: String) -> Bool { code == english || code.hasPrefix(english + "_") }

    /// The pack among `installed` for `code`: the code itself (`pt_BR`), else its language alone (`pt`).
    public static func pack(for code: String, installed: [String]) -> String? {
        if installed.contains(code) { return code }
        let lang = String(code.prefix { $0 != "_" })
        return installed.contains(lang) ? lang : nil
    }

    /// The locale the environment sets for messages, as gettext reads it: `LC_ALL`, else `LC_MESSAGES`, else
    /// `LANG`, with the variable's name; nil when none is set.
    public static func messagesLocale(_ env: [String: String]) -> (value: String, variable: String)? {
        for v in ["LC_ALL", "LC_MESSAGES", "LANG"] { if let x = env[v], !x.isEmpty { return (x, v) } }
        return nil
    }

    /// Whether a locale is the C locale, which asks for no language (gettext then ignores `LANGUAGE` too).
    public static func isCLocale(_ locale: String) -> Bool {
        locale == "C" || locale == "POSIX" || locale.hasPrefix("C.") || locale.hasPrefix("C@")
    }

    /// The languages the environment asks for, in order, with the variable naming each: `LANGUAGE`'s entries
    /// (a colon-separated list, unless the locale is C), then the messages locale's language.
    public static func environmentLanguages(_ env: [String: String]) -> [(code: String, variable: String)] {
        let locale = messagesLocale(env)
        if let l = locale, isCLocale(l.value) { return [] }
        var out: [(String, String)] = []
        if locale != nil, let list = env["LANGUAGE"], !list.isEmpty {
            for entry in list.split(separator: ":") { if let c = normalise(String(entry)) { out.append((c, "LANGUAGE")) } }
        }
        if let l = locale, let c = normalise(l.value) { out.append((c, l.variable)) }
        return out
    }

    /// The choice for a command line's `--language` (nil: not given), the setting (`auto` or a code) and the
    /// environment, among the `installed` packs (English is always there). A code on the command line that
    /// has no pack is an error listing the packs; one in the setting or the environment gives English, with
    /// `missing` to say once.
    public static func resolve(commandLine: String?, setting: String, environment: [String: String],
                               installed: [String]) throws(UnknownLanguage) -> LanguageChoice {
        if let asked = commandLine {
            guard let code = normalise(asked) else { throw UnknownLanguage(asked: asked, installed: installed) }
            if isEnglish(code) { return LanguageChoice(language: english, source: .commandLine) }
            guard let pack = pack(for: code, installed: installed) else { throw UnknownLanguage(asked: asked, installed: installed) }
            return LanguageChoice(language: pack, source: .commandLine)
        }
        if setting != automatic, !setting.isEmpty {
            let code = normalise(setting)
            if let code, isEnglish(code) { return LanguageChoice(language: english, source: .setting) }
            if let code, let pack = pack(for: code, installed: installed) { return LanguageChoice(language: pack, source: .setting) }
            return LanguageChoice(language: english, source: .setting, missing: setting)
        }
        let wanted = environmentLanguages(environment)
        for (code, variable) in wanted {
            if isEnglish(code) { return LanguageChoice(language: english, source: .environment(variable)) }
            if let pack = pack(for: code, installed: installed) { return LanguageChoice(language: pack, source: .environment(variable)) }
        }
        if let first = wanted.first {
            return LanguageChoice(language: english, source: .environment(first.variable), missing: first.code)
        }
        return LanguageChoice(language: english, source: .none)
    }

    /// What to say once when a language asked for has no pack (nil when none is missing).
    public func missingNotice(installed: [String]) -> UIMessage? {
        guard let missing else { return nil }
        return UIMessage("No language pack for {language}: the shell is in English (installed: {packs})",
                         ["language": missing, "packs": ([Self.english] + installed).sorted().joined(separator: ", ")])
    }
}

/// A `--language` code that names no installed pack.
public struct UnknownLanguage: Error, Sendable, Equatable, CustomStringConvertible {
    public var asked: String
    public var installed: [String]
    public init(asked: String, installed: [String]) { self.asked = asked; self.installed = installed }
    /// The error as a message: the code asked for and the packs installed (English among them).
    public var message: UIMessage {
        UIMessage("unknown language \"{language}\" (installed: {packs})",
                  ["language": asked, "packs": ([LanguageChoice.english] + installed).sorted().joined(separator: ", ")])
    }
    public var description: String { message.english }
}
