import Shell
import TerminalModel

/// The Desktop screen's way out: carries `Effect.desktop` requests to the sink `--output` chose, and tells
/// the reducer what became of them.
///
/// Unlike the Terminal screen's link there is no pane to keep: `.start` connects (so a missing display is
/// named when the screen first shows), and keys, text and pointer events are delivered in order. A failure
/// becomes `.desktopOutput(.failed)` with the text that did not arrive, which the screen keeps showing; the
/// next delivery that works clears it. A sink that fails is asked again at the next request, so a session
/// that starts later, or comes back, is reached without a restart.
public final class DesktopLink {
    /// Where keys and pointer events go.
    public let sink: any TextSink
    /// A request failed and none has succeeded since.
    private var failing = false

    public init(_ sink: some TextSink) { self.sink = sink }

    /// Carries out one request; returns what the reducer must hear.
    @discardableResult
    public func apply(_ request: TerminalRequest) -> [ShellEvent] {
        switch request {
        case .start:
            return deliver("") { () throws(OutputSinkError) in try sink.start(rows: 1, cols: 1) }
        case .type(let text):
            return deliver(text) { () throws(OutputSinkError) in try sink.type(text) }
        case .press(let press):
            return deliver("") { () throws(OutputSinkError) in try sink.press(press) }
        case .point(let event):
            return deliver("") { () throws(OutputSinkError) in try sink.pointer().point(event) }
        case .scroll, .restart, .resize, .showing:
            return []
        }
    }

    /// Delivers a request; a sink whose name changed in it (auto chose, or chose again after a failure) is
    /// named to the reducer, which keeps the name the screen shows (`DesktopOutput.sink`, set at start from
    /// this sink's name): the link keeps no copy of it.
    private func deliver(_ text: String, _ send: () throws(OutputSinkError) -> Void) -> [ShellEvent] {
        let named = sink.name
        do throws(OutputSinkError) {
            try send()
        } catch {
            failing = true
            return [.desktopOutput(.failed(reason: error.message, unsent: error.unsent(of: text)))]
        }
        var out: [ShellEvent] = []
        // After a failure the name is said again: auto may have chosen another in the request that failed.
        if sink.name != named || failing { out.append(.desktopSink(sink.name)) }
        if failing {
            failing = false
            out.append(.desktopOutput(.delivered))
        }
        return out
    }
}
