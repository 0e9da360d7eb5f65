import Config
import Shell
import Testing
import TrackingCore

/// The word on the key: the focused letter key (or space) shows the word typing it leads to, and the commit
/// gesture there types the key and that word in one action.
@Suite struct WordOnKeyTests {
    /// A word list that completes "he" + a letter and offers a next word after "hello ".
    static let words: @Sendable (String, Int) -> [String] = { text, limit in
        let w: [String]
        if text.hasSuffix("hel") { w = ["hello", "help"] }
        else if text.hasSuffix("he") { w = ["here", "hello"] }
        else if text.hasSuffix("hello ") { w = ["world", "there"] }
        else if text.hasSuffix("hex") { w = ["hex"] }   // nothing beyond what the key types
        else { w = [] }
        return Array(w.prefix(limit))
    }

    static func editorText(_ d: Driver) -> String? { (d.state.top as? NoteEditorScreen)?.field.text }

    /// Looks at a key until it has focus.
    static func look(_ d: inout Driver, at id: String) -> Target {
        d.armWithAStillFace()
        let key = d.target(id)
        d.t += 0.1
        _ = d.send(.gaze(d.gaze(key.rect.center), at: d.t))
        #expect(d.state.focus.focused == id)
        return key
    }

    @Test func theFocusedKeyShowsTheWordTypingItLeadsTo() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("he")
        let l = Self.look(&d, at: "note-editor.keyboard.key.l")
        let lines = render(d.state, size: d.state.size).0.lines
        #expect(lines[l.rect.maxY - 1].contains("★ hello"), "on the key's lower border: \(lines[l.rect.maxY - 1])")
        // Only the focused key shows one, and the bar still offers its own first word.
        #expect(lines.filter { $0.contains("★ hello") }.count == 1)
        #expect(d.text.contains("★ here"))
    }

    @Test func theTongueOnTheKeyTypesItAndItsWordInOneAction() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("he")
        let l = Self.look(&d, at: "note-editor.keyboard.key.l")
        let effects = d.gesture("commit", gazeAt: l.rect.center)
        #expect(Self.editorText(d) == "hello ")
        #expect(effects.records.map { "\($0.action) \($0.target ?? "-")" } == ["commit-word note-editor.keyboard.key.l"])
        #expect(effects.contains(.learnWord("hello", after: "")))
    }

    @Test func theSpaceKeyShowsTheNextWord() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("hello")
        let space = Self.look(&d, at: "note-editor.keyboard.space")
        #expect(render(d.state, size: d.state.size).0.lines[space.rect.maxY - 1].contains("★ world"))
        d.gesture("commit", gazeAt: space.rect.center)
        #expect(Self.editorText(d) == "hello world ")
    }

    @Test func elsewhereTheTongueCommitsTheBarsFirstWord() {
        // On the bar, on a key whose word adds nothing, on ⌫: the bar's ★, as before.
        for id in ["note-editor.suggestion.0", "note-editor.keyboard.key.x", "note-editor.keyboard.backspace"] {
            var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
            d.type("he")
            let t = Self.look(&d, at: id)
            if id.hasSuffix(".x") || id.hasSuffix("backspace") {
                #expect(!render(d.state, size: d.state.size).0.lines[t.rect.maxY - 1].contains("★"), "\(id) shows no word")
            }
            d.gesture("commit", gazeAt: t.rect.center)
            #expect(Self.editorText(d) == "here ", "tongue on \(id)")
        }
    }

    @Test func withTheSettingOffKeysShowNothingAndTheTongueTakesTheBarsWord() {
        var d = Driver(.gesture, screen: "settings", suggest: Self.words)
        d.activate("settings.tab.display")
        d.activate("settings.word-on-key")
        #expect(d.state.settings.wordOnKey == false)
        #expect(d.state.settings.toml.contains("word_on_key = false"))
        #expect(ShellSettings.parse(d.state.settings.toml, file: "settings.toml").0.wordOnKey == false)
        _ = d.session.state.show(screen: "note-editor")
        d.type("he")
        let l = Self.look(&d, at: "note-editor.keyboard.key.l")
        #expect(!render(d.state, size: d.state.size).0.lines[l.rect.maxY - 1].contains("★"))
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(Self.editorText(d) == "here ")
    }

    @Test func conversationsHaveTheWordOnTheKeyToo() {
        var d = Driver(.gesture, screen: "conversation", suggest: Self.words)
        d.type("he")
        let l = Self.look(&d, at: "conversation.keyboard.key.l")
        #expect(render(d.state, size: d.state.size).0.lines[l.rect.maxY - 1].contains("★ hello"))
    }
}

