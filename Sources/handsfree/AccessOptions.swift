import ArgumentParser
import Runtime
import Shell
import Terminal

/// The accessibility flags `run` and `demo` share.
struct AccessOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Draw without colours (also when $NO_COLOR is set to anything)."))) var noColor = false
    @Option(help: ArgumentHelp(tr("Colour theme: {themes}.", ["themes": ThemeKind.allCases.map(\.rawValue).joined(separator: ", ")]))) var theme: String?
    @Flag(help: ArgumentHelp(tr("Bigger keys and tiles where the screen has room."))) var largeTargets = false
    @Flag(help: ArgumentHelp(tr("No full-screen drawing: print one line per change (screen, focus, activation, text), for screen readers and braille displays.")))
    var plain = false

    func validate() throws {
        if let theme, ThemeKind(rawValue: theme) == nil {
            throw ValidationError(tr("unknown theme {name} (known: {known})", ["name": theme, "known": ThemeKind.allCases.map(\.rawValue).joined(separator: ", ")]))
        }
    }

    /// Colours are drawn unless `--no-color` is given or `NO_COLOR` is set and not empty (no-color.org).
    var colour: Bool { !noColor && !Terminal.noColorRequested }

    /// `settings` with the theme and large targets the flags ask for.
    func applied(to settings: ShellSettings) -> ShellSettings {
        var s = settings
        if let theme, let t = ThemeKind(rawValue: theme) { s.theme = t }
        if largeTargets { s.largeTargets = true }
        return s
    }

    /// The same flags as command-line arguments, for a command that starts `run` with them (`setup`).
    var arguments: [String] {
        var out: [String] = []
        if noColor { out.append("--no-color") }
        if let theme { out += ["--theme", theme] }
        if largeTargets { out.append("--large-targets") }
        if plain { out.append("--plain") }
        return out
    }

    /// The display the runtime draws on.
    func display() throws -> ShellDisplay {
        plain ? PlainDisplay() : try CursesDisplay(Terminal(colour: colour))
    }
}

extension Setup {
    /// Parses `100x30`.
    static func size(_ text: String) throws -> Size {
        guard let s = Size(parsing: text) else { throw ValidationError(tr("size \"{size}\" is not WIDTHxHEIGHT, e.g. 100x30", ["size": text])) }
        return s
    }
}
