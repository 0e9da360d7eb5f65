import Benchmarks
import Foundation
import Prediction
import Runtime
import Testing

/// The shipped English lists with Debian's whole trigram model, as `handsfree expand` loads them; loaded once.
private let english = Result { try WordLists.load() }
private let haveModel = FileManager.default.fileExists(atPath: WordLists.debianModel.path)
/// The same with the conversational model initials expansion mixes in (wordlists/conversation-en.txt), as the shell
/// and `handsfree expand` load it.
private let conversational = Result { () throws -> WordPredictor in
    var p = try english.get()
    p.phraseModel = try PhraseModel.load(WordLists.phraseModel, for: p).model
    return p
}

/// Initials expansion (issue 50) with the real English model: common phrases come back from their initials, the
/// user's own sentences first, bad input gives nothing or bounded phrases.
@Suite(.enabled(if: haveModel, "needs Debian's pocketsphinx-en-us (/usr/share/pocketsphinx/model/en-us/en-us.lm.bin)"))
struct InitialsExpansionTests {
    @Test(arguments: [("tyvm", "thank you very much"), ("wtii", "what time is it"), ("haydt", "how are you doing today"),
                      ("iwtgh", "i want to go home"), ("cyhm", "can you help me"), ("idk", "i don't know"),
                      ("iwla cup ot", "i would like a cup of tea"), ("wiyn", "what is your name")])
    func aCommonPhraseIsAmongTheFirstThree(initials: String, phrase: String) throws {
        let offered = try english.get().expand(initials, limit: 3)
        #expect(offered.map { $0.lowercased() }.contains(phrase), "\(initials): \(offered)")
    }

    /// The everyday phrases stay among the first three with the conversational model mixed in.
    @Test(arguments: [("tyvm", "thank you very much"), ("wtii", "what time is it"), ("haydt", "how are you doing today"),
                      ("iwtgh", "i want to go home"), ("cyhm", "can you help me"), ("idk", "i don't know"),
                      ("iwla cup ot", "i would like a cup of tea"), ("wiyn", "what is your name")])
    func aCommonPhraseStaysAmongTheFirstThreeWithTheConversationalModel(initials: String, phrase: String) throws {
        let offered = try conversational.get().expand(initials, limit: 3)
        #expect(offered.map { $0.lowercased() }.contains(phrase), "\(initials): \(offered)")
    }

    /// After a partner's message the user is chatting, and the conversational model weighs more there (0.7 against
    /// 0.2 after a sentence's first word): "Wow that is impressive" comes first, where without one "What time is it"
    /// does (the partner's words here start with none of the letters, so only the weight differs).
    @Test func afterAPartnersMessageChatPhrasesComeFirst() throws {
        let p = try conversational.get()
        let alone = p.expand("wtii", limit: 3), replying = p.expand("wtii", partner: "My dog can now open doors", limit: 3)
        #expect(alone.first?.lowercased() == "what time is it", "\(alone)")
        // Which chat phrase depends on the model: "interesting" with the trigram model, "impressive" with the 4-gram one.
        #expect(replying.first.map { $0.lowercased().hasPrefix("wow that is i") } == true, "\(replying)")
    }

