import Config
import FrameFormats
import Foundation
import Localization
@testable import LiveServices
@testable import Runtime
import Shell
import Terminal
import TerminalModel
import Testing
import TrackingCore

/// Where the translations are found (a source tree's `po/`, an installed prefix's `share/locale`, a pack
/// folder), the language a run starts in, and the catalogs loaded when the setting changes.
@Suite struct TranslationsTests {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let msgfmt = "/usr/bin/msgfmt"
    static var haveMsgfmt: Bool { FileManager.default.isExecutableFile(atPath: msgfmt) }

    /// A data folder in a temporary directory: `keymaps/` and `config/`, with `po/` as a source tree has it.
    final class Tree {
        let base: URL
        let data: URL
        init(installed: Bool = false) throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("hf-translations-\(UUID().uuidString)")
            data = installed ? base.appendingPathComponent("share/handsfree") : base
            for d in ["keymaps", "config"] {
                try FileManager.default.createDirectory(at: data.appendingPathComponent(d), withIntermediateDirectories: true)
            }
        }
        func write(_ text: String, _ path: String) throws {
            let u = data.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: u, atomically: true, encoding: .utf8)
        }
        func copyShipped(_ lang: String) throws {
            try write(try String(contentsOf: TranslationsTests.root.appendingPathComponent("po/\(lang).po"), encoding: .utf8), "po/\(lang).po")
        }
        deinit { try? FileManager.default.removeItem(at: base) }
    }

    @Test func aSourceTreeReadsThePoFilesItsLINGUASLists() throws {
        let t = try Tree()
        try t.write("# comment\nes fr # de is not listed\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.copyShipped("fr")
        try t.copyShipped("de")
        #expect(Translations.installed(root: t.data).map(\.code) == ["es", "fr"])
        let start = try Translations.start(commandLine: nil, setting: "auto", environment: ["LANG": "es_ES.UTF-8"], root: t.data)
        #expect(start.choice == LanguageChoice(language: "es", source: .environment("LANG")))
        #expect(start.catalog.tr("Home") == "Inicio")
        #expect(start.notice == nil)
        // The setting beats the environment; --language beats both.
        #expect(try Translations.start(commandLine: nil, setting: "fr", environment: ["LANG": "es_ES.UTF-8"], root: t.data).catalog.tr("Home") == "Accueil")
        #expect(try Translations.start(commandLine: "en", setting: "fr", environment: [:], root: t.data).catalog == .english)
    }

    @Test func anUnknownCodeOnTheCommandLineListsTheLanguagesAndOneInTheEnvironmentIsSaidOnce() throws {
        let t = try Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        #expect(throws: UnknownLanguage(asked: "xx", installed: ["es"])) {
            try Translations.start(commandLine: "xx", setting: "auto", environment: [:], root: t.data)
        }
        let ja = try Translations.start(commandLine: nil, setting: "auto", environment: ["LANG": "ja_JP.UTF-8"], root: t.data)
        #expect(ja.catalog == .english)
        #expect(ja.notice?.english == "No language pack for ja_JP: the shell is in English (installed: en, es)")
    }

    /// A translation with a placeholder of its own is refused alone: the notice names its file:line, the rest
    /// of the catalog is used.
    @Test func aRefusedTranslationIsNamedByLineAndTheRestIsUsed() throws {
        let t = try Tree()
        try t.write("fr\n", "po/LINGUAS")
        let shipped = try String(contentsOf: Self.root.appendingPathComponent("po/fr.po"), encoding: .utf8)
        let broken = shipped.replacingOccurrences(of: "msgstr \"Paramètres non enregistrés\u{a0}: {reason}\"",
                                                  with: "msgstr \"Paramètres non enregistrés\u{a0}: {raison}\"")
        #expect(broken != shipped)
        try t.write(broken, "po/fr.po")
        let line = broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("{raison}") }.map { $0 + 1 }
        let start = try Translations.start(commandLine: "fr", setting: "auto", environment: [:], root: t.data)
        let file = t.data.appendingPathComponent("po/fr.po").path
        #expect(start.catalog.problems.map(\.description)
                == ["\(file):\(try #require(line)): the translation lacks {reason} and has {raison} that the original has not (its msgid: \"Settings not saved: {reason}\"); shown in English"])
        #expect(start.notice?.english.hasPrefix("\(file):\(line ?? 0): the translation lacks {reason}") == true, "\(String(describing: start.notice))")
        #expect(start.catalog.tr("Settings not saved: {reason}", ["reason": "x"]) == "Settings not saved: x")
        #expect(start.catalog.tr("Home") == "Accueil")
    }

    /// An installed prefix: the `.mo` files install.sh compiles into `share/locale`, beside `share/handsfree`.
    @Test(.enabled(if: haveMsgfmt, "msgfmt is not installed (Debian package gettext)"))
    func anInstalledPrefixReadsTheMoFilesBesideItsData() throws {
        let t = try Tree(installed: true)
        let locale = t.base.appendingPathComponent("share/locale/de/LC_MESSAGES")
        try FileManager.default.createDirectory(at: locale, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.msgfmt)
        p.arguments = ["--check", "-o", locale.appendingPathComponent("handsfree.mo").path, Self.root.appendingPathComponent("po/de.po").path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        // Another program's catalog beside it is not a language of this shell.
        let other = t.base.appendingPathComponent("share/locale/it/LC_MESSAGES")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data().write(to: other.appendingPathComponent("gtk30.mo"))
        let installed = Translations.installed(root: t.data)
        #expect(installed.map(\.code) == ["de"])
        #expect(installed.first?.catalog?.pathExtension == "mo")
        let de = Translations.catalog("de", root: t.data)
        #expect(de.problems.isEmpty)
        #expect(de.tr("Notes") == "Notizen")
        #expect(de.trn("doctor: {n} problem to fix before the shell can run", "doctor: {n} problems to fix before the shell can run", 2)
                == "doctor: 2 Probleme sind zu beheben, bevor HandsFree Shell laufen kann")
    }

    @Test func aDamagedMoFileLeavesTheScreensInEnglishAndSaysWhy() throws {
        let t = try Tree(installed: true)
        let locale = t.base.appendingPathComponent("share/locale/es/LC_MESSAGES")
        try FileManager.default.createDirectory(at: locale, withIntermediateDirectories: true)
        try Data("not a catalog at all, just some text".utf8).write(to: locale.appendingPathComponent("handsfree.mo"))
        let start = try Translations.start(commandLine: "es", setting: "auto", environment: [:], root: t.data)
        #expect(start.catalog.tr("Home") == "Home")
        #expect(start.catalog.problems.map(\.message) == ["not a .mo file (no magic number 0x950412de); the screens stay in English"])
        #expect(start.notice != nil)
    }

    /// A pack folder alone (word data, no translations yet) makes the language installed; its pack's own
    /// name is shown beside the code, and whatever else the pack holds is left to the parts that read it.
    @Test func aPackFolderAloneInstallsTheLanguageInEnglish() throws {
        let t = try Tree()
        try t.write("code = \"nl\"\nname = \"Nederlands\"\n[words]\nlist = \"words-nl.txt\"\n[future_part]\nwhatever = 1\n", "languages/nl/pack.toml")
        let installed = Translations.installed(root: t.data)
        #expect(installed == [Translations.Language(code: "nl", name: "Nederlands", catalog: nil,
                                                    pack: t.data.appendingPathComponent("languages/nl/pack.toml"))])
        #expect(installed.first?.label == "nl (Nederlands)")
        let start = try Translations.start(commandLine: nil, setting: "auto", environment: ["LANG": "nl_NL.UTF-8"], root: t.data)
        #expect(start.choice.language == "nl" && start.catalog.tr("Home") == "Home" && start.notice == nil)
    }

    /// Settings › Language at run time: the loader answers with the catalog (read once, then kept), and a
    /// code without a pack gives English and says so.
    @Test func theLoaderAnswersASettingChangeAndKeepsWhatItRead() throws {
        let t = try Tree()
        try t.write("es it\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.copyShipped("it")
        let loader = LanguageLoader(root: t.data, environment: ["LANG": "it_IT.UTF-8"])
        guard case .languageLoaded(let es)? = loader.load("es").first else { Issue.record("no catalog"); return }
        #expect(es.tr("Home") == "Inicio")
        // Read once: switching back reads nothing (a file changed since is not read again).
        try t.write("msgid \"Home\"\nmsgstr \"Casa\"\n", "po/es.po")
        guard case .languageLoaded(let again)? = loader.load("es").first else { Issue.record("no catalog"); return }
        #expect(again == es)
        guard case .languageLoaded(let auto)? = loader.load("auto").first else { Issue.record("no catalog"); return }
        #expect(auto.language == "it")
        let missing = loader.load("nl")
        guard case .languageLoaded(let english)? = missing.first, case .message(let m?)? = missing.last else {
            Issue.record("\(missing)"); return
        }
        #expect(english == .english)
        #expect(m.english.hasPrefix("No language pack for nl"))
    }

    /// A screen that sets the language setting when activated, as Settings › Language will.
    struct LanguagePicker: Screen {
        let name = "language-picker"
        let title = N_("Settings")
        func render(_ c: inout Canvas, _ ctx: ScreenContext) { c.button("pick", "es", Rect(x: 2, y: 2, w: 20, h: 3)) }
        mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
            guard case .action(.activate, _, _) = input else { return .unhandled }
            var s = ctx.settings
            s.language = "es"
            return Reply(effects: [.settingsChanged(s)])
        }
    }

    /// A display with no terminal that keeps the title bar of each drawing.
    final class TitleDisplay: ShellDisplay {
        let size = Size(width: 100, height: 30)
        var keys: [TerminalInput]
        var titles: [String] = []
        init(keys: [TerminalInput]) { self.keys = keys }
        var inputFD: Int32 { -1 }
        func readInput() -> TerminalInput? { keys.isEmpty ? nil : keys.removeFirst() }
        func inputHungUp() -> Bool { false }
        func show(_ state: ShellState, performed: [ActionRecord]) {
            titles.append(String(render(state, size: size).0.text.prefix { $0 != "\n" }))
        }
        func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool { false }
        func stop() {}
    }

    /// The live loop: the setting changed by a key, the catalog read by the runtime and handed back as an
    /// event, the next drawing in Spanish, with no restart; the choice saved with the settings.
    @Test func theLiveLoopSwitchesLanguageWhenTheSettingChanges() throws {
        let t = try Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        // The tree (and the home in it) must outlive the run: its deinit removes the folder.
        try withExtendedLifetime(t) {
            // SIGINT, SIGTERM and SIGHUP reach every runtime of this process through one pipe: one sent to
            // the test process by anything else running beside this test ends the run before its key is
            // read. That is the runtime doing its job, not the switch failing, so such a run is made again.
            var attempt = 0
            while true {
                attempt += 1
                let home = t.base.appendingPathComponent("home-\(attempt)")
                let (display, r) = try Self.runLanguagePicker(data: t.data, home: home)
                if r.exitSignal != nil, attempt < 3 { continue }
                #expect(r.exitSignal == nil, "ended by signal \(r.exitSignal ?? 0) from outside, three times")
                #expect(display.titles.first?.contains("HandsFree │ Home › Settings") == true, "\(display.titles)")
                #expect(display.titles.last?.contains("HandsFree │ Inicio › Configuración") == true, "\(display.titles)")
                #expect(r.session.state.catalog.language == "es")
                let saved = try String(contentsOf: home.appendingPathComponent(".config/handsfree/settings.toml"), encoding: .utf8)
                #expect(saved.contains("language = \"es\""), "\(saved)")
                return
            }
        }
    }

    /// Runs the live loop on the test's language picker with Enter pressed once, data from `data`.
    static func runLanguagePicker(data: URL, home: URL) throws -> (TitleDisplay, ShellRuntime) {
        let gestures = GestureConfig.defaults()
        let km = try Setup.keymap("default", gestures: gestures.gestures)
        var state = ShellState(keymap: km, gestures: gestures.gestures)
        state.stack.append(LanguagePicker())
        state.relayout()
        state.focus.set("pick", at: 0)
        var r = ShellRuntime(session: Session(state: state, settings: gestures), feed: .replay(items: [.frame(TrackingFrame(t: 0), nil)], speed: 1, name: "t"),
                             exitAtEnd: true, paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        r.languages = LanguageLoader(root: data, environment: [:])
        let display = TitleDisplay(keys: [.key(.enter)])
        r.display = { display }
        try r.run()
        return (display, r)
    }
}
