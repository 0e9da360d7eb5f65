import TerminalModel

/// What became of text or keys the runtime gave to the output sink, as the reducer hears it: a failure,
/// and the first delivery after one. Deliveries that follow deliveries are not reported.
public enum OutputReport: Hashable, Sendable {
    /// The sink could not deliver: `reason` says why and names the target (`tmux target work:1: can't find
    /// pane: 1`); `unsent` is the text that did not arrive (empty for a key), kept on screen.
    case failed(reason: String, unsent: String)
    /// Text or a key reached the sink again after a failure.
    case delivered
}

/// How delivery to the output sink stands, as the Terminal screen shows it.
public struct OutputStatus: Hashable, Sendable {
    /// Why the last text or key could not be delivered; nil once one was again.
    public var problem: String?
    /// Text that could not be delivered, kept so nothing the user composed is lost.
    public var unsent: String

    public init(problem: String? = nil, unsent: String = "") { self.problem = problem; self.unsent = unsent }
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
