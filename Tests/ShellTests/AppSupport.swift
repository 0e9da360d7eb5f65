import Config
import Shell
import Testing
import TrackingCore

/// The three ways a control is operated: gaze + the keymap's gesture, dwell (gaze only), a helper's keyboard.
enum InputPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case gesture, dwell, keyboard
    var testDescription: String { rawValue }
}

/// Drives a real `Session` (so settings effects rebuild the pipeline) on one screen, by any input path.
struct Driver {
    var session: Session
    let path: InputPath
    var t = 1.0
    /// Where the user's data is saved: the `save` effects are carried out here, as the runtime does.
    let files: StoreClient
    /// What the screens asked the word list to learn: the `learnWord`, `addWord` and `removeWord` effects are
    /// told here (the session learns them into its predictor, here the fixed `suggest`).
    let learn: @Sendable (String, String) -> Void
    let addWord: @Sendable (String) -> Bool
    let removeWord: @Sendable (String) -> Void
    /// The disk for the Terminal screen's suggestions: `listCommands` and `listDirectory` are answered from these.
    let programs: [String]
    let directory: [CommandLineCompletion.Entry]?

    init(_ path: InputPath, screen: String, files: StoreClient = .memory(), data: AppData? = nil,
         suggest: @escaping @Sendable (String, Int) -> [String] = { _, _ in [] },
         next: @escaping @Sendable (String) -> [String] = { _ in [] },
         phrase: @escaping @Sendable (String) -> String? = { _ in nil },
         learn: @escaping @Sendable (String, String) -> Void = { _, _ in },
         addWord: @escaping @Sendable (String) -> Bool = { _ in false },
         removeWord: @escaping @Sendable (String) -> Void = { _ in },
         commands: [String] = [], directory: [CommandLineCompletion.Entry]? = nil,
         config settings: PipelineSettings = GestureConfig.defaults()) {
        self.path = path
        self.files = files
        self.learn = learn; self.addWord = addWord; self.removeWord = removeWord
        programs = commands.sorted()   // as the runtime gives them
        self.directory = directory
        var state = ShellState(keymap: Fixture.keymap(path == .dwell ? "dwell" : "default"), gestures: settings.gestures,
                               data: data ?? AppData.load(files),
                               predictor: Predictor(fixed: Predictor.FixedAnswers(suggest: suggest, phrase: phrase, next: next)))
        // Shown before the session starts, as `run` shows the Terminal: the session's first effects are then
        // those of the driver's first input alone.
        _ = state.show(screen: screen)
        session = Session(state: state, settings: settings)
    }

    var state: ShellState { session.state }
    /// The user's notes and messages as the shell holds them.
    var data: AppData { session.state.data }

    /// Sends an event to the session and carries out the saves it asks for, reporting each outcome back.
    @discardableResult
    mutating func send(_ e: ShellEvent) -> [Effect] { persist(session.send(e)) }

    @discardableResult
    mutating func step(_ item: DecodedItem) -> [Effect] { persist(session.step(item)) }

    mutating func persist(_ effects: [Effect]) -> [Effect] {
        var out = effects
        for e in effects {
            switch e {
            case .save(let name, let text): out += session.send(.saved(name: name, error: files.write(name, text)))
            case .learnWord(let word, let before): learn(word, before)
            case .addWord(let word): _ = addWord(word)
            case .removeWord(let word): removeWord(word)
            case .listCommands: out += session.send(.commandsListed(programs))
            case .listDirectory(let d): out += session.send(.directoryListed(d, directory))
            default: break
            }
        }
        return out
    }
    var screen: String { session.state.top.name }
    var text: String { render(session.state, size: session.state.size).0.text }
    var lines: [String] { render(session.state, size: session.state.size).0.lines }

    func target(_ id: String) -> Target {
        guard let t = session.state.hitMap.target(id: id) else {
            fatalError("no target \(id) on \(session.state.top.name): \(session.state.hitMap.targets.map(\.id))")
        }
        return t
    }

    func gaze(_ p: CellPoint) -> GazePoint {
        GazePoint(x: (Double(p.x) + 0.5) / Double(state.size.width), y: (Double(p.y) + 0.5) / Double(state.size.height))
    }

    /// Activates a target by this driver's path; `at` picks a cell inside it (sliders), else its centre.
    @discardableResult
    mutating func activate(_ id: String, at cell: CellPoint? = nil) -> [Effect] {
        let tg = target(id)
        let p = cell ?? tg.rect.center
        if path != .keyboard { armWithAStillFace() }
        t += 1
        switch path {
        case .gesture:
            _ = send(.gaze(gaze(p), at: t))
            return send(.gesture(GestureEvent(name: "activate", t: t + 0.4, onset: t + 0.1, gaze: gaze(p))))
        case .dwell:
            _ = send(.gaze(gaze(p), at: t))
            return send(.gesture(GestureEvent(name: "dwell", t: t + 1, onset: t, gaze: gaze(p), target: id)))
        case .keyboard:
            // Keys carry no time; a tick keeps the shell's clock with the driver's.
            _ = send(.tick(at: t))
            for _ in 0...session.state.hitMap.targets.count where session.state.focus.focused != id {
                _ = send(.key(.tab))
            }
            #expect(session.state.focus.focused == id, "Tab never reached \(id)")
            return send(.key(.enter))
        }
    }

    /// Performs a named gesture with the gaze on a cell (or nowhere).
    @discardableResult
    mutating func gesture(_ name: String, gazeAt p: CellPoint? = nil) -> [Effect] {
        armWithAStillFace()
        t += 1
        if let p { _ = send(.gaze(gaze(p), at: t)) }
        return send(.gesture(GestureEvent(name: name, t: t + 0.3, onset: t, gaze: p.map(gaze))))
    }

    /// Safe start: gestures act only after the tracker has shown a still face for a second, so a gesture
    /// path first sends that second of neutral frames (once).
    mutating func armWithAStillFace() {
        guard !session.state.readiness.armed else { return }
        for k in 0...60 { _ = step(.frame(TrackingFrame(t: t + Double(k) / 60), nil)) }
        t += 1
    }

    mutating func key(_ k: Key) { _ = send(.key(k)) }
    mutating func type(_ s: String) { for c in s { key(.char(c)) } }
    mutating func tick(_ dt: Double) -> [Effect] { t += dt; return send(.tick(at: t)) }

    /// A frame with gestures under way (for hold-to-confirm countdowns).
    mutating func progress(_ p: [GestureProgress]) {
        t += 0.1
        _ = send(.frame(TrackingSample(t: t, progress: p)))
    }
}

extension Driver {
    /// Opens a calibration from Settings › Pointer by its button and starts it, as the user does.
    static func startCalibration(_ button: String, screen: String, start: String) -> Driver {
        var d = Driver(.gesture, screen: "settings")
        d.activate("settings.tab.pointer")
        d.activate(button)
        #expect(d.screen == screen)
        d.activate(start)
        return d
    }
}
