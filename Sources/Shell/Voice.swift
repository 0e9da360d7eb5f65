import Config
import Localization
import Prediction
import SpeechText
import TrackingCore

/// A text field as dictation sees it: its text, caret and what earlier utterances left behind.
public struct DictationInput: Sendable {
    public var text: String
    /// Caret position in characters.
    public var caret: Int
    /// The dictation editor's own state from the previous utterance into this field (for "delete that").
    public var memo: DictationSession?
    /// How numbers are written: "digits" or "words" (`ShellSettings.dictationNumbers`).
    public var numbers: String
    /// The language spoken (`Services.speech`).
    public var language: SpeechLanguage

    public init(text: String, caret: Int, memo: DictationSession? = nil, numbers: String = "digits",
                language: SpeechLanguage = .english) {
        self.text = text; self.caret = caret; self.memo = memo; self.numbers = numbers; self.language = language
    }
}

/// What one final utterance did to a text field.
public struct DictationResult: Sendable {
    public var text: String
    public var caret: Int
    /// The user said "stop dictation".
    public var stop: Bool
    public var memo: DictationSession?

    public init(text: String, caret: Int, stop: Bool = false, memo: DictationSession? = nil) {
        self.text = text; self.caret = caret; self.stop = stop; self.memo = memo
    }
}

extension Services {
    /// A final utterance through the dictation editor (`DictationSession`: spoken punctuation, "new line",
    /// "delete that", "stop dictation", numbers as the settings say), continuing the field's last session when
    /// nothing else changed the field since.
    @Sendable public static func sessionDictation(_ utterance: String, _ field: DictationInput) -> DictationResult {
        var s = field.memo.flatMap { $0.text == field.text && $0.caret == field.caret ? $0 : nil }
            ?? DictationSession(text: field.text, caret: field.caret)
        s.numbers = NumberStyle(rawValue: field.numbers)
        s.language = field.language
        let edits = s.apply(utterance: utterance)
        return DictationResult(text: s.text, caret: s.caret, stop: edits.contains(.stop), memo: s)
    }

    /// Inserts the utterance at the caret as it was heard, with a space before it when it continues a word.
    @Sendable public static func plainDictation(_ utterance: String, _ field: DictationInput) -> DictationResult {
        var m = TextFieldModel(field.text)
        m.moveCaret(to: field.caret)
        m.insert(SuggestionBar.joinDictation(utterance, after: m.beforeCaret))
        return DictationResult(text: m.text, caret: m.caret)
    }
}

extension TextFieldModel {
    /// Applies a final dictated utterance through `Services.dictate`; returns true when the user said
    /// "stop dictation".
    public mutating func dictate(_ utterance: String, _ services: Services, numbers: String = "digits") -> Bool {
        let r = services.dictate(utterance, DictationInput(text: text, caret: caret, memo: dictationMemo, numbers: numbers,
                                                           language: services.speech))
        set(r.text)
        moveCaret(to: r.caret)
        dictationMemo = r.memo
        return r.stop
    }

    /// Commits a suggested word at the caret (prediction's capitalisation and spacing); the text after the
    /// caret stays. Returns the word to learn, after the text before it.
    public mutating func commit(_ word: String, _ services: Services) -> [Effect] {
        let after = String(text.dropFirst(caret))
        var context = beforeCaret
        while let last = context.last, !last.isWhitespace { context.removeLast() }
        let before = services.commit(word, beforeCaret)
        set(before + after)
        moveCaret(to: before.count)
        markAutoSpace()
        return [.learnWord(word, after: context)]
    }
}

extension SuggestionBar {
    /// The word the commit gesture takes: the suggestion it was aimed at (gaze focus), else the first.
    public static func chosen(_ target: Target?, _ id: String, _ words: [String]) -> String? {
        if let t = target, let w = word(t.id, id, words) { return w }
        return words.first
    }

