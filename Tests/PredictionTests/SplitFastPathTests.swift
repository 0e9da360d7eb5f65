import Testing
@testable import Prediction

/// The byte walk of `Tokens.split` must give exactly what the Character walk gives, since keystroke
/// savings and suggestions depend on it.
@Suite struct SplitFastPathTests {
    /// Pieces chosen for the cases where bytes and Characters could disagree: titles before a full stop,
    /// apostrophes of both kinds, CR LF, accents (precomposed and combining), a prepended mark.
    static let pieces = [
        "Mr", "mrs", "Dr", "St", "approx", "Abcdefgh", "a", "B", "7", "don't", "'", "’", ".", ". ", "!", "?", " ",
        "  ", ",", "\n", "\r\n", "\r", "\t", "\"", "café", "e\u{301}", "\u{0600}", "Zoë", "x", "the", "TH", "-",
        "Straße", "ÉTÉ", "«", "»", "×", "²", "İ", "ǅ", "Mé", "ä", "\u{301}", "ª",
    ]

    /// A deterministic pseudo-random text of `n` pieces.
    static func text(seed: UInt64, pieces n: Int) -> String { pseudoRandomText(of: pieces, seed: seed, count: n) }

    /// `n` of `parts` joined, picked by an xorshift generator from `seed`: the same text for a seed on every run.
    static func pseudoRandomText(of parts: [String], seed: UInt64, count n: Int) -> String {
        var x = seed | 1
        var s = ""
        for _ in 0..<n {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            s += parts[Int(x % UInt64(parts.count))]
        }
        return s
    }

    @Test func byteWalkAgreesWithCharacterWalk() {
        var fast = 0
        for seed in 1...3000 as ClosedRange<UInt64> {
            let t = SplitFastPathTests.text(seed: seed, pieces: Int(seed % 12) + 1)
            for maxContext in [1, 2, 3] {
                let slow = Tokens.splitCharacters(t, maxContext: maxContext)
                let got = Tokens.split(t, maxContext: maxContext)
                #expect(got.context == slow.context && got.partial == slow.partial && got.sentenceStart == slow.sentenceStart,
                        "\(t.debugDescription) maxContext \(maxContext)")
                if t.utf8.withContiguousStorageIfAvailable({ Tokens.splitLatin($0, maxContext: maxContext) }) != nil { fast += 1 }
            }
        }
        // Most of these texts end in ASCII or Latin letters, so the byte walk was what was compared.
        #expect(fast > 3000)
    }

    @Test func byteWalkTakesLatinLetters() {
        // Accented words in the context and the word typed: German, French and Spanish sentences are mostly these.
        let t = "Der Name Gott sollte nicht länger über die Straße. Ça été fini"
        let r = t.utf8.withContiguousStorageIfAvailable { Tokens.splitLatin($0, maxContext: 2) } ?? nil
        #expect(r?.context == ["ça", "été"])
        #expect(r?.partial == "fini")
        let d = "über die Straße. Ä"
        let r2 = d.utf8.withContiguousStorageIfAvailable { Tokens.splitLatin($0, maxContext: 2) } ?? nil
        #expect(r2?.context == ["<s>"])
        #expect(r2?.partial == "Ä")
        #expect(r2?.sentenceStart == true)
    }

    @Test func byteWalkIsUsedForPlainText() {
        let t = "Mr. Weston said it. Then I could"
        let r = t.utf8.withContiguousStorageIfAvailable { Tokens.splitLatin($0, maxContext: 2) } ?? nil
        #expect(r?.context == ["then", "i"])
        #expect(r?.partial == "could")
        let m = "Mr. We"
        let r2 = m.utf8.withContiguousStorageIfAvailable { Tokens.splitLatin($0, maxContext: 2) } ?? nil
        #expect(r2?.context == ["<s>", "mr"])
        #expect(r2?.partial == "We")
    }

    @Test func nonASCIIBeforeTheTailFallsBack() {
        // A combining accent after the last word's first letter: not a byte-walk case.
        let t = "cafe\u{301} au"
        #expect(t.utf8.withContiguousStorageIfAvailable { Tokens.splitLatin($0, maxContext: 2) } ?? nil == nil)
        // Strings compare by canonical equivalence, so the decomposed word equals the precomposed one.
        #expect(Tokens.split(t).context == ["<s>", "café"])
    }
}

/// The bit set of word ids answers exactly as a Set of the same ids.
struct IDSetTests {
    @Test func agreesWithASetOfTheSameIDs() {
        var state: UInt64 = 7
        func next(_ n: Int) -> Int32 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32((state >> 33) % UInt64(n))
        }
        let ids = (0..<3000).map { _ in next(90_000) }
        let bits = IDSet(ids), reference = Set(ids)
        #expect(bits.count == reference.count)
        #expect(!bits.isEmpty && IDSet().isEmpty)
        for id in Int32(-70)..<Int32(100_000) {
            #expect(bits.contains(id) == reference.contains(id), "\(id)")
        }
    }
}
