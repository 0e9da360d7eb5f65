import Foundation
import Testing
@testable import Prediction

/// CMU's US English trigram model as Debian's pocketsphinx-en-us installs it (the speech tests use it too).
private let debianModel = URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin")
private let haveModel = FileManager.default.fileExists(atPath: debianModel.path)
private let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("wordlists")

@Suite(.enabled(if: haveModel, "needs Debian's pocketsphinx-en-us (/usr/share/pocketsphinx/model/en-us/en-us.lm.bin)"))
struct LMTrieTests {
    /// Where the unigrams start: the header, the order, three counts, the quantiser's word and its three tables.
    static let unigrams = 19 + 1 + 12 + 4 + 3 * 65_536 * 4

    @Test func everyNGramOfTheModelIsRead() throws {
        let m = try LMTrie.read(try LineReader.read(debianModel)).get()
        #expect(m.words.count == 72_547)
        // The file counts 2,051,547 bigrams; the unigrams' ranges reach 2,051,541 of them (the last few are
        // reached by none, as in PocketSphinx's own reading), and 1,669,625 trigrams.
        #expect(m.bigrams.count == 2_051_541)
        #expect(m.trigrams.count == 1_669_625)
        let sum = m.unigramLogP.reduce(0.0) { $0 + pow(10, Double($1)) }
        #expect(abs(sum - 1) < 0.001, "unigram probabilities add up to \(sum)")
        let id = Dictionary(m.words.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { a, _ in a })
        let (s, i, how, are, you) = (id["<s>"]!, id["i"]!, id["how"]!, id["are"]!, id["you"]!)
        // The values PocketSphinx's own library gives (make-ngrams.py asked it for the shipped file's trigrams).
        let bigram = try #require(m.bigrams.first { $0.w1 == s && $0.w2 == i })
        #expect(abs(bigram.logp - -1.06) < 0.005)
        let trigram = try #require(m.trigrams.first { $0.w1 == how && $0.w2 == are && $0.w3 == you })
        #expect(abs(trigram.logp - -0.22) < 0.005)
        // Sentence starts: the shipped text kept 58 bigrams after <s>; the model has thousands.
        #expect(m.bigrams.filter { $0.w1 == s }.count > 10_000)
    }

    @Test(arguments: [40, unigrams - 10, unigrams + 500_000, 20_000_000, 27_114_000])
    func aModelCutShortIsRefusedNamingWhere(_ length: Int) throws {
        let bytes = Array(try LineReader.read(debianModel).prefix(length))
        guard case .failure(let f) = LMTrie.read(bytes) else { Issue.record("a model cut at \(length) bytes was read"); return }
        #expect(f.reason.hasPrefix("cut short in ") || f.reason.contains("words for"), "\(f.reason)")
    }

    @Test(arguments: ["a unigram's bigrams past the end", "a bigram of a word past the list", "counts out of range", "another order"])
    func damagedTablesAreRefusedNotTrappedOn(_ damage: String) throws {
        var bytes = try LineReader.read(debianModel)
        func put(_ v: UInt32, at offset: Int) { withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { bytes[offset + k] = b } } }
        let expected: String
        switch damage {
        case "a unigram's bigrams past the end":
            put(0xFFFF_FFF0, at: Self.unigrams + 5 * 12 + 8)
            expected = "the unigrams' bigram indices do not fit"
        case "a bigram of a word past the list":
            // The first bigram entry's word: all ones is past the 72,547 words.
            let mid = Self.unigrams + (72_547 + 1) * 12
            for k in 0..<4 { bytes[mid + k] = 0xFF }
            expected = "does not fit the tables"
        case "counts out of range":
            put(UInt32(1 << 30), at: 20)
            expected = "counts out of range"
        default:
            bytes[19] = 5
            expected = "only trigram models are read"
        }
        guard case .failure(let f) = LMTrie.read(bytes) else { Issue.record("\(damage): read"); return }
        #expect(f.reason.contains(expected), "\(f.reason)")
    }

    @Test func aTrieIsToldFromNGramText() {
        #expect(LMTrie.isTrie(Array("Trie Language Model\u{3}".utf8)))
        #expect(!LMTrie.isTrie(Array("how are you -0.22\n".utf8)))
        guard case .failure(let f) = LMTrie.read(Array("Trie Language".utf8)) else { Issue.record("read"); return }
        #expect(f.reason.contains("not a PocketSphinx trie model"))
    }

    /// The model's n-grams add to the shipped text's (which keeps its own where both have one, its bigrams being
    /// mixed with books'), with the back-off weights and sentence ends; the compiled lists keep all of it.
    @Test func theModelAddsToTheShippedNGramsAndSurvivesCompiling() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let words = dir.appendingPathComponent("words.txt"), ngrams = dir.appendingPathComponent("ngrams.txt")
        let list = try String(contentsOf: shipped.appendingPathComponent("words-en.txt"), encoding: .utf8)
        try (list.split(separator: "\n").prefix(5_000).joined(separator: "\n") + "\n").write(to: words, atomically: true, encoding: .utf8)
        // "<s> i" as the text has it, made unlikely.
        try "<s> i -3.50\n".write(to: ngrams, atomically: true, encoding: .utf8)
        let cache = dir.appendingPathComponent("cache.bin")
        let text = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil)
        let built = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil, cache: cache, languageModel: debianModel)
        let read = try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: nil, cache: cache, languageModel: debianModel)
        #expect(text.ngramCounts.bigrams <= 2 && !text.ngrams.hasBackoffs)
        for p in [built, read] {
            #expect(p.warnings.isEmpty)
            #expect(p.ngramCounts.bigrams > 300_000 && p.ngramCounts.trigrams > 100_000, "\(p.ngramCounts)")
            #expect(p.ngrams.hasBackoffs)
            let start = p.ngrams.sentenceStart
            let i = Int32(try #require(p.lexicon.id(of: "i")))
            #expect(p.ngrams.bigram(start, i) == -3.5, "the text's n-gram is kept")
            let how = Int32(try #require(p.lexicon.id(of: "how"))), are = Int32(try #require(p.lexicon.id(of: "are")))
            let you = Int32(try #require(p.lexicon.id(of: "you")))
            #expect(abs((p.ngrams.trigram(how, are, you) ?? 0) - -0.22) < 0.005)
            // A sentence ends far more often after "how are you" than after "how are".
            let afterYou = try #require(p.ngrams.sentenceEnd(w1: are, w2: you)), afterAre = try #require(p.ngrams.sentenceEnd(w1: how, w2: are))
            #expect(afterYou > afterAre + 1)
        }
        #expect(built.expand("hay", limit: 1) == read.expand("hay", limit: 1))
        #expect(read.expand("hay", limit: 3).contains("How are you"), "\(read.expand("hay", limit: 3))")
        // Another model file (or none) is other lists: the compiled file is not used for them.
        #expect(WordPredictor.compiledLists(in: cache, wordList: words, ngrams: ngrams, nouns: nil, held: nil) == .otherLists)
        #expect(WordPredictor.compiledLists(in: cache, wordList: words, ngrams: ngrams, nouns: nil, held: nil,
                                            languageModel: debianModel) == .upToDate)
    }
}
