import Config
import Shell
import Testing
import TrackingCore

@Suite struct HelpTests {
    /// Help is generated from the keymap: every gesture and phrase bound appears with what it does.
    @Test(arguments: ["default", "dwell", "no-wink"])
    func everyBindingIsListed(_ name: String) {
        let km = Fixture.keymap(name)
        let e = HelpScreen.entries(km, gestures: GestureDefaults.definitions)
        let b = km.bindings(screen: "")
        #expect(e.gestures.count == b.gestures.count)
        for (g, action) in b.gestures {
            let how = GestureDefaults.definitions.first { $0.name == g }.map(GestureText.describe) ?? g
            #expect(e.gestures.contains { $0.how == how && $0.does == action.summary }, "\(g) missing")
        }
        for (phrase, action) in b.voice {
            #expect(e.voice.contains { $0.how.contains("\"\(phrase)\"") && $0.does == action.summary }, "\(phrase) missing")
        }
    }

    @Test func aChangedKeymapChangesHelp() throws {
        let text = """
        name = "custom"
        [global.gestures]
        brow_raise = "home"
        [global.voice]
        "take me home" = "home"
        """
        let km = try Keymap.parse(text, file: "custom.toml", knownGestures: GestureDefaults.definitions.map(\.name),
                                  knownScreens: ScreenRegistry.standard.names)
        var s = ShellState(keymap: km)
        s.show(screen: "help")
        let screen = render(s, size: s.size).0.text
        #expect(screen.contains("raise the eyebrows for 0.5 to 1.5 seconds"))
        #expect(screen.contains("→ go to the launcher"))
        #expect(screen.contains("\"take me home\" → go to the launcher"))
        #expect(!screen.contains("open the jaw"))
    }

    @Test func describesGestureKinds() {
        let d = GestureDefaults.definitions
        func text(_ n: String) -> String { d.first { $0.name == n }.map(GestureText.describe) ?? "?" }
        #expect(text("activate") == "open the jaw and hold for 0.3 seconds (0.15 on a letter key, from a still face)")
        #expect(text("commit") == "stick the tongue out and hold for 0.2 seconds (0.1 on a letter key)")
        #expect(text("back") == "close the right eye (left eye open) and hold for 0.5 seconds")
        #expect(text("wink_left") == "a quick wink of the left eye (shorter than 0.3 seconds)")
        #expect(text("double_blink") == "blink both eyes 2 times within 0.7 seconds")
        #expect(text("dwell") == "rest the gaze on a target for 1 second")
    }

    @Test func closingOnboardingIsRemembered() {
        var s = ShellState(keymap: Fixture.keymap("default"), onboarding: true)
        #expect(s.top.name == "help")
        let e = reduce(&s, .key(.escape))
        #expect(e.contains(.finishedOnboarding))
        #expect(s.top.name == "launcher")
    }
}

@Suite struct HelpPagingTests {
    /// At 80×24 the default keymap does not fit on one page: "More" pages through, and every binding is shown.
    @Test func everyBindingReachableAtMinimumSize() {
        var s = Fixture.state(size: Size.minimum)
        _ = reduce(&s, .key(.char("?")))
        var seen = ""
        for _ in 0..<4 {
            seen += render(s, size: s.size).0.text
            guard let more = s.hitMap.target(id: "help.more") else { break }
            _ = perform(&s, .activate, target: more, gaze: nil)
        }
        #expect(s.hitMap.target(id: "help.more") != nil, "80x24 needs more than one page")
        for d in GestureDefaults.definitions where Fixture.keymap("default").global.gestures[d.name] != nil {
            let words = GestureText.describe(d).split(separator: " ").prefix(4).joined(separator: " ")
            #expect(seen.contains(words), "\(d.name) never shown")
        }
        for phrase in Fixture.keymap("default").global.voice.keys { #expect(seen.contains("\"\(phrase)\""), "\(phrase) never shown") }
    }
}
