import Localization
import TerminalModel

/// What became of text or keys the runtime gave to the output sink, as the reducer hears it: a failure,
/// and the first delivery after one. Deliveries that follow deliveries are not reported.
public enum OutputReport: Hashable, Sendable {
    /// The sink could not deliver: `reason` says why and names the target (`tmux target work:1: can't find
    /// pane: 1`), translated where it is drawn; `unsent` is the text that did not arrive (empty for a key),
    /// kept on screen.
    case failed(reason: UIMessage, unsent: String)
    /// Text or a key reached the sink again after a failure.
    case delivered
}

/// How delivery to the output sink stands, as the Terminal screen shows it.
public struct OutputStatus: Hashable, Sendable {
    /// Why the last text or key could not be delivered; nil once one was again.
    public var problem: UIMessage?
    /// Text that could not be delivered, kept so nothing the user composed is lost.
    public var unsent: String

    public init(problem: UIMessage? = nil, unsent: String = "") { self.problem = problem; self.unsent = unsent }
}

/// The Terminal screen's pane as the runtime was last asked to keep it, so each change is asked for once.
public struct TerminalPane: Hashable, Sendable {
    /// The size the program was started or last resized at (nil: it has not been started).
    public internal(set) var size: Size?
    /// Whether the pane shows.
    public internal(set) var showing = false

    public init() {}
}

/// Takes what the runtime reports about the output sink: a failure is shown with the text that did not
/// arrive, which stays on screen; a later delivery clears the reason.
func outputReported(_ s: inout ShellState, _ report: OutputReport) -> [Effect] {
    switch report {
    case .failed(let reason, let unsent):
        s.output.problem = reason
        s.output.unsent += unsent
    case .delivered:
        s.output.problem = nil
    }
    s.revision &+= 1
    return []
}

/// The requests that keep the program the size of the Terminal screen's pane: `.start` the first time the
/// pane shows, `.resize` when it shows at another size, `.showing` when it comes and goes.
///
/// Asked after every event, since any of them may change the screen showing or its layout (a screen pushed,
/// the window resized, a keymap with more keyboard rows). The pane's place comes from the hit map the
/// reducer keeps, so the runtime never reads the layout to decide.
func terminalPaneRequests(_ s: inout ShellState) -> [Effect] {
    let rect = s.topIs(TerminalScreen.self) && !s.tooSmall ? s.hitMap.target(id: TerminalScreen.paneID)?.rect : nil
    var out: [Effect] = []
    if let rect {
        let size = Size(width: rect.w, height: rect.h)
        if s.terminalPane.size == nil {
            out.append(.terminal(.start(rows: rect.h, cols: rect.w)))
        } else if s.terminalPane.size != size {
            out.append(.terminal(.resize(rows: rect.h, cols: rect.w)))
        }
        s.terminalPane.size = size
    }
    if (rect != nil) != s.terminalPane.showing {
        s.terminalPane.showing = rect != nil
        out.append(.terminal(.showing(rect != nil)))
    }
    return out
}

/// Where the Desktop screen's keys and pointer go, and how delivery there stands.
public struct DesktopOutput: Hashable, Sendable {
    /// What the runtime's desktop sink is called (`X11 :0`, `wayland wayland-1`); nil when there is none, and
    /// `missing` says why.
    public var sink: String?
    /// Why there is no desktop sink (no session found, `--output` not reachable), shown on the screen.
    public var missing: String?
    /// Why the last key or pointer event was not delivered, and the text that was not.
    public var status = OutputStatus()
    /// The sink was asked to connect (the Desktop screen showed once).
    public internal(set) var started = false
    /// The focused window's controls as last read (the Controls view), nil before any reading.
    public var controls: ControlsSnapshot?
    /// What the last action on a control came to, or why it could not be done, for the Controls view.
    public var controlsNote: UIMessage?

    public init(sink: String? = nil, missing: String? = nil) { self.sink = sink; self.missing = missing }
}

/// Connects the desktop sink the first time the Desktop screen shows, so a missing display is named before
/// the first key rather than after it.
func desktopRequests(_ s: inout ShellState) -> [Effect] {
    guard s.topIs(DesktopScreen.self), !s.tooSmall, !s.desktop.started else { return [] }
    s.desktop.started = true
    return [.desktop(.start(rows: 1, cols: 1))]
}

/// Takes what the runtime reports about the desktop sink, as `outputReported` does for the Terminal's.
func desktopReported(_ s: inout ShellState, _ report: OutputReport) -> [Effect] {
    switch report {
    case .failed(let reason, let unsent):
        s.desktop.status.problem = reason
        s.desktop.status.unsent += unsent
    case .delivered:
        s.desktop.status.problem = nil
    }
    s.revision &+= 1
    s.relayout()
    return []
}
