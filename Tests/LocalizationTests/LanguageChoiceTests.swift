import Testing
@testable import Localization

/// The language from `--language`, the setting and the environment, as gettext reads the environment.
@Suite struct LanguageChoiceTests {
    let installed = ["de", "es", "fr", "it", "pt"]

    func choose(_ env: [String: String], setting: String = "auto", commandLine: String? = nil) throws -> LanguageChoice {
        try LanguageChoice.resolve(commandLine: commandLine, setting: setting, environment: env, installed: installed)
    }

    @Test func theLocaleOfMessagesPicksTheLanguage() throws {
        #expect(try choose(["LANG": "es_ES.UTF-8"]) == LanguageChoice(language: "es", source: .environment("LANG")))
        #expect(try choose(["LANG": "es_ES.UTF-8", "LC_MESSAGES": "de_DE.UTF-8"]).language == "de")
        #expect(try choose(["LANG": "es_ES.UTF-8", "LC_MESSAGES": "de_DE.UTF-8", "LC_ALL": "fr_FR.UTF-8"])
                == LanguageChoice(language: "fr", source: .environment("LC_ALL")))
        #expect(try choose(["LANG": "pt_BR.UTF-8"]).language == "pt")
        #expect(try choose(["LANG": "it_IT@euro"]).language == "it")
        #expect(try choose(["LANG": "de_DE.UTF-8", "LC_ALL": ""]).language == "de")
    }

    @Test func languageListComesFirstUnlessTheLocaleIsC() throws {
        #expect(try choose(["LANG": "es_ES.UTF-8", "LANGUAGE": "fr:es"]) == LanguageChoice(language: "fr", source: .environment("LANGUAGE")))
        // The first entry with a pack wins; one without is passed over.
        #expect(try choose(["LANG": "es_ES.UTF-8", "LANGUAGE": "nl:it"]).language == "it")
        // gettext ignores LANGUAGE in the C locale, and without any locale variable.
        #expect(try choose(["LANG": "C.UTF-8", "LANGUAGE": "fr"]) == LanguageChoice(language: "en", source: .none))
        #expect(try choose(["LANGUAGE": "fr"]) == LanguageChoice(language: "en", source: .none))
    }

    @Test func englishAndTheCLocaleNeedNoPackAndSayNothing() throws {
        #expect(try choose([:]) == LanguageChoice(language: "en", source: .none))
        #expect(try choose(["LANG": "C"]).missing == nil)
        #expect(try choose(["LANG": "POSIX"]).missing == nil)
        #expect(try choose(["LANG": "en_GB.UTF-8"]) == LanguageChoice(language: "en", source: .environment("LANG")))
        #expect(try choose(["LANG": "en_US.UTF-8", "LANGUAGE": "en:es"]).language == "en")
    }

    @Test func aLocaleWithoutAPackGivesEnglishSaidOnce() throws {
        let c = try choose(["LANG": "ja_JP.UTF-8"])
        #expect(c == LanguageChoice(language: "en", source: .environment("LANG"), missing: "ja_JP"))
        #expect(c.missingNotice(installed: installed)?.english
                == "No language pack for ja_JP: the shell is in English (installed: de, en, es, fr, it, pt)")
        #expect(try choose(["LANG": "es_ES.UTF-8"]).missingNotice(installed: installed) == nil)
    }

    @Test func theSettingOverridesTheEnvironment() throws {
        #expect(try choose(["LANG": "es_ES.UTF-8"], setting: "de") == LanguageChoice(language: "de", source: .setting))
        #expect(try choose(["LANG": "es_ES.UTF-8"], setting: "en") == LanguageChoice(language: "en", source: .setting))
        #expect(try choose(["LANG": "es_ES.UTF-8"], setting: "pt-BR").language == "pt")
        // A setting naming no pack starts in English and says so; it is not an error (the file may come from
        // another machine).
        #expect(try choose(["LANG": "es_ES.UTF-8"], setting: "nl") == LanguageChoice(language: "en", source: .setting, missing: "nl"))
    }

    @Test func theCommandLineOverridesBothAndAnUnknownCodeListsThePacks() throws {
        #expect(try choose(["LANG": "es_ES.UTF-8"], setting: "de", commandLine: "it") == LanguageChoice(language: "it", source: .commandLine))
        #expect(try choose(["LANG": "es_ES.UTF-8"], commandLine: "EN").language == "en")
        #expect(throws: UnknownLanguage(asked: "xx", installed: installed)) { try choose([:], commandLine: "xx") }
        #expect(throws: UnknownLanguage(asked: "spanish!", installed: installed)) { try choose([:], commandLine: "spanish!") }
        #expect(UnknownLanguage(asked: "xx", installed: installed).description
                == "unknown language \"xx\" (installed: de, en, es, fr, it, pt)")
    }

    @Test func codesAreNormalised() {
        #expect(LanguageChoice.normalise("es") == "es")
        #expect(LanguageChoice.normalise("ES") == "es")
        #expect(LanguageChoice.normalise("pt-br") == "pt_BR")
        #expect(LanguageChoice.normalise("es_419") == "es_419")
        #expect(LanguageChoice.normalise("de_DE.UTF-8@euro") == "de_DE")
        #expect(LanguageChoice.normalise("") == nil)
        #expect(LanguageChoice.normalise("e") == nil)
        #expect(LanguageChoice.normalise("español") == nil)
        #expect(LanguageChoice.normalise("es_ES_x") == nil)
        #expect(LanguageChoice.normalise("../x") == nil)
    }
}

/// Messages kept as values and translated when drawn.
@Suite struct UIMessageTests {
    @Test func translatedByTheCatalogOfTheMoment() {
        let es = Catalog(language: "es", entries: [
            CatalogEntry(msgid: "", translations: ["Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=(n != 1);\n"]),
            CatalogEntry(msgid: "Keymap reloaded", translations: ["Mapa de gestos recargado"]),
            CatalogEntry(msgid: "{n} word learned", msgidPlural: "{n} words learned", translations: ["{n} palabra aprendida", "{n} palabras aprendidas"]),
        ], file: "es.po")
        let m = UIMessage("Keymap reloaded")
        #expect(m.english == "Keymap reloaded")
        #expect(m.text(es) == "Mapa de gestos recargado")
        #expect(UIMessage.plural("{n} word learned", "{n} words learned", 3).text(es) == "3 palabras aprendidas")
        #expect(UIMessage.plural("{n} word learned", "{n} words learned", 1).english == "1 word learned")
        #expect(UIMessage.verbatim("Keymap reloaded").text(es) == "Keymap reloaded")
        #expect(!UIMessage.verbatim("x").isTranslatable)
        #expect(N_("Notes") == "Notes")
    }
}
