import Config
import Localization
import SpeechText
import TerminalModel
import TrackingCore

/// Live values for the status line meters, 0…1.
public struct Meters: Sendable, Equatable {
    public var leftEye: Float = 0, rightEye: Float = 0, jaw: Float = 0, tongue: Float = 0, smile: Float = 0
    public init() {}

    /// Reads the meters from a frame's blend shapes.
    public init(_ b: BlendShapes) {
        leftEye = b[.eyeBlinkLeft]; rightEye = b[.eyeBlinkRight]; jaw = b[.jawOpen]; tongue = b[.tongueOut]
        smile = max(b[.mouthSmileLeft], b[.mouthSmileRight])
    }
}

/// What one tracking frame left behind, as the shell needs it: time, face, gaze, meters and gestures under way.
public struct TrackingSample: Sendable, Equatable {
    public var t: Double
    public var face: Bool
    /// Smoothed gaze, nil when the source has none or the face is lost.
    public var gaze: GazePoint?
    public var meters: Meters
    /// Gestures under way with their progress 0…1 (hold and dwell fill before they fire).
    public var progress: [GestureProgress]
    /// The target dwell is filling on, with its progress.
    public var dwellTarget: String?
    /// The target under the gaze on the screen showing when the frame came (found once, by the session).
    public var target: String?
    /// The face's blend shapes (all at rest without a face), for safe start's still-face check.
    public var blend: BlendShapes
    /// The pipeline's tracking epoch: it changes when the source's clock jumps (a restarted tracker).
    public var epoch: Int
    /// Late frames dropped so far.
    public var lateFrames: Int
    /// The pointer before calibration and smoothing (what the Calibration screen samples).
    public var rawPointer: GazePoint?
    /// A held gesture performed too weakly to act, ending at this frame.
    public var weak: WeakPerformance?

    public init(t: Double, face: Bool = true, gaze: GazePoint? = nil, meters: Meters = Meters(),
                progress: [GestureProgress] = [], dwellTarget: String? = nil, target: String? = nil,
                blend: BlendShapes = BlendShapes(), epoch: Int = 0, lateFrames: Int = 0) {
        self.t = t; self.face = face; self.gaze = gaze; self.meters = meters; self.progress = progress
        self.dwellTarget = dwellTarget; self.target = target; self.blend = blend; self.epoch = epoch; self.lateFrames = lateFrames
    }

    /// The sample after the pipeline has consumed a frame; its time is the pipeline's continuous time
    /// (`t` only before the pipeline has used any frame).
    public init(_ p: Pipeline, at t: Double) {
        let blend = p.facePresent ? (p.lastFrame?.blend ?? BlendShapes()) : BlendShapes()
        self.init(t: p.time ?? t, face: p.facePresent, gaze: p.gaze, meters: Meters(blend),
                  progress: p.progress.map { GestureProgress(name: $0.name, progress: $0.progress) },
                  dwellTarget: p.dwellTarget, blend: blend, epoch: p.epoch, lateFrames: p.stats.late)
        rawPointer = p.facePresent ? p.rawPointer : nil
        weak = p.weak
    }
}

/// One gesture under way.
public struct GestureProgress: Sendable, Equatable {
    public var name: String
    public var progress: Double
    public init(name: String, progress: Double) { self.name = name; self.progress = progress }
}

/// A pointer calibration as saved, with the screen size it was made at (it fits no other size).
public struct SavedCalibration: Sendable, Equatable {
    public var calibration: PointerCalibration
    public var size: Size
    public init(calibration: PointerCalibration, size: Size) { self.calibration = calibration; self.size = size }
}

/// What the status line shows about the input.
public struct TrackingStatus: Sendable, Equatable {
    /// Where frames come from, e.g. `udp 127.0.0.1:11111`, `replay session.ndjson`, `keyboard`; a name marked
    /// for translation ("keyboard", "webcam") is shown in the language.
    public var source: String = N_("keyboard")
    public var face = false
    public var gaze: GazePoint?
    public var meters = Meters()
    public var progress: [GestureProgress] = []
    public var dwellTarget: String?
    public var dwellProgress: Double = 0
    /// Frames of the last second of source time (the rate when no runtime measures arrivals).
    private var recent = RateWindow()
    public var framesSeen = 0
    /// The last frame's time and its pointer before calibration and smoothing (nil: no face or no pointer).
    public var frameTime: Double?
    public var rawPointer: GazePoint?
    /// The last frame's blend shapes (nil: no face), what the gesture calibration reads.
    public var blend: BlendShapes?
    /// The gesture thresholds this source's calibration set, if any (the gesture calibration screen shows them).
    public var gestureThresholds: [GestureThreshold] = []
    /// What the runtime measured about the source with its own clock; nil when nothing measures it (headless
    /// runs, tests), and then the status line shows the rate in source time.
    public private(set) var health: InputHealth?

    public init(source: String = "keyboard") { self.source = source }

    /// Frames per second over the last second of source time.
    public var fps: Int { recent.perSecond }

