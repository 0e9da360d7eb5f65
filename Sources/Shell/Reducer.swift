import Config
import Localization
import TerminalModel
import TrackingCore

/// The id of the Back target the shell adds to every screen but the launcher when the keymap asks for one.
public let backTargetID = "shell.back"

/// Applies one event to the state and returns what the runtime must do. Pure: no clock, no I/O.
///
/// Settings a screen changed (`settingsChanged`, a calibration, gesture thresholds) are applied to the state
/// here, in its one copy; the session configures its pipeline from that. A change to what decides whether
/// gestures act is tried: the runtime saves it once the user acts with it, and it goes back by itself when
/// the frames' time shows `SettingsTrial.seconds` passed without (see SettingsTrial.swift).
public func reduce(_ s: inout ShellState, _ event: ShellEvent) -> [Effect] {
    var effects = reduceEvent(&s, event)
    effects += effects.flatMap { s.learn($0) }
    // The recogniser reads the next utterance with the user's own words (names, places) as hotwords.
    for i in effects.indices {
        if case .dictationContext(let before, _) = effects[i] {
            effects[i] = .dictationContext(before, userWords: s.predictor.userVocabulary)
        }
    }
    effects += effects.flatMap { s.takeSetting($0) }
    effects += s.stepTrial()
    effects += effects.flatMap { e -> [Effect] in
        if case .settingsChanged(let new) = e { return s.settingsFollowUps(new) }
        return []
    }
    // Rude words are offered as the setting says, also when it was set before the words loaded.
    if s.predictor.offersHeldWords != s.settings.suggestRudeWords, !s.predictor.isLoading {
        s.predictor.offerHeldWords(s.settings.suggestRudeWords)
    }
    let out = effects + terminalPaneRequests(&s) + desktopRequests(&s)
    return out + hearFocus(&s, after: out)
}

/// Hearing the focus (a setting): the label of the target the focus settled on, once. Never on the Desktop
/// screen while it points (the targets there are the desktop's), and never the keys or suggestions of a
/// password prompt or of private typing.
func hearFocus(_ s: inout ShellState, after effects: [Effect]) -> [Effect] {
    if effects.contains(where: { if case .speak = $0 { true } else { false } }) { s.focusVoice.userSpeech() }
    guard s.settings.speakFocus, !s.tooSmall else { return [] }
    if let d = s.top as? DesktopScreen, d.pointer != nil { return [] }
    let secret: [String]
    if s.top is TerminalScreen, s.terminal?.inputHidden ?? false {
        secret = [TerminalScreen.keyboardID, TerminalScreen.keyPrefix, TerminalScreen.suggestionID]
    } else if let d = s.top as? DesktopScreen, d.isPrivate {
        secret = [DesktopScreen.keyboardID, DesktopScreen.keyPrefix, DesktopScreen.suggestionID]
    } else {
        secret = []
    }
    let label = s.focusVoice.update(focused: focusedTarget(s), at: s.now, speaking: s.speaking) { t in
        !secret.contains { t.id.hasPrefix($0) }
    }
    guard let label else { return [] }
    let v = s.settings
    return [.speak(Utterance(text: label, voice: v.speechVoice, rate: v.speechRate, volume: v.speechVolume))]
}

