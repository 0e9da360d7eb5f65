import Foundation
import Localization
import Testing
@testable import Prediction

/// A small predictor with hand-picked counts and rejected-word hiding off.
func tiny() -> WordPredictor {
    var p = WordPredictor(words: [
        ("the", 1000), ("then", 300), ("there", 200), ("they", 250), ("theatre", 5),
        ("cat", 50), ("car", 80), ("care", 40), ("a", 900), ("and", 800), ("i", 700), ("tea", 30),
    ])
    p.hideRejected = false
    return p
}

func tempDir() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pred-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

@Suite struct LexiconTests {
    @Test func prefixRangeAndExactLookup() {
        let l = Lexicon([("b", 1), ("ab", 1), ("abc", 1), ("abd", 1), ("ac", 1)])
        #expect(l.range(prefix: Array("ab".utf8)).map { l.word($0) } == ["ab", "abc", "abd"])
        #expect(l.range(prefix: Array("z".utf8)).isEmpty)
        #expect(l.id(of: "abd").map { l.word($0) } == "abd")
        #expect(l.id(of: "abe") == nil)
    }

    @Test func searchingFromAnEarlierWordFindsWhatTheWholeSearchFinds() {
        let words = ["a", "a's", "ab", "abc", "abc's", "abd", "b", "b's", "ba", "c"] + (0..<300).map { "z\(String($0, radix: 3))" }
        let l = Lexicon(words.map { ($0, 1.0) })
        for key in words + ["a'", "abc'", "abe's", "b'", "zz", "z1's", "d", "z2222222"] {
            let whole = l.id(of: key)
            // Any starting point at or before where the key is (or would be) must give the same answer.
            let place = whole ?? l.range(prefix: Array(key.utf8)).lowerBound
            for from in 0...place { #expect(l.id(of: key, from: from) == whole, "\(key) from \(from)") }
        }
    }

    /// One or two letters typed are read from the index of first two bytes with no search, and a longer prefix or a
    /// word is searched within its two letters' words: the same ranges and ids as a scan of the whole list, for
    /// one-byte words (keyed as if their second byte were 0), letters past ASCII, prefixes matching nothing.
    @Test func rangesFromTheFirstTwoBytesAgreeWithAScan() {
        var words = ["a", "b", "z", "é", "ab", "aé", "a'", "a's", "b's", "ba", "zz", "été", "éa", "über", "ñu", "да", "дом", "д", "δ"]
        words += (0..<400).map { "a\(String($0 * 7, radix: 36))" } + (0..<200).map { "q\(String($0, radix: 5))x" }
        let l = Lexicon(words.map { ($0, 1.0) })
        // The list is sorted by folded keys ("été" under "ete"), which the ranges are of.
        let all = (0..<l.count).map { Array(Folding.fold(l.word($0)).utf8) }
        var prefixes: Set<[UInt8]> = [[]]
        for w in all {
            for k in 1...min(4, w.count) { prefixes.insert(Array(w.prefix(k))) }
        }
        prefixes.formUnion([[0x61, 0x00], [0x7A, 0x61], [0x00], [0xFF], [0x61, 0xFF], Array("qz".utf8), Array("a1z".utf8)])
        for prefix in prefixes {
            let scanned = all.indices.filter { all[$0].starts(with: prefix) }
            let r = l.range(prefix: prefix)
            #expect(Array(r) == scanned, "\(prefix)")
        }
        for w in words { #expect(l.id(of: w).map { l.word($0) } == w, "\(w)") }
        for w in ["", "c", "aa", "a'x", "éé", "q0", "zzz"] { #expect(l.id(of: w) == nil, "\(w)") }
    }

    @Test func busyPrefixesUsePrecomputedTopAndAgreeWithAScan() {
        // 2000 words under "a", so the precomputed table is used.
        let words = (0..<2000).map { ("a\(String($0, radix: 36))", Double(($0 * 7919) % 2003)) }
        let l = Lexicon(words)
        let top = l.top(prefix: Array("a".utf8), k: 5, skip: { _ in false })
        let expected = l.range(prefix: Array("a".utf8)).sorted { l.logProb[$0] > l.logProb[$1] }.prefix(5)
        #expect(top == Array(expected))
    }
}

@Suite struct NGramTests {
    @Test func aPrefixsBestSuccessorsMatchAWalkOfTheWholeList() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 300 words; "the" is followed by 200 of them with scattered probabilities (more than the 64 walked).
        let words = (0..<300).map { "w\(String($0, radix: 7))x" }
        let wordsURL = dir.appendingPathComponent("w.txt"), ngramsURL = dir.appendingPathComponent("n.txt")
        try (["the 1000"] + words.map { "\($0) 1" }).joined(separator: "\n").write(to: wordsURL, atomically: true, encoding: .utf8)
        let lines = (0..<200).map { k in "the \(words[(k * 37) % 300]) -\(Double((k * 53) % 199) / 50 + 0.01)" }
        try lines.joined(separator: "\n").write(to: ngramsURL, atomically: true, encoding: .utf8)
        let lexicon = Lexicon([("the", 1000)] + words.map { ($0, 1.0) })
        var warnings: [PredictionError] = []
        let ng = try NGrams(url: ngramsURL, lexicon: lexicon, warnings: &warnings)
        #expect(warnings.isEmpty)
        let the = Int32(try #require(lexicon.id(of: "the")))
        for prefix in ["", "w", "w1", "w12", "w123", "w6", "w66", "w0", "z"] {
            let range = lexicon.range(prefix: Array(prefix.utf8))
            for k in [1, 5, 12, 300] {
                let walked = Array(ng.successors(the).filter { range.contains(Int($0)) }.prefix(k))
                #expect(ng.successors(the, in: range, k: k) == walked, "prefix \(prefix), k \(k)")
            }
        }
    }
}

extension NGramTests {
    /// Probabilities are looked up by binary search in the context's successors; they must be what a table
    /// of the file's lines gives, a pair stored twice giving its less likely entry (as the old table did).
    @Test func lookupsEqualATableOfTheFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = (0..<120).map { "v\(String($0, radix: 5))" }
        let lexicon = Lexicon(words.map { ($0, 1.0) })
        var lines: [String] = []
        var bigrams: [String: Float] = [:], trigrams: [String: Float] = [:]
        var rng = UInt64(16)
        func next(_ n: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(n)) }
        for k in 0..<3000 {
            let p = -Float(next(4000)) / 1000 - 0.001
            let a = words[next(6)], b = words[next(120)], c = words[next(120)]
            let line = k % 3 == 0 ? "\(a) \(b) \(c) \(p)" : "\(a) \(b) \(p)"
            lines.append(line)
            let key = k % 3 == 0 ? "\(a) \(b) \(c)" : "\(a) \(b)"
            let parsed = Float(Double(String(p)) ?? 0)
            if k % 3 == 0 { trigrams[key] = min(trigrams[key] ?? 0, parsed) } else { bigrams[key] = min(bigrams[key] ?? 0, parsed) }
        }
        let url = dir.appendingPathComponent("n.txt")
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        var warnings: [PredictionError] = []
        let ng = try NGrams(url: url, lexicon: lexicon, warnings: &warnings)
        #expect(ng.bigramCount == bigrams.count && ng.trigramCount == trigrams.count)
        func id(_ w: String) -> Int32 { Int32(lexicon.id(of: w) ?? -1) }
        for a in words.prefix(6) {
            for b in words {
                #expect(ng.bigram(id(a), id(b)) == bigrams["\(a) \(b)"], "\(a) \(b)")
                for c in words.prefix(40) {
                    #expect(ng.trigram(id(a), id(b), id(c)) == trigrams["\(a) \(b) \(c)"], "\(a) \(b) \(c)")
                }
            }
        }
        // The batch lookup the bar scores with gives the same, for sorted sets of ids dense and sparse.
        let all = words.map(id).sorted()
        var out: [Float] = []
        for a in words.prefix(6) {
            for stride in [1, 2, 7, 40, 119] {
                let some = all.enumerated().filter { $0.offset % stride == stride / 2 }.map(\.element)
                ng.logProbs(of: some, in: ng.bigramRange(id(a)), into: &out)
                #expect(out.count == some.count)
                for (w, p) in zip(some, out) {
                    #expect(p.isNaN ? ng.bigram(id(a), w) == nil : ng.bigram(id(a), w) == p, "\(a) \(w)")
                }
                for b in words.prefix(3) {
                    ng.logProbs(of: some, in: ng.trigramRange(id(a), id(b)), into: &out)
                    for (w, p) in zip(some, out) {
                        #expect(p.isNaN ? ng.trigram(id(a), id(b), w) == nil : ng.trigram(id(a), id(b), w) == p, "\(a) \(b) \(w)")
                    }
                }
            }
        }
    }
}

@Suite struct SuggestTests {
    @Test(arguments: [
        ("th", ["the", "then", "they"]),
        ("ca", ["car", "cat", "care"]),
        ("thea", ["theatre"]),
        ("xyz", []),
    ])
    func ranksByFrequency(typed: String, expected: [String]) {
        #expect(tiny().suggest("so " + typed, limit: 3) == expected)
    }