    mutating func update(_ s: TrackingSample, dwellName: Set<String>) {
        framesSeen += 1
        frameTime = s.t; rawPointer = s.rawPointer
        blend = s.face ? s.blend : nil
        face = s.face; gaze = s.face ? s.gaze : nil; meters = s.meters
        progress = s.progress.filter { !dwellName.contains($0.name) }
        dwellTarget = s.dwellTarget
        dwellProgress = s.progress.filter { dwellName.contains($0.name) }.map(\.progress).max() ?? 0
        recent.add(at: s.t)
    }
}

/// What the runtime measured about the frame source with its monotonic clock (the core reads no clock):
/// the real arrival rate, how long the source has been silent, and what it dropped or could not read.
public struct InputHealth: Sendable, Equatable {
    /// Frames that arrived in the last second.
    public var arrivalRate: Int
    /// Whole seconds since the last frame arrived (since the start, before the first frame).
    public var quietSeconds: Int
    /// Frames or packets shed because more arrived than the shell could use (a flood: the newest win).
    public var dropped: Int
    /// Packets that were not frames.
    public var unrecognised: Int
    /// Who sent the newest unrecognised packet, e.g. `127.0.0.1:54321`, and its number.
    public var unrecognisedFrom: String?
    public var unrecognisedPacket: Int?

    public init(arrivalRate: Int, quietSeconds: Int, dropped: Int = 0, unrecognised: Int = 0,
                unrecognisedFrom: String? = nil, unrecognisedPacket: Int? = nil) {
        self.arrivalRate = arrivalRate; self.quietSeconds = quietSeconds; self.dropped = dropped
        self.unrecognised = unrecognised; self.unrecognisedFrom = unrecognisedFrom
        self.unrecognisedPacket = unrecognisedPacket
    }

    /// After this many seconds without a frame, what the last frame said about the face is no longer known.
    public static let staleSeconds = 1
    /// No frame for a second or more: what the last frame said about the face is no longer known.
    public var stale: Bool { quietSeconds >= Self.staleSeconds }
}

extension TrackingStatus {
    /// Takes the runtime's measures. A silent source leaves nothing to show: gaze, meters and gestures under
    /// way are cleared, so the screen never shows a frozen face as present.
    mutating func apply(_ h: InputHealth) {
        var h = h
        // A steady source's rate moves by a frame or two from one second to the next (59, 60, 61 fps): the
        // figure shown keeps its value through such jitter, so a still face is not redrawn for a number
        // nobody reads that closely. A real change (a source slowing to 30, stopping at 0) shows at once.
        if let shown = health?.arrivalRate, shown > 0, h.arrivalRate > 0, abs(h.arrivalRate - shown) <= 2 {
            h.arrivalRate = shown
        }
        health = h
        guard h.stale else { return }
        gaze = nil; meters = Meters(); progress = []; dwellTarget = nil; dwellProgress = 0
    }
}

/// Events per second over the last second, from times the caller supplies: O(1) per event, any rate.
///
/// Twenty buckets of 50 ms; the count covers the current bucket and the nineteen before it.
public struct RateWindow: Sendable, Equatable {
    private static let buckets = 20
    private static let width = 1.0 / Double(buckets)
    private var counts = [Int](repeating: 0, count: RateWindow.buckets)
    /// The bucket number of the newest time seen.
    private var newest: Int64?
    private var total = 0

    public init() {}

    /// Events in the window ending at the newest time seen (`advance(to:)` moves it without an event).
    public var perSecond: Int { total }

    /// Counts `count` events at time `t` (seconds).
    public mutating func add(at t: Double, count: Int = 1) {
        guard let b = advance(to: t) else { return }
        counts[Self.index(b)] += count
        total += count
    }

    /// Moves the window's end to `t`, forgetting buckets that fell out; returns `t`'s bucket if it is inside
    /// the window. A time far behind the window (a sender that restarted its clock) starts the window over.
    @discardableResult
    public mutating func advance(to t: Double) -> Int64? {
        // Bucket numbers must fit an Int64; times that large are not real (and are refused upstream).
        guard t.isFinite, abs(t) < 1e12 else { return nil }
        let b = Int64((t / Self.width).rounded(.down))
        guard let n = newest, b >= n - Int64(Self.buckets) else {
            counts = [Int](repeating: 0, count: Self.buckets); total = 0; newest = b
            return b
        }
        if b > n {
            if b - n >= Int64(Self.buckets) {
                for k in counts.indices { counts[k] = 0 }
                total = 0
            } else {
                var k = n + 1
                while k <= b { total -= counts[Self.index(k)]; counts[Self.index(k)] = 0; k += 1 }
            }
            newest = b
            return b
        }
        return b > n - Int64(Self.buckets) ? b : nil
    }

    private static func index(_ b: Int64) -> Int { Int(((b % Int64(buckets)) + Int64(buckets)) % Int64(buckets)) }
}

/// One action the shell performed, for `--events` output and logs.
public struct ActionRecord: Sendable, Equatable {
    public var t: Double
    /// `open`, `back`, `home`, `help`, `quit`, or a keymap action name.
    public var action: String
    /// The target acted on, or for `back` the screen that was left.
    public var target: String?
    /// The screen showing afterwards.
    public var screen: String

