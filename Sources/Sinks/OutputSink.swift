import Localization
import PtyHost
import TerminalModel

/// Where what the user composes goes: the program on the Terminal screen's pty, a tmux pane, and the desktop
/// (uinput, Wayland's virtual keyboard and pointer, X11's XTest).
///
/// A sink is split by what it can do: every sink is an `OutputSink` (a name, its traits, a check and a
/// start); one that types is a `TextSink`, one that moves the desktop pointer a `PointerSink`, one that shows
/// a program in the Terminal screen's pane a `PaneHost`. A sink conforms only to what it can do, and a caller
/// asks for the capability it needs (`pointer()`, `as? any PaneHost`).
///
/// A sink reports a failure by throwing `OutputSinkError`, never by crashing or dropping what it was given:
/// `TerminalLink` turns the error into `ShellEvent.output(.failed…)`, and the reducer keeps the text that did
/// not arrive on screen. Which sink runs is chosen once, from `--type-into`, by `OutputSinks.parse`; a new
/// sink is one file here plus one line in `OutputSinks.known`. Everything is called on the loop's thread.
public protocol OutputSink: AnyObject {
    /// What the title and info line call where keys go: `bash`, `vim notes.txt`, `tmux work:1`.
    var name: String { get }
    /// What the Terminal screen may offer with it: a restart, a pane.
    var traits: SinkTraits { get }
    /// Checks, before the shell takes the terminal over, that the sink can be reached (the tmux pane is
    /// there, the display answers); throws a message naming what is missing.
    func check() throws(OutputSinkError)
    /// Gets ready at the pane's size, once, when the Terminal screen first shows: starts the program. A
    /// problem thrown here is shown in the pane. (A pane host that `wantsLooks` is looked at right after.)
    func start(rows: Int, cols: Int) throws(OutputSinkError)
}

extension OutputSink {
    public func check() throws(OutputSinkError) {}

    /// This sink's pointer, for a caller that points into whichever sink was chosen; throws that it has none.
    public func pointer() throws(OutputSinkError) -> any PointerSink {
        guard let p = self as? any PointerSink else { throw OutputSinkError(UIMessage("{sink} has no pointer to move", ["sink": name])) }
        return p
    }
}

/// A sink that types: text as if keyed, and named keys.
public protocol TextSink: OutputSink {
    /// Types text as if keyed.
    func type(_ text: String) throws(OutputSinkError)
    /// Sends one named key with the modifiers held.
    func press(_ key: TerminalKeyPress) throws(OutputSinkError)
}

/// A sink that moves the desktop pointer, presses its buttons and turns its wheel.
public protocol PointerSink: OutputSink {
    /// Moves the desktop pointer, presses a button or turns the wheel.
    func point(_ event: PointerEvent) throws(OutputSinkError)
}

/// A sink the desktop screen types and points into.
public typealias DesktopSink = TextSink & PointerSink

/// A sink that shows its program in the Terminal screen's pane (`SinkTraits.showsPane`): a child on a pty, a
/// tmux pane. All but `view` have defaults, for a host with nothing to read or restart.
public protocol PaneHost: OutputSink {
    /// The program's screen now, `scrolledBack` lines back; nil before the first look.
    /// The link sets `program`, `sink` and `problem` on it.
    func view(scrolledBack: Int) -> TerminalView?
    /// Lines kept above the screen, for scrolling back.
    var scrollback: Int { get }
    /// The pane changed size.
    func resize(rows: Int, cols: Int)
    /// Starts the program again after it ended (only with `SinkTraits.ownsProgram`).
    func restart(rows: Int, cols: Int) throws(OutputSinkError)
    /// Descriptors whose readiness means the program wrote something or ended.
    var descriptors: [Int32] { get }
    /// Bytes for the program wait for it to take them: the loop comes back soon.
    var hasPendingInput: Bool { get }
    /// Reads what the program wrote (at most `limit` bytes, for no longer than `budget` seconds) and what
    /// else changed about it (its end, its tty's modes); returns whether the view did. At every wake-up,
    /// with the descriptors poll found ready or hung up (nil: not known, look at each).
    func pump(limit: Int, budget: Double, ready: [Int32]?) -> Bool
    /// Whether the program changes in ways no descriptor reports (a tmux pane's screen, a pty's tty modes):
    /// the loop then wakes to `look` every poll interval while the pane shows.
    var wantsLooks: Bool { get }
    /// Looks at the program again; returns whether the view changed; throws why it could not look (the
    /// pane shows it until a look succeeds).
    func look() throws(OutputSinkError) -> Bool
    /// How soon after a key the program's echo is worth a look, for a sink whose echo comes on no descriptor
    /// (a tmux pane); nil when it does.
    var echoLookDelay: Double? { get }
}

extension PaneHost {
    public var scrollback: Int { 0 }
    public func resize(rows: Int, cols: Int) {}
    public func restart(rows: Int, cols: Int) throws(OutputSinkError) {
        throw .notRestartable(name)
    }
    public var descriptors: [Int32] { [] }
    public var hasPendingInput: Bool { false }
    public func pump(limit: Int, budget: Double, ready: [Int32]?) -> Bool { false }
    public var wantsLooks: Bool { false }
    public func look() throws(OutputSinkError) -> Bool { false }
    public var echoLookDelay: Double? { nil }
}

/// Why a sink could not deliver, start or be reached; the message names the target.
///
/// Two are equal when they say the same in English and leave the same text unsent: a test that names the
/// English words matches the translatable message as it matches the verbatim one.
public struct OutputSinkError: Error, CustomStringConvertible, Equatable {
    /// The problem in English.
    public let description: String
    /// The problem worded for translation (what the screens and the command line show, in the user's
    /// language); a text that is not the project's (a program's own error) as it is.
    public let message: UIMessage
    /// The tail of the text that did not arrive when part of it did (what went before it reached the
    /// window); nil when none of it went, or the failure was not about text.
    public var unsent: String?
    public init(_ description: String, unsent: String? = nil) {
        self.description = description
        message = .verbatim(description)
        self.unsent = unsent
    }

    /// A problem worded for translation.
    public init(_ message: UIMessage, unsent: String? = nil) {
        description = message.english
        self.message = message
        self.unsent = unsent
    }

    /// What of `text` the user still has to send after this failure: the tail the sink named, else all of it.
    public func unsent(of text: String) -> String { unsent ?? text }

    /// The same problem, with `tail` the text that did not arrive.
    public func leaving(_ tail: String?) -> OutputSinkError { OutputSinkError(message, unsent: tail) }

    /// A key the sink has no key for, named as the desktop labels it in the user's language.
    public static func noKey(sink: String, key: TerminalKeyPress) -> OutputSinkError {
        OutputSinkError(UIMessage("{sink} has no key for {key}", ["sink": sink], reasons: ["key": key.label]))
    }

    /// A sink whose program cannot be started again from the shell (a tmux pane, a desktop).
    public static func notRestartable(_ sink: String) -> OutputSinkError {
        OutputSinkError(UIMessage("{sink} cannot be restarted from here", ["sink": sink]))
    }

    public static func == (a: OutputSinkError, b: OutputSinkError) -> Bool {
        a.description == b.description && a.unsent == b.unsent
    }
}
