import Foundation
@testable import Localization
import Testing
@testable import Prediction

/// A prediction file's problems (what `handsfree words`, `ksr` and `expand` print as warnings, and the shell's
/// status line shows) read in the user's language, the file and line named as they are.
@Suite struct PredictionMessagesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func catalog(_ lang: String) throws -> Catalog {
        let path = root.appendingPathComponent("po/\(lang).po").path
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        return Catalog(language: lang, entries: po.entries, file: path, problems: po.problems)
    }

    @Test(arguments: ["de", "es", "fr", "it", "nl", "pt"])
    func aUserWordsFilesProblemsReadInTheLanguage(_ lang: String) throws {
        let text = Array("word\tok\t3\nword\tbad word\t1\npair\ta\nfoo\tx\nword\tx\tzz\n".utf8) + [0xFF, 0x0A]
        var warnings: [PredictionError] = []
        _ = UserWords.parse(text, path: "/u.txt", warnings: &warnings)
        #expect(warnings.count == 5, "\(warnings)")
        let catalog = try Self.catalog(lang)
        for w in warnings + [.cannotRead(path: "/u.txt", reason: UIMessage("no such file")),
                             .damagedCache(path: "/u.bin", reason: UIMessage("cut short"))] {
            let shown = w.message.text(catalog)
            #expect(shown != w.description, "\(lang): \(shown)")
            #expect(shown.hasPrefix("/u."), "\(lang): \(shown)")
        }
        // What the compiled file's own check found is in the language too, not only the sentence around it.
        let damaged = PredictionError.damagedPhraseCache(path: "/c.bin", reason: UIMessage("checksum does not match (cut short or overwritten)"))
        let shown = damaged.message.text(catalog)
        #expect(!shown.contains("checksum does not match") && !shown.contains("cut short"), "\(lang): \(shown)")
    }
}
