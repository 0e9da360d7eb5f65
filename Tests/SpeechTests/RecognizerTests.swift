import Foundation
import Testing
@testable import Speech

/// Real PocketSphinx with Debian's en-us model on the CMU test recordings.
@Suite(.enabled(if: TestData.haveSpeechData, "\(TestData.missingMessage), or pocketsphinx-en-us is not installed"))
struct RecognizerTests {
    let dir = TestData.speechDir ?? URL(fileURLWithPath: "/nonexistent")

    private func finals(_ events: [SpeechEvent]) -> [String] {
        events.compactMap { if case let .final(t, _, _) = $0, !t.isEmpty { return t } else { return nil } }
    }

    @Test func cardsWithTheirGrammar() throws {
        let r = try Recognizer(configuration: .init(dictation: false))
        try r.addGrammar(name: "cards", jsgf: String(contentsOf: dir.appendingPathComponent("cards/cards.gram"), encoding: .utf8))
        let transcript = Transcripts.parse(try String(contentsOf: dir.appendingPathComponent("cards/cards.transcription"), encoding: .utf8))
        #expect(transcript.count == 5)
        var errors = WordErrors()
        var exact = 0
        for (id, ref) in transcript {
            let audio = try WAVReader.read(path: dir.appendingPathComponent("cards/\(id).wav").path)
            let hyp = finals(r.transcribe(audio.samples)).joined(separator: " ")
            errors = errors + WordErrors.align(reference: ref.split(separator: " ").map(String.init),
                                               hypothesis: hyp.split(separator: " ").map(String.init))
            if hyp == ref { exact += 1 }
        }
        // pocketsphinx_continuous gets 4 of 5 exactly (it hears "five ten of clubs" in 001).
        #expect(exact >= 4)
        #expect(errors.rate <= 10)
    }

    @Test func goForwardWithGrammarPartialsAndTimings() throws {
        let r = try Recognizer(configuration: .init(dictation: false))
        try r.addGrammar(name: "goforward", jsgf: String(contentsOf: dir.appendingPathComponent("goforward.gram"), encoding: .utf8))
        let speech = SpeechAudio.samples(fromS16LE: try Data(contentsOf: dir.appendingPathComponent("goforward.raw")))
        // One second of silence first, then the file in 50 ms chunks, as live capture delivers it.
        let events = r.transcribe([Int16](repeating: 0, count: 16_000) + speech, chunk: 800)
        #expect(finals(events) == ["go forward ten meters"])
        guard case let .final(_, words, end)? = events.last(where: { if case .final = $0 { true } else { false } }) else {
            Issue.record("no final result"); return
        }
        #expect(words.map(\.word) == ["go", "forward", "ten", "meters"])
        // The words lie inside the padded recording, after the silence, in order.
        #expect(words.first.map { $0.start > 1.2 && $0.start < 1.8 } == true, "\(words)")
        #expect(zip(words, words.dropFirst()).allSatisfy { $0.end <= $1.start + 0.011 && $0.start < $0.end })
        #expect((words.last?.end ?? 99) <= end)
        // Partials come while speaking, at least every 300 ms of audio, before the final.
        let times: [Double] = events.compactMap {
            switch $0 {
            case let .partial(_, at): return at
            case let .final(_, _, at): return at
            default: return nil
            }
        }
        let firstWord = words[0].start
        #expect((times.first ?? 99) - firstWord < 0.3, "first partial at \(times.first ?? -1), word at \(firstWord)")
        let lastWordEnd = words.last?.end ?? 0
        let whileSpeaking = times.filter { $0 <= lastWordEnd }
        #expect(zip(whileSpeaking, whileSpeaking.dropFirst()).allSatisfy { $1 - $0 <= 0.3 + 1e-9 }, "\(times)")
        #expect(events.first.map { if case .speechStarted = $0 { true } else { false } } == true)
    }

