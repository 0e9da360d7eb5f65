import Localization
import Config
import Shell
import Testing
import TrackingCore

/// Speak and Stop as the screens and the reducer see them: the effects asked for, the state the speaker's
/// events leave, the settings kept.
@Suite struct SpeakScreenTests {
    static func utterances(_ effects: [Effect]) -> [Utterance] {
        effects.compactMap { if case let .speak(u) = $0 { u } else { nil } }
    }

    @Test(arguments: InputPath.allCases)
    func theNoteEditorSpeaksTheSentenceBeforeTheCaret(_ path: InputPath) {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Call the pharmacy. I need water please"))
        var d = Driver(path, screen: "notes", data: data)
        d.activate("notes.note.1")
        let spoken = Self.utterances(d.activate("note-editor.speak"))
        #expect(spoken == [Utterance(text: "I need water please")])
        #expect(d.text.contains("♪ Speak"))

        // The speaker's answer: the status line says so, and the key offers Stop.
        d.send(.speaking(true))
        #expect(d.text.contains("♪ speaking"))
        #expect(d.text.contains("■ Stop"))
        #expect(d.activate("note-editor.speak").contains(.stopSpeaking))
        d.send(.speaking(false))
        #expect(!d.text.contains("♪ speaking"))
    }

    @Test func phrasesSpeakAndStopAndTheSettingsChooseTheVoice() {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Yes. Thank you."))
        var d = Driver(.gesture, screen: "notes", data: data)
        d.session.state.settings.speechVoice = "piper"
        d.session.state.settings.speechRate = 1.5
        d.session.state.settings.speechVolume = 0.5
        d.activate("notes.note.1")
        let spoken = Self.utterances(d.send(.speech("speak that", isFinal: true)))
        #expect(spoken == [Utterance(text: "Thank you.", voice: "piper", rate: 1.5, volume: 0.5)])
        // "stop" is the shell's on every screen, and only while speaking.
        #expect(!d.send(.speech("stop", isFinal: true)).contains(.stopSpeaking))
        d.send(.speaking(true))
        #expect(d.send(.speech("stop", isFinal: true)).contains(.stopSpeaking))
        #expect(!d.state.speaking)
    }

    @Test func theConversationSpeaksTheDraftElseTheirLastMessage() {
        var d = Driver(.keyboard, screen: "messages")
        d.activate("messages.contact.mum")
        d.type("on my way")
        #expect(Self.utterances(d.activate("conversation.speak")).map(\.text) == ["on my way"])
        d.activate("conversation.send")
        _ = d.tick(3)
        let last = d.data.messages(with: "mum").last { !$0.fromMe }?.text
        #expect(last != nil)
        #expect(Self.utterances(d.activate("conversation.speak")).map(\.text) == [last ?? ""])
    }

    @Test func aScreenWithNothingToSpeakSaysSo() {
        var d = Driver(.gesture, screen: "media")
        #expect(Self.utterances(d.send(.speech("speak that", isFinal: true))).isEmpty)
        #expect(d.state.notice?.contains("Nothing to speak here") == true)
        d.send(.speechOutput(problem: UIMessage("{voice} voice: {reason}; flite speaks instead", ["voice": "piper", "reason": "no Python"])))
        #expect(d.state.notice == "piper voice: no Python; flite speaks instead")
    }

    @Test func speechSettingsAreKeptAndBadValuesNamed() {
        var s = ShellSettings()
        s.speechVoice = "piper"; s.speechRate = 1.3; s.speechVolume = 0.6
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(problems.isEmpty)
        #expect(back.speechVoice == "piper" && back.speechRate == 1.3 && back.speechVolume == 0.6)
        let (bad, named) = ShellSettings.parse("speech_voice = \"robot\"\nspeech_rate = 9\n", file: "settings.toml")
        #expect(bad.speechVoice == "flite" && bad.speechRate == 1)
        #expect(named.count == 2 && named[0].contains("settings.toml:1") && named[0].contains("flite"))
    }

    @Test func theSpeechTabChangesVoiceRateAndVolume() {
        var d = Driver(.gesture, screen: "settings")
        d.activate("settings.tab.speech")
        #expect(d.text.contains("Piper (natural)"))
        let e = d.activate("settings.voice.piper")
        #expect(e.contains { if case let .settingsChanged(s) = $0 { s.speechVoice == "piper" } else { false } })
        #expect(d.state.settings.speechVoice == "piper")
        let tried = Self.utterances(d.activate("settings.try-voice"))
        #expect(tried.count == 1 && tried[0].voice == "piper")
    }
}
