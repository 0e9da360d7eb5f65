import Config
import Localization
import SpeechText
import TerminalModel
import TrackingCore

/// What a screen is asked to handle.
public enum ScreenInput: Sendable {
    /// A bound gesture, phrase or key performed `action`; `target` is the target it acts on (the one focused
    /// just before the gesture began), `gaze` the cell the gaze was on then (for sliders).
    case action(Action, target: Target?, gaze: CellPoint?)
    /// A key the shell did not bind itself (typing by a helper).
    case key(Key)
    /// Dictated text while dictation is on; partial hypotheses arrive with `isFinal == false`.
    case dictation(String, isFinal: Bool)
    /// Time has passed (seconds on the source's clock); for countdowns and simulated replies.
    case tick(Double)
    /// A key for the program on the Terminal screen, from the keymap's `[terminal]` section.
    case terminalKey(TerminalKeyPress)
    /// A `[desktop]` command for the Desktop screen: the pointer, the private latch.
    case desktop(DesktopCommand)
    /// What the screen asked to be said was not heard (no speaker, no voice), and why.
    case notHeard(UIMessage)
}

/// Where a reply sends the user.
public enum Navigation: Sendable {
    /// Open the screen registered under this name.
    case open(String)
    /// Push a ready-made screen (when it needs arguments, e.g. which note to edit).
    case push(any Screen)
    /// Leave this screen for the one before.
    case back
    /// Return to the launcher.
    case home
    /// Replace this screen by another.
    case replace(any Screen)
}

/// A screen's answer to an input.
public struct Reply: Sendable {
    /// False lets the shell apply its default (back pops, next moves focus, …).
    public var handled: Bool
    public var navigation: Navigation?
    public var effects: [Effect]
    /// What to report for `--events` (`"open"`, `"toggle"`…); nil reports the keymap action's own name.
    public var record: String?
    /// Changes to the user's notes and messages (applied, and saved, by the shell, even when not handled).
    public var changes: [AppData.Change]
    /// Report the action without its target: the target would tell what was typed at a password prompt.
    public var hideTarget: Bool
    /// The screen's targets are as they were: nothing it lays out changed (a key passed on to a program whose
    /// echo, not the key, changes the screen), so the shell need not lay it out again.
    public var keepsLayout = false

    public init(handled: Bool = true, navigation: Navigation? = nil, effects: [Effect] = [], record: String? = nil,
                changes: [AppData.Change] = [], hideTarget: Bool = false) {
        self.handled = handled; self.navigation = navigation; self.effects = effects; self.record = record
        self.changes = changes; self.hideTarget = hideTarget
    }

    public static let handled = Reply()
    public static let unhandled = Reply(handled: false)
    public static func open(_ screen: String) -> Reply { Reply(navigation: .open(screen), record: "open") }
    public static func push(_ screen: any Screen) -> Reply { Reply(navigation: .push(screen), record: "open") }
    public static func effects(_ e: Effect...) -> Reply { Reply(effects: e) }
}

