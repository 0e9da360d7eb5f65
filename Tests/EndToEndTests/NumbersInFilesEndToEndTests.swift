#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 49's numbers in the user's files, given to the built binary: counts that overflowed and trapped `run`
/// at every start, `predict`, `words`, `stats`, and the shell when a phrase was said. Each out-of-range line
/// is named with its file and line, kept aside, and the rest is used.
@Suite(.serialized) struct NumbersInFilesEndToEndTests {
    typealias E = AppsE2E
    typealias H = HostileFilesEndToEndTests

    /// A learned-words file as the probe wrote it: a count at Int.max on the first line, good words after.
    static let userWords = "word\tZoe\t9223372036854775807\npair\t<s>\tzoe\t9223372036854775807\nword\tAnnabel\t5\n"

    @Test(.enabled(if: H.built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func predictAndWordsNameTheLineAndUseTheRest() throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let file = d + "/user-words.txt"
        try Self.userWords.write(toFile: file, atomically: true, encoding: .utf8)
        let predict = try H.run([H.binary, "predict", "--user-file", file, "--ngrams", "none", "so Anna"])
        #expect(predict.status == 0, "\(predict.err)")
        #expect(predict.err.contains("\(file):1: count 9223372036854775807 is out of range (at most 1000000000000)"), "\(predict.err)")
        #expect(predict.err.contains("\(file):2: count 9223372036854775807 is out of range"), "\(predict.err)")
        #expect(predict.err.contains("Annabel"), "the good line is used: \(predict.err)")
        let list = try H.run([H.binary, "words", "list", "--user-file", file])
        #expect(list.status == 0, "\(list.err)")
        #expect(list.err.contains("\(file):1: count 9223372036854775807 is out of range"), "\(list.err)")
        #expect(list.err.contains("5\tAnnabel"), "\(list.err)")
        // Adding a word saves: the damaged file is kept aside first, byte for byte.
        let add = try H.run([H.binary, "words", "add", "Zoë", "--user-file", file])
        #expect(add.status == 0, "\(add.err)")
        #expect(add.err.contains("Damaged learned words file kept as user-words.txt.corrupt-1: 2 lines could not be read"), "\(add.err)")
        #expect(try String(contentsOfFile: file + ".corrupt-1", encoding: .utf8) == Self.userWords)
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.contains("word\tAnnabel\t5\n") && saved.contains("added\tZoë\n"), "\(saved)")
    }

