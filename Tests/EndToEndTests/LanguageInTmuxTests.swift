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

    /// Dutch, the sixth language, added as data only (po/nl.po, languages/nl/): a Dutch locale shows the launcher
    /// in Dutch, the note's keyboard has é, ë and the accent key, and typing without accents is offered the
    /// word with them ("ideeen" → "ideeën", "belgie" → "België").
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aDutchLocaleShowsTheLauncherInDutchAndSuggestsDutchWords() throws {
        let home = Home()
        let session = Tmux(name: "hf-e2e-nl-\(getpid())", width: 80, height: 24)
        defer { session.kill() }
        try session.start("env LANG=nl_NL.UTF-8 \(home.env) \(Self.binary) run --no-onboarding --no-speech; echo SHELL-EXITED; sleep 30")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Start") == true && $0.first?.contains("? hulp · q afsluiten") == true },
                "not in Dutch:\n\(session.screen)")
        let screen = session.screen
        for shown in ["Notities", "dicteren", "Oefenchat", "Instellingen", "Bureaublad", "Hulp", "Zinnen"] {
            #expect(screen.contains(shown), "\(shown) is not on the launcher:\n\(screen)")
        }
        #expect(!screen.contains("write and dictate") && !screen.contains("Settings"), "English left on the launcher:\n\(screen)")
        // Notes, then a new note: titled in Dutch, the Dutch letters at the rows' ends.
        session.keys("Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("Start › Notities") == true && $0.first?.contains("? hulp · Esc terug") == true },
                "\(session.screen)")
        session.keys("Tab", "Enter")
        #expect(session.waitFor { $0.first?.contains("Notities › Notitie") == true }, "\(session.screen)")
        func row(_ lines: [String], _ first: String) -> [String]? {
            lines.first { $0.split(separator: " ").first.map(String.init) == first }?.split(separator: " ").map(String.init)
        }
        #expect(session.waitFor { lines in
            row(lines, "q")?.last == "é" && row(lines, "a")?.last == "ë" && row(lines, "z")?.last == "´¨"
        }, "no Dutch keyboard:\n\(session.screen)")
        // The words load on a thread, a second or two in a debug build.
        session.literal("ik heb veel ideeen")
        #expect(session.waitFor(seconds: 60) { $0.contains { $0.contains("★ ideeën") } }, "no ideeën for ideeen:\n\(session.screen)")
        session.literal(" over belgie")
        #expect(session.waitFor(seconds: 30) { $0.contains { $0.contains("★ België") } }, "no België for belgie:\n\(session.screen)")
        #expect(session.screen.contains("│ ik heb veel ideeen over belgie"), "\(session.screen)")
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
        #expect(japanese.screen.contains("HandsFree │ Home") && japanese.screen.contains("installed: de, en, es, fr, it, nl, pt"),
                "\(japanese.screen)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func anUnknownLanguageListsTheInstalledOnesBeforeTheTerminalIsTaken() throws {
        for command in ["run", "demo"] {
            let r = try SetupInTmuxTests.process(Self.binary, [command, "--language", "xx"],
                                                 env: ["LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
            #expect(r.status == 64, "\(command): \(r.err)")
            #expect(r.err.contains("unknown language \"xx\" (installed: de, en, es, fr, it, nl, pt)"), "\(command): \(r.err)")
            #expect(!r.out.contains("\u{1B}["), "the terminal was not taken over")
        }
        // In the user's language when it has a pack.
        let de = try SetupInTmuxTests.process(Self.binary, ["run", "--language", "xx"],
                                              env: ["LANG": "de_DE.UTF-8", "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        #expect(de.err.contains("unbekannte Sprache »xx« (installiert: de, en, es, fr, it, nl, pt)"), "\(de.err)")
    }

    /// `--language de` and `--language fr` on a C locale: Settings (its tabs, its first row, the Language tab
    /// naming English) and Help (headings, the keys line, its buttons) drawn in the language, at 80×24 as a
    /// small terminal shows them.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"),
          arguments: [("de", ["Start › Einstellungen", "Gesten", "Zeiger", "Sprache", "Kieferschwelle", "keine Geste"],
                       ["Start › Hilfe", "Gesten (1/", "Tasten: Pfeile bewegen", "Hilfe schließen", "das fokussierte Element aktivieren"]),
                      ("fr", ["Accueil › Paramètres", "Gestes", "Pointeur", "Langue", "Seuil de la mâchoire", "aucun geste"],
                       ["Accueil › Aide", "Gestes (1/", "Touches\u{a0}: flèches déplacent", "Fermer l’aide", "activer l’élément qui a le focus"])])
    func settingsAndHelpAreInTheLanguageAsked(_ lang: String, _ settings: [String], _ help: [String]) throws {
        let home = Home()
        let session = Tmux(name: "hf-e2e-\(lang)-screens-\(getpid())", width: 80, height: 24)
        defer { session.kill() }
        try session.start("env LANG=C.UTF-8 \(home.env) \(Self.binary) run --no-onboarding --no-speech --language \(lang)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │") == true && $0.first?.contains("Home") == false }, "\(session.screen)")
        // The first arrow focuses the first tile (Notes); Settings is the third.
        session.keys("Right", "Right", "Right", "Enter")
        #expect(session.waitFor { lines in settings.allSatisfy { s in lines.contains { $0.contains(s) } } },
                "Settings is not in \(lang):\n\(session.screen)")
        #expect(!session.screen.contains("Jaw threshold") && !session.screen.contains("Gestures"), "English left:\n\(session.screen)")
        session.keys("Escape")
        #expect(session.waitFor { $0.first?.contains("›") == false })
        session.keys("?")
        #expect(session.waitFor { lines in help.allSatisfy { s in lines.contains { $0.contains(s) } } },
                "Help is not in \(lang):\n\(session.screen)")
        #expect(!session.screen.contains("Close help") && !session.screen.contains("Keys: arrows"), "English left:\n\(session.screen)")
    }

    /// `--language es` at 80×24: the note's gaze keyboard has ñ, ¿ ¡ and the accent key beside the English
    /// letters, what is typed reaches the note, and the phrase board offers Spanish phrases.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theSpanishKeyboardAndPhraseBoardAreOnScreen() throws {
        let home = Home()
        let session = Tmux(name: "hf-e2e-es-keys-\(getpid())", width: 80, height: 24)
        defer { session.kill() }
        try session.start("env LANG=C.UTF-8 \(home.env) \(Self.binary) run --no-onboarding --no-speech --language es")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Inicio") == true }, "\(session.screen)")
        session.keys("Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("Inicio › Notas") == true }, "\(session.screen)")
        session.keys("Tab", "Enter")
        #expect(session.waitFor { $0.first?.contains("Notas › Nota") == true }, "\(session.screen)")
        // The rows as drawn: the English letters, then the language's (keys spaced apart, one letter each).
        func row(_ lines: [String], _ first: String) -> [String]? {
            lines.first { $0.split(separator: " ").first.map(String.init) == first }?.split(separator: " ").map(String.init)
        }
        #expect(session.waitFor { lines in
            row(lines, "q") == ["q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "¿", "¡"]
                && row(lines, "a") == ["a", "s", "d", "f", "g", "h", "j", "k", "l", "'", "ñ"]
                && row(lines, "z") == ["z", "x", "c", "v", "b", "n", "m", ",", ".", "?", "´"]
        }, "no Spanish keyboard:\n\(session.screen)")
        session.literal("mañana")
        #expect(session.waitFor { $0.contains { $0.contains("│ mañana") } }, "\(session.screen)")
        session.keys("Escape")
        session.keys("Escape")
        #expect(session.waitFor { $0.first?.contains("Inicio ›") == false }, "\(session.screen)")
        // The eighth tile, Frases: its greetings in Spanish, none in English.
        session.keys("Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "Enter")
        #expect(session.waitFor { $0.first?.contains("Inicio › Frases") == true }, "\(session.screen)")
        #expect(session.waitFor { lines in ["¡Hola!", "Buenos días.", "¿Qué tal estás?", "Adiós, hasta pronto."].allSatisfy { p in lines.contains { $0.contains(p) } } },
                "\(session.screen)")
        #expect(!session.screen.contains("Hello!") && !session.screen.contains("Good morning."), "\(session.screen)")
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

    /// `handsfree doctor` and the command line's errors in the user's language (LANG, no locale generated):
    /// each check's line and its fix: line translated, the line tags scripts read (ok, warn, FAIL, fix:) as they
    /// are; ArgumentParser's Error:/Usage: and its own parse errors too.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"),
          arguments: [("de_DE.UTF-8", ["FAIL  Datenordner: /etc/passwd/x ist nicht beschreibbar (",
                                       "      fix: beschreibbar machen oder einen anderen wählen mit --data-dir oder HANDSFREE_DATA_DIR",
                                       "warn  Tracker: noch keiner gewählt (", "ok    Tracker-Port udp://127.0.0.1:",
                                       "doctor: 1 Problem ist zu beheben, bevor HandsFree Shell laufen kann"],
                       ["Fehler: --speed muss größer als 0 sein", "Aufruf: handsfree run", "Siehe »handsfree run --help« für weitere Informationen."],
                       "Fehler: Unbekannte Option »--bogus«"),
                      ("es_ES.UTF-8", ["FAIL  carpeta de datos: /etc/passwd/x no tiene permiso de escritura (",
                                       "      fix: dele permiso de escritura o elija otra con --data-dir o HANDSFREE_DATA_DIR",
                                       "warn  rastreador: aún no se ha elegido ninguno (", "ok    puerto del rastreador udp://127.0.0.1:",
                                       "doctor: 1 problema que resolver antes de poder usar HandsFree Shell"],
                       ["Error: --speed debe ser mayor que 0", "Uso: handsfree run", "Consulte «handsfree run --help» para obtener más información."],
                       "Error: Opción desconocida «--bogus»")])
    func doctorAndCommandLineErrorsSpeakTheLanguage(_ locale: String, doctorLines: [String], runError: [String], parseError: String) throws {
        let home = try FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                               appropriateFor: URL(fileURLWithPath: NSTemporaryDirectory()), create: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let env = ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": home.path]
        let doctor = try SetupInTmuxTests.process(Self.binary, ["doctor", "--data-dir", "/etc/passwd/x", "--listen", "udp://127.0.0.1:\(try freeUDPPort())"],
                                                  env: env)
        #expect(doctor.status == 1, "a folder that cannot be written is a failure:\n\(doctor.out)")
        let lines = doctor.out.split(separator: "\n").map(String.init)
        for expected in doctorLines {
            #expect(lines.contains { $0.hasPrefix(expected) }, "no line starting \"\(expected)\":\n\(doctor.out)")
        }
        // Every line keeps its tag, and no check is left in English.
        #expect(lines.allSatisfy { ["ok    ", "warn  ", "FAIL  ", "      fix: ", "doctor: "].contains(where: $0.hasPrefix) }, "\(doctor.out)")
        for english in ["data folder:", "config folder:", "tracker:", "speech model:", "word lists:", "is not writable", "reinstall", "plug in"] {
            #expect(!doctor.out.contains(english), "English \"\(english)\" left:\n\(doctor.out)")
        }
        let run = try SetupInTmuxTests.process(Self.binary, ["run", "--speed", "0"], env: env)
        #expect(run.status == 64, "\(run.err)")
        for expected in runError { #expect(run.err.contains(expected), "\(run.err)") }
        let predict = try SetupInTmuxTests.process(Self.binary, ["doctor", "--bogus"], env: env)
        #expect(predict.err.contains(parseError), "\(predict.err)")
    }

    /// The system's own error text (strerror) in the language, from glibc's catalog (Debian's libc-l10n),
    /// though the locale is not generated here.
    @Test(.enabled(if: ready && FileManager.default.fileExists(atPath: "/usr/share/locale/de/LC_MESSAGES/libc.mo")
                   && FileManager.default.fileExists(atPath: "/usr/share/locale/nl/LC_MESSAGES/libc.mo"),
                   "needs .build/debug/handsfree, tmux and glibc's translations (apt-get install libc-l10n)"),
          arguments: [("de_DE.UTF-8", "(/etc/passwd/x: Ist kein Verzeichnis)"), ("nl_NL.UTF-8", "(/etc/passwd/x: Is geen map)"),
                      ("C.UTF-8", "(/etc/passwd/x: Not a directory)")])
    func theSystemsErrorTextIsInTheLanguage(_ locale: String, reason: String) throws {
        let r = try SetupInTmuxTests.process(Self.binary, ["doctor", "--data-dir", "/etc/passwd/x", "--listen", "udp://127.0.0.1:\(try freeUDPPort())"],
                                             env: ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        #expect(r.out.split(separator: "\n").contains { $0.hasPrefix("FAIL  ") && $0.hasSuffix(reason) }, "\(r.out)")
    }
}