    public init(t: Double, action: String, target: String?, screen: String) {
        self.t = t; self.action = action; self.target = target; self.screen = screen
    }

    /// `{"t": 3.2, "action": "open", "target": "launcher.notes", "screen": "notes"}`.
    public var json: String {
        "{\"t\": \(JSONText.number(t)), \"action\": \(JSONText.quote(action)), \"target\": "
            + (target.map(JSONText.quote) ?? "null") + ", \"screen\": \(JSONText.quote(screen))}"
    }
}

/// What the runtime must do for the reducer; the reducer itself touches nothing outside its state.
public enum Effect: Sendable, Equatable {
    case quit
    /// Leave the loop now, ended from outside (`signal`: the command exits with 128 + it; nil: a replay or
    /// demo the run leaves at its end), first writing `unsaved`, the text whose save failed, to the fallback
    /// places (the state folder, else the temporary folder): nothing asks first.
    case end(signal: Int32?, unsaved: [String: String])
    /// Append this session's usage record to the metrics file: the session adds it before the `.quit` or
    /// `.end` that ends a run which keeps metrics (`ShellState.keepsMetrics` and the setting).
    case recordMetrics(SessionMetrics)
    case startDictation
    case stopDictation
    /// Push-to-talk: listen for one spoken command (a grammar of keymap phrases and on-screen labels).
    case listenForCommand
    /// Take the head's pose now as pointing at the middle of the screen (`Session` does it).
    case recentre
    /// Use this pointer calibration from now on (nil: none); the reducer tries it (saved once kept).
    case calibrated(PointerCalibration?)
    /// Shift the calibration so that `raw`, seen while the user looked at the centre, lands there.
    case driftCorrect(raw: GazePoint)
    /// Use these gesture thresholds from now on (the gesture calibration's); the reducer tries them (saved
    /// for this source once kept).
    case gesturesCalibrated([GestureThreshold])
    /// Something for the program on the Terminal screen: keys and text for its output sink, scrolling, a
    /// restart; and, from the reducer, starting it and keeping it the pane's size (`terminalPaneRequests`).
    /// A failure to deliver comes back as `.output`.
    case terminal(TerminalRequest)
    /// Keys, text and pointer events for the desktop (the Desktop screen), through the sink `--output`
    /// chose; `.start` connects it when the screen first shows. A failure comes back as `.desktopOutput`.
    case desktop(TerminalRequest)
    /// Read the focused window's controls from the accessibility bus now and, with `follow`, again whenever
    /// they change (the Controls view shows); `follow: false` stops following. Answered by `.controlsRead`.
    case readControls(follow: Bool)
    /// Act on a control of a reading: its default action, the focus for a text field; answered by
    /// `.controlPerformed`.
    case performControl(ControlTarget)
    /// An action was performed (for `--events`, logs and the demo).
    case performed(ActionRecord)
    /// Write a file of the user's data (`AppData`) with this text; the outcome comes back as `.saved`.
    case save(name: String, text: String)
    /// The microphone is for this now: the speech side follows (`turn` changes at every change of mode, so a
    /// stop and a restart between two looks are not missed; `silence` ends dictation after that long).
    case listen(MicMode, turn: Int, silence: Double)
    /// What a voice command may say on the screen showing changed: these phrases (`voicePhrases`: the keymap's
    /// phrases and "open/select <label>") for the speech side. Made only where something listens
    /// (`ShellState.speechListens`, told by `.speechStarted`): the targets change with every echoed key.
    case voicePhrasesChanged([String])
    /// Read the keymap of this name (a file in `keymaps/`, or a path) for these gestures and watch it; answered
    /// by `.keymapLoaded(_, notice:)` with `notice`, or by `.notice` saying why it was not loaded.
    case loadKeymap(name: String, gestures: [GestureDefinition], notice: UIMessage?)
    /// The text before the caret after a dictated utterance: the context the recogniser reads the next in.
    case dictationContext(String, userWords: [String] = [])
    /// Read the programs on `PATH` for the Terminal screen's suggestions; answered by `.commandsListed`.
    case listCommands
    /// Read a directory typed on the command line; answered by `.directoryListed`.
    case listDirectory(CommandLineListings.Directory)
    /// Word prediction learns a word the user finished (typed letter by letter, or committed from the bar)
    /// after the text before it: the reducer learns it into `ShellState.predictor` (`learn`), and asks for the
    /// file to be written (`saveLearnedWords`). The edge does nothing with it.
    case learnWord(String, after: String)
    /// Keep the sentences of committed text in the user's sentence history (`SentenceHistory`); never text typed
    /// privately or into a password prompt. Learned by the reducer, like `learnWord` (`saveSentences`).
    case learnSentences(String)
    /// Forget one sentence of the user's sentence history (removed from the phrase board's frequent row);
    /// learned by the reducer, like `learnWord`.
    case forgetSentence(String)
    /// The user asked for a word to be suggested (`add-word`); learned by the reducer, like `learnWord`.
    case addWord(String)
    /// The user asked never to see a word again (`remove-word`); learned by the reducer, like `learnWord`.
    case removeWord(String)
    /// Write the learned words' file with this text, after the reducer learned (nil: no place to write it);
    /// a failure is said in the title bar and the write tried again.
    case saveLearnedWords(Predictor.Write)
    /// Write the sentence history's file with this text, after the reducer learned.
    case saveSentences(Predictor.Write)
    /// Write these files of the user's data, which could not be saved, to a fallback place (the state folder,
    /// else the temporary folder) before quitting; the outcome comes back as `.rescued`.
    case rescue(files: [String: String])
    /// The user has seen the onboarding help: remember it in the state dir.
    case finishedOnboarding
    /// The Settings screen changed the shell's settings: the reducer applies them at once (state and, through
    /// `Session`, a rebuilt pipeline), trying a change that decides whether gestures act; the runtime loads a
    /// changed keymap. The reducer also returns it when a trial lapses or the escape restores settings.
    case settingsChanged(ShellSettings)
    /// Write the settings to the user's config (`settings.toml`): a change kept, or one put back.
    case saveSettings(ShellSettings)
    /// Write the last settings the user acted with beside them (`settings.last-good.toml`).
    case saveKnownGood(ShellSettings)
    /// Write the pointer calibration in use for this source, made at this screen size, now that it is kept
    /// (nil removes it).
    case saveCalibration(PointerCalibration?, size: Size)
    /// Write the gesture calibration's thresholds for this source, now that they are kept (empty removes them).
    case saveGestureCalibration([GestureThreshold])
    /// Say this aloud with the speech settings' voice (the runtime's speaker, on threads of its own); what
    /// happens comes back as `.speaking` and `.speechOutput`. It replaces anything being said.
    case speak(Utterance)
    /// Stop speaking now.
    case stopSpeaking
    /// Something the setup screen needs done outside (install, download, the devices, the tracker); the answer
    /// comes back as `.setup`.
    case setup(SetupRequest)
    /// Load the translations of this language (the `language` setting changed: a code, or `auto` for the
    /// environment's); answered by `.languageLoaded`, or a notice when it has no pack.
    case loadLanguage(String)
    /// Load the word predictor of this language (its pack's lists, the user's words and sentences of that
    /// language) in the background; answered by `.predictorLoaded` naming the language.
    case loadPredictor(language: String)
}