/// `reduce` without what follows any event: settings taken into the state, the requests that follow the
/// Terminal pane.
func reduceEvent(_ s: inout ShellState, _ event: ShellEvent) -> [Effect] {
    // The display reads raw keys so the Terminal screen's program gets its Ctrl-C; anywhere else Ctrl-C and
    // Ctrl-\ still end the shell as the interrupt and quit signals did, whatever the window's size.
    if case .key(.ctrl(let c)) = event, c == "c" || c == "\\", !s.topIs(TerminalScreen.self) {
        return reduceEvent(&s, .ending(signal: c == "c" ? ShellSignal.interrupt : ShellSignal.quit))
    }
    // While the window is too small the screen shows only "enlarge the window": no target, text or caret is
    // visible, so a gesture, key or phrase would act unseen (and keys would go into a note nobody can see).
    if s.tooSmall, event.isUserInput {
        // The carer's restore key is the one exception: it puts settings back, which shows nothing and loses nothing.
        if case .key(.restoreSettings) = event { return s.restoreKnownGood() }
        return []
    }
    switch event {
    case .frame(let sample):
        s.now = max(s.now, sample.t)
        // Most frames have no gesture under way: the dwell names are not worked out for nothing.
        s.tracking.update(sample, dwellName: sample.progress.isEmpty ? [] : s.dwellGestures)
        s.readiness.update(sample, neutral: s.isNeutral(sample.blend), stillFor: s.keymap.stillFaceSeconds)
        if sample.face, sample.gaze != nil, !s.isMakingGesture(sample.blend) {
            s.focus.gaze(on: sample.target, at: sample.t)
        }
        if let w = sample.weak { noteWeak(&s, w, onTarget: sample.target != nil) }
        if let effects = pursue(&s, sample) { return effects }
        return desktopPointer(&s, sample) + forwardTick(&s)
    case .gaze(let g, let t):
        s.now = max(s.now, t)
        s.tracking.gaze = g
        if g != nil { s.focus.gaze(on: s.target(at: g), at: t) }
        return forwardTick(&s)
    case .tick(let t):
        s.now = max(s.now, t)
        return forwardTick(&s)
    case .gesture(let ev):
        s.now = max(s.now, ev.t)
        s.weakPerformances.removeAll { $0.gesture == ev.name }
        if s.noticeSeen { s.notice = nil }   // a notice has been seen once the user acts after reading it
        // The escape acts on every screen, before safe start, while paused and while the microphone is open:
        // settings that stop the other gestures must not stop it.
        if s.keymap.action(gesture: ev.name, screen: s.topName) == .restoreSettings { return s.restoreKnownGood() }
        // Safe start: nothing the face does acts before a still face was seen; paused, only resume acts.
        if s.top is TerminalScreen, let b = s.keymap.terminalBinding(gesture: ev.name) {
            guard s.readiness.armed, !s.readiness.paused || b.worksWhilePaused else { return [] }
            let gazeCell = ev.gaze.map { s.cell($0) }
            return actedWith(&s, b == .action(.activate)) + performTerminal(&s, b, target: gestureTarget(s, ev, gazeCell), gaze: gazeCell)
        }
        if let d = s.top as? DesktopScreen, let b = s.keymap.desktopBinding(gesture: ev.name), d.pointer != nil || !b.pointsOnly {
            guard s.readiness.armed, !s.readiness.paused || b.worksWhilePaused,
                  !(s.micOpen && s.isJawGesture(ev.name)), !s.mouthHeldForTalk(ev.name) else { return [] }
            let gazeCell = ev.gaze.map { s.cell($0) }
            return actedWith(&s, b == .action(.activate)) + performTerminal(&s, b, target: gestureTarget(s, ev, gazeCell), gaze: gazeCell)
        }
        guard s.readiness.armed, let bound = s.keymap.action(gesture: ev.name, screen: s.topName),
              !s.readiness.paused || bound.worksWhilePaused,
              let action = micRouted(s, gesture: ev.name, bound) else { return [] }
        let gazeCell = ev.gaze.map { s.cell($0) }
        return actedWith(&s, action == .activate) + perform(&s, action, target: gestureTarget(s, ev, gazeCell), gaze: gazeCell)
    case .key(let key):
        if s.noticeSeen { s.notice = nil }
        // A helper's key shows the helper wants the settings in use (the restore key shows the opposite).
        return (key == .restoreSettings ? [] : s.actedWithSettings()) + keyPressed(&s, key)
    case .speech(let text, let isFinal):
        if s.dictating {
            return ask(&s, .dictation(text, isFinal: isFinal), recordAs: nil, target: nil) ?? []
        }
        guard isFinal else { return [] }
        return voiceCommand(&s, text)
    case .scoredCommand(let text, let scores):
        if s.dictating {
            return ask(&s, .dictation(text, isFinal: true), recordAs: nil, target: nil) ?? []
        }
        return voiceCommand(&s, text, scores: scores)
    case .resized(let size):
        s.size = size
        s.relayout()
        // A calibration saved for this source fits only the size it was made at, known at the first resize.
        if let saved = s.savedCalibration {
            s.savedCalibration = nil
            if saved.size == size {
                s.calibrate(saved.calibration)
                s.knownGood.calibration = s.pipelineSettings.mapping.calibration
            } else {
                s.noticeMessage = UIMessage("Pointer calibration made at {made}, not applied at {now}: calibrate again in Settings",
                                            ["made": "\(saved.size.width)x\(saved.size.height)", "now": "\(size.width)x\(size.height)"])
            }
        }
        return []
    case .inputHealth(let h):
        inputHealth(&s, h)
        return []
    case .micStatus(let status):
        s.micStatus = status
        return []
    case .wakePhraseHeard:
        s.listening = true
        return []
    case .talking(let on):
        s.talking = on
        return []
    case .dictationSilence(let seconds):
        let effects = perform(&s, .stopDictation, target: nil, gaze: nil)
        s.noticeMessage = UIMessage("Dictation stopped after {seconds} s of silence", ["seconds": String(Int(seconds))])
        return effects
    case .speechUnavailable(let why):
        // Dictation is turned straight off again with the reason, so jaw gestures keep working.
        s.listening = false
        s.noticeMessage = why
        return s.dictating ? perform(&s, .stopDictation, target: nil, gaze: nil) : []
    case .notice(let text):
        s.notice = text
        return []
    case .message(let message):
        s.noticeMessage = message
        return []
    case .speechLanguageLoaded(let language):
        s.services.speech = language
        return []
    case .languageBoardLoaded(let board):
        s.services.board = board
        s.data.offerPhrases(board)
        s.revision &+= 1
        s.relayout()
        return []
    case .languageLoaded(let catalog):
        // Every label on the screen may change: drawn again, laid out again (the targets' labels are the
        // voice's phrases too).
        s.catalog = catalog
        let words = s.switchWords(to: catalog.language)
        s.revision &+= 1
        s.relayout()
        return words
    case .keymapLoaded(let keymap, let notice):
        s.keymap = keymap
        s.noticeMessage = notice
        s.relayout()
        return []
    case .commandsListed(let names):
        s.listings.store(commands: names, at: s.now)
        s.relayout()
        return []
    case .directoryListed(let d, let entries):
        s.listings.store(entries, for: d, at: s.now)
        s.relayout()
        return []
    case .predictorLoaded(let predictor, let language, let problem):
        if let language {
            s.predictorsLoading.remove(language)
            guard language == s.predictorLanguage else {
                // Another language was chosen while this one loaded: kept for when it comes back, unless one
                // is kept already (it may hold what the user learned since).
                if s.parkedPredictors[language] == nil { s.parkedPredictors[language] = predictor }
                return s.learnHeld(for: language)
            }
            // The words in use are loaded already (asked twice): they may hold what the user learned since.
            guard s.predictor.status != .ready else { return [] }
        }
        s.predictor = predictor
        s.predictor.offerHeldWords(s.settings.suggestRudeWords)
        if let problem { s.noticeMessage = problem }
        // The suggestion bars fill in.
        s.relayout()
        return s.learnHeld(for: language)
    case .saved(let name, let error):
        s.data.saved(name, error: error)
        s.relayout()
        return []
    case .rescued(let place, let error):
        if var q = s.top as? QuitScreen { q.rescueEnded(); s.stack[s.stack.count - 1] = q }
        s.relayout()
        if let place {
            s.noticeMessage = UIMessage("Your unsaved text was written to {place}", ["place": place])
            return [record(s, "quit", nil), .quit]
        }
        s.noticeMessage = error.map { UIMessage("No copy could be written ({reason}): your text stays here.", ["reason": $0]) }
            ?? UIMessage("No copy could be written: your text stays here.")
        return []
    case .terminal(let view):
        let old = s.terminal
        s.terminal = view
        guard s.top is TerminalScreen else { return [] }
        s.revision &+= 1
        // Only what changes the targets needs a new layout (the end of the program, a password prompt);
        // the pane's cells do not.
        if old?.ended != view.ended || old?.inputHidden != view.inputHidden || old?.problem != view.problem
            || old == nil || old?.lineBeforeCursor != view.lineBeforeCursor || old?.scrolledBack != view.scrolledBack {
            s.relayout()
        }
        return []
    case .output(let report):
        return outputReported(&s, report)
    case .desktopOutput(let report):
        return desktopReported(&s, report)
    case .speaking(let on):
        s.speaking = on
        s.revision &+= 1
        s.relayout()
        return []
    case .speechOutput(let problem):
        s.noticeMessage = problem
        return []
    case .notHeard(let problem):
        s.noticeMessage = problem
        // The phrase board shows the phrase instead, for the person in the room.
        return ask(&s, .notHeard(problem), recordAs: nil, target: nil) ?? []
    case .setup(let report):
        return setupReported(&s, report)
    case .speechStarted:
        s.speechListens = true
        s.speechEngine = s.settings.dictationEngine
        return [s.listenEffect, .voicePhrasesChanged(s.voicePhrases)]
    case .ending(let signal):
        // Ended from outside: nothing asks first, but text whose save failed is written elsewhere.
        return [.end(signal: signal, unsaved: s.data.unsavedFiles)]
    case .controlsRead(let snapshot):
        s.desktop.controls = snapshot
        s.revision &+= 1
        s.relayout()
        return []
    case .controlPerformed(let report):
        return controlReported(&s, report)
    case .desktopSink(let name):
        s.desktop.sink = name
        s.desktop.missing = nil
        s.revision &+= 1
        s.relayout()
        return []
    }
}

