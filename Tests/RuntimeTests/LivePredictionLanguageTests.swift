import Config
import Foundation
import FrameFormats
import Localization
import Prediction
@testable import LiveServices
@testable import Runtime
import Shell
import Testing
import TrackingCore

/// The suggestion bar follows the language: a run started in Spanish suggests from the Spanish pack and learns
/// into the user's Spanish words; a change of language (`.languageLoaded`) changes the words, the reducer asking
/// the loader for them (`.loadPredictor`), and one back to a language used before takes no loading: the state
/// kept its predictor, with what the user learned in it.
@Suite(.enabled(if: LanguagePackTests.available, "needs the language packs' word data in languages/"))
struct LivePredictionLanguageTests {
    /// Polls until the loader has loaded something (a generous deadline: a debug build reads the lists in about
    /// a second), and hands it to the state as the prediction source does.
    func deliver(_ live: LivePrediction, to state: inout ShellState) -> [LivePrediction.Loaded] {
        let loaded = waitForLoaded(live)
        for l in loaded { _ = reduce(&state, .predictorLoaded(l.predictor, language: l.language, problem: l.problem)) }
        return loaded
    }

    /// Polls until the loader has loaded something, within a generous deadline.
    func waitForLoaded(_ live: LivePrediction) -> [LivePrediction.Loaded] {
        let deadline = Date().addingTimeInterval(60)
        var loaded = live.takeLoaded()
        while loaded.isEmpty, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            loaded = live.takeLoaded()
        }
        return loaded
    }

    /// Writes the files the reducer asked for, as the runtime does.
    func write(_ effects: [Effect], _ live: LivePrediction) {
        for e in effects {
            if case .saveLearnedWords(let w) = e { #expect(live.write(w, what: .learnedWords) == nil) }
            if case .saveSentences(let w) = e { #expect(live.write(w, what: .sentences) == nil) }
        }
    }

    /// The languages whose words the effects ask to load.
    func loads(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .loadPredictor(let language) = $0 { return language } else { return nil } }
    }

    /// A run's first state, its words loading for `language`.
    func start(language: String?, predictor: Predictor = .loading) throws -> ShellState {
        let gestures = GestureConfig.defaults()
        var start = StartingState(keymap: try Setup.keymap("default", gestures: gestures.gestures), pipeline: gestures)
        start.predictor = predictor
        start.predictorLanguage = language
        return Session(starting: start).state
    }

    @Test func suggestionsAndLearnedWordsFollowTheLanguage() throws {
        let dir = try LanguagePackTests.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = UserPaths(environment: ["HOME": dir.path], dataDir: dir.appendingPathComponent("data").path)
        try FileManager.default.createDirectory(at: paths.data, withIntermediateDirectories: true)
        let live = LivePrediction()
        var state = try start(language: "es")
        live.load(language: "es", paths: paths)
        #expect(deliver(live, to: &state).map(\.language) == ["es"])
        #expect(state.predictorLanguage == "es")
        #expect(state.predictor.suggest("me gusta la cancion", limit: 3).first == "canción",
                "\(state.predictor.suggest("me gusta la cancion", limit: 3))")
        write(state.learn(.learnWord("Zorbléxica", after: "voy con ")), live)
        write(state.learn(.learnSentences("Voy con Zorbléxica al mercado.")), live)
        let spanishWords = paths.data.appendingPathComponent("user-words-es.txt")
        #expect(try String(contentsOf: spanishWords, encoding: .utf8).contains("Zorbléxica"), "learned into the Spanish file")
        #expect(FileManager.default.fileExists(atPath: paths.data.appendingPathComponent("sentences-es.txt").path))
        #expect(!FileManager.default.fileExists(atPath: paths.userWords.path), "nothing in English's file")

        let toFrench = reduce(&state, .languageLoaded(Translations.catalog("fr")))
        #expect(loads(toFrench) == ["fr"], "French was never used: its words load")
        #expect(state.predictor.isLoading)
        live.load(language: "fr", paths: paths)
        #expect(deliver(live, to: &state).map(\.language) == ["fr"])
        #expect(state.predictor.suggest("je vais à l'ecole", limit: 3).first == "l'école",
                "\(state.predictor.suggest("je vais à l'ecole", limit: 3))")
        #expect(!state.predictor.suggest("avec Zorbl", limit: 10).contains { $0.hasPrefix("Zorbl") }, "Spanish words stay out of French")
        #expect(state.predictor.frequentSentences(5).isEmpty, "Spanish sentences stay out of French")

        let backToSpanish = reduce(&state, .languageLoaded(Translations.catalog("es")))
        #expect(loads(backToSpanish).isEmpty && !state.predictor.isLoading, "Spanish was used before: back at once")
        #expect(state.predictor.suggest("y Zorbl", limit: 3).first == "Zorbléxica", "\(state.predictor.suggest("y Zorbl", limit: 3))")
        #expect(state.predictor.frequentSentences(5) == ["Voy con Zorbléxica al mercado."])

        #expect(loads(reduce(&state, .languageLoaded(.english))) == ["en"])
        live.load(language: "en", paths: paths)
        #expect(deliver(live, to: &state).map(\.language) == ["en"])
        #expect(state.predictor.suggest("the hou", limit: 3).contains("house"), "\(state.predictor.suggest("the hou", limit: 3))")
    }

    /// A load that ends after another language was chosen is kept for when that language comes back, never
    /// shown in the one chosen since; and a language whose words are still loading is not asked for twice.
    @Test func aLoadThatEndsAfterTheLanguageChangedIsKeptForLater() throws {
        let spanish = Predictor(answers: { _, _ in ["canción"] }), french = Predictor(answers: { _, _ in ["l'école"] })
        var state = try start(language: "es", predictor: spanish)
        #expect(loads(reduce(&state, .languageLoaded(Translations.catalog("fr")))) == ["fr"])
        #expect(loads(reduce(&state, .languageLoaded(Translations.catalog("es")))).isEmpty)
        #expect(state.predictor.suggest("x", limit: 3) == ["canción"], "Spanish back at once")
        #expect(loads(reduce(&state, .languageLoaded(Translations.catalog("fr")))).isEmpty, "French is loading already")
        #expect(state.predictor.isLoading)
        _ = reduce(&state, .languageLoaded(Translations.catalog("es")))
        _ = reduce(&state, .predictorLoaded(french, language: "fr", problem: nil))
        #expect(state.predictor.suggest("x", limit: 3) == ["canción"], "French words never shown in Spanish")
        #expect(loads(reduce(&state, .languageLoaded(Translations.catalog("fr")))).isEmpty, "French was loaded meanwhile")
        #expect(state.predictor.suggest("x", limit: 3) == ["l'école"])
    }

    /// The runtime's answer to a change of the `language` setting switches the suggestions too (Settings ›
    /// Language, as TranslationsTests drives it): the reducer asks for the Spanish words, the loop has them loaded.
    @Test func theLiveLoopSwitchesTheSuggestionsWithTheLanguageSetting() throws {
        let t = try TranslationsTests.Tree()
        try t.write("es\n", "po/LINGUAS")
        try t.copyShipped("es")
        let home = t.base.appendingPathComponent("home")
        let paths = UserPaths(environment: ["HOME": home.path], dataDir: home.appendingPathComponent("data").path)
        let live = LivePrediction()
        let english = LivePrediction.loadNow(language: "en", paths: paths)
        #expect(english.language == "en")
        #expect(!english.predictor.suggest("la cancion", limit: 3).contains("canción"), "English first")
        var state = try start(language: "en", predictor: english.predictor)
        state.stack.append(TranslationsTests.LanguagePicker())
        state.relayout()
        state.focus.set("pick", at: 0)
        var r = ShellRuntime(session: Session(state: state, settings: GestureConfig.defaults()),
                             feed: .replay(items: [.frame(TrackingFrame(t: 0), nil)], speed: 1, name: "t"), exitAtEnd: true, paths: paths)
        r.languages = LanguageLoader(root: t.data, environment: [:])
        r.prediction = live
        let display = TranslationsTests.TitleDisplay(keys: [.key(.enter)])
        r.display = { display }
        try r.run()
        #expect(r.session.state.catalog.language == "es")
        #expect(r.session.state.predictorLanguage == "es")
        var after = r.session.state
        // The run may end before the words are loaded; they come to the state as the prediction source gives them.
        if after.predictor.isLoading { #expect(deliver(live, to: &after).map(\.language) == ["es"]) }
        #expect(after.predictor.suggest("me gusta la cancion", limit: 3).first == "canción",
                "\(after.predictor.suggest("me gusta la cancion", limit: 3))")
    }

    @Test func aLanguageWithoutWordDataSuggestsEnglishAndSaysSo() throws {
        let (pack, problem) = LivePrediction.pack(for: "pl")
        #expect(pack == nil)
        #expect(problem?.english.hasPrefix("No word data for pl (no language pack for \"pl\"; installed: de (Deutsch), en (English)") == true, "\(problem?.english ?? "")")
        #expect(LivePrediction.pack(for: "nl_NL.UTF-8").0?.code == "nl", "Dutch has its pack")
        #expect(LivePrediction.pack(for: "en_GB.UTF-8") .0 == nil && LivePrediction.pack(for: "en_GB.UTF-8").1 == nil)
        #expect(LivePrediction.pack(for: "pt_BR").0?.code == "pt")
        #expect(LivePrediction.pack(for: "es_ES.UTF-8").0?.code == "es")
    }

    @Test func eachLanguageKeepsItsSentencesBesideItsWords() {
        let data = URL(fileURLWithPath: "/d")
        #expect(LivePrediction.historyFile(beside: data.appendingPathComponent("user-words.txt")).lastPathComponent == "sentences.txt")
        #expect(LivePrediction.historyFile(beside: data.appendingPathComponent("user-words-es.txt")).lastPathComponent == "sentences-es.txt")
    }

    /// Words committed while the lists still load (a fresh home compiles them first) are learned when they
    /// arrive, into the language they were typed in, even when the user switched language meanwhile: before,
    /// they were dropped and the user's new word was never offered.
    @Test func wordsCommittedWhileTheListsLoadAreLearnedWhenTheyArrive() throws {
        let dir = try LanguagePackTests.temp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = UserPaths(environment: ["HOME": dir.path], dataDir: dir.appendingPathComponent("data").path)
        try FileManager.default.createDirectory(at: paths.data, withIntermediateDirectories: true)
        let live = LivePrediction()
        var state = try start(language: "es")
        #expect(state.learn(.learnWord("Zorbléxica", after: "voy con ")).isEmpty, "nothing to write yet")
        #expect(state.learn(.learnSentences("Voy con Zorbléxica al mercado.")).isEmpty)
        // The user switches to French before the Spanish words arrive, and commits a French word.
        _ = reduce(&state, .languageLoaded(Translations.catalog("fr")))
        #expect(state.predictor.isLoading)
        #expect(state.learn(.learnWord("Quibrolant", after: "avec ")).isEmpty)
        #expect(state.learningWhileLoading.count == 3)

        live.load(language: "es", paths: paths)
        var effects: [Effect] = []
        for l in waitForLoaded(live) { effects += reduce(&state, .predictorLoaded(l.predictor, language: l.language, problem: l.problem)) }
        write(effects, live)
        let spanishWords = paths.data.appendingPathComponent("user-words-es.txt")
        #expect((try? String(contentsOf: spanishWords, encoding: .utf8))?.contains("Zorbléxica") == true,
                "the Spanish word, typed while loading, is learned into the Spanish file")
        #expect(FileManager.default.fileExists(atPath: paths.data.appendingPathComponent("sentences-es.txt").path))
        #expect(state.learningWhileLoading.count == 1, "the French word waits for French")

        live.load(language: "fr", paths: paths)
        let french = deliver(live, to: &state)
        #expect(french.map(\.language) == ["fr"])
        #expect(state.learningWhileLoading.isEmpty)
        #expect(state.predictor.suggest("avec Quibr", limit: 3).contains("Quibrolant"),
                "\(state.predictor.suggest("avec Quibr", limit: 3))")
        _ = reduce(&state, .languageLoaded(Translations.catalog("es")))
        #expect(state.predictor.suggest("voy con Zorbl", limit: 3).contains("Zorbléxica"),
                "\(state.predictor.suggest("voy con Zorbl", limit: 3))")
    }
}
