#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Runtime
import Synchronization

/// A command-line message in the language of this run (`CommandLineText.catalog`: `--language`, else the
/// setting and the environment), its `{name}` placeholders filled from `arguments`. A literal given here is
/// extracted for translators as a screen's is (`scripts/extract-messages.py`).
func tr(_ msgid: String, _ arguments: [String: String] = [:], context: String? = nil) -> String {
    CommandLineText.catalog.tr(msgid, arguments, context: context)
}

/// The form of `singular`/`plural` that `n` takes in the language of this run (`{n}` filled with `n`).
func trn(_ singular: String, _ plural: String, _ n: Int, _ arguments: [String: String] = [:], context: String? = nil) -> String {
    CommandLineText.catalog.trn(singular, plural, n, arguments, context: context)
}

extension UIMessage {
    /// The message in the language of this run's command-line messages.
    var shown: String { text(CommandLineText.catalog) }
}

/// The system's text for `errno` value `code` in the language of this run's messages: glibc's own words
/// (`strerror`), translated by glibc's catalog for that language (`libc.mo` of Debian's `libc-l10n`). The
/// catalog is read here, not through `setlocale`, since the user's locale need not be generated; without it
/// the English text shows.
func systemError(_ code: Int32) -> String {
    let english = String(cString: strerror(code))
    return SystemMessages.shared.withLock { $0.translate(english, language: CommandLineText.catalog.language) }
}

/// glibc's catalogs read so far, one per language.
struct SystemMessages {
    static let shared = Mutex(SystemMessages())
    private var catalogs: [String: Catalog] = [:]

    /// Where glibc's catalog for `language` is (`pt_BR` tries `pt_BR`, then `pt`).
    static func file(_ language: String) -> String? {
        let whole = language.replacingOccurrences(of: "-", with: "_")
        let base = String(whole.prefix { $0 != "_" })
        return [whole, base].map { "/usr/share/locale/\($0)/LC_MESSAGES/libc.mo" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    mutating func translate(_ english: String, language: String) -> String {
        guard language != LanguageChoice.english else { return english }
        if catalogs[language] == nil {
            let entries = Self.file(language).flatMap { f in
                FileManager.default.contents(atPath: f).flatMap { try? MOFile.parse([UInt8]($0)).entries }
            } ?? []
            catalogs[language] = Catalog(language: language, entries: entries, file: "libc.mo")
        }
        return catalogs[language]?.translation(english) ?? english
    }
}

/// How to install a Python part, in the language of this run: the installation's own command, or a Python of
/// the user's own (`PythonEnv.installHint`'s words).
func pythonHint(_ group: String, package: String) -> String {
    tr("{command}, or set HANDSFREE_PYTHON to a Python that has {package}", ["command": PythonEnv.installCommand(group), "package": package])
}

/// `v` with `digits` decimals and the decimal separator of this run's language ("1,5" in German).
func decimal(_ v: Double, _ digits: Int) -> String {
    let text = String(format: "%.\(digits)f", v)
    let point = tr(".", context: "decimal separator")
    return point == "." ? text : text.replacingOccurrences(of: ".", with: point)
}

/// The codes of the installed languages, English's first ("en, de, es, fr, it, nl, pt"), for help and
/// messages that list them: a pack added is listed without a change here.
func languageCodes() -> String {
    let installed = ProjectPaths.root.map { Translations.installed(root: $0).map(\.code) } ?? []
    let packs = LanguagePacks.installed().packs.map(\.code)
    return ([LanguageChoice.english] + Set(installed + packs).subtracting([LanguageChoice.english]).sorted()).joined(separator: ", ")
}

/// ArgumentParser's own words around our messages (its errors, "Usage:", the help's headings) in the language
/// of this run; the commands' own help and errors are translated where they are written. A line it does not
/// know stays as it is.
enum ArgumentText {
    static func translate(_ text: String) -> String {
        guard CommandLineText.catalog.language != LanguageChoice.english else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line(String($0)) }.joined(separator: "\n")
    }

    /// `text`'s part between `prefix` and `suffix`, when it has them.
    private static func between(_ text: String, _ prefix: String, _ suffix: String) -> String? {
        guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count >= prefix.count + suffix.count else { return nil }
        return String(text.dropFirst(prefix.count).dropLast(suffix.count))
    }

    static func line(_ text: String) -> String {
        if let message = between(text, "Error: ", "") { return tr("Error: {message}", ["message": parserError(message)]) }
        if let usage = between(text, "Usage: ", "") { return tr("Usage: {usage}", ["usage": usage]) }
        if let command = between(text, "  See '", " <subcommand>' for detailed help.") {
            return "  " + tr("See '{command} <subcommand>' for detailed help.", ["command": command])
        }
        if let command = between(text, "  See '", "' for more information.") {
            return "  " + tr("See '{command}' for more information.", ["command": command])
        }
        let headings = [("OVERVIEW:", tr("OVERVIEW:")), ("USAGE:", tr("USAGE:")), ("ARGUMENTS:", tr("ARGUMENTS:")),
                        ("OPTIONS:", tr("OPTIONS:")), ("SUBCOMMANDS:", tr("SUBCOMMANDS:")), ("Help:", tr("Help:"))]
        for (english, shown) in headings where text.hasPrefix(english) { return shown + text.dropFirst(english.count) }
        if text.hasSuffix("Show help information.") {
            return text.dropLast("Show help information.".count) + tr("Show help information.")
        }
        return text
    }

    /// ArgumentParser's errors for what was typed wrong; ours come through as they are (already translated).
    static func parserError(_ message: String) -> String {
        if let name = between(message, "Unknown option '", "'") { return tr("Unknown option '{option}'", ["option": name]) }
        if let name = between(message, "Missing value for '", "'") { return tr("Missing value for '{option}'", ["option": name]) }
        if let name = between(message, "Missing expected argument '", "'") { return tr("Missing expected argument '{argument}'", ["argument": name]) }
        if let name = between(message, "Unexpected argument '", "'") { return tr("Unexpected argument '{argument}'", ["argument": name]) }
        return message
    }
}
