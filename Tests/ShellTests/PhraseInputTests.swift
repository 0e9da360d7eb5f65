import Config
import Shell
import Testing
import TrackingCore

/// Phrases in the text composer and what enters the user's sentence history: sentences as they end (notes),
/// messages as they are sent, Desktop lines on Enter, and never what is typed privately.
@Suite struct PhraseInputTests {
    static func sentences(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .learnSentences(let s) = $0 { return s } else { return nil } }
    }

    static func editorText(_ d: Driver) -> String? { (d.state.top as? NoteEditorScreen)?.field.text }

    @Test func aSentenceTypedPrivatelyOnTheDesktopNeverReachesTheHistory() {
        for isPrivate in [true, false] {
            var d = Driver(.gesture, screen: "desktop")
            if isPrivate { d.activate("desktop.private") }
            var effects: [Effect] = []
            for ch in "my pin is four." {
                effects += d.activate(ch == " " ? "desktop.keyboard.space" : "desktop.keyboard.key.\(ch)")
            }
            for ch in " ok then" { effects += d.activate(ch == " " ? "desktop.keyboard.space" : "desktop.keyboard.key.\(ch)") }
            effects += d.activate("desktop.keyboard.enter")
            if isPrivate {
                #expect(Self.sentences(effects).isEmpty, "nothing typed privately is kept")
            } else {
                #expect(Self.sentences(effects) == ["my pin is four.", " ok then"])
            }
        }
    }

    @Test func aNoteLearnsEachSentenceAsItEnds() {
        var d = Driver(.gesture, screen: "note-editor")
        var effects: [Effect] = []
        for ch in "i am cold" { effects += d.activate(ch == " " ? "note-editor.keyboard.space" : "note-editor.keyboard.key.\(ch)") }
        #expect(Self.sentences(effects).isEmpty, "not before it ends")
        effects += d.activate("note-editor.keyboard.key..")
        #expect(Self.sentences(effects) == ["i am cold."])
        // A helper's keyboard too.
        d.type(" so am i?")
        #expect(Self.sentences(d.send(.key(.char("!")))) == [])
        var e = Driver(.gesture, screen: "note-editor")
        e.type("thank you")
        #expect(Self.sentences(e.send(.key(.char("!")))) == ["thank you!"])
    }

    @Test func aMessageIsLearnedWhenSent() {
        var d = Driver(.gesture, screen: "conversation")
        d.type("see you. at six")
        #expect(Self.sentences(d.activate("conversation.send")) == ["see you. at six"])
    }

    @Test func thePhraseOnTheKeyIsTakenWhole() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { _, _ in ["you"] })
        d.session.state.predictor = Predictor(fixed: .init(suggest: { _, _ in ["you"] },
                                                           phrase: { $0.hasSuffix("how are y") ? "you doing today" : nil }))
        d.type("how are ")
        let y = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.y")
        #expect(render(d.state, size: d.state.size).0.lines[y.rect.maxY - 1].contains("★ you doing today"))
        let effects = d.gesture("commit", gazeAt: y.rect.center)
        #expect(Self.editorText(d) == "how are you doing today ")
        let learned = effects.compactMap { if case .learnWord(let w, let b) = $0 { return w + "|" + b } else { return nil } }
        #expect(learned == ["you|how are ", "doing|how are you ", "today|how are you doing "])
    }

    @Test func initialsModeOffersWholePhrasesAndTakesOneInPlaceOfTheInitials() {
        var d = Driver(.gesture, screen: "note-editor")
        #expect(d.state.hitMap.target(id: "note-editor.keyboard.initials") == nil, "no initials key by default")
        d.session.state.settings.initialsKey = true
        d.session.state.predictor = Predictor(fixed: .init(expand: { initials, before, _, limit in
            initials == "hay" ? Array(["How are you", "Have a yoghurt"].prefix(limit)) : before.isEmpty ? [] : ["x"]
        }))
        d.session.state.relayout()
        d.activate("note-editor.keyboard.initials")
        #expect(d.text.contains("● initials"))
        var effects: [Effect] = []
        for ch in "hay" { effects += d.activate("note-editor.keyboard.key.\(ch)") }
        #expect(!effects.contains { if case .learnWord = $0 { true } else { false } }, "initials are not words to learn")
        #expect(d.text.contains("How are you") && d.text.contains("Have a yoghurt"))
        d.activate("note-editor.suggestion.1")
        #expect(Self.editorText(d) == "Have a yoghurt ")
        // Still in initials mode: the next initials start after the phrase.
        d.activate("note-editor.keyboard.key.t")
        #expect(d.text.contains("● initials"))
        #expect(d.text.contains("★ x"), "the bar offers phrases for the new initials only")
        d.activate("note-editor.keyboard.initials")
        #expect(d.text.contains("○ initials"))
    }
}

/// The phrase board's frequent row: the user's own sentences, said from there and forgotten from there.
@Suite struct FrequentSentencesTests {
    @Test func theBoardShowsTheUsersFrequentSentencesAndForgetsOneOnRequest() {
        var d = Driver(.gesture, screen: "phrases")
        #expect(!d.text.contains("Frequent"), "no tab without sentences")
        d.session.state.predictor = Predictor(fixed: .init(frequent: { limit in Array(["I am cold.", "Call my sister please."].prefix(limit)) }))
        d.session.state.relayout()
        d.activate("phrases.group.frequent")
        #expect(d.text.contains("I am cold.") && d.text.contains("Call my sister please."))
        let said = d.activate("phrases.say.0")
        #expect(said.contains { if case .speak(let u) = $0 { u.text == "I am cold." } else { false } })
        #expect(PhraseInputTests.sentences(said) == ["I am cold."], "said again: counted in the history")
        d.activate(PhrasesScreen.removeModeID)
        d.activate("phrases.pick.1")
        // The held confirmation: the keymap's confirm gesture.
        let removed = d.gesture("confirm")
        #expect(removed.contains(.forgetSentence("Call my sister please.")))
    }
}
