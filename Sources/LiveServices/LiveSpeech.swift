#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import SystemIO
import Speech
import SpeechText
import UserFiles

/// Where the shell's speech comes from.
public enum AudioInput: Sendable {
    /// An ALSA capture device (`--mic NAME`).
    case mic(String)
    /// A raw 16 kHz S16LE file read through ALSA's `file` plugin (`--audio FILE`), paced to real time so
    /// it behaves like a microphone; `name` is what the user gave.
    case file(raw: String, name: String)

    /// Checks an `--audio` file before the terminal is taken over (a wrong format names the `sox` line) and
    /// returns the raw samples file the `file` plugin reads: the file itself if raw, else a temporary copy.
    public static func file(_ path: String) throws(AudioError) -> AudioInput {
        let samples = try SpeechAudio.readSamples(path: path)
        let isWAV = path.lowercased().hasSuffix(".wav")
        guard isWAV else { return .file(raw: path, name: path) }
        let raw = NSTemporaryDirectory() + "handsfree-audio-\(getpid()).raw"
        do { try SpeechAudio.s16LEData(samples).write(to: URL(fileURLWithPath: raw)) } catch {
            throw .unreadable(path: raw, reason: "cannot write the samples for ALSA: \(error.localizedDescription)")
        }
        return .file(raw: raw, name: path)
    }
}

/// Live speech for the shell: loads PocketSphinx and opens the capture device on a background thread,
/// decodes on a thread of its own (the capture thread only queues audio), and hands updates to the shell
/// loop through `drain()` (with a pipe to wake its `poll`). The loop never waits on audio or the model.
///
/// Modes: idle (audio dropped, or the wake-phrase grammar when the keymap has one and a microphone is
/// used), dictation (the language model), command (a grammar of keymap phrases and on-screen labels, for
/// one utterance), decided by a pure `SpeechController`. Time for the silence and command timeouts is audio
/// time, not the wall clock.
///
/// In another language than English (`useLanguage`), PocketSphinx (English only here) still finds where each
/// utterance starts and ends, but a command and the wake phrase are what Whisper hears in that utterance's
/// audio: the shell matches it to the screen's nearest phrase (`CommandWords.nearest`), so a sentence far from
/// every command does nothing. Without Whisper, English and its grammars stand in.
public final class LiveSpeech: @unchecked Sendable {

