import Config
import Shell
import Testing
import TrackingCore

@Suite struct ReducerTests {
    @Test func jawOnTileOpensItAndRightEyeReturns() {
        var s = Fixture.armedState()
        let g = Fixture.gaze(at: "launcher.notes", in: s)
        _ = reduce(&s, .gaze(g, at: 1))
        #expect(s.focus.focused == "launcher.notes")
        let e = reduce(&s, Fixture.gesture("activate", at: 1.5, gaze: g))
        #expect(s.top.name == "notes")
        #expect(e.records.map(\.action) == ["open"])
        #expect(e.records.first?.target == "launcher.notes")
        let b = reduce(&s, Fixture.gesture("back", at: 3, gaze: nil))
        #expect(s.top.name == "launcher")
        #expect(b.records.map(\.action) == ["back"])
    }

    @Test func backOnLauncherDoesNothing() {
        var s = Fixture.armedState()
        #expect(reduce(&s, Fixture.gesture("back", at: 1, gaze: nil)).isEmpty)
        #expect(s.stack.count == 1)
    }

    @Test func unboundGestureDoesNothing() {
        var s = Fixture.armedState("dwell")
        let g = Fixture.gaze(at: "launcher.notes", in: s)
        #expect(reduce(&s, Fixture.gesture("activate", at: 1, gaze: g)).isEmpty)
        #expect(s.top.name == "launcher")
    }

    @Test func gestureActsOnTargetUnderGazeFromBeforeItBegan() {
        var s = Fixture.armedState()
        let notes = Fixture.gaze(at: "launcher.notes", in: s)
        let media = Fixture.gaze(at: "launcher.media", in: s)
        _ = reduce(&s, .gaze(media, at: 1))   // the gaze drifted while the jaw opened
        _ = reduce(&s, Fixture.gesture("activate", at: 1.2, gaze: notes))
        #expect(s.top.name == "notes")
    }

    @Test func keyboardPath() {
        var s = Fixture.armedState()
        _ = reduce(&s, .key(.right))
        #expect(s.focus.focused == "launcher.notes")
        _ = reduce(&s, .key(.right))
        #expect(s.focus.focused == "launcher.messages")
        _ = reduce(&s, .key(.right))
        #expect(s.focus.focused == "launcher.settings")
        _ = reduce(&s, .key(.down))
        #expect(s.focus.focused == "launcher.help")
        _ = reduce(&s, .key(.enter))
        #expect(s.top.name == "help")
        _ = reduce(&s, .key(.escape))
        #expect(s.top.name == "launcher")
        _ = reduce(&s, .key(.char("?")))
        #expect(s.top.name == "help")
        #expect(reduce(&s, .key(.char("q"))).contains(.quit) == false)
        _ = reduce(&s, .key(.escape))
        #expect(reduce(&s, .key(.char("q"))).contains(.quit))
    }

    @Test func dwellBackTargetReturns() {
        var s = Fixture.armedState("dwell")
        _ = reduce(&s, .key(.char("?")))
        #expect(s.hitMap.target(id: backTargetID) != nil)
        let e = reduce(&s, .gesture(GestureEvent(name: "dwell", t: 2, onset: 1, target: backTargetID)))
        #expect(s.top.name == "launcher")
        #expect(e.records.first?.target == backTargetID)
        #expect(s.hitMap.target(id: backTargetID) == nil, "the launcher is the root and has no Back target")
    }

    @Test func voicePhraseActsOnFocus() {
        var s = Fixture.armedState()
        _ = reduce(&s, .gaze(Fixture.gaze(at: "launcher.settings", in: s), at: 1))
        _ = reduce(&s, .speech("Select", isFinal: true))
        #expect(s.top.name == "settings")
        _ = reduce(&s, .speech("go  home", isFinal: true))
        #expect(s.top.name == "launcher")
    }

    @Test func placeholderRoutesLeadToSubScreens() {
        var s = Fixture.armedState()
        s.show(screen: "messages")
        _ = reduce(&s, .key(.tab))
        _ = reduce(&s, .key(.enter))
        #expect(s.top.name == "conversation")
        _ = reduce(&s, .key(.escape)); _ = reduce(&s, .key(.escape))
        #expect(s.top.name == "launcher")
    }
}