extension ShellState {
    /// The words follow the language: the predictor in use is kept for when it comes back, and that of
    /// `language` taken at once if it was used before in this run, else loaded (`loadPredictor`; "loading
    /// words…" meanwhile). Nothing when the words do not follow the language (`predictorLanguage` nil).
    mutating func switchWords(to language: String) -> [Effect] {
        guard let current = predictorLanguage, current != language else { return [] }
        // Only loaded words are kept: a load still under way is kept by `.predictorLoaded` when it ends.
        if predictor.status == .ready { parkedPredictors[current] = predictor }
        predictorLanguage = language
        if let back = parkedPredictors.removeValue(forKey: language) {
            predictor = back
            predictor.offerHeldWords(settings.suggestRudeWords)
            return []
        }
        predictor = .loading
        guard !predictorsLoading.contains(language) else { return [] }
        predictorsLoading.insert(language)
        return [.loadPredictor(language: language)]
    }

    /// Learns what an effect of the screens asks into the predictor (a new snapshot: the suggestions may
    /// differ now) and returns the files to write; the user's vocabulary goes with a dictation context.
    /// Nothing else is learned from (a password prompt's keys never come as these effects).
    public mutating func learn(_ e: Effect) -> [Effect] {
        var writes: [Effect] = []
        if predictor.isLoading {
            switch e {
            case .learnWord, .learnSentences:
                // Kept until the words arrive; the oldest goes first when a very long wait fills the queue.
                if learningWhileLoading.count >= Self.learningHeldLimit { learningWhileLoading.removeFirst() }
                learningWhileLoading.append(HeldLearning(language: predictorLanguage, effect: e))
                return []
            default: break
            }
        }
        switch e {
        case .learnWord(let word, let before):
            writes = predictor.learn(word: word, after: before).map { [.saveLearnedWords($0)] } ?? []
        case .addWord(let word):
            let (done, write) = predictor.addWord(word)
            // Asked for by name, so not lost in silence while the lists load.
            guard done else { noticeMessage = UIMessage("Words are still loading: “{word}” was not added, try again", ["word": word]); return [] }
            writes = write.map { [.saveLearnedWords($0)] } ?? []
        case .removeWord(let word):
            let (done, words, sentences) = predictor.removeWord(word)
            guard done else { noticeMessage = UIMessage("Words are still loading: “{word}” was not removed, try again", ["word": word]); return [] }
            // A word never to be offered again is not offered inside a sentence either.
            writes = (words.map { [.saveLearnedWords($0)] } ?? []) + (sentences.map { [.saveSentences($0)] } ?? [])
        case .learnSentences(let text):
            writes = predictor.learnSentences(text).map { [.saveSentences($0)] } ?? []
        case .forgetSentence(let text):
            writes = predictor.forgetSentence(text).map { [.saveSentences($0)] } ?? []
        default:
            return []
        }
        relayout()
        return writes
    }

