#if canImport(Glibc)
import Glibc
#endif
import Config
import FrameFormats
import Foundation
import Localization
import SystemIO
import Transport
import Shell
import Speech
import Terminal
import PtyHost
import TrackingCore
import UserFiles
import LiveServices
import Controls

/// Appends action lines to a log file in the state folder; never to the terminal curses owns.
public final class ActionLog {
    private let handle: FileHandle?
    public init(_ file: URL) {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let path = file.path
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        handle = FileHandle(forWritingAtPath: path)
        _ = try? handle?.seekToEnd()
    }
    /// Appends lines in one write.
    public func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        handle?.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }
    deinit { try? handle?.close() }
}

/// The live shell: one loop over every outside source. Each wake-up the sources give events; the session
/// reduces them (pure: `Session.step` for frames, `Session.send` for the rest) into effects; the edge runs
/// the effects (log, save, microphone, keymap), whose outcomes come back as events; then the screen is drawn,
/// at most once per displayed frame.
///
///     sources ─▶ events ─▶ Session (pipeline, reduce) ─▶ effects ─▶ edge ─▶ follow-up events ─┐
///        ▲                          ▲                                                        │
///        │                          └────────────────────────────────────────────────────────┘
///        └── poll(2): keyboard, signals, sockets, speech; timers: pacing, ticks, keymap, saves
public struct ShellRuntime {
    public var session: Session
    public var feed: FrameFeed
    /// Leave when a replay or demo has ended (after a short pause so the last screen can be seen).
    public var exitAtEnd: Bool
    /// Speech (dictation, voice commands), nil when the shell runs without it.
    public var speech: LiveSpeech?
    /// The voice that speaks for the user (Speak, the phrase board), nil when this run has none.
    public var speaker: LiveSpeaker?
    /// The accessibility bus's side of the Controls view (its own thread or worker, started at the first
    /// request), made when the loop starts, with the loop's clock.
    public private(set) var controls: LiveControls?
    /// Loads word prediction for the suggestion bars and writes what the reducer learned; nil without it.
    public var prediction: LivePrediction?
    public var keymapWatcher: KeymapWatcher?
    /// Where settings are saved, actions logged and the first start remembered.
    public var paths: UserPaths
    /// Reads `PATH` and directories for the Terminal screen's suggestions (nil: none are offered).
    public var commandLineFiles: CommandLineFiles?
    /// Where the user's notes and messages are written (nil: they live in memory only, as in the demo).
    public var storage: StoreClient?
    /// Writes the session's usage record (`Effect.recordMetrics`) once the terminal is given back (nil: it is
    /// not written anywhere).
    public var saveMetrics: ((SessionMetrics) -> Void)?
    /// The usage record the session handed out as the run ended, written after the terminal is given back.
    private var metricsRecord: SessionMetrics?
    /// The signal that ended the loop, if one did (the command then exits with 128 + signal).
    public private(set) var exitSignal: Int32?
    /// Opens what the shell is shown on: the full-screen terminal, or plain lines (`--plain`).
    public var display: () throws -> ShellDisplay = { try CursesDisplay(Terminal()) }
    /// The time the loop waits on and hands its sources: live, or a test's `TestClock`.
    public var clock: any ShellClock = LiveClock()
    /// One line for standard error once the terminal is given back: how the run ended and what the frame
    /// source delivered (frames used, dropped in floods, unrecognised).
    public private(set) var summary = ""
    /// Where text that could not be saved was written before the shell ended, for standard error (nil: none
    /// was), or why no copy could be written.
    public private(set) var unsavedNote: String?
    /// The shortest time between two drawings: one displayed frame.
    public var frameInterval = 1.0 / 60
    /// The spacing the loop keeps between drawings: a displayed frame less a tenth, since frames from a
    /// 60 fps tracker arrive a little early or late; holding to the full interval merged an early frame into the
    /// next drawing, leaving 32 ms gaps and 56 drawings a second.
    var drawSpacing: Double { frameInterval * 0.9 }
    /// The shortest time between drawings for the status line's measures alone (rate, silence, drops).
    public var measuresInterval = 0.25
    /// Drawings made, and frames handed to the session (`bench ui` checks there is at most one per frame).
    public private(set) var renders = 0
    public private(set) var framesIn = 0
    /// The longest time between two drawings while the frame source was still sending (`bench speak`: a
    /// stall the drawing rate alone would average away).
    public private(set) var longestDrawingGap = 0.0
    /// Turns of the loop (each a wait in poll): an idle shell makes about twenty a second, not thousands.
    public private(set) var wakeups = 0
    /// Echoes of a key shown as the Terminal screen's pane alone, ahead of the full drawing.
    public private(set) var paneDrawings = 0
    /// Drawings skipped because only frames came and the screen would look the same (`FrameLook`).
    public private(set) var unchanged = 0

