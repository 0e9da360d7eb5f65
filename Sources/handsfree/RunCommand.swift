import ArgumentParser
import Config
import FrameFormats
import Foundation
import Localization
import Runtime
import Transport
import Prediction
import PtyHost
import Shell
import Speech

/// How `handsfree setup` starts the shell.
struct SetupStart {
    /// Where the face model is fetched from (its checksum must still be the model's).
    var modelURL: String
}

/// `handsfree setup`: the guided path from an installed shell to a working face, as screens of the shell
/// itself (a helper's keys, or gaze and the jaw once the tracker sends frames); it ends when setup does.
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: tr("Set up the shell step by step: the face tracker, the webcam's Python parts and face model, microphone and speaker, a gesture check, the pointer."),
        discussion: tr("""
        A helper uses the arrow keys, Enter and Esc (a step back); once the tracker sends frames, gaze and the jaw \
        work too. The choice is kept in tracker.toml in the config folder, which handsfree run then listens to \
        (and, for a webcam, starts the bridge). The first handsfree run opens setup by itself when nothing is set \
        up yet (no settings.toml and no tracker.toml).
        """))

    @Option(help: ArgumentHelp(tr("Fetch the face model from this address instead (a mirror); its SHA-256 must still be the model's."),
                               valueName: "url"))
    var modelURL = FaceModel.officialURL
    @Option(help: ArgumentHelp(tr("ALSA capture device to test."))) var mic = "default"
    @Option(help: ArgumentHelp(tr("Test the microphone with a 16 kHz mono WAV played through ALSA's file plugin."))) var audio: String?
    @Option(help: ArgumentHelp(tr("ALSA playback device to test."))) var speaker = "default"
    @Option(name: .customLong("speaker-file"), help: ArgumentHelp(tr("Test speech output into this WAV file through ALSA's file plugin.")))
    var speakerFile: String?
    @Option(help: ArgumentHelp(tr("The user's data folder, as for run."))) var dataDir: String?
    @OptionGroup(title: tr("Accessibility")) var access: AccessOptions

    func run() throws {
        var args = ["--no-speech", "--no-metrics", "--no-onboarding", "--mic", mic, "--speaker", speaker]
        if let audio { args += ["--audio", audio] }
        if let speakerFile { args += ["--speaker-file", speakerFile] }
        if let dataDir { args += ["--data-dir", dataDir] }
        args += access.arguments
        let run = try RunCommand.parse(args)
        try run.launch(setup: SetupStart(modelURL: modelURL))
    }
}

