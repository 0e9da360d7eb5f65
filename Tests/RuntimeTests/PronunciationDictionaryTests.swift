import Foundation
import Runtime
import Testing

/// Keymap phrases are checked against PocketSphinx's dictionary: a word is known when a line starts with it.
@Suite struct PronunciationDictionaryTests {
    static let realPath = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

    /// What `contains` means, said the slow way: some line is the word, then a space, a tab or `(`.
    static func reference(_ text: String, _ word: String) -> Bool {
        let w = word.lowercased()
        guard !w.isEmpty, !w.contains(where: { $0 == "\n" || $0 == " " || $0 == "\t" }) else { return false }
        return text.split(separator: "\n", omittingEmptySubsequences: false).contains { line in
            guard line.hasPrefix(w), let next = line.dropFirst(w.count).first else { return false }
            return next == " " || next == "\t" || next == "("
        }
    }

    @Test func aWordIsKnownOnlyAsAWholeFirstColumn() {
        let text = "'bout B AW T\nactivate AE K T\nactivate(2) AE K T IH\nactivated AE K\nback\tB AE K\nzulu Z UW L UW"
        let d = PronunciationDictionary(bytes: Array(text.utf8))
        for w in ["'bout", "activate", "ACTIVATE", "Activated", "back", "zulu"] { #expect(d.contains(w), "\(w)") }
        // A prefix, a longer word, a phone, an alternative's spelling, a line's middle, and words that cannot be one.
        for w in ["activat", "activates", "b", "AE", "aw", "", " ", "back zulu", "ba\nck", "zul"] {
            #expect(!d.contains(w), "\(w)")
        }
        // The last line without its phones is no entry.
        #expect(!PronunciationDictionary(bytes: Array("go G OW\nstop".utf8)).contains("stop"))
        #expect(PronunciationDictionary(bytes: Array("go G OW\nstop S".utf8)).contains("stop"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: realPath), "needs pocketsphinx-en-us"))
    func theInstalledDictionaryAgreesWithTheSlowReading() throws {
        let d = try #require(PronunciationDictionary.load(path: Self.realPath))
        let text = try String(contentsOfFile: Self.realPath, encoding: .utf8)
        let words = text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(words.count > 130_000)
        // Every 211th entry is found as it is spelt, or in capitals without its alternative marker.
        for (k, w) in words.enumerated() where k % 211 == 0 {
            let bare = w.split(separator: "(").first.map(String.init) ?? w
            #expect(d.contains(bare.uppercased()), "\(w)")
        }
        // Cut and lengthened words, and words of the default keymap, agree with each line's first column
        // read as a set (the whole file split into lines is the same reading as `reference`, at scale).
        let firstColumns = Set(text.split(separator: "\n").map { line in
            String(line.prefix { $0 != " " && $0 != "\t" && $0 != "(" })
        })
        var probes = ["shell", "activate", "terminal", "leave", "page", "qzx", "control", "enter", "a", "i"]
        for (k, w) in words.enumerated() where k % 97 == 0 { probes += [String(w.dropLast()), w + "s", w + "x"] }
        for w in probes { #expect(d.contains(w) == firstColumns.contains(w.lowercased()), "\(w)") }
        #expect(probes.filter { d.contains($0) }.count > 300, "some probes are words")
    }
}
