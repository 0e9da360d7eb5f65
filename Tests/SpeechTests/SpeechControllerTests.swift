import Speech
import Testing

/// What the shell hears from speech, decided without audio, threads or a clock, for the mode the shell keeps.
@Suite struct SpeechControllerTests {
    @Test func dictationPassesPartialsAndFinalsAndAsksOnceToStopAfterSilence() {
        var c = SpeechController()
        c.follow(.dictation, turn: 1, silence: 2)
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
        #expect(c.mode == .dictation, "the mode is the shell's: it changes when the shell says so")
        c.advance(seconds: 1)
        #expect(c.heard([.final("late", words: [], at: 3)], decodedIn: .dictation, commands: [:], wake: nil,
                        woken: [:]).isEmpty, "asked once; nothing more until the shell answers")
        c.follow(.idle, turn: 2, silence: 2)
        #expect(c.mode == .idle)
    }

    /// Whisper could not read an utterance in another language, so its final is empty: the preview PocketSphinx's
    /// partials showed is taken away, nothing is typed, and dictation goes on.
    @Test func anEmptyDictationFinalTakesThePreviewAway() {
        var c = SpeechController()
        c.follow(.dictation, turn: 1, silence: 10)
        let heard = c.heard([.partial("what ah", at: 0.5), .final("", words: [], at: 0.6)], decodedIn: .dictation,
                            commands: [:], wake: nil, woken: [:])
        #expect(heard == [.text("what ah", isFinal: false), .text("", isFinal: false)])
        #expect(c.heard([.final("hola", words: [], at: 1)], decodedIn: .dictation, commands: [:], wake: nil,
                        woken: [:]) == [.text("hola", isFinal: true)], "still dictating")
    }

    @Test func aCommandIsOneUtteranceMappedToItsPhraseOrNothingAfterTheTimeout() {
        var c = SpeechController()
        c.follow(.command, turn: 1, silence: 10)
        #expect(c.search(hasCommands: true, hasWake: false) == .grammar("commands"))
        #expect(c.search(hasCommands: false, hasWake: false) == nil, "no grammar: the audio is dropped")
        let heard = c.heard([.final("open notes", words: [], at: 1), .final("go back", words: [], at: 1)],
                            decodedIn: .command, commands: ["open notes": "Open Notes"], wake: nil, woken: [:])
        #expect(heard == [.text("Open Notes", isFinal: true)], "one utterance")

        c.follow(.idle, turn: 2, silence: 10)
        c.follow(.command, turn: 3, silence: 10)
        c.advance(seconds: SpeechController.commandTimeout)
        #expect(c.heard([], decodedIn: .command, commands: [:], wake: nil, woken: [:]) == [.text("", isFinal: true)])
    }

    @Test func eventsOfAModeLeftMeanwhileAreDropped() {
        var c = SpeechController()
        c.follow(.command, turn: 1, silence: 0)
        c.follow(.dictation, turn: 2, silence: 0)
        #expect(c.heard([.final("go back", words: [], at: 1)], decodedIn: .command, commands: [:], wake: nil,
                        woken: [:]).isEmpty)
        #expect(c.mode == .dictation)
    }

    @Test func stoppingAndStartingAgainBetweenTwoLooksIsANewDictation() {
        var c = SpeechController()
        c.follow(.dictation, turn: 1, silence: 2)
        c.advance(seconds: 2)
        #expect(c.heard([], decodedIn: .dictation, commands: [:], wake: nil, woken: [:]) == [.silence(2)])
        // The shell stopped and restarted dictation within one wake-up: the same mode, a new turn.
        c.follow(.dictation, turn: 3, silence: 2)
        c.advance(seconds: 0.5)
        #expect(c.heard([.final("again", words: [], at: 2.5)], decodedIn: .dictation, commands: [:], wake: nil,
                        woken: [:]) == [.text("again", isFinal: true)])
    }

    @Test func theWakePhraseAloneAsksToListenAndWithACommandActs() {
        var c = SpeechController()
        #expect(c.search(hasCommands: true, hasWake: true) == .grammar("wake"))
        #expect(c.search(hasCommands: true, hasWake: false) == nil, "idle without a wake phrase drops audio")
        var heard = c.heard([.final("shell", words: [], at: 1)], decodedIn: .idle, commands: [:], wake: "shell",
                            woken: ["shell": "shell"])
        #expect(heard == [.listening])
        c.follow(.command, turn: 1, silence: 10)
        c.follow(.idle, turn: 2, silence: 10)
        heard = c.heard([.final("shell open notes", words: [], at: 2)], decodedIn: .idle, commands: [:],
                        wake: "shell", woken: ["shell open notes": "shell open notes"])
        #expect(heard == [.text("open notes", isFinal: true)])
        // A final the wake check did not accept acts on nothing.
        #expect(c.heard([.final("shell settings", words: [], at: 3)], decodedIn: .idle, commands: [:], wake: "shell",
                        woken: [:]).isEmpty)
    }

    @Test func theWakeListenerSaysWhenTheUserTalksAndWhenTheyStop() {
        var c = SpeechController()
        var heard = c.heard([.speechStarted(at: 0.4)], decodedIn: .idle, commands: [:], wake: "shell", woken: [:])
        #expect(heard == [.talking(true)])
        #expect(c.heard([.partial("hello", at: 0.8)], decodedIn: .idle, commands: [:], wake: "shell", woken: [:]).isEmpty)
        heard = c.heard([.final("hello there", words: [], at: 1.5)], decodedIn: .idle, commands: [:], wake: "shell", woken: [:])
        #expect(heard == [.talking(false)], "ordinary talk: talking ends and nothing acts")
        // The wake phrase ends talking too, before the shell listens.
        _ = c.heard([.speechStarted(at: 2)], decodedIn: .idle, commands: [:], wake: "shell", woken: [:])
        heard = c.heard([.final("shell", words: [], at: 2.5)], decodedIn: .idle, commands: [:], wake: "shell", woken: ["shell": "shell"])
        #expect(heard == [.talking(false), .listening])
        // Talking never outlives the idle mode: dictation opens the microphone, and the jaw is ignored then anyway.
        c.follow(.idle, turn: 1, silence: 10)
        _ = c.heard([.speechStarted(at: 3)], decodedIn: .idle, commands: [:], wake: "shell", woken: [:])
        c.follow(.dictation, turn: 2, silence: 10)
        #expect(c.heard([], decodedIn: .dictation, commands: [:], wake: nil, woken: [:]) == [.talking(false)])
        #expect(c.heard([.speechStarted(at: 4)], decodedIn: .dictation, commands: [:], wake: nil, woken: [:]).isEmpty,
                "speech while dictating is not reported as talking")
    }
}