    private let lock = NSLock()
    private let input: AudioInput
    private let wake: String?
    private var recognizer: Recognizer?
    /// Where the cepstral mean is remembered for this user and microphone (nil: not remembered). Set before
    /// `load`; read when the recogniser loads, written when an utterance ends with a mean that moved.
    public var cepstralMeanFile: URL?
    /// The mean last written (on the decode thread only).
    private var savedMean: [Float] = []
    private var capture: ALSACapture?
    /// False once loading failed: effects asking for speech are answered at once with the reason.
    public private(set) var failed: UIMessage?
    private var loaded = false
    private var captureStarted = false
    private var wantCapture = false
    private var controller = SpeechController()
    /// The mode the recogniser is set to; switched on the decode thread, between chunks.
    private var recognizerMode: RecognitionMode?
    private var phrases: [String] = []
    /// The Whisper worker that rewrites each dictated utterance when it ends (nil: PocketSphinx's text stays).
    /// Set before `load()`; started on the load thread, used only on the decode thread.
    private var whisper: WhisperWorker?
    /// How the worker in use was set up, kept when it could not start: a language switch starts another from it.
    private var whisperConfiguration: WhisperWorker.Configuration?
    /// A worker started for another language, waiting to replace `whisper` on the decode thread (`.some(nil)`:
    /// the language has none, Whisper is off).
    private var nextWhisper: WhisperWorker??
    /// Counts language switches, so a worker that finished loading after a later switch is not used.
    private var switches = 0
    /// The speech language (`useLanguage`): English decodes commands with PocketSphinx's grammars.
    private var language = SpeechLanguage.english
    /// Dictation audio since the last utterance ended, for Whisper (at most its 30 s window).
    private var utterance: [Int16] = []
    /// The text before the caret and the user's words, for Whisper's prompt (set by the shell loop).
    private var prompt = ""
    private var hotwords = ""
    private var builtFor: [String]? = nil
    private var commands: CommandGrammar.Built?
    private var wakeGrammar: CommandGrammar.Built?
    private var outbox: [SpeechUpdate] = []
    private var wallStart: Double?
    /// Seconds of audio handed to the decoder so far (paces a file on the capture thread).
    private var capturedSeconds = 0.0
    /// Audio from the capture thread waiting for the decode thread, and its lock and signal: decoding can
    /// fall behind for a moment (the wake check reads an utterance again) without the capture thread
    /// stalling and the device overrunning.
    private var pending: [[Int16]] = []
    private var pendingSamples = 0
    /// Audio dropped because decoding fell more than `mostPending` behind, not yet reported.
    private var droppedSamples = 0
    /// The most audio waiting for the decoder (seconds). Real microphones deliver in real time, but a device
    /// that does not (ALSA's file plugin, a decoder stalled on a slow machine) grew this queue by hundreds of
    /// megabytes a second; past it, the oldest audio goes and the status line says how much.
    public static let mostPending = 60.0
    private let pendingLock = NSLock()
    private let pendingSignal = DispatchSemaphore(value: 0)
    private var stopping = false
    private let pipeFDs: [Int32]
    /// Seconds of audio kept for checking a wake match; a longer utterance is not a wake command.
    public static let longestWakeUtterance = 8.0
    /// Paces a file's audio on the capture thread.
    private let clock: any ShellClock

    public init(input: AudioInput, wakePhrase: String?, whisper: WhisperWorker? = nil, clock: any ShellClock = LiveClock()) {
        self.input = input
        self.whisper = whisper
        self.whisperConfiguration = whisper?.configuration
        self.clock = clock
        // A file is a demo or test: it plays when speech is first asked for, not into the wake listener.
        if case .mic = input { wake = wakePhrase } else { wake = nil }
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        pipeFDs = fds
    }

    deinit { for fd in pipeFDs where fd >= 0 { close(fd) } }

    /// Descriptors for the shell loop's `poll`: readable when updates are waiting.
    public var descriptors: [Int32] { pipeFDs[0] >= 0 ? [pipeFDs[0]] : [] }

    /// What the status line says while the microphone is closed, with the dictation engine (a program's name,
    /// not translated).
    public var idleStatus: UIMessage {
        let (engine, spokenWake) = lock.withLock { (whisper == nil ? "pocketsphinx" : "whisper", viaWhisper ? activeWake : wake) }
        switch input {
        case .mic(let d):
            if let spokenWake {
                return UIMessage("mic {device} · say \"{wake} …\" or raise brows · {engine}",
                                 ["device": d, "wake": spokenWake, "engine": engine])
            }
            return UIMessage("mic {device} · raise brows to talk · {engine}", ["device": d, "engine": engine])
        case .file(_, let name):
            return UIMessage("audio {file} · {engine}", ["file": (name as NSString).lastPathComponent, "engine": engine])
        }
    }

    /// The text before the caret and the user's own words: Whisper's prompt and hotwords for the next utterance.
    public func updateContext(before caret: String, userWords: [String]) {
        lock.withLock {
            prompt = String(caret.suffix(400))
            hotwords = userWords.prefix(60).joined(separator: " ")
        }
    }

