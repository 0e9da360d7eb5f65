import Config
import TerminalModel
import TrackingCore

/// The tracking pipeline and the shell state driven together: one decoded item in, effects out.
///
/// Live runs, replays, the demo and tests all go through this, so they behave the same.
public struct Session: Sendable {
    public var state: ShellState
    /// Rebuilt by `apply(_:)` when the Settings screen changes thresholds or smoothing.
    public internal(set) var pipeline: Pipeline
    /// Usage figures of this session (see `SessionMetrics`), stepped with everything the session sees.
    public var metrics = SessionMetrics()
    /// The scripted user of `handsfree demo` (nil: none), stepped here so that it aims at the screen showing
    /// as it is, in the pure core: the runtime only paces its frames (`stepDemo`).
    public var demo: DemoScript?
    /// The microphone and the phrases as last handed to the speech side by effect.
    private var toldMic: Effect
    private var toldLayout: Int
    /// The `language` setting as the session last saw it: a change asks for that language's translations.
    var toldLanguage: String
    /// The state's `pipelineVersion` the pipeline was last configured from.
    var configuredVersion: Int

    public init(state: ShellState, settings: PipelineSettings) {
        self.state = state
        // The state keeps the one copy of the gesture config's tracking settings; the pipeline is made from it
        // with the settings' overrides.
        self.state.trackingConfig = settings
        // A session starts with the keymap chosen: the settings name it as it was loaded.
        self.state.settings.keymap = state.keymap.name
        pipeline = Pipeline(self.state.pipelineSettings)
        configuredVersion = self.state.pipelineVersion
        self.state.knownGood = self.state.gestureSetup
        toldMic = self.state.listenEffect
        toldLayout = self.state.layoutVersion
        toldLanguage = self.state.settings.language
    }

    /// What follows any event's effects: the speech side's and the Terminal suggestions' requests added, and
    /// the pipeline configured from the state.
    private mutating func settle(_ effects: [Effect]) -> [Effect] {
        let all = effects + speechFollowUps() + listingRequests() + languageRequest()
        configure(after: all)
        return all
    }

    /// What the Terminal screen's suggestions need read from the disk now, asked for by effect.
    private mutating func listingRequests() -> [Effect] {
        guard state.topIs(TerminalScreen.self), let view = state.terminal else { return [] }
        return state.listings.requests(for: view, at: state.now)
    }

    /// Loading another language's translations when the `language` setting changed (Settings › Language):
    /// the runtime reads them and answers `.languageLoaded`, so every label changes without a restart.
    private mutating func languageRequest() -> [Effect] {
        guard state.settings.language != toldLanguage else { return [] }
        toldLanguage = state.settings.language
        return [.loadLanguage(toldLanguage)]
    }

    /// Effects for what an event changed that the speech side follows: the microphone's use, the phrases.
    private mutating func speechFollowUps() -> [Effect] {
        var out: [Effect] = []
        let mic = state.listenEffect
        if mic != toldMic { toldMic = mic; out.append(mic) }
        if state.layoutVersion != toldLayout {
            toldLayout = state.layoutVersion
            if state.speechListens { out.append(.voicePhrasesChanged(state.voicePhrases)) }
        }
        return out
    }

    /// Feeds one decoded item: the frame's sample, then each gesture it completes.
    public mutating func step(_ item: DecodedItem) -> [Effect] { stepDetailed(item).effects }

    /// Feeds one decoded item; returns its effects and the gestures the pipeline recognised in it.
    ///
    /// The pipeline smooths the gaze and steps the face gestures; the target under the gaze is then found
    /// once, on the screen showing, for both dwell and focus.
    public mutating func stepDetailed(_ item: DecodedItem) -> (effects: [Effect], gestures: [GestureEvent]) {
        // A letter key's shorter hold (`key_hold_ms`) applies while the focus is on it as the frame comes in.
        pipeline.onKey = state.focus.focused.map { state.top.undoableKey($0) } ?? false
        var events = pipeline.track(item)
        guard case .frame(let f, _) = item else { return ([], events) }
        let target = pipeline.facePresent ? state.target(at: pipeline.gaze) : nil
        events += pipeline.dwell(on: target, suspended: !state.readiness.acting)
        var sample = TrackingSample(pipeline, at: f.t)
        sample.target = target
        var effects = reduce(&state, .frame(sample))
        for ev in events { effects += reduce(&state, .gesture(ev)) }
        effects = settle(effects)
        metrics.frame(at: f.t, face: f.face, gestures: events, effects: effects, state: state)
        return (withMetrics(effects), events)
    }

