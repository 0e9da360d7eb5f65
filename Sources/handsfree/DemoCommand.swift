import ArgumentParser
import Config
import Foundation
import Localization
import Runtime
import Shell

/// `handsfree demo`: a scripted user drives the real shell, paced so a person can watch.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: tr("Watch a scripted user open Notes, write a note with the keyboard and word suggestions, go back, and open Help."))

    @Option(help: ArgumentHelp(tr("Speed factor (2 = twice as fast)."))) var speed: Double = 1
    @Flag(help: ArgumentHelp(tr("Run without a terminal as fast as possible; print each action as a JSON line and the final screen.")))
    var headless = false
    @Flag(help: ArgumentHelp(tr("Same as --headless."))) var fast = false
    @Option(help: ArgumentHelp(tr("Screen size for --headless, WIDTHxHEIGHT."))) var size = "100x30"
    @OptionGroup(title: tr("Accessibility")) var access: AccessOptions
    @Flag(help: ArgumentHelp(tr("Do not append this session's usage record to metrics.ndjson."))) var noMetrics = false
    @Option(help: ArgumentHelp(tr("Folder for the usage record (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?
    @Option(help: ArgumentHelp(tr("The language of the screens: an installed language's code ({codes}). Default: the environment's (LANG) when it is installed, else English.", ["codes": languageCodes()]),
                               valueName: "code"))
    var language: String?

    func validate() throws {
        if !(speed > 0) { throw ValidationError(tr("--speed must be above 0")) }
        try RunCommand.checkLanguage(language)
    }

    /// The language's catalog (--language, else the environment's: the demo reads no user settings).
    func spoken() throws -> Translations.Start {
        do throws(UnknownLanguage) {
            let start = try Translations.start(commandLine: language, setting: LanguageChoice.automatic)
            CommandLineText.use(start.catalog)
            return start
        } catch {
            throw ValidationError(error.message.shown)
        }
    }

    func run() throws {
        // The demo always uses the built-in gestures and the default keymap, so it shows the same thing everywhere.
        let settings = GestureConfig.defaults()
        let paths = UserPaths.current(dataDir: dataDir)
        let spoken = try spoken()
        let km: Keymap
        do { km = try Setup.keymap("default", gestures: settings.gestures) } catch { km = DemoCommand.fallbackKeymap }
        // Real word prediction with nothing learned and nothing saved; the note lives in memory only.
        var start = StartingState(keymap: km, pipeline: settings)
        start.source = N_("demo")
        start.catalog = spoken.catalog
        start.languageNotice = spoken.notice
        // The config's own settings, with the looks the command line asks for.
        var looks = ShellSettings()
        looks.keymap = km.name
        start.savedSettings = access.applied(to: looks)
        start.demo = DemoScript()
        if headless || fast {
            start.size = access.plain ? PlainDisplay().size : try Setup.size(size)
            start.predictor = LivePrediction.loadNow(userFile: nil).0
            var session = Session(starting: start)
            // Plain: the lines a screen reader would get, derived the same way as in the live loop.
            var last: PlainView?
            func describe(_ performed: [ActionRecord]) {
                let view = PlainView(session.state, performed: performed)
                for line in describeChanges(last, view) { print(line) }
                last = view
            }
            if access.plain { describe([]) }
            while let (effects, _) = session.stepDemo() {
                var performed: [ActionRecord] = []
                for e in effects {
                    // Words committed are learned by the session itself, as in the live loop.
                    guard case .performed(let r) = e else { continue }
                    if access.plain { performed.append(r) } else { print(r.json) }
                }
                if access.plain { describe(performed) }
            }
            if !access.plain { print(render(session.state, size: session.state.size).0.text) }
            MetricsFile.save(session.metrics, kind: "demo", source: "demo", paths: paths,
                             enabled: MetricsFile.enabled(noMetrics: noMetrics, paths: paths))
            return
        }
        let prediction = LivePrediction()
        prediction.load(userFile: nil)
        start.predictor = .loading
        start.keepsMetrics = MetricsFile.enabled(noMetrics: noMetrics, paths: paths)
        var runtime = ShellRuntime(session: Session(starting: start), feed: .demo(fps: DemoScript().fps, speed: speed),
                                   exitAtEnd: true, paths: paths)
        runtime.prediction = prediction
        runtime.display = { [access] in try access.display() }
        runtime.saveMetrics = { MetricsFile.save($0, kind: "demo", source: "demo", paths: paths, enabled: true) }
        try runtime.run()
    }

    /// The bindings the demo needs, for when the keymaps folder cannot be found.
    static let fallbackKeymap = Keymap(name: "default", global: KeymapSection(gestures: ["activate": .activate, "back": .back]))
}