    /// Saves the pointer calibration the Calibration screen made (for the size it was made at); returns a
    /// problem to show. Nil: calibrations live for this run only.
    public var saveCalibration: ((PointerCalibration?, Size) -> UIMessage?)?
    /// Saves the gesture calibration's thresholds for this source; returns a problem to show.
    public var saveGestureCalibration: (([GestureThreshold]) -> UIMessage?)?
    /// Says which bound gestures the live source cannot make, once its format is recognised.
    public var sourceWatch: SourceWatch?
    /// Carries out the setup screen's requests (nil: this run has no setup, and they are ignored).
    public var setup: SetupWorker?
    /// The webcam bridge of a webcam tracker, looked after while the shell runs and ended with it.
    public var webcam: WebcamBridge?
    /// The source calibrations are saved for; setup changes it when it starts another tracker.
    public var calibrationKey: CalibrationKey?
    /// The program the Terminal screen drives, through the output sink `--type-into` chose: the user's shell
    /// on a pty unless the command line names another program or sink. Started when the reducer asks, as the
    /// Terminal screen first shows.
    public var terminal = TerminalLink(.child(argv: PtySink.userShell()))
    /// Reads the translations of a language the `language` setting changes to, keeping those read.
    public var languages = LanguageLoader()
    /// Where the Desktop screen types and points: the sink `--output` chose (auto: the session's own).
    public var desktop = DesktopLink(AutoSink(environment: PtyProcess.currentEnvironment()))

    /// The longest a drawing waits, after a key was sent to the Terminal screen's program, for its echo: so
    /// the key and the echo are one drawing, not two a displayed frame apart.
    public var echoWait = 0.005
    /// Until when the next drawing waits for the program's echo (nil: it does not wait).
    private var awaitingEcho: Double?
    /// The view whose echo was just drawn as the pane alone, not yet given to the session: that happens when
    /// the loop next wakes, or before any other event, so the reducer's work for it (the suggestions the new
    /// command line brings, laid out again) comes after the loop has let the processor go to whoever reads
    /// the display, not before. The full drawing it leads to is a displayed frame away either way.
    private var echoedView: TerminalView?

    private var sources: [any EventSource] = []
    /// Where the frame source is in `sources` (setup replaces it when it starts a tracker).
    private var frameSlot = 0
    private var log: ActionLog?
    /// A helper's key delivered to the program ahead of its reduction (`ShellState.keyForProgram`), with what
    /// the delivery replied: reduced once its echo is drawn, before any later event, or when the wait for the
    /// echo ends.
    private var pendingKey: (Key, TerminalRequest, [ShellEvent])?
    /// What was performed since the last drawing (plain output says it; the bell rings for it).
    private var performed: [ActionRecord] = []
    /// Action lines not yet written to the log (written at the end of each turn of the loop).
    private var unlogged: [ActionRecord] = []

    public init(session: Session, feed: FrameFeed, exitAtEnd: Bool, paths: UserPaths) {
        self.session = session; self.feed = feed; self.exitAtEnd = exitAtEnd; self.paths = paths
    }

