import Foundation
import Localization
import Testing
@testable import Prediction

@Suite struct InitialsPatternTests {
    @Test func lettersRunTogetherAreInitialsAndLaterGroupsMayBeWords() throws {
        let p = try InitialsPattern.parse("iwlaco tea").get()
        #expect(p.groups.map { String(decoding: $0.letters, as: UTF8.self) } == ["iwlaco", "tea"])
        #expect(p.groups[0].word == false && p.groups[0].initials)
        #expect(p.groups[1].word && p.groups[1].initials)
        #expect(p.words == 7...9)
        // A group with an apostrophe is a word; other characters only separate.
        let q = try InitialsPattern.parse("i'd,lac-!ot").get()
        #expect(q.groups.map { String(decoding: $0.letters, as: UTF8.self) } == ["i'd", "lac", "ot"])
        #expect(q.groups[0].word && !q.groups[0].initials)
    }

    @Test func anInitialIsALetterWhateverItsBytes() throws {
        let p = try InitialsPattern.parse("éжa").get()
        #expect(p.words == 3...3)
        #expect(WordPredictor.match(p, ["été", "жизнь", "a"]) == true)
        let fr = WordPredictor(words: [("été", 10), ("est", 50), ("à", 40), ("elle", 30), ("ensuite", 5)])
        #expect(fr.expand("eé", limit: 3).allSatisfy { $0.split(separator: " ").count == 2 && $0.hasSuffix("été") })
    }

    @Test func emptyOrTooLongInputIsRefused() {
        #expect(InitialsPattern.parse("  ,. ") == .failure(.empty))
        guard case .failure(.tooLong) = InitialsPattern.parse(String(repeating: "a", count: 33)) else {
            Issue.record("33 initials accepted"); return
        }
        // A huge input is refused without reading it all, and expands to nothing.
        let huge = String(repeating: "ab ", count: 200_000)
        guard case .failure(.tooLong) = InitialsPattern.parse(huge) else { Issue.record("huge input accepted"); return }
        #expect(tiny().expand(huge).isEmpty)
        #expect(tiny().expand("!!!").isEmpty)
    }

    @Test func matchingWholeSentencesAndTheirBeginnings() throws {
        let p = try InitialsPattern.parse("iwl").get()
        #expect(WordPredictor.match(p, ["i", "would", "like"]) == true)
        #expect(WordPredictor.match(p, ["i", "would", "like", "tea"]) == false)
        #expect(WordPredictor.match(p, ["i", "want", "tea"]) == nil)
        let spelled = try InitialsPattern.parse("ia te").get()
        #expect(WordPredictor.match(spelled, ["i", "am", "tea"]) == true)
        #expect(WordPredictor.match(spelled, ["i", "am", "tired", "extremely"]) == true)
    }
}

@Suite struct PhraseExpansionTests {
    /// A predictor whose words spell a few phrases.
    func model() -> WordPredictor {
        WordPredictor(words: [("i", 900), ("would", 300), ("want", 400), ("like", 350), ("a", 900), ("cup", 40),
                              ("couple", 60), ("of", 800), ("tea", 30), ("the", 1000), ("am", 200), ("tired", 20),
                              ("how", 200), ("are", 300), ("you", 600), ("doing", 50), ("today", 60)])
    }

    @Test func theUsersOwnSentencesComeFirst() {
        var h = SentenceHistory()
        h.learn("I would like a cup of tea.")
        let offered = model().expand("iwlacot", history: h, limit: 3)
        #expect(offered.first == "I would like a cup of tea.")
        #expect(offered.count == 3)
        // Without it, the model's phrases, capitalised at the start, "I" always.
        let plain = model().expand("iwlacot", limit: 3)
        #expect(plain.count == 3)
        #expect(plain.allSatisfy { $0.hasPrefix("I ") && $0.split(separator: " ").count == 7 })
    }

