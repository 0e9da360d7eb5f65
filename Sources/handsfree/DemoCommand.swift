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
        abstract: "Watch a scripted user open Notes, write a note with the keyboard and word suggestions, go back, and open Help.")

    @Option(help: "Speed factor (2 = twice as fast).") var speed: Double = 1
    @Flag(help: "Run without a terminal as fast as possible; print each action as a JSON line and the final screen.")
    var headless = false
    @Flag(help: "Same as --headless.") var fast = false
    @Option(help: "Screen size for --headless, WIDTHxHEIGHT.") var size = "100x30"
    @OptionGroup(title: "Accessibility") var access: AccessOptions
    @Flag(help: "Do not append this session's usage record to metrics.ndjson.") var noMetrics = false
    @Option(help: "Folder for the usage record (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")
    var dataDir: String?
    @Option(help: ArgumentHelp("The language of the screens: an installed language's code (es, fr, de, it, pt…; en for English). Default: the environment's (LANG) when it is installed, else English.",
                               valueName: "code"))
    var language: String?

    func validate() throws {
        if !(speed > 0) { throw ValidationError("--speed must be above 0") }
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
        var services = Services()
        let prediction = LivePrediction()
        prediction.install(into: &services)
        if headless || fast {
            let sz = access.plain ? PlainDisplay().size : try Setup.size(size)
            prediction.loadNow(userFile: nil)
            var session = Session(state: ShellState(keymap: km, gestures: settings.gestures, size: sz, services: services,
                                                    source: "demo", catalog: spoken.catalog),
                                  settings: settings)
            session.apply(access.applied(to: session.state.settings))
            var script = DemoScript()
            // Plain: the lines a screen reader would get, derived the same way as in the live loop.
            var last: PlainView?
            func describe(_ performed: [ActionRecord]) {
                let view = PlainView(session.state, performed: performed)
                for line in describeChanges(last, view) { print(line) }
                last = view
            }
            if access.plain { describe([]) }
            while let f = script.next(session.state) {
                var performed: [ActionRecord] = []
                for e in session.step(.frame(f, nil)) {
                    // Words committed are learned, as the live loop's effects teach the predictor.
                    if let learned = prediction.perform(e) { _ = session.send(learned) }
                    guard case .performed(let r) = e else { continue }
                    if access.plain { performed.append(r) } else { print(r.json) }
                }
                _ = session.send(.notice(script.caption))
                if access.plain { describe(performed) }
            }
            if !access.plain { print(render(session.state, size: sz).0.text) }
            MetricsFile.save(session.metrics, kind: "demo", source: "demo", paths: paths,
                             enabled: MetricsFile.enabled(noMetrics: noMetrics, paths: paths))
            return
        }
        prediction.load(userFile: nil)
        let state = ShellState(keymap: km, gestures: settings.gestures, services: services, source: "demo", catalog: spoken.catalog)
        var session = Session(state: state, settings: settings)
        session.apply(access.applied(to: session.state.settings))
        var runtime = ShellRuntime(session: session, feed: .demo(DemoScript(), speed: speed), exitAtEnd: true,
                                   paths: paths)
        runtime.prediction = prediction
        runtime.display = { [access] in try access.display() }
        if MetricsFile.enabled(noMetrics: noMetrics, paths: paths) {
            runtime.saveMetrics = { MetricsFile.save($0, kind: "demo", source: "demo", paths: paths, enabled: true) }
        }
        try runtime.run()
    }

    /// The bindings the demo needs, for when the keymaps folder cannot be found.
    static let fallbackKeymap = Keymap(name: "default", global: KeymapSection(gestures: ["activate": .activate, "back": .back]))
}