/// Punctuation after a committed word: before the space the commit left, as phone keyboards do.
@Suite struct PunctuationAfterACommitTests {
    @Test func aCommaOrFullStopGoesBeforeTheCommitsSpace() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { text, n in text.hasSuffix("he") ? Array(["hello"].prefix(n)) : [] })
        d.type("he")
        d.gesture("commit")
        #expect(WordOnKeyTests.editorText(d) == "hello ")
        d.activate("note-editor.keyboard.key.,")
        #expect(WordOnKeyTests.editorText(d) == "hello, ")
        d.type("he")
        d.gesture("commit")
        d.activate("note-editor.keyboard.key..")
        #expect(WordOnKeyTests.editorText(d) == "hello, hello. ")
    }

    @Test func aSpaceTypedByTheUserIsLeftAlone() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { _, _ in [] })
        d.type("hi ")
        d.activate("note-editor.keyboard.key.,")
        #expect(WordOnKeyTests.editorText(d) == "hi ,", "only a commit's own space moves")
        // And a helper's keys behave like the on-screen ones.
        var k = Driver(.keyboard, screen: "note-editor", suggest: { text, n in text.hasSuffix("he") ? Array(["hello"].prefix(n)) : [] })
        k.type("he")
        k.gesture("commit")
        k.key(.char("?"))
        #expect(WordOnKeyTests.editorText(k) == "hello? ")
    }
}

/// A word the keys offered and the user passed over is not offered again for the same word: each ★ read is a new
/// word (`bench typing`, see docs/prediction.md).
@Suite struct PassedOverWordTests {
    /// "he" completes to "hello" first, "hel" to "hello" then "help".
    static let words: @Sendable (String, Int) -> [String] = { text, limit in
        let w: [String]
        if text.hasSuffix("hel") { w = ["hello", "help"] }
        else if text.hasSuffix("he") { w = ["hello", "here"] }
        else if text.hasSuffix("hello ") { w = ["world", "there"] }
        else if text.hasSuffix("hello w") { w = ["world", "wow"] }
        else { w = [] }
        return Array(w.prefix(limit))
    }

    static func star(_ d: Driver, _ key: Target) -> String { d.lines[key.rect.maxY - 1] }

