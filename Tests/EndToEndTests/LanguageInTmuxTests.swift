#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The built binary in the user's language: chosen by `LANG` (a locale this machine has not even generated:
/// the shell reads its own catalogs), by the `language` setting, or `--language`; read back with
/// `tmux capture-pane` as a user would see it.
@Suite(.serialized) struct LanguageInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// Folders of one run's own (state, config), removed after it.
    final class Home {
        let path = NSTemporaryDirectory() + "hf-e2e-lang-\(getpid())-\(UUID().uuidString.prefix(8))"
        var env: String { "XDG_STATE_HOME=\(path)/state XDG_CONFIG_HOME=\(path)/config XDG_DATA_HOME=\(path)/data" }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aSpanishLocaleShowsTheLauncherInSpanish() throws {
        let home = Home()
        let session = Tmux(name: "hf-e2e-es-\(getpid())")
        defer { session.kill() }
        try session.start("env LANG=es_ES.UTF-8 \(home.env) \(Self.binary) run --no-onboarding --no-speech; echo SHELL-EXITED; sleep 30")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Inicio") == true }, "not in Spanish:\n\(session.screen)")
        let screen = session.screen
        for shown in ["? ayuda · q salir", "Notas", "escribir y dictar", "Chat simulado", "Configuración", "Escritorio", "Frases"] {
            #expect(screen.contains(shown), "\(shown) is not on the launcher:\n\(screen)")
        }
        #expect(!screen.contains("write and dictate") && !screen.contains("Settings"), "English left on the launcher:\n\(screen)")
        // A screen opened is titled in Spanish too (the first arrow key focuses the first tile).
        session.keys("Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("Inicio › Notas") == true && $0.first?.contains("? ayuda · Esc atrás") == true },
                "\(session.screen)")
        session.keys("Escape")
        #expect(session.waitFor { $0.first?.contains("Inicio ›") == false })
        session.keys("q")
        #expect(session.waitFor { $0.contains { $0.contains("SHELL-EXITED") } }, "\(session.screen)")
    }

    /// The setting beats the environment; a locale without a pack gives English, said once on the screen.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theSettingBeatsTheLocaleAndALocaleWithoutAPackIsSaidOnce() throws {
        let home = Home()
        try FileManager.default.createDirectory(atPath: home.path + "/config/handsfree", withIntermediateDirectories: true)
        try "language = \"fr\"\n".write(toFile: home.path + "/config/handsfree/settings.toml", atomically: true, encoding: .utf8)
        let french = Tmux(name: "hf-e2e-fr-\(getpid())")
        defer { french.kill() }
        try french.start("env LANG=es_ES.UTF-8 \(home.env) \(Self.binary) run --no-onboarding --no-speech")
        #expect(french.waitFor { $0.first?.contains("HandsFree │ Accueil") == true }, "\(french.screen)")
        #expect(french.screen.contains("écrire et dicter"))
        french.kill()

        let other = Home()
        let japanese = Tmux(name: "hf-e2e-ja-\(getpid())")
        defer { japanese.kill() }
        try japanese.start("env LANG=ja_JP.UTF-8 \(other.env) \(Self.binary) run --no-onboarding --no-speech")
        #expect(japanese.waitFor { $0.joined(separator: " ").contains("No language pack for ja_JP") }, "\(japanese.screen)")
        #expect(japanese.screen.contains("HandsFree │ Home") && japanese.screen.contains("installed: de, en, es, fr, it, pt"),
                "\(japanese.screen)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func anUnknownLanguageListsTheInstalledOnesBeforeTheTerminalIsTaken() throws {
        for command in ["run", "demo"] {
            let r = try SetupInTmuxTests.process(Self.binary, [command, "--language", "xx"],
                                                 env: ["LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
            #expect(r.status == 64, "\(command): \(r.err)")
            #expect(r.err.contains("unknown language \"xx\" (installed: de, en, es, fr, it, pt)"), "\(command): \(r.err)")
            #expect(!r.out.contains("\u{1B}["), "the terminal was not taken over")
        }
        // In the user's language when it has a pack.
        let de = try SetupInTmuxTests.process(Self.binary, ["run", "--language", "xx"],
                                              env: ["LANG": "de_DE.UTF-8", "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        #expect(de.err.contains("unbekannte Sprache »xx« (installiert: de, en, es, fr, it, pt)"), "\(de.err)")
    }

    /// `--language` on the demo: its screens are drawn in that language whatever the locale.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func theHeadlessDemoDrawsInTheLanguageAsked() throws {
        let r = try SetupInTmuxTests.process(Self.binary, ["demo", "--headless", "--language", "de", "--no-metrics"],
                                             env: ["LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        #expect(r.status == 0, "\(r.err)")
        // The demo ends on the launcher.
        #expect(r.out.contains("HandsFree │ Start") && r.out.contains("Notizen") && r.out.contains("Einstellungen"), "\(r.out.suffix(3000))")
    }
}