    @Test func capitalisesAtSentenceStartAndKeepsTypedCase() {
        let p = tiny()
        #expect(p.suggest("", limit: 2) == ["The", "A"])
        #expect(p.suggest("It was. th", limit: 1) == ["The"])
        #expect(p.suggest("so Th", limit: 1) == ["The"])
        #expect(p.suggest("so THE", limit: 2) == ["THEN", "THEY"])  // "the" itself is what was typed
        #expect(p.suggest("so ", limit: 4).contains("I"))
    }

    @Test func offersPossessivesOfNamesAndNouns() {
        var p = WordPredictor(words: [("the", 1000), ("mother", 5), ("mothers", 1), ("of", 900)])
        p.hideRejected = false
        p.possessiveMaxLogProb = -2  // in this tiny list only "mother" is rare enough
        p.learn("I saw Woodhouse come")
        // The full word typed is dropped (it saves nothing), so its possessive comes first.
        #expect(p.suggest("her mother", limit: 2) == ["mothers", "mother's"])
        #expect(p.suggest("Mr. Woodhouse'", limit: 1) == ["Woodhouse's"])
        #expect(p.suggest("so woodh", limit: 2) == ["Woodhouse", "Woodhouse's"])
        #expect(p.suggest("her moth", limit: 4) == ["mother", "mothers", "mother's"], "no \"mothers's\" of a plural")
        // Frequent function words get none ("the's"), and a typed apostrophe after an unknown word none.
        #expect(p.suggest("the", limit: 3).allSatisfy { !$0.contains("'") })
        #expect(p.suggest("zzq'", limit: 3).isEmpty)
        p.possessiveWeight = 0
        #expect(p.suggest("so woodh", limit: 2) == ["Woodhouse"])
    }