/// What a screen may read while rendering or handling input.
public struct ScreenContext: Sendable {
    @Shared public var keymap: Keymap
    public var gestures: [GestureDefinition]
    /// Current time on the source's clock (seconds).
    public var now: Double
    /// The focused target, for widgets that draw focus themselves.
    public var focus: String?
    /// Pure helpers the apps use (committing a word, dictation, the keymaps' names).
    @Shared public var services: Services
    /// The word predictor as the state holds it: suggestions, phrases, and whether the words are loading.
    @Shared public var predictor: Predictor
    /// How frames are tracked, as the state holds it (the pointer's calibration among it).
    @Shared public var pipeline: PipelineSettings
    /// The pointer calibration in use (nil: none), which a new one must beat on the check dots.
    public var calibration: PointerCalibration? { pipeline.mapping.calibration }
    /// The tracking values in effect, read from the pipeline settings.
    public var trackingInEffect: TrackingValues { settings.tracking.inEffect(pipeline) }
    /// The user's notes, messages and drafts as they are now (screens ask for changes in `Reply.changes`).
    @Shared public var data: AppData
    @Shared public var settings: ShellSettings
    /// The body area the screen renders into, so `handle` can recompute the layout `render` used (sliders,
    /// scrollable lists).
    public var bounds: Rect
    /// Gestures under way with their progress 0…1 (hold-to-confirm shows its countdown from these).
    public var progress: [GestureProgress]
    /// What the Terminal screen's program shows, as the runtime last read it (nil: nothing hosted yet).
    @Shared public var terminal: TerminalView?
    /// How delivery to the output sink stands (the text it did not take stays on screen).
    @Shared public var output: OutputStatus
    /// The input as the status line shows it, with the last frame's raw pointer (the Calibration screen).
    @Shared public var tracking: TrackingStatus
    /// The screens the shell can open (the launcher's tiles come from here).
    public var screens: ScreenRegistry
    /// The programs and directory listings the Terminal screen's suggestions are made from.
    @Shared public var listings: CommandLineListings
    /// Where the Desktop screen types and points, and how delivery there stands.
    @Shared public var desktop: DesktopOutput
    /// Safe start and pause: the Desktop screen's pointer holds still until armed and while paused.
    @Shared public var readiness: Readiness
    /// The speaker is saying something: a Speak key offers Stop.
    public var speaking: Bool
    /// The translations to draw with: `tr` and `trn` read it.
    @Shared public var catalog: Catalog

    public init(keymap: Keymap, gestures: [GestureDefinition] = [], now: Double = 0, focus: String? = nil,
                services: Services = Services(), data: AppData = .firstStart, settings: ShellSettings = ShellSettings(),
                bounds: Rect = Rect(x: 0, y: 1, w: 100, h: 27), progress: [GestureProgress] = [],
                terminal: TerminalView? = nil, output: OutputStatus = OutputStatus(),
                tracking: TrackingStatus = TrackingStatus(),
                screens: ScreenRegistry = .standard, listings: CommandLineListings = CommandLineListings(),
                desktop: DesktopOutput = DesktopOutput(), readiness: Readiness = Readiness(), speaking: Bool = false,
                predictor: Predictor = .none, pipeline: PipelineSettings? = nil,
                catalog: Catalog = .english) {
        self.init(keymap: Shared(wrappedValue: keymap), gestures: gestures, now: now, focus: focus,
                  services: Shared(wrappedValue: services), predictor: Shared(wrappedValue: predictor),
                  pipeline: Shared(wrappedValue: pipeline ?? PipelineSettings(gestures: gestures)), data: Shared(wrappedValue: data),
                  settings: Shared(wrappedValue: settings), bounds: bounds, progress: progress,
                  terminal: Shared(wrappedValue: terminal), output: Shared(wrappedValue: output),
                  tracking: Shared(wrappedValue: tracking), screens: screens,
                  listings: Shared(wrappedValue: listings), desktop: Shared(wrappedValue: desktop),
                  readiness: Shared(wrappedValue: readiness), speaking: speaking, catalog: Shared(wrappedValue: catalog))
    }

    /// A context sharing the state's parts: each costs one reference count, where a copy of its value cost
    /// one per string and array inside it.
    init(keymap: Shared<Keymap>, gestures: [GestureDefinition], now: Double, focus: String?, services: Shared<Services>,
         predictor: Shared<Predictor>, pipeline: Shared<PipelineSettings>, data: Shared<AppData>, settings: Shared<ShellSettings>, bounds: Rect, progress: [GestureProgress],
         terminal: Shared<TerminalView?>, output: Shared<OutputStatus>, tracking: Shared<TrackingStatus>,
         screens: ScreenRegistry, listings: Shared<CommandLineListings>, desktop: Shared<DesktopOutput>,
         readiness: Shared<Readiness>, speaking: Bool, catalog: Shared<Catalog>) {
        _keymap = keymap; self.gestures = gestures; self.now = now; self.focus = focus
        _services = services; _predictor = predictor; _pipeline = pipeline; _data = data; _settings = settings; self.bounds = bounds
        self.progress = progress; _terminal = terminal; _output = output; _tracking = tracking
        self.screens = screens; _listings = listings; _desktop = desktop; _readiness = readiness
        self.speaking = speaking
        _catalog = catalog
    }
}

