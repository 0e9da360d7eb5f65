import Foundation
import Prediction
@testable import Runtime
import Config
import Shell
import Testing

/// The user's sentence history beside the learned words: learned from the reducer's `learnSentences`, saved
/// at once, forgotten with a removed word; a damaged file is kept aside whole and its readable part used.
@Suite struct SentenceHistoryFileTests {
    func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hf-sentences-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func learnedSentencesAreSavedAtOnceAndARemovedWordTakesItsSentencesAlong() throws {
        let dir = try folder()
        let file = LivePrediction.historyFile(beside: dir.appendingPathComponent("user-words.txt"))
        #expect(file.lastPathComponent == "sentences.txt")
        // The session learns (the reducer, into the state's predictor); the runtime's writer writes what its
        // effects carry, as the loop does.
        var state = ShellState(keymap: Keymap(name: "x"), predictor: Predictor(
            words: WordPredictor(words: [("i", 10), ("am", 5), ("cold", 2), ("hungry", 1)]), historyFile: file.path))
        let writer = LivePrediction()
        func perform(_ e: Effect) {
            for case .saveSentences(let w) in state.learn(e) { #expect(writer.write(w, what: "Sentences") == nil) }
        }
        perform(.learnSentences("I am cold. I am hungry."))
        var saved = try SentenceHistory.load(file)
        #expect(saved.history.entries.map(\.text) == ["I am cold.", "I am hungry."])
        #expect(state.predictor.frequentSentences(5).count == 2)
        perform(.removeWord("hungry"))
        saved = try SentenceHistory.load(file)
        #expect(saved.history.entries.map(\.text) == ["I am cold."])
        perform(.learnSentences("See you soon."))
        perform(.forgetSentence("see you SOON"))
        #expect(try SentenceHistory.load(file).history.entries.map(\.text) == ["I am cold."])
    }

    @Test func theHistoryIsConsultedFirstForWordsAndPhrases() {
        var h = SentenceHistory()
        h.learn("I am cold.")
        h.learn("I am cold.")
        let p = Predictor(words: WordPredictor(words: [("i", 10), ("am", 5), ("a", 9), ("cold", 2), ("cat", 3)]), history: h)
        #expect(p.suggest("I am c", limit: 2).first == "cold")
        #expect(p.suggestPhrase("I ") == "am cold.")
        #expect(p.expand("iac", context: "", partner: "", limit: 2).first == "I am cold.")
    }

    @Test func aDamagedHistoryIsKeptAsideWholeAndItsReadablePartUsed() throws {
        let dir = try folder()
        let words = dir.appendingPathComponent("user-words.txt")
        let file = LivePrediction.historyFile(beside: words)
        var bytes = Array("clock\t3\n1\t1\tSee you soon.\n".utf8)
        bytes += Array("1\t2\tcaf".utf8) + [0xE9] + Array(" au lait, please\n".utf8)   // Latin-1, not UTF-8
        try Data(bytes).write(to: file)
        let (h, to, problem) = LivePrediction.loadHistory(beside: words)
        #expect(h.entries.map(\.text) == ["See you soon."])
        #expect(to == file)
        #expect(problem == "Sentence history kept as sentences.txt.corrupt-1 (\(file.path):3: not valid UTF-8); the rest is used.")
        #expect(try Data(contentsOf: dir.appendingPathComponent("sentences.txt.corrupt-1")) == Data(bytes), "byte for byte")
        #expect(try SentenceHistory.load(file).history.entries.map(\.text) == ["See you soon."])
    }
}
