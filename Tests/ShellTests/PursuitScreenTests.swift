import Config
import Shell
import Testing
import TrackingCore

/// Issue 17: `pursuit = ["launcher"]` puts a circling dot on each tile; following one with the eyes opens it.
@Suite struct PursuitScreenTests {
    func session(pursuit: Bool) -> Session {
        var km = Fixture.keymap("default")
        if pursuit { km.pursuitScreens = ["launcher"] }
        let settings = GestureConfig.defaults()
        return Session(state: ShellState(keymap: km, gestures: settings.gestures), settings: settings)
    }

    /// A still face for a second (safe start), then eyes following the tile's dot, `lag` seconds behind.
    func follow(_ s: inout Session, _ id: String, seconds: Double, lag: Double = 0.1) {
        var t = 0.0
        for _ in 0..<72 { _ = s.step(.frame(TrackingFrame(t: t, gaze: GazePoint(x: 0.5, y: 0.05)), nil)); t += 1.0 / 60 }
        let path = pursuitTargets(s.state).first { $0.0.id == id }?.1
        let end = t + seconds
        while t < end, s.state.top.name == "launcher" {
            let q = path?.position(at: t - lag) ?? GazePoint(x: 0.5, y: 0.5)
            _ = s.step(.frame(TrackingFrame(t: t, gaze: GazePoint(x: 0.03 + 0.9 * q.x, y: 0.9 * q.y)), nil))
            t += 1.0 / 60
        }
    }

    @Test func followingATilesDotOpensIt() {
        var s = session(pursuit: true)
        #expect(pursuitTargets(s.state).count == 8)
        #expect(render(s.state, size: s.state.size).0.text.filter { $0 == "●" }.count >= 8, "the dots are drawn")
        follow(&s, "launcher.messages", seconds: 1.5)
        #expect(s.state.top.name == "messages")
    }

    /// Eyes a quarter turn behind the dot (0.25 s at the normal pace) sit where the neighbouring tile's dot
    /// is: the slow pace of Settings turns the dots in 1.5 s and compares 0.22 s behind, so they pick their own.
    @Test func slowDotsLetLateEyesPickTheirOwnTile() {
        var normal = session(pursuit: true)
        follow(&normal, "launcher.messages", seconds: 1.5, lag: 0.25)
        #expect(normal.state.top.name != "messages", "at the normal pace the late eyes follow another tile's dot")
        var slow = session(pursuit: true)
        var settings = slow.state.settings
        settings.pursuitPace = .slow
        slow.apply(settings)
        #expect(pursuitTargets(slow.state).allSatisfy { $0.1.period == 1.5 })
        follow(&slow, "launcher.messages", seconds: 1.5, lag: 0.25)
        #expect(slow.state.top.name == "messages")
        #expect(ShellSettings.parse("pursuit_pace = \"slow\"\n", file: "s.toml").0.pursuitPace == .slow)
        #expect(ShellSettings.parse("pursuit_pace = \"fast\"\n", file: "s.toml").1 == ["s.toml:1: pursuit_pace must be \"normal\" or \"slow\""])
    }

    @Test func withoutTheOptionNothingMovesOrOpens() {
        var s = session(pursuit: false)
        #expect(pursuitTargets(s.state).isEmpty)
        follow(&s, "launcher.messages", seconds: 1.5)
        #expect(s.state.top.name == "launcher")
    }

    @Test func theOptionNamesKnownScreens() throws {
        let known = GestureDefaults.definitions.map(\.name)
        let km = try Keymap.parse("[options]\npursuit = [\"launcher\"]\n", file: "k.toml", knownGestures: known,
                                  knownScreens: ScreenRegistry.standard.names)
        #expect(km.pursuitScreens == ["launcher"])
        #expect(throws: ConfigError.self) {
            try Keymap.parse("[options]\npursuit = [\"lunch\"]\n", file: "k.toml", knownGestures: known, knownScreens: ScreenRegistry.standard.names)
        }
    }

    @Test func onATypingScreenOnlyTheSuggestionsMoveAndFollowingOneCommitsIt() {
        var km = Fixture.keymap("default")
        km.pursuitScreens = ["note-editor"]
        let settings = GestureConfig.defaults()
        let services = Services(commit: Services.appendWord)
        var s = Session(state: ShellState(keymap: km, gestures: settings.gestures, services: services,
                                          predictor: Predictor(answers: { _, _ in ["hello", "help", "held"] })), settings: settings)
        _ = s.state.show(screen: "note-editor")
        let ids = pursuitTargets(s.state).map(\.0.id)
        #expect(ids == ["note-editor.suggestion.0", "note-editor.suggestion.1", "note-editor.suggestion.2"], "\(ids)")
        var t = 0.0
        for _ in 0..<72 { _ = s.step(.frame(TrackingFrame(t: t, gaze: GazePoint(x: 0.5, y: 0.05)), nil)); t += 1.0 / 60 }
        let path = pursuitTargets(s.state)[1].1
        // Following the second word's dot until the word is in; then the eyes rest on the text.
        for _ in 0..<90 where s.state.data.notes.isEmpty {
            let q = path.position(at: t - 0.1)
            _ = s.step(.frame(TrackingFrame(t: t, gaze: q), nil))
            t += 1.0 / 60
        }
        for _ in 0..<60 { _ = s.step(.frame(TrackingFrame(t: t, gaze: GazePoint(x: 0.3, y: 0.15)), nil)); t += 1.0 / 60 }
        #expect(s.state.data.notes.first?.text == "help ", "\(s.state.data.notes)")
    }
}
