import Runtime
import ArgumentParser
import Localization
import Shell

/// `handsfree layout`: prints a screen's hit map as JSON, so tests and tools can aim at targets.
struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: tr("Print the targets of a screen as JSON (or the screen as text)."))

    @Option(help: ArgumentHelp(tr("Screen name: {screens}.", ["screens": ScreenRegistry.standard.names.joined(separator: ", ")])))
    var screen = "launcher"
    @Option(help: ArgumentHelp(tr("Terminal size, WIDTHxHEIGHT.")))
    var size = "100x30"
    @Option(help: ArgumentHelp(tr("Keymap name or file (it decides e.g. whether a Back target is shown).")))
    var keymap: String?
    @Option(help: ArgumentHelp(tr("Gesture config file.")))
    var config: String?
    @Flag(help: ArgumentHelp(tr("Print the screen as text instead of the JSON hit map.")))
    var text = false
    @Option(help: ArgumentHelp(tr("Draw it in this installed language ({codes}). Default: English, whatever the environment, so tools see the same labels everywhere.", ["codes": languageCodes()]),
                               valueName: "code"))
    var language: String?

    func validate() throws { try RunCommand.checkLanguage(language) }

    func run() throws {
        let sz = try Setup.size(size)
        let settings = try Setup.settings(config: config)
        let km = try Setup.keymap(keymap, gestures: settings.gestures)
        // English unless asked: the labels tools aim at are the same everywhere. The command's own messages
        // follow the environment (an English default here made even `layout --help` English).
        let catalog = (try? Translations.start(commandLine: language ?? LanguageChoice.english, setting: LanguageChoice.automatic))?.catalog ?? .english
        var state = ShellState(keymap: km, gestures: settings.gestures, size: sz, catalog: catalog)
        guard state.show(screen: screen) else {
            throw ValidationError(tr("unknown screen \"{name}\" (known: {known})", ["name": screen, "known": ScreenRegistry.standard.names.joined(separator: ", ")]))
        }
        let (grid, map) = render(state, size: sz)
        print(text ? grid.text : map.json)
    }
}