    /// Loads the model and opens the device on a background thread; reports the outcome as a status.
    public func load() {
        post(.status(UIMessage("speech loading…")))
        let t = Thread { [self] in
            do {
                let r = try Recognizer(configuration: RecognizerConfiguration(dictation: true))
                if let f = cepstralMeanFile, let v = CepstralMeanFile.read(f) {
                    if r.setCepstralMean(v) { savedMean = v }
                    else { post(.notice(UIMessage("{file}: not a cepstral mean for this model; starting from the model's", ["file": f.path]))) }
                }
                // Wake matches are checked against the language model's reading of the same audio; in another
                // language than English, Whisper reads a command's audio.
                r.recentAudioLimit = Self.longestWakeUtterance
                let c: ALSACapture
                switch input {
                case .mic(let device): c = try ALSACapture(device: device)
                case .file(let raw, _):
                    c = try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: raw))
                }
                if let w = lock.withLock({ whisper }) {
                    post(.status(UIMessage("whisper loading…")))
                    do { try w.start() } catch {
                        // Dictation still works, with PocketSphinx's text.
                        let english = lock.withLock { () -> Bool in whisper = nil; return language.isEnglish }
                        if english {
                            post(.notice(UIMessage("Whisper is off ({reason}); dictating with PocketSphinx", ["reason": "\(error)"])))
                        } else {
                            post(.notice(UIMessage("Whisper is off ({reason}): voice commands and dictation are in English, with PocketSphinx",
                                                   ["reason": "\(error)"])))
                        }
                    }
                }
                if lock.withLock({ !language.isEnglish && whisperConfiguration == nil }) {
                    post(.notice(Self.noWhisperNotice))
                }
                let start = lock.withLock { () -> Bool in
                    recognizer = r; capture = c; loaded = true
                    return wantCapture || wake != nil
                }
                post(.status(idleStatus))
                if start { startCapture() }
            } catch let e as AudioError {
                switch e {
                case .deviceNotFound(let d, _): fail(UIMessage("no microphone \"{device}\" · speech off", ["device": d]), e.description)
                case .deviceBusy(let d): fail(UIMessage("microphone \"{device}\" busy · speech off", ["device": d]), e.description)
                default: fail(UIMessage("microphone failed · speech off"), e.description)
                }
            } catch let e as RecognizerError {
                fail(UIMessage("speech model missing · speech off"), e.description)
            } catch {
                fail(UIMessage("no speech · speech off"), "\(error)")
            }
        }
        t.name = "handsfree.speech.load"
        t.start()
    }

    /// Speech is off for good: a short status for the status line, the whole reason (the system's or the
    /// library's words) in the title bar.
    private func fail(_ short: UIMessage, _ why: String) {
        lock.withLock {
            failed = UIMessage("Speech is off: {reason}", ["reason": why])
            outbox.append(.notice(UIMessage("Speech is off: {reason}", ["reason": why])))
        }
        post(.status(short))
    }

    /// Updates since the last call (empties the wake pipe).
    public func drain() -> [SpeechUpdate] {
        var buf = [UInt8](repeating: 0, count: 64)
        while pipeFDs[0] >= 0, read(pipeFDs[0], &buf, buf.count) > 0 {}
        return lock.withLock { defer { outbox = [] }; return outbox }
    }

    /// Follows the shell's microphone mode (`ShellState.mic` and its turn); opening it starts capture.
    public func follow(_ mode: SpeechController.Mode, turn: Int, silence: Double) {
        lock.withLock { controller.follow(mode, turn: turn, silence: silence) }
        if mode != .idle { startCapture() }
    }

    /// The on-screen phrases changed (another screen): the wake grammar is rebuilt before the next chunk.
    public func updatePhrases(_ phrases: [String]) {
        lock.withLock { self.phrases = phrases }
    }


    /// Speech in `spoken`'s language from now on: commands and the wake phrase through Whisper unless it is
    /// English, and Whisper's worker for that language (its default model unless another was named). Once
    /// speech has loaded, the worker for the new language starts on a thread of its own and replaces the old
    /// one when ready; if it cannot start, the title bar says so and English with PocketSphinx stands in.
    public func useLanguage(_ spoken: SpeechLanguage) {
        let (start, without): ((WhisperWorker, Int)?, Bool) = lock.withLock {
            let was = language.code
            language = spoken
            guard spoken.code != was, let old = whisperConfiguration, old.language != spoken.code else {
                return (nil, loaded && spoken.code != was && !spoken.isEnglish && whisperConfiguration == nil)
            }
            var c = old
            c.language = spoken.code
            if old.model == WhisperWorker.defaultModel(language: old.language) { c.model = WhisperWorker.defaultModel(language: spoken.code) }
            whisperConfiguration = c
            switches += 1
            // Before loading, the worker is only configured: `load` starts it.
            guard loaded else { whisper = WhisperWorker(c); return (nil, false) }
            return ((WhisperWorker(c), switches), false)
        }
        if without { post(.notice(Self.noWhisperNotice)) }
        guard let (w, switchNumber) = start else { return }
        post(.status(UIMessage("whisper loading…")))
        let t = Thread { [self] in
            var problem: String?
            do throws(WhisperError) { try w.start() } catch { problem = error.description }
            let current = lock.withLock { () -> Bool in
                guard switchNumber == switches else { return false }
                nextWhisper = .some(problem == nil ? w : nil)
                return true
            }
            if !current || problem != nil { w.stop() }
            if let problem, current {
                if spoken.isEnglish {
                    post(.notice(UIMessage("Whisper is off ({reason}); dictating with PocketSphinx", ["reason": problem])))
                } else {
                    post(.notice(UIMessage("Whisper is off ({reason}): voice commands and dictation are in English, with PocketSphinx",
                                           ["reason": problem])))
                }
            }
            post(.status(idleStatus))
        }
        t.name = "handsfree.speech.whisper"
        t.start()
    }

    /// The model and language of the Whisper worker in use, or starting for a language switch (nil: no Whisper
    /// in this run).
    public var whisperSetup: (model: String, language: String)? {
        lock.withLock { whisperConfiguration.map { ($0.model, $0.language) } }
    }

    /// Said when another language than English is spoken in a run without Whisper (`--dictation pocketsphinx`,
    /// or faster-whisper not installed).
    static let noWhisperNotice = UIMessage("Whisper is off in this run: voice commands and dictation are in English, with PocketSphinx")

    /// Whether commands and the wake phrase are heard by Whisper (another language than English, with Whisper).
    /// With the lock held.
    private var viaWhisper: Bool { !language.isEnglish && whisper != nil }

    /// The wake phrase said in the language (its speech data's, else the keymap's); nil when the idle shell
    /// does not listen for one. With the lock held.
    private var activeWake: String? { wake.map { language.commands.wake ?? $0 } }

    /// The worker to use now, on the decode thread: one started for a language switch replaces the old, which stops.
    private func currentWhisper() -> WhisperWorker? {
        let (w, old) = lock.withLock { () -> (WhisperWorker?, WhisperWorker?) in
            guard let next = nextWhisper else { return (whisper, nil) }
            let old = whisper
            whisper = next
            nextWhisper = nil
            return (next, old)
        }
        old?.stop()
        return w
    }

    /// Stops capture for good (the shell is leaving), and the Whisper worker.
    public func shutdown() {
        let c = lock.withLock { capture }
        c?.stop()
        let (w, next) = lock.withLock { (whisper, nextWhisper) }
        w?.stop()
        if case .some(.some(let n)) = next { n.stop() }
        pendingLock.withLock { stopping = true }
        pendingSignal.signal()
    }

    private func startCapture() {
        let c: ALSACapture? = lock.withLock {
            guard loaded, !captureStarted else { wantCapture = true; return nil }
            captureStarted = true
            return capture
        }
        guard let c else { return }
        let decoder = Thread { [self] in decodeLoop() }
        decoder.name = "handsfree.speech.decode"
        decoder.start()
        c.start { [self] event in
            switch event {
            case .audio(let samples):
                pace(samples)
                let most = Int(Self.mostPending * Double(SpeechAudio.sampleRate))
                pendingLock.withLock {
                    pending.append(samples)
                    pendingSamples += samples.count
                    while pendingSamples > most, pending.count > 1 {
                        let old = pending.removeFirst()
                        pendingSamples -= old.count
                        droppedSamples += old.count
                    }
                }
                pendingSignal.signal()
            case .ended: post(.status(UIMessage("audio ended")))
            case .failed(let e): fail(UIMessage("microphone stopped · speech off"), e.description)
            }
        }
    }

    /// The decode thread: takes what the capture thread queued, in order, until shutdown.
    private func decodeLoop() {
        while true {
            pendingSignal.wait()
            let (batch, stop, dropped) = pendingLock.withLock { () -> ([[Int16]], Bool, Int) in
                defer { pending = []; pendingSamples = 0; droppedSamples = 0 }
                return (pending, stopping, droppedSamples)
            }
            if stop { return }
            if dropped > 0 {
                let seconds = Int(SpeechAudio.seconds(samples: dropped).rounded())
                post(.status(.plural("speech fell behind: {n} s of audio dropped", "speech fell behind: {n} s of audio dropped", seconds)))
            }
            for samples in batch { chunk(samples) }
        }
    }

    /// Audio is taken no faster than the wall clock. A real microphone delivers in real time, so this never
    /// waits for one; a file (`--audio`) and an ALSA device with no clock behind it (the `file` plugin, as the
    /// tests use) would otherwise hand over minutes of audio a second, faster than it can be decoded (the
    /// queue grew by 400 MB a second). On the capture thread, before the audio is queued.
    private func pace(_ samples: [Int16]) {
        let now = clock.now()
        let start = lock.withLock { () -> Double in
            if wallStart == nil { wallStart = now }
            return wallStart ?? now
        }
        let due = start + capturedSeconds
        capturedSeconds += SpeechAudio.seconds(samples: samples.count)
        clock.sleep(until: due)
    }

    private func post(_ u: SpeechUpdate) {
        lock.withLock { outbox.append(u) }
        signalLoop()
    }

    private func signalLoop() {
        var b: UInt8 = 1
        if pipeFDs[1] >= 0 { _ = write(pipeFDs[1], &b, 1) }
    }

    /// One chunk on the decode thread: pick the search, decode, apply timeouts.
    private func chunk(_ samples: [Int16]) {
        // A worker started for a language switch takes over before this chunk chooses its search.
        _ = currentWhisper()
        // The search for this chunk, chosen under the lock.
        let setup: (Recognizer, SpeechController.Mode, [String: String], String?)? = lock.withLock {
            controller.advance(seconds: SpeechAudio.seconds(samples: samples.count))
            guard let r = recognizer else { return nil }
            let wanted: RecognitionMode?
            if viaWhisper {
                // The language model only finds where each utterance starts and ends: Whisper reads it.
                wanted = controller.mode == .idle && activeWake == nil ? nil : .dictation
            } else {
                // The grammars are (re)built only for the modes that search them.
                let needsGrammar = controller.mode != .dictation && (controller.mode != .idle || wake != nil)
                let ready = needsGrammar && rebuild(r)
                wanted = controller.search(hasCommands: ready, hasWake: wake != nil && ready)
            }
            if wanted != recognizerMode {
                recognizerMode = wanted
                if let w = wanted { _ = try? r.setMode(w) } else { _ = r.finish() }
            }
            guard recognizerMode != nil else { return nil }
            return (r, controller.mode, wakeGrammar?.phrases ?? [:], viaWhisper ? activeWake : nil)
        }
        guard let (r, decodedIn, wakePhrases, whisperWake) = setup else { utterance = []; return }
        let whisperHears = lock.withLock { viaWhisper }
        // Decoding, and the wake check's second reading (seconds for a long utterance), run outside the lock,
        // so the shell loop's drain() never waits on them; only this thread touches the recogniser.
        if decodedIn == .dictation {
            utterance += samples
            let most = Int(WhisperWorker.longestUtterance) * SpeechAudio.sampleRate
            if utterance.count > most { utterance.removeFirst(utterance.count - most) }
        } else {
            utterance = []
        }
        var events = r.process(samples)
        var scored: [String: CommandScores] = [:]
        if decodedIn == .dictation { events = rewrite(events) }
        else if whisperHears { (events, scored) = hearCommand(events, r, wake: decodedIn == .idle ? whisperWake : nil) }
        if let f = cepstralMeanFile, events.contains(where: \.isFinal) {
            // Remembered as it settles, so the next session's first sentence starts from the speaker's mean.
            let v = r.cepstralMean
            if zip(v, savedMean).contains(where: { abs($0 - $1) > 0.25 }) || savedMean.count != v.count {
                if CepstralMeanFile.write(v, to: f) == nil { savedMean = v }
            }
        }
        var woken: [String: String] = [:]
        if decodedIn == .idle, whisperHears, let w = whisperWake {
            // Whisper's text starts with the wake phrase, or is not for the shell.
            var words = lock.withLock { language.commands }
            words.wake = w
            for case let .final(text, _, _) in events {
                if let rest = words.afterWake(text) { woken[text] = rest.isEmpty ? w : w + " " + rest }
            }
        } else if decodedIn == .idle, let w = wake {
            for case let .final(text, _, _) in events {
                // The wake grammar fits every utterance to its closest phrase ("hello, how are you" came out
                // as "shell settings"): act only if the language model heard something that sounds alike.
                if let phrase = wakePhrases[text], r.checkWake(text, wake: w).accepted { woken[text] = phrase }
            }
        }
        let posted: Bool = lock.withLock {
            let updates = controller.heard(events, decodedIn: decodedIn,
                                           commands: whisperHears ? [:] : commands?.phrases ?? [:],
                                           wake: whisperHears ? whisperWake : wake, woken: woken, scored: scored)
            outbox += updates
            return !updates.isEmpty
        }
        if posted { signalLoop() }
    }

    /// Replaces each dictated utterance's final text with Whisper's reading of its audio (`dictated` decides what
    /// stays when Whisper fails). On the decode thread: audio arriving meanwhile queues, so nothing said is lost.
    private func rewrite(_ events: [SpeechEvent]) -> [SpeechEvent] {
        guard events.contains(where: \.isFinal), let w = currentWhisper() else { return events }
        let (p, h, english, beam) = lock.withLock { (prompt, hotwords, !viaWhisper, language.dictationBeam) }
        return events.map { e in
            guard case .final(let text, let words, let at) = e else { return e }
            let audio = utterance
            utterance = []
            guard !text.isEmpty else { return e }
            let heard: Result<String, WhisperError>
            do throws(WhisperError) { heard = .success(try w.transcribe(audio, prompt: p, hotwords: h, beam: beam).text) } catch { heard = .failure(error) }
            let (typed, notice) = Self.dictated(pocketSphinx: text, whisper: heard, english: english)
            if let notice { post(.notice(notice)) }
            return .final(typed, words: words, at: at)
        }
    }

    /// What a dictated utterance types once Whisper has read its audio, or failed to, and what the title bar
    /// says. In English PocketSphinx's text stands in for a failed or empty reading. In another language it is
    /// English words for speech that was not English, so nothing is typed (an empty final, which types nothing
    /// and leaves what was typed before as it was) and a failure asks the user to say it again.
    static func dictated(pocketSphinx: String, whisper: Result<String, WhisperError>, english: Bool) -> (String, UIMessage?) {
        switch whisper {
        case .success(let text):
            let heard = text.trimmingCharacters(in: .whitespaces)
            // Whisper writes "you" or "." for near-silence that PocketSphinx found words in.
            guard heard.contains(where: \.isLetter) else { return (english ? pocketSphinx : "", nil) }
            return (heard, nil)
        case .failure(let error):
            if english { return (pocketSphinx, UIMessage("Whisper: {reason}; kept PocketSphinx's text", ["reason": "\(error)"])) }
            return ("", UIMessage("Whisper could not write what you just said ({reason}): nothing was typed; please say it again",
                                  ["reason": "\(error)"]))
        }
    }

    /// Replaces each final of a command or wake utterance with what Whisper hears in its audio (PocketSphinx's
    /// English reading of another language means nothing), given the screen's command prompt
    /// (`CommandWords.commandPrompt`, after the wake phrase when the idle shell listens for it). An utterance too
    /// long for a command, or that Whisper cannot read, becomes an empty final: nothing was said to the shell.
    /// With `CommandWords.decidesByScore`, a command utterance (not the idle listener's, which starts with the
    /// wake phrase) also has the screen's phrases scored against its audio (`CommandWords.scoredPhrases`): the
    /// finals' scores are returned beside them for the shell to decide from. On the decode thread.
    private func hearCommand(_ events: [SpeechEvent], _ r: Recognizer, wake: String?)
        -> ([SpeechEvent], [String: CommandScores]) {
        guard events.contains(where: \.isFinal), let w = currentWhisper() else { return (events, [:]) }
        let (prompt, scoring) = lock.withLock {
            (language.commands.commandPrompt(phrases, wake: wake),
             wake == nil && CommandWords.decidesByScore ? language.commands.scoredPhrases(phrases) : [])
        }
        var scored: [String: CommandScores] = [:]
        let heard = events.map { e -> SpeechEvent in
            guard case .final(_, let words, let at) = e else { return e }
            // A command is short; a longer utterance is talk (and would cost Whisper seconds).
            guard let audio = r.lastUtteranceAudio(), audio.count >= SpeechAudio.sampleRate / 5 else {
                return .final("", words: words, at: at)
            }
            do {
                let r = try w.transcribe(audio, prompt: prompt, phrases: scoring.map(\.said))
                let heard = r.text.trimmingCharacters(in: .whitespaces)
                guard heard.contains(where: \.isLetter) else { return .final("", words: words, at: at) }
                if !scoring.isEmpty {
                    scored[heard] = CommandScores(phrases: scoring, scores: r.phraseScores, priors: r.phrasePriors,
                                                  textScore: r.textScore, textPrior: r.textPrior)
                }
                return .final(heard, words: words, at: at)
            } catch {
                post(.notice(UIMessage("Whisper: {reason}; the command was not heard", ["reason": "\(error)"])))
                return .final("", words: words, at: at)
            }
        }
        return (heard, scored)
    }

    /// Rebuilds the command and wake grammars when the phrases changed; false if there is none to use.
    /// Called with the lock held, on the decode thread.
    private func rebuild(_ r: Recognizer) -> Bool {
        if builtFor == phrases { return commands != nil }
        builtFor = phrases
        let c = CommandGrammar.build(phrases: phrases, name: "commands", isKnownWord: r.knowsWord)
        commands = (try? r.addGrammar(name: "commands", jsgf: c.jsgf)) != nil ? c : nil
        if let w = wake {
            let g = CommandGrammar.build(phrases: WakeCheck.grammarPhrases(wake: w, phrases: phrases), name: "wake",
                                         isKnownWord: r.knowsWord)
            wakeGrammar = (try? r.addGrammar(name: "wake", jsgf: g.jsgf)) != nil ? g : nil
        }
        // A grammar added may have become the search: make the next chunk set the mode again.
        recognizerMode = nil
        return commands != nil
    }
}


/// A remembered cepstral mean: one line of numbers.
public enum CepstralMeanFile {
    /// The numbers in `file`; nil if it is missing, unreadable or not numbers.
    public static func read(_ file: URL) -> [Float]? {
        guard case .text(let text) = AtomicFile.read(file.path) else { return nil }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { !$0.hasPrefix("#") }
        let v = fields.compactMap { Float($0) }
        guard !v.isEmpty, v.count == fields.count, v.count <= 64, v.allSatisfy(\.isFinite) else { return nil }
        return v
    }

    /// Writes `mean` atomically; returns why not, or nil.
    @discardableResult
    public static func write(_ mean: [Float], to file: URL) -> String? {
        AtomicFile.write(mean.map { String(format: "%.4f", $0) }.joined(separator: " ") + "\n", to: file.path)
    }
}
