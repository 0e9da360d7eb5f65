import Config
import Foundation
import Localization
import Shell
import Testing
import TrackingCore

/// The screens drawn with the catalog the state holds: the launcher's tiles, the title bar and a notice in the
/// language, switched by an event (no restart, nothing read while drawing), and the `language` setting.
@Suite struct LanguageTests {
    /// The shipped catalog of `lang` (`po/LL.po`), as the runtime reads it in a source tree.
    static func catalog(_ lang: String) throws -> Catalog {
        let path = Fixture.root + "/po/\(lang).po"
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let c = Catalog(language: lang, entries: po.entries, file: path, problems: po.problems)
        #expect(c.problems.isEmpty, "\(c.problems)")
        return c
    }

    static func screen(_ s: ShellState) -> String { render(s, size: s.size).0.text }

    @Test func theLauncherAndTheTitleBarAreInTheStatesLanguage() throws {
        let s = ShellState(keymap: Fixture.keymap("default"), catalog: try Self.catalog("es"))
        let text = Self.screen(s)
        for shown in ["HandsFree │ Inicio", "? ayuda · q salir", "Notas", "escribir y dictar", "Chat simulado", "nadie lo recibe",
                      "Configuración", "Escritorio", "Ayuda", "Frases"] {
            #expect(text.contains(shown), "\(shown) is not on the launcher:\n\(text)")
        }
        for english in ["Home", "write and dictate", "Practice chat", "Settings"] {
            #expect(!text.contains(english), "\(english) is still in English:\n\(text)")
        }
        // The tiles' labels are the targets' (what focus speaks and "open …" names).
        #expect(s.hitMap.target(id: "launcher.notes")?.label == "Notas")
    }