extension ScreenContext {
    /// `msgid` in the shell's language, its `{name}` placeholders filled from `arguments`: a literal at the call
    /// site (`ctx.tr("Look at a tile")`) is extracted for translators; a variable is a string marked with `N_`
    /// where it is kept (a table's label), translated here.
    public func tr(_ msgid: String, _ arguments: [String: String] = [:], context: String? = nil) -> String {
        catalog.tr(msgid, arguments, context: context)
    }

    /// A table's options (labels marked with `N_`) with their labels in the shell's language.
    public func tr(_ options: [(key: String, label: String)]) -> [(key: String, label: String)] {
        options.map { ($0.key, catalog.tr($0.label)) }
    }

    /// The form of `singular`/`plural` that `n` takes in the shell's language (`{n}` filled with `n`).
    public func trn(_ singular: String, _ plural: String, _ n: Int, _ arguments: [String: String] = [:],
                    context: String? = nil) -> String {
        catalog.trn(singular, plural, n, arguments, context: context)
    }
}

/// A full-screen page of the shell: it draws itself and declares its targets, and handles actions on them.
///
/// Screens are values kept on the shell's stack; `handle` mutates the screen's own state. See `docs/shell.md`.
public protocol Screen: Sendable {
    /// The screen's name: keymap `[screen.NAME]` sections and `layout --screen NAME` use it.
    var name: String { get }
    /// The title shown in the title bar, in English (marked with `N_` where it is written).
    var title: String { get }
    /// The title in the shell's language; the default looks `title` up in the catalog. A screen whose title
    /// holds a name (a contact's) says it through a message with a placeholder.
    func title(in catalog: Catalog) -> String
    /// Draws into `canvas` (its `bounds` is the body area, between the title bar and the status line) and
    /// declares targets with `canvas.target` or the widgets, which do it for you.
    func render(_ canvas: inout Canvas, _ context: ScreenContext)
    /// Handles an input; the default handles nothing.
    mutating func handle(_ input: ScreenInput, _ context: ScreenContext) -> Reply
    /// What to do as the shell leaves the screen by back or home (a text screen learns the word being typed);
    /// the default, nothing.
    func leaving(_ context: ScreenContext) -> [Effect]
    /// Whether `handle` acts on `.tick`; the default, yes. A screen that never does spares the shell a context
    /// made for nothing twenty times a second while it shows.
    var wantsTicks: Bool { get }
    /// Whether `render` draws from the tracker's frame itself (the raw pointer, the frame's time, the
    /// desktop pointer's dwell): such a screen is drawn at every frame, not only when `FrameLook` changes.
    /// The default, no.
    var drawsFrames: Bool { get }
    /// Whether the target `id` is a key whose wrong activation one ⌫ undoes (a letter, a mark, space or ⌫ of
    /// the screen's own text): the gestures' shorter `key_hold_ms` applies while it is focused. The default, no.
    func undoableKey(_ id: String) -> Bool
    /// Whether the screen has keys `undoableKey` holds (a text's letter keys), where the shorter hold applies:
    /// help on a screen without them leaves that hold out. The default, no.
    var hasUndoableKeys: Bool { get }
}

extension Screen {
    public func undoableKey(_ id: String) -> Bool { false }
    public var hasUndoableKeys: Bool { false }
    public func title(in catalog: Catalog) -> String { catalog.tr(title) }
    public mutating func handle(_ input: ScreenInput, _ context: ScreenContext) -> Reply { .unhandled }
    public func leaving(_ context: ScreenContext) -> [Effect] { [] }
    public var wantsTicks: Bool { true }
    public var drawsFrames: Bool { false }
}

/// Services screens use, as closures so the runtime can plug in live versions and tests scripted ones.
public struct Services: Sendable {
    /// Text after committing a suggested word (Prediction's `TextComposition.commit`).
    public var commit: @Sendable (_ word: String, _ text: String) -> String
    /// Names of the keymaps the Settings screen offers (`keymaps/*.toml`).
    public var keymapNames: [String]
    /// The languages installed besides English (Settings › Language), each by its code and its own name
    /// ("es", "Español").
    public var languages: [(code: String, name: String)] = []
    /// Applies a final dictated utterance to a field's text (Speech's `DictationSession`: spoken punctuation,
    /// "delete that", "stop dictation"); the default inserts the words as they are.
    public var dictate: @Sendable (_ utterance: String, _ field: DictationInput) -> DictationResult = Services.plainDictation
    /// The language spoken: dictation's punctuation, number and command words, and the words of voice commands
    /// (English built in; another language's from its pack, `.speechLanguageLoaded`).
    public var speech = SpeechLanguage.english
    /// The language's keyboard letters, accent key and phrase board phrases (English: none; another
    /// language's from its pack, `.languageBoardLoaded`).
    public var board = LanguageBoard.english

