import Localization
import PtyHost

/// An existing tmux pane that keys are sent to (`--type-into tmux:TARGET`): its program runs on its own, and
/// the Terminal screen shows the pane's captures.
///
/// `TmuxSink` (PtyHost) is the tmux client: one `tmux` run per text, key or capture. This adds what the loop
/// needs on top: the last capture, and when to take the next.
public final class TmuxPaneSink: TextSink, PaneHost {
    public static let kind = OutputSinkKind(
        scheme: "tmux", argument: "TARGET", example: "tmux:work:1.0",
        summary: N_("an existing tmux pane, as tmux names it: %3, work:1.0")
    ) { target, _ in TmuxPaneSink(TmuxSink(target: target ?? "")) }

    /// The client that reaches the pane.
    public let tmux: TmuxSink
    /// The last capture, and the pane's working directory at it.
    private var captured: TerminalSnapshot?
    private var capturedDirectory: String?

    public init(_ tmux: TmuxSink) { self.tmux = tmux }

    public var name: String { "tmux \(tmux.target)" }
    public var traits: SinkTraits { .showsPane }

    public func check() throws(OutputSinkError) { try Self.mapped { () throws(TmuxSinkError) in try tmux.check() } }

    /// Nothing to start: the pane runs on its own, and the link's first look, right after, captures it.
    public func start(rows: Int, cols: Int) throws(OutputSinkError) {}

    /// Types through `TypedText`'s rule: line ends, tabs, ESC, BS and DEL go as tmux's keys, in one tmux run.
    public func type(_ text: String) throws(OutputSinkError) {
        var inputs: [TmuxSink.Input] = []
        for piece in try TypedText.pieces(text) {
            switch piece {
            case .text(let range): inputs.append(.text(String(text.unicodeScalars[range])))
            case .key(let key, _): inputs.append(.key(key))
            }
        }
        try Self.mapped { () throws(TmuxSinkError) in try tmux.send(inputs) }
    }

    public func press(_ key: TerminalKeyPress) throws(OutputSinkError) {
        try Self.mapped { () throws(TmuxSinkError) in try tmux.send(key) }
    }

    public func view(scrolledBack: Int) -> TerminalView? {
        captured.map { TerminalView(snapshot: $0, program: name, workingDirectory: capturedDirectory) }
    }

    /// The pane changes whenever its program writes, which tmux does not tell: it is captured every poll
    /// interval while the Terminal screen shows.
    public var wantsLooks: Bool { true }

    public func look() throws(OutputSinkError) -> Bool {
        let (snap, cwd) = try Self.mapped { () throws(TmuxSinkError) in try tmux.capture() }
        var changed = false
        if snap != captured { captured = snap; changed = true }
        if cwd != capturedDirectory { capturedDirectory = cwd; changed = true }
        return changed
    }

    /// Soon after a key, once the pane's program had time to echo it.
    public var echoLookDelay: Double? { 0.02 }

    /// Runs a tmux call, giving its failure as the sink's.
    private static func mapped<T>(_ call: () throws(TmuxSinkError) -> T) throws(OutputSinkError) -> T {
        do throws(TmuxSinkError) { return try call() } catch { throw OutputSinkError(message(error)) }
    }

    /// A tmux failure in words to translate, the target named; what tmux itself said is recognised where it is
    /// one of its usual answers to a pane that is not there, and shown as tmux wrote it otherwise. The English
    /// is the error's `description`.
    static func message(_ error: TmuxSinkError) -> UIMessage {
        guard let target = error.target else { return .verbatim(error.description) }
        let t = ["target": target]
        func system(_ why: String) -> [String: UIMessage] { ["reason": .system(why)] }
        switch error.problem {
        case .nulByte: return UIMessage("tmux target {target}: text contains a NUL byte", t)
        case .noKeyName(let key): return UIMessage("tmux target {target}: {key} has no tmux key name", t, reasons: ["key": key.label])
        case .noPane: return UIMessage("tmux target {target}: can't find pane", t)
        case .emptyCapture: return UIMessage("tmux target {target}: capture printed nothing", t)
        case .unexpectedDescription: return UIMessage("tmux target {target}: unexpected pane description", t)
        case .notInstalled: return UIMessage("tmux target {target}: tmux is not installed", t)
        case .cannotMakePipe(let why): return UIMessage("tmux target {target}: cannot make a pipe: {reason}", t, reasons: system(why))
        case .cannotRun(let why): return UIMessage("tmux target {target}: cannot run tmux: {reason}", t, reasons: system(why))
        case .lostClient(let why): return UIMessage("tmux target {target}: lost the tmux client: {reason}", t, reasons: system(why))
        case .other(let why): return .verbatim(why)
        case .tmuxEnded(let status):
            return UIMessage("tmux target {target}: {reason}", t, reasons: ["reason": HostedTerminal.exitMessage(program: "tmux", status: status)])
        case .tmuxSaid(let why):
            func after(_ prefix: String) -> [String: String]? {
                why.hasPrefix(prefix) ? ["target": target, "name": String(why.dropFirst(prefix.count))] : nil
            }
            if let a = after("can't find pane: ") { return UIMessage("tmux target {target}: can't find pane: {name}", a) }
            if let a = after("can't find window: ") { return UIMessage("tmux target {target}: can't find window: {name}", a) }
            if let a = after("can't find session: ") { return UIMessage("tmux target {target}: can't find session: {name}", a) }
            if let a = after("no server running on ") { return UIMessage("tmux target {target}: no server running on {name}", a) }
            // "error connecting to /tmp/tmux-1000/default (No such file or directory)": the system's words, which
            // glibc's catalog translates.
            if let a = after("error connecting to "), let name = a["name"], name.hasSuffix(")"),
               let open = name.range(of: " (", options: .backwards) {
                return UIMessage("tmux target {target}: error connecting to {socket} ({reason})",
                                 ["target": target, "socket": String(name[..<open.lowerBound])],
                                 reasons: ["reason": .system(String(name[open.upperBound...].dropLast()))])
            }
            // Words of tmux's own that are none of those: quoted as tmux wrote them (tmux has no translations),
            // in a sentence of the user's language that says whose words they are.
            return UIMessage("tmux target {target}: tmux answered \"{text}\"", ["target": target, "text": why])
        }
    }
}