/// Text to say and how, as the speech settings were when it was asked for.
public struct Utterance: Sendable, Equatable {
    public var text: String
    /// "flite", "piper" or "espeak".
    public var voice: String
    /// 1 is the voice's own speed.
    public var rate: Double
    /// 0…1.
    public var volume: Double
    /// The language of the text ("en", "es"): a language other than English is said by espeak-ng's voice for
    /// it when the voice asked for has none.
    public var language: String
    public init(text: String, voice: String = "flite", rate: Double = 1, volume: Double = 1, language: String = "en") {
        self.text = text; self.voice = voice; self.rate = rate; self.volume = volume; self.language = language
    }
}

/// Everything that happened, as the reducer receives it.
public enum ShellEvent: Sendable {
    /// A tracking frame went through the pipeline.
    case frame(TrackingSample)
    /// Only a gaze point (tests, simple sources).
    case gaze(GazePoint?, at: Double)
    /// A gesture was recognised; its `gaze` is from just before it began.
    case gesture(GestureEvent)
    /// A helper pressed a key.
    case key(Key)
    /// Speech was recognised: a command phrase, or dictation while dictating.
    case speech(String, isFinal: Bool)
    /// A final command utterance heard by Whisper in another language, with its scores of the screen's phrases
    /// (`CommandWords.scoredCommand` decides from them; dictation takes the text as a final).
    case scoredCommand(String, CommandScores)
    /// Time passed with no frame (live keyboard use).
    case tick(at: Double)
    case resized(Size)
    /// The runtime's measures of the frame source (arrival rate, silence, drops), from its own clock.
    case inputHealth(InputHealth)
    /// What the speech side says about the microphone while it is not open, e.g. "no microphone: …"
    /// (nil: nothing to say).
    case micStatus(UIMessage?)
    /// The wake phrase was heard alone: the microphone now listens for one command.
    case wakePhraseHeard
    /// Dictation heard nothing for this many seconds and closed the microphone.
    case dictationSilence(seconds: Double)
    /// The wake listener hears the user talking, or no longer does.
    case talking(Bool)
    /// Speech cannot be used (no model, no microphone, off in this run), with the reason to show.
    case speechUnavailable(UIMessage)
    /// A message for the title bar from the runtime (a file not saved, a keymap not loaded); nil clears it.
    /// Shown as it is: `message` is the form translated when drawn, which every notice becomes.
    case notice(String?)
    /// A notice as a message translated when drawn, so a language switch re-labels it; nil clears it.
    case message(UIMessage?)
    /// The translations of another language were loaded (`loadLanguage`): screens are drawn with them from now.
    case languageLoaded(Catalog)
    /// The speech data of that language were loaded (its spoken punctuation, number and command words):
    /// dictation and voice commands follow them from now.
    case speechLanguageLoaded(SpeechLanguage)
    /// The keyboard's letters, accent key and phrase board phrases of that language were loaded (its pack's
    /// `[keyboard]` and `[phrases]`; English's are the shell's own).
    case languageBoardLoaded(LanguageBoard)
    /// A keymap was loaded (the file changed, or Settings chose another), with what to say about it.
    case keymapLoaded(Keymap, notice: UIMessage?)
    /// The word lists of a language finished loading (either way, `loadPredictor`): the predictor of that
    /// language (a code as `Catalog.language` gives it; nil: a run whose words do not follow the language), and
    /// a problem to show (a damaged file kept aside, a language without word data). Consulted from now on if
    /// that language is still the one in use, else kept for when it comes back (`parkedPredictors`).
    case predictorLoaded(Predictor, language: String?, problem: UIMessage?)
    /// A `save` effect was carried out: `error` says why the file was not written (nil: it was).
    case saved(name: String, error: UIMessage?)
    /// The programs on `PATH` (`listCommands`), sorted.
    case commandsListed([String])
    /// A directory's entries (`listDirectory`); nil when it could not be read.
    case directoryListed(CommandLineListings.Directory, [CommandLineCompletion.Entry]?)
    /// A `rescue` effect was carried out: the folder the files went to, or why no copy could be written.
    case rescued(place: String?, error: String?)
    /// What the Terminal screen's program shows now (its screen changed, it ended, its tty's modes changed).
    case terminal(TerminalView)
    /// The output sink failed to deliver text or a key, or delivered again after a failure.
    case output(OutputReport)
    /// The desktop sink failed to deliver, or delivered again after a failure.
    case desktopOutput(OutputReport)
    /// The desktop sink answered under this name (`X11 :0`; auto says which it chose).
    case desktopSink(String)
    /// The focused window's controls as the accessibility bus showed them (or why there are none).
    case controlsRead(ControlsSnapshot)
    /// What became of a `.performControl`.
    case controlPerformed(ControlReport)
    /// The speaker began (true) or ended (false) saying something.
    case speaking(Bool)
    /// The speaker could not use the chosen voice or the audio device: what to install or pass (the
    /// fallback voice may be speaking instead).
    case speechOutput(problem: UIMessage)
    /// What was asked to be said was not heard at all (no audio device, no voice that starts), and why.
    case notHeard(problem: UIMessage)
    /// What the runtime did for the setup screen.
    case setup(SetupReport)
    /// The speech side has started and follows the microphone and the phrases from now on: the reducer
    /// answers with both as they stand (later changes come as effects of the events that make them).
    case speechStarted
    /// The shell is being ended from outside: a signal (SIGTERM, SIGHUP, its terminal gone), or a replay or
    /// demo that ended (`signal` nil). A helper's Ctrl-C or Ctrl-\ off the Terminal screen comes as a key.
    case ending(signal: Int32?)