/// `handsfree run`: the full-screen shell, fed by a replay, a live socket, or only the keyboard.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: tr("Start the full-screen hands-free shell."),
        discussion: tr("Keyboard for a helper: arrows move focus, Enter activates, Esc goes back, ? help, q quits on Home, Ctrl-C quits. On the Terminal screen letters, Esc, Ctrl keys (Ctrl-C too), Home/End, PgUp/PgDn and Delete go to the program."))

    @Option(help: ArgumentHelp(tr("Replay a recording (NDJSON, Live Link Face CSV, .gesichter)."))) var replay: String?
    @Option(help: ArgumentHelp(tr("Listen for live frames: udp://127.0.0.1:11111."))) var listen: String?
    @OptionGroup(title: tr("Live input")) var live: LiveInputOptions
    @Option(name: .customLong("source"),
            help: ArgumentHelp(tr("What drives the shell (livelink, ifacialmocap, mediapipe, openseeface, vmc): the status line says which bound gestures it cannot make. Recognised by itself for all but NDJSON senders such as `handsfree webcam` (mediapipe).")))
    var sourceName: String?
    @Option(help: ArgumentHelp(tr("Keymap name (in keymaps/) or file."))) var keymap: String?
    @Option(help: ArgumentHelp(tr("Gesture config: a file, or the name of one in config/ (gestures, webcam; default: gestures)."))) var config: String?
    @Option(help: ArgumentHelp(tr("Replay speed factor."))) var speed: Double = 1
    @Flag(help: ArgumentHelp(tr("Leave when the replay ends."))) var exitAtEnd = false
    @Flag(help: ArgumentHelp(tr("Skip the first start's guide: setup (opened when nothing is set up yet) and the onboarding help.")))
    var noOnboarding = false
    @Option(help: ArgumentHelp(tr("Folder for notes and messages (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?
    @Option(help: ArgumentHelp(tr("ALSA capture device for dictation and voice commands."))) var mic = "default"
    @Option(help: ArgumentHelp(tr("Play a 16 kHz mono 16-bit WAV (or raw S16LE) through ALSA's file plugin as the microphone.")))
    var audio: String?
    @Flag(help: ArgumentHelp(tr("Run without speech (no model is loaded, no device opened)."))) var noSpeech = false
    @Option(help: ArgumentHelp(tr("ALSA playback device the Speak key and phrases speak on."))) var speaker = "default"
    @Option(name: .customLong("speaker-file"), help: ArgumentHelp(tr("Write what is spoken to this WAV file through ALSA's file plugin instead (no sound card needed).")))
    var speakerFile: String?
    @Option(help: ArgumentHelp(tr("Dictation engine: whisper (each utterance rewritten by Whisper when it ends), pocketsphinx, or auto (whisper when its packages are installed: handsfree doctor names the command). Default: the setting (Settings › Display), else auto.")))
    var dictation: String?
    @Option(help: ArgumentHelp(tr("Whisper model: a CTranslate2 folder, `package` (tiny.en from PyPI), `package-base` (the multilingual base from PyPI), or a faster-whisper name. Default: package for English, package-base for other languages.")))
    var whisperModel: String?

    /// The Whisper worker for dictation in `language`, as `--dictation` (else the setting) asks; nil for
    /// PocketSphinx alone.
    func whisperWorker(_ dictation: String, language: String) throws -> WhisperWorker? {
        guard dictation != "pocketsphinx" else { return nil }
        guard dictation == "auto" || dictation == "whisper" else {
            throw ValidationError(tr("unknown dictation engine \"{name}\" (known: auto, whisper, pocketsphinx)", ["name": dictation]))
        }
        let python = PythonEnv.python()
        let installed = python.map { py -> Bool in
            // The venv's site-packages, without starting Python: auto must cost nothing when it is absent.
            let lib = URL(fileURLWithPath: py).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
            return versions.contains { FileManager.default.fileExists(atPath: lib.path + "/" + $0 + "/site-packages/faster_whisper") }
        } ?? false
        if dictation == "auto" && !installed { return nil }
        guard let python else {
            throw ValidationError(tr("--dictation whisper needs Python: run {command}", ["command": pythonHint("whisper", package: "faster-whisper")]))
        }
        var configuration = WhisperWorker.Configuration(python: python, script: PythonEnv.script("whisper_worker.py"),
                                                        model: whisperModel ?? WhisperWorker.defaultModel(language: language))
        configuration.language = language
        return WhisperWorker(configuration)
    }
    @OptionGroup(title: tr("Accessibility")) var access: AccessOptions
    @Flag(help: ArgumentHelp(tr("Do not append this session's usage record to metrics.ndjson."))) var noMetrics = false
    @Option(name: .customLong("type-into"),
            help: ArgumentHelp(tr("Start on the Terminal screen and send what is typed to this output: {sinks}.", ["sinks": OutputSinks.help(CommandLineText.catalog)]),
                               valueName: "sink"),
            transform: { spec in
                do throws(OutputSinkError) { return try OutputSinks.parse(spec) } catch { throw ValidationError(error.message.shown) }
            })
    var typeInto: OutputChoice?
    @Option(name: .customLong("output"),
            help: ArgumentHelp(tr("Where the Desktop screen types and points: auto (the session's own: Wayland, X11, else uinput), or one of {sinks}.", ["sinks": OutputSinks.desktopUsage]),
                               valueName: "sink"),
            transform: { spec in
                do throws(OutputSinkError) {
                    let choice = try OutputSinks.parse(spec)
                    guard choice.kind.scheme != PtySink.kind.scheme else {
                        throw OutputSinkError(UIMessage("pty is the Terminal screen's own program; the desktop takes {sinks}", ["sinks": OutputSinks.desktopUsage]))
                    }
                    return choice
                } catch { throw ValidationError(error.message.shown) }
            })
    var output: OutputChoice?
    @Flag(help: ArgumentHelp(tr("Start on the Desktop screen: type and point into the focused window of your desktop.")))
    var desktop = false
    @Option(help: ArgumentHelp(tr("The language of the screens for this run: an installed language's code ({codes}). Default: the language setting, else the environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) when it is installed, else English.", ["codes": languageCodes()]),
                               valueName: "code"))
    var language: String?
    @Argument(parsing: .postTerminator,
              help: ArgumentHelp(tr("A program to start on the Terminal screen: handsfree run [options] -- vim notes.txt")))
    var command: [String] = []

    func validate() throws {
        // The language first: the mistakes below are said in it.
        try Self.checkLanguage(language)
        if replay != nil && listen != nil { throw ValidationError(tr("use --replay or --listen, not both")) }
        if !(speed > 0) { throw ValidationError(tr("--speed must be above 0")) }
        if desktop && (typeInto != nil || !command.isEmpty) {
            throw ValidationError(tr("--desktop starts on the Desktop screen; --type-into and -- COMMAND start on the Terminal screen: choose one"))
        }
        if let typeInto, typeInto.kind.scheme != PtySink.kind.scheme, !command.isEmpty {
            throw ValidationError(tr("use --type-into {usage} or -- COMMAND, not both", ["usage": typeInto.kind.usage]))
        }
    }

    /// An unknown `--language` code is a mistake on the command line, listing the installed languages; a known
    /// one is the language of this command's own messages from here on.
    static func checkLanguage(_ language: String?) throws {
        guard let language else { return }
        do throws(UnknownLanguage) {
            _ = try LanguageChoice.resolve(commandLine: language, setting: LanguageChoice.automatic, environment: [:],
                                           installed: Translations.installed().map(\.code))
            if let start = try? Translations.start(commandLine: language, setting: LanguageChoice.automatic) {
                CommandLineText.use(start.catalog)
            }
        } catch {
            throw ValidationError(error.message.shown)
        }
    }

    func run() throws { try launch(setup: nil) }

    /// Whether this start opens setup before the shell: nothing of the user's is set up yet (no settings.toml,
    /// no tracker.toml in the config folder), and the command line names no frame source, program or screen to
    /// start on and does not skip the first start's guide. So `demo`, `replay` and runs with `--listen`,
    /// `--replay`, `--type-into`, `--desktop`, `-- COMMAND` or `--no-onboarding` (what the tests use) never do.
    func opensSetup(_ paths: UserPaths) -> Bool {
        !noOnboarding && replay == nil && listen == nil && typeInto == nil && command.isEmpty && !desktop && !paths.isSetUp
    }

    /// Starts the shell; with `setup` (`handsfree setup`), on the setup screen, ending with it.
    func launch(setup asked: SetupStart?) throws {
        do {
            // Everything that can be wrong with the input is checked before the terminal is taken over.
            let paths = UserPaths.current(dataDir: dataDir)
            let firstRun = asked == nil && opensSetup(paths)
            // The Settings screen's saved choices; a broken settings file is reported, not fatal, and gives way to
            // the last settings the user acted with.
            let (loaded, fileProblems) = UserSettings.load(base: ShellSettings(), from: paths.settings)
            let (lastGood, lastGoodProblem) = LastGoodSettings.load(paths.lastGoodSettings)
            let chosen = LastGoodSettings.choose(loaded: loaded, problems: fileProblems, lastGood: lastGood,
                                                 file: paths.lastGoodSettings)
            var user = chosen.start
            let settingsProblems = chosen.problems + (lastGoodProblem.map { [$0] } ?? [])
            // The language: --language, else the setting, else the environment's; its catalog is what the
            // screens and this command's own messages are drawn with.
            let spoken: Translations.Start
            do throws(UnknownLanguage) { spoken = try Translations.start(commandLine: language, setting: user.language) } catch {
                throw ValidationError(error.message.shown)
            }
            CommandLineText.use(spoken.catalog)
            var problems: [UIMessage] = []
            // The tracker setup chose, listened to when the command line names no source.
            var tracker: TrackerChoice?
            if asked == nil, replay == nil, listen == nil {
                let (saved, problem) = TrackerFile.load(paths.tracker)
                tracker = saved?.address == nil ? nil : saved
                if let problem { problems.append(problem) }
            }
            // A keymap may name the gesture config it is written for (keymaps/webcam.toml: config/webcam.toml);
            // the tracker's own keymap (the webcam's) unless the user chose another.
            let trackerKeymap = user.keymap == "default" ? tracker?.keymap : nil
            let keymap = self.keymap ?? trackerKeymap
            let chosenKeymap = keymap ?? (user.keymap != "default" ? user.keymap : nil)
            let settings = try Setup.settings(config: config ?? Setup.keymapConfig(chosenKeymap))
            var km: Keymap
            var keymapArg = keymap
            if keymap == nil, user.keymap != "default" {
                do { km = try Setup.keymap(user.keymap, gestures: settings.gestures); keymapArg = user.keymap } catch {
                    problems.append(UIMessage("Saved keymap {keymap} not loaded: {error}", ["keymap": user.keymap], reasons: ["error": SetupError.message(of: error)]))
                    km = try Setup.keymap(nil, gestures: settings.gestures)
                }
            } else {
                km = try Setup.keymap(keymap, gestures: settings.gestures)
            }
            user.keymap = keymap == nil ? user.keymap : km.name
            let feed: FrameFeed
            var source = "keyboard"
            var webcam: WebcamBridge?
            if let tracker {
                // A tracker that cannot be listened to is said in the title bar: the shell still starts, on keys.
                do throws(TransportError) {
                    let r = try TrackerLaunch.open(tracker)
                    feed = .live(r)
                    source = tracker.shortName
                    let (bridge, missing) = TrackerLaunch.webcam(tracker, sendingTo: r, paths: paths)
                    webcam = bridge
                    if let missing { problems.append(missing) }
                } catch {
                    feed = .none
                    problems.append(UIMessage("Cannot listen for {tracker} (tracker.toml): {error}",
                                              ["tracker": tr(tracker.title), "error": error.description]))
                }
            } else if let replay {
                // Opened (and a container checked) now, before the terminal is taken over; read as it plays.
                feed = .replay(ReplayItems(try FrameFileReader(path: replay)), speed: speed, name: replay)
                source = "replay"
            } else if let listen {
                let r = try live.open(listen)
                feed = .live(r)
                source = r.address.description
            } else {
                feed = .none
            }
            // A wrong --audio file is an input error: said before the terminal is taken over.
            var audioInput = AudioInput.mic(mic)
            if let audio {
                do { audioInput = try AudioInput.file(audio) } catch {
                    FileHandle.standardError.write(Data("handsfree: \(error.description)\n".utf8))
                    throw ExitCode(1)
                }
            }
            // A sink or a program on the command line opens the Terminal screen at once.
            let startOnTerminal = typeInto != nil || !command.isEmpty
            let first = !noOnboarding && paths.isFirstStart && !startOnTerminal && !desktop && asked == nil
            let storage = StoreClient.files(in: paths.data)
            var services = Services(keymapNames: UserSettings.keymapNames)
            services.languages = Translations.installed().map { ($0.code, $0.name ?? LanguageChoice.ownName($0.code) ?? $0.code) }
            let prediction = LivePrediction()
            // The words of the language the screens are in; they follow it when it changes (the reducer asks).
            prediction.load(language: spoken.catalog.language, paths: paths)
            let speech = noSpeech ? nil : LiveSpeech(input: audioInput, wakePhrase: km.wakePhrase,
                                                             whisper: try whisperWorker(dictation ?? user.dictationEngine,
                                                                                        language: spoken.catalog.language))
            // PocketSphinx starts from where this user's voice on this microphone left it.
            speech?.cepstralMeanFile = paths.cepstralMean(device: audio == nil ? mic : "audio-file")
            services.dictate = Services.sessionDictation
            // A mistake in the pack's own files is said at start, in the language, as at a switch to it (a pack
            // that has no speech data at all, as Dutch, is doctor's to say: it is how that pack is made).
            let parts = LanguageParts.load(spoken.catalog.language)
            services.speech = parts.speech
            services.board = parts.board
            problems += parts.problems
            // Commands in another language are Whisper's, with the language's worker.
            speech?.useLanguage(services.speech)
            var watch = SourceWatch(gestures: settings.gestures, bound: km.boundGestures)
            let sourceName = self.sourceName ?? tracker?.source
            if let name = sourceName {
                guard let caps = SourceCapabilities.named(name) else {
                    throw ValidationError(tr("unknown source \"{name}\" (known: {known})",
                                             ["name": name, "known": SourceCapabilities.all.map(\.name).joined(separator: ", ")]))
                }
                if let message = watch.check(caps) { problems.append(message) }
            }
            // A sink the user named is checked before the terminal is taken over; auto's choice is made when the
            // Desktop screen first shows, and a session it cannot find is named there.
            let desktopSink = (output ?? OutputSinks.auto).open(OutputSetup(command: []))
            if output != nil {
                do throws(OutputSinkError) { try desktopSink.check() } catch {
                    FileHandle.standardError.write(Data("handsfree: \(error.message.shown)\n".utf8))
                    throw ExitCode(1)
                }
            }
            // Everything the first state is made of, read from the command line and the files; the session is
            // one pure function of it, and nothing writes into its state after.
            var start = StartingState(keymap: km, pipeline: settings)
            start.services = services
            start.predictor = .loading
            start.predictorLanguage = spoken.catalog.language
            start.data = AppData.load(storage)
            start.data.offerPhrases(services.board)
            start.source = source
            start.onboarding = first
            start.problems = problems
            start.catalog = spoken.catalog
            start.languageNotice = spoken.notice
            if UserSettings.exists(paths.settings) { user.keymap = km.name; start.savedSettings = user }
            start.theme = access.theme.flatMap(ThemeKind.init(rawValue:))
            start.largeTargets = access.largeTargets
            // The pointer calibration made for this source (--source NAME, else "default"), applied once the
            // display's size is known to be the one it was made at.
            let calibrationKey = sourceName ?? "default"
            (start.savedCalibration, start.calibrationProblem) = CalibrationFile.load(paths.calibration, source: calibrationKey)
            start.liveTracker = listen != nil || tracker != nil
            // The gesture thresholds calibrated for this source, over the config's and the jaw setting's.
            (start.gestureThresholds, start.gestureProblem) = GestureCalibrationFile.load(paths.gestureCalibration, source: calibrationKey)
            // What the escape puts back (the last good copy, else the config's own values with the calibrations
            // saved), and the banner for settings that are wrong (or under which nothing can activate), with the
            // way out. A keymap named on the command line is the one this run is about.
            var known = chosen.known
            if keymap != nil { known?.keymap = km.name }
            start.checksSettings = true
            start.lastGood = known
            start.settingsProblems = settingsProblems
            start.desktopSink = desktopSink.name
            start.opens = (startOnTerminal ? ["terminal"] : []) + (desktop ? ["desktop"] : [])
            if asked != nil || firstRun { start.setup = .init(firstRun: firstRun, quitsWhenDone: asked != nil) }
            start.keepsMetrics = !noMetrics && user.recordMetrics
            let session = Session(starting: start)
            // Where typed text goes; a sink that cannot be reached (a tmux target that is not there) is said
            // before the terminal is taken over.
            let program = !command.isEmpty ? command
                : !session.state.settings.terminalCommand.isEmpty ? session.state.settings.terminalCommand : PtySink.userShell()
            let sink = (typeInto ?? OutputSinks.standard).open(OutputSetup(command: program))
            do throws(OutputSinkError) { try sink.check() } catch {
                FileHandle.standardError.write(Data("handsfree: \(error.message.shown)\n".utf8))
                throw ExitCode(1)
            }
            var runtime = ShellRuntime(session: session, feed: feed, exitAtEnd: exitAtEnd, paths: paths)
            runtime.terminal = TerminalLink(sink)
            runtime.desktop = DesktopLink(desktopSink)
            // Setup may start another tracker: calibrations made after that are kept for its source.
            let key = CalibrationKey(calibrationKey)
            runtime.calibrationKey = key
            runtime.saveCalibration = { CalibrationFile.save($0, size: $1, source: key.name, to: paths.calibration) }
            runtime.saveGestureCalibration = { GestureCalibrationFile.save($0, source: key.name, to: paths.gestureCalibration) }
            runtime.webcam = webcam
            if asked != nil || firstRun {
                runtime.setup = SetupWorker(.init(paths: paths, modelURL: asked?.modelURL ?? FaceModel.officialURL,
                                                  microphone: audioInput, speaker: speakerFile.map { .file($0) } ?? .device(speaker)))
            }
            runtime.prediction = prediction
            runtime.sourceWatch = watch
            runtime.storage = storage
            runtime.commandLineFiles = CommandLineFiles()
            runtime.display = { [access] in try access.display() }
            let kind = replay == nil ? "run" : "replay"
            runtime.saveMetrics = { MetricsFile.save($0, kind: kind, source: source, paths: paths, enabled: true) }
            runtime.speaker = LiveSpeaker(output: speakerFile.map { .file($0) } ?? .device(speaker), setup: PythonEnv.voiceSetup())
            if let speech {
                speech.load()
                runtime.speech = speech
            }
            runtime.keymapWatcher = KeymapWatcher(keymap: keymapArg, gestures: settings.gestures)
            try runtime.run()
            if asked != nil {
                let (saved, _) = TrackerFile.load(paths.tracker)
                print(saved.map { tr("setup: the tracker is {tracker} ({file}); start the shell with: handsfree run", ["tracker": tr($0.title), "file": paths.tracker.path]) }
                      ?? tr("setup: nothing was chosen; run handsfree setup again when you are ready"))
            }
            FileHandle.standardError.write(Data((runtime.summary + "\n").utf8))
            if let note = runtime.unsavedNote { FileHandle.standardError.write(Data((note + "\n").utf8)) }
            if let sig = runtime.exitSignal { throw ExitCode(128 + sig) }
        } catch let e as SetupError {
            FileHandle.standardError.write(Data("handsfree: \(e.message.shown)\n".utf8))
            throw ExitCode(1)
        } catch let e as TransportError {
            FileHandle.standardError.write(Data("handsfree: \(e.description)\n".utf8))
            throw ExitCode(1)
        } catch let e as FrameFileError {
            FileHandle.standardError.write(Data("handsfree: \(e.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