    /// Works out `add-word` (the word before the caret) and `remove-word` (the suggestion under the gaze,
    /// else the first) for a text screen: what to tell the user and the effect that changes the word list, or
    /// nil for any other input.
    static func wordListAction(_ input: ScreenInput, field: TextFieldModel, id: String, words: [String])
        -> (message: UIMessage, effects: [Effect])? {
        switch input {
        case .action(.addWord, _, _):
            var before = Substring(field.beforeCaret)
            while let l = before.last, l.isWhitespace || l == "." || l == "," || l == "?" || l == "!" { before = before.dropLast() }
            let word = String(TextFieldModel.trailingWord(before).word)
            guard !word.isEmpty else { return (UIMessage("Type a word first, then add it."), []) }
            guard WordPredictor.isSingleWord(word) else { return (UIMessage("“{word}” is not a single word.", ["word": word]), []) }
            return (UIMessage("Added “{word}” to your words.", ["word": word]), [.addWord(word)])
        case .action(.removeWord, let t, _):
            guard let word = chosen(t, id, words) else { return (UIMessage("No suggestion to remove."), []) }
            return (UIMessage("“{word}” will not be suggested again.", ["word": word]), [.removeWord(word)])
        default:
            return nil
        }
    }

    /// The line shown where suggestions go when there are none: why (loading, no word list) or a hint.
    static func emptyText(_ ctx: ScreenContext) -> String {
        ctx.predictor.statusLine.map { $0.text(ctx.catalog) } ?? ctx.tr("(word suggestions appear here)")
    }
}

// MARK: - The microphone in the reducer

/// What the microphone is for.
public enum MicMode: Sendable, Equatable {
    /// Closed (or only the wake listener, when the keymap has a wake phrase).
    case closed
    /// Dictation into the text field showing.
    case dictation
    /// One voice command.
    case command
}

extension ShellState {
    /// The microphone's use as an effect for the speech side.
    var listenEffect: Effect { .listen(mic, turn: micTurn, silence: settings.dictationSilence) }

    /// The microphone is open (dictation or a voice command): the user is talking, so the jaw moves.
    public var micOpen: Bool { dictating || listening }

    /// Whether a gesture of the mouth (jaw or lips: jaw open, pucker, funnel) is held because the wake listener
    /// hears the user talking and the setting asks for it.
    func mouthHeldForTalk(_ name: String) -> Bool {
        guard talking, settings.holdMouthWhileTalking,
              let def = gestures.first(where: { $0.name == name }), case .threshold(let spec) = def.kind else { return false }
        return spec.signal.shapes.contains { [.jawOpen, .mouthPucker, .mouthFunnel].contains($0) }
    }

    /// Whether a gesture is read from the jaw (ignored while the microphone is open).
    func isJawGesture(_ name: String) -> Bool {
        guard let def = gestures.first(where: { $0.name == name }) else { return false }
        switch def.kind {
        case .threshold(let spec): return spec.signal.shapes.contains(.jawOpen)
        case .blinkCount, .dwell: return false
        }
    }

    /// What a voice command may say on this screen: the keymap's phrases, and "open …"/"select …" with the
    /// label of every target on screen ("open Notes", "select Send"). The runtime builds its grammar from these.
    public var voicePhrases: [String] {
        var out = keymap.allPhrases.filter { $0 != keymap.wakePhrase }.sorted()
        var seen = Set(out.map(Keymap.normalise))
        // The Controls view's letters come before the controls' names: a letter said filters, never acts.
        for p in top(as: DesktopScreen.self)?.controlsVoicePhrases ?? [] where seen.insert(Keymap.normalise(p)).inserted {
            out.append(p)
        }
        for t in hitMap.targets {
            let label = t.label.trimmingSpaces
            guard label.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            for p in ["open " + label, "select " + label] + DesktopScreen.controlPhrases(t) where seen.insert(Keymap.normalise(p)).inserted {
                out.append(p)
            }
        }
        return out
    }

    /// The target a spoken "open …"/"select …" names, if any.
    func voiceTarget(_ phrase: String) -> Target? {
        let said = Keymap.normalise(phrase)
        return hitMap.targets.first { t in
            let label = t.label.trimmingSpaces
            return said == Keymap.normalise("open " + label) || said == Keymap.normalise("select " + label)
                || DesktopScreen.controlPhrases(t).contains { said == Keymap.normalise($0) }
        }
    }

    /// The status line's speech part, or nil when speech is not set up.
    var micLabel: (text: String, open: Bool)? {
        if dictating { return (catalog.tr("● mic open: dictating"), true) }
        if listening { return (catalog.tr("● mic open: say a command"), true) }
        return micStatus.map { ($0.text(catalog), false) }
    }
}

