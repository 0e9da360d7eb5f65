import ArgumentParser
import Config
import Foundation
import PtyHost
import Runtime
import Shell

/// `handsfree type --into SINK TEXT`: types text through an output sink once, without the shell, so a
/// script (or a test) reaches a desktop window or a tmux pane the way the Terminal screen would.
struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: tr("Type text into a window or pane through an output sink, then exit."),
        discussion: tr("""
        The sink is checked first; a sink that cannot be reached, or a character it cannot type, exits 1 with \
        the reason and nothing half-typed is reported as sent. A line break in the text is Enter. Example: \
        handsfree type --into wayland --enter "make test"
        """))

    @Option(name: .customLong("into"),
            help: ArgumentHelp(tr("Where to type: {sinks}.", ["sinks": OutputSinks.help(CommandLineText.catalog)]), valueName: "sink"),
            transform: { spec in
                do throws(OutputSinkError) { return try OutputSinks.parse(spec) } catch { throw ValidationError(error.message.shown) }
            })
    var into: OutputChoice
    @Option(name: .customLong("press"),
            help: ArgumentHelp(tr("A key to press after the text (repeatable): {keys}, or super-X for the logo key with X (desktop sinks).", ["keys": TerminalKeyPress.nameMessage.shown]),
                               valueName: "key"))
    var presses: [String] = []
    @Flag(help: ArgumentHelp(tr("Press Enter after the text (and the keys)."))) var enter = false
    @Argument(help: ArgumentHelp(tr("The text to type; several arguments are joined by spaces."))) var text: [String] = []

    func validate() throws {
        if let (argument, offset) = Self.invalidUTF8() {
            throw ValidationError(tr("argument {argument} is not valid UTF-8 (byte {offset} of it): nothing was typed; give the text in UTF-8",
                                     ["argument": "\(argument)", "offset": "\(offset)"]))
        }
        if into.kind.scheme == PtySink.kind.scheme {
            throw ValidationError(tr("pty is a program of the shell's own, which ends with this command: type into a sink that runs on its own ({usage})", ["usage": OutputSinks.usage]))
        }
        if text.isEmpty && presses.isEmpty && !enter { throw ValidationError(tr("nothing to type: give TEXT, --press, --enter or several")) }
        for name in presses where Self.key(name) == nil {
            throw ValidationError(tr("unknown key \"{name}\" (known: {known}, super-X)", ["name": name, "known": TerminalKeyPress.nameMessage.shown]))
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
        let typed = text.joined(separator: " ")
        let keys = presses.compactMap { name in Self.key(name).map { (name: name, press: $0) } }
            + (enter ? [(name: "Enter", press: TerminalKeyPress(.enter))] : [])
        // What is still to go, for the message when something fails: the text (or what of it the sink did
        // not deliver), then the keys not pressed yet.
        var unsentText = typed
        var pressed = 0
        do throws(OutputSinkError) {
            try sink.check()
            try sink.start(rows: 24, cols: 80)
            if !typed.isEmpty {
                do throws(OutputSinkError) { try sink.type(typed) } catch {
                    unsentText = error.unsent(of: typed)
                    throw error
                }
            }
            unsentText = ""
            for key in keys {
                try sink.press(key.press)
                pressed += 1
            }
        } catch {
            var message = error.message.shown
            if !unsentText.isEmpty { message += "\n" + tr("not sent: {text}", ["text": TypedText.shortened(unsentText).debugDescription]) }
            let rest = keys.dropFirst(pressed)
            if !rest.isEmpty { message += "\n" + tr("keys not pressed: {keys}", ["keys": rest.map(\.name).joined(separator: " ")]) }
            throw SetupError(message)
        }
    }

    /// The first command-line argument that is not valid UTF-8 (1-based, after the program's name), and the
    /// offset of its first bad byte: Swift would read it with U+FFFD in place of the bytes, and type that.
    static func invalidUTF8(_ argv: [[UInt8]] = rawArguments()) -> (argument: Int, offset: Int)? {
        for (index, bytes) in argv.enumerated().dropFirst() {
            // The standard library's check first: a long text is checked in microseconds, and only a bad
            // argument is walked scalar by scalar to find the byte.
            if String(validating: bytes, as: UTF8.self) != nil { continue }
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes.makeIterator()
            var offset = 0
            scalars: while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid(let scalar): offset += scalar.count
                case .emptyInput: break scalars
                case .error: return (index, offset)
                }
            }
        }
        return nil
    }

    /// The process's arguments as the bytes it was given.
    static func rawArguments() -> [[UInt8]] {
        (0..<Int(CommandLine.argc)).map { i in
            guard let pointer = CommandLine.unsafeArgv[i] else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                             count: strlen(pointer)))
        }
    }
}
