import Speech
import Testing

/// The microphone's mode and what the shell hears, decided without audio, threads or a clock.
@Suite struct SpeechControllerTests {
    @Test func dictationPassesPartialsAndFinalsAndEndsAfterSilence() {
        var c = SpeechController()
        c.startDictation(silence: 2)
        #expect(c.search(hasCommands: false, hasWake: false) == .dictation)
        c.advance(seconds: 0.5)
        var heard = c.heard([.partial("hel", at: 0.5), .final("hello", words: [], at: 0.5)], decodedIn: .dictation,
                            commands: [:], wake: nil, woken: [:])
        #expect(heard == [.text("hel", isFinal: false), .text("hello", isFinal: true)])
        c.advance(seconds: 1.9)
        #expect(c.heard([], decodedIn: .dictation, commands: [:], wake: nil, woken: [:]).isEmpty, "1.9 s of silence")
        c.advance(seconds: 0.2)
        heard = c.heard([], decodedIn: .dictation, commands: [:], wake: nil, woken: [:])
        #expect(heard == [.silence(2)])
        #expect(c.mode == .idle)
    }

    @Test func aCommandIsOneUtteranceMappedToItsPhraseOrNothingAfterTheTimeout() {
        var c = SpeechController()
        c.listenForCommand()
        #expect(c.search(hasCommands: true, hasWake: false) == .grammar("commands"))
        #expect(c.search(hasCommands: false, hasWake: false) == nil, "no grammar: the audio is dropped")
        let heard = c.heard([.final("open notes", words: [], at: 1)], decodedIn: c.mode,
                            commands: ["open notes": "Open Notes"], wake: nil, woken: [:])
        #expect(heard == [.text("Open Notes", isFinal: true)])
        #expect(c.mode == .idle)

        c.listenForCommand()
        c.advance(seconds: SpeechController.commandTimeout)
        #expect(c.heard([], decodedIn: c.mode, commands: [:], wake: nil, woken: [:]) == [.text("", isFinal: true)])
        #expect(c.mode == .idle)
    }

    @Test func eventsOfAModeLeftMeanwhileAreDropped() {
        var c = SpeechController()
        c.listenForCommand()
        let decodedIn = c.mode
        c.startDictation(silence: 0)
        #expect(c.heard([.final("go back", words: [], at: 1)], decodedIn: decodedIn, commands: [:], wake: nil,
                        woken: [:]).isEmpty)
        #expect(c.mode == .dictation)
    }

    @Test func theWakePhraseAloneListensAndWithACommandActs() {
        var c = SpeechController()
        #expect(c.search(hasCommands: true, hasWake: true) == .grammar("wake"))
        #expect(c.search(hasCommands: true, hasWake: false) == nil, "idle without a wake phrase drops audio")
        var heard = c.heard([.final("shell", words: [], at: 1)], decodedIn: .idle, commands: [:], wake: "shell",
                            woken: ["shell": "shell"])
        #expect(heard == [.listening])
        #expect(c.mode == .command(since: 0))
        c.stop()
        heard = c.heard([.final("shell open notes", words: [], at: 2)], decodedIn: .idle, commands: [:],
                        wake: "shell", woken: ["shell open notes": "shell open notes"])
        #expect(heard == [.text("open notes", isFinal: true)])
        // A final the wake check did not accept acts on nothing.
        #expect(c.heard([.final("shell settings", words: [], at: 3)], decodedIn: .idle, commands: [:], wake: "shell",
                        woken: [:]).isEmpty)
    }
}