    /// The demo's scripted user makes its next frame, aimed at the targets of the screen showing, and it is
    /// fed like a tracker's; its caption becomes the notice. Nil when the script has ended, or there is none.
    public mutating func stepDemo() -> (effects: [Effect], gestures: [GestureEvent])? {
        guard var script = demo, let f = script.next(state) else { return nil }
        demo = script
        let (effects, gestures) = stepDetailed(.frame(f, nil))
        return (effects + send(.message(script.caption)), gestures)
    }

    /// Feeds an event that is not a frame (a key, speech, a tick, a resize).
    public mutating func send(_ event: ShellEvent) -> [Effect] {
        let e = settle(reduce(&state, event))
        metrics.event(event, effects: e, state: state)
        return withMetrics(e)
    }

    /// `effects` with the usage record ahead of the `.quit` or `.end` that ends the run, when it keeps one.
    private func withMetrics(_ effects: [Effect]) -> [Effect] {
        guard state.keepsMetrics, state.settings.recordMetrics,
              let i = effects.firstIndex(where: { if case .quit = $0 { true } else if case .end = $0 { true } else { false } })
        else { return effects }
        var out = effects
        out.insert(.recordMetrics(metrics), at: i)
        return out
    }

    /// The request a helper's key makes to the Terminal screen's program when that is certain before the key
    /// is reduced (`ShellState.keyForProgram`): the runtime delivers it at once, then reduces the key with
    /// `send(key:delivered:)`. Nil when only the reduction can say.
    public func requestAhead(for key: Key) -> TerminalRequest? { state.keyForProgram(key) }

    /// `send(.key(key))` for a key whose request to the program (`ShellState.keyForProgram`) the caller has
    /// delivered already: the key's effects without that request.
    public mutating func send(key: Key, delivered: TerminalRequest) -> [Effect] {
        var e = send(.key(key))
        if let i = e.firstIndex(of: .terminal(delivered)) { e.remove(at: i) }
        return e
    }
}

/// The real screens run without a terminal, for `handsfree replay --events`: each step returns one JSON
/// line per action performed, e.g. `{"t": 3.2, "action": "open", "target": "launcher.notes", "screen": "notes"}`.
public struct HeadlessSession: Sendable {
    public private(set) var session: Session
    public private(set) var quit = false

    public init(keymap: Keymap, settings: PipelineSettings, size: Size = Size(width: 100, height: 30)) {
        session = Session(state: ShellState(keymap: keymap, gestures: settings.gestures, size: size), settings: settings)
    }

    /// The screen showing.
    public var screen: String { session.state.topName }

    /// Feeds one item; returns the JSON lines of the actions it caused.
    public mutating func step(_ item: DecodedItem) -> [String] { stepDetailed(item).actions.map(\.json) }

    /// Feeds one item; returns the gestures recognised and the actions performed, in that order of
    /// happening, so `replay --events` can print both from one pipeline run.
    public mutating func stepDetailed(_ item: DecodedItem) -> (gestures: [GestureEvent], actions: [ActionRecord]) {
        let (effects, gestures) = session.stepDetailed(item)
        var actions: [ActionRecord] = []
        for e in effects {
            if case .performed(let r) = e { actions.append(r) }
            if e == .quit { quit = true }
            if case .end = e { quit = true }
        }
        return (gestures, actions)
    }

    /// The screen as text (for printing the final screen of a replay).
    public var screenText: String { render(session.state, size: session.state.size).0.text }
}