    /// `run` trapped at every start on such a file; now it starts, keeps the file aside and says so.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func runStartsWithALearnedCountPastTheLimit() throws {
        let env = E.TempHome("numbers-words")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        try Self.userWords.write(toFile: env.data + "/user-words.txt", atomically: true, encoding: .utf8)
        let shell = try StorageInTmuxTests.Shell("numbers-words", env)
        defer { shell.tmux.kill() }
        #expect(shell.waitFor(seconds: 20) { $0.first?.contains("HandsFree │ Home") == true }, "\(shell.tmux.screen)")
        // The problem is shown with the next save round (every 10 s).
        #expect(shell.waitFor(seconds: 30) { $0.contains { $0.contains("Damaged learned words file kept as user-words.txt.corr") } },
                "\(shell.tmux.screen)")
        #expect(try String(contentsOfFile: env.data + "/user-words.txt.corrupt-1", encoding: .utf8) == Self.userWords)
        let saved = try String(contentsOfFile: env.data + "/user-words.txt", encoding: .utf8)
        #expect(saved.contains("word\tAnnabel\t5\n") && !saved.contains("Zoe"), "\(saved)")
        #expect(shell.pid.map { kill($0, 0) == 0 } == true, "still running")
    }

    /// A phrase said 9223372036854775807 times trapped the shell when said once more. Its line is kept aside
    /// and named; a phrase at the limit is said, stays at the limit, and the shell runs on.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aPhraseSaidTooOftenIsKeptAsideAndOneAtTheLimitIsSaid() throws {
        let env = E.TempHome("numbers-phrases")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let original = "handsfree-phrases 1\nphrase\tgreetings\t9223372036854775807\tHello!\nphrase\tgreetings\t1000000000000\tGood morning.\n"
        try original.write(toFile: env.data + "/phrases.txt", atomically: true, encoding: .utf8)
        let shell = try StorageInTmuxTests.Shell("numbers-phrases", env)
        defer { shell.tmux.kill() }
        #expect(shell.waitFor(seconds: 20) { $0.first?.contains("HandsFree │ Home") == true }, "\(shell.tmux.screen)")
        // The Phrases tile is the launcher's eighth target.
        for _ in 0..<8 { shell.tmux.keys("Tab") }
        shell.tmux.keys("Enter")
        #expect(shell.waitFor { $0.first?.contains("Home › Phrases") == true }, "\(shell.tmux.screen)")
        // The banner is one row: at 100 columns it shows the place; the reason follows it (PhraseBoardTests).
        #expect(shell.waitFor { $0.contains { $0.contains("Damaged file phrases.txt kept as phrases.txt.corrupt-1: 1 line could not be read (phrases.txt:2:") } },
                "\(shell.tmux.screen)")
        // Four group tabs, then the first greeting: Good morning.
        for _ in 0..<5 { shell.tmux.keys("Tab") }
        shell.tmux.keys("Enter")
        #expect(shell.waitFor { _ in
            (try? String(contentsOfFile: env.data + "/phrases.txt", encoding: .utf8))?.contains("phrase\tgreetings\t1000000000000\tGood morning.\n") == true
        })
        #expect(shell.tmux.capture().first?.contains("Home › Phrases") == true, "\(shell.tmux.screen)")
        // It runs on: it answers the next key.
        shell.tmux.keys("Escape")
        #expect(shell.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "still running:\n\(shell.tmux.screen)")
        #expect(shell.pid.map { kill($0, 0) == 0 } == true, "still running:\n\(shell.tmux.screen)")
        #expect(try String(contentsOfFile: env.data + "/phrases.txt.corrupt-1", encoding: .utf8) == original)
    }

    /// Counts of Int.max in `metrics.ndjson` trapped `stats` summing them; the record is skipped, named by its
    /// line, and the others are summarised.
    @Test(.enabled(if: H.built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func statsSkipsARecordWithCountsPastTheLimit() throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        func record(characters: Int, errors: Int) -> String {
            """
            {"actions":1,"actionsNearFaceLoss":0,"activations":1,"characters":\(characters),"charactersTyped":\(characters),\
            "corrections":0,"correctionsAfterDictation":0,"date":"2025-01-01T00:00:00Z","dictatedWords":0,\
            "dwell":{"count":0,"max":0,"mean":0},"duration":60,"errors":\(errors),"faceLosses":0,\
            "gestures":{"activate":{"count":1,"meanHold":0.3}},"keystrokes":\(characters),"kind":"run","selections":0,\
            "source":"keyboard","undoneActivations":0,"wpm":10}
            """
        }
        let lines = [record(characters: 50, errors: 1), record(characters: 9_223_372_036_854_775_807, errors: 9_223_372_036_854_775_807),
                     record(characters: 9_223_372_036_854_775_807, errors: 2), record(characters: 70, errors: 3)]
        try (lines.joined(separator: "\n") + "\n").write(toFile: d + "/metrics.ndjson", atomically: true, encoding: .utf8)
        let (status, out) = try H.run([H.binary, "stats", "--data-dir", d])
        #expect(status == 0, "\(out)")
        #expect(out.contains("\(d)/metrics.ndjson:2: skipped, characters = 9223372036854775807 is out of range (0 to 1000000000000)"), "\(out)")
        #expect(out.contains("\(d)/metrics.ndjson:3: skipped, characters = 9223372036854775807 is out of range"), "\(out)")
        #expect(out.contains("2 sessions (2 run)"), "\(out)")
        #expect(out.contains("Written: 120 characters, 120 of them typed"), "\(out)")
    }
}