    /// How many commits are kept while the words load (about an hour of typing by gaze).
    static let learningHeldLimit = 2_000

    /// Learns what was committed in `language` while its words loaded, into the predictor now holding them
    /// (the one in use, or the parked one when the user has switched language since); the files to write.
    mutating func learnHeld(for language: String?) -> [Effect] {
        let held = learningWhileLoading.filter { $0.language == language }
        guard !held.isEmpty else { return [] }
        learningWhileLoading.removeAll { $0.language == language }
        if language == nil || language == predictorLanguage {
            return held.flatMap { learn($0.effect) }
        }
        guard let language, var parked = parkedPredictors[language] else { return [] }
        var writes: [Effect] = []
        for h in held {
            switch h.effect {
            case .learnWord(let word, let before):
                writes += parked.learn(word: word, after: before).map { [.saveLearnedWords($0)] } ?? []
            case .learnSentences(let text):
                writes += parked.learnSentences(text).map { [.saveSentences($0)] } ?? []
            default: break
            }
        }
        parkedPredictors[language] = parked
        return writes
    }

    /// What a change of settings asks of the edge: the keymap it names read when it is another
    /// (`.loadKeymap`), with the notice that a new dictation engine waits for the next start (said in the title
    /// bar, as is why a keymap was not loaded; with neither, the title bar is cleared).
    mutating func settingsFollowUps(_ new: ShellSettings) -> [Effect] {
        var note: UIMessage?
        if let chosen = speechEngine, new.dictationEngine != chosen {
            speechEngine = new.dictationEngine
            note = UIMessage("Dictation engine {engine} takes effect at the next start", ["engine": "\(new.dictationEngine)"])
        }
        guard new.keymap != keymap.name else { noticeMessage = note; return [] }
        return [.loadKeymap(name: new.keymap, gestures: gestures, notice: note)]
    }
}

