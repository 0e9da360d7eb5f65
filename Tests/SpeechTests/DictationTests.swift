import Testing
@testable import Speech

@Suite struct DictationTests {
    /// Utterances in order → the text and caret afterwards.
    @Test(arguments: [
        (["hello world"], "Hello world"),
        (["hello world", "how are you"], "Hello world how are you"),
        (["hello world period", "how are you question mark"], "Hello world. How are you?"),
        (["yes comma i think so period"], "Yes, I think so."),
        (["first line new line second line"], "First line\nSecond line"),
        (["one", "two", "delete that"], "One"),
        (["one", "two", "delete that", "delete that", "three"], "Three"),
        (["one two delete that three"], "Three"),
        (["delete that"], ""),
        (["hello stop dictation world"], "Hello"),
        (["hello", "stop dictation", "ignored"], "Hello"),
        (["wow exclamation mark", "new paragraph next"], "Wow!\n\nNext"),
        (["i'm here"], "I'm here"),
        ([""], ""),
    ])
    func table(utterances: [String], expected: String) {
        var d = DictationSession()
        for u in utterances { _ = d.apply(utterance: u) }
        #expect(d.text == expected)
        #expect(d.caret == expected.count)
    }

    @Test func editsDescribeTheChanges() {
        var d = DictationSession(text: "Dear Sam,")
        #expect(d.apply(utterance: "thanks period") == [.insert(" thanks.", at: 9)])
        #expect(d.apply(utterance: "see you") == [.insert(" See you", at: 17)])
        #expect(d.apply(utterance: "delete that") == [.delete(17..<25)])
        #expect(d.apply(utterance: "stop dictation") == [.stop])
        #expect(!d.isActive)
        #expect(d.apply(utterance: "more") == [])
        #expect(d.text == "Dear Sam, thanks.")
    }

    @Test func insertsAtTheCaret() {
        var d = DictationSession(text: "Hello world", caret: 5)
        _ = d.apply(utterance: "big")
        #expect(d.text == "Hello big world")
        #expect(d.caret == 9)
        d.moveCaret(to: 0)
        _ = d.apply(utterance: "delete that")  // history was dropped with the caret move: nothing happens
        #expect(d.text == "Hello big world")
    }

    @Test func writtenTextKeepsItsCapitalsAndPunctuationAndCommandsStillWork() {
        var d = DictationSession()
        _ = d.apply(utterance: "Yesterday I met John Smith in London.")
        #expect(d.text == "Yesterday I met John Smith in London.")
        _ = d.apply(utterance: "He said, new line hello.")
        #expect(d.text == "Yesterday I met John Smith in London. He said,\nHello.")
        let edits = d.apply(utterance: "Stop dictation.")
        #expect(edits == [.stop] && !d.isActive)
        #expect(DictationSession.isWritten("Mr. Smith") && !DictationSession.isWritten("don't stop"))
    }
}
