import Config
import Localization
import Shell
import Testing
import TrackingCore

/// The way back from a language the user cannot read: the escape (F12, "restore settings", the jaw hold) puts
/// back the language in use before the last change, and "English" said alone switches to English on any screen.
@Suite struct LanguageWayBackTests {
    static func session(_ language: String = "auto") -> Session {
        var services = Services()
        services.languages = [("de", "Deutsch"), ("es", "Español"), ("fr", "Français"), ("it", "Italiano"), ("pt", "Português")]
        var state = ShellState(keymap: Fixture.keymap("default"), services: services)
        var settings = state.settings
        settings.language = language
        state.apply(settings)
        var s = Session(state: state, settings: PipelineSettings(gestures: GestureDefaults.definitions))
        s.apply(settings)
        _ = s.state.show(screen: "settings")
        s.state.stack[s.state.stack.count - 1] = SettingsScreen(tab: "language")
        s.state.relayout()
        return s
    }

    @Test func theEscapePutsBackTheLanguageInUseBeforeTheLastChange() throws {
        var s = Self.session()
        s.state.focus.set("settings.language.de", at: s.state.now)
        #expect(s.send(.key(.enter)).contains(.loadLanguage("de")))
        _ = s.send(.languageLoaded(try LanguageTests.catalog("de")))
        // Acting under it (the helper's keys) makes the gestures the last good, which the language is not part of.
        _ = s.send(.key(.down))
        #expect(s.state.settings.language == "de")
        let effects = s.send(.key(.restoreSettings))
        #expect(s.state.settings.language == "auto", "the language before the change comes back")
        #expect(effects.contains(.loadLanguage("auto")), "\(effects)")
        #expect(effects.contains { if case .saveSettings(let saved) = $0 { saved.language == "auto" } else { false } }, "\(effects)")
        // Once back, the escape has no other language to put back.
        _ = s.send(.languageLoaded(.english))
        _ = s.send(.key(.restoreSettings))
        #expect(s.state.settings.language == "auto")
    }

    @Test(arguments: ["English", "english.", "Inglés.", "Anglais !", "Englisch", "Inglese?"])
    func englishSaidAloneSwitchesToEnglishOnAnyScreen(_ heard: String) throws {
        var s = Self.session("fr")
        _ = s.send(.languageLoaded(try LanguageTests.catalog("fr")))
        _ = s.state.show(screen: "launcher")
        let effects = s.send(.speech(heard, isFinal: true))
        #expect(s.state.settings.language == "en", "\(heard)")
        #expect(effects.contains(.loadLanguage("en")), "\(effects)")
    }

    @Test func englishInASentenceOrInEnglishIsNoCommand() throws {
        var s = Self.session("fr")
        _ = s.send(.languageLoaded(try LanguageTests.catalog("fr")))
        _ = s.send(.speech("je parle anglais", isFinal: true))
        #expect(s.state.settings.language == "fr")
        // Already in English, "English" changes no setting.
        var en = Self.session()
        _ = en.state.show(screen: "launcher")
        _ = en.send(.speech("English", isFinal: true))
        #expect(en.state.settings.language == "auto")
    }
}
