#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell
import Speech

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
    private let lock = NSLock()
    private var speaker: Speaker?
    private var outbox: [ShellEvent] = []
    private let pipeFDs: [Int32]

    public init(output: Output, setup: VoiceSetup) {
        self.output = output
        self.setup = setup
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        pipeFDs = fds
    }

    deinit {
        shutdown()
        for fd in pipeFDs where fd >= 0 { close(fd) }
    }

    /// Descriptors for the shell loop's `poll`: readable when events are waiting.
    public var descriptors: [Int32] { pipeFDs[0] >= 0 ? [pipeFDs[0]] : [] }

    /// Carries out a speech-output effect; others are ignored.
    public func perform(_ effect: Effect) {
        switch effect {
        case .speak(let u):
            let voice: VoiceName
            do throws(VoiceError) { voice = try VoiceName.parse(u.voice) } catch {
                post(.speechOutput(problem: "\(error.description): flite speaks instead"))
                voice = .flite
            }
            started().speak(.init(text: u.text, voice: voice, rate: u.rate, volume: u.volume))
        case .stopSpeaking:
            lock.withLock { speaker }?.stop()
        default:
            break
        }
    }

    /// Events since the last call (empties the wake pipe).
    public func drain() -> [ShellEvent] {
        var buf = [UInt8](repeating: 0, count: 64)
        while pipeFDs[0] >= 0, read(pipeFDs[0], &buf, buf.count) > 0 {}
        return lock.withLock { defer { outbox = [] }; return outbox }
    }

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
        let s = Speaker(setup: setup, output: sink) { [weak self] event in
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

    private func post(_ e: ShellEvent) {
        lock.withLock { outbox.append(e) }
        if pipeFDs[1] >= 0 { var b: UInt8 = 1; _ = write(pipeFDs[1], &b, 1) }
    }
}

/// What the speaker reported: speaking began or ended, a voice or the device failed.
public struct SpeakerSource: EventSource {
    public let speaker: LiveSpeaker
    public init(_ speaker: LiveSpeaker) { self.speaker = speaker }
    public var descriptors: [Int32] { speaker.descriptors }
    public mutating func events(_ wake: Wakeup, state: ShellState) -> [LoopEvent] {
        speaker.drain().map { .shell($0) }
    }
}
