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

    /// Lines of words: three or more words of three letters or more (not an option, a path or a value).
    static func isText(_ line: String) -> Bool {
        line.split(separator: " ").filter { w in
            let core = w.trimmingCharacters(in: CharacterSet(charactersIn: ".,;:()\"'«»"))
            return core.count >= 3 && core.allSatisfy(\.isLetter)
        }.count >= 3
    }

    /// The command paths of the binary (`["bench", "expand"]`), from ArgumentParser's description of itself.
    static func commands() throws -> [[String]] {
        let dump = try SetupInTmuxTests.process(binary, ["--experimental-dump-help"], env: ["LANG": "C.UTF-8", "HOME": NSTemporaryDirectory()])
        let json = try JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any]
        var out: [[String]] = [[]]
        func walk(_ command: [String: Any], _ path: [String]) {
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                out.append(path + [name])
                walk(sub, path + [name])
            }
        }
        walk(json?["command"] as? [String: Any] ?? [:], [])
        return out
    }

    /// What a user reads from the command line: each command's --help, and mistakes of several kinds.
    static func runs(_ commands: [[String]], folder: String) -> [[String]] {
        commands.map { $0 + ["--help"] } + [
            ["run", "--speed", "0"], ["doctor", "--bogus"], ["say", "--voice", "nonsense", "hello"],
            ["say", "--out", folder, "hello"], ["bench", "expand", "--repeat-share", "3"], ["expand"],
            ["say", "--speaker", "no-such-device", "hello"], ["run", "--language", "xx"],
        ]
    }

    static func output(_ args: [String], locale: String, home: String) throws -> String {
        let r = try SetupInTmuxTests.process(binary, args, env: ["LANG": locale, "PATH": "/usr/bin:/bin", "HOME": home,
                                                                 "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
        return r.out + r.err
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"), arguments: languages)
    func noEnglishIsLeftOnTheCommandLine(_ lang: String) throws {
        let home = NSTemporaryDirectory() + "hf-cli-lang-\(getpid())-\(lang)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let messages = try Self.catalog(Self.root + "/po/\(lang).po").filter { $0.msgid != $0.translation }
        let commands = try Self.commands()
        #expect(commands.count > 20, "\(commands)")
        var problems: [String] = []
        for args in Self.runs(commands, folder: home) {
            let english = try Self.output(args, locale: "C.UTF-8", home: home)
            let shown = try Self.output(args, locale: "\(lang).UTF-8", home: home)
            let place = "handsfree " + args.joined(separator: " ")
            #expect(!shown.isEmpty, "\(place) printed nothing")
            // A message of the catalog shown in English.
            let flatShown = Self.flat(shown)
            for m in messages {
                guard let piece = Self.piece(m.msgid), flatShown.contains(piece), !Self.flat(m.translation).contains(piece) else { continue }
                problems.append("\(place): “\(m.msgid)” is shown in English")
            }
            // A line of words the English run prints, printed the same: text that never went through the catalog.
            let englishLines = Set(english.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            for line in shown.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            where Self.isText(line) && englishLines.contains(line) {
                problems.append("\(place): “\(line)” is the same as in English")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) English texts in \(lang):\n" + problems.joined(separator: "\n"))
    }
}