    /// Whether the event is the user asking for something (a gesture, key or phrase), not time or layout.
    var isUserInput: Bool {
        switch self {
        case .gesture, .key, .speech, .scoredCommand: return true
        case .frame, .gaze, .tick, .resized, .inputHealth, .micStatus, .wakePhraseHeard, .dictationSilence, .talking,
             .speechUnavailable, .notice, .message, .languageLoaded, .speechLanguageLoaded, .languageBoardLoaded, .keymapLoaded, .predictorLoaded, .saved, .rescued,
             .terminal, .output, .desktopOutput, .desktopSink, .controlsRead, .controlPerformed, .speaking, .speechOutput,
             .notHeard, .commandsListed, .directoryListed, .setup, .ending, .speechStarted: return false
        }
    }
}

/// The state of the whole shell.
public struct ShellState: Sendable {
    /// Screens from the launcher (root) to the one showing.
    public var stack: [any Screen]
    /// The keymap in use, named as it was chosen (`Setup.keymap`): its `name` is the keymap the bindings are
    /// read from, `settings.keymap` the one the user chose; they differ only while a choice could not be loaded
    /// (said in the title bar), and nothing copies one into the other but the start and the tracker's keymap,
    /// where the keymap loaded is the new choice.
    @Shared public var keymap: Keymap
    /// The gesture config's tracking settings (`config/*.toml` with `--set`), with the calibrations and the
    /// head's centre: what the pipeline is made from, before the settings' tracking overrides.
    @Shared public var trackingConfig: PipelineSettings {
        didSet { derivePipeline() }
    }
    /// How frames are tracked: smoothing, pointer mapping and calibration, the gestures. Made only from
    /// `trackingConfig` with `settings.tracking` over it, whenever either changes: the session configures its
    /// pipeline from it whenever it changes (`pipelineVersion`), and screens read it through the context.
    @Shared public private(set) var pipelineSettings: PipelineSettings {
        didSet { pipelineVersion &+= 1; dwellGestures = Self.dwellNames(pipelineSettings.gestures) }
    }
    /// Bumped at every change of `pipelineSettings`.
    public private(set) var pipelineVersion = 0
    /// Names of gestures of the dwell kind, whose progress the shell draws on the target: kept with the
    /// gestures, since frames with a gesture under way ask for them.
    private(set) var dwellGestures: Set<String> = []
    /// The pointer calibration in use (nil: none): the mapping's, kept there only.
    public var calibration: PointerCalibration? { pipelineSettings.mapping.calibration }
    /// The gesture definitions in use (the pipeline's).
    public var gestures: [GestureDefinition] { pipelineSettings.gestures }
    /// The tracking values in effect, read from the pipeline settings (what the Settings screen shows).
    public var trackingInEffect: TrackingValues { settings.tracking.inEffect(pipelineSettings) }
    @Shared public var settings: ShellSettings {
        didSet { if settings.tracking != oldValue.tracking { derivePipeline() } }
    }

