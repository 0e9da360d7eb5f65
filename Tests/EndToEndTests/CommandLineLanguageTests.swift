import Foundation
import Testing

/// Every command's help and a set of command-line errors, printed by the built binary in each language of
/// `po/LINGUAS` (a complete catalog: `ProjectCatalogTests` checks it is one), read for English left on them:
/// no message of the template shown without its translation, and no line of text the English run prints
/// printed the same (a string never put through the catalog, or ArgumentParser's own words).
@Suite(.serialized) struct CommandLineLanguageTests {
    static let binary = ShellInTmuxTests.binary
    static let root = ShellInTmuxTests.root
    static let ready = FileManager.default.isExecutableFile(atPath: binary)

    static var languages: [String] {
        let text = (try? String(contentsOfFile: root + "/po/LINGUAS", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").flatMap { ($0.split(separator: "#", omittingEmptySubsequences: false).first ?? "").split(separator: " ") }
            .map(String.init)
    }

    /// A `.po` file's translations: (msgid, its first translation), the header left out. Enough of the format
    /// for the project's own files, which `msgfmt --check` accepts.
    static func catalog(_ path: String) throws -> [(msgid: String, translation: String)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [(String, String)] = []
        for block in text.components(separatedBy: "\n\n") {
            var fields: [String: String] = [:], key = ""
            for line in block.split(separator: "\n") where !line.hasPrefix("#") {
                var value = Substring(line)
                if let space = line.firstIndex(of: " "), !line.hasPrefix("\"") {
                    key = String(line[..<space]); value = line[line.index(after: space)...]
                }
                fields[key, default: ""] += unquote(value)
            }
            guard let id = fields["msgid"], !id.isEmpty, let t = fields["msgstr"] ?? fields["msgstr[1]"], !t.isEmpty else { continue }
            out.append((id, t))
        }
        return out
    }

    static func unquote(_ s: Substring) -> String {
        var out = "", escaped = false
        for c in s.dropFirst().dropLast() {
            if escaped { out.append(["n": "\n", "t": "\t"][c] ?? c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }

    /// Whitespace runs (help text wrapped over lines and indented) as one space.
    static func flat(_ s: String) -> String {
        s.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// A message's longest piece between placeholders, when it is long enough to be told from other text.
    static func piece(_ msgid: String) -> String? {
        let parts = msgid.components(separatedBy: "{").map { $0.components(separatedBy: "}").last ?? $0 }
        let best = parts.map { flat($0).trimmingCharacters(in: .whitespaces) }.max { $0.count < $1.count } ?? ""
        return best.count >= 16 && best.contains(" ") ? best : nil
    }

    /// English's little words: a line of English prose has one; a list of names (screens, formats) has none.
    static let englishWords: Set<String> = ["the", "and", "of", "to", "in", "is", "for", "with", "on", "not", "or", "by",
                                            "from", "this", "that", "as", "be", "are", "an", "at", "its", "when", "each",
                                            "else", "which", "than", "into", "through", "it", "has", "can", "cannot", "a"]

    /// Lines of English words: three or more words of three letters or more (not an option, a path, a value or an
    /// identifier such as `recencyDecay`, which is the same in every language), one of them one of English's
    /// little words.
    static func isText(_ line: String) -> Bool {
        let words = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ".,;:()\"'«»")) }
        let long = words.filter { $0.count >= 3 && $0.allSatisfy(\.isLetter) && !$0.dropFirst().contains(where: \.isUppercase) }
        return long.count >= 3 && words.contains { englishWords.contains($0.lowercased()) }
    }

    /// Every help text of every command and option (ArgumentParser's description of the binary, as its `--help`
    /// pages print them), by where it is: `run --mic: ALSA capture device…`.
    static func helpTexts(locale: String, home: String) throws -> [String: String] {
        let dump = try output(["--experimental-dump-help"], locale: locale, home: home, stderr: false)
        let json = try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any]
        var out: [String: String] = [:]
        func walk(_ command: [String: Any], _ path: String) {
            for key in ["abstract", "discussion"] { if let t = command[key] as? String, !t.isEmpty { out[path + " " + key] = t } }
            for a in command["arguments"] as? [[String: Any]] ?? [] {
                let name = (a["preferredName"] as? [String: Any])?["name"] as? String ?? a["valueName"] as? String ?? "?"
                // ArgumentParser's own --help flag: its pages translate it on the way out (the runs check them).
                guard name != "help" else { continue }
                for key in ["abstract", "discussion"] { if let t = a[key] as? String, !t.isEmpty { out[path + " " + name + " " + key] = t } }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + " " + name)
            }
        }
        walk(json?["command"] as? [String: Any] ?? [:], "handsfree")
        return out
    }

    /// What a user reads from the command line besides the help texts: --help pages (ArgumentParser's own
    /// headings and defaults around them), and mistakes of several kinds.
    static func runs(folder: String) -> [[String]] {
        [
            ["--help"], ["run", "--help"], ["bench", "expand", "--help"], ["layout", "--help"],
            ["run", "--speed", "0"], ["doctor", "--bogus"], ["say", "--voice", "nonsense", "hello"],
            ["say", "--out", folder, "hello"], ["bench", "expand", "--repeat-share", "3"], ["expand"],
            ["say", "--speaker", "no-such-device", "hello"], ["run", "--language", "xx"],
            ["run", "--config", folder + "/broken.toml"], ["check", folder + "/broken.toml"],
            ["run", "--config", folder + "/unknown.toml"], ["check", folder + "/unknown.toml"],
            ["check", folder + "/keymap.toml"], ["replay", folder + "/none.ndjson", "--set", "gesture.activate.press"],
            ["replay", folder + "/none.ndjson", "--set", "gesture.nosuch.press=0.5"],
            ["replay", folder + "/none.ndjson", "--config", folder + "/gestures.toml", "--set", "gesture.activate.eye=left"],
            ["bench", "typing", "--profiles", folder + "/profiles.toml"],
            ["check", folder + "/includes.toml"], ["predict", "--language", folder + "/xx", "hola"],
            ["stats", "--data-dir", folder + "/stats", "--explain"],
        ]
    }

    /// Config files with mistakes: a syntax error, a key the config does not know, a value of the wrong kind, a
    /// keymap binding that is no key or action, a gesture of a kind that has no such key (`--set`), a typing
    /// profile that lacks a value, a keymap that includes one that does not exist, a language pack whose elision
    /// has no apostrophe.
    static func writeBrokenConfigs(_ folder: String) throws {
        try "[gesture.activate]\nkind = \"threshold\"\nshape = \"jawOpen\"\npress = \n".write(toFile: folder + "/broken.toml", atomically: true, encoding: .utf8)
        try "[smoothing]\nmin_cutoff = \"fast\"\n[gaze]\nfoo = 3\n".write(toFile: folder + "/unknown.toml", atomically: true, encoding: .utf8)
        try "name = \"mine\"\n[terminal.gestures]\nactivate = \"jump\"\n".write(toFile: folder + "/keymap.toml", atomically: true, encoding: .utf8)
        try "[gesture.activate]\nkind = \"threshold\"\nshape = \"jawOpen\"\npress = 0.5\n".write(toFile: folder + "/gestures.toml", atomically: true, encoding: .utf8)
        try "[profile.slow]\ndescription = \"a slow typist\"\n".write(toFile: folder + "/profiles.toml", atomically: true, encoding: .utf8)
        try "include = \"missing-one\"\n".write(toFile: folder + "/includes.toml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/xx", withIntermediateDirectories: true)
        try "code = \"xx\"\n\n[words]\nlist = \"w.txt\"\nelisions = [\"l\"]\n".write(toFile: folder + "/xx/pack.toml", atomically: true, encoding: .utf8)
        // Two recorded sessions, one with dictation and a face lost, for `stats`' summary and its `--explain`.
        try FileManager.default.createDirectory(atPath: folder + "/stats", withIntermediateDirectories: true)
        let sessions = [(40, 0, 0, 0), (70, 12, 3, 2)].map { chars, dictated, corrections, losses in
            """
            {"actions":5,"actionsNearFaceLoss":1,"activations":5,"characters":\(chars),"charactersTyped":\(chars),\
            "corrections":\(corrections),"correctionsAfterDictation":\(min(1, corrections)),"date":"2025-01-01T00:00:00Z","dictatedWords":\(dictated),\
            "dwell":{"count":0,"max":0,"mean":0},"duration":60,"errors":1,"faceLosses":\(losses),\
            "gestures":{"activate":{"count":5,"meanHold":0.3}},"keystrokes":\(chars - 10),"kind":"run","selections":3,\
            "source":"keyboard","undoneActivations":1,"wpm":10}
            """
        }
        try (sessions.joined(separator: "\n") + "\n").write(toFile: folder + "/stats/metrics.ndjson", atomically: true, encoding: .utf8)
    }

    static func output(_ args: [String], locale: String, home: String, stderr: Bool = true) throws -> String {
        let r = try SetupInTmuxTests.process(binary, args, env: ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": home,
                                                                 "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
        return stderr ? r.out + r.err : r.out
    }

    /// One folder for every language's runs, so paths in messages read the same as in the English run.
    static let home: String = {
        let path = NSTemporaryDirectory() + "hf-cli-lang-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try? CommandLineLanguageTests.writeBrokenConfigs(path)
        return path
    }()

    /// The English run, made once: help texts by place, and each run's output.
    static let english: (help: [String: String], runs: [String]) = {
        let help = (try? CommandLineLanguageTests.helpTexts(locale: "C.UTF-8", home: home)) ?? [:]
        return (help, CommandLineLanguageTests.runs(folder: home).map { (try? CommandLineLanguageTests.output($0, locale: "C.UTF-8", home: home)) ?? "" })
    }()

    /// `handsfree run --help` and a config file with a syntax error, under the user's locale (not generated
    /// here: the shell reads its own catalogs), read in the language: the help's headings, texts and defaults,
    /// and the error's reason after its file:line.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"),
          arguments: [("de_DE.UTF-8", ["ÜBERSICHT: Die freihändige Shell im Vollbild starten.", "OPTIONEN:",
                                       "Eine Aufzeichnung abspielen (NDJSON,", "(Standard: default)"],
                       "/broken.toml:4: nach »=« wird ein Wert erwartet"),
                      ("es_ES.UTF-8", ["DESCRIPCIÓN: Iniciar la shell manos libres a pantalla completa.", "OPCIONES:",
                                       "Reproducir una grabación (NDJSON, CSV de", "(por omisión: default)"],
                       "/broken.toml:4: se esperaba un valor tras '='")])
    func helpAndABrokenConfigReadInTheLanguage(_ locale: String, help: [String], configError: String) throws {
        let page = try Self.output(["run", "--help"], locale: locale, home: Self.home)
        for expected in help { #expect(page.contains(expected), "no “\(expected)” in:\n\(page)") }
        #expect(page.split(separator: "\n").allSatisfy { $0.count <= 80 || $0.hasPrefix("AUFRUF") || $0.hasPrefix("USO") || !$0.trimmingCharacters(in: .whitespaces).contains(" ") },
                "a line longer than 80 columns:\n\(page)")
        let run = try SetupInTmuxTests.process(Self.binary, ["run", "--config", Self.home + "/broken.toml"],
                                               env: ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": Self.home])
        #expect(run.status == 1 && run.err.hasPrefix("handsfree: ") && run.err.contains(configError), "\(run.err)")
    }

    /// A data folder (`HANDSFREE_HOME`) beside the shipped one: its keymaps, configs, catalogs and packs, but a
    /// Spanish pack whose keyboard letters are no list and whose speech data gives "coma" a number for a mark; a
    /// user's `settings.toml` with a number out of range, an unknown key and a word not among the choices; a
    /// keymap that includes one that does not exist; a pack whose elision has no apostrophe. What is wrong, and
    /// the line it is on.
    struct BrokenData {
        let root: String, settings: String, packLine: Int, speechLine: Int
    }

    static let brokenData: BrokenData? = try? {
        let root = NSTemporaryDirectory() + "hf-cli-packs-\(getpid())"
        let fm = FileManager.default
        try? fm.removeItem(atPath: root)
        try fm.createDirectory(atPath: root + "/languages/es", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/home/config/handsfree", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/bad/xx", withIntermediateDirectories: true)
        for name in ["keymaps", "config", "po", "wordlists"] { try fm.createSymbolicLink(atPath: root + "/" + name, withDestinationPath: Self.root + "/" + name) }
        for code in ["de", "en", "fr", "it", "nl", "pt"] {
            try fm.createSymbolicLink(atPath: root + "/languages/" + code, withDestinationPath: Self.root + "/languages/" + code)
        }
        for name in ["words-es.txt", "ngrams-es.txt"] {
            try fm.createSymbolicLink(atPath: root + "/languages/es/" + name, withDestinationPath: Self.root + "/languages/es/" + name)
        }
        /// The shipped file with the line starting `start` replaced by `line`, and that line's number.
        func broken(_ name: String, _ start: String, _ line: String) throws -> Int {
            var lines = try String(contentsOfFile: Self.root + "/languages/es/" + name, encoding: .utf8).components(separatedBy: "\n")
            guard let i = lines.firstIndex(where: { $0.hasPrefix(start) }) else { throw CocoaError(.fileReadCorruptFile) }
            lines[i] = line
            try lines.joined(separator: "\n").write(toFile: root + "/languages/es/" + name, atomically: true, encoding: .utf8)
            return i + 1
        }
        let packLine = try broken("pack.toml", "letters = ", "letters = \"ñ\"")
        let speechLine = try broken("speech.toml", "\"coma\" = ", "\"coma\" = 3")
        let settings = root + "/home/config/handsfree/settings.toml"
        try "dwell_ms = 100\nfoo = 1\nsmoothing = \"fast\"\n".write(toFile: settings, atomically: true, encoding: .utf8)
        try "include = \"missing-one\"\n".write(toFile: root + "/includes.toml", atomically: true, encoding: .utf8)
        try "code = \"xx\"\n\n[words]\nlist = \"w.txt\"\nelisions = [\"l\"]\n".write(toFile: root + "/bad/xx/pack.toml", atomically: true, encoding: .utf8)
        return BrokenData(root: root, settings: settings, packLine: packLine, speechLine: speechLine)
    }()

    /// A language pack's files, the user's settings file and a keymap's include, each with a mistake, read in the
    /// language with the file and line kept: `doctor` (the pack's keyboard and speech data, each setting), `check`
    /// (an included keymap that does not exist) and `predict --language` (a pack that cannot be read, its usage
    /// line after the error rather than run into its last line).
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"),
          arguments: [
            ("es_ES.UTF-8", ["warn  paquete de idioma es: {root}/languages/es/pack.toml:{pack}: keyboard.letters debe ser una lista de cadenas (el teclado y el tablero de frases son los del inglés)",
                             "warn  voz en es: {root}/languages/es/speech.toml:{speech}: «coma» debe corresponder a un signo de puntuación, p. ej., \",\" (la puntuación hablada y las órdenes están en inglés)",
                             "warn  ajustes: {settings}:1: dwell_ms debe ser un número entre 200 y 60000 (milisegundos)",
                             "warn  ajustes: {settings}:2: ajuste desconocido foo (una errata, o uno que esta versión no tiene)",
                             "warn  ajustes: {settings}:3: smoothing debe ser \"moving-average\", \"low-pass\", \"one-euro\" o \"none\""],
             "{root}/includes.toml:1: include «missing-one»: {root}/keymaps/missing-one.toml: no existe ese mapa de gestos (conocidos: default, dwell, no-wink, webcam)",
             "{root}/bad/xx/pack.toml:5: una elisión termina en apóstrofo, como \"l'\" (no \"l\")", "Uso: handsfree"),
            ("de_DE.UTF-8", ["warn  Sprachpaket es: {root}/languages/es/pack.toml:{pack}: keyboard.letters muss eine Liste von Zeichenketten sein (Tastatur und Satztafel sind die englischen)",
                             "warn  Sprache in es: {root}/languages/es/speech.toml:{speech}: »coma« muss für ein Satzzeichen stehen, z. B. \",\" (gesprochene Satzzeichen und Befehle sind auf Englisch)",
                             "warn  Einstellungen: {settings}:1: dwell_ms muss eine Zahl von 200 bis 60000 sein (Millisekunden)",
                             "warn  Einstellungen: {settings}:2: unbekannte Einstellung foo (ein Tippfehler oder eine, die diese Version nicht kennt)",
                             "warn  Einstellungen: {settings}:3: smoothing muss \"moving-average\", \"low-pass\", \"one-euro\" oder \"none\" sein"],
             "{root}/includes.toml:1: include »missing-one«: {root}/keymaps/missing-one.toml: keine solche Gestenbelegung (bekannt: default, dwell, no-wink, webcam)",
             "{root}/bad/xx/pack.toml:5: eine Elision endet mit einem Apostroph, wie \"l'\" (nicht \"l\")", "Aufruf: handsfree"),
          ])
    func packSettingsAndIncludeMistakesReadInTheLanguage(_ locale: String, doctor: [String], include: String, pack: String, usage: String) throws {
        let data = try #require(Self.brokenData, "the broken data folder could not be made")
        func filled(_ s: String) -> String {
            s.replacingOccurrences(of: "{root}", with: data.root).replacingOccurrences(of: "{settings}", with: data.settings)
                .replacingOccurrences(of: "{pack}", with: String(data.packLine)).replacingOccurrences(of: "{speech}", with: String(data.speechLine))
        }
        let env = ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": data.root + "/home", "XDG_CONFIG_HOME": data.root + "/home/config",
                   "XDG_DATA_HOME": data.root + "/home/data", "HANDSFREE_HOME": data.root]
        let report = try SetupInTmuxTests.process(Self.binary, ["doctor"], env: env)
        let lines = Set(report.out.split(separator: "\n").map(String.init))
        for expected in doctor.map(filled) { #expect(lines.contains(expected), "no “\(expected)” in:\n\(report.out)") }
        let check = try SetupInTmuxTests.process(Self.binary, ["check", data.root + "/includes.toml"], env: env)
        #expect(check.status != 0 && (check.out + check.err).contains(filled(include)), "\(check.out)\(check.err)")
        let predict = try SetupInTmuxTests.process(Self.binary, ["predict", "--language", data.root + "/bad/xx", "hola"], env: env)
        #expect(predict.status != 0 && Self.flat(predict.err).contains(filled(pack)), "\(predict.err)")
        #expect(predict.err.split(separator: "\n").contains { $0.hasPrefix(usage) }, "the usage line is a line of its own:\n\(predict.err)")
    }

    /// Every command's `--help` page at 80 columns, in English, German and French (the longest headings), read
    /// for a paragraph broken where it need not be: a line followed by one of the same text whose first word would
    /// have fitted on it (a discussion with hard line breaks at the English's places, or a heading made longer by
    /// its translation and cut without the rest of its paragraph). A sentence's end may end a line on purpose.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"),
          arguments: ["C.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8"])
    func helpParagraphsAreWrappedAsParagraphs(_ locale: String) throws {
        var commands: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            commands.append(path)
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + [name])
            }
        }
        let dump = try Self.output(["--experimental-dump-help"], locale: "C.UTF-8", home: Self.home, stderr: false)
        walk((try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])?["command"] as? [String: Any] ?? [:], [])
        #expect(commands.count > 30, "\(commands.count) commands")
        var ragged: [String] = []
        for command in commands {
            let page = try Self.output(command + ["--help"], locale: locale, home: Self.home, stderr: false)
            let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (line, next) in zip(lines, lines.dropFirst()) {
                let lead = line.prefix { $0 == " " }.count
                let nextText = next.drop { $0 == " " }
                // The next line carries on the same text: same column, not a table's row (words' verbs), another
                // option or a usage line.
                guard !line.isEmpty, !nextText.isEmpty, next.count - nextText.count == lead, !nextText.contains("  "),
                      !nextText.hasPrefix("-"), !line.hasSuffix("."), !line.hasSuffix(":"), !line.hasPrefix("USAGE") else { continue }
                let word = nextText.prefix { $0 != " " }
                // ArgumentParser keeps a line below 80 columns: a word that would have ended at column 80 is not ragged.
                if line.count + 1 + word.count < 80 {
                    ragged.append("handsfree \(command.joined(separator: " ")) --help:\n\(line)\n\(next)")
                }
            }
        }
        #expect(ragged.isEmpty, "\(ragged.count) lines broken early in \(locale):\n\(ragged.joined(separator: "\n"))")
    }

    /// `doctor` with an X display and a Wayland socket that do not answer, and no D-Bus session: the sinks' and
    /// the accessibility bus's reasons, not only the lines around them, read in the language (they were printed
    /// in English).
    @Test(.enabled(if: ready && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X99"),
                   "needs .build/debug/handsfree, and nothing serving display :99"),
          arguments: [("es_ES.UTF-8", "warn  X11: no se puede abrir la pantalla X :99", "warn  Wayland: no se puede conectar con la pantalla Wayland /nonexistent/wayland-9",
                       "warn  bus de accesibilidad: no hay ninguna sesión de D-Bus (DBUS_SESSION_BUS_ADDRESS no está definida)"),
                      ("de_DE.UTF-8", "warn  X11: das X-Display :99 kann nicht geöffnet werden", "warn  Wayland: keine Verbindung zum Wayland-Display /nonexistent/wayland-9",
                       "warn  Barrierefreiheits-Bus: keine D-Bus-Sitzung (DBUS_SESSION_BUS_ADDRESS ist nicht gesetzt)")])
    func doctorsDesktopReasonsReadInTheLanguage(_ locale: String, x11: String, wayland: String, bus: String) throws {
        let r = try SetupInTmuxTests.process(Self.binary, ["doctor"], env: [
            "LANG": locale, "PATH": "/usr/bin:/bin", "HOME": Self.home, "XDG_CONFIG_HOME": Self.home + "/config",
            "XDG_DATA_HOME": Self.home + "/data", "DISPLAY": ":99", "WAYLAND_DISPLAY": "/nonexistent/wayland-9"])
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix(x11) }, "\(r.out)")
        #expect(lines.contains { $0.hasPrefix(wayland) }, "\(r.out)")
        #expect(lines.contains { $0.hasPrefix(bus) }, "\(r.out)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"), arguments: languages)
    func noEnglishIsLeftOnTheCommandLine(_ lang: String) throws {
        let home = Self.home
        let messages = try Self.catalog(Self.root + "/po/\(lang).po").filter { $0.msgid != $0.translation }
        var problems: [String] = []
        /// A message of the catalog shown in English, and a line of words the English prints printed the same
        /// (text that never went through the catalog).
        func check(_ shown: String, english: String, place: String) {
            let flatShown = Self.flat(shown)
            for m in messages {
                guard let piece = Self.piece(m.msgid), flatShown.contains(piece), !Self.flat(m.translation).contains(piece) else { continue }
                problems.append("\(place): “\(m.msgid)” is shown in English")
            }
            let englishLines = Set(english.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            for line in shown.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            where Self.isText(line) && englishLines.contains(line) {
                problems.append("\(place): “\(line)” is the same as in English")
            }
        }
        let englishHelp = Self.english.help
        let help = try Self.helpTexts(locale: "\(lang).UTF-8", home: home)
        #expect(help.count > 200 && Set(help.keys) == Set(englishHelp.keys), "\(help.count) help texts, \(englishHelp.count) in English")
        for (place, text) in help.sorted(by: { $0.key < $1.key }) { check(text, english: englishHelp[place] ?? "", place: place) }
        for (args, english) in zip(Self.runs(folder: home), Self.english.runs) {
            let shown = try Self.output(args, locale: "\(lang).UTF-8", home: home)
            #expect(!shown.isEmpty, "handsfree \(args.joined(separator: " ")) printed nothing")
            check(shown, english: english, place: "handsfree " + args.joined(separator: " "))
        }
        #expect(problems.isEmpty, "\(problems.count) English texts in \(lang):\n\(problems.joined(separator: "\n"))")
    }

    /// `stats` writes its numbers as the language does: a decimal comma in every shipped language ("2,0
    /// minutes", "0,30 s"), a point in English; no number of the summary keeps English's point.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"), arguments: languages)
    func statsWritesNumbersAsTheLanguageDoes(_ lang: String) throws {
        let args = ["stats", "--data-dir", Self.home + "/stats"]
        let english = try Self.output(args, locale: "C.UTF-8", home: Self.home, stderr: false)
        let shown = try Self.output(args, locale: "\(lang).UTF-8", home: Self.home, stderr: false)
        let point = try NSRegularExpression(pattern: "[0-9]\\.[0-9]"), comma = try NSRegularExpression(pattern: "[0-9],[0-9]")
        func count(_ r: NSRegularExpression, _ s: String) -> Int { r.numberOfMatches(in: s, range: NSRange(s.startIndex..., in: s)) }
        #expect(count(point, english) >= 3 && count(comma, english) == 0, "\(english)")
        // The data folder's path is the only text with a point left (none here has one between digits).
        #expect(count(point, shown) == 0 && count(comma, shown) == count(point, english), "\(lang):\n\(shown)")
    }
}
