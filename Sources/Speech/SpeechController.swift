import Foundation
import Localization
import SpeechText

/// What the shell hears from speech.
public enum SpeechUpdate: Sendable, Equatable {
    /// Recognised text: dictation (partial or final), or a final command phrase as the grammar gave it.
    case text(String, isFinal: Bool)
    /// A final command utterance in another language than English with Whisper's scores of the screen's phrases
    /// against its audio: the shell decides the command from them (`CommandWords.scoredCommand`).
    case scoredCommand(String, CommandScores)
    /// The status line's speech message, translated when drawn (nil: nothing to say).
    case status(UIMessage?)
    /// The wake phrase alone was heard: listen for a command now.
    case listening
    /// Dictation heard nothing for the silence time: stop it.
    case silence(Double)
    /// A message for the title bar (why speech is off), translated when drawn.
    case notice(UIMessage)
    /// The wake listener hears the user talking (true) or has stopped hearing them (false): the shell holds
    /// the mouth's gestures meanwhile, since talking moves the jaw and lips.
    case talking(Bool)
}

/// Decides what the shell hears from the recogniser's events, for the microphone mode the shell keeps.
/// Pure: time is audio time, advanced by the audio consumed, never a clock.
///
/// The mode is the shell's (`follow` sets it); this never changes it. When what was heard means leaving the
/// mode (a command was given, dictation fell silent, the wake phrase was said), it says so once and waits
/// for the shell to set the next mode, dropping what it hears meanwhile. Modes: idle (nothing, or the wake
/// listener when there is a wake phrase), dictation (the language model), command (one utterance from a
/// grammar of phrases). Dictation ends after `silence` seconds without speech; a command after
/// `commandTimeout` seconds without one (then an empty final says nothing was heard).
public struct SpeechController: Sendable, Equatable {
    public enum Mode: Sendable, Equatable { case idle, dictation, command }

    public private(set) var mode: Mode = .idle
    /// Seconds of audio consumed so far.
    public private(set) var audioTime = 0.0
    /// When the current mode began, in audio time.
    private var since = 0.0
    private var lastActivity = 0.0
    private var silenceLimit = 10.0
    /// An update asking to leave the mode was given: nothing more until the shell sets the next mode.
    private var leaving = false
    private var turn: Int?
    /// The wake listener said talking began and has not said it ended.
    private var talking = false
    /// Seconds without a command before push-to-talk gives up.
    public static let commandTimeout = 6.0

    public init() {}

    /// Takes the shell's mode and its turn (bumped at every change, so stopping and starting again between two
    /// calls is a new mode); `silence` seconds without speech end dictation (0: never).
    public mutating func follow(_ m: Mode, turn: Int, silence: Double) {
        silenceLimit = silence
        guard turn != self.turn else { return }
        self.turn = turn
        mode = m; since = audioTime; lastActivity = audioTime; leaving = false
    }

    /// Talking ends when the utterance does, or when the mode leaves idle (the microphone is then open and the
    /// shell ignores the jaw anyway, so the hold must not outlive it).
    private mutating func talking(_ on: Bool) -> [SpeechUpdate] {
        guard on != talking else { return [] }
        talking = on
        return [.talking(on)]
    }

    /// The search the recogniser should run for the next audio: nil drops the audio.
    public func search(hasCommands: Bool, hasWake: Bool) -> RecognitionMode? {
        switch mode {
        case .dictation: return .dictation
        case .command: return hasCommands ? .grammar("commands") : nil
        case .idle: return hasWake ? .grammar("wake") : nil
        }
    }

    /// Notes `seconds` more audio consumed.
    public mutating func advance(seconds: Double) { audioTime += seconds }

    /// What the shell hears from the recogniser's events for audio decoded in mode `decodedIn`. Events of a
    /// mode the shell has left since (a gesture started dictation meanwhile) are dropped. `commands` maps a
    /// command grammar's transcript to its phrase; `woken`, the wake finals that passed the wake check to
    /// their phrases; `wake` is the wake phrase; `scored`, the command finals Whisper scored the screen's phrases
    /// for, to their scores.
    public mutating func heard(_ events: [SpeechEvent], decodedIn: Mode, commands: [String: String],
                               wake: String?, woken: [String: String],
                               scored: [String: CommandScores] = [:]) -> [SpeechUpdate] {
        var out: [SpeechUpdate] = []
        if mode != .idle { out += talking(false) }
        if mode == decodedIn {
            for e in events where !leaving { out += heard(e, commands: commands, wake: wake, woken: woken, scored: scored) }
        }
        guard !leaving else { return out }
        switch mode {
        case .dictation where silenceLimit > 0 && audioTime - lastActivity >= silenceLimit:
            out.append(.silence(silenceLimit))
            leaving = true
        case .command where audioTime - max(since, lastActivity) >= Self.commandTimeout:
            out.append(.text("", isFinal: true))
            leaving = true
        default: break
        }
        return out
    }

    private mutating func heard(_ e: SpeechEvent, commands: [String: String], wake: String?,
                                woken: [String: String], scored: [String: CommandScores]) -> [SpeechUpdate] {
        switch e {
        case .speechStarted:
            lastActivity = audioTime
            return mode == .idle ? talking(true) : []
        case .partial(let text, _):
            lastActivity = audioTime
            return mode == .dictation ? [.text(text, isFinal: false)] : []
        case .final(let text, _, _):
            lastActivity = audioTime
            let ended = talking(false)
            // An utterance that wrote nothing (Whisper could not read it) takes its preview away, or the last
            // words PocketSphinx guessed would stay on screen beside the notice as if they were to be typed.
            guard !text.isEmpty else { return mode == .dictation ? ended + [.text("", isFinal: false)] : ended }
            switch mode {
            case .dictation:
                return [.text(text, isFinal: true)]
            case .command:
                leaving = true
                if let scores = scored[text] { return [.scoredCommand(text, scores)] }
                return [.text(commands[text] ?? text, isFinal: true)]
            case .idle:
                guard let w = wake, let phrase = woken[text] else { return ended }
                let rest = phrase.dropFirst(w.count).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    leaving = true
                    return ended + [.listening]
                }
                return ended + [.text(rest, isFinal: true)]
            }
        }
    }
}
