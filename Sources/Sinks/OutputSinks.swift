import Localization
import TerminalModel

/// What a sink may need from the rest of the command line when it is made.
public struct OutputSetup: Sendable {
    /// The program a pty runs: `-- COMMAND`, else the Terminal command setting, else the login shell.
    public var command: [String]
    public init(command: [String]) { self.command = command }
}

/// One kind of sink `--type-into` can name: how it is written and how it is made.
public struct OutputSinkKind: Sendable {
    /// The word before the colon: `pty`, `tmux`.
    public let scheme: String
    /// What follows the colon, as help names it (`TARGET`); nil for a sink that takes nothing.
    public let argument: String?
    /// Whether the colon and argument may be left out (`x11` for `$DISPLAY`, `wayland` for `$WAYLAND_DISPLAY`):
    /// `make` then gets nil.
    public let argumentIsOptional: Bool
    /// A complete value, for messages: `tmux:work:1.0`.
    public let example: String
    /// One line for `--help`, in English: a msgid (`N_`), translated where it is shown (`OutputSinks.help`).
    public let summary: String
    /// Makes the sink from what followed the colon (checked: present, non-empty and without NUL when
    /// `argument` is set, nil otherwise; nil too when an optional one was left out). No I/O: `check` and
    /// `start` do that.
    public let make: @Sendable (_ argument: String?, _ setup: OutputSetup) -> any TextSink

    public init(scheme: String, argument: String?, argumentIsOptional: Bool = false, example: String,
                summary: String,
                make: @escaping @Sendable (_ argument: String?, _ setup: OutputSetup) -> any TextSink) {
        self.scheme = scheme; self.argument = argument; self.example = example; self.summary = summary
        self.argumentIsOptional = argumentIsOptional
        self.make = make
    }

    /// How the option is written for this sink: `pty`, `tmux:TARGET`, `x11[:DISPLAY]`.
    public var usage: String {
        argument.map { argumentIsOptional ? "\(scheme)[:\($0)]" : "\(scheme):\($0)" } ?? scheme
    }
}

/// A parsed `--type-into` value: the sink kind and what followed its colon.
public struct OutputChoice: Sendable {
    public let kind: OutputSinkKind
    public let argument: String?

    /// The sink this choice names.
    public func open(_ setup: OutputSetup) -> any TextSink { kind.make(argument, setup) }
}

/// The sinks the shell knows, and the one parser of the option that chooses among them.
public enum OutputSinks {
    /// Every sink `--type-into` can name. A new sink is registered here, and nowhere else.
    public static let known: [OutputSinkKind] = [PtySink.kind, TmuxPaneSink.kind, X11Sink.kind, WaylandSink.kind,
                                                  UinputSink.kind, AutoSink.kind]

    /// The sinks `--output` (the Desktop screen's) takes, as it writes them.
    public static var desktopUsage: String {
        known.filter { $0.scheme != PtySink.kind.scheme }.map(\.usage).joined(separator: "|")
    }

    /// The desktop's choice when `--output` is not given: the session's own protocol.
    public static var auto: OutputChoice { OutputChoice(kind: AutoSink.kind, argument: nil) }

    /// The choice when `--type-into` is not given: a program of the shell's own on a pty.
    public static var standard: OutputChoice { OutputChoice(kind: PtySink.kind, argument: nil) }

    /// The known sinks as the option writes them, for errors: `pty, tmux:TARGET`.
    public static var usage: String { known.map(\.usage).joined(separator: ", ") }

    /// The known sinks with what each is, for `--help`, each summary in `catalog`'s language.
    public static func help(_ catalog: Catalog) -> String {
        known.map { "\($0.usage) (\(catalog.tr($0.summary)))" }.joined(separator: "; ")
    }

    /// Parses a `--type-into` value: `SCHEME` or `SCHEME:ARGUMENT`. The error says what is wrong with the
    /// value and, for an unknown sink, lists the known ones; the caller names the option (ArgumentParser
    /// prints "The value 'screen:1' is invalid for '--type-into <sink>': " before it).
    public static func parse(_ spec: String) throws(OutputSinkError) -> OutputChoice {
        // An X display alone (`:1`, as DISPLAY is written) is the X11 sink on it.
        if spec.hasPrefix(":"), spec.count > 1 { return try parse(X11Sink.kind.scheme + ":" + spec) }
        let scheme = String(spec.prefix { $0 != ":" })
        let argument = spec.count > scheme.count ? String(spec.dropFirst(scheme.count + 1)) : nil
        guard let kind = known.first(where: { $0.scheme == scheme }) else {
            throw OutputSinkError(UIMessage("unknown sink \"{sink}\" (known: {known})", ["sink": scheme, "known": usage]))
        }
        switch (kind.argument, argument) {
        case (nil, nil):
            break
        case (_?, nil) where kind.argumentIsOptional:
            break
        case (nil, .some):
            throw OutputSinkError(UIMessage("{sink} takes nothing after it, write {example}", ["sink": scheme, "example": kind.example]))
        case (let name?, nil), (let name?, ""?):
            throw OutputSinkError(UIMessage("{sink} needs a {argument} after the colon, for example {example}",
                                            ["sink": scheme, "argument": name, "example": kind.example]))
        case (let name?, let value?):
            guard !value.utf8.contains(0) else {
                throw OutputSinkError(UIMessage("the {sink} {argument} contains a NUL byte", ["sink": scheme, "argument": name]))
            }
        }
        return OutputChoice(kind: kind, argument: argument)
    }
}
