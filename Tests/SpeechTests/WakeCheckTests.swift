import Foundation
import Testing
@testable import Speech

/// The check that keeps ordinary speech from acting as "shell …": phone distances on a small dictionary,
/// and the real decoder reading a grammar's utterance again with the language model.
@Suite struct WakeCheckTests {
    /// CMU dictionary phones of the words these cases use.
    static let dict: [String: [String]] = [
        "shell": ["SH", "EH", "L"], "she'll": ["SH", "IY", "L"], "show": ["SH", "OW"], "open": ["OW", "P", "AH", "N"],
        "notes": ["N", "OW", "T", "S"], "next": ["N", "EH", "K", "S", "T"], "belt": ["B", "EH", "L", "T"],
        "and": ["AH", "N", "D"], "settings": ["S", "EH", "T", "IH", "NG", "Z"], "hello": ["HH", "AH", "L", "OW"],
        "how": ["HH", "AW"], "are": ["AA", "R"], "you": ["Y", "UW"],
    ]
    func phones(_ w: String) -> [String]? { Self.dict[w] }

    func accepted(_ heard: String, _ free: String) -> Bool {
        let v = WakeCheck.Verdict(heard: heard, free: free,
                                  phoneErrorRate: WakeCheck.phoneErrorRate(phrase: heard, freeTranscript: free, phones: phones),
                                  wakeErrorRate: WakeCheck.wakeErrorRate(wake: "shell", freeTranscript: free, phones: phones))
        return v.accepted
    }

    @Test func soundAlikeReadingsAreAccepted() {
        #expect(WakeCheck.phoneErrorRate(phrase: "shell open notes", freeTranscript: "shell open notes", phones: phones) == 0)
        #expect(accepted("shell open notes", "shell open notes"))
        #expect(accepted("shell open notes", "she'll open notes"), "one vowel off")
        #expect(accepted("shell next", "show next"), "an accent's 'show' still starts like 'shell'")
    }

    @Test func otherSpeechIsRejected() {
        #expect(!accepted("shell open notes", "hello how are you"), "a sentence the grammar forced into a phrase")
        #expect(!accepted("shell open notes", "open notes"), "the command without the wake word")
        #expect(!accepted("shell next", "next"), "shares two of three phones with 'shell', but not its onset")
        #expect(!accepted("shell open settings", "belt and settings"))
        // Without a free reading (the audio was no longer kept) nothing acts.
        #expect(!WakeCheck.Verdict(heard: "shell next", free: nil, phoneErrorRate: 0, wakeErrorRate: 0).accepted)
    }

    @Test func unknownWordsMatchNothing() {
        #expect(WakeCheck.phoneErrorRate(phrase: "shell notes", freeTranscript: "shell zzxq", phones: phones) > 0.5)
        #expect(WakeCheck.wakeErrorRate(wake: "shell", freeTranscript: "", phones: phones) == 1)
    }

    /// The real decoder: a grammar hears "go forward ten meters", and reading the kept audio again with
    /// the language model gives what was said, while the grammar stays the search.
    @Test(.enabled(if: TestData.haveSpeechData, "\(TestData.missingMessage), or pocketsphinx-en-us is not installed"))
    func theLastUtteranceIsReadAgainWithTheLanguageModel() throws {
        let dir = try #require(TestData.speechDir)
        let r = try Recognizer(configuration: .init(dictation: true))
        r.recentAudioLimit = 8
        try r.addGrammar(name: "go", jsgf: String(contentsOf: dir.appendingPathComponent("goforward.gram"), encoding: .utf8))
        try r.setMode(.grammar("go"))
        let speech = SpeechAudio.samples(fromS16LE: try Data(contentsOf: dir.appendingPathComponent("goforward.raw")))
        var finals: [String] = []
        var free: String?
        for chunk in stride(from: 0, to: speech.count + 16_000, by: 800) {
            let samples = chunk < speech.count ? Array(speech[chunk..<min(speech.count, chunk + 800)]) : [Int16](repeating: 0, count: 800)
            for case let .final(text, _, _) in r.process(samples) where !text.isEmpty {
                finals.append(text)
                free = r.decodeLastUtterance(with: .dictation)
            }
        }
        #expect(finals == ["go forward ten meters"])
        #expect(free == "go forward ten meters")
        #expect(r.mode == .grammar("go"))
        // The grammar goes on working after the second reading.
        #expect(r.transcribe(speech + [Int16](repeating: 0, count: 16_000)).contains {
            if case .final("go forward ten meters", _, _) = $0 { true } else { false }
        })
        // Without kept audio there is nothing to read again, and an utterance longer than the audio kept
        // is not read again (its second reading could take seconds).
        let bare = try Recognizer(configuration: .init(dictation: true))
        #expect(bare.decodeLastUtterance(with: .dictation) == nil)
        r.recentAudioLimit = 1
        var ended = false
        for chunk in stride(from: 0, to: speech.count + 16_000, by: 800) where !ended {
            let samples = chunk < speech.count ? Array(speech[chunk..<min(speech.count, chunk + 800)]) : [Int16](repeating: 0, count: 800)
            ended = r.process(samples).contains { if case .final = $0 { true } else { false } }
        }
        #expect(ended)
        #expect(r.decodeLastUtterance(with: .dictation) == nil, "go forward ten meters lasts over 1 s")
    }
}

/// Talking heard by the wake listener: the real decoder on real speech says when the user talks and when
/// they stop, so the shell can hold the mouth's gestures meanwhile.
@Suite struct TalkingTests {
    @Test(.enabled(if: TestData.haveSpeechData, "\(TestData.missingMessage), or pocketsphinx-en-us is not installed"))
    func realSpeechStartsAndEndsTalkingAroundTheUtterance() throws {
        let dir = try #require(TestData.speechDir)
        let r = try Recognizer(configuration: .init(dictation: false))
        try r.addGrammar(name: "wake", jsgf: "#JSGF V1.0;\ngrammar wake;\npublic <wake> = shell [open notes];\n")
        try r.setMode(.grammar("wake"))
        // A second of silence, "go forward ten meters", two seconds of silence.
        let speech = SpeechAudio.samples(fromS16LE: try Data(contentsOf: dir.appendingPathComponent("goforward.raw")))
        let audio = [Int16](repeating: 0, count: 16_000) + speech + [Int16](repeating: 0, count: 32_000)
        var c = SpeechController()
        var changes: [(Bool, Double)] = []
        for chunk in stride(from: 0, to: audio.count, by: 800) {
            let samples = Array(audio[chunk..<min(audio.count, chunk + 800)])
            c.advance(seconds: Double(samples.count) / Double(SpeechAudio.sampleRate))
            for case let .talking(on) in c.heard(r.process(samples), decodedIn: .idle, commands: [:], wake: "shell", woken: [:]) {
                changes.append((on, c.audioTime))
            }
        }
        let speechEnd = 1 + Double(speech.count) / Double(SpeechAudio.sampleRate)
        #expect(changes.map(\.0) == [true, false], "talking once: \(changes)")
        if changes.count == 2 {
            #expect(changes[0].1 > 1 && changes[0].1 < 1.6, "heard within 0.6 s of the first word: \(changes[0].1)")
            #expect(changes[1].1 > speechEnd - 0.3 && changes[1].1 < speechEnd + 1.5, "ends after the last word (\(speechEnd) s): \(changes[1].1)")
        }
    }
}
