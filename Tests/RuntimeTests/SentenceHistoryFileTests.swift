import Foundation
import Prediction
@testable import LiveServices
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
            for case .saveSentences(let w) in state.learn(e) { #expect(writer.write(w, what: .sentences) == nil) }
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
        #expect(problem?.english == "Sentence history kept as sentences.txt.corrupt-1 (\(file.path):3: not valid UTF-8); the rest is used.")
        #expect(try Data(contentsOf: dir.appendingPathComponent("sentences.txt.corrupt-1")) == Data(bytes), "byte for byte")
        #expect(try SentenceHistory.load(file).history.entries.map(\.text) == ["See you soon."])
    }

    /// Issue 50's bad input: a 100 MB history (a sentence file grown by another program, or a wrong file) is read from
    /// its last 8 MB in bounded memory, the whole file kept aside (a rename: nothing lost) and the newest sentences used.
    @Test func aHundredMegabyteHistoryIsKeptAsideAndItsNewestSentencesUsed() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("user-words.txt")
        let file = LivePrediction.historyFile(beside: words)
        var chunk = ""
        for i in 0..<20_000 { chunk += "1\t\(i)\tsentence number \(i % 997) said again\n" }
        let data = Data(chunk.utf8)
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        var size = 0
        while size < 100 << 20 { try handle.write(contentsOf: data); size += data.count }
        try handle.write(contentsOf: Data("3\t99\tThe newest sentence.\n".utf8))
        try handle.close()
        let total = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        func peakKB() -> Int { var u = rusage(); getrusage(RUSAGE_SELF.rawValue, &u); return u.ru_maxrss }
        let before = peakKB()
        let (h, to, problem) = LivePrediction.loadHistory(beside: words)
        #expect(peakKB() - before < 200_000, "peak memory grew by \(peakKB() - before) KB")
        #expect(h.entries.contains { $0.text == "The newest sentence." })
        #expect(h.count <= h.capacity + h.capacity / 10)
        #expect(to == file)
        #expect(problem?.english.hasPrefix("Sentence history kept as sentences.txt.corrupt-1 (\(file.path):1: larger than") == true, "\(problem?.english ?? "")")
        let aside = dir.appendingPathComponent("sentences.txt.corrupt-1")
        #expect(try FileManager.default.attributesOfItem(atPath: aside.path)[.size] as? Int == total, "kept whole")
    }
}
