import Foundation
import Testing
@testable import Prediction

/// Issue 49: numbers read from the prediction files are range-checked, and counts grow without overflow. A
/// count of 9223372036854775807 in `user-words.txt` trapped `run` at every start (and `predict`, `words`).
@Suite struct FileNumbersTests {
    /// Writes `user` as the user's file beside a small word list and loads both, as `run` and `predict` do.
    func load(user: String, words: String = "the 10\nhello 5\n") throws -> (WordPredictor, URL, URL) {
        let dir = try tempDir()
        let w = dir.appendingPathComponent("w.txt"), u = dir.appendingPathComponent("user-words.txt")
        try words.write(to: w, atomically: true, encoding: .utf8)
        try user.write(to: u, atomically: true, encoding: .utf8)
        return (try WordPredictor.load(wordList: w, ngrams: nil, userFile: u), u, dir)
    }

    @Test func countsPastTheLimitAreNamedWithTheirLineAndTheRestLoads() throws {
        let (p, u, dir) = try load(user: """
            word\tZoe\t9223372036854775807
            word\tAnn\t99999999999999999999
            word\tBea\t1000000000001
            word\tCid\t1000000000000
            pair\tann\tzoe\t9223372036854775807
            triple\t<s>\tann\tzoe\t18446744073709551616
            word\tDee\t-4
            word\tEve\t7

            """)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(p.warnings.map(\.description) == [
            "\(u.path):1: count 9223372036854775807 is out of range (at most 1000000000000)",
            "\(u.path):2: count 99999999999999999999 is out of range (at most 1000000000000)",
            "\(u.path):3: count 1000000000001 is out of range (at most 1000000000000)",
            "\(u.path):5: count 9223372036854775807 is out of range (at most 1000000000000)",
            "\(u.path):6: count 18446744073709551616 is out of range (at most 1000000000000)",
            "\(u.path):7: count '-4' is not a whole number ≥ 0",
        ])
        #expect(p.learnedWords == ["cid": Counts.limit, "eve": 7])
        #expect(p.suggest("so C", limit: 1) == ["Cid"])
    }

    /// Counts at the limit keep growing without a trap: they stop there, and what is saved reads back.
    @Test func countsAtTheLimitStopThereAndSaveReadably() throws {
        let limit = Counts.limit
        let (loaded, u, dir) = try load(user: "word\tCid\t\(limit)\npair\t<s>\tcid\t\(limit)\ntriple\t<s>\tcid\tcid\t\(limit)\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        var p = loaded
        #expect(p.warnings.isEmpty)
        p.learn("Cid cid cid. Cid cid")
        _ = p.addWord("Cid")
        #expect(p.learnedWords["cid"] == limit)
        #expect(p.suggest("so c", limit: 1) == ["Cid"])
        try p.save(to: u)
        let again = try WordPredictor.load(wordList: dir.appendingPathComponent("w.txt"), ngrams: nil, userFile: u)
        #expect(again.warnings.isEmpty, "\(again.warnings)")
        #expect(again.learnedWords["cid"] == limit)
    }

    /// Millions of counts at the limit (a file of 9.3 million lines): their totals stop at Int.max instead of
    /// trapping, and forgetting a word still works.
    @Test func totalsOfManyLargeCountsDoNotOverflow() {
        var u = UserWords()
        u.bump("one", form: nil, by: Counts.limit)
        u.total = Int.max - 5
        u.bump("two", form: nil, by: Counts.limit)
        #expect(u.total == Int.max)
        u.bumpPair("<s>", "one", by: Counts.limit)
        u.pairTotals["<s>"] = Int.max - 1
        u.bumpPair("<s>", "two", by: Counts.limit)
        #expect(u.pairTotals["<s>"] == Int.max)
        u.bumpTriple("<s>", "one", "two", by: Counts.limit)
        u.tripleTotals[UserWords.tripleKey("<s>", "one")] = Int.max - 1
        u.bumpTriple("<s>", "one", "one", by: Counts.limit)
        #expect(u.tripleTotals[UserWords.tripleKey("<s>", "one")] == Int.max)
        u.forget("one")
        #expect(u.counts["one"] == nil && u.counts["two"] == Counts.limit)
    }

    @Test(arguments: [("1e308", true), ("1e16", true), ("1e15", false), ("inf", true)])
    func wordListCountsPastTheLimitAreBadLines(_ count: String, _ refused: Bool) throws {
        let (p, _, dir) = try load(user: "", words: "the 10\nbig \(count)\nhello 5\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        let w = dir.appendingPathComponent("w.txt").path
        if refused {
            #expect(p.warnings.map(\.description).first?.hasPrefix("\(w):2: ") == true, "\(p.warnings)")
            #expect(p.suggest("so hel", limit: 1) == ["hello"], "the other words keep their weights")
        } else {
            #expect(p.warnings.isEmpty)
            #expect(p.suggest("so b", limit: 1) == ["big"])
        }
    }

    @Test func nGramLogsBelowTheARPANeverAreBadLines() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let w = dir.appendingPathComponent("w.txt"), g = dir.appendingPathComponent("g.txt")
        try "the 10\ncat 5\ndog 5\n".write(to: w, atomically: true, encoding: .utf8)
        try "the cat -1e300\nthe dog -0.1\nthe the -99\n".write(to: g, atomically: true, encoding: .utf8)
        let p = try WordPredictor.load(wordList: w, ngrams: g, userFile: nil)
        #expect(p.warnings.map(\.description) == ["\(g.path):1: expected 'w1 w2 log10P' or 'w1 w2 w3 log10P', log10P from -99 to 0"])
        #expect(p.ngramCounts.bigrams == 2)
    }

    /// A 50 MB word in the user's file was printed whole by `predict`; it is named by its length.
    @Test func aHugeWordIsNamedNotPrinted() throws {
        let huge = String(repeating: "w", count: 5_000_000)
        let (p, u, dir) = try load(user: "word\t\(huge)\t3\nword\tEve\t2\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        let message = p.warnings.map(\.description).joined()
        #expect(message.count < 300, "\(message.prefix(300))")
        #expect(message.hasPrefix("\(u.path):1: 'wwww"), "\(message.prefix(300))")
        #expect(message.contains("(5000000 characters)' is not a word"), "\(message.prefix(300))")
        #expect(p.learnedWords == ["eve": 2])
    }

    @Test func countsParseOnlyWholeNumbersInRange() {
        #expect(Counts.parse("0") == .value(0))
        #expect(Counts.parse("0000000000000000000000042") == .value(42))
        #expect(Counts.parse("1000000000000") == .value(Counts.limit))
        #expect(Counts.parse("1000000000001") == .outOfRange)
        #expect(Counts.parse("9223372036854775808") == .outOfRange)
        for s in ["", "-1", "+1", "1.5", "1e3", "x", "１２"] { #expect(Counts.parse(s) == .notANumber, "\(s)") }
        #expect(Counts.adding(Counts.limit - 1, 5) == Counts.limit)
        #expect(Counts.sum(Int.max, 1) == Int.max && Counts.sum(Int.min, -1) == Int.min)
    }
}