    /// Issue 50's bad input: 32 initials, the most a phrase may have, expand within the beam's bounds; 33 and more
    /// are refused at once; characters that are not letters only part the groups.
    @Test func thirtyTwoInitialsExpandAndMoreAreRefused() {
        let p = model()
        let offered = p.expand(String(repeating: "t", count: 32), limit: 2)
        #expect(!offered.isEmpty && offered.allSatisfy { $0.split(separator: " ").count == 32 }, "\(offered)")
        #expect(p.expand(String(repeating: "t", count: 33)).isEmpty)
        #expect(p.expand(String(repeating: "i w ", count: 20)).isEmpty, "40 groups")
        #expect(p.expand("h,a;y?!", limit: 3).contains("How are you"))
        #expect(p.expand("h\u{0}a\u{7F}y", limit: 3).contains("How are you"))
        #expect(p.expand("¿¡ 😀 ,;", limit: 3).isEmpty)
    }

    @Test func aSpelledWordNarrowsTheExpansion() {
        let offered = model().expand("iwlaco tea", limit: 3)
        #expect(offered.first?.lowercased().hasSuffix(" of tea") == true)
        #expect(offered.allSatisfy { $0.split(separator: " ").count >= 7 })
    }

    @Test func aSentenceWhoseBeginningMatchesIsOfferedWhole() {
        var h = SentenceHistory()
        h.learn("How are you doing today?")
        var on = WordPredictor.PhraseSettings()
        on.historyPrefix = true
        #expect(model().expand("hay", history: h, limit: 3, settings: on).contains("How are you doing today?"))
        #expect(!model().expand("hay", history: h, limit: 3).contains("How are you doing today?"), "off by default")
    }

    @Test func continuationFromTheUsersSentences() {
        var h = SentenceHistory()
        h.learn("How are you doing today?")
        // Said once: its next word comes first among the words, but the phrase waits for a habit.
        #expect(model().continuePhrase("How are ", history: h) == nil)
        #expect(model().suggest("How are ", limit: 3, history: h).first == "you")
        h.learn("How are you doing today?")
        #expect(model().continuePhrase("How are ", history: h) == "you doing today?")
        #expect(model().continuePhrase("How are y", history: h) == "you doing today?")
        // Not when the sentence so far is not theirs.
        #expect(model().continuePhrase("Where are ", history: h) == nil)
    }

    /// A sentence said once is weak evidence at a sentence's start or one word in: its next word comes second,
    /// after the model's first (the word on the key); said twice, or with two of its words already typed, first.
    @Test func aSentenceSaidOnceDoesNotPushTheModelsFirstWordOffTheKey() {
        var h = SentenceHistory()
        h.learn("Today I am tired.")
        let start = model().suggest("T", limit: 3, history: h)
        #expect(start.first == "The" && start.dropFirst().first == "Today", "\(start)")
        var old = WordPredictor.PhraseSettings()
        old.historyWordUses = 1
        #expect(model().suggest("T", limit: 3, history: h, settings: old).first == "Today", "the rule before")
        // Inside the sentence (two of its words typed), its next word is first even said once.
        h.learn("I am tired of tea.")
        #expect(model().suggest("I am t", limit: 3, history: h).first == "tired")
        #expect(model().suggest("I am t", limit: 3).first != "tired", "the model alone offers another word first")
        // Said twice, a habit: first from the sentence's start.
        h.learn("Today I am tired.")
        #expect(model().suggest("T", limit: 3, history: h).first == "Today")
    }

    @Test func theModelsConfidentNextWordsAfterAFinishedWord() {
        var m = model()
        for _ in 0..<20 { m.learn("How are you doing today?") }
        var s = WordPredictor.PhraseSettings()
        s.nextWordConfidence = 0.3
        s.nextWords = 2
        let next = m.nextWords(after: "How are ", settings: s)
        #expect(next == ["you", "doing"], "\(next)")
        s.nextWords = 1
        #expect(m.nextWords(after: "How are ", settings: s) == ["you"])
        // Only after a finished word, and never above a confidence of 1 (off).
        #expect(m.nextWords(after: "How ar", settings: s).isEmpty)
        s.nextWordConfidence = 1.01
        #expect(m.nextWords(after: "How are ", settings: s).isEmpty)
    }
}