    public mutating func run() throws {
        let term = try display()
        // Declared before the terminal's stop, so it runs after it: a problem saving can then be printed.
        defer { if let m = metricsRecord { saveMetrics?(m) } }
        defer { term.stop() }
        let start = clock.now()
        log = ActionLog(paths.actionLog)
        sources = [SignalSource(), KeyboardSource(term)]
        if let keymapWatcher { sources.append(keymapWatcher) }
        if let speech { sources.append(SpeechSource(speech)) }
        if let speaker { sources.append(SpeakerSource(speaker)) }
        let controls = LiveControls(clock: clock)
        self.controls = controls
        sources.append(ControlsSource(controls))
        if let prediction { sources.append(PredictionSource(prediction, now: start)) }
        if let setup { sources.append(SetupSource(setup)) }
        if let webcam {
            webcam.start(now: start)
            sources.append(WebcamBridgeSource(webcam))
        }
        terminal.clock = clock
        sources.append(TerminalSource(terminal, frameInterval: frameInterval))
        frameSlot = sources.count
        var frames = FrameSource(feed, start: start)
        frames.watch = sourceWatch
        sources.append(frames)
        defer {
            // A key the program has, reduced whatever ended the loop: its record and metrics are kept.
            _ = reducePendingKey()
            writeLog()
            speech?.shutdown()
            speaker?.shutdown()
            setup?.shutdown()
            webcam?.stop()
            controls.shutdown()
            _ = prediction?.saveIfNeeded()
            if let f = sources[frameSlot] as? FrameSource { summary = runSummary(f.meter) }
        }

        // Effects of every event are run, these too: the first may start the Terminal screen's program.
        var displaySize = term.size
        if runEffects(session.send(.resized(displaySize))) { return }
        // The speech side starts from the microphone's use and the phrases as they stand, which the session
        // answers with; later changes come as effects of the events that make them.
        if speech != nil, runEffects(session.send(.speechStarted)) { return }
        // Shown before the first key, so plain mode can name what the first key acts on.
        var painter = Painter(term)
        painter.draw(session.state, performed: [])
        var endedAt: Double?
        var dirty = false
        // Only the source's measures changed: worth a drawing, but not one per change.
        var measuresChanged = false
        // Something other than a quiet frame happened (a key, speech, a gesture, a reply): drawn whatever the
        // look; a quiet frame is drawn only when its look differs from the last drawing's.
        var forced = true
        // The source's measures reach the state at most every `measuresInterval`: the arrival rate moves by a
        // frame or two from one frame to the next (59, 60, 58 fps), which would otherwise redraw a still face
        // at every frame for a figure nobody can read that fast.
        var heldHealth: InputHealth?
        var healthAt = -Double.infinity
        var lastRender = start
        loop: while true {
            // Wait for a descriptor, or until a source's timer or the next drawing is due (at most 50 ms).
            let before = clock.now()
            var until = before + 0.05
            for s in sources { if let w = s.nextWake(now: before) { until = min(until, w) } }
            // While a key's echo is awaited the drawing waits for it (or for `awaitingEcho`), so its own time
            // is no reason to wake: it is due already, and poll would return at once until the echo came.
            if dirty && awaitingEcho == nil { until = min(until, lastRender + drawSpacing) }
            if measuresChanged { until = min(until, lastRender + measuresInterval) }
            if let e = awaitingEcho { until = min(until, e) }
            if heldHealth != nil { until = min(until, healthAt + measuresInterval) }
            var fds = sources.flatMap(\.descriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = clock.poll(&fds, until: until)
            wakeups += 1
            let now = clock.now()
            let bad = Int16(POLLHUP | POLLERR | POLLNVAL)
            var hungUp = Set<Int32>(), readable: [Int32] = []
            for p in fds where p.revents != 0 {
                if p.revents & bad != 0 { hungUp.insert(p.fd) }
                if p.revents & Int16(POLLIN) != 0 { readable.append(p.fd) }
            }
            let wake = Wakeup(now: now, hungUp: hungUp, readable: readable)

            if giveEchoedView() { break loop }
            // Set once a key went to the program ahead of its reduction: the other sources wait for the next
            // wake-up, which the echo brings, so the kernel's pty work and the program have the processor now.
            var keyAhead = false
            for i in sources.indices where !keyAhead {
                repeat {
                    for event in sources[i].events(wake) {
                        // Before a key, a phrase or a reply, which act on the pane as it now is; a tick or a
                        // tracker's frame in the same wake-up is as if it came just before the echo, when the
                        // screen showed what it still shows.
                        if event.needsLatestView, giveEchoedView() { break loop }
                        // A key delivered ahead is reduced before anything that may act on it or on the screen
                        // it was typed on; the pane's view (its echo, below), the time and the input's measures
                        // may pass it.
                        if pendingKey != nil, !event.mayPassAPendingKey {
                            if reducePendingKey() { break loop }
                            dirty = true; forced = true
                        }
                        let effects: [Effect]
                        switch event {
                        case .signal(let sig):
                            // Ended from outside (SIGTERM, SIGHUP): the reducer answers with `.end`.
                            effects = session.send(.ending(signal: sig))
                        case .sourceEnded:
                            if endedAt == nil { endedAt = now }
                            continue
                        case .demoFrame:
                            guard let (stepped, gestures) = session.stepDemo() else {
                                // The scripted user has ended: its source asks for no more frames.
                                if var f = sources[i] as? FrameSource { f.demoEnded(); sources[i] = f }
                                if endedAt == nil { endedAt = now }
                                continue
                            }
                            effects = stepped
                            framesIn += 1
                            if !effects.isEmpty || !gestures.isEmpty { forced = true }
                            dirty = true
                        case .item(let item):
                            let gestures: [GestureEvent]
                            (effects, gestures) = session.stepDetailed(item)
                            if case .frame = item { framesIn += 1 } else { forced = true }
                            if !effects.isEmpty || !gestures.isEmpty { forced = true }
                            dirty = true
                        case .shell(.inputHealth(let h)) where now - healthAt < measuresInterval:
                            heldHealth = h
                            continue
                        case .shell(let e):
                            if case .inputHealth = e { healthAt = now; heldHealth = nil }
                            // A key's echo is shown at once, the pane alone over the last drawing; the rest
                            // (the suggestions the new command line brings) is drawn a displayed frame later.
                            if case .terminal(let view) = e, awaitingEcho != nil, painter.drawEcho(session.state, view: view) {
                                paneDrawings += 1
                                lastRender = now
                                awaitingEcho = nil
                                echoedView = view
                                dirty = true; forced = true
                                // The key's own turn waited for its echo: with one processor for the loop,
                                // the program and the kernel's pty work, it would otherwise come first.
                                if reducePendingKey() { break loop }
                                continue
                            }
                            if pendingKey != nil, event.isTerminalView, reducePendingKey() { break loop }
                            if case .resized(let s) = e { displaySize = s }
                            if case .key(let k) = e, let early = session.requestAhead(for: k) {
                                // The program has the key first; the rest of the key's turn waits for its echo
                                // to be drawn, or for the next event, or for the wait for the echo to end.
                                let replies = terminal.apply(early)
                                pendingKey = (k, early, replies)
                                // A key that could not be delivered has no echo to wait for.
                                guard replies.isEmpty else {
                                    if reducePendingKey() { break loop }
                                    dirty = true; forced = true
                                    continue
                                }
                                awaitingEcho = clock.now() + echoWait
                                keyAhead = true
                                continue
                            }
                            effects = session.send(e)
                            switch e {
                            // Time alone turns the notice line's parts: looked at, and drawn if it moved.
                            case .tick: if painter.turns(session.state) { dirty = true }
                            case .terminal:
                                awaitingEcho = nil
                                dirty = true; forced = true
                            case .inputHealth: measuresChanged = true
                            default: dirty = true; forced = true
                            }
                        }
                        if runEffects(effects) { break loop }
                    }
                } while sources[i].wantsAgain(now: now)
            }
            if let h = heldHealth, now - healthAt >= measuresInterval {
                heldHealth = nil
                healthAt = now
                measuresChanged = true
                if runEffects(session.send(.inputHealth(h))) { break loop }
            }
            // A tick a screen handled (a reply arrived, playback moved) changed what is shown.
            if painter.moved(session.state) { dirty = true; forced = true }
            if let e = awaitingEcho, now >= e { awaitingEcho = nil }
            if awaitingEcho == nil, pendingKey != nil {
                if reducePendingKey() { break loop }
                dirty = true; forced = true
            }
            if awaitingEcho == nil,
               dirty && now - lastRender >= drawSpacing || measuresChanged && now - lastRender >= measuresInterval {
                if giveEchoedView() { break loop }
                let size = term.size
                if size != displaySize {
                    displaySize = size
                    forced = true
                    if runEffects(session.send(.resized(size))) { break loop }
                }
                if painter.drawIfChanged(session.state, performed: performed, forced: forced) {
                    renders += 1
                } else {
                    unchanged += 1
                }
                // A drawing skipped as unchanged counts as one made: the screen was up to date at that moment.
                if renders + unchanged > 1, endedAt == nil { longestDrawingGap = max(longestDrawingGap, now - lastRender) }
                lastRender = now
                performed = []
                dirty = false
                measuresChanged = false
                forced = false
            }
            // Not while a key's echo is awaited, nor right after it was drawn: the line's JSON and its write
            // would come before the echo, or before whoever reads the display gets the processor.
            if awaitingEcho == nil, echoedView == nil { writeLog() }
            if exitAtEnd, let e = endedAt, now - e > 1.0 {
                _ = runEffects(session.send(.ending(signal: nil)))
                break loop
            }
        }
    }

    /// Reduces the key delivered ahead to the program (`pendingKey`), if one waits, without the request that
    /// was delivered; true when its effects end the loop.
    mutating func reducePendingKey() -> Bool {
        guard let (key, delivered, replies) = pendingKey else { return false }
        pendingKey = nil
        return runEffects(session.send(key: key, delivered: delivered) + replies.flatMap { session.send($0) })
    }

    /// Gives the session the view whose echo was drawn as the pane alone, if one waits (`echoedView`); true
    /// when its effects end the loop.
    mutating func giveEchoedView() -> Bool {
        guard let v = echoedView else { return false }
        echoedView = nil
        return runEffects(session.send(.terminal(v)))
    }

    /// Writes the action lines not written yet, in one write.
    mutating func writeLog() {
        guard !unlogged.isEmpty else { return }
        log?.write(unlogged.map(\.json))
        unlogged.removeAll(keepingCapacity: true)
    }

    /// Writes text that could not be saved to the fallback places and remembers where, for standard error.
    mutating func writeUnsaved(_ files: [String: String]) -> (place: String?, error: String?) {
        let (place, error) = UnsavedText.write(files, places: UnsavedText.places(paths))
        let names = files.keys.sorted().joined(separator: ", ")
        unsavedNote = place.map { "handsfree: text that could not be saved (\(names)) was written to \($0)" }
            ?? UnsavedText.lastResort(files, reasons: error ?? "")
        return (place, error)
    }

    /// Runs effects at the edge; what they report back (a keymap loaded, speech unavailable) is reduced in
    /// turn, and its effects run too. Returns true when the shell is to quit.
    mutating func runEffects(_ effects: [Effect]) -> Bool {
        var pending = effects
        // Follow-ups are bounded: a reply to a reply is possible (speech off stops dictation), a cycle is not.
        for _ in 0..<4 where !pending.isEmpty {
            var replies: [ShellEvent] = []
            for e in pending {
                switch e {
                case .quit: return true
                case .end(let signal, let unsaved):
                    // Not lost with the process: the text whose save failed goes to the fallback places.
                    exitSignal = signal
                    if !unsaved.isEmpty { _ = writeUnsaved(unsaved) }
                    return true
                case .recordMetrics(let record): metricsRecord = record
                case .finishedOnboarding: paths.markOnboarded()
                case .performed(let r):
                    // Written once the loop has carried out the rest: a key reaches its program first.
                    unlogged.append(r)
                    performed.append(r)
                case .startDictation, .stopDictation, .listenForCommand: replies += speechEffect(e)
                case .settingsChanged:
                    // The session has applied them; the keymap they name, if another, comes as `.loadKeymap`.
                    break
                case .loadKeymap(let name, let gestures, let notice): replies.append(loadKeymap(name, gestures: gestures, notice: notice))
                case .saveSettings(let settings):
                    if let e = UserSettings.save(settings, to: paths.settings) {
                        replies.append(.message(UIMessage("Settings not saved: {reason}", reasons: ["reason": e])))
                    }
                case .saveKnownGood(let settings):
                    if let e = LastGoodSettings.save(settings, to: paths.lastGoodSettings) {
                        replies.append(.message(UIMessage("Last good settings not saved: {reason}", reasons: ["reason": e])))
                    }
                case .saveCalibration(let c, let size):
                    if let problem = saveCalibration?(c, size) { replies.append(.message(problem)) }
                case .saveGestureCalibration(let thresholds):
                    if let problem = saveGestureCalibration?(thresholds) { replies.append(.message(problem)) }
                case .save(let name, let text): replies.append(.saved(name: name, error: storage?.write(name, text)))
                case .listen(let mic, let turn, let silence):
                    let mode: SpeechController.Mode
                    switch mic {
                    case .closed: mode = .idle
                    case .dictation: mode = .dictation
                    case .command: mode = .command
                    }
                    speech?.follow(mode, turn: turn, silence: silence)
                case .voicePhrasesChanged(let phrases): speech?.updatePhrases(phrases)
                case .dictationContext(let before, let userWords):
                    speech?.updateContext(before: before, userWords: userWords)
                case .listCommands, .listDirectory:
                    if let event = commandLineFiles?.perform(e) { replies.append(event) }
                case .learnWord, .learnSentences, .forgetSentence, .addWord, .removeWord:
                    break   // the reducer has learned it; the files to write follow as their own effects
                case .saveLearnedWords(let w):
                    if let problem = prediction?.write(w, what: .learnedWords) { replies.append(.message(problem)) }
                case .saveSentences(let w):
                    if let problem = prediction?.write(w, what: .sentences) { replies.append(.message(problem)) }
                case .rescue(let files):
                    let (place, error) = writeUnsaved(files)
                    replies.append(.rescued(place: place, error: error))
                case .recentre: break   // the session has done it
                case .speak, .stopSpeaking:
                    if let speaker { speaker.perform(e) }
                    else if case .speak = e { replies.append(.notHeard(problem: UIMessage("Speech output is off in this run"))) }
                case .calibrated, .driftCorrect, .gesturesCalibrated:
                    // The session has applied it, on trial: it is saved (`saveCalibration`,
                    // `saveGestureCalibration`) once the user acts with it.
                    break
                case .setup(let request):
                    replies += setupEffect(request)
                case .loadLanguage(let setting):
                    let loaded = languages.load(setting)
                    // Speech follows: commands by Whisper in another language, and its worker for that language.
                    for case .speechLanguageLoaded(let spoken) in loaded { speech?.useLanguage(spoken) }
                    replies += loaded
                case .loadPredictor(let language):
                    prediction?.load(language: language, paths: paths)
                case .desktop(let request):
                    replies += desktop.apply(request)
                case .readControls, .performControl:
                    controls?.perform(e)
                case .terminal(let request):
                    replies += terminal.apply(request)
                    switch request {
                    case .type, .press: awaitingEcho = clock.now() + echoWait
                    case .scroll, .restart, .start, .resize, .showing, .point: break
                    }
                }
            }
            pending = replies.flatMap { session.send($0) }
        }
        return false
    }
}

extension ShellRuntime {
    /// Reads the keymap the reducer asked for (`.loadKeymap`, a change in Settings), watches its file from now
    /// on, and answers with it and `notice`; or with why it was not loaded, after `notice`, in the title bar.
    mutating func loadKeymap(_ name: String, gestures: [GestureDefinition], notice: UIMessage?) -> ShellEvent {
        do {
            let keymap = try Setup.keymap(name, gestures: gestures)
            let watcher = KeymapWatcher(keymap: name, gestures: gestures)
            keymapWatcher = watcher
            // Before the loop runs there are no sources yet: `run` adds `keymapWatcher` when it starts.
            if let i = sources.firstIndex(where: { $0 is KeymapWatcher }) { sources[i] = watcher }
            else if sources.count >= 2 { sources.insert(watcher, at: 2) }
            return .keymapLoaded(keymap, notice: notice)
        } catch {
            // A keymap written for another gesture config (keymaps/webcam.toml) needs that config's gestures,
            // which a running session does not swap; the choice is saved, so the next start uses both.
            let problem = Setup.keymapConfig(name).map {
                UIMessage("Keymap {keymap} uses the {config} gestures: it takes effect at the next start", ["keymap": name, "config": $0])
            } ?? UIMessage("Keymap {keymap} not loaded: {error}", ["keymap": name], reasons: ["error": SetupError.message(of: error)])
            return .message(.together([notice, problem].compactMap { $0 }))
        }
    }

