import Config
import Localization
import Shell
import TerminalModel
import Testing
import TrackingCore

/// The Terminal screen's program starts and follows its pane only through effects the reducer returns
/// (`.terminal(.start/.resize/.showing)`); failures of the output sink come back as `.output` events, and
/// the screen shows what the sink can do from `TerminalView.sink`, never from what kind of sink it is.
@Suite struct TerminalPaneTests {
    /// The Terminal-pane requests among `effects`.
    static func pane(_ effects: [Effect]) -> [TerminalRequest] {
        effects.compactMap { e -> TerminalRequest? in
            guard case .terminal(let r) = e else { return nil }
            switch r {
            case .start, .resize, .showing: return r
            case .type, .press, .scroll, .restart, .point: return nil
            }
        }
    }

    static func paneRect(_ s: ShellState) throws -> Rect {
        try #require(s.hitMap.target(id: TerminalScreen.paneID)).rect
    }

    @Test func theProgramStartsWhenThePaneFirstShowsAndFollowsItsSize() throws {
        var s = Fixture.state()
        // Off the Terminal screen nothing is started, however many events pass.
        #expect(Self.pane(reduce(&s, .tick(at: 0.1))).isEmpty)
        #expect(Self.pane(reduce(&s, .resized(Size(width: 120, height: 40)))).isEmpty)

        s.show(screen: "terminal")
        var p = try Self.paneRect(s)
        #expect(Self.pane(reduce(&s, .tick(at: 0.2))) == [.start(rows: p.h, cols: p.w), .showing(true)])
        // Asked once: later events that change nothing about the pane ask nothing.
        #expect(Self.pane(reduce(&s, .tick(at: 0.3))).isEmpty)
        #expect(Self.pane(reduce(&s, .key(.char("x")))).isEmpty)

        // The window grows: the program is resized to the new pane, once.
        let grown = Self.pane(reduce(&s, .resized(Size(width: 160, height: 50))))
        p = try Self.paneRect(s)
        #expect(grown == [.resize(rows: p.h, cols: p.w)])
        #expect(p.w > 100 && p.h > 20)
        #expect(Self.pane(reduce(&s, .tick(at: 0.4))).isEmpty)

        // Too small: the pane is not shown, and the program is not resized to nothing.
        #expect(Self.pane(reduce(&s, .resized(Size(width: 30, height: 8)))) == [.showing(false)])
        // Back at the same size it shows again, with no resize.
        #expect(Self.pane(reduce(&s, .resized(Size(width: 160, height: 50)))) == [.showing(true)])
        // Another size while it shows: resized only.
        let back = Self.pane(reduce(&s, .resized(Size(width: 100, height: 30))))
        p = try Self.paneRect(s)
        #expect(back == [.resize(rows: p.h, cols: p.w)])
    }

    @Test func anotherScreenOnTopHidesThePaneAndLeavingItShowsItAgain() throws {
        var s = Fixture.state()
        s.show(screen: "terminal")
        let p = try Self.paneRect(s)
        #expect(Self.pane(reduce(&s, .tick(at: 0.1))) == [.start(rows: p.h, cols: p.w), .showing(true)])
        // The Terminal screen's help on top, then back to the pane: never started again.
        s.stack.append(AppHelpScreen(app: "terminal", appTitle: "Terminal"))
        s.relayout()
        #expect(Self.pane(reduce(&s, .tick(at: 0.2))) == [.showing(false)])
        s.stack.removeLast()
        s.relayout()
        #expect(Self.pane(reduce(&s, .tick(at: 0.3))) == [.showing(true)])
        // The launcher, then the Terminal screen opened again.
        s.show(screen: "launcher")
        #expect(Self.pane(reduce(&s, .tick(at: 2))) == [.showing(false)])
        s.show(screen: "terminal")
        #expect(Self.pane(reduce(&s, .tick(at: 3))) == [.showing(true)])
    }

    @Test func aFailedDeliveryIsShownAndTheTextStaysUntilItIsDelivered() {
        var s = Fixture.state()
        s.show(screen: "terminal")
        _ = reduce(&s, .terminal(TerminalView.blank(rows: 10, cols: 40, program: "tmux work:1")))
        for ch in "kept" {
            _ = reduce(&s, .output(.failed(reason: .verbatim("tmux target work:1: can't find window: 1"), unsent: String(ch))))
        }
        _ = reduce(&s, .output(.failed(reason: .verbatim("tmux target work:1: can't find window: 1"), unsent: "")))
        #expect(s.output == OutputStatus(problem: .verbatim("tmux target work:1: can't find window: 1"), unsent: "kept"))
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
        func screen(_ traits: SinkTraits, problem: UIMessage? = nil) -> String {
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
        #expect(screen(.childOnPty, problem: .verbatim("cannot start bash: no such file")).contains("↻ Restart"))
        #expect(!screen(.showsPane, problem: .verbatim("tmux target work:1: no server running")).contains("↻ Restart"))
        // A sink that shows nothing of its program says where keys go in the pane.
        #expect(screen([]).contains("Typing into tmux work:1"))
    }
}