@Suite struct SentenceHistoryTests {
    @Test func committedTextIsSplitIntoSentences() {
        #expect(SentenceHistory.sentences(of: "Hello there. How are you?\nI am  fine!  ok") ==
                ["Hello there.", "How are you?", "I am fine!"])
        // Mr. does not end a sentence; one word is not a sentence one says again.
        #expect(SentenceHistory.sentences(of: "Mr. Smith is here. Yes.") == ["Mr. Smith is here."])
    }

    @Test func oftenAndLatelySaidSentencesRankFirst() {
        var h = SentenceHistory()
        h.learn("I am cold.")
        h.learn("I am hungry.")
        h.learn("i am cold")
        #expect(h.count == 2)
        #expect(h.frequent(limit: 2).map(\.text) == ["i am cold", "I am hungry."])
        #expect(h.entries.first { $0.text == "i am cold" }?.count == 2)
        h.halfLife = 1
        for _ in 0..<5 { h.learn("Something else entirely.") }
        h.learn("I am hungry.")
        #expect(h.frequent(limit: 3).map(\.text).prefix(2) == ["Something else entirely.", "I am hungry."])
    }

    @Test func itStaysBounded() {
        var h = SentenceHistory()
        h.capacity = 100
        for i in 0..<1000 { h.learn("sentence number \(i) here") }
        #expect(h.count <= 110)
        // The newest are the ones kept.
        #expect(h.entries.contains { $0.text == "sentence number 999 here" })
        #expect(!h.entries.contains { $0.text == "sentence number 0 here" })
    }

    @Test func forgettingSentencesAndWords() {
        var h = SentenceHistory()
        h.learn("Call my sister. Call the nurse.")
        let forgot = h.forget(sentence: "call my SISTER")
        #expect(forgot)
        #expect(h.entries.map(\.text) == ["Call the nurse."])
        h.forget(word: "Nurse")
        #expect(h.isEmpty)
    }

    @Test func savedAndReadBack() throws {
        let dir = try tempDir()
        let url = dir.appendingPathComponent("sub/sentences.txt")
        var h = SentenceHistory()
        h.learn("I would like a cup of tea. Thank you for coming.")
        h.learn("I would like a cup of tea.")
        try h.save(to: url)
        let back = try SentenceHistory.load(url)
        #expect(back.warnings.isEmpty)
        #expect(back.history.entries == h.entries)
        #expect(back.history.clock == h.clock)
    }

    @Test func damagedLinesAreNamedWithTheirLineAndTheRestIsRead() throws {
        let dir = try tempDir()
        let url = dir.appendingPathComponent("sentences.txt")
        var bytes = Array("# comment\nclock\t5\n2\t4\tI am fine.\nnot a line\n".utf8)
        // A sentence written in Latin-1 ("café au lait"): not UTF-8.
        bytes += Array("1\t5\tcaf".utf8) + [0xE9] + Array(" au lait\n".utf8)
        bytes += Array("1\t3\tSee you soon.\n".utf8)
        try Data(bytes).write(to: url)
        let loaded = try SentenceHistory.load(url)
        #expect(loaded.history.entries.map(\.text) == ["I am fine.", "See you soon."])
        #expect(loaded.warnings.map(\.description) == [
            "\(url.path):4: expected 'count<TAB>last<TAB>sentence'",
            "\(url.path):5: not valid UTF-8",
        ])
        #expect(!loaded.cutShort)
    }

    @Test func aHugeFileIsReadFromItsEndInBoundedTime() throws {
        let dir = try tempDir()
        let url = dir.appendingPathComponent("sentences.txt")
        var text = ""
        for i in 0..<20_000 { text += "1\t\(i)\tsentence number \(i) here\n" }
        try text.write(to: url, atomically: true, encoding: .utf8)
        let loaded = try SentenceHistory.load(url, maxBytes: 64 << 10)
        #expect(loaded.cutShort)
        #expect(loaded.history.entries.contains { $0.text == "sentence number 19999 here" })
        #expect(!loaded.history.entries.contains { $0.text == "sentence number 0 here" })
        #expect(loaded.warnings.first?.description.contains("only its last") == true)
    }
}

