import Testing
@testable import Speech

@Suite struct CommandGrammarTests {
    @Test(arguments: [
        ("Open Notes", ["open", "notes"]),
        ("select \"Send!\"", ["select", "send"]),
        ("scroll-down", ["scroll", "down"]),
        ("page 2", ["page", "two"]),
        ("channel 42", ["channel", "forty", "two"]),
        ("don't stop", ["don't", "stop"]),
        ("<rule> | *x* ; {tag}", ["rule", "x", "tag"]),
        ("  ", []),
    ])
    func normalise(phrase: String, words: [String]) {
        #expect(CommandGrammar.normalise(phrase) == words)
    }

    @Test func buildsOneRuleOfAlternatives() {
        let g = CommandGrammar.jsgf(phrases: ["open notes", "Go back"], name: "shell")
        #expect(g == "#JSGF V1.0;\n\ngrammar shell;\n\npublic <shell> = open notes\n    | go back;\n")
    }

    @Test func dropsUnknownWordsAndClashes() {
        let dict: Set<String> = ["open", "notes", "select", "send", "go", "back"]
        let b = CommandGrammar.build(phrases: ["open notes", "select Zorblax", "Zorblax", "Open  notes!",
                                               "select send", "go back", "go back"],
                                     isKnownWord: dict.contains)
        #expect(b.phrases == ["open notes": "open notes", "select": "select Zorblax", "select send": "select send",
                              "go back": "go back"])
        #expect(b.dropped.map(\.phrase) == ["select Zorblax", "Zorblax", "Zorblax", "Open  notes!"])
        #expect(b.dropped[0].reason.contains("\"zorblax\" is not in the pronunciation dictionary"))
        #expect(b.dropped[2].reason == "no word left to say")
        #expect(b.dropped[3].reason.contains("sounds the same as \"open notes\""))
        #expect(!b.jsgf.contains("zorblax"))
    }

    @Test func emptyGrammarStillParses() {
        #expect(CommandGrammar.jsgf(phrases: []).contains("public <commands> = <VOID>;"))
    }
}

@Suite struct ScoringTests {
    @Test func wordErrors() {
        let e = WordErrors.align(reference: ["a", "b", "c", "d"], hypothesis: ["a", "x", "c", "d", "e"])
        #expect(e.substitutions == 1 && e.insertions == 1 && e.deletions == 0)
        #expect(e.rate == 50)
        let d = WordErrors.align(reference: ["a", "b"], hypothesis: [])
        #expect(d.deletions == 2 && d.rate == 100)
    }

    @Test func transcriptFormat() {
        let t = Transcripts.parse("<s> ten of clubs  </s> (001)\n<s> FIVE five(2) </s> (004)\nno id line\n")
        #expect(t.map(\.id) == ["001", "004"])
        #expect(t.map(\.text) == ["ten of clubs", "five five"])
    }
}