    /// Issue 13: the cepstral mean a decoder settles on for a speaker can be read and given to a fresh one.
    @Test func theCepstralMeanFollowsTheSpeakerAndCarriesToAFreshDecoder() throws {
        let r = try Recognizer()
        let model = r.cepstralMean
        #expect(model.count == 13)
        #expect(abs((model.first ?? 0) - 41) < 1, "en-us starts c0 near 41: \(model)")
        let audio = try WAVReader.read(path: dir.appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0870.wav").path)
        _ = r.transcribe(audio.samples)
        let heard = r.cepstralMean
        #expect(abs((heard.first ?? 0) - (model.first ?? 0)) > 3, "the mean moved to the speaker: \(heard)")
        let fresh = try Recognizer()
        #expect(fresh.setCepstralMean(heard))
        #expect(zip(fresh.cepstralMean, heard).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(!fresh.setCepstralMean([1, 2, 3]), "a mean of another length is refused")
        #expect(!fresh.setCepstralMean([Float](repeating: .nan, count: 13)), "NaN is refused")
    }

    @Test func dictationOnLibrivoxAndSwitchingModes() throws {
        let r = try Recognizer()
        #expect(r.mode == .dictation)
        let id = "sense_and_sensibility_01_austen_64kb-0920"
        let audio = try WAVReader.read(path: dir.appendingPathComponent("librivox/\(id).wav").path)
        let ref = Transcripts.parse(try String(contentsOf: dir.appendingPathComponent("librivox/transcription"), encoding: .utf8))
            .first { $0.id == id }?.text ?? ""
        let hyp = finals(r.transcribe(audio.samples)).joined(separator: " ")
        let wer = WordErrors.align(reference: ref.split(separator: " ").map(String.init),
                                   hypothesis: hyp.split(separator: " ").map(String.init)).rate
        // pocketsphinx_continuous scores 19% on this file ("many watts" for "than he was", one "a" lost).
        #expect(wer <= 25, "WER \(wer)%: \(hyp)")

        // Commands at run time, then back to dictation, on the same decoder.
        try r.addGrammar(name: "move", jsgf: String(contentsOf: dir.appendingPathComponent("goforward.gram"), encoding: .utf8))
        try r.setMode(.grammar("move"))
        let go = SpeechAudio.samples(fromS16LE: try Data(contentsOf: dir.appendingPathComponent("goforward.raw")))
        #expect(finals(r.transcribe(go)) == ["go forward ten meters"])
        try r.setMode(.dictation)
        #expect(r.mode == .dictation)
        // Back in dictation the language model decodes it: some words, not necessarily these.
        #expect(!finals(r.transcribe(go)).isEmpty)
        #expect(throws: RecognizerError.unknownMode("grammar \"nope\"")) { try r.setMode(.grammar("nope")) }
    }

    @Test func badGrammarIsAnErrorValue() throws {
        let r = try Recognizer(configuration: .init(dictation: false))
        #expect(throws: RecognizerError.self) { try r.addGrammar(name: "bad", jsgf: "#JSGF V1.0; grammar x; public <a> = ( ;") }
        #expect(r.knowsWord("hello"))
        #expect(!r.knowsWord("zorblax"))
        #expect(throws: RecognizerError.unknownMode("dictation (no language model loaded)")) { try r.setMode(.dictation) }
    }

    @Test func grammarBuiltFromPhrasesCompilesAndDropsUnknownWords() throws {
        let r = try Recognizer(configuration: .init(dictation: false))
        let built = CommandGrammar.build(phrases: ["open notes", "select Zorblax send", "go back"], isKnownWord: r.knowsWord)
        try r.addGrammar(name: "shell", jsgf: built.jsgf)
        #expect(built.phrases["select send"] == "select Zorblax send")
        #expect(built.dropped.count == 1)
    }
}

@Suite struct ModelErrorTests {
    @Test func missingModelNamesThePathAndThePackage() {
        do {
            _ = try Recognizer(configuration: .init(modelDirectory: "/nonexistent/model"))
            Issue.record("loaded a model from nowhere")
        } catch {
            #expect(error == .modelMissing(path: "/nonexistent/model/en-us", what: "acoustic model folder"))
            #expect(error.description.contains("/nonexistent/model/en-us"))
            #expect(error.description.contains("pocketsphinx-en-us"))
        }
    }

    @Test(.enabled(if: TestData.modelInstalled, "pocketsphinx-en-us is not installed"))
    func missingLanguageModelIsNamed() throws {
        // A model folder with the acoustic model and dictionary but no language model.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("hf-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let real = RecognizerConfiguration.debianModelDirectory
        try FileManager.default.createSymbolicLink(atPath: tmp.path + "/en-us", withDestinationPath: real + "/en-us")
        try FileManager.default.createSymbolicLink(atPath: tmp.path + "/cmudict-en-us.dict",
                                                   withDestinationPath: real + "/cmudict-en-us.dict")
        #expect(throws: RecognizerError.modelMissing(path: tmp.path + "/en-us.lm.bin", what: "language model")) {
            try Recognizer(configuration: .init(modelDirectory: tmp.path))
        }
    }
}