    /// Makes the pipeline settings from the config's and the settings' overrides, the one direction.
    private mutating func derivePipeline() {
        let derived = settings.tracking.applied(to: trackingConfig)
        if derived != pipelineSettings { pipelineSettings = derived }
    }
    @Shared public var services: Services
    /// The word predictor the screens consult: replaced when the word lists load (`.predictorLoaded`), and
    /// when the reducer learns (`learn`).
    @Shared public var predictor: Predictor = .none
    /// The language `predictor` is for (nil: the words do not follow the language, as in tests and the demo).
    /// When the translations change language (`.languageLoaded`), so do the words.
    public internal(set) var predictorLanguage: String?
    /// The predictors of languages used before in this run, with what the user learned in them: switching back
    /// takes one at once, without loading.
    @Shared public internal(set) var parkedPredictors: [String: Predictor] = [:]
    /// The languages whose words are being loaded (`loadPredictor` asked, `.predictorLoaded` not yet come), so
    /// one is not asked for twice.
    public internal(set) var predictorsLoading: Set<String> = []
    /// What the user committed while the words in use were still loading (a fresh home compiles them first),
    /// with the language it was committed in: learned when those words arrive (`.predictorLoaded`), so
    /// nothing typed in the first seconds is forgotten. Bounded by `learningHeldLimit`.
    public internal(set) var learningWhileLoading: [HeldLearning] = []
    /// The user's notes, messages and drafts.
    @Shared public var data: AppData
    public var registry: ScreenRegistry
    public var size: Size
    /// The targets of the screen showing, laid out for `size`.
    public private(set) var hitMap = HitMap()
    /// Bumped whenever `hitMap` changes, so the runtime knows the on-screen phrases may have changed.
    public private(set) var layoutVersion = 0
    public var focus: FocusTracker
    @Shared public var tracking: TrackingStatus
    /// Safe start and the hands-free pause.
    @Shared public var readiness = Readiness()
    public var now: Double = 0
    /// What the microphone is for: kept here only; the speech thread follows it (`SpeechController.follow`).
    public var mic: MicMode = .closed { didSet { if mic != oldValue { micTurn &+= 1 } } }
    /// Bumped at every change of `mic`, so a follower sees a stop and a restart between two looks.
    public private(set) var micTurn = 0
    /// Dictating into a text field.
    public var dictating: Bool {
        get { mic == .dictation }
        set { if newValue { mic = .dictation } else if mic == .dictation { mic = .closed } }
    }
    /// The microphone is open for one voice command (push-to-talk or the wake phrase).
    public var listening: Bool {
        get { mic == .command }
        set { if newValue { mic = .command } else if mic == .command { mic = .closed } }
    }
    /// The wake listener hears the user talking (speech activity while the microphone is not open).
    public var talking = false
    /// Recent weak performances (held too low to act) of each gesture, since its last success.
    public internal(set) var weakPerformances: [WeakPerformance] = []
    /// What the runtime says about speech when the microphone is not open, e.g. "no microphone: …"
    /// (nil draws nothing: speech not configured).
    public var micStatus: UIMessage?
    /// Bumped whenever a screen handled an input, so a runtime knows to redraw after a tick changed something.
    public internal(set) var revision = 0
    /// A short notice shown in the title bar (e.g. an unknown screen), or on the notice line when it does not
    /// fit there (`NoticeLine`): a message, translated when drawn (`shownNotice`).
    public var noticeMessage: UIMessage? { didSet { if noticeMessage != oldValue { noticeAt = now } } }
    /// The notice in English; a text set here is shown as it is in every language (`UIMessage.verbatim`), as
    /// notices were before they became messages.
    public var notice: String? {
        get { noticeMessage?.english }
        set { noticeMessage = newValue.map(UIMessage.verbatim) }
    }
    /// The notice as the user reads it: in the language of the catalog.
    public var shownNotice: String? { noticeMessage.map { $0.text(catalog) } }
    /// The translations screens are drawn with (English: the empty catalog). Replaced by `.languageLoaded`.
    @Shared public var catalog = Catalog.english
    /// When the notice was set, in frame time: its parts on the notice line take turns from then.
    public internal(set) var noticeAt = 0.0
    /// What the Terminal screen's program shows, as the runtime last read it.
    @Shared public var terminal: TerminalView?
    /// What the disk said for the Terminal screen's suggestions (programs, directory listings).
    @Shared public var listings = CommandLineListings()
    /// How delivery to the output sink stands: why it last failed, and the text it did not take.
    @Shared public var output = OutputStatus()
    /// Where the Desktop screen types and points, and how delivery there stands.
    @Shared public var desktop = DesktopOutput()
    /// The pane as the runtime was last asked to start and size the program for it.
    public internal(set) var terminalPane = TerminalPane()
    /// The speaker is saying something (the status line shows it; Speak keys become Stop).
    public var speaking = false
    /// Hearing the focus: which target's label was said, and whether a label is what the speaker is saying.
    public internal(set) var focusVoice = FocusVoice()
    /// Smooth pursuit on the screens the keymap names (`pursuit` in [options]).
    public var pursuit = PursuitDetector()
    /// A change to what decides whether gestures act, tried until the user acts with it (nil: none).
    public internal(set) var trial: SettingsTrial?
    /// The last settings the user acted with: what the escape puts back.
    public var knownGood: GestureSetup
    /// The `language` setting as it was before its last change in this run: the escape puts it back too, so a
    /// user who chose a language they cannot read finds their way back (nil: not changed).
    public internal(set) var languageBefore: String?
    /// What was wrong with the settings at start (a file's `file:line` problems, settings under which no
    /// gesture can activate), shown with the way out until the user acts or restores.
    public var settingsWarning: [UIMessage] = []
    /// What became of the last change tried or restored, on the settings banner until `settingsOutcomeUntil`.
    public internal(set) var settingsOutcome: String?
    public internal(set) var settingsOutcomeUntil = 0.0
    /// Whether a speech side follows the phrases (`.speechStarted`): only then are they made.
    public internal(set) var speechListens = false
    /// The dictation engine the speech side started with (nil: no speech), so a change in Settings can say
    /// it waits for the next start.
    public internal(set) var speechEngine: String?
    /// A pointer calibration saved earlier for this source, applied at the first size the display reports if
    /// it was made at that size (else the title bar says so).
    public var savedCalibration: SavedCalibration?
    /// Whether this run keeps a usage record (`metrics.ndjson`): the command line did not turn it off and the
    /// setting was on at start. The record is written at the end only if the setting is still on then.
    public var keepsMetrics = false
    /// Whether the last rendering was refused for being too small.
    public var tooSmall: Bool { size.width < Size.minimum.width || size.height < Size.minimum.height }

