import Foundation
import Testing
@testable import Localization

/// The `.po` reader on every construct the project's catalogs use, the `.mo` reader on what the real
/// msgfmt writes, and the catalog made of either.
@Suite struct POFileTests {
    @Test func readsEveryConstruct() throws {
        let po = POFile.parse(try Support.text("sample.po"), file: "sample.po")
        #expect(po.problems.isEmpty, "\(po.problems)")
        let byID = Dictionary(po.entries.map { (($0.context ?? "") + "|" + $0.msgid, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID["|Home"]?.translations == ["Inicio"])
        #expect(byID["|Home"]?.line == 14)
        #expect(byID["tile|Notes"]?.translations == ["Notas"])
        #expect(byID["|Notes"]?.translations == ["Apuntes"])
        #expect(byID["|Saved {name}"]?.flags == ["python-brace-format"])
        let plural = try #require(byID["|{n} word"])
        #expect(plural.msgidPlural == "{n} words")
        #expect(plural.translations == ["{n} palabra", "{n} palabras"])
        #expect(byID["|A long message that goes over several lines\nand has a line break."]?.translations
                == ["Un mensaje largo que ocupa varias líneas\ny tiene un salto de línea."])
        #expect(byID["|Escapes: \"quoted\" \\ tab\there AB"]?.translations == ["Escapes: «citado» \\ tab\taquí AB"])
        #expect(byID["|Settings"]?.flags == ["fuzzy"])
        #expect(byID["|Obsolete"] == nil)
        #expect(byID["|Last"]?.translations == ["Último"])
    }

    @Test func catalogLeavesOutFuzzyAndUntranslated() throws {
        let po = POFile.parse(try Support.text("sample.po"), file: "sample.po")
        let c = Catalog(language: "es", entries: po.entries, file: "sample.po")
        #expect(c.problems.isEmpty)
        #expect(c.tr("Home") == "Inicio")
        #expect(c.tr("Notes") == "Apuntes")
        #expect(c.tr("Notes", context: "tile") == "Notas")
        #expect(c.tr("Settings") == "Settings")
        #expect(c.tr("Untranslated") == "Untranslated")
        #expect(c.tr("Saved {name}", ["name": "la nota"]) == "la nota guardada")
        #expect(c.trn("{n} word", "{n} words", 1) == "1 palabra")
        #expect(c.trn("{n} word", "{n} words", 0) == "0 palabras")
        #expect(c.trn("{n} word", "{n} words", 7) == "7 palabras")
        #expect(c.count == 8)
    }

    @Test func syntaxErrorsAreNamedByLineAndTheRestIsRead() throws {
        let po = POFile.parse(try Support.text("bad-syntax.po"), file: "bad-syntax.po")
        #expect(po.problems.map(\.description) == [
            "bad-syntax.po:8: a string without its closing quote",
            "bad-syntax.po:11: unknown escape \\q",
            "bad-syntax.po:14: unknown keyword \"msgstrx\"",
        ])
        #expect(po.entries.filter { !$0.isHeader }.map(\.msgid) == ["Good", "Fine again"])
    }

    @Test func aFileThatIsNotUTF8IsRefusedNamingItsLine() {
        let bytes = Array("msgid \"a\"\nmsgstr \"b\"\nmsgid \"c\"\nmsgstr \"".utf8) + [0xE9, 0x22, 0x0A]
        let po = POFile.parse(bytes: bytes, file: "latin1.po")
        #expect(po.entries.isEmpty)
        #expect(po.problems.map(\.description) == ["latin1.po:4: not UTF-8 text; the catalog is not used"])
    }

    @Test func strangeInputNeverCrashes() {
        for text in ["", "\"", "msgid", "msgid \"", "msgstr[99] \"x\"", "msgid \"a\"\nmsgstr[1] \"b\"", "#~", "#, fuzzy",
                     "msgid \"a\" trailing", "msgid \"\\x\"", "msgid \"\\777\"", String(repeating: "\"x\"\n", count: 1000)] {
            let po = POFile.parse(text, file: "x.po")
            _ = Catalog(language: "xx", entries: po.entries, file: "x.po", problems: po.problems)
        }
    }
}