    public init(commit: @escaping @Sendable (String, String) -> String = Services.appendWord,
                keymapNames: [String] = ["default", "dwell", "no-wink"]) {
        self.commit = commit; self.keymapNames = keymapNames
    }

    /// Replaces the word being typed by `word` and adds a space.
    @Sendable public static func appendWord(_ word: String, _ text: String) -> String {
        var t = text
        while let last = t.last, !last.isWhitespace { t.removeLast() }
        return t + word + " "
    }
}

/// The shell's own settings that screens and the chrome read.
public struct ShellSettings: Sendable, Equatable {
    /// Draw the gaze cursor (on by default: seeing it reduces gaze error).
    public var showGazeCursor = true
    /// How long focus stays on a target after the gaze leaves it (seconds).
    public var focusGrace = 0.3
    /// How many word suggestions to show.
    public var suggestions = 4
    /// The word on the key: the focused letter key (or space) shows the word typing it would suggest first,
    /// and the commit gesture made there types the key and that word in one action, so the eyes need not
    /// leave the keyboard to read the bar (after AugKey, Diaz-Tula & Morimoto 2016).
    public var wordOnKey = true
    /// The initials key on the text composer's keyboard: initials mode, whole phrases for the first letters of
    /// their words. Off by default: `bench typing` found it slower than the word on the key (eye tracker 11.4
    /// against 16.6 wpm on conversational text), since too few phrases come out right from initials alone.
    public var initialsKey = false
    /// How fast the dots of smooth pursuit turn (keymaps with `pursuit` screens).
    public var pursuitPace: PursuitPace = .normal
    /// Dictation stops after this many seconds without speech (audio time); 0 never stops.
    public var dictationSilence = 10.0
    /// Suggest swear words and slurs from the word list (`offensive-en.txt`); off, they appear only once
    /// the user has typed them.
    public var suggestRudeWords = false
    /// The tracking values the user chose over the gesture config's (jaw threshold, dwell time, smoothing, the
    /// head's reach and dead zone); each one not chosen is the config's own.
    public var tracking = TrackingSettings()
    /// Name of the keymap the user chose (a file in `keymaps/` without `.toml`, or a path); the state's
    /// `keymap` is the one loaded, named the same way.
    public var keymap = "default"
    /// Colours of the whole shell; focus and dwell show by reverse video and characters in every theme.
    public var theme: ThemeKind = .standard
    /// Bigger keys and tiles (more cells per target) where the screen has room.
    public var largeTargets = false
    /// Ring the terminal bell when a target is activated.
    public var bellOnActivate = false
    /// Append a usage record (`metrics.ndjson` in the data folder) at the end of each session.
    public var recordMetrics = true
    /// What the Terminal tile runs (program and arguments); empty: the user's `$SHELL`.
    public var terminalCommand: [String] = []
    /// Dictated numbers as "digits" (23) or "words" (twenty three), whichever engine heard them.
    public var dictationNumbers = "digits"
    /// The dictation engine from the next start: "auto" (Whisper when installed), "whisper", "pocketsphinx".
    public var dictationEngine = "auto"
    /// The Desktop screen's pointer mode: the gaze places the pointer, or the head steers it as a joystick.
    public var desktopPointing: DesktopPointing = .gaze
    /// Head steering: the pointer's speed at full deflection (desktop pixels per second).
    public var desktopPointerSpeed = 600.0
    /// Pointer mode clicks when the pointer rests for the dwell time.
    public var desktopDwellClick = false
    /// The voice Speak uses: "flite" (in the process), "piper" (natural, scripts/python-env.sh speak), "espeak".
    public var speechVoice = "flite"
    /// Speaking speed: 1 is the voice's own.
    public var speechRate = 1.0
    /// Speaking loudness, 0…1.
    public var speechVolume = 1.0
    /// Echo as you type on the text screens: nothing, each word as it is committed, or each sentence as it ends.
    public var speechEcho: SpeechEcho = .off
    /// Hearing the focus: the label of the target the focus settles on is spoken (for low vision).
    public var speakFocus = false
    /// While the wake listener hears the user talking, the mouth's gestures (jaw, pucker, funnel) wait: talking
    /// moves them. Off for a room where a television or others talk all the time.
    public var holdMouthWhileTalking = true
    /// The language of the screens (and, as the packs grow, of prediction and speech): a pack's code ("es"),
    /// or "auto" for the environment's (`LANG`). `--language` overrides it for one run.
    public var language = "auto"
    public init() {}
}

