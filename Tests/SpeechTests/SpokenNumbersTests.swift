import Speech
import Testing

/// Issue 13: dictated numbers follow a setting, digits or words, whichever engine heard them.
@Suite struct SpokenNumbersTests {
    func digits(_ s: String) -> String { SpokenNumbers.digits(s.split(separator: " ").map(String.init)).joined(separator: " ") }
    func words(_ s: String) -> String { SpokenNumbers.words(s.split(separator: " ").map(String.init)).joined(separator: " ") }

    @Test(arguments: [
        ("twenty three", "23"), ("one hundred and five", "105"), ("two thousand twenty four", "2024"),
        ("nineteen", "19"), ("ten", "10"), ("one", "one"), ("the one I like", "the one I like"),
        ("buy twelve eggs and three apples", "buy 12 eggs and three apples"), ("forty two and", "42 and"),
        ("three million two hundred thousand", "3200000"), ("seven hundred", "700"), ("ninety nine red", "99 red"),
        ("three twenty", "three 20"), ("fifteen sixteen", "15 16"),
    ])
    func wordsBecomeDigits(_ spoken: String, _ written: String) {
        #expect(digits(spoken) == written)
    }

    @Test(arguments: [
        ("23", "twenty three"), ("105", "one hundred five"), ("10 of clubs", "ten of clubs"), ("1,500", "one thousand five hundred"),
        ("23,", "twenty three,"), ("7.", "seven."), ("route 66 west", "route sixty six west"), ("3rd", "3rd"), ("0", "zero"),
    ])
    func digitsBecomeWords(_ written: String, _ spoken: String) {
        #expect(words(written) == spoken)
    }

    @Test func theSessionWritesNumbersAsTheSettingSays() {
        var s = DictationSession()
        s.numbers = .digits
        _ = s.apply(utterance: "buy twenty three eggs")
        #expect(s.text == "Buy 23 eggs")
        var w = DictationSession()
        w.numbers = .words
        _ = w.apply(utterance: "Buy 23 eggs.")
        #expect(w.text == "Buy twenty three eggs.")
    }
}