    @Test func aCapitalInMidSentencePrefersNames() {
        var p = tiny()
        p.learn("we met Tom there. and then the end")
        #expect(p.suggest("so T", limit: 1) == ["Tom"])
        #expect(p.suggest("so t", limit: 1) == ["the"])
        // At a sentence start, or in all capitals, a capital says nothing about names.
        #expect(p.suggest("It rained. T", limit: 1) == ["The"])
        #expect(p.suggest("so TH", limit: 1) == ["THE"])
        p.capitalBoost = 1
        #expect(p.suggest("so T", limit: 1) == ["The"])
        // Forgetting a name drops it from the names too.
        p.capitalBoost = 100
        p.removeWord("tom")
        #expect(p.suggest("so T", limit: 1) == ["The"])
    }

    @Test func hidesWordsOfferedForShorterPrefixes() {
        var p = tiny()
        p.hideRejected = true
        #expect(p.suggest("so ", limit: 2) == ["the", "a"])
        #expect(p.suggest("so t", limit: 2) == ["then", "they"])
    }

    /// A ranking's listed candidates are sorted by id by hand when they are few (some fifty) and by the general
    /// sort when the user's words make them many: both must rank the same words alike, ties by word.
    @Test(arguments: [40, 60, 200])
    func manyOrFewListedCandidatesRankAlike(words n: Int) {
        var p = WordPredictor(words: (0..<n).map { (String(format: "wa%03d", $0), 10) })
        p.hideRejected = false
        // Every word taught once puts all n among the candidates; then three of them more.
        p.learn((0..<n).map { String(format: "wa%03d", $0) }.joined(separator: " "))
        p.learn("wa017 wa017 wa017 wa033 wa008 wa008 wa008 wa008 wa008")
        #expect(p.suggest("so wa", limit: 3) == ["wa008", "wa017", "wa033"])
        #expect(p.suggest("so wa0", limit: 3) == ["wa008", "wa017", "wa033"])
    }