    public init(keymap: Keymap, gestures: [GestureDefinition] = GestureDefaults.definitions,
                size: Size = Size(width: 100, height: 30), settings: ShellSettings = ShellSettings(),
                services: Services = Services(), data: AppData = .firstStart, registry: ScreenRegistry = .standard,
                source: String = "keyboard", onboarding: Bool = false, predictor: Predictor = .none,
                catalog: Catalog = .english) {
        self.keymap = keymap; self.size = size; self.settings = settings
        trackingConfig = PipelineSettings(gestures: gestures)
        pipelineSettings = settings.tracking.applied(to: PipelineSettings(gestures: gestures))
        self.catalog = catalog
        dwellGestures = Self.dwellNames(gestures)
        knownGood = GestureSetup(settings: settings, gestures: gestures)
        self.services = services; self.predictor = predictor; self.data = data; self.registry = registry
        focus = FocusTracker(grace: settings.focusGrace)
        tracking = TrackingStatus(source: source)
        stack = [registry.make("launcher") ?? LauncherScreen()]
        if onboarding { stack.append(HelpScreen(onboarding: true)) }
        relayout()
    }

    /// The screen showing.
    public var top: any Screen { stack[stack.count - 1] }

    /// Whether the screen showing is an `S`: read from its type, without the copy of the screen that `top`
    /// and a cast make (asked at every tracker frame).
    public func topIs<S: Screen>(_: S.Type) -> Bool { type(of: stack[stack.count - 1]) == S.self }

    /// The screen showing as an `S`, nil when it is another: its type read first (`topIs`), so the screen is
    /// copied out only when it is one.
    public func top<S: Screen>(as _: S.Type) -> S? { topIs(S.self) ? top as? S : nil }

    /// The name of the screen showing, read in place (`top.name` copies the screen first).
    public var topName: String { stack[stack.count - 1].name }

    /// What screens may read.
    public var context: ScreenContext {
        ScreenContext(keymap: $keymap, gestures: gestures, now: now, focus: focus.focused, services: $services,
                      predictor: $predictor, pipeline: $pipelineSettings, data: $data, settings: $settings, bounds: bodyBounds, progress: tracking.progress,
                      terminal: $terminal, output: $output, tracking: $tracking, screens: registry,
                      listings: $listings, desktop: $desktop, readiness: $readiness, speaking: speaking, catalog: $catalog)
    }