    static var languages: [String] {
        let text = (try? String(contentsOfFile: Fixture.root + "/po/LINGUAS", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").flatMap { ($0.split(separator: "#", omittingEmptySubsequences: false).first ?? "").split(separator: " ") }
            .map(String.init)
    }

    /// What is translated so far fits where the English fits: the launcher's tiles and every tile's screen
    /// in the title bar, at 80×24 and 100×30, with nothing cut ("…").
    @Test(arguments: languages)
    func nothingTranslatedIsCutAtEitherSize(_ lang: String) throws {
        let catalog = try Self.catalog(lang)
        for size in [Size(width: 80, height: 24), Size(width: 100, height: 30)] {
            var s = ShellState(keymap: Fixture.keymap("default"), size: size, catalog: catalog)
            #expect(!Self.screen(s).contains("…"), "\(lang) at \(size.width)×\(size.height):\n\(Self.screen(s))")
            for tile in ScreenRegistry.standard.tiles {
                _ = s.show(screen: tile.screen)
                let title = Self.screen(s).split(separator: "\n").first.map(String.init) ?? ""
                #expect(title.contains(catalog.tr(tile.tile.label)) && !title.contains("…"), "\(lang) \(tile.screen): \(title)")
                _ = s.show(screen: "launcher")
            }
        }
    }

    @Test func aScreenOpenedIsTitledInTheLanguage() throws {
        var s = ShellState(keymap: Fixture.keymap("default"), catalog: try Self.catalog("de"))
        let shown = s.show(screen: "notes")
        #expect(shown)
        #expect(Self.screen(s).split(separator: "\n").first?.contains("HandsFree │ Start › Notizen") == true, "\(Self.screen(s))")
        #expect(Self.screen(s).contains("? Hilfe · Esc zurück"))
        #expect(PlainView(s).screens == ["Start", "Notizen"])
    }

    /// A language loaded at run time relabels everything on the screen at once, the notice already showing
    /// too, and the targets are laid out again (the speech side is told the phrases changed).
    @Test func aLanguageSwitchRelabelsTheScreenAndTheNoticeOnIt() throws {
        var session = Session(state: Fixture.state(), settings: PipelineSettings(gestures: GestureDefaults.definitions))
        // A speech side listens: the phrases it is given change with the labels.
        _ = session.send(.speechStarted)
        _ = session.send(.message(UIMessage("Settings not saved: {reason}", ["reason": "disk full"])))
        var text = Self.screen(session.state)
        #expect(text.contains("HandsFree │ Home") && text.contains("Settings not saved: disk full"), "\(text)")
        let before = FrameLook(session.state)

        let effects = session.send(.languageLoaded(try Self.catalog("fr")))
        text = Self.screen(session.state)
        #expect(text.contains("HandsFree │ Accueil"), "\(text)")
        #expect(text.contains("Paramètres non enregistrés\u{a0}: disk full"), "\(text)")
        #expect(!before.matches(session.state), "the loop must draw again")
        #expect(session.state.voicePhrases.contains("open Paramètres"))
        #expect(effects.contains(.voicePhrasesChanged(session.state.voicePhrases)), "the speech side is given the new phrases")
        // The notice is the same message: its English form did not change.
        #expect(session.state.notice == "Settings not saved: disk full")

        _ = session.send(.languageLoaded(.english))
        #expect(Self.screen(session.state).contains("HandsFree │ Home"))
    }

    /// A screen that sets the language setting, as Settings › Language will.
    struct LanguagePicker: Screen {
        let name = "language-picker"
        let title = "Language"
        var code: String
        func render(_ c: inout Canvas, _ ctx: ScreenContext) { c.button("pick", code, Rect(x: 2, y: 2, w: 20, h: 3)) }
        mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
            guard case .action(.activate, _, _) = input else { return .unhandled }
            var s = ctx.settings
            s.language = code
            return Reply(effects: [.settingsChanged(s)])
        }
    }

    @Test func changingTheLanguageSettingAsksForItsTranslationsOnce() {
        var session = Session(state: Fixture.state(), settings: PipelineSettings(gestures: GestureDefaults.definitions))
        // The language a run starts with is its own: applied settings ask for nothing.
        var start = session.state.settings
        start.language = "de"
        session.apply(start)
        #expect(!session.send(.key(.down)).contains(.loadLanguage("de")))

        session.state.stack.append(LanguagePicker(code: "fr"))
        session.state.relayout()
        session.state.focus.set("pick", at: session.state.now)
        let effects = session.send(.key(.enter))
        #expect(effects.filter { $0 == .loadLanguage("fr") }.count == 1, "\(effects)")
        #expect(effects.contains(.saveSettings(session.state.settings)), "the choice is saved")
        #expect(!session.send(.key(.down)).contains(.loadLanguage("fr")), "asked once")
    }

    @Test func theSettingIsWrittenAndReadBackAndABadValueIsNamedByLine() {
        var s = ShellSettings()
        #expect(s.language == "auto")
        s.language = "pt_BR"
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(problems.isEmpty && back.language == "pt_BR")
        let (bad, badProblems) = ShellSettings.parse("show_gaze_cursor = true\nlanguage = \"Spanish!\"\n", file: "settings.toml")
        #expect(bad.language == "auto")
        #expect(badProblems == ["settings.toml:2: language must be \"auto\" or a language code such as \"es\" or \"pt_BR\""])
    }

    /// What is wrong in `settings.toml` is shown at start in the language, each problem after its file:line,
    /// and said again in another language when the language changes while it is shown (the kinds of mistake:
    /// a number out of range with its unit, an unknown key, a word not among the choices, a text rule).
    @Test func theSettingsFileProblemsAreShownInTheLanguage() throws {
        let text = "dwell_ms = 100\nfoo = 1\nsmoothing = \"fast\"\nlanguage = \"Spanish!\"\n"
        let (_, problems) = ShellSettings.read(text, file: "settings.toml")
        #expect(problems.map(\.description) == ShellSettings.parse(text, file: "settings.toml").1, "the English is the same")
        #expect(problems.map(\.description) == [
            "settings.toml:1: dwell_ms must be a number 200…60000 (milliseconds)",
            "settings.toml:2: unknown setting foo (a typing mistake, or one this version does not have)",
            "settings.toml:3: smoothing must be \"moving-average\", \"low-pass\", \"one-euro\" or \"none\"",
            "settings.toml:4: language must be \"auto\" or a language code such as \"es\" or \"pt_BR\"",
        ])
        var session = Session(state: ShellState(keymap: Fixture.keymap("default"), size: Size(width: 100, height: 30),
                                                catalog: try Self.catalog("es")),
                              settings: PipelineSettings(gestures: GestureConfig.defaults().gestures))
        session.startKnownGood(ShellSettings(), problems: problems.map(\.shown))
        func banner() -> String { Self.screen(session.state).split(separator: "\n").prefix(12).joined(separator: " ").split(separator: " ").joined(separator: " ") }
        for expected in ["settings.toml:1: dwell_ms debe ser un número entre 200 y 60000 (milisegundos)",
                         "settings.toml:2: ajuste desconocido foo (una errata, o uno que esta versión no tiene)",
                         "settings.toml:3: smoothing debe ser \"moving-average\", \"low-pass\", \"one-euro\" o \"none\"",
                         "settings.toml:4: language debe ser \"auto\" o un código de idioma como \"es\" o \"pt_BR\""] {
            #expect(banner().contains(expected), "no “\(expected)” in:\n\(banner())")
        }
        _ = session.send(.languageLoaded(try Self.catalog("de")))
        for expected in ["settings.toml:1: dwell_ms muss eine Zahl von 200 bis 60000 sein (Millisekunden)",
                         "settings.toml:2: unbekannte Einstellung foo (ein Tippfehler oder eine, die diese Version nicht kennt)",
                         "settings.toml:3: smoothing muss \"moving-average\", \"low-pass\", \"one-euro\" oder \"none\" sein",
                         "settings.toml:4: language muss \"auto\" oder ein Sprachcode wie \"es\" oder \"pt_BR\" sein"] {
            #expect(banner().contains(expected), "no “\(expected)” in:\n\(banner())")
        }
    }
}
