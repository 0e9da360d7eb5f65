import Config
import Shell
import TerminalModel
import Testing
import TrackingCore

/// The Terminal screen and its output sink: failures come back as `.output` events, and the screen shows
/// what the sink can do from `TerminalView.sink`, never from what kind of sink it is.
@Suite struct TerminalPaneTests {
    @Test func aFailedDeliveryIsShownAndTheTextStaysUntilItIsDelivered() {
        var s = Fixture.state()
        s.show(screen: "terminal")
        _ = reduce(&s, .terminal(TerminalView.blank(rows: 10, cols: 40, program: "tmux work:1")))
        for ch in "kept" {
            _ = reduce(&s, .output(.failed(reason: "tmux target work:1: can't find window: 1", unsent: String(ch))))
        }
        _ = reduce(&s, .output(.failed(reason: "tmux target work:1: can't find window: 1", unsent: "")))
        #expect(s.output == OutputStatus(problem: "tmux target work:1: can't find window: 1", unsent: "kept"))
        var text = render(s, size: s.size).0.text
        #expect(text.contains("not sent: kept · tmux target work:1: can't find window: 1"), "\(text)")
        // Delivered again: the reason goes, the text that did not arrive stays in view.
        _ = reduce(&s, .output(.delivered))
        #expect(s.output == OutputStatus(problem: nil, unsent: "kept"))
        text = render(s, size: s.size).0.text
        #expect(text.contains("not sent: kept"), "\(text)")
        #expect(!text.contains("can't find window"), "\(text)")
    }

    @Test func theScreenOffersWhatTheSinkCanDo() {
        func screen(_ traits: SinkTraits, problem: String? = nil) -> String {
            var s = Fixture.state()
            s.show(screen: "terminal")
            // One empty row: what the pane holds when nothing could be shown at all.
            var v = TerminalView.blank(rows: 1, cols: 40, program: traits.contains(.ownsProgram) ? "bash" : "tmux work:1")
            v.sink = traits
            v.problem = problem
            _ = reduce(&s, .terminal(v))
            return render(s, size: s.size).0.text
        }
        // A program of its own is named; one that runs on its own is typed into.
        #expect(screen(.childOnPty).contains("bash"))
        #expect(screen(.showsPane).contains("typing into tmux work:1"))
        // A program of its own that could not start can be restarted; a pane that cannot be reached cannot.
        #expect(screen(.childOnPty, problem: "cannot start bash: no such file").contains("↻ Restart"))
        #expect(!screen(.showsPane, problem: "tmux target work:1: no server running").contains("↻ Restart"))
        // A sink that shows nothing of its program says where keys go in the pane.
        #expect(screen([]).contains("Typing into tmux work:1"))
    }
}