    /// With a noun list only nouns and the user's names get a generated possessive; a missing list is a warning.
    @Test func onlyListedNounsAndNamesGetAGeneratedPossessive() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("w.txt"), nouns = dir.appendingPathComponent("nouns.txt")
        try "the 1000\nfunny 5\nfun 4\nmother 5\nmoth 1\n".write(to: words, atomically: true, encoding: .utf8)
        try "# comment\nmother\nnotinthelist\n".write(to: nouns, atomically: true, encoding: .utf8)
        var p = try WordPredictor.load(wordList: words, ngrams: nil, userFile: nil, nouns: nouns)
        p.hideRejected = false
        p.possessiveMaxLogProb = -0.5
        #expect(p.warnings.isEmpty)
        #expect(p.suggest("so mot", limit: 3) == ["mother", "moth", "mother's"])
        #expect(p.suggest("so fu", limit: 3) == ["funny", "fun"], "no funny's")
        #expect(p.suggest("so funny'", limit: 1) == ["funny's"], "a typed apostrophe still gets it")
        p.learn("I saw Funny there")
        #expect(p.suggest("so fu", limit: 3).contains("Funny's"), "a name the user wrote gets one")

        let missing = dir.appendingPathComponent("none.txt")
        var q = try WordPredictor.load(wordList: words, ngrams: nil, userFile: nil, nouns: missing)
        q.hideRejected = false
        #expect(q.warnings == [.cannotRead(path: missing.path, reason: UIMessage("no such file"))])
        #expect(q.suggest("so mot", limit: 3) == ["mother", "moth"], "without the list, names only")
    }

    /// Swear words and slurs of the held list are not offered until the user has typed one, or turned them on.
    @Test func heldWordsWaitUntilTheUserTypesThem() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("w.txt"), held = dir.appendingPathComponent("held.txt")
        try "the 1000\nshit 50\nshirt 10\nship 5\n".write(to: words, atomically: true, encoding: .utf8)
        try "# rude\nshit\n".write(to: held, atomically: true, encoding: .utf8)
        var p = try WordPredictor.load(wordList: words, ngrams: nil, userFile: nil, held: held)
        p.hideRejected = false
        #expect(p.suggest("so sh", limit: 3) == ["shirt", "ship"])
        p.offerHeldWords = true
        #expect(p.suggest("so sh", limit: 3) == ["shit", "shirt", "ship"])
        p.offerHeldWords = false
        p.learn("oh shit it broke")
        #expect(p.suggest("so sh", limit: 3).first == "shit", "typed once, then offered")
        #expect(p.suggest("oh ", limit: 3).contains("shit"), "and as the next word the user wrote")
    }

    @Test func nextWordFromContext() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("w.txt"), ngrams = dir.appendingPathComponent("n.txt")
        try "the 100\ncup 10\nof 50\ntea 20\ncoffee 30\nmilk 5\n".write(to: words, atomically: true, encoding: .utf8)
        try "cup of -0.1\nof tea -1.5\ncup of tea -0.2\n<s> the -0.5\n".write(to: ngrams, atomically: true, encoding: .utf8)
        var p = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil)
        p.hideRejected = false
        #expect(p.warnings.isEmpty)
        #expect(p.ngramCounts == (3, 1))
        #expect(p.suggest("a cup ", limit: 1) == ["of"])
        #expect(p.suggest("a cup of ", limit: 1) == ["tea"])
        #expect(p.suggest("a glass of ", limit: 1) == ["the"])
        #expect(p.suggest("", limit: 1) == ["The"])
    }
}

@Suite struct LearningTests {
    @Test func keepsTheMostFrequentNextWordsOfEachWordInOrder() {
        var u = UserWords()
        // 60 different words after "the", word k seen k times (in rising order, the worst case).
        for k in 1...60 { for _ in 0..<k { u.bumpPair("the", "w\(k)") } }
        #expect(u.pairTop["the"] == (13...60).reversed().map { "w\($0)" })
        // A word from outside the list enters once it is seen more often than the last one.
        for _ in 0..<100 { u.bumpPair("the", "w1") }
        #expect(u.pairTop["the"]?.first == "w1")
        #expect(u.pairTop["the"]?.count == UserWords.topSuccessors)
        #expect(u.pairTop["the"]?.contains("w13") == false)
        // Forgetting a word lets the next best one back in.
        u.forget("w60")
        #expect(u.pairTop["the"]?.contains("w60") == false)
        #expect(u.pairTop["the"]?.contains("w13") == true)
    }

