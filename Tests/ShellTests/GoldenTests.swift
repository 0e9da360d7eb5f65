import Foundation
import Shell
import Testing
import TrackingCore

/// Whole screens at 100×30 compared with text files in Golden/.
/// Regenerate with `HANDSFREE_REGENERATE_GOLDEN=1 swift test --filter ShellTests.GoldenTests`, then read the diff.
@Suite struct GoldenTests {
    static let dir = Fixture.root + "/Tests/ShellTests/Golden"
    static let regenerate = ProcessInfo.processInfo.environment["HANDSFREE_REGENERATE_GOLDEN"] == "1"

    func check(_ name: String, _ grid: CellGrid) throws {
        let path = Self.dir + "/\(name).txt"
        let text = grid.text + "\n"
        if Self.regenerate {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        if expected != text {
            let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let b = text.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record("""
                \(name) differs from \(path) at line \((first?.offset ?? min(a.count, b.count)) + 1):
                expected: \(first.map { String($0.element.0) } ?? "")
                actual:   \(first.map { String($0.element.1) } ?? "")
                """)
        }
    }

    @Test(arguments: ScreenRegistry.standard.names)
    func screen(_ name: String) throws {
        var s = Fixture.state()
        let shown = s.show(screen: name)
        #expect(shown)
        try check(name, render(s, size: s.size).0)
    }

    @Test(arguments: ["launcher", "help", "notes"])
    func dwellKeymap(_ name: String) throws {
        var s = Fixture.state("dwell")
        s.show(screen: name)
        try check("dwell-" + name, render(s, size: s.size).0)
    }

    @Test func noWinkHelp() throws {
        var s = Fixture.state("no-wink")
        s.show(screen: "help")
        try check("no-wink-help", render(s, size: s.size).0)
    }

    @Test func onboarding() throws {
        let s = ShellState(keymap: Fixture.keymap("default"), onboarding: true)
        try check("onboarding", render(s, size: s.size).0)
    }

    @Test func tooSmall() throws {
        let s = Fixture.state(size: Size(width: 79, height: 24))
        let (grid, map) = render(s, size: s.size)
        #expect(map.targets.isEmpty)
        try check("too-small-79x24", grid)
    }

    /// Meters, gesture under way, focus and the gaze cursor, mid-session.
    @Test func liveStatus() throws {
        var s = Fixture.armedState()
        let g = Fixture.gaze(at: "launcher.messages", in: s)
        var m = Meters(); m.jaw = 0.5; m.leftEye = 0.125; m.rightEye = 1; m.smile = 0.25
        _ = reduce(&s, .frame(TrackingSample(t: 1, gaze: g, meters: m,
                                             progress: [GestureProgress(name: "activate", progress: 0.6)],
                                             target: s.target(at: g))))
        try check("launcher-live", render(s, size: s.size).0)
    }
}
