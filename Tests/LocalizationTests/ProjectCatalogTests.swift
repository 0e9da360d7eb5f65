import Foundation
import Testing
@testable import Localization

/// The project's own catalogs: `po/handsfree.pot` up to date with the sources, and every `po/LL.po` of
/// `po/LINGUAS` complete, accepted by `msgfmt --check` and read without a problem, as `.po` and as `.mo`.
@Suite struct ProjectCatalogTests {
    static let po = Support.root.appendingPathComponent("po")
    static let script = Support.root.appendingPathComponent("scripts/extract-messages.py").path

    static var languages: [String] {
        let text = (try? String(contentsOf: po.appendingPathComponent("LINGUAS"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").flatMap { ($0.split(separator: "#", omittingEmptySubsequences: false).first ?? "").split(separator: " ") }
            .map(String.init)
    }

    static func catalog(_ lang: String) throws -> (POFile, Catalog) {
        let path = po.appendingPathComponent("\(lang).po").path
        let file = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        return (file, Catalog(language: lang, entries: file.entries, file: path, problems: file.problems))
    }

    /// The template's messages: (context, msgid, plural).
    static func template() throws -> [CatalogEntry] {
        let path = po.appendingPathComponent("handsfree.pot").path
        let pot = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        #expect(pot.problems.isEmpty, "\(pot.problems)")
        return pot.entries.filter { !$0.isHeader }
    }

    @Test func theFiveLanguagesAreListed() {
        #expect(Set(Self.languages).isSuperset(of: ["de", "es", "fr", "it", "pt"]), "\(Self.languages)")
    }

    /// A message written in the sources and not in the template (or the other way round) fails here, naming
    /// it; so does a message the extraction refuses (interpolation, a broken brace), with its file:line.
    @Test(.enabled(if: Support.havePython, "python3 is not installed"))
    func templateIsUpToDateWithTheSources() throws {
        let r = try Support.run(Support.python, [Self.script, "--check"])
        #expect(r.status == 0, "\(r.output)")
    }

    @Test(.enabled(if: Support.havePython, "python3 is not installed"))
    func theExtractionRefusesInterpolationAndBrokenBracesNamingTheLine() throws {
        let tree = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: tree) }
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        let source = #"""
        let a = ctx.tr("Saved {name}", ["name": n])
        // ctx.tr("a comment is not a message \(x)")
        let b = ctx.tr("Hello \(name)")
        let c = ctx.tr(label)
        let d = trn("{n} word", "{n} words", count)
        let e = UIMessage("Open {name", ["name": x])
        let f = ctx.tr("a" + b)
        let g = N_("Notes")
        let h = tr("Notes", context: "tile")
        let i = UIMessage.plural("{n} file", "{n} files in {folder}", 2)
        """#
        try source.write(to: tree.appendingPathComponent("Sources/App/Screen.swift"), atomically: true, encoding: .utf8)
        let refused = try Support.run(Support.python, [Self.script, "--root", tree.path])
        #expect(refused.status == 1)
        #expect(refused.output.contains("Sources/App/Screen.swift:3: interpolation \\( in a msgid \"Hello \\(…)\""), "\(refused.output)")
        #expect(refused.output.contains("Sources/App/Screen.swift:6: a brace that opens no {name} placeholder in \"Open {name\""), "\(refused.output)")
        #expect(refused.output.contains("Sources/App/Screen.swift:7: a msgid must be one string literal"), "\(refused.output)")
        #expect(refused.output.contains("Sources/App/Screen.swift:10: the plural \"{n} files in {folder}\" has placeholders the singular has not: folder"),
                "\(refused.output)")
        #expect(!refused.output.contains(":2:"), "a comment is not a message")
        #expect(!FileManager.default.fileExists(atPath: tree.appendingPathComponent("po/handsfree.pot").path), "nothing is written")

        // Without the refused lines, the template holds the rest, with references and the format flag.
        let fine = source.split(separator: "\n").enumerated().filter { ![2, 5, 6, 9].contains($0.offset) }.map(\.element).joined(separator: "\n")
        try fine.write(to: tree.appendingPathComponent("Sources/App/Screen.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("po"), withIntermediateDirectories: true)
        let written = try Support.run(Support.python, [Self.script, "--root", tree.path])
        #expect(written.status == 0, "\(written.output)")
        let pot = POFile.parse(try String(contentsOf: tree.appendingPathComponent("po/handsfree.pot"), encoding: .utf8), file: "pot")
        let entries = pot.entries.filter { !$0.isHeader }
        #expect(entries.map(\.msgid) == ["Saved {name}", "{n} word", "Notes", "Notes"])
        #expect(entries[0].flags == ["python-brace-format"])
        #expect(entries[1].msgidPlural == "{n} words")
        #expect(entries[3].context == "tile")
        let check = try Support.run(Support.python, [Self.script, "--root", tree.path, "--check"])
        #expect(check.status == 0, "\(check.output)")
        // A message added to the sources is one the template lacks.
        try (fine + "\nlet j = ctx.tr(\"New message\")\n").write(to: tree.appendingPathComponent("Sources/App/Screen.swift"), atomically: true, encoding: .utf8)
        let stale = try Support.run(Support.python, [Self.script, "--root", tree.path, "--check"])
        #expect(stale.status == 1 && stale.output.contains("lacks \"New message\""), "\(stale.output)")
    }

    /// Every language translates every message of the template: a message shown on a screen is never left
    /// in English in a language the shell ships.
    @Test(arguments: languages)
    func everyCatalogIsCompleteAndReadsWithoutAProblem(_ lang: String) throws {
        let (file, catalog) = try Self.catalog(lang)
        #expect(catalog.problems.isEmpty, "\(catalog.problems)")
        #expect(!file.entries.contains { $0.isFuzzy && !$0.isHeader }, "fuzzy entries in po/\(lang).po")
        for e in try Self.template() {
            #expect(catalog.translation(e.msgid, context: e.context) != nil, "po/\(lang).po does not translate \"\(e.msgid)\"")
        }
    }

    @Test(.enabled(if: Support.haveMsgfmt, "msgfmt is not installed (Debian package gettext)"), arguments: languages)
    func msgfmtAcceptsEveryCatalogAndItsMoReadsTheSame(_ lang: String) throws {
        let path = Self.po.appendingPathComponent("\(lang).po")
        let check = try Support.run(Support.msgfmt, ["--check", "-o", "/dev/null", path.path])
        #expect(check.status == 0, "\(check.output)")
        let mo = Catalog(language: lang, entries: try MOFile.parse(try Support.compile(path, ["--check"])).entries, file: "\(lang).mo")
        #expect(mo == (try Self.catalog(lang)).1)
    }
}