    @Test func learnsWordsPairsAndForms() {
        var p = tiny()
        #expect(p.suggest("so zo", limit: 3) == [])
        p.learn("I met Zoe. Zoe likes tea. Zoe likes cake.")
        let q = p
        #expect(q.suggest("so zo", limit: 1) == ["Zoe"])
        #expect(q.suggest("Zoe ", limit: 1) == ["likes"])
        #expect(q.learnedWords["zoe"] == 3)
    }

    @Test func learnedPhrasesAreOfferedAndSurviveSaveLoad() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("user-words.txt")
        var p = tiny()
        p.userFile = file
        p.learn("we like green tea. they like red wine. we like green tea.")
        // Both "tea" and "wine" followed "like" once each, but only "tea" followed "we like".
        #expect(p.suggest("so we like green ", limit: 1) == ["tea"])
        try p.save()
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("triple\twe\tlike\tgreen\t2\n"))
        let words = dir.appendingPathComponent("w.txt")
        try "the 1000\ncat 5\n".write(to: words, atomically: true, encoding: .utf8)
        let q = try WordPredictor.load(wordList: words, ngrams: nil, userFile: file)
        #expect(q.warnings.isEmpty)
        let again = dir.appendingPathComponent("again.txt")
        try q.save(to: again)
        #expect(try String(contentsOf: again, encoding: .utf8) == text)
    }

    @Test func addRemoveAndSaveLoadRoundTrip() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("sub/user-words.txt")
        var p = tiny()
        p.userFile = file
        let added = p.addWord("McDonald")
        let addedTwo = p.addWord("two words")
        #expect(added)
        #expect(!addedTwo)
        p.removeWord("theatre")
        p.learn("the cat sat")
        #expect(p.suggest("so McD", limit: 1) == ["McDonald"])
        #expect(p.suggest("so thea", limit: 3) == [])
        try p.save()
        let words = dir.appendingPathComponent("w.txt")
        try "the 1000\ntheatre 5\ncat 5\n".write(to: words, atomically: true, encoding: .utf8)
        var q = try WordPredictor.load(wordList: words, ngrams: nil, userFile: file)
        q.hideRejected = false
        #expect(q.warnings.isEmpty)
        #expect(q.learnedWords == p.learnedWords)
        #expect(q.removedWords == ["theatre"])
        #expect(q.suggest("so Mc", limit: 1) == ["McDonald"])
    }

    @Test func badUserLinesAreReportedWithPlaceAndSkipped() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("w.txt"), user = dir.appendingPathComponent("u.txt")
        try "the 10\n".write(to: words, atomically: true, encoding: .utf8)
        try "word\tZoe\t3\nword\tbad\tx\nnonsense\nword\tAnn\t2\n".write(to: user, atomically: true, encoding: .utf8)
        let p = try WordPredictor.load(wordList: words, ngrams: nil, userFile: user)
        #expect(p.warnings.map(\.description) == [
            "\(user.path):2: count 'x' is not a whole number ≥ 0",
            "\(user.path):3: unknown entry 'nonsense' (expected word, pair, triple, added or removed)",
        ])
        #expect(p.learnedWords == ["zoe": 3, "ann": 2])
    }

    @Test func missingWordListNamesThePath() {
        let url = URL(fileURLWithPath: "/nonexistent/words.txt")
        #expect(throws: PredictionError.cannotRead(path: url.path, reason: UIMessage("no such file"))) {
            _ = try WordPredictor.load(wordList: url, ngrams: nil, userFile: nil)
        }
    }

    @Test func defaultUserFileFollowsXDG() {
        #expect(WordPredictor.defaultUserFile(environment: ["XDG_DATA_HOME": "/x"]).path == "/x/handsfree/user-words.txt")
        #expect(WordPredictor.defaultUserFile(environment: ["HOME": "/h"]).path == "/h/.local/share/handsfree/user-words.txt")
    }
}

@Suite struct CompositionTests {
    @Test(arguments: [
        ("", "hello", "Hello "),
        ("hel", "hello", "Hello "),
        ("I said hel", "hello", "I said hello "),
        ("Done. th", "the", "Done. The "),
        ("hello ", ",", "hello, "),
        ("hello", ".", "hello. "),
        ("hello ", "world", "hello world "),
        ("hello,", "world", "hello, world "),
        ("Really? ", "yes", "Really? Yes "),
        ("(", "maybe", "(Maybe "),
    ])
    func commit(text: String, word: String, expected: String) {
        #expect(TextComposition.commit(word, into: text) == expected)
    }

