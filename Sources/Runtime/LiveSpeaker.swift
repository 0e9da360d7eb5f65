#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import Speech
import SystemIO

/// The shell's voice: carries out `Effect.speak` and `.stopSpeaking` with a `Speaker` (its own threads) and
/// hands what it reports back to the loop as `ShellEvent.speaking` and `.speechOutput`, waking `poll`
/// through a pipe. The speaker and its voices start at the first `speak`, so a shell that never speaks
/// pays nothing.
public final class LiveSpeaker: @unchecked Sendable {
    /// Where the audio goes.
    public enum Output: Sendable, Equatable {
        /// An ALSA playback device (`--speaker`, default `default`).
        case device(String)
        /// A WAV file written through ALSA's file plugin (`--speaker-file`): what would be heard.
        case file(String)
    }

    public let output: Output
    let setup: VoiceSetup
    /// Given to the speaker, which times each request's first audio.
    let clock: any ShellClock
    private let lock = NSLock()
    private var speaker: Speaker?
    private let outbox = WakingOutbox<ShellEvent>()

    public init(output: Output, setup: VoiceSetup, clock: any ShellClock = LiveClock()) {
        self.output = output
        self.setup = setup
        self.clock = clock
    }

    deinit { shutdown() }

    /// Descriptors for the shell loop's `poll`: readable when events are waiting.
    public var descriptors: [Int32] { outbox.descriptors }

    /// Carries out a speech-output effect; others are ignored.
    public func perform(_ effect: Effect) {
        switch effect {
        case .speak(let u):
            let voice: VoiceName
            do throws(VoiceError) { voice = try VoiceName.parse(u.voice) } catch {
                post(.speechOutput(problem: UIMessage("{reason}: flite speaks instead", ["reason": error.description])))
                voice = .flite
            }
            started().speak(.init(text: u.text, voice: voice, rate: u.rate, volume: u.volume, language: u.language))
        case .stopSpeaking:
            lock.withLock { speaker }?.stop()
        default:
            break
        }
    }

    /// Events since the last call.
    public func drain() -> [ShellEvent] { outbox.drain() }

    /// Stops speaking and ends the threads and voice workers (the shell is leaving).
    public func shutdown() {
        let s = lock.withLock { () -> Speaker? in defer { speaker = nil }; return speaker }
        s?.shutdown()
    }

    private func started() -> Speaker {
        lock.lock()
        defer { lock.unlock() }
        if let speaker { return speaker }
        let sink: any AudioSink
        switch output {
        case .device(let name): sink = ALSAPlayback(device: name)
        case .file(let path): sink = ALSAPlayback.toFile(path)
        }
        let s = Speaker(setup: setup, output: sink, clock: clock) { [weak self] event in
            switch event {
            case .speaking(let on): self?.post(.speaking(on))
            // Flite taking over is said; nothing heard at all is told apart, so a screen can show the text.
            case .problem(let message, let fallback): self?.post(fallback ? .speechOutput(problem: message) : .notHeard(problem: message))
            case .firstAudio: break
            }
        }
        speaker = s
        return s
    }

    private func post(_ e: ShellEvent) { outbox.post(e) }
}

/// What the speaker reported: speaking began or ended, a voice or the device failed.
public struct SpeakerSource: EventSource {
    public let speaker: LiveSpeaker
    public init(_ speaker: LiveSpeaker) { self.speaker = speaker }
    public var descriptors: [Int32] { speaker.descriptors }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        speaker.drain().map { .shell($0) }
    }
}