/// Takes what became of an action on a control: a note for the Controls view, a pointer click where the
/// control has no action, and a new reading when the list was out of date.
func controlReported(_ s: inout ShellState, _ report: ControlReport) -> [Effect] {
    s.revision &+= 1
    s.relayout()
    switch report {
    case .acted:
        s.desktop.controlsNote = nil
        return []
    case .focused(let name):
        s.desktop.controlsNote = nil
        s.noticeMessage = name.isEmpty ? UIMessage("Typing into the text field") : UIMessage("Typing into {name}", ["name": name])
        return []
    case .pointer(let x, let y):
        s.desktop.controlsNote = nil
        return [.desktop(.point(.moveTo(x: x, y: y))), .desktop(.point(.click(.left, count: 1)))]
    case .failed(let reason, let stale, let message):
        s.desktop.controlsNote = message ?? .verbatim(reason)
        return stale ? [.readControls(follow: true)] : []
    }
}

/// Takes the runtime's measures of the frame source; a new sender of unrecognised packets is named once in
/// the title bar (the status line keeps the count).
func inputHealth(_ s: inout ShellState, _ h: InputHealth) {
    if let from = h.unrecognisedFrom, from != s.tracking.health?.unrecognisedFrom {
        s.noticeMessage = h.unrecognisedPacket.map { UIMessage("unrecognised packets from {address} (packet {packet})", ["address": from, "packet": String($0)]) }
            ?? UIMessage("unrecognised packets from {address}", ["address": from])
    }
    s.tracking.apply(h)
}

/// The target a gesture acts on: the dwelt target for dwell, else the one under the gaze from just before
/// the gesture began, else (a glance away within the grace time, or no gaze at all) the focused one.
func gestureTarget(_ s: ShellState, _ ev: GestureEvent, _ cell: CellPoint?) -> Target? {
    if let id = ev.target { return s.hitMap.target(id: id) }
    if let cell, let t = s.hitMap.snapped(cell, current: s.focus.focused) { return t }
    return focusedTarget(s)
}

func focusedTarget(_ s: ShellState) -> Target? { s.focus.focused.flatMap { s.hitMap.target(id: $0) } }

/// Performs a keymap action: the screen first, then the shell's defaults.
public func perform(_ s: inout ShellState, _ action: Action, target: Target?, gaze: CellPoint?) -> [Effect] {
    switch action {
    case .pause: return s.setPaused(true)
    case .resume: return s.setPaused(false)
    case .togglePause: return s.setPaused(!s.readiness.paused)
    case .restoreSettings: return s.restoreKnownGood()
    case .stopSpeaking:
        // Stopping is the shell's wherever it is asked for: a screen's Speak key only offers it.
        guard s.speaking else { return [] }
        s.speaking = false
        s.relayout()
        return [record(s, action.rawValue, nil), .stopSpeaking]
    default: break
    }
    if action == .activate, target?.id == backTargetID { return goBack(&s, target: backTargetID) }
    if let effects = ask(&s, .action(action, target: target, gaze: gaze), recordAs: action.rawValue, target: target?.id) {
        return effects
    }
    switch action {
    case .back: return goBack(&s, target: nil)
    case .home:
        guard s.stack.count > 1 else { return [] }
        let ctx = s.context
        let leaving = s.stack[1...].reversed().flatMap { $0.leaving(ctx) }
        s.stack.removeSubrange(1...)
        s.relayout()
        return [record(s, "home", nil)] + leaving
    case .help:
        guard !(s.top is HelpScreen || s.top is AppHelpScreen), let help = s.registry.make("help") else { return [] }
        s.stack.append(help)
        s.relayout()
        return [record(s, "help", target?.id)]
    case .quit:
        // Quitting would lose text that could not be saved: ask first, and offer to write a copy elsewhere.
        if !s.data.saveErrors.isEmpty {
            s.stack.append(QuitScreen())
            s.relayout()
            return [record(s, "open", "quit")]
        }
        return [record(s, "quit", nil), .quit]
    case .next, .previous:
        s.focus.set(FocusMover.step(from: s.focus.focused, by: action == .next ? 1 : -1, in: s.hitMap), at: s.now)
        return []
    case .toggleDictation, .startDictation, .stopDictation:
        let on = action == .toggleDictation ? !s.dictating : action == .startDictation
        guard on != s.dictating else { return [] }
        s.dictating = on
        if on { s.listening = false }
        return [record(s, action.rawValue, nil), on ? .startDictation : .stopDictation]
    case .recentre:
        return [record(s, action.rawValue, nil), .recentre]
    case .speak:
        s.noticeMessage = UIMessage("Nothing to speak here: Speak reads a note or a message")
        return []
    case .savePhrase:
        s.noticeMessage = UIMessage("Nothing to save here: \"save phrase\" keeps what a note or a message says")
        return []
    case .pushToTalk:
        guard !s.micOpen else { return [] }
        s.listening = true
        return [record(s, action.rawValue, nil), .listenForCommand]
    default:
        return []
    }
}

