import Foundation

/// What the shell hears from speech.
public enum SpeechUpdate: Sendable, Equatable {
    /// Recognised text: dictation (partial or final), or a final command phrase as the grammar gave it.
    case text(String, isFinal: Bool)
    /// The status line's speech message (nil: nothing to say).
    case status(String?)
    /// The wake phrase alone was heard: listen for a command now.
    case listening
    /// Dictation heard nothing for the silence time: stop it.
    case silence(Double)
    /// A message for the title bar (why speech is off).
    case notice(String)
}

/// Decides what the microphone is for and what the shell hears, from the shell's requests and the
/// recogniser's events. Pure: time is audio time, advanced by the audio consumed, never a clock.
///
/// Modes: idle (nothing, or the wake listener when there is a wake phrase), dictation (the language model),
/// command (one utterance from a grammar of phrases). Dictation ends after `silence` seconds without speech;
/// a command after `commandTimeout` seconds without one (then an empty final says nothing was heard).
public struct SpeechController: Sendable, Equatable {
    public enum Mode: Sendable, Equatable { case idle, dictation, command(since: Double) }

    public private(set) var mode: Mode = .idle
    /// Seconds of audio consumed so far.
    public private(set) var audioTime = 0.0
    private var lastActivity = 0.0
    private var silenceLimit = 10.0
    /// Seconds without a command before push-to-talk gives up.
    public static let commandTimeout = 6.0

    public init() {}

    /// Opens the microphone for dictation; `silence` seconds without speech end it (0: never).
    public mutating func startDictation(silence: Double) {
        mode = .dictation; silenceLimit = silence; lastActivity = audioTime
    }

    /// Opens the microphone for one command.
    public mutating func listenForCommand() { mode = .command(since: audioTime) }

    /// Closes the microphone (back to the wake listener, if any).
    public mutating func stop() { mode = .idle }

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
    /// mode the user has left since (a gesture started dictation meanwhile) are dropped. `commands` maps a
    /// command grammar's transcript to its phrase; `woken`, the wake finals that passed the wake check to
    /// their phrases; `wake` is the wake phrase.
    public mutating func heard(_ events: [SpeechEvent], decodedIn: Mode, commands: [String: String],
                               wake: String?, woken: [String: String]) -> [SpeechUpdate] {
        var out: [SpeechUpdate] = []
        if mode == decodedIn {
            for e in events { out += heard(e, commands: commands, wake: wake, woken: woken) }
        }
        switch mode {
        case .dictation where silenceLimit > 0 && audioTime - lastActivity >= silenceLimit:
            out.append(.silence(silenceLimit))
            mode = .idle
        case .command(let since) where audioTime - max(since, lastActivity) >= Self.commandTimeout:
            out.append(.text("", isFinal: true))
            mode = .idle
        default: break
        }
        return out
    }

    private mutating func heard(_ e: SpeechEvent, commands: [String: String], wake: String?,
                                woken: [String: String]) -> [SpeechUpdate] {
        switch e {
        case .speechStarted:
            lastActivity = audioTime
            return []
        case .partial(let text, _):
            lastActivity = audioTime
            return mode == .dictation ? [.text(text, isFinal: false)] : []
        case .final(let text, _, _):
            lastActivity = audioTime
            guard !text.isEmpty else { return [] }
            switch mode {
            case .dictation:
                return [.text(text, isFinal: true)]
            case .command:
                mode = .idle
                return [.text(commands[text] ?? text, isFinal: true)]
            case .idle:
                guard let w = wake, let phrase = woken[text] else { return [] }
                let rest = phrase.dropFirst(w.count).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    mode = .command(since: audioTime)
                    return [.listening]
                }
                return [.text(rest, isFinal: true)]
            }
        }
    }
}
