import Config
import Foundation
import Runtime
import Shell
import Speech
import SpeechText
import TrackingCore
import Testing

/// A language pack's speech data (`languages/LL/speech.toml`) as the runtime reads it: the shipped files load,
/// a missing or broken file leaves English's words with the problem named (file:line), and a language switch
/// at run time brings its speech data with its catalog.
@Suite struct SpeechPackTests {
    static let languages = TranslationsTests.root.appendingPathComponent("languages")

    @Test(arguments: ["es", "fr", "de", "it", "pt"])
    func everyShippedPackLoads(_ code: String) {
        let (language, problem) = SpeechPack.load(code, in: Self.languages)
        #expect(problem == nil, "\(problem?.english ?? "")")
        #expect(language.code == code && !language.punctuation.isEmpty && language.numbers != nil)
        #expect(!language.stopDictation.isEmpty && !language.deleteThat.isEmpty)
        #expect(language.commands.phrases.contains { $0.value == "back" } && !language.commands.open.isEmpty)
        // A region's code takes the language's pack.
        #expect(SpeechPack.load(code + "_XX", in: Self.languages).language == language)
    }

    @Test func englishIsBuiltInAndAMissingPackSaysSo() throws {
        #expect(SpeechPack.load("en", in: Self.languages) == (.english, nil))
        let t = try TranslationsTests.Tree()
        let (language, problem) = SpeechPack.load("nl", in: t.data.appendingPathComponent("languages"))
        #expect(language == .english)
        #expect(problem?.english.contains("languages/nl/speech.toml: no speech data for \"nl\"") == true, "\(problem?.english ?? "")")
    }

    @Test func aMistakeIsNamedByFileAndLine() throws {
        let t = try TranslationsTests.Tree()
        try t.write("code = \"es\"\n\n[punctuation]\n\"coma\" = \",\"\n\"punto\" = 3\n", "languages/es/speech.toml")
        let (language, problem) = SpeechPack.load("es", in: t.data.appendingPathComponent("languages"))
        #expect(language == .english, "a broken file leaves English's words")
        #expect(problem?.english.contains("languages/es/speech.toml:5:") == true, "\(problem?.english ?? "")")
        try t.write("code = \"fr\"\n", "languages/es/speech.toml")
        #expect(SpeechPack.load("es", in: t.data.appendingPathComponent("languages")).problem?.english.contains(":1:") == true)
        try t.write("[numbers.values]\nuno = -1\n", "languages/es/speech.toml")
        #expect(SpeechPack.load("es", in: t.data.appendingPathComponent("languages")).problem?.english.contains(":2: uno must be a whole number") == true)
    }

    @Test func aLanguageSwitchBringsItsSpeechData() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.write(try String(contentsOf: Self.languages.appendingPathComponent("es/speech.toml"), encoding: .utf8),
                    "languages/es/speech.toml")
        let loader = LanguageLoader(root: t.data, environment: [:])
        let events = loader.load("es")
        guard events.count >= 2, case .languageLoaded = events[0], case .speechLanguageLoaded(let es) = events[1] else {
            Issue.record("\(events)"); return
        }
        #expect(es.code == "es" && es.commands.english("atrás") == "back")
        guard case .speechLanguageLoaded(let english)? = loader.load("en").dropFirst().first else { Issue.record("no speech data"); return }
        #expect(english == .english)
    }

    /// Settings › Language at run time tells live speech the language: Whisper's worker is set up again for it
    /// (the multilingual base for Spanish, tiny.en back in English), and a model the user named is kept. Speech
    /// is not loaded here, so the worker is only configured, as before the first load.
    @Test func aLanguageSwitchSetsWhisperUpForTheLanguage() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        try t.write(try String(contentsOf: Self.languages.appendingPathComponent("es/speech.toml"), encoding: .utf8),
                    "languages/es/speech.toml")
        func switched(model: String) throws -> (before: (model: String, language: String)?, after: (model: String, language: String)?) {
            let speech = LiveSpeech(input: .file(raw: "/dev/null", name: "none"), wakePhrase: nil,
                                    whisper: WhisperWorker(.init(python: "/nonexistent/python", script: "none.py", model: model)))
            let before = speech.whisperSetup
            var state = Session(starting: StartingState(keymap: try Setup.keymap("default", gestures: GestureConfig.defaults().gestures),
                                                        pipeline: GestureConfig.defaults())).state
            state.stack.append(TranslationsTests.LanguagePicker())
            state.relayout()
            state.focus.set("pick", at: 0)
            var r = ShellRuntime(session: Session(state: state, settings: GestureConfig.defaults()),
                                 feed: .replay(items: [.frame(TrackingFrame(t: 0), nil)], speed: 1, name: "t"), exitAtEnd: true,
                                 paths: UserPaths(environment: ["HOME": t.base.path], dataDir: t.base.appendingPathComponent("data").path))
            r.languages = LanguageLoader(root: t.data, environment: [:])
            r.speech = speech
            let display = TranslationsTests.TitleDisplay(keys: [.key(.enter)])
            r.display = { display }
            try r.run()
            #expect(r.session.state.catalog.language == "es")
            return (before, speech.whisperSetup)
        }
        let package = try switched(model: "package")
        #expect(package.before?.model == "package" && package.before?.language == "en")
        #expect(package.after?.model == "package-base" && package.after?.language == "es", "\(String(describing: package.after))")
        let named = try switched(model: "/models/whisper-small")
        #expect(named.after?.model == "/models/whisper-small" && named.after?.language == "es")
    }
}
