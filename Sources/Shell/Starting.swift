import Config
import Localization
import TrackingCore

/// Everything a run starts from, as the command line and the files read give it: the first session is one pure
/// function of it (`Session(starting:)`), and nothing writes into its state afterwards; from then on only
/// events change it.
public struct StartingState: Sendable {
    /// The keymap in use, and the tracking settings (the gesture config's) it is read with.
    public var keymap: Keymap
    public var pipeline: PipelineSettings
    public var size = Size(width: 100, height: 30)
    public var services = Services()
    /// The word predictor to start with (`.loading` while the runtime reads it in the background).
    public var predictor: Predictor = .none
    /// The language whose words `predictor` is loading, so that the words follow a change of language (nil:
    /// they do not, as in the demo).
    public var predictorLanguage: String?
    public var data: AppData = .firstStart
    /// Where frames come from, for the status line (`keyboard`, `replay`, `webcam`, an address).
    public var source = "keyboard"
    /// The first start: the onboarding help opens over the launcher.
    public var onboarding = false
    /// The user's saved settings (nil: there is no settings file, and the config's values are the settings).
    public var savedSettings: ShellSettings?
    /// The command line's looks, over the settings (`--theme`, `--large-targets`).
    public var theme: ThemeKind?
    public var largeTargets = false
    /// Problems found reading what the run starts from: the first is shown in the title bar.
    public var problems: [UIMessage] = []
    /// The translations the screens are drawn with, and what to say about the language chosen (it has no pack,
    /// a translation was refused), shown when no problem is.
    public var catalog: Catalog = .english
    public var languageNotice: UIMessage?
    /// The pointer calibration saved for this source, applied at the first size the display reports if it was
    /// made at that size; or why none could be read.
    public var savedCalibration: SavedCalibration?
    public var calibrationProblem: UIMessage?
    /// The run listens to a live tracker: one never calibrated here is offered a calibration.
    public var liveTracker = false
    /// The gesture thresholds calibrated for this source (over the config's and the jaw setting's), or why
    /// they could not be read.
    public var gestureThresholds: [GestureThreshold] = []
    public var gestureProblem: UIMessage?
    /// The settings start is checked: what the escape puts back (the last good copy; nil: the config's own
    /// values with the saved calibrations) and what was wrong with the settings files.
    public var checksSettings = false
    public var lastGood: ShellSettings?
    public var settingsProblems: [UIMessage] = []
    /// The name of the sink the Desktop screen types into.
    public var desktopSink: String?
    /// Screens opened over the launcher at start, in order (`terminal` for a program on the command line,
    /// `desktop` for `--desktop`).
    public var opens: [String] = []
    /// `handsfree setup`, or a first run that opens it: the setup screen, over the rest.
    public var setup: SetupStart?
    /// Whether this run keeps a usage record (`ShellState.keepsMetrics`).
    public var keepsMetrics = false
    /// The scripted user of `handsfree demo`.
    public var demo: DemoScript?

    /// How the setup screen starts.
    public struct SetupStart: Sendable, Equatable {
        public var firstRun: Bool
        public var quitsWhenDone: Bool
        public init(firstRun: Bool, quitsWhenDone: Bool) { self.firstRun = firstRun; self.quitsWhenDone = quitsWhenDone }
    }

    public init(keymap: Keymap, pipeline: PipelineSettings) { self.keymap = keymap; self.pipeline = pipeline }
}

extension Session {
    /// The first session of a run, from what it starts from; pure.
    public init(starting s: StartingState) {
        var state = ShellState(keymap: s.keymap, gestures: s.pipeline.gestures, size: s.size, services: s.services,
                               data: s.data, source: s.source, onboarding: s.onboarding, predictor: s.predictor,
                               catalog: s.catalog)
        state.noticeMessage = s.problems.first
        state.predictorLanguage = s.predictorLanguage
        if let language = s.predictorLanguage, s.predictor.isLoading { state.predictorsLoading = [language] }
        // Said once: the language asked for has no pack, or a translation was refused.
        if state.noticeMessage == nil { state.noticeMessage = s.languageNotice }
        self.init(state: state, settings: s.pipeline)
        if let saved = s.savedSettings { apply(saved) }
        var looks = self.state.settings
        if let theme = s.theme { looks.theme = theme }
        if s.largeTargets { looks.largeTargets = true }
        if looks != self.state.settings { apply(looks) }
        if let problem = s.calibrationProblem, self.state.noticeMessage == nil { self.state.noticeMessage = problem }
        // A live tracker never calibrated here: offer it once, where the user looks first.
        if s.savedCalibration == nil, s.calibrationProblem == nil, s.liveTracker, self.state.noticeMessage == nil {
            self.state.noticeMessage = UIMessage("Pointer not calibrated for this tracker: Settings › Calibrate pointer")
        }
        self.state.savedCalibration = s.savedCalibration
        calibrateGestures(s.gestureThresholds)
        if let problem = s.gestureProblem, self.state.noticeMessage == nil { self.state.noticeMessage = problem }
        if s.checksSettings { startKnownGood(s.lastGood, problems: s.settingsProblems) }
        self.state.desktop.sink = s.desktopSink
        for screen in s.opens { self.state.show(screen: screen) }
        // Setup comes first, over the onboarding help the first start shows after it.
        if let setup = s.setup {
            self.state.stack.append(SetupScreen(firstRun: setup.firstRun, quitsWhenDone: setup.quitsWhenDone))
            self.state.relayout()
        }
        self.state.keepsMetrics = s.keepsMetrics
        demo = s.demo
    }
}