/// Performs a `[terminal]` binding on the Terminal screen: a key for the program, leaving, or an action.
func performTerminal(_ s: inout ShellState, _ b: TerminalBinding, target: Target?, gaze: CellPoint?) -> [Effect] {
    switch b {
    case .press(let name):
        guard let press = TerminalKeyPress(name: name) else { return [] }
        return ask(&s, .terminalKey(press), recordAs: name, target: nil) ?? []
    case .leave:
        return goBack(&s, target: s.top is DesktopScreen ? DesktopScreen.leaveID : "terminal.leave")
    case .action(let a):
        return perform(&s, a, target: target, gaze: gaze)
    case .desktop(let c):
        return ask(&s, .desktop(c), recordAs: c.rawValue, target: nil) ?? []
    }
}

/// Steers the desktop pointer with a frame while the Desktop screen is in pointer mode: nothing moves while
/// the face is lost, before safe start, while paused, or while a gesture (not a dwell) is under way, from
/// the first frame a bound shape rises past its release level until it is back below it (so the gaze that
/// dips as the jaw opens, and after the gesture fired while the jaw is still open, moves nothing).
func desktopPointer(_ s: inout ShellState, _ sample: TrackingSample) -> [Effect] {
    guard var d = s.top(as: DesktopScreen.self), d.pointer != nil else { return [] }
    let dwells = s.dwellGestures
    let gesturing = sample.progress.contains { $0.progress > 0 && !dwells.contains($0.name) }
    let held = !s.readiness.armed || s.readiness.paused || gesturing || s.isMakingGesture(sample.blend)
    let events = d.follow(sample, held: held)
    s.stack[s.stack.count - 1] = d
    guard !events.isEmpty else { return [] }
    var out = events.map { Effect.desktop(.point($0)) }
    if events.contains(where: { if case .click = $0 { return true } else { return false } }) {
        s.revision &+= 1
        out.append(record(s, "dwell-click", nil))
    }
    return out
}

extension TerminalBinding {
    /// Whether it is a pointer command a gesture does only in pointer mode (while typing, the gesture keeps
    /// its usual binding: a wink that right-clicks while pointing still moves the focus while typing).
    var pointsOnly: Bool {
        guard case .desktop(let c) = self else { return false }
        switch c {
        case .click, .rightClick, .middleClick, .doubleClick, .drag, .wheelUp, .wheelDown, .wheelLeft, .wheelRight: return true
        case .pointerMode, .stopPointing, .dwellClick, .privateTyping, .controls: return false
        }
    }

    /// Whether it acts while the shell is paused (only resuming does).
    var worksWhilePaused: Bool {
        if case .action(let a) = self { return a.worksWhilePaused }
        return false
    }
}

/// The targets of the screen showing that smooth pursuit can pick, with their paths, on a screen the keymap
/// names: all its targets when there are at most eight (more would move too alike), else its word suggestions
/// (following a word's dot commits it); none elsewhere.
public func pursuitTargets(_ s: ShellState, map: HitMap? = nil) -> [(Target, PursuitPath)] {
    guard !s.keymap.pursuitScreens.isEmpty, s.keymap.pursuitScreens.contains(s.topName), !s.tooSmall else { return [] }
    var targets = (map ?? s.hitMap).targets.filter { $0.id != backTargetID }
    if targets.count > 8 { targets = targets.filter { $0.id.contains(".suggestion.") } }
    guard (2...8).contains(targets.count) else { return [] }
    let w = Double(s.size.width), h = Double(s.size.height)
    let centres = targets.map { GazePoint(x: (Double($0.rect.x) + Double($0.rect.w) / 2) / w, y: (Double($0.rect.y) + Double($0.rect.h) / 2) / h) }
    // Circles about five cells wide, and as many rows as make them round, within the smallest target.
    let rx = min(2.5, Double(targets.map(\.rect.w).min() ?? 5) / 3) / w
    let ry = min(2.5 * 0.5, Double(targets.map(\.rect.h).min() ?? 3) / 3) / h
    return zip(targets, PursuitPath.distinct(centres, rx: rx, ry: ry, period: s.settings.pursuitPace.period)).map { ($0, $1) }
}

