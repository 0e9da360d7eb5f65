import Config
import Shell
import Testing
import TrackingCore

/// Echo as you type and hearing the focus, as the screens and the reducer ask for them: each word or
/// sentence said as it ends, a focus label said once it settles, never a secret.
@Suite struct EchoAndFocusSpeechTests {
    static func said(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case let .speak(u) = $0 { u.text } else { nil } }
    }

    /// Types `text` by the helper's keys and returns everything said on the way.
    static func type(_ d: inout Driver, _ text: String) -> [String] {
        text.flatMap { c in said(d.send(.key(.char(c)))) }
    }

    @Test func theEchoRuleSaysACommittedWordOrAnEndedSentenceOnce() {
        #expect(TypingEcho.spoken(before: "hello", after: "hello ", mode: .words) == "hello")
        #expect(TypingEcho.spoken(before: "hello ", after: "hello  ", mode: .words) == nil)
        #expect(TypingEcho.spoken(before: "hel", after: "hello ", mode: .words) == "hello", "a committed suggestion")
        #expect(TypingEcho.spoken(before: "hello ", after: "hello world ", mode: .words) == "world", "a predicted next word")
        #expect(TypingEcho.spoken(before: "hello", after: "hello.", mode: .words) == "hello")
        #expect(TypingEcho.spoken(before: "hello.", after: "hello. ", mode: .words) == nil)
        #expect(TypingEcho.spoken(before: "hello ", after: "hello", mode: .words) == nil, "a Backspace says nothing")
        #expect(TypingEcho.spoken(before: "Hi. How are you", after: "Hi. How are you?", mode: .sentences) == "How are you?")
        #expect(TypingEcho.spoken(before: "Hi. How are you?", after: "Hi. How are you? ", mode: .sentences) == nil)
        #expect(TypingEcho.spoken(before: "Hi there", after: "Hi there ", mode: .sentences) == nil)
        #expect(TypingEcho.spoken(before: "hello", after: "hello ", mode: .off) == nil)
    }

    @Test(arguments: [SpeechEcho.words, .sentences])
    func theNoteEditorEchoesWhatIsTyped(_ mode: SpeechEcho) {
        var d = Driver(.keyboard, screen: "notes")
        d.session.state.settings.speechEcho = mode
        d.activate("notes.new")
        let said = Self.type(&d, "I am thirsty. Water please")
        #expect(said == (mode == .words ? ["I", "am", "thirsty", "Water"] : ["I am thirsty."]))
        // A word finished by a key of the on-screen keyboard (the space bar) is echoed too.
        #expect(Self.said(d.activate("note-editor.keyboard.space")) == (mode == .words ? ["please"] : []))
    }

    @Test func aCommittedSuggestionIsEchoedInTheConversation() {
        var d = Driver(.gesture, screen: "messages", suggest: { _, _ in ["water"] })
        d.session.state.settings.speechEcho = .words
        d.activate("messages.contact.mum")
        #expect(Self.type(&d, "wat").isEmpty)
        #expect(Self.said(d.activate("conversation.suggestion.0")) == ["water"])
    }

    @Test func echoIsOffByDefaultAndKeptInTheSettings() {
        var d = Driver(.keyboard, screen: "notes")
        d.activate("notes.new")
        #expect(Self.type(&d, "one two. ").isEmpty)
        var s = ShellSettings()
        s.speechEcho = .sentences; s.speakFocus = true
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(problems.isEmpty && back.speechEcho == .sentences && back.speakFocus)
        let (bad, named) = ShellSettings.parse("speech_echo = \"letters\"\n", file: "settings.toml")
        #expect(bad.speechEcho == .off && named.count == 1 && named[0].contains("words"))
    }

    @Test func theSpeechTabSetsEchoAndFocus() {
        var d = Driver(.gesture, screen: "settings")
        d.activate("settings.tab.speech")
        d.activate("settings.echo.words")
        #expect(d.state.settings.speechEcho == .words)
        d.activate("settings.speak-focus")
        #expect(d.state.settings.speakFocus)
    }

    @Test func theDesktopEchoesButNeverWhilePrivate() {
        var d = Driver(.keyboard, screen: "desktop")
        d.session.state.settings.speechEcho = .words
        #expect(Self.type(&d, "good morning ") == ["good", "morning"])
        d.activate("desktop.private")
        #expect(Self.type(&d, "hunter2 secret. ").isEmpty)
        d.activate("desktop.private")
        #expect(Self.type(&d, "bye ") == ["bye"])
    }

    /// Rests the gaze on a target's centre for `seconds`, returning what was said.
    static func look(_ d: inout Driver, at id: String, for seconds: Double) -> [String] {
        let p = d.gaze(d.target(id).rect.center)
        var out: [String] = []
        let start = d.t
        while d.t - start < seconds {
            d.t += 1.0 / 30
            out += said(d.send(.gaze(p, at: d.t)))
        }
        return out
    }

    @Test func theFocusLabelIsSaidOnceWhenItSettles() {
        var d = Driver(.gesture, screen: "launcher")
        d.armWithAStillFace()
        let tiles = d.state.hitMap.targets.filter { $0.id.hasPrefix("launcher.") }
        #expect(tiles.count >= 2)
        let (a, b) = (tiles[0], tiles[1])
        #expect(Self.look(&d, at: a.id, for: 1).isEmpty, "off by default")
        d.session.state.settings.speakFocus = true
        #expect(Self.look(&d, at: b.id, for: 0.1).isEmpty, "a glance passing over is not said")
        #expect(Self.look(&d, at: a.id, for: 1) == [a.label], "said once, as the focus settles")
        #expect(Self.look(&d, at: b.id, for: 1) == [b.label], "the next target's label replaces it")
        #expect(Self.look(&d, at: b.id, for: 1).isEmpty, "once")
    }

    @Test func focusLabelsWaitForTheUsersOwnWords() {
        var d = Driver(.keyboard, screen: "notes")
        d.session.state.settings.speakFocus = true
        d.activate("notes.new")
        _ = d.tick(1)
        let spoken = Self.type(&d, "hi")
        #expect(spoken.isEmpty)
        let speak = Self.said(d.send(.speech("speak that", isFinal: true)))
        #expect(speak == ["hi"])
        d.send(.speaking(true))
        d.key(.tab)
        #expect(Self.said(d.tick(1)).isEmpty, "the user's words go on")
        let ended = Self.said(d.send(.speaking(false)))
        let focused = d.state.focus.focused.flatMap { d.state.hitMap.target(id: $0)?.label }
        #expect(focused != nil)
        #expect(ended == [focused ?? ""], "then the focus is said")
        #expect(Self.said(d.tick(1)).isEmpty, "once")
    }

    @Test func noFocusLabelForPrivateKeysNorInPointerMode() {
        var d = Driver(.keyboard, screen: "desktop")
        d.session.state.settings.speakFocus = true
        d.activate("desktop.private")
        _ = d.tick(1)
        let key = d.state.hitMap.targets.first { $0.id.hasPrefix(DesktopScreen.keyboardID) }
        #expect(key != nil)
        for _ in 0...d.state.hitMap.targets.count where d.state.focus.focused != key?.id { d.key(.tab) }
        #expect(Self.said(d.tick(1)).isEmpty, "a key of private typing is not said")
        d.activate("desktop.private")
        d.key(.tab)
        #expect(Self.said(d.tick(1)).count == 1, "out of private, the focus is said again")

        var p = Driver(.gesture, screen: "desktop")
        p.activate("desktop.pointer")
        p.session.state.settings.speakFocus = true
        #expect((p.state.top as? DesktopScreen)?.pointer != nil)
        var all: [String] = []
        for k in 0..<60 {
            p.t += 1.0 / 30
            all += Self.said(p.send(.gaze(GazePoint(x: 0.2 + Double(k) / 200, y: 0.5), at: p.t)))
        }
        #expect(all.isEmpty)
    }
}