    @Test func spacingAndDeleteWord() {
        #expect(TextComposition.normaliseSpacing("hello , world .") == "hello, world.")
        #expect(TextComposition.deleteWord("hello world ") == "hello ")
        #expect(TextComposition.deleteWord("hello,") == "hello")
    }

    @Test func tokensSplit() {
        let s = Tokens.split("It rained. We went ou")
        #expect(s.context == ["we", "went"])
        #expect(s.partial == "ou")
        #expect(!s.sentenceStart)
        #expect(Tokens.split("Hi. ").context == ["<s>"])
        #expect(Tokens.split("Hi. ").sentenceStart)
        #expect(Tokens.split("one two three ").context == ["two", "three"])
        #expect(Tokens.split("one two").context == ["<s>", "one"])
        #expect(Tokens.split("don't st").context == ["<s>", "don't"])
    }

    @Test func aTitleBeforeAFullStopDoesNotEndTheSentence() {
        let s = Tokens.split("She met Mr. W")
        #expect(s.context == ["met", "mr"])
        #expect(!s.sentenceStart)
        #expect(Tokens.split("Ask Dr. ").context == ["ask", "dr"])
        // Any other word before "." still ends it, and so do "!" and "?" after a title.
        #expect(Tokens.split("He left. W").context == ["<s>"])
        #expect(Tokens.split("Mr! ").context == ["<s>"])
        #expect(Tokens.words("Mr. Weston came. He sat.").map(\.sentenceStart) == [true, false, false, true, false])
        #expect(!TextComposition.atSentenceStart("said Mrs. "))
        #expect(TextComposition.commit("weston", into: "said Mrs. ") == "said Mrs. weston ")
        #expect(TextComposition.commit("he", into: "It rained. ") == "It rained. He ")
    }
}

@Suite struct KSRTests {
    @Test func handComputedSavings() {
        var p = WordPredictor(words: [("the", 100), ("cat", 10), ("sat", 5), ("car", 20), ("can", 30), ("sun", 8), ("set", 7)])
        p.hideRejected = false
        // n = 1. "the": offered before typing → ks 1. "cat": "" → the, "c" → can, "ca" → can: never,
        // so 3 letters + space = 4. "sat": "" → the, "s" → sun, "sa" → sat: ki 2, ks 1. The final
        // '.' is Presage's empty last token: ki 1, kn 1. kn = 4 + 4 + 4 + 1 = 13.
        let k = KeystrokeSimulator.simulate("the cat sat.", predictor: p, suggestions: 1)
        #expect(k.withoutPrediction == 13)
        #expect(k.typed == 0 + 4 + 2 + 1)
        #expect(k.selections == 2)
        #expect(abs(k.rate - (1 - 9.0 / 13.0) * 100) < 1e-9)
        #expect(KeystrokeSimulator.presageBaseline("the cat sat.") == 13)
        #expect(KeystrokeSimulator.presageBaseline("the, cat") == 8)
    }
}

@Suite struct BadInputTests {
    @Test(arguments: [
        "",
        String(repeating: "a", count: 100_000),
        String(repeating: "word ", count: 20_000),
        "Привет мир ",
        "日本語のテキスト",
        "\u{0}\u{1}\u{7f}",
        String(decoding: [0xff, 0xfe, 0x00, 0x41], as: UTF8.self),
        "'''''' ...,,, ???",
        "e\u{301}",
    ])
    func suggestNeverCrashesAndIsBounded(input: String) {
        let s = tiny().suggest(input, limit: 4)
        #expect(s.count <= 4)
        #expect(s.allSatisfy { !$0.isEmpty && !$0.contains("\t") && !$0.contains("\n") })
    }

    @Test func tooLongPartialGivesNothing() {
        #expect(tiny().suggest("so " + String(repeating: "t", count: 500), limit: 4) == [])
    }
}

/// What the predictor tells the speech recogniser about the user's own words.
struct UserVocabularyTests {
    @Test func namesAndAddedWordsMostUsedFirst() {
        var p = WordPredictor(words: [("the", 100), ("went", 50), ("to", 80)])
        // A capital at a sentence's start says nothing; Zoë is written with one elsewhere too.
        p.learn("I met Zoë in Paris. Then Zoë went to the Louvre with Zoë. ")
        _ = p.addWord("kubectl")
        let v = p.userVocabulary()
        #expect(v.first == "Zoë")
        #expect(v.contains("Paris") && v.contains("Louvre") && v.contains("kubectl"))
        #expect(!v.contains("went") && !v.contains("the"))
        #expect(p.userVocabulary(limit: 1) == ["Zoë"])
    }
}