/// The conversational model initials expansion mixes in (`PhraseModel`): its back-off arithmetic, its bad lines,
/// and its effect on the phrases offered.
@Suite struct PhraseModelTests {
    static let text = """
    # a tiny model in the file's format
    0 -6
    1 </s> -1 0
    1 i -1 -0.3
    1 it -1.5 0
    1 would -2 0
    1 was -1.2 0
    1 like -2 0
    2 <s> i -0.5 -0.2
    2 i would -1 0
    2 i was -0.6 0
    3 <s> i would -0.3
    1 zzzunlisted -1 0
    this line is wrong
    2 i -0.5 0
    s -1 i would love
    s -0.5 zzzunlisted it
    s often i
    """

    static func load() throws -> (WordPredictor, [PredictionError], URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("phrase-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("conversation.txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        var p = WordPredictor(words: [("i", 100), ("it", 90), ("would", 20), ("was", 50), ("like", 30), ("love", 25)])
        let (model, warnings) = try PhraseModel.load(url, for: p)
        p.phraseModel = model
        return (p, warnings, url)
    }

    @Test func aMissingTrigramBacksOffThroughTheWeightsOfItsContexts() throws {
        let (p, _, _) = try Self.load()
        let m = try #require(p.phraseModel)
        func id(_ w: String) throws -> Int32 { Int32(try #require(p.lexicon.id(of: w))) }
        let start = m.sentenceStart, i = try id("i")
        #expect(m.logProb(try id("would"), w1: start, w2: i) == -0.3)
        // bow(<s> i) + P(was | i)
        #expect(abs(m.logProb(try id("was"), w1: start, w2: i) - (-0.8)) < 1e-5)
        // bow(<s> i) + bow(i) + P(like)
        #expect(abs(m.logProb(try id("like"), w1: start, w2: i) - (-2.5)) < 1e-5)
        // A listed word the model never saw gets the floor; the sentence's end its own unigram.
        #expect(abs(m.logProb(try id("love"), w1: nil, w2: nil) - (-6)) < 1e-5)
        #expect(abs(m.logProb(PhraseModel.end, w1: nil, w2: try id("would")) - (-1)) < 1e-5)
        #expect(m.successors(w1: start, w2: i, in: 0..<p.lexicon.count, k: 3) == [try id("would"), try id("was")])
    }

    static let expected = "expected '1 WORD LOG10P LOG10BOW', '2 W1 W2 LOG10P LOG10BOW', '3 W1 W2 W3 LOG10P [LOG10BOW]' or '4 W1 W2 W3 W4 LOG10P'"

    @Test func badLinesAreSkippedAndNamedWithFileAndLine() throws {
        let (_, warnings, url) = try Self.load()
        #expect(warnings.map(\.description) == [
            "\(url.path):14: \(Self.expected)",
            "\(url.path):15: \(Self.expected)",
            "\(url.path):18: expected 's LOG10P W1 W2 …'"])
        #expect(throws: PredictionError.self) { try PhraseModel.load(url.appendingPathExtension("missing"), for: WordPredictor(words: [("a", 1)])) }
    }

    /// The word frequencies alone put "I was" first ("was" is likelier than "would"); the conversational model,
    /// where "I would" follows a sentence's start, puts it first at its weight, and weight 0 leaves it out.
    @Test func theModelChangesWhichPhraseComesFirst() throws {
        let (p, _, _) = try Self.load()
        var off = WordPredictor.PhraseSettings()
        off.conversationWeight = 0
        off.startConversationWeight = nil
        #expect(p.expand("iw", limit: 2, settings: off).first == "I was")
        #expect(p.expand("iw", limit: 2).first == "I would")
        var bare = p
        bare.phraseModel = nil
        #expect(bare.expand("iw", limit: 2) == p.expand("iw", limit: 2, settings: off))
    }

    /// The conversational model's weight can differ by place: the sentence's first word, its second, the rest, and
    /// after a partner's message. "iw": "I" is the first word, "would" (the model's) or "was" (the word list's) the second.
    @Test func theConversationalWeightDependsOnWhereTheWordIs() throws {
        let (p, _, _) = try Self.load()
        var s = WordPredictor.PhraseSettings()
        s.utteranceWeight = 0
        s.conversationWeight = 0
        s.startConversationWeight = nil
        s.partnerConversationWeight = nil
        s.secondConversationWeight = 0.3
        #expect(p.expand("iw", limit: 2, settings: s).first == "I would", "the second word's weight applies to it")
        s.startConversationWeight = 0.3
        s.secondConversationWeight = 0
        #expect(p.expand("iw", limit: 2, settings: s).first == "I was", "the first word's weight does not reach the second")
        s.conversationWeight = 0.3
        s.startConversationWeight = nil
        s.secondConversationWeight = nil
        #expect(p.expand("iw", limit: 2, settings: s).first == "I would", "nil: the weight elsewhere")
        // After a partner's message its own weight; without one, the weight elsewhere.
        s.conversationWeight = 0
        s.partnerConversationWeight = 0.3
        #expect(p.expand("iw", limit: 2, settings: s).first == "I was")
        #expect(p.expand("iw", partner: "hello there", limit: 2, settings: s).first == "I would")
    }

    /// A sentence people say again and again ("s" lines) is offered whole when its initials are typed at a
    /// sentence's start, at the weight given; its probability beats the word-by-word model's "I would like" there.
    @Test func aSentenceSaidAgainAndAgainIsOfferedWhole() throws {
        let (p, _, _) = try Self.load()
        let m = try #require(p.phraseModel)
        // The sentence with a word the list lacks is left out.
        #expect(m.utterances.map { $0.words.map { p.lexicon.word(Int($0)) } } == [["i", "would", "love"]])
        var on = WordPredictor.PhraseSettings(), off = on
        on.utteranceWeight = 0.5
        off.utteranceWeight = 0
        #expect(p.expand("iwl", limit: 3, settings: off).first != "I would love")
        #expect(p.expand("iwl", limit: 3, settings: on).first == "I would love")
        // Not after the start of a sentence, nor for other initials.
        #expect(p.expand("iwl", context: "so", limit: 3, settings: on).first != "i would love")
        #expect(!p.expand("iw", limit: 3, settings: on).contains("I would love"))
    }
}

/// The conversational model's fourth word of context (a 4-gram model): its back-off through the triple's weight,
/// the context that does not matter, and the phrase it changes.
@Suite struct FourGramPhraseModelTests {
    static let text = """
    0 -6
    1 </s> -1 0
    1 i -1 -0.3
    1 would -2 0
    1 was -1.2 0
    1 like -2 0
    1 love -2.2 0
    2 <s> i -0.5 -0.2
    2 i would -1 -0.1
    2 would like -1.5 0
    3 <s> i would -0.3 -0.4
    3 i would like -0.7 0
    4 <s> i would love -0.2
    4 <s> i would </s> -1.5
    """

