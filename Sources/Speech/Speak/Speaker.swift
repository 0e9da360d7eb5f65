import Foundation
import Localization
import SystemIO

/// Speaks text on threads of its own, so the caller (the shell's loop) never waits: one thread makes the
/// audio sentence by sentence, another plays it in 10 ms slices and stops within one slice when told.
///
/// A voice that cannot start or dies mid-sentence is reported and flite says the rest; an output that fails
/// is reported and the utterance given up. A new `speak` replaces what is being said.
public final class Speaker: @unchecked Sendable {
    /// What to say and how.
    public struct Request: Sendable, Equatable {
        public var text: String
        public var voice: VoiceName
        /// 1 is the voice's own speed, 2 twice as fast (0.3…3).
        public var rate: Double
        /// 0…1.
        public var volume: Double
        /// The language of the text ("en", "es"): see `VoiceName.speaking(_:)`.
        public var language: String
        public init(text: String, voice: VoiceName = .flite, rate: Double = 1, volume: Double = 1, language: String = "en") {
            self.text = text; self.voice = voice; self.rate = rate; self.volume = volume; self.language = language
        }
    }

    /// What the speaker reports, on one of its threads.
    public enum Event: Sendable, Equatable {
        /// Speaking began (true: a request was taken) or ended (false: all heard, stopped, or given up).
        case speaking(Bool)
        /// The first sample of a request reached the output, `seconds` after `speak` was called.
        case firstAudio(seconds: Double, voice: VoiceName)
        /// Something went wrong; the message says what to install or pass. `fallback` when flite took over.
        case problem(UIMessage, fallback: Bool)
    }

    private enum Item { case audio(SpokenAudio, VoiceName), end }

    private let setup: VoiceSetup
    private let output: any AudioSink
    private let onEvent: @Sendable (Event) -> Void
    /// Times each request's first audio (`firstAudio`).
    private let clock: any ShellClock
    private let cond = NSCondition()
    // Everything below is guarded by `cond`.
    private var generation = 0
    private var pending: Request?
    private var queue: [(Int, Item)] = []
    private var active = false
    private var closing = false
    private var threads = 0
    /// Voices made so far, used by the synthesis thread only.
    private var voices: [String: any Synthesizer] = [:]

    public init(setup: VoiceSetup, output: any AudioSink, clock: any ShellClock = LiveClock(),
                onEvent: @escaping @Sendable (Event) -> Void) {
        self.setup = setup
        self.output = output
        self.clock = clock
        self.onEvent = onEvent
        threads = 2
        let synth = Thread { [unowned self] in synthesisLoop() }
        synth.name = "handsfree.speak.synth"
        synth.start()
        let play = Thread { [unowned self] in playbackLoop() }
        play.name = "handsfree.speak.play"
        play.start()
    }

    deinit { shutdown() }

    /// Starts saying `request`, replacing anything being said. Returns at once.
    public func speak(_ request: Request) {
        let text = request.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        cond.lock()
        generation += 1
        queue.removeAll()
        pending = request
        startTimes = [generation: clock.now()]
        let began = !active
        active = true
        cond.broadcast()
        cond.unlock()
        if began { onEvent(.speaking(true)) }
    }

    /// Stops speaking: the audio ends within one 10 ms slice (plus the device's own drop).
    public func stop() {
        cond.lock()
        generation += 1
        queue.removeAll()
        pending = nil
        let was = active
        active = false
        cond.broadcast()
        cond.unlock()
        if was { onEvent(.speaking(false)) }
    }

    /// Whether a request is being made or played.
    public var isSpeaking: Bool {
        cond.lock(); defer { cond.unlock() }
        return active
    }

    /// Stops, ends both threads and the voices' workers, and closes the output (writing a file sink's file).
    public func shutdown() {
        stop()
        cond.lock()
        guard !closing else { cond.unlock(); return }
        closing = true
        cond.broadcast()
        while threads > 0 { cond.wait() }
        cond.unlock()
        for v in voices.values { (v as? PiperWorker)?.stop() }
        voices = [:]
        output.close()
    }

    /// Says `request` and waits until it has all been played or is stopped (commands such as `say`).
    public func speakAndWait(_ request: Request) {
        speak(request)
        cond.lock()
        defer { cond.unlock() }
        while active && !closing { cond.wait() }
    }

