import Config
import Foundation
import FrameFormats
import Prediction
@testable import Runtime
import Shell
import Testing
import TrackingCore

/// The suggestion bar follows the language: a run started in Spanish suggests from the Spanish pack and learns
/// into the user's Spanish words; a switch at run time (`Effect.loadLanguage`) changes the words, and one back to
/// a language used before takes no loading.
@Suite(.enabled(if: LanguagePackTests.available, "needs the language packs' word data in languages/"))
struct LivePredictionLanguageTests {
    /// Polls until the words are loaded (a generous deadline: a debug build reads the lists in about a second).
    func waitLoaded(_ services: Services) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while services.predictionLoading(), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return !services.predictionLoading()
    }

    @Test func suggestionsAndLearnedWordsFollowTheLanguage() throws {
        let dir = try LanguagePackTests.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = UserPaths(environment: ["HOME": dir.path], dataDir: dir.appendingPathComponent("data").path)
        try FileManager.default.createDirectory(at: paths.data, withIntermediateDirectories: true)
        let live = LivePrediction()
        var services = Services()
        live.install(into: &services)
        live.load(language: "es_ES.UTF-8", paths: paths)
        #expect(waitLoaded(services))
        #expect(live.currentLanguage == "es")
        #expect(services.suggest("me gusta la cancion", 3).first == "canción", "\(services.suggest("me gusta la cancion", 3))")
        #expect(live.perform(.learnWord("Zorbléxica", after: "voy con ")) != nil)
        _ = live.perform(.learnSentences("Voy con Zorbléxica al mercado."))
        let spanishWords = paths.data.appendingPathComponent("user-words-es.txt")
        #expect(try String(contentsOf: spanishWords, encoding: .utf8).contains("Zorbléxica"), "learned into the Spanish file")
        #expect(FileManager.default.fileExists(atPath: paths.data.appendingPathComponent("sentences-es.txt").path))
        #expect(!FileManager.default.fileExists(atPath: paths.userWords.path), "nothing in English's file")

        live.switchLanguage(to: "fr")
        #expect(services.predictionLoading(), "French was never used: its words load")
        #expect(waitLoaded(services))
        #expect(services.suggest("je vais à l'ecole", 3).first == "l'école", "\(services.suggest("je vais à l'ecole", 3))")
        #expect(!services.suggest("avec Zorbl", 10).contains { $0.hasPrefix("Zorbl") }, "Spanish words stay out of French")
        #expect(services.frequentSentences(5).isEmpty, "Spanish sentences stay out of French")

        live.switchLanguage(to: "es")
        #expect(!services.predictionLoading(), "Spanish was used before: back at once")
        #expect(services.suggest("y Zorbl", 3).first == "Zorbléxica", "\(services.suggest("y Zorbl", 3))")
        #expect(services.frequentSentences(5) == ["Voy con Zorbléxica al mercado."])

        live.switchLanguage(to: "en")
        #expect(waitLoaded(services))
        #expect(services.suggest("the hou", 3).contains("house"), "\(services.suggest("the hou", 3))")
    }

    /// The runtime's answer to a change of the `language` setting switches the suggestions too (Settings ›
    /// Language, as TranslationsTests drives it).
    @Test func theLiveLoopSwitchesTheSuggestionsWithTheLanguageSetting() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        let home = t.base.appendingPathComponent("home")
        let paths = UserPaths(environment: ["HOME": home.path], dataDir: home.appendingPathComponent("data").path)
        let live = LivePrediction()
        var services = Services()
        live.install(into: &services)
        live.load(language: "en", paths: paths)
        #expect(waitLoaded(services))
        #expect(!services.suggest("la cancion", 3).contains("canción"), "English first")
        let gestures = GestureConfig.defaults()
        var state = ShellState(keymap: try Setup.keymap("default", gestures: gestures.gestures), gestures: gestures.gestures,
                               services: services)
        state.stack.append(TranslationsTests.LanguagePicker())
        state.relayout()
        state.focus.set("pick", at: 0)
        var r = ShellRuntime(session: Session(state: state, settings: gestures),
                             feed: .replay(items: [.frame(TrackingFrame(t: 0), nil)], speed: 1, name: "t"), exitAtEnd: true, paths: paths)
        r.languages = LanguageLoader(root: t.data, environment: [:])
        r.prediction = live
        let display = TranslationsTests.TitleDisplay(keys: [.key(.enter)])
        r.display = { display }
        try r.run()
        #expect(r.session.state.catalog.language == "es")
        #expect(live.currentLanguage == "es")
        #expect(waitLoaded(services))
        #expect(services.suggest("me gusta la cancion", 3).first == "canción", "\(services.suggest("me gusta la cancion", 3))")
    }

    @Test func aLanguageWithoutWordDataSuggestsEnglishAndSaysSo() throws {
        let (pack, problem) = LivePrediction.pack(for: "nl")
        #expect(pack == nil)
        #expect(problem?.hasPrefix("No word data for nl (no language pack for \"nl\"; installed: de (Deutsch), en (English)") == true, "\(problem ?? "")")
        #expect(LivePrediction.pack(for: "en_GB.UTF-8") .0 == nil && LivePrediction.pack(for: "en_GB.UTF-8").1 == nil)
        #expect(LivePrediction.pack(for: "pt_BR").0?.code == "pt")
    }

    @Test func eachLanguageKeepsItsSentencesBesideItsWords() {
        let data = URL(fileURLWithPath: "/d")
        #expect(LivePrediction.historyFile(beside: data.appendingPathComponent("user-words.txt")).lastPathComponent == "sentences.txt")
        #expect(LivePrediction.historyFile(beside: data.appendingPathComponent("user-words-es.txt")).lastPathComponent == "sentences-es.txt")
    }
}