/// Echo and the focus label on the Terminal screen: a word said as it ends on the command line, nothing at a
/// password prompt.
@Suite struct TerminalEchoAndFocusTests {
    @Test func aWordTypedOnTheCommandLineIsEchoedButNotAtAPasswordPrompt() {
        var d = Driver(.keyboard, screen: "terminal")
        d.session.state.settings.speechEcho = .words
        d.send(.terminal(TerminalScreenTests.view("$ make")))
        #expect(EchoAndFocusSpeechTests.said(d.send(.key(.char(" ")))) == ["make"])
        d.send(.terminal(TerminalScreenTests.view("Password: ", hidden: true)))
        #expect(EchoAndFocusSpeechTests.said(d.send(.key(.char("x")))).isEmpty)
        #expect(EchoAndFocusSpeechTests.said(d.send(.key(.char(" ")))).isEmpty)
    }

    @Test func noFocusLabelForTheKeysAtAPasswordPrompt() {
        var d = Driver(.keyboard, screen: "terminal")
        d.session.state.settings.speakFocus = true
        d.send(.terminal(TerminalScreenTests.view("Password: ", hidden: true)))
        _ = d.tick(1)
        let key = d.state.hitMap.targets.first { $0.id.hasPrefix(TerminalScreen.keyboardID + ".key.") }
        #expect(key != nil)
        var said: [String] = []
        for _ in 0...d.state.hitMap.targets.count where d.state.focus.focused != key?.id {
            said += EchoAndFocusSpeechTests.said(d.send(.key(.tab)))
        }
        said += EchoAndFocusSpeechTests.said(d.tick(1))
        #expect(!said.contains { $0.count == 1 && $0.first?.isLetter == true }, "a letter key was said: \(said)")
    }
}

@Suite struct TerminalSpeakKeyTests {
    @Test func theSpeakKeySaysTheCommandLineButNotAPassword() {
        var d = Driver(.gesture, screen: "terminal")
        d.send(.terminal(TerminalScreenTests.view("$ ls -l")))
        #expect(EchoAndFocusSpeechTests.said(d.activate("terminal.speak")) == ["$ ls -l"])
        d.send(.speaking(true))
        #expect(d.text.contains("■ Stop"))
        #expect(d.activate("terminal.speak").contains(.stopSpeaking))
        d.send(.speaking(false))
        d.send(.terminal(TerminalScreenTests.view("Password: ", hidden: true)))
        #expect(EchoAndFocusSpeechTests.said(d.activate("terminal.speak")).isEmpty)
    }
}