    // MARK: - Threads

    private func synthesisLoop() {
        while true {
            cond.lock()
            while pending == nil && !closing { cond.wait() }
            guard !closing, let request = pending else { threads -= 1; cond.broadcast(); cond.unlock(); return }
            pending = nil
            let gen = generation
            cond.unlock()

            var voiceName = request.voice.speaking(request.language)
            for sentence in Sentences.split(request.text) {
                guard current(gen) else { break }
                var audio: SpokenAudio?
                do throws(VoiceError) {
                    audio = try voice(voiceName, language: request.language).synthesize(sentence, rate: request.rate)
                } catch {
                    if voiceName != .flite {
                        onEvent(.problem(UIMessage("{voice} voice: {reason}; flite speaks instead",
                                                      ["voice": voiceName.rawValue], reasons: ["reason": error.message]), fallback: true))
                        voiceName = .flite
                        audio = try? voice(.flite).synthesize(sentence, rate: request.rate)
                    } else {
                        onEvent(.problem(UIMessage("flite could not say a sentence: {reason}", reasons: ["reason": error.message]), fallback: false))
                    }
                }
                if let audio, !audio.samples.isEmpty { enqueue(gen, .audio(audio.scaled(by: request.volume), voiceName)) }
            }
            enqueue(gen, .end)
        }
    }

    private func voice(_ name: VoiceName, language: String = "en") throws(VoiceError) -> any Synthesizer {
        // espeak-ng's voice is one per language; flite and Piper have one voice each.
        let key = name == .espeak ? "espeak-" + language : name.rawValue
        if let v = voices[key] { return v }
        let v = try setup.make(name, language: language)
        voices[key] = v
        return v
    }

    private func current(_ gen: Int) -> Bool {
        cond.lock(); defer { cond.unlock() }
        return gen == generation && !closing
    }

    private func enqueue(_ gen: Int, _ item: Item) {
        cond.lock()
        if gen == generation { queue.append((gen, item)); cond.broadcast() }
        cond.unlock()
    }

    private func playbackLoop() {
        var playing = -1
        var rate = 0
        while true {
            cond.lock()
            while queue.isEmpty && !closing { cond.wait() }
            guard !closing else { threads -= 1; cond.broadcast(); cond.unlock(); return }
            let (gen, item) = queue.removeFirst()
            cond.unlock()

            switch item {
            case let .audio(audio, voiceName):
                do throws(VoiceError) {
                    if playing != gen {
                        rate = try output.prepare(sampleRate: audio.sampleRate)
                    }
                    let sound = audio.resampled(to: rate)
                    let slice = max(1, rate / 100)
                    var offset = 0
                    while offset < sound.samples.count {
                        guard current(gen) else { output.drop(); break }
                        if playing != gen {
                            playing = gen
                            onEvent(.firstAudio(seconds: clock.now() - requestTime(gen), voice: voiceName))
                        }
                        let end = min(sound.samples.count, offset + slice)
                        try output.play(sound.samples[offset..<end])
                        offset = end
                    }
                } catch {
                    onEvent(.problem(UIMessage("Sound could not be played: {reason}", reasons: ["reason": error.message]), fallback: false))
                    giveUp(gen)
                }
            case .end:
                output.finish(while: { current(gen) })
                finished(gen)
            }
        }
    }

    /// When each request still being said was made, for `firstAudio`.
    private var startTimes: [Int: Double] = [:]

    private func requestTime(_ gen: Int) -> Double {
        cond.lock(); defer { cond.unlock() }
        return startTimes[gen] ?? clock.now()
    }

    /// The request `gen` was all heard: speaking ends unless another has begun.
    private func finished(_ gen: Int) {
        cond.lock()
        let ended = gen == generation && active
        if ended { active = false }
        startTimes[gen] = nil
        cond.broadcast()
        cond.unlock()
        if ended { onEvent(.speaking(false)) }
    }

    /// The output failed: the rest of `gen` is thrown away.
    private func giveUp(_ gen: Int) {
        cond.lock()
        if gen == generation { queue.removeAll() }
        cond.unlock()
        output.drop()
        finished(gen)
    }
}
