#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Prediction
import Runtime

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

/// An error in the language of this run's messages: worded for translation where its type is (a prediction
/// file's, a setup or config problem), else as it describes itself.
func shown(_ error: any Error) -> String {
    if let e = error as? PredictionError { return e.message.shown }
    return SetupError.message(of: error).shown
}

/// The system's text for `errno` value `code` in the language of this run's messages: glibc's own words
/// (`strerror`), translated by glibc's catalog for that language (`libc.mo` of Debian's `libc-l10n`, which
/// the catalog carries: `Translations.systemMessages`); without it the English text shows.
func systemError(_ code: Int32) -> String {
    UIMessage.system(String(cString: strerror(code))).shown
}

/// How to install a Python part, in the language of this run: the installation's own command, or a Python of
/// the user's own (`PythonEnv.installHint`'s words).
func pythonHint(_ group: String, package: String) -> String {
    tr("{command}, or set HANDSFREE_PYTHON to a Python that has {package}", ["command": PythonEnv.installCommand(group), "package": package])
}

/// `v` with `digits` decimals and the decimal separator of this run's language ("1,5" in German).
func decimal(_ v: Double, _ digits: Int) -> String {
    CommandLineText.catalog.decimal(v, digits: digits)
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
        // JSON (`--experimental-dump-help`) is for programs: its texts are translated already, its lines kept.
        guard CommandLineText.catalog.language != LanguageChoice.english, !text.hasPrefix("{") else { return text }
        let lines = defaults(text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // ArgumentParser wrapped the English at the terminal's width (80 when it is not one); a translated heading
        // or default may make a line longer. The usage line is never wrapped.
        let width = ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.map { max(40, $0) } ?? 80
        var out: [String] = []
        // What did not fit on a line whose text goes on on the next one ("OVERVIEW:" made "DESCRIPTION :"): it
        // starts that line, so the paragraph is wrapped again as one text rather than left with a stub line.
        var carry = ""
        for (i, english) in lines.enumerated() {
            let next = i + 1 < lines.count ? lines[i + 1] : ""
            var shown = line(english)
            if !carry.isEmpty {
                let lead = shown.prefix { $0 == " " }
                shown = lead + carry + " " + shown.dropFirst(lead.count)
                carry = ""
            }
            if english.hasPrefix("USAGE:") { out.append(shown); continue }
            let indent = hangingIndent(english, next: next)
            var wrapped = wrap(shown, width: width, indent: indent)
            if wrapped.count > 1, continues(next, indent: indent), let last = wrapped.popLast() {
                carry = String(last.dropFirst(indent))
            }
            out += wrapped
        }
        return out.joined(separator: "\n")
    }

    /// Whether `next` carries on the text of a line wrapped with `indent`: it is not empty and starts at that
    /// column (a new option, a heading or a blank line starts elsewhere), and is not a usage line (after an
    /// error made longer than a line by its translation, "Usage: …" starts a line of its own).
    static func continues(_ next: String, indent: Int) -> Bool {
        let lead = next.prefix { $0 == " " }.count
        return lead == indent && next.count > lead && !next.hasPrefix("USAGE:") && !next.hasPrefix("Usage: ")
    }

    /// Where a line's text continues on the next line: the next line's indentation when it carries on the same
    /// text, an option's description column, else the left edge.
    static func hangingIndent(_ line: String, next: String) -> Int {
        let lead = { (s: String) in s.prefix { $0 == " " }.count }
        guard line.hasPrefix("  ") else { return 0 }
        if lead(next) > lead(line) { return lead(next) }
        // "  --mic <mic>           Text": the text starts after the run of spaces that ends the option.
        if let gap = line.dropFirst(2).range(of: "  ") {
            return line.distance(from: line.startIndex, to: gap.lowerBound) + (line[gap.lowerBound...].prefix { $0 == " " }.count)
        }
        return lead(line)
    }

    /// `line` cut at spaces into lines of at most `width` characters, the later ones indented by `indent`.
    static func wrap(_ line: String, width: Int, indent: Int) -> [String] {
        guard line.count > width else { return [line] }
        var out: [String] = [], rest = Substring(line)
        while rest.count > width {
            let head = rest.prefix(width + 1)
            guard let cut = head.lastIndex(of: " "), head[..<cut].contains(where: { $0 != " " }) else { break }
            out.append(String(rest[..<cut]))
            rest = Substring(String(repeating: " ", count: indent) + rest[rest.index(after: cut)...].drop { $0 == " " })
            if rest.count <= indent { break }
        }
        return out + [String(rest)]
    }

    /// The "(default: VALUE)" ArgumentParser adds to an option's help, in the language.
    static func defaults(_ text: String) -> String {
        var out = "", rest = Substring(text)
        while let open = rest.range(of: "(default:") {
            let after = rest[open.upperBound...]
            let gap = after.prefix { $0 == " " || $0 == "\n" }
            guard let close = after.firstIndex(of: ")"), !gap.isEmpty, after[..<close].firstIndex(of: "(") == nil else {
                out += rest[..<open.upperBound]; rest = after; continue
            }
            let value = String(after[gap.endIndex..<close])
            // The translation around the value, split where the value goes (a marker no msgstr holds).
            let shown = tr("(default: {value})", ["value": "\u{1}"]).split(separator: "\u{1}", omittingEmptySubsequences: false)
            // A line break ArgumentParser put after "default:" is a space here: the lines are wrapped again after.
            out += rest[..<open.lowerBound] + String(shown.first ?? "") + value + (shown.count > 1 ? String(shown[1]) : "")
            rest = after[after.index(after: close)...]
        }
        return out + rest
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
        if let rest = between(message, "The value '", ""), let cut = rest.range(of: "' is invalid for '") {
            let value = String(rest[..<cut.lowerBound]), after = rest[cut.upperBound...]
            if let end = after.range(of: "': ") {
                return tr("The value '{value}' is invalid for '{option}': {reason}",
                          ["value": value, "option": String(after[..<end.lowerBound]), "reason": String(after[end.upperBound...])])
            }
            if after.hasSuffix("'") { return tr("The value '{value}' is invalid for '{option}'", ["value": value, "option": String(after.dropLast())]) }
        }
        return message
    }
}