    /// The predictor with the model of `text` (without its 4-grams when `fourgrams` is false), and the text's file.
    static func load(fourgrams: Bool = true) throws -> (WordPredictor, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("phrase-model-4-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("conversation.txt")
        try text.split(separator: "\n").filter { fourgrams || !$0.hasPrefix("4 ") }.joined(separator: "\n")
            .write(to: url, atomically: true, encoding: .utf8)
        var p = WordPredictor(words: [("i", 100), ("would", 20), ("was", 50), ("like", 30), ("love", 25)])
        let (model, warnings) = try PhraseModel.load(url, for: p)
        #expect(warnings.isEmpty)
        p.phraseModel = model
        return (p, url)
    }

    @Test func aMissing4GramBacksOffThroughTheWeightOfItsTriple() throws {
        let (p, _) = try Self.load()
        let m = try #require(p.phraseModel)
        func id(_ w: String) throws -> Int32 { Int32(try #require(p.lexicon.id(of: w))) }
        let start = m.sentenceStart, i = try id("i"), would = try id("would")
        #expect(m.logProb(try id("love"), w0: start, w1: i, w2: would) == -0.2)
        #expect(m.logProb(PhraseModel.end, w0: start, w1: i, w2: would) == -1.5)
        // bow(<s> i would) + P(like | i would)
        #expect(abs(m.logProb(try id("like"), w0: start, w1: i, w2: would) - (-1.1)) < 1e-5)
        // Without the fourth word back, or with one the model has no 4-grams after, the trigram's own.
        #expect(abs(m.logProb(try id("like"), w1: i, w2: would) - (-0.7)) < 1e-5)
        #expect(abs(m.logProb(try id("like"), w0: try id("was"), w1: i, w2: would) - (-0.7)) < 1e-5)
        #expect(m.fourContext(start, i, would) == start)
        #expect(m.fourContext(try id("was"), i, would) == nil)
        #expect(m.successors(w0: start, w1: i, w2: would, in: 0..<p.lexicon.count, k: 3) == [try id("love"), try id("like")])
        #expect(m.successors(w1: i, w2: would, in: 0..<p.lexicon.count, k: 3) == [try id("like")])
    }

    /// "iwl" at a sentence's start: the trigram model's "would like" wins, the 4-gram's "<s> i would love" beats it.
    @Test func theFourthWordBackChangesThePhraseOffered() throws {
        var s = WordPredictor.PhraseSettings()
        s.conversationWeight = 1
        s.startConversationWeight = nil
        s.utteranceWeight = 0
        let (tri, _) = try Self.load(fourgrams: false)
        #expect(tri.expand("iwl", limit: 2, settings: s).first == "I would like")
        let (four, _) = try Self.load()
        #expect(four.expand("iwl", limit: 2, settings: s).first == "I would love")
        // After another word the fourth word back is not "<s>": the trigram's choice. (A listed word: without n-grams the
        // start's id is -1, as an unknown word's.)
        #expect(four.expand("iwl", context: "was", limit: 2, settings: s).first?.lowercased() == "i would like")
    }

    /// The compiled file holds the 4-grams and reads back the same; a file of the trigram model's layout (version 1)
    /// is rebuilt without a word, never misread.
    @Test func compiledWithItsFourGramsAndAnOldVersionRebuilt() throws {
        let (p, url) = try Self.load()
        let cache = url.deletingLastPathComponent().appendingPathComponent("cache/conversation.bin")
        let (first, w1) = try PhraseModel.load(url, for: p, cache: cache)
        #expect(w1.isEmpty)
        let whole = try Data(contentsOf: cache)
        let (second, w2) = try PhraseModel.load(url, for: p, cache: cache)
        #expect(w2.isEmpty)
        #expect(second.fourgrams.count == 2 && second.fourContexts.count == 1)
        #expect(PhraseModelCacheTests.bytes(second) == PhraseModelCacheTests.bytes(first))
        var old = whole
        old[7] = UInt8(ascii: "1")
        try old.write(to: cache)
        let (third, w3) = try PhraseModel.load(url, for: p, cache: cache)
        #expect(w3.isEmpty)
        #expect(PhraseModelCacheTests.bytes(third) == PhraseModelCacheTests.bytes(first))
        #expect(try Data(contentsOf: cache) == whole)
    }
}

/// The conversational model's compiled file (`PhraseModelCache.swift`): written once, read back the same, and any
/// damage said with the file's name and the text read instead, never a crash.
@Suite struct PhraseModelCacheTests {
    static func setUp() throws -> (WordPredictor, URL, URL) {
        let (p, _, url) = try PhraseModelTests.load()
        return (p, url, url.deletingLastPathComponent().appendingPathComponent("cache/conversation.bin"))
    }

    static func bytes(_ m: PhraseModel) -> [UInt8] { m.encode(stamp: []) }

    @Test func writtenOnceThenReadBackTheSame() throws {
        let (p, url, cache) = try Self.setUp()
        let (text, _) = try PhraseModel.load(url, for: p)
        // The text has bad lines: nothing is compiled from it, so a start always says them.
        _ = try PhraseModel.load(url, for: p, cache: cache)
        #expect(!FileManager.default.fileExists(atPath: cache.path))
        let clean = url.deletingLastPathComponent().appendingPathComponent("clean.txt")
        let lines = PhraseModelTests.text.split(separator: "\n").filter { !$0.contains("wrong") && !$0.hasPrefix("2 i -0.5 0") && !$0.hasPrefix("s often") }
        try lines.joined(separator: "\n").write(to: clean, atomically: true, encoding: .utf8)
        let (first, w1) = try PhraseModel.load(clean, for: p, cache: cache)
        #expect(w1.isEmpty)
        let head = try Data(contentsOf: cache).prefix(8)
        #expect(Array(head) == Array("HFPHRAS2".utf8))
        let (second, w2) = try PhraseModel.load(clean, for: p, cache: cache)
        #expect(w2.isEmpty)
        #expect(Self.bytes(second) == Self.bytes(first))
        #expect(Self.bytes(first) == Self.bytes(text))
        #expect(second.utterances.count == 1)
    }

    /// Each damage is said once, naming the file; the text is read and the file written again, so the next start
    /// reads it without a word.
    @Test func aDamagedFileIsSaidAndRebuiltNeverACrash() throws {
        let (p, url, cache) = try Self.setUp()
        let clean = url.deletingLastPathComponent().appendingPathComponent("clean.txt")
        try "0 -6\n1 i -1 -0.3\n1 would -2 0\n2 <s> i -0.5 -0.2\n2 i would -1 0\n3 <s> i would -0.3\ns -1 i would\n"
            .write(to: clean, atomically: true, encoding: .utf8)
        let (good, _) = try PhraseModel.load(clean, for: p, cache: cache)
        let whole = try Data(contentsOf: cache)
        let stamp = try #require(PhraseModel.stamp(of: clean, lexicon: p.lexicon))
        var flipped = whole
        flipped[whole.count / 2] ^= 0xFF
        // A checksum anyone can compute passes, so a file with an id past the word list must be refused by its tables.
        var bad = good
        bad.utterances = [([Int32(p.lexicon.count + 5)], -1)]
        let damages: [(UIMessage, Data)] = [
            (UIMessage("empty", context: "file"), Data()),
            (UIMessage("not a compiled conversational model"), Data("hello world, not a model".utf8)),
            (UIMessage("cut short"), whole.prefix(whole.count - 13)),
            (UIMessage("checksum does not match (cut short or overwritten)"), flipped),
            (UIMessage("sentences do not fit the word list"), Data(bad.encode(stamp: stamp))),
        ]
        for (reason, data) in damages {
            try data.write(to: cache)
            let (m, warnings) = try PhraseModel.load(clean, for: p, cache: cache)
            #expect(warnings == [.damagedPhraseCache(path: cache.path, reason: reason)], "\(reason)")
            #expect(Self.bytes(m) == Self.bytes(good))
            #expect(try PhraseModel.load(clean, for: p, cache: cache).warnings.isEmpty, "rewritten after \(reason)")
        }
        // Another version's file, or one compiled for other words, is replaced without a word.
        var other = whole
        other[7] = UInt8(ascii: "0")
        try other.write(to: cache)
        #expect(try PhraseModel.load(clean, for: p, cache: cache).warnings.isEmpty)
        #expect(try Data(contentsOf: cache) == whole)
        let q = WordPredictor(words: [("i", 100), ("would", 20), ("it", 5)])
        let (forQ, wq) = try PhraseModel.load(clean, for: q, cache: cache)
        #expect(wq.isEmpty && forQ.utterances.count == 1)
        #expect(try Data(contentsOf: cache) != whole)
        // A file far larger than the text could make is refused before it is read.
        let fd = open(cache.path, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        #expect(ftruncate(fd, 1 << 34) == 0)
        close(fd)
        let (_, big) = try PhraseModel.load(clean, for: q, cache: cache)
        #expect(big.count == 1 && big.first?.description.contains("MB, more than the conversational model could make") == true)
    }
}
