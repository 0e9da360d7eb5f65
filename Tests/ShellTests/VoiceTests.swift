import Localization
import Synchronization
import Config
import Shell
import Testing
import TrackingCore

/// Speech and prediction as the reducer and the text fields see them (the runtime feeds the same events).
@Suite struct VoiceTests {
    static let words: @Sendable (String, Int) -> [String] = { text, limit in
        Array((text.hasSuffix("he") ? ["hello", "help", "here", "head"] : []).prefix(limit))
    }

    @Test func activatingTheTextFieldOpensTheMicAndJawDoesNothingWhileDictating() {
        var d = Driver(.gesture, screen: "note-editor")
        let effects = d.activate("note-editor.text")
        #expect(effects.contains(.startDictation))
        #expect(d.state.dictating)
        #expect(d.lines.last?.contains("mic open: dictating") == true, "the status line says the mic is open")

        // Talking moves the jaw: a jaw gesture on a key types nothing and opens nothing.
        #expect(d.activate("note-editor.keyboard.key.q").isEmpty)
        #expect(d.activate("note-editor.done").isEmpty)
        #expect(d.screen == "note-editor")
        #expect((d.state.top as? NoteEditorScreen)?.field.text == "")

        // Final text goes in at the caret; a partial is shown but not inserted.
        _ = d.session.send(.speech("hello wor", isFinal: false))
        #expect(d.text.contains("hello wor"))
        _ = d.session.send(.speech("hello world", isFinal: true))
        #expect(d.text.contains("hello world▏"))
        // An utterance that wrote nothing takes its preview away and leaves the text as it was.
        _ = d.session.send(.speech("what ah", isFinal: false))
        #expect(d.text.contains("what ah"))
        _ = d.session.send(.speech("", isFinal: false))
        #expect(!d.text.contains("what ah") && d.text.contains("hello world▏"))

        // The tongue (commit-word) stops dictation instead of committing; then the jaw types again.
        let stop = d.gesture("commit")
        #expect(stop.contains(.stopDictation))
        #expect(!d.state.dictating)
        d.activate("note-editor.keyboard.key.q")
        #expect(d.text.contains("hello worldq▏"))
    }

    @Test(arguments: ["note-editor", "conversation"])
    func addWordAndRemoveWordChangeTheWordList(screen: String) {
        let added = Mutex<[String]>([]), removed = Mutex<[String]>([])
        var d = Driver(.gesture, screen: screen, suggest: Self.words,
                       addWord: { w in added.withLock { $0.append(w) }; return true },
                       removeWord: { w in removed.withLock { $0.append(w) } })
        for k in ["z", "o", "e"] { d.activate("\(screen).keyboard.key.\(k)") }
        d.activate("\(screen).keyboard.space")
        d.send(.speech("add word", isFinal: true))
        #expect(added.withLock { $0 } == ["zoe"], "the word before the caret, spaces skipped")
        #expect(d.text.contains("Added “zoe” to your words."))

        // "remove word" takes the suggestion the gaze is on; without one, the first.
        for k in ["h", "e"] { d.activate("\(screen).keyboard.key.\(k)") }
        _ = d.session.send(.gaze(d.gaze(d.target("\(screen).suggestion.1").rect.center), at: d.t + 1))
        d.t += 2
        _ = d.session.send(.tick(at: d.t))
        d.send(.speech("remove word", isFinal: true))
        _ = d.session.send(.gaze(d.gaze(d.target("\(screen).keyboard.key.q").rect.center), at: d.t + 1))
        d.t += 2
        _ = d.session.send(.tick(at: d.t))
        d.send(.speech("remove word", isFinal: true))
        #expect(removed.withLock { $0 } == ["help", "hello"])
        #expect(d.text.contains("“hello” will not be suggested again."))
        // Typing again hides the message.
        d.activate("\(screen).keyboard.key.x")
        #expect(!d.text.contains("will not be suggested"))
    }

    @Test func sayingStopDictationThroughTheDictationServiceEndsIt() {
        var services = Services()
        services.dictate = { utterance, field in
            DictationResult(text: field.text, caret: field.caret, stop: utterance == "stop dictation")
        }
        var state = ShellState(keymap: Fixture.keymap("default"), services: services)
        state.show(screen: "note-editor")
        var session = Session(state: state, settings: GestureConfig.defaults())
        _ = session.send(.key(.enter))   // nothing focused: no-op
        _ = perform(&session.state, .startDictation, target: nil, gaze: nil)
        #expect(session.state.dictating)
        let e = session.send(.speech("stop dictation", isFinal: true))
        #expect(e.contains(.stopDictation))
        #expect(!session.state.dictating)
    }

    @Test func gazeOnASuggestionAndTongueCommitsItWithASpace() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("he")
        let here = d.target("note-editor.suggestion.2")
        d.gesture("commit", gazeAt: here.rect.center)
        #expect(d.text.contains("here ▏"))
    }

    @Test func tongueWithNoSuggestionFocusedCommitsTheFirst() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("he")
        d.gesture("commit")
        #expect(d.text.contains("hello ▏"))
    }

    @Test func jawOnASuggestionCommitsItInMessagesToo() {
        var d = Driver(.gesture, screen: "conversation", suggest: Self.words)
        d.type("he")
        #expect(d.text.contains("★ hello"))
        d.activate("conversation.suggestion.1")
        #expect(d.text.contains("help ▏"))
    }

    @Test func theBarSaysWhyItIsEmpty() {
        var state = ShellState(keymap: Fixture.keymap("default"), predictor: .loading)
        state.show(screen: "note-editor")
        #expect(render(state, size: state.size).0.text.contains("loading words…"))
    }

    @Test func openNotesByVoiceFromTheLauncher() {
        var d = Driver(.gesture, screen: "launcher")
        #expect(d.state.voicePhrases.contains("open Notes"))
        #expect(d.state.voicePhrases.contains("go back"))
        let e = d.session.send(.speech("open Notes", isFinal: true))
        #expect(d.screen == "notes")
        #expect(e.contains { if case .performed(let r) = $0 { return r.action == "open" } else { return false } })
        _ = d.session.send(.speech("go back", isFinal: true))
        #expect(d.screen == "launcher")
    }

    @Test func pushToTalkListensForOneCommandAndIgnoresTheJaw() {
        var d = Driver(.gesture, screen: "launcher")
        let e = d.gesture("brow_raise")
        #expect(e.contains(.listenForCommand))
        #expect(d.state.listening)
        #expect(d.lines.last?.contains("say a command") == true)
        #expect(d.activate("launcher.notes").isEmpty, "jaw ignored while the mic is open")
        _ = d.session.send(.speech("select Practice chat", isFinal: true))
        #expect(d.screen == "messages")
        #expect(!d.state.listening)
    }

    @Test func aMicProblemShowsInTheStatusLine() {
        var d = Driver(.gesture, screen: "launcher")
        d.session.state.micStatus = UIMessage("no microphone \"{device}\" · speech off", ["device": "default"])
        #expect(d.lines.last?.contains("no microphone") == true)
        d.activate("launcher.notes")
        #expect(d.screen == "notes", "the shell keeps working without speech")
    }
}