    /// Answers an effect opening the microphone when there is no speech: the reducer hears why (and turns
    /// dictation straight off again, so jaw gestures keep working). With speech, the recogniser follows the
    /// `.listen` effects the session returns, so there is nothing to do here.
    func speechEffect(_ e: Effect) -> [ShellEvent] {
        guard speech?.failed != nil || speech == nil, e != .stopDictation else { return [] }
        return [.speechUnavailable(speech?.failed ?? UIMessage("Speech is off in this run"))]
    }
}

extension ShellRuntime {
    /// A setup request: listening to a tracker and keeping the choice are done here, since they change the
    /// loop's sources and the user's files; the rest goes to the setup worker's threads.
    mutating func setupEffect(_ request: SetupRequest) -> [ShellEvent] {
        switch request {
        case .startTracker(let choice):
            return startTracker(choice)
        case .save(let choice):
            return [.setup(.saved(problem: TrackerFile.save(choice, to: paths.tracker)))]
        default:
            setup?.perform(request)
            return []
        }
    }

    /// Listens to `choice` from now on: its socket replaces the frame source, a webcam's bridge is started,
    /// the keymap and gestures written for it are loaded, and the calibrations saved for its source are used.
    mutating func startTracker(_ choice: TrackerChoice) -> [ShellEvent] {
        webcam?.stop()
        webcam = nil
        sources.removeAll { $0 is WebcamBridgeSource }
        if let i = sources.firstIndex(where: { $0 is FrameSource }) { frameSlot = i }
        guard choice.address != nil else {
            sources[frameSlot] = FrameSource(.none, start: clock.now())
            feed = .none
            return [.setup(.trackerStarted(choice, listening: nil, problem: nil))]
        }
        let live: LiveSource
        do throws(TransportError) { live = try TrackerLaunch.open(choice, clock: clock) } catch {
            return [.setup(.trackerStarted(choice, listening: nil, problem: UIMessage("Cannot listen for {tracker}: {error}",
                                                                                         ["tracker": session.state.catalog.tr(choice.title), "error": error.description])))]
        }
        let now = clock.now()
        sources[frameSlot] = FrameSource(.live(live), start: now)
        feed = .live(live)
        var replies: [ShellEvent] = []
        var problem: UIMessage?
        if choice.kind == .webcam {
            let (bridge, missing) = TrackerLaunch.webcam(choice, sendingTo: live, paths: paths)
            problem = missing
            if let bridge {
                problem = bridge.start(now: now)
                webcam = bridge
                sources.insert(WebcamBridgeSource(bridge), at: frameSlot)
                frameSlot += 1
            }
        }
        // The reducer keeps the keymap in use if it is the one named.
        if let name = choice.keymap {
            do {
                let settings = try Setup.settings(config: Setup.keymapConfig(name))
                let keymap = try Setup.keymap(name, gestures: settings.gestures)
                let watcher = KeymapWatcher(keymap: name, gestures: settings.gestures)
                keymapWatcher = watcher
                if let i = sources.firstIndex(where: { $0 is KeymapWatcher }) { sources[i] = watcher }
                replies.append(.setup(.trackerKeymap(keymap, settings)))
            } catch {
                problem = .together([problem, UIMessage("The {keymap} keymap was not loaded: {error}", ["keymap": name], reasons: ["error": SetupError.message(of: error)])].compactMap { $0 })
            }
        }
        if let source = choice.source {
            calibrationKey?.name = source
            let (pointer, _) = CalibrationFile.load(paths.calibration, source: source)
            let (gestures, _) = GestureCalibrationFile.load(paths.gestureCalibration, source: source)
            replies.append(.setup(.trackerCalibrations(pointer: pointer, gestures: gestures)))
        }
        replies.append(.setup(.trackerStarted(choice, listening: live.address.description, problem: problem)))
        return replies
    }

    /// `handsfree: ended by signal 15 · frames: 1200 used, 0 dropped, 0 unrecognised, 1200 packets received`.
    public func runSummary(_ m: InputMeter) -> String {
        let end = exitSignal.map { "ended by signal \($0)" } ?? "ended"
        var s = "handsfree: \(end)"
        if case .none = feed { return s }
        s += " · frames: \(m.used) used"
        let h = m.lastHealth
        s += ", \(h?.dropped ?? 0) dropped, \(h?.unrecognised ?? 0) unrecognised"
        if let r = m.source { s += ", \(r.received) packets received" }
        return s
    }
}