/// Steps smooth pursuit with a frame's pointer; activates the target followed, if one was (nil: nothing picked).
func pursue(_ s: inout ShellState, _ sample: TrackingSample) -> [Effect]? {
    let pairs = pursuitTargets(s)
    guard !pairs.isEmpty else { return nil }
    let pointer = sample.face ? (sample.rawPointer ?? sample.gaze) : nil
    let pace = s.settings.pursuitPace
    if s.pursuit.lag != pace.lag || s.pursuit.threshold != pace.threshold {
        s.pursuit.lag = pace.lag
        s.pursuit.threshold = pace.threshold
    }
    guard let i = s.pursuit.step(t: sample.t, pointer: pointer, paths: pairs.map(\.1)),
          s.readiness.armed, !s.readiness.paused else { return nil }
    let target = pairs[i].0
    return s.actedWithSettings() + perform(&s, .activate, target: target, gaze: nil) + forwardTick(&s)
}

/// What acting with the settings in use brings (`ShellState.actedWithSettings`) when `activates`: an
/// activation recognised under them shows the user can act with them.
func actedWith(_ s: inout ShellState, _ activates: Bool) -> [Effect] { activates ? s.actedWithSettings() : [] }

/// Leaves the screen showing for the one before; the launcher stays.
func goBack(_ s: inout ShellState, target: String?) -> [Effect] {
    guard s.stack.count > 1 else { return [] }
    let leaving = s.top.leaving(s.context)
    let left = s.stack.removeLast()
    s.relayout()
    var effects = [record(s, "back", target ?? left.name)] + leaving
    if let help = left as? HelpScreen, help.onboarding { effects.append(.finishedOnboarding) }
    return effects
}

/// Gives an input to the screen showing; returns nil when the screen did not handle it.
func ask(_ s: inout ShellState, _ input: ScreenInput, recordAs: String?, target: String?) -> [Effect]? {
    let ctx = s.context
    let i = s.stack.count - 1
    let reply = s.stack[i].handle(input, ctx)
    // Data changes apply even when the screen did not handle the input (owed replies start their delay).
    var saves: [Effect] = []
    if !reply.changes.isEmpty {
        for c in reply.changes { s.data.apply(c) }
        saves = s.data.takeSaves().map { Effect.save(name: $0.name, text: $0.text) }
    }
    guard reply.handled else { return saves.isEmpty ? nil : saves }
    s.revision &+= 1
    var effects: [Effect] = []
    var name = reply.record ?? recordAs
    let target = reply.hideTarget ? nil : target
    if let nav = reply.navigation {
        switch nav {
        case .open(let screen):
            if let next = s.registry.make(screen) { s.stack.append(next); s.notice = nil }
            else { s.noticeMessage = UIMessage("That screen is not part of this shell"); name = nil }
        case .push(let next): s.stack.append(next)
        case .replace(let next): s.stack[s.stack.count - 1] = next
        case .back: if s.stack.count > 1 { s.stack.removeLast() }
        case .home: s.stack.removeSubrange(1...)
        }
    }
    // A key the Terminal screen passes on changes nothing laid out until the program's echo comes (which
    // lays out again if the line changed): laying out here would only delay the key on its way.
    if !(reply.keepsLayout && reply.navigation == nil && reply.changes.isEmpty) { s.relayout() }
    if let name { effects.append(record(s, name, target)) }
    return effects + saves + trackDictation(&s, reply.effects)
}

func record(_ s: ShellState, _ action: String, _ target: String?) -> Effect {
    .performed(ActionRecord(t: s.now, action: action, target: target, screen: s.topName))
}

/// Gives the screen showing the time; only a screen that changed returns handled, so idle frames stay cheap.
func forwardTick(_ s: inout ShellState) -> [Effect] {
    guard s.top.wantsTicks else { return [] }
    return ask(&s, .tick(s.now), recordAs: nil, target: nil) ?? []
}

