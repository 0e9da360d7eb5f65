import Testing
@testable import Prediction

/// The byte shortcuts for Latin letters past ASCII (a table of what Foundation and `Character` answer for U+0080–U+024F,
/// comparisons of bytes instead of strings) must answer exactly what the general code answers: suggestions depend on them.
@Suite struct LatinFastPathTests {
    /// Every scalar of U+0080–U+024F, those just past it (U+0250–U+02FF: two bytes too, but not in the table), and
    /// ASCII letters, digits and marks around them.
    static let scalars: [String] = (0x80..<0x300).compactMap { Unicode.Scalar($0).map { String($0) } }
        + ["a", "E", "z", "Z", "0", "'", " ", "-", "ss", "e\u{301}", "\u{0600}", "İ"]

    /// A deterministic pseudo-random string of `n` of `scalars`.
    static func text(seed: UInt64, length n: Int) -> String {
        SplitFastPathTests.pseudoRandomText(of: scalars, seed: seed, count: n)
    }

    @Test func foldingLatinTextFromTheTableGivesWhatFoundationGives() {
        for s in LatinFastPathTests.scalars {
            #expect(Folding.fold(s) == Folding.foldUncached(s), "\(s.unicodeScalars.map { $0.value })")
            if let c = s.first, s.count == 1 {
                #expect(Folding.composedUTF8(c) == Array(s.precomposedStringWithCanonicalMapping.utf8))
                #expect(Folding.decomposedScalars(c) == Array(s.decomposedStringWithCanonicalMapping.unicodeScalars))
            }
        }
        for seed in 1...2000 as ClosedRange<UInt64> {
            let s = LatinFastPathTests.text(seed: seed, length: Int(seed % 9) + 1)
            #expect(Folding.fold(s) == Folding.foldUncached(s), "\(s.debugDescription)")
        }
    }

    @Test func typedCapitalsFromTheTableAreTheCharactersOwn() {
        var latin = 0
        for seed in 1...3000 as ClosedRange<UInt64> {
            let s = LatinFastPathTests.text(seed: seed, length: Int(seed % 5) + 1)
            if Folding.isLatinUTF8(Array(s.utf8)) { latin += 1 }
            let c = WordPredictor.TypedCase(s)
            let allCaps = s.count >= 2 && s.allSatisfy { !$0.isLetter || $0.isUppercase } && s.contains { $0.isLetter }
            #expect(c.allCaps == allCaps, "\(s.debugDescription)")
            #expect(c.firstUpper == (s.first?.isUppercase ?? false), "\(s.debugDescription)")
            #expect(c.anyUpper == s.contains { $0.isUppercase }, "\(s.debugDescription)")
        }
        #expect(latin > 1000, "most texts took the table's way")
    }

    /// The fuzzer's crash: "ɱ" (U+0271, bytes C9 B1) shares its lead byte with the table's last letters, and was
    /// read past the table's end by `fold`, the sentence splitter and the typed-capitals check.
    @Test func lettersJustPastTheTableAreFoldedAndSuggestedWithout() {
        #expect(Folding.fold("Gɱɐ") == Folding.foldUncached("Gɱɐ"))
        #expect(!Folding.isLatinUTF8(Array("ɱ".utf8)) && Folding.isLatinUTF8(Array("ɏ".utf8)))
        #expect(Tokens.split("the ɱɱ ha").partial == "ha")
        var p = WordPredictor(words: [("the", 10), ("hello", 5), ("ɱa", 2)])
        _ = p.suggest("Gɱɱɱ", limit: 4)
        p.learn("Gɱɱɱ ɐlso the ")
        #expect(p.suggest("the ɱ", limit: 4).contains("ɱa"))
    }

    /// A listed word that starts with the bytes typed is one `Folding.matches` takes, without making a string of it.
    @Test func aWordStartingWithTheBytesTypedMatches() {
        let words = ["école", "été", "être", "e\u{301}cole", "éz\u{301}", "straße", "stra\u{DF}e", "über", "ça", "ǅemal", "é", "éé",
                     "é\u{0600}", "ée", "canción", "cancio\u{301}n", "øre", "œuvre", "ÿ", "ĳssel"]
        let l = Lexicon(words.map { ($0, 1) })
        var fast = 0
        for id in 0..<l.count {
            let w = l.word(id)
            for n in 1...w.utf8.count {
                let bytes = Array(w.utf8.prefix(n))
                guard let typed = String(validating: bytes, as: UTF8.self), !Folding.isPlain(typed) else { continue }
                for other in 0..<l.count where Folding.isLatinUTF8(bytes) && l.startsWithLatin(other, bytes) {
                    fast += 1
                    #expect(Folding.matches(l.word(other), typed: typed), "\(l.word(other)) typed \(typed.debugDescription)")
                }
            }
        }
        #expect(fast > 20)
    }
}

extension LatinFastPathTests {
    /// The bar's capitals worked on bytes for printable ASCII give what the `Character` steps give, for forms and typed
    /// letters of every kind of case, at a sentence start and not; anything else is left to those steps.
    @Test func asciiCapitalsAreWhatTheCharacterStepsGive() {
        let forms = ["the", "mcdonald", "McDonald", "i", "I'm", "don't", "x-ray", "a1", "tea's", "", "t", "TV", "iPhone"]
        let typed = ["", "t", "T", "TH", "Th", "tH", "McD", "mcd", "MCD", "I", "i", "D", "DON'T", "Don'", "x-R", "1", "A1", "iP", "TEA'S"]
        for form in forms {
            for t in typed {
                for start in [false, true] {
                    let c = WordPredictor.TypedCase(t)
                    #expect(WordPredictor.casedASCII(form, typed: t, typedCase: c, sentenceStart: start)
                            == WordPredictor.cased(form, typed: t, typedCase: c, sentenceStart: start), "\(form) \(t) \(start)")
                }
            }
        }
        let c = WordPredictor.TypedCase("É")
        #expect(WordPredictor.casedASCII("école", typed: "É", typedCase: c, sentenceStart: false) == nil)
        #expect(WordPredictor.casedASCII("the", typed: "é", typedCase: WordPredictor.TypedCase("é"), sentenceStart: false) == nil)
        #expect(WordPredictor.casedASCII("two words", typed: "", typedCase: WordPredictor.TypedCase(""), sentenceStart: true) == nil)
    }
}
