import ArgumentParser
import Foundation
import Shell

/// `handsfree settings-reference`: the reference of every setting in settings.toml, made from the settings schema
/// (`ShellSettings.schema`), so docs/settings.md and the man page cannot drift from what the shell reads.
struct SettingsReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-reference",
        abstract: tr("Print the reference of every setting in settings.toml (Markdown, or the man page's section)."),
        discussion: tr("Made from the settings schema the shell reads and writes settings.toml with. --check FILE exits 1 when FILE differs (a test runs it on docs/settings.md); --update FILE writes it."))

    @Flag(help: ArgumentHelp(tr("Print the man page's SETTINGS section (roff) instead of Markdown.")))
    var man = false
    @Option(help: ArgumentHelp(tr("Compare FILE with the reference; exit 1 if it differs."), valueName: "file"))
    var check: String?
    @Option(help: ArgumentHelp(tr("Write the reference to FILE."), valueName: "file"))
    var update: String?

    func validate() throws {
        if check != nil && update != nil { throw ValidationError("--check and --update cannot be given together") }
    }

    func run() throws {
        let text = man ? ShellSettings.referenceMan : ShellSettings.referenceMarkdown
        if let check {
            let now: String
            do { now = try String(contentsOfFile: check, encoding: .utf8) } catch {
                throw ValidationError("\(check): cannot read it (\(error.localizedDescription))")
            }
            guard now == text else {
                FileHandle.standardError.write(Data("\(check) differs from the settings schema: run handsfree settings-reference --update \(check)\n".utf8))
                throw ExitCode(1)
            }
            print("\(check) is up to date")
        } else if let update {
            do { try text.write(toFile: update, atomically: true, encoding: .utf8) } catch {
                throw ValidationError("\(update): cannot write it (\(error.localizedDescription))")
            }
        } else {
            print(text, terminator: "")
        }
    }
}
