#if canImport(Glibc)
import Localization
import Glibc
#endif
import Foundation
import Runtime
import Shell
import Speech
import Testing

/// The runtime's speaker: `Effect.speak` carried out on threads of its own, through ALSA's file plugin, its
/// events coming back to the loop through the pipe `poll` watches.
@Suite struct LiveSpeakerTests {
    /// Waits for the loop's descriptor and drains events until `done` says so (5 s at most).
    static func events(_ s: LiveSpeaker, until done: ([ShellEvent]) -> Bool) -> [ShellEvent] {
        var got: [ShellEvent] = []
        let deadline = Date().addingTimeInterval(5)
        while !done(got), Date() < deadline {
            var fds = s.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            got += s.drain()
        }
        return got
    }

    static func speaking(_ es: [ShellEvent]) -> [Bool] { es.compactMap { if case let .speaking(b) = $0 { b } else { nil } } }

    @Test func speakEffectsGoToTheSpeakerFileAndComeBackAsEvents() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hf-live-speaker-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let s = LiveSpeaker(output: .file(path), setup: PythonEnv.voiceSetup())
        s.perform(.speak(Utterance(text: "I need help. Please come.", voice: "nonsense")))
        let es = Self.events(s) { Self.speaking($0) == [true, false] }
        #expect(Self.speaking(es) == [true, false])
        // An unknown voice is named, and flite speaks.
        #expect(es.contains { if case let .speechOutput(p) = $0 { p.english.contains("unknown voice") } else { false } })
        s.shutdown()
        let audio = try SpokenAudio.read(wav: path)
        #expect(audio.seconds > 1 && audio.rms > 500)
    }

    @Test func noAudioDeviceIsAProblemEventAndSpeakingEnds() {
        let s = LiveSpeaker(output: .device("no_such_pcm_device"), setup: PythonEnv.voiceSetup())
        s.perform(.speak(Utterance(text: "Hello.")))
        let es = Self.events(s) { Self.speaking($0) == [true, false] }
        #expect(Self.speaking(es) == [true, false])
        // Nothing was heard: told apart from a voice flite stood in for, so the phrase board can show the phrase.
        #expect(es.contains { if case let .notHeard(p) = $0 { p.english.contains("no_such_pcm_device") } else { false } })
        s.shutdown()
    }
}