    /// symspell's list lacked "favorite" (it had "favourite"), so no phrase with it could be offered; now listed (from
    /// CMU's model, scripts/add-lm-words.py), and the conversational model puts "What is your favorite color"
    /// first, where the n-grams alone put "What is your first call" first.
    @Test func theConversationalModelAndTheUSSpellingsOfferWhatPeopleSay() throws {
        let p = try conversational.get()
        #expect(p.suggest("my favo", limit: 3).contains("favorite"), "\(p.suggest("my favo", limit: 3))")
        for w in ["favorite", "theater", "mom", "ok", "oh", "math"] { #expect(p.phraseDiagnosis([w]) != nil, "\(w) is listed") }
        #expect(p.expand("wiyfc", limit: 3).first == "What is your favorite color")
        var off = WordPredictor.PhraseSettings()
        off.conversationWeight = 0
        off.startConversationWeight = nil
        off.utteranceWeight = 0
        #expect(p.expand("wiyfc", limit: 3, settings: off).first != "What is your favorite color")
        #expect(p.phraseModel.map { $0.count > 300_000 } == true)
    }

    /// The bench's history runs with repetition: in the text's order, a phrase said earlier in the text is in the
    /// history when it comes again (and only then); with a share said before, those phrases are in it once each.
    @Test func theBenchsHistoryRunsWithRepetitionSayWhatWasSaidBefore() throws {
        let p = try english.get()
        let items: [ExpandBench.Item] = ["Are you sentient?", "You are not immortal.", "Are you sentient?",
                                         "All software can be perpetuated indefinitely."].map { .init(phrase: $0) }
        var bench = ExpandBench(items: items, history: [])
        bench.repeatShare = 0.5
        var lines: [String] = []
        let r = bench.run(p) { lines.append($0) }
        // The model alone ranks none of the three first three; the second "Are you sentient?" comes from the history.
        #expect(r["no history"]?.hits == 0)
        #expect(r["with history"]?.hits == 0, "never the phrase typed")
        #expect(r["with history, earlier phrases of the text"]?.hits == 1 && r["with history, earlier phrases of the text"]?.phrases == 4)
        #expect(lines.contains { $0.contains("1 of 4 were said earlier in the text, 1 of those offered") }, "\(lines)")
        // Three distinct phrases, half said before, spread evenly: the second ("You are not immortal") only.
        let said = r["with history, said before (those said)"], others = r["with history, said before (the others)"]
        #expect(said?.hits == 1 && said?.phrases == 1)
        #expect(others?.hits == 0 && others?.phrases == 3)
        #expect(lines.contains { $0.hasPrefix("with history, 50% of the distinct phrases said once before (1 of 3)") }, "\(lines)")
    }

    /// `bench expand --runs`: only the runs named are made (and printed); nil makes them all.
    @Test func theBenchMakesOnlyTheRunsNamed() throws {
        let p = try english.get()
        let items: [ExpandBench.Item] = ["What time is it?", "Thank you very much."].map { .init(phrase: $0, partner: "Hello there") }
        var bench = ExpandBench(items: items, history: ["I want to go home."])
        bench.runs = [.none, .history]
        var lines: [String] = []
        let r = bench.run(p) { lines.append($0) }
        #expect(Set(r.keys) == ["no history", "with history"], "\(r.keys)")
        #expect(lines.count == 2 && lines[0].hasPrefix("no history:") && lines[1].hasPrefix("with history:"), "\(lines)")
        bench.runs = [.earlier]
        #expect(Set(bench.run(p) { _ in }.keys) == ["with history, earlier phrases of the text"])
    }

    /// Ranking hypotheses by their probability so far alone dropped "thank" for likelier first words ("there",
    /// "then") whose next word is not "you"; the lookahead keeps it (failed before it: "There you very much" first).
    @Test func theLookaheadKeepsAWordThatLeadsOnWell() throws {
        let p = try english.get()
        var plain = WordPredictor.PhraseSettings()
        plain.lookahead = false
        #expect(!p.expand("tyvm", limit: 3, settings: plain).contains("Thank you very much"))
        #expect(p.expand("tyvm", limit: 3).first == "Thank you very much")
    }

    /// The user's sentences that match come before the model's, the most often said first; saying the other one
    /// more often puts it first.
    @Test func theUsersSentencesComeFirstMostOftenSaidFirst() throws {
        let p = try english.get()
        var h = SentenceHistory()
        for _ in 0..<3 { h.learn("I would like a cup of tea.") }
        h.learn("I want lunch and coffee on Tuesday.")
        h.learn("How are you?")
        var offered = p.expand("iwlacot", history: h, limit: 3)
        #expect(Array(offered.prefix(2)) == ["I would like a cup of tea.", "I want lunch and coffee on Tuesday."], "\(offered)")
        #expect(offered.count == 3, "the model fills the rest")
        for _ in 0..<5 { h.learn("I want lunch and coffee on Tuesday.") }
        offered = p.expand("iwlacot", history: h, limit: 3)
        #expect(offered.first == "I want lunch and coffee on Tuesday.", "\(offered)")
        // After the sentence so far, the rest of a sentence of the history.
        #expect(p.expand("acot", context: "I would like", history: h, limit: 1) == ["a cup of tea."])
    }

    /// Issue 50's bad input with the whole model: 32 initials (the most) expand within the beam's bounds into
    /// phrases of 32 words, more are refused, non-letters only part groups, a big history is searched whole.
    @Test func badInputGivesNothingOrBoundedPhrases() throws {
        let p = try english.get()
        let long = p.expand(String(repeating: "tiaw", count: 8), limit: 2)
        #expect(!long.isEmpty && long.allSatisfy { $0.split(separator: " ").count == 32 }, "\(long)")
        #expect(p.expand(String(repeating: "t", count: 33)).isEmpty)
        #expect(p.expand(String(repeating: "a b ", count: 100_000)).isEmpty)
        #expect(p.expand("¿¡ 😀 ,;").isEmpty)
        #expect(p.expand("t-y,v;m", limit: 3).contains("Thank you very much"))
        var h = SentenceHistory()
        for i in 0..<6_000 { h.learn("Sentence number \(i) of the history.") }
        h.learn("Thank you very much.")
        #expect(h.count <= h.capacity + h.capacity / 10)
        #expect(p.expand("tyvm", history: h, limit: 3).first == "Thank you very much.")
    }

    /// `bench expand --explain` names why each phrase was missed; the counts add up to the misses.
    @Test func theBenchSaysWhyAPhraseWasMissed() throws {
        let p = try english.get()
        var bench = ExpandBench(items: [.init(phrase: "Thank you very much."), .init(phrase: "Are you sentient?"),
                                        .init(phrase: "What is your zxqwv?")], history: [])
        bench.explain = 5
        var lines: [String] = []
        let results = bench.run(p) { lines.append($0) }
        #expect(results["no history"]?.hits == 1)
        #expect(lines.contains { $0.hasPrefix("  miss (outscored by other phrases): are you sentient [ays]") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  miss (a word not in the lists): what is your zxqwv") }, "\(lines)")
        let counts = lines.filter { $0.hasPrefix("  missed, ") }.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(counts.count == WordPredictor.Miss.allCases.count && counts.reduce(0, +) == 2, "\(lines)")
        // Where they stand among the first 20 the search offers, or not there: the two misses again.
        let places = lines.first { $0.hasPrefix("  missed phrases among the first 20 offered, at places 4-5: ") }
        let numbers = places?.components(separatedBy: ": ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) } ?? []
        #expect(numbers.count == 4 && numbers.reduce(0, +) == 2, "\(lines)")
    }
}