@Suite struct MOFileTests {
    /// The sample compiled by msgfmt with its hash table, without it, and big-endian: each reads back to the
    /// same entries as the `.po` file, fuzzy and untranslated ones left out as msgfmt leaves them out.
    @Test(.enabled(if: Support.haveMsgfmt, "msgfmt is not installed (Debian package gettext)"),
          arguments: [[String](), ["--no-hash"], ["--endianness=big"], ["--endianness=big", "--no-hash"]])
    func readsWhatMsgfmtWrites(options: [String]) throws {
        let bytes = try Support.compile(Support.fixture("sample.po"), options)
        if options.contains("--endianness=big") { #expect(Array(bytes.prefix(4)) == [0x95, 0x04, 0x12, 0xde]) }
        let mo = try MOFile.parse(bytes)
        #expect(mo.skipped.isEmpty)
        let fromMO = Catalog(language: "es", entries: mo.entries, file: "sample.mo")
        let po = POFile.parse(try Support.text("sample.po"), file: "sample.po")
        let fromPO = Catalog(language: "es", entries: po.entries, file: "sample.po")
        #expect(fromMO.problems.isEmpty)
        #expect(fromMO == fromPO)
        #expect(fromMO.tr("Notes", context: "tile") == "Notas")
        #expect(fromMO.trn("{n} word", "{n} words", 2) == "2 palabras")
        #expect(fromMO.plural.source == "(n != 1)")
    }

    @Test(.enabled(if: Support.haveMsgfmt, "msgfmt is not installed (Debian package gettext)"))
    func aCatalogOfThousandsOfStringsReadsWhole() throws {
        var text = "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"
        for i in 0..<3000 { text += "msgid \"message \(i)\"\nmsgstr \"mensaje \(i) ñ\"\n\n" }
        let dir = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let po = dir.appendingPathComponent("big.po")
        try text.write(to: po, atomically: true, encoding: .utf8)
        let c = Catalog(language: "es", entries: try MOFile.parse(try Support.compile(po)).entries, file: "big.mo")
        #expect(c.count == 3000)
        #expect(c.tr("message 2999") == "mensaje 2999 ñ")
    }

    @Test func damagedFilesAreRefusedWithTheirReason() throws {
        #expect(throws: MOFile.Damaged.self) { try MOFile.parse([]) }
        #expect(throws: MOFile.Damaged(reason: "not a .mo file (no magic number 0x950412de)")) {
            try MOFile.parse(Array("msgid \"\"\nmsgstr \"\"\n# a .po file given where a .mo file was expected\n".utf8))
        }
        // A header claiming a billion strings in a 28-byte file.
        var header: [UInt8] = [0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0, 0, 0xca, 0x9a, 0x3b, 28, 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(throws: MOFile.Damaged.self) { try MOFile.parse(header) }
        // One string whose offset lies past the end.
        header[8] = 1; header[9] = 0; header[10] = 0; header[11] = 0
        header += [5, 0, 0, 0, 0xff, 0xff, 0, 0, 5, 0, 0, 0, 0xff, 0xff, 0, 0]
        #expect(throws: MOFile.Damaged(reason: "string 0 lies past the end of the file")) { try MOFile.parse(header) }
    }

    @Test(.enabled(if: Support.haveMsgfmt, "msgfmt is not installed (Debian package gettext)"))
    func everyTruncationOfARealFileIsRefusedOrReadNeverCrashes() throws {
        let bytes = try Support.compile(Support.fixture("sample.po"))
        for n in 0..<bytes.count { _ = try? MOFile.parse(Array(bytes.prefix(n))) }
        var flipped = bytes
        for i in stride(from: 4, to: bytes.count, by: 3) {
            flipped[i] ^= 0xff
            _ = try? MOFile.parse(flipped)
            flipped[i] ^= 0xff
        }
    }
}

/// A translation whose placeholders differ from its msgid's is refused for that string only, named by
/// `file:line`, and the English text is shown instead; msgfmt --check-format refuses the same lines.
@Suite struct PlaceholderTests {
    @Test func refusedStringsAreNamedAndShownInEnglish() throws {
        let po = POFile.parse(try Support.text("broken-placeholders.po"), file: "po/fr.po")
        let c = Catalog(language: "fr", entries: po.entries, file: "po/fr.po", problems: po.problems)
        #expect(c.problems.map(\.description) == [
            "po/fr.po:10: the translation lacks {name} and has {nom} that the original has not (its msgid: \"Saved {name}\"); shown in English",
            "po/fr.po:14: the translation lacks {folder} (its msgid: \"Copied {file} to {folder}\"); shown in English",
            "po/fr.po:17: the translation has {x} that the original has not (its msgid: \"Help\"); shown in English",
            "po/fr.po:23: msgstr[1]: the translation has {owner} that the original has not (its msgid_plural: \"{n} files\"); shown in English",
            "po/fr.po:27: the translation has a brace that opens no placeholder ({{ and }} are literal braces) (its msgid: \"Open {name}\"); shown in English",
        ])
        #expect(c.tr("Saved {name}", ["name": "x"]) == "Saved x")
        #expect(c.tr("Copied {file} to {folder}", ["file": "a", "folder": "b"]) == "Copied a to b")
        #expect(c.tr("Help") == "Help")
        #expect(c.trn("{n} file", "{n} files", 3) == "3 files")
        #expect(c.tr("Open {name}", ["name": "n"]) == "Open n")
        // The others in the same file are used: a reordered translation, and a form that leaves out {n}.
        #expect(c.tr("Quit") == "Quitter")
        #expect(c.tr("Moved {file} to {folder}", ["file": "a.txt", "folder": "Documents"]) == "Documents reçoit a.txt")
        #expect(c.trn("{n} note", "{n} notes", 1) == "une note")
        #expect(c.trn("{n} note", "{n} notes", 0) == "une note")
        #expect(c.trn("{n} note", "{n} notes", 2) == "2 notes")
    }

    @Test(.enabled(if: Support.haveMsgfmt, "msgfmt is not installed (Debian package gettext)"))
    func msgfmtRefusesTheSameFlaggedLines() throws {
        // --check, as install.sh compiles: plural forms are checked only with the header checked too.
        let r = try Support.run(Support.msgfmt, ["--check", "-o", "/dev/null", Support.fixture("broken-placeholders.po").path])
        #expect(r.status != 0)
        let lines = r.output.split(separator: "\n").compactMap { l -> Int? in
            let parts = l.split(separator: ":")
            return parts.count > 2 && parts[0].hasSuffix("broken-placeholders.po") && !l.contains("warning") ? Int(parts[1]) : nil
        }
        // Help (line 17) has no python-brace-format flag, so msgfmt does not check it; this loader does. For a
        // plural entry msgfmt names its first msgstr (22), this loader the form at fault (msgstr[1], 23).
        #expect(lines == [10, 14, 22, 27], "\(r.output)")
    }

    @Test func fillingAndChecking() throws {
        #expect(Placeholders.fill("Saved {name} in {folder}", ["name": "a", "folder": "b"]) == "Saved a in b")
        #expect(Placeholders.fill("{{literal}} {x}", ["x": "1"]) == "{literal} 1")
        #expect(Placeholders.fill("{missing} stays", [:]) == "{missing} stays")
        #expect(Placeholders.fill("a lone { brace", ["x": "1"]) == "a lone { brace")
        #expect(try Placeholders.names(in: "{a} {b_2} {a}") == ["a", "b_2", "a"])
        #expect(throws: Placeholders.Malformed.self) { try Placeholders.names(in: "{1x}") }
        #expect(throws: Placeholders.Malformed.self) { try Placeholders.names(in: "}") }
        #expect(Placeholders.mismatch(original: "{a} {b}", translation: "{b} {a}") == nil)
        #expect(Placeholders.mismatch(original: "{n} files", translation: "one file", mayDrop: ["n"]) == nil)
    }
}