    @Test func aWordPassedOverOnAKeyGivesWayToTheNextBest() {
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        d.type("h")
        let e = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.e")
        #expect(Self.star(d, e).contains("★ hello"))
        // The jaw types e while the key offered "hello": the user read it and means another word.
        d.activate("note-editor.keyboard.key.e")
        #expect(WordOnKeyTests.editorText(d) == "he")
        let l = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        #expect(Self.star(d, l).contains("★ help"), "\(Self.star(d, l))")
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "help ")
    }

    @Test func aPhrasePassedOverGivesWayToItsFirstWordOnTheNextKey() {
        // The user's sentence "hello world" goes on from "he" and "hel"; the user means "hello there".
        let phrase: @Sendable (String) -> String? = { $0.hasSuffix("he") || $0.hasSuffix("hel") ? "hello world" : nil }
        var d = Driver(.gesture, screen: "note-editor", suggest: Self.words, phrase: phrase)
        d.type("h")
        let e = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.e")
        #expect(Self.star(d, e).contains("★ hello world"), "\(Self.star(d, e))")
        // The jaw types e: the phrase was read and is not the one meant.
        d.activate("note-editor.keyboard.key.e")
        let l = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        // The next key offers the word, not the same phrase again, and the tongue takes it.
        #expect(Self.star(d, l).contains("★ hello"), "\(Self.star(d, l))")
        #expect(!Self.star(d, l).contains("world"), "\(Self.star(d, l))")
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "hello ")
    }

    @Test func theBarANewWordAndTheSpaceKeyAreNotAffected() {
        // The bar still offers the model's words in order.
        var b = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        b.type("h")
        b.activate("note-editor.keyboard.key.e")
        b.type("l")
        #expect(b.text.contains("★ hello"))
        // A new word starts afresh: "hello" is offered again after a space.
        var n = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        n.type("h")
        n.activate("note-editor.keyboard.key.e")
        n.type("llo h")
        let e = WordOnKeyTests.look(&n, at: "note-editor.keyboard.key.e")
        #expect(Self.star(n, e).contains("★ hello"), "\(Self.star(n, e))")
        // Space typed while it offered the next word does not hide that word: the eyes went there to end a word.
        var s = Driver(.gesture, screen: "note-editor", suggest: Self.words)
        s.type("hello")
        let space = WordOnKeyTests.look(&s, at: "note-editor.keyboard.space")
        #expect(Self.star(s, space).contains("★ world"))
        s.activate("note-editor.keyboard.space")
        #expect(WordOnKeyTests.editorText(s) == "hello ")
        let w = WordOnKeyTests.look(&s, at: "note-editor.keyboard.key.w")
        #expect(Self.star(s, w).contains("★ world"), "\(Self.star(s, w))")
    }
}

/// Phrase continuation word by word: the key shows the model's confident next words after its word; the tongue
/// takes the word and the next words stay on that key, one tongue each, so a phrase right for two words still pays.
@Suite struct PhraseWordByWordTests {
    static let next: @Sendable (String) -> [String] = { text in text == "hello " ? ["world", "today"] : [] }

    @Test func theKeyShowsItsWordAndTheNextWords() {
        var d = Driver(.gesture, screen: "note-editor", suggest: WordOnKeyTests.words, next: Self.next)
        d.type("he")
        let l = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        #expect(d.lines[l.rect.maxY - 1].contains("★ hello world today"), "\(d.lines[l.rect.maxY - 1])")
    }

    @Test func theTongueTakesThePhraseWordByWordOnTheSameKey() {
        var d = Driver(.gesture, screen: "note-editor", suggest: WordOnKeyTests.words, next: Self.next)
        d.type("he")
        let l = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "hello ")
        // The rest stays on the key the eyes are on; no letter is typed with it.
        #expect(d.lines[l.rect.maxY - 1].contains("★ world today"), "\(d.lines[l.rect.maxY - 1])")
        let effects = d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "hello world ")
        #expect(effects.contains(.learnWord("world", after: "hello ")), "\(effects)")
        #expect(d.lines[l.rect.maxY - 1].contains("★ today"))
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "hello world today ")
        #expect(!d.lines[l.rect.maxY - 1].contains("★"), "the phrase is all taken")
    }

    @Test func anotherKeyOffersItsOwnWordAndTheJawEndsThePhrase() {
        var d = Driver(.gesture, screen: "note-editor", suggest: PassedOverWordTests.words, next: Self.next)
        d.type("he")
        let l = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        d.gesture("commit", gazeAt: l.rect.center)
        #expect(WordOnKeyTests.editorText(d) == "hello ")
        // Another key offers its own word as always, not the phrase's rest.
        let w = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.w")
        #expect(d.lines[w.rect.maxY - 1].contains("★ world "), "\(d.lines[w.rect.maxY - 1])")
        #expect(!d.lines[w.rect.maxY - 1].contains("today"))
        // The jaw on the key types its letter: the phrase is passed over and goes.
        _ = WordOnKeyTests.look(&d, at: "note-editor.keyboard.key.l")
        d.activate("note-editor.keyboard.key.l")
        #expect(WordOnKeyTests.editorText(d) == "hello l")
        #expect(!d.lines[l.rect.maxY - 1].contains("world"))
    }
}