    /// Recomputes the hit map after the screen or its layout changed.
    public mutating func relayout() {
        let map = layout(self, size: size)
        if map != hitMap { hitMap = map; layoutVersion &+= 1 }
        focus.validate(hitMap)
    }

    /// The cell a normalised gaze point falls on.
    public func cell(_ g: GazePoint) -> CellPoint {
        CellPoint(gaze: g, in: size)
    }

    /// The id of the target a gaze point picks on the screen showing (nil: no gaze, or nothing near):
    /// snapped to a target just beside it, and the focused one kept while the gaze is on the gap beside it.
    public func target(at g: GazePoint?) -> String? {
        g.flatMap { hitMap.snapped(cell($0), current: focus.focused)?.id }
    }

    static func dwellNames(_ gestures: [GestureDefinition]) -> Set<String> {
        Set(gestures.compactMap { if case .dwell = $0.kind { return $0.name } else { return nil } })
    }
}

/// A screen the shell can open: its name (keymap `[screen.NAME]` sections, `layout --screen NAME`), how to
/// make it, and its tile on the launcher, if it has one.
public struct ScreenEntry: Sendable {
    public var name: String
    public var make: @Sendable () -> any Screen
    /// The launcher's tile for it (nil: opened from elsewhere, such as a note or the quit question).
    public var tile: Tile?

    /// A launcher tile: its label and a line of detail.
    public struct Tile: Sendable, Equatable {
        public var label: String
        public var detail: String
        public init(_ label: String, _ detail: String) { self.label = label; self.detail = detail }
    }

    public init(_ name: String, tile: Tile? = nil, make: @escaping @Sendable () -> any Screen) {
        self.name = name; self.tile = tile; self.make = make
    }
}

/// The screens the shell can open by name: the one list the launcher's tiles, the keymap's screen sections,
/// `layout` and the help read. A new screen is one entry here.
public struct ScreenRegistry: Sendable {
    /// In the launcher's reading order for those with a tile.
    public private(set) var entries: [ScreenEntry]
    public init(_ entries: [ScreenEntry]) { self.entries = entries }

    public func make(_ name: String) -> (any Screen)? { entries.first { $0.name == name }?.make() }
    /// Every screen name, sorted; keymaps may have a `[screen.NAME]` section for each.
    public var names: [String] { entries.map(\.name).sorted() }
    /// The launcher's tiles in reading order: the screen each opens, and the tile.
    public var tiles: [(screen: String, tile: ScreenEntry.Tile)] { entries.compactMap { e in e.tile.map { (e.name, $0) } } }

    /// This registry with one more screen (a later entry of the same name replaces the earlier).
    public func adding(_ entry: ScreenEntry) -> ScreenRegistry {
        var r = self
        r.entries.removeAll { $0.name == entry.name }
        r.entries.append(entry)
        return r
    }

    /// The shell's screens.
    public static let standard = ScreenRegistry([
        ScreenEntry("launcher") { LauncherScreen() },
        // Tiles are marked for translation here and translated where the launcher draws them.
        ScreenEntry("notes", tile: .init(N_("Notes"), N_("write and dictate"))) { NotesScreen() },
        // Practice screens say so on their tiles: their people, replies and albums are made up.
        ScreenEntry("messages", tile: .init(N_("Practice chat"), N_("nobody receives it"))) { MessagesScreen() },
        ScreenEntry("settings", tile: .init(N_("Settings"), N_("gestures and looks"))) { SettingsScreen() },
        ScreenEntry("media", tile: .init(N_("Practice music"), N_("made up, no sound"))) { MediaScreen() },
        ScreenEntry("terminal", tile: .init(N_("Terminal"), N_("shell and programs"))) { TerminalScreen() },
        ScreenEntry("desktop", tile: .init(N_("Desktop"), N_("type into any app"))) { DesktopScreen() },
        ScreenEntry("help", tile: .init(N_("Help"), N_("gestures and phrases"))) { HelpScreen() },
        ScreenEntry("phrases", tile: .init(N_("Phrases"), N_("say it at once"))) { PhrasesScreen() },
        ScreenEntry("note-editor") { NoteEditorScreen() },
        ScreenEntry("conversation") { ConversationScreen() },
        ScreenEntry("calibration") { CalibrationScreen() },
        ScreenEntry("gesture-calibration") { GestureCalibrationScreen() },
        ScreenEntry("setup") { SetupScreen() },
        ScreenEntry(QuitScreen.screenName) { QuitScreen() },
    ])
}

/// The built-in gesture definitions, for states built without a config file (tests, `layout`).
public enum GestureDefaults {
    public static let definitions: [GestureDefinition] = GestureConfig.defaults().gestures
}

extension ShellState {
    /// Opens a screen by name on top of the launcher (for `layout --screen`, goldens and tests).
    /// Returns false if no screen has that name.
    @discardableResult
    public mutating func show(screen name: String) -> Bool {
        if name == "launcher" { stack.removeSubrange(1...); relayout(); return true }
        guard let s = registry.make(name) else { return false }
        stack.removeSubrange(1...)
        stack.append(s)
        relayout()
        return true
    }
}