/// The tracking settings the user chose, as overrides of the gesture config's values (`config/*.toml` and
/// `--set`): nil keeps the config's own. The pipeline is made from the config with these over it, in that one
/// direction (`applied(to:)`); what is in effect is read back from the pipeline (`inEffect(_:)`), never stored.
public struct TrackingSettings: Sendable, Equatable {
    /// Press threshold of the jaw gestures (activate), 0…1.
    public var jawThreshold: Double?
    /// Dwell time of the dwell gestures (seconds).
    public var dwellTime: Double?
    /// Gaze smoothing filter.
    public var smoothing: SmoothingKind?
    /// Head pointing (webcam trackers): how far to turn the head, each way, to reach the screen's edge, and
    /// the turn that counts as none (degrees).
    public var headReachDegrees: Double?
    public var headDeadZoneDegrees: Double?

    public init(jawThreshold: Double? = nil, dwellTime: Double? = nil, smoothing: SmoothingKind? = nil,
                headReachDegrees: Double? = nil, headDeadZoneDegrees: Double? = nil) {
        self.jawThreshold = jawThreshold; self.dwellTime = dwellTime; self.smoothing = smoothing
        self.headReachDegrees = headReachDegrees; self.headDeadZoneDegrees = headDeadZoneDegrees
    }
}

/// The tracking values in effect, as the pipeline has them (`TrackingSettings.inEffect(_:)`).
public struct TrackingValues: Sendable, Equatable {
    public var jawThreshold: Double
    public var dwellTime: Double
    public var smoothing: SmoothingKind
    public var headReachDegrees: Double
    public var headDeadZoneDegrees: Double
}

/// How fast the dots of smooth pursuit turn, and how far behind them the eyes may follow.
///
/// Slow: for eyes that follow 0.15-0.3 s behind (ALS, after a stroke). At the normal pace such a lag puts the
/// eyes a quarter turn behind, where the neighbouring dot is, so the wrong target was picked; slower dots
/// keep the lag under a sixth of a turn, and a stricter match keeps still and reading eyes from selecting
/// (`bench pointing`, slow followers: 54% → 95.7% correct, 1 false selection in 10 minutes of idle gaze).
public enum PursuitPace: String, Sendable, Equatable, CaseIterable {
    case normal, slow
    /// Seconds per turn of a dot.
    public var period: Double { self == .slow ? 1.5 : 1 }
    /// How far behind its dot each path is compared (seconds), and the correlation it must reach.
    public var lag: Double { self == .slow ? 0.22 : 0.1 }
    public var threshold: Double { self == .slow ? 0.75 : 0.6 }
}

/// What echo as you type says.
public enum SpeechEcho: String, Sendable, Equatable, CaseIterable {
    case off, words, sentences
}

extension ScreenContext {
    /// The letter keyboard's rows: the keymap's, with the language's letters at their ends.
    public var keyboardRows: [String] { services.board.rows(keymap.keyboardRows, limit: Keymap.maxKeysPerRow) }

    /// The effect that says `text` with the speech settings' voice, speed and loudness.
    public func speakEffect(_ text: String) -> Effect {
        .speak(Utterance(text: text, voice: settings.speechVoice, rate: settings.speechRate, volume: settings.speechVolume,
                         language: catalog.language))
    }
}