/// The helper's keyboard: arrows move focus, Enter activates, Esc goes back, `?` help, `q` quits the launcher.
func keyPressed(_ s: inout ShellState, _ key: Key) -> [Effect] {
    switch key {
    case .up, .down, .left, .right:
        s.focus.set(FocusMover.move(from: s.focus.focused, key, in: s.hitMap), at: s.now)
        return []
    case .tab:
        s.focus.set(FocusMover.step(from: s.focus.focused, by: 1, in: s.hitMap), at: s.now)
        return []
    case .enter:
        // No gaze: a key press has no place on the target, so a slider keeps its value (− / + move it) and a
        // text field keeps its caret.
        guard let t = focusedTarget(s) else {
            // Nothing focused on the Terminal or Desktop screen: a helper's Enter is for the program.
            guard s.typesIntoPrograms else { return [] }
            return ask(&s, .terminalKey(TerminalKeyPress(.enter)), recordAs: "enter", target: nil) ?? []
        }
        return perform(&s, .activate, target: t, gaze: nil)
    case .escape:
        // On the Terminal screen Esc is for the program (vim needs it); leaving is the ◀ Leave key.
        if s.typesIntoPrograms, !s.dictating {
            return ask(&s, .terminalKey(TerminalKeyPress(.escape)), recordAs: "escape", target: nil) ?? []
        }
        // A helper's Esc ends dictation first, like the user's back gesture.
        return perform(&s, s.dictating ? .stopDictation : .back, target: nil, gaze: nil)
    case .backspace:
        return ask(&s, .key(key), recordAs: nil, target: nil) ?? []
    case .restoreSettings:
        return s.restoreKnownGood()
    case .home, .end, .pageUp, .pageDown, .delete, .ctrl:
        // Keys with no meaning in the shell's own screens (arrows, Tab and Enter move and activate the focus,
        // which a keyboard or switch user drives every screen by) are the program's on the Terminal screen:
        // Ctrl-C stops a runaway command, Ctrl-R searches bash's history, PgUp pages in less.
        guard s.typesIntoPrograms, let press = TerminalKeyPress(helperKey: key) else { return [] }
        return ask(&s, .terminalKey(press), recordAs: nil, target: nil) ?? []
    case .char(let c):
        // Screens with a text field take characters first, so a helper can type "?" and "q" there.
        if let e = ask(&s, .key(key), recordAs: nil, target: nil) { return e }
        if c == "?" { return perform(&s, .help, target: nil, gaze: nil) }
        if c == "q" && s.stack.count == 1 { return perform(&s, .quit, target: nil, gaze: nil) }
        return []
    }
}

extension ShellState {
    /// The screen showing sends keys to programs (the Terminal's, or the desktop's focused window): a
    /// helper's Esc, Enter (with nothing focused), PgUp and Ctrl chords are theirs.
    var typesIntoPrograms: Bool { top is TerminalScreen || top is DesktopScreen }
}

extension TerminalKeyPress {
    /// The program's key for a helper's key that the shell's own screens do not use.
    init?(helperKey key: Key) {
        switch key {
        case .home: self.init(.home)
        case .end: self.init(.end)
        case .pageUp: self.init(.pageUp)
        case .pageDown: self.init(.pageDown)
        case .delete: self.init(.delete)
        case .ctrl(let c): self.init(.ctrl(c))
        default: return nil
        }
    }
}

/// The signals a helper's keys stand for off the Terminal screen (their numbers on Linux), so that the command
/// exits as if it had received them.
public enum ShellSignal {
    /// SIGINT: Ctrl-C.
    public static let interrupt: Int32 = 2
    /// SIGQUIT: Ctrl-\.
    public static let quit: Int32 = 3
}

/// How many weak performances of one gesture within `weakWindow` seconds make the shell suggest calibrating.
let weakCount = 3
let weakWindow = 120.0

/// Notes a weak performance: a held gesture aimed at a target that stayed below its press value. Three of one
/// gesture within two minutes (none acting in between) mean the user's opens have grown weaker than the
/// thresholds (tiredness, a long day): the title bar says how far short they fall and where to calibrate.
/// Thresholds are never lowered without the user: a lower press lets talking and yawns act.
func noteWeak(_ s: inout ShellState, _ w: WeakPerformance, onTarget: Bool) {
    guard onTarget, s.readiness.acting, !s.micOpen, !s.talking, s.binds(gesture: w.gesture) else { return }
    s.weakPerformances.removeAll { w.t - $0.t > weakWindow }
    s.weakPerformances.append(w)
    let mine = s.weakPerformances.filter { $0.gesture == w.gesture }
    guard mine.count >= weakCount else { return }
    s.weakPerformances.removeAll { $0.gesture == w.gesture }
    let level = mine.map(\.level).reduce(0, +) / Double(mine.count)
    let how = s.gestures.first { $0.name == w.gesture }.map { GestureText.movement($0, s.catalog) } ?? s.catalog.tr("a gesture")
    // Short enough for the title bar at 100 columns.
    s.noticeMessage = UIMessage("{gesture}: only {level} of {press}. Settings › Pointer › Calibrate gestures",
                                ["gesture": how.prefix(1).uppercased() + how.dropFirst(), "level": SetupScreen.decimal(level, 2, s.catalog),
                                 "press": SetupScreen.decimal(Double(w.press), 2, s.catalog)])
}

/// A commit kept while the words of its language loaded: learned when they arrive.
public struct HeldLearning: Sendable, Equatable {
    /// The language the words were committed in (nil: the words do not follow the language).
    public var language: String?
    /// `.learnWord` or `.learnSentences`.
    public var effect: Effect
}
