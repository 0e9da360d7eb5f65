import Config
import Shell
import Testing
import TrackingCore

/// While the wake listener hears the user talking, the mouth's gestures wait; the eyes and the tongue do not.
@Suite struct TalkingGuardTests {
    @Test func theJawWaitsWhileTheUserTalksAndActsAgainAfter() {
        var d = Driver(.gesture, screen: "launcher")
        let notes = d.target("launcher.notes")
        _ = d.send(.talking(true))
        d.gesture("activate", gazeAt: notes.rect.center)
        #expect(d.screen == "launcher", "a jaw opened by talking does nothing")
        #expect(render(d.state, size: d.state.size).0.lines.last?.contains("talking: mouth waits") == true)
        _ = d.send(.talking(false))
        d.gesture("activate", gazeAt: notes.rect.center)
        #expect(d.screen == "notes")
        #expect(render(d.state, size: d.state.size).0.lines.last?.contains("talking") == false)
    }

    @Test func otherGesturesStillActWhileTalking() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { text, n in Array(["hello", "help"].prefix(n)) })
        d.type("he")
        _ = d.send(.talking(true))
        d.gesture("commit")   // the tongue
        #expect((d.state.top as? NoteEditorScreen)?.field.text == "hello ")
        d.gesture("back")     // the right eye
        #expect(d.screen != "note-editor")
    }

    @Test func theSettingTurnsTheHoldOff() {
        var d = Driver(.gesture, screen: "settings")
        d.activate("settings.tab.speech")
        d.activate("settings.talk-hold")
        #expect(d.state.settings.holdMouthWhileTalking == false)
        #expect(ShellSettings.parse(d.state.settings.toml, file: "settings.toml").0.holdMouthWhileTalking == false)
        _ = d.session.state.show(screen: "launcher")
        let notes = d.target("launcher.notes")
        _ = d.send(.talking(true))
        d.gesture("activate", gazeAt: notes.rect.center)
        #expect(d.screen == "notes", "with the hold off, the jaw acts while talking")
    }

    @Test func aPuckerWaitsToo() throws {
        // The webcam keymap commits words by pursing the lips, and talking ("oo", "w") purses them too.
        let path = Fixture.root + "/config/webcam.toml"
        let settings = try GestureConfig.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        let kmPath = Fixture.root + "/keymaps/webcam.toml"
        let keymap = try Keymap.parse(String(contentsOfFile: kmPath, encoding: .utf8), file: kmPath,
                                      knownGestures: settings.gestures.map(\.name), knownScreens: ScreenRegistry.standard.names)
        var s = ShellState(keymap: keymap, gestures: settings.gestures,
                           predictor: Predictor(answers: { _, n in Array(["hello", "help"].prefix(n)) }))
        for k in 0...90 { _ = reduce(&s, .frame(TrackingSample(t: -1.5 + Double(k) / 60))) }
        _ = s.show(screen: "note-editor")
        for c in "he" { _ = reduce(&s, .key(.char(c))) }
        func pucker(at t: Double) { _ = reduce(&s, .gesture(GestureEvent(name: "pucker", t: t + 0.3, onset: t))) }
        _ = reduce(&s, .talking(true))
        pucker(at: 1)
        #expect((s.top as? NoteEditorScreen)?.field.text == "he", "lips rounded by talking commit nothing")
        _ = reduce(&s, .talking(false))
        pucker(at: 2)
        #expect((s.top as? NoteEditorScreen)?.field.text == "hello ")
    }
}