/// Rewrites an action for the microphone being open; nil drops the gesture.
///
/// While dictating, the keymap's "back" and "commit-word" gestures (right eye, tongue by default) stop
/// dictation instead, and jaw gestures do nothing at all while the microphone is open: talking moves the jaw.
func micRouted(_ s: ShellState, gesture: String, _ action: Action) -> Action? {
    if s.micOpen && s.isJawGesture(gesture) { return nil }
    if s.mouthHeldForTalk(gesture) { return nil }
    if s.dictating && (action == .back || action == .commitWord) { return .stopDictation }
    return action
}

/// Whether an utterance is the word "English" alone, as English and the shipped languages write it (Whisper
/// writes what it hears in the language it listens for: "Inglés.", "Anglais !").
func saysEnglish(_ heard: String) -> Bool {
    let word = String(SpeechLanguage.fold(heard).filter(\.isLetter))
    return ["english", "ingles", "anglais", "englisch", "inglese"].contains(word)
}

/// A final command phrase heard outside dictation: a keymap phrase, else "open/select <label>". In another
/// language than English, `scores` (Whisper's scores of the screen's phrases against the utterance's audio)
/// decide the command when given (`CommandWords.scoredCommand`); else the text's nearest phrase does.
func voiceCommand(_ s: inout ShellState, _ heard: String, scores: CommandScores? = nil) -> [Effect] {
    s.listening = false
    var text = heard
    if !LanguageChoice.isEnglish(s.catalog.language), saysEnglish(heard) {
        // The way back for someone who chose a language they cannot read: "English", said alone, on any screen.
        var new = s.settings
        new.language = LanguageChoice.english
        return [record(s, "language-english", nil), .settingsChanged(new)]
    }
    if !s.services.speech.isEnglish {
        // Another language's command comes as Whisper's text ("Abre notas."): its words become the English
        // phrase they stand for, matched to the nearest of this screen's phrases; one far from all is no command.
        let commands = s.services.speech.commands
        let match = scores.map { commands.scoredCommand($0, heard: heard, among: s.voicePhrases)?.phrase }
            ?? commands.nearest(heard, among: s.voicePhrases)?.phrase
        guard let match else { return [] }
        text = match
    }
    if s.top is TerminalScreen, let b = s.keymap.terminalBinding(phrase: text) {
        guard !s.readiness.paused || b.worksWhilePaused else { return [] }
        return performTerminal(&s, b, target: focusedTarget(s), gaze: nil)
    }
    if s.top is DesktopScreen, let b = s.keymap.desktopBinding(phrase: text) {
        guard !s.readiness.paused || b.worksWhilePaused else { return [] }
        return performTerminal(&s, b, target: focusedTarget(s), gaze: nil)
    }
    if let action = s.keymap.action(phrase: text, screen: s.topName) {
        // The escape works while paused too: settings that stop gestures acting are no time to wait.
        guard !s.readiness.paused || action.worksWhilePaused || action == .restoreSettings else { return [] }
        return perform(&s, action, target: focusedTarget(s), gaze: nil)
    }
    guard !s.readiness.paused else { return [] }
    if let input = s.top(as: DesktopScreen.self)?.controlsVoiceInput(text) {
        return ask(&s, input, recordAs: "controls-filter", target: nil) ?? []
    }
    if let t = s.voiceTarget(text) {
        return perform(&s, .activate, target: t, gaze: t.rect.center)
    }
    return []
}

/// Keeps `dictating` in step with dictation effects a screen returned (activating a text field starts it,
/// "stop dictation" ends it); a start while already dictating is dropped.
func trackDictation(_ s: inout ShellState, _ effects: [Effect]) -> [Effect] {
    var out: [Effect] = []
    for e in effects {
        switch e {
        case .startDictation:
            if s.dictating { continue }
            s.dictating = true; s.listening = false
        case .stopDictation:
            if !s.dictating { continue }
            s.dictating = false
        default: break
        }
        out.append(e)
    }
    return out
}

/// Draws the speech part of the status line from `x`, whole (`StatusLook` moved it to the notice line when
/// the row has no room for it).
func drawMic(_ g: inout CellGrid, _ label: (text: String, open: Bool)?, x: Int, y: Int) -> Int {
    guard let (text, open) = label else { return x }
    let style = open ? Style(fg: .white, bg: .red, attrs: .bold) : Style(fg: .yellow, bg: .black, attrs: .bold)
    var nx = x + g.text("│ ", x: x, y: y, style: Theme.status)
    nx += g.text(text, x: nx, y: y, style: style)
    return nx + 1
}
