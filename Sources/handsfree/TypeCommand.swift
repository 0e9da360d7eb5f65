import ArgumentParser
import Foundation
import PtyHost
import Runtime
import Shell

/// `handsfree type --into SINK TEXT`: types text through an output sink once, without the shell, so a
/// script (or a test) reaches a desktop window or a tmux pane the way the Terminal screen would.
struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: "Type text into a window or pane through an output sink, then exit.",
        discussion: """
        The sink is checked first; a sink that cannot be reached, or a character it cannot type, exits 1 with \
        the reason and nothing half-typed is reported as sent. A line break in the text is Enter. Example: \
        handsfree type --into wayland --enter "make test"
        """)

    @Option(name: .customLong("into"),
            help: ArgumentHelp("Where to type: \(OutputSinks.help).", valueName: "sink"),
            transform: { spec in
                do throws(OutputSinkError) { return try OutputSinks.parse(spec) } catch { throw ValidationError(error.description) }
            })
    var into: OutputChoice
    @Option(name: .customLong("press"),
            help: ArgumentHelp("A key to press after the text (repeatable): \(TerminalKeyPress.nameHelp), or super-X for the logo key with X (desktop sinks).",
                               valueName: "key"))
    var presses: [String] = []
    @Flag(help: "Press Enter after the text (and the keys).") var enter = false
    @Argument(help: "The text to type; several arguments are joined by spaces.") var text: [String] = []

    func validate() throws {
        if into.kind.scheme == PtySink.kind.scheme {
            throw ValidationError("pty is a program of the shell's own, which ends with this command: type into a sink that runs on its own (\(OutputSinks.usage))")
        }
        if text.isEmpty && presses.isEmpty && !enter { throw ValidationError("nothing to type: give TEXT, --press, --enter or several") }
        for name in presses where Self.key(name) == nil {
            throw ValidationError("unknown key \"\(name)\" (known: \(TerminalKeyPress.nameHelp), super-X)")
        }
    }

    /// The press a `--press` name stands for: a keymap key name, or `super-X` for one character X with the
    /// logo key, which only the desktop sinks can send.
    static func key(_ name: String) -> TerminalKeyPress? {
        if name.lowercased().hasPrefix("super-") {
            let rest = name.dropFirst("super-".count)
            guard rest.count == 1, let c = rest.first, !c.isWhitespace else { return nil }
            return TerminalKeyPress(.char(c), modifiers: .logo)
        }
        return TerminalKeyPress(name: name)
    }

    func run() throws {
        let sink = into.open(OutputSetup(command: []))
        do throws(OutputSinkError) {
            try sink.check()
            try sink.start(rows: 24, cols: 80)
            if !text.isEmpty { try sink.type(text.joined(separator: " ")) }
            for key in presses.compactMap(Self.key) { try sink.press(key) }
            if enter { try sink.press(TerminalKeyPress(.enter)) }
        } catch {
            throw SetupError(error.description)
        }
    }
}
