import Config
import Shell
import TerminalModel
import Testing

/// `layout` is what every state change pays for (a drawing is paid once a displayed frame): it must declare
/// exactly the targets a drawing of the same state declares.
@Suite struct LayoutTests {
    static let sizes = [Size(width: 100, height: 30), Size(width: 200, height: 60), Size(width: 80, height: 24),
                        Size(width: 120, height: 60), Size(width: 30, height: 10)]

    @Test(arguments: ["default", "dwell"])
    func everyScreenLaysOutTheTargetsItDraws(_ keymap: String) {
        var checked = 0
        for name in ScreenRegistry.standard.names {
            for size in Self.sizes {
                var s = ShellState(keymap: Fixture.keymap(keymap), size: size)
                guard s.show(screen: name) else { continue }
                let drawn = render(s, size: size).1
                #expect(layout(s, size: size) == drawn, "\(name) at \(size.width)x\(size.height)")
                #expect(s.hitMap == drawn, "the state's own map, \(name)")
                checked += drawn.targets.count
            }
        }
        #expect(checked > 500, "the screens have targets to compare")
    }

    @Test func theTerminalScreenLaysOutItsTargetsWithoutThePane() {
        let predictor = Predictor(answers: { _, _ in ["echo", "exit", "env"] })
        var views = [TerminalScreenTests.view("$ ech"), TerminalScreenTests.view("$ ", hidden: true),
                     TerminalScreenTests.view("$ ", ended: "bash exited with status 0")]
        var big = TerminalView.blank(rows: 42, cols: 120, program: "vim")
        for i in big.snapshot.cells.indices { big.snapshot.cells[i] = TerminalCell(text: "x", attributes: .bold) }
        views.append(big)
        for view in views {
            for size in Self.sizes {
                var s = ShellState(keymap: Fixture.keymap("default"), size: size, predictor: predictor)
                _ = s.show(screen: "terminal")
                s.terminal = view
                let drawn = render(s, size: size).1
                #expect(layout(s, size: size) == drawn, "\(view.program) at \(size.width)x\(size.height)")
            }
        }
        // The drawing has the pane's cells; the layout's map alone is the same.
        var s = ShellState(keymap: Fixture.keymap("default"), size: Size(width: 120, height: 60), predictor: predictor)
        _ = s.show(screen: "terminal")
        s.terminal = big
        #expect(render(s, size: s.size).0.text.contains("xxxxxxxxxx"))
    }
}