@Suite struct FirstWordTests {
    /// One word asked for (the word on a key) is the first of three (the bar): it did not gather as many candidates,
    /// and left out the list's third word "america", which ranks first once it is scored ("american" has a stored
    /// pair after "i", so little of its own probability; "america" has none, so half of its own).
    @Test func theFirstWordDoesNotDependOnHowManyAreAsked() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("w.txt"), ngrams = dir.appendingPathComponent("n.txt")
        try "i 1000\nam 500\namerican 100\namerica 90\namong 80\namount 20\n".write(to: words, atomically: true, encoding: .utf8)
        try "<s> i -0.5\ni am -0.3\ni american -4\n".write(to: ngrams, atomically: true, encoding: .utf8)
        let p = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil)
        #expect(p.warnings.isEmpty)
        let three = p.suggest("i am", limit: 3)
        #expect(three.first == "america")
        for limit in 1...6 {
            #expect(p.suggest("i am", limit: limit).first == "america", "limit \(limit)")
            #expect(p.suggest("i am", limit: limit) == Array(p.suggest("i am", limit: 6).prefix(limit)), "limit \(limit)")
        }
    }
}

extension LexiconTests {
    /// Typed letters with an accent look among their accent key's words only; they must find what sorting every word
    /// of the folded prefix that `Folding.matches` gives finds, busy keys (more than `scanLimit` words, a precomputed
    /// best list) or not, composed or decomposed, after plain letters that stand for accented ones or for "ß".
    @Test func accentedLettersFindWhatAScanOfTheFoldedPrefixFinds() {
        var words: [(String, Double)] = [
            ("école", 50), ("ecole", 40), ("économie", 30), ("été", 90), ("état", 80), ("être", 99), ("êtes", 60), ("resumé", 3),
            ("résumé", 7), ("résister", 5), ("straße", 20), ("strasse", 2), ("straßenbahn", 4), ("œuvre", 9), ("ça", 70),
            ("çà", 6), ("cañon", 4), ("canción", 12), ("cancion", 1), ("über", 33), ("e\u{301}cole", 8), ("ère", 11),
        ]
        // Busy keys: 600 words under "é", 500 under "e" holding "é" later, 400 under "eé", with scattered counts.
        words += (0..<600).map { ("é\(String($0, radix: 5))z", Double(($0 * 7919) % 613 + 1)) }
        words += (0..<500).map { ("e\(String($0, radix: 4))é", Double(($0 * 104729) % 499 + 1)) }
        words += (0..<400).map { ("eé\(String($0, radix: 3))", Double(($0 * 31) % 97 + 1)) }
        let l = Lexicon(words)
        #expect(l.accentTop.keys.contains { $0.starts(with: Array("é".utf8)) }, "a busy key has precomputed lists")
        var typed = ["é", "éc", "éco", "ét", "ê", "êt", "è", "ç", "ça", "resumé", "résumé", "rés", "ré", "straß", "straße", "straßen",
                     "cañ", "canció", "ü", "üb", "e\u{301}", "e\u{301}c", "eé", "eé1", "eé12", "e1é", "é1", "é12", "é0", "œ", "œu",
                     "ø", "éz", "ézz", "ñ", "á"]
        typed += (0..<5).map { "é\(String($0 * 17, radix: 5))" }
        for t in typed {
            let prefix = Array(Folding.fold(t).utf8)
            let r = l.range(prefix: prefix)
            let matching = r.filter { Folding.matches(l.word($0), typed: t) }
            for k in [1, 6, 16, 60] {
                let expected = Array(matching.sorted { l.logProb[$0] != l.logProb[$1] ? l.logProb[$0] > l.logProb[$1] : $0 < $1 }.prefix(k))
                let key = Lexicon.accentKey(typed: t) ?? []
                let got = l.top(accentKey: key, prefix: prefix, range: r, k: k, skip: { !Folding.matches(l.word($0), typed: t) })
                #expect(got == expected, "\(t), k \(k)")
            }
        }
    }
}
