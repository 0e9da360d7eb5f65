import Foundation
import Localization
import Prediction
import Shell

/// The word predictor behind every text field's suggestion bar.
///
/// Loading takes about half a second, so it runs on a background thread and the bar says "loading words…"
/// meanwhile; suggestions and learning go through a lock, since the loop reads while the loader writes.
/// Committed words are learned, and saved to the user's word file (atomically) by the loop before it waits
/// again, so a crash loses none;
/// a user file that could not be read whole is kept aside, never overwritten.
public final class LivePrediction: @unchecked Sendable {
    private let lock = NSLock()
    private var predictor: WordPredictor?
    private static let loadingStatus = "loading words…"
    private var status: String? = LivePrediction.loadingStatus
    private var finished = false
    private var unsaved = false
    /// Learned since `saveChanges` last ran.
    private var changedSinceSave = false
    private var offerRude = false
    /// What went wrong loading or saving the learned words, for the loop to show once.
    private var problem: String?
    /// Recent answers of `suggest`, by limit and text: the Terminal screen asks for the same line when a key
    /// is laid out, when its echo is, and when it is drawn. Emptied whenever the predictor changes.
    private var answers: [Query: [String]] = [:]
    private struct Query: Hashable { var text: String, limit: Int }
    /// The sentences the user committed (`sentences.txt` beside the learned words), consulted first.
    private var history = SentenceHistory()
    /// Where the history is saved; nil: nowhere.
    private var historyFile: URL?
    private var historyUnsaved = false
    /// Offer phrases: the next few words as one suggestion (`continuePhrase`).
    private let continuation: Bool
    /// Phrase settings (thresholds of continuation, the beam of expansion).
    private let phraseSettings: WordPredictor.PhraseSettings
    /// Recent answers of `suggestPhrase` and `expand`, emptied with `answers`.
    private var phrases: [String: String?] = [:]
    private var expansions: [String: [String]] = [:]
    /// The frequent sentences, best first, worked out once per change (the phrase board asks at every drawing).
    private var frequent: [String]?

    public init() { continuation = true; phraseSettings = WordPredictor.PhraseSettings() }

    /// A predictor already loaded, for a run that must not wait or differ: the typing bench loads the word
    /// lists once and gives each simulated user a fresh copy, so what one learned never helps the next.
    /// `history`: the user's sentences (learned from other text); `continuation`: offer phrases.
    /// `historyFile`: where learned sentences are saved (none by default).
    public init(loaded: WordPredictor, history: SentenceHistory = SentenceHistory(), historyFile: URL? = nil,
                continuation: Bool = true, settings: WordPredictor.PhraseSettings = WordPredictor.PhraseSettings()) {
        predictor = loaded; status = nil; finished = true
        self.history = history; self.historyFile = historyFile; self.continuation = continuation; phraseSettings = settings
    }

    /// Uses `history` from now on instead of the one loaded or learned (the typing bench: the history before each
    /// phrase, never the phrase itself).
    public func replaceHistory(_ h: SentenceHistory) {
        lock.withLock { history = h; forgetAnswers() }
    }

    /// The sentence history file beside a user word file.
    public static func historyFile(beside userFile: URL) -> URL {
        userFile.deletingLastPathComponent().appendingPathComponent("sentences.txt")
    }

    /// Starts loading the shipped word lists and the user's words (none: nothing is saved), through the
    /// compiled lists in `cache` when given (`WordPredictor.load(cache:)`).
    public func load(userFile: URL?, cache: URL? = nil) {
        let t = Thread { [self] in loadNow(userFile: userFile, cache: cache) }
        t.name = "handsfree.prediction.load"
        t.start()
    }

    /// Loads on the calling thread (the headless demo, which must be the same on every run).
    public func loadNow(userFile: URL?, cache: URL? = nil) {
        var problem: String?
        var readFrom = userFile
        var saveTo = userFile
        if let userFile, case .failed(let e) = AtomicFile.read(userFile.path) {
            // Not a line could be read: keep it aside and start afresh, or, if it cannot be moved, never save over it.
            readFrom = nil
            if let aside = AtomicFile.moveAside(userFile.path) {
                problem = "Learned words file could not be read (\(e)); kept as \(aside)."
            } else {
                saveTo = nil
                problem = "Learned words file \(userFile.path) could not be read (\(e)); new words are not saved over it."
            }
        }
        do {
            var p = try WordLists.load(userFile: readFrom, cache: cache, prebuilt: WordLists.compiled)
            p.userFile = saveTo
            // Said once, so a cache that keeps getting damaged (a failing disk) is noticed; the lists loaded anyway.
            for case .damagedCache(let path, let reason) in p.warnings where problem == nil {
                problem = "Word list cache \(path) was damaged (\(reason)); the word lists were read instead."
            }
            if let userFile = readFrom, let aside = UserWordsFile.keepAside(p, userFile) {
                problem = aside.message
                if aside.moved {
                    // The readable part goes back under the usual name, so the next start has it too.
                    do { try p.save() } catch { problem = aside.message + " Not saved: \(error.description)" }
                } else {
                    p.userFile = nil
                }
            }
            let (h, historyTo, historyProblem) = Self.loadHistory(beside: userFile)
            lock.withLock {
                p.offerHeldWords = offerRude; predictor = p; status = nil; finished = true
                history = h; historyFile = historyTo
                forgetAnswers()
                self.problem = problem ?? historyProblem ?? WordLists.languageModelNotice
            }
        } catch {
            lock.withLock {
                status = "no word suggestions (\(error)); typing still works"
                finished = true
            }
        }
    }

    /// The sentence history beside `userFile`, where to save it, and what to tell the user: a file with bad lines
    /// or too large to read whole is kept aside (`NAME.corrupt-N`) and its readable part used, so nothing is lost;
    /// one that cannot be read or moved is not saved over.
    static func loadHistory(beside userFile: URL?) -> (SentenceHistory, URL?, String?) {
        guard let userFile else { return (SentenceHistory(), nil, nil) }
        let url = historyFile(beside: userFile)
        do {
            let loaded = try SentenceHistory.load(url)
            guard !loaded.warnings.isEmpty else { return (loaded.history, url, nil) }
            let first = loaded.warnings.first.map { "\($0)" } ?? ""
            guard let aside = AtomicFile.moveAside(url.path) else {
                return (loaded.history, nil, "Sentence history \(first); new sentences are not saved over it.")
            }
            var message = "Sentence history kept as \(aside) (\(first)); the rest is used."
            do { try loaded.history.save(to: url) } catch { message += " Not saved: \(error)" }
            return (loaded.history, url, message)
        } catch {
            return (SentenceHistory(), nil, "Sentence history \(error); new sentences are not saved over it.")
        }
    }

    private func forgetAnswers() {
        answers.removeAll(); phrases.removeAll(); expansions.removeAll(); frequent = nil
    }

    /// True once, after loading ended (either way): the loop redraws so the bar fills in.
    public func takeFinished() -> Bool {
        lock.withLock { defer { finished = false }; return finished }
    }

    /// The services closures for `Services`: suggest, commit (which learns), and the bar's status.
    /// The user's added and capitalised words (names, places), for the speech recogniser's hotwords.
    public func userVocabulary() -> [String] { lock.withLock { predictor?.userVocabulary() ?? [] } }

    public func install(into services: inout Services) {
        services.suggest = { [self] text, limit in lock.withLock { suggest(text, limit: limit) } }
        services.commit = { word, text in TextComposition.commit(word, into: text) }
        services.predictionStatus = { [self] in lock.withLock { status } }
        // The loading status is replaced when loading ends, either way.
        services.predictionLoading = { [self] in lock.withLock { status == LivePrediction.loadingStatus } }
        services.expand = { [self] initials, before, partner, limit in lock.withLock {
            let key = "\(limit)\u{1}\(initials)\u{1}\(before)\u{1}\(partner)"
            if let found = expansions[key] { return found }
            let out = predictor?.expand(initials, context: before, partner: partner, history: history, limit: limit,
                                        settings: phraseSettings) ?? []
            if expansions.count >= 32 { expansions.removeAll(keepingCapacity: true) }
            expansions[key] = out
            return out
        } }
        services.frequentSentences = { [self] limit in frequentSentences(limit: limit) }
        services.suggestPhrase = { [self] text in lock.withLock {
            guard continuation else { return nil }
            if let found = phrases[text] { return found }
            let out = predictor?.continuePhrase(text, history: history, settings: phraseSettings)
            if phrases.count >= 32 { phrases.removeAll(keepingCapacity: true) }
            phrases[text] = out
            return out
        } }
    }

    /// The predictor's words for `text`, from the recent answers if asked before; called under the lock.
    private func suggest(_ text: String, limit: Int) -> [String] {
        guard let predictor else { return [] }
        let q = Query(text: text, limit: limit)
        if let words = answers[q] { return words }
        let words = history.isEmpty ? predictor.suggest(text, limit: limit)
            : predictor.suggest(text, limit: limit, history: history, settings: phraseSettings)
        // A few lines' worth: the loop asks for the line showing, and a text field for its text.
        if answers.count >= 16 { answers.removeAll(keepingCapacity: true) }
        answers[q] = words
        return words
    }

    /// Carries out a word-list effect of the reducer (learn, add, remove) and saves the change at once, so a
    /// crash loses no word; returns the event that reports it, nil for any other effect.
    public func perform(_ effect: Effect) -> ShellEvent? {
        let event: ShellEvent
        switch effect {
        case .learnWord(let word, let before):
            change { $0.learn(word: word, after: before) }
            event = .wordLearned(word)
        case .addWord(let word):
            // Asked for by name, so not lost in silence while the lists load.
            guard change({ $0.addWord(word) }) != nil else { return .message(UIMessage("Words are still loading: “{word}” was not added, try again", ["word": word])) }
            event = .wordAdded(word)
        case .removeWord(let word):
            guard change({ $0.removeWord(word) }) != nil else { return .message(UIMessage("Words are still loading: “{word}” was not removed, try again", ["word": word])) }
            // A word never to be offered again is not offered inside a sentence either.
            lock.withLock {
                let before = history.count
                history.forget(word: word)
                if history.count != before { historyUnsaved = true; forgetAnswers() }
            }
            saveHistory()
            event = .wordRemoved(word)
        case .forgetSentence(let text):
            lock.withLock {
                if history.forget(sentence: text) { historyUnsaved = true; forgetAnswers() }
            }
            saveHistory()
            return .sentenceLearned
        case .learnSentences(let text):
            lock.withLock {
                history.learn(text)
                historyUnsaved = true
                forgetAnswers()
            }
            saveHistory()
            return .sentenceLearned
        default:
            return nil
        }
        saveChanges()
        return event
    }

    /// Changes the loaded predictor under the lock; nil (and nothing done) while loading. The runtime calls
    /// this for the reducer's word-list effects and saves the change (`saveChanges`) at once.
    @discardableResult
    private func change<T>(_ body: (inout WordPredictor) -> T) -> T? {
        lock.withLock {
            guard var p = predictor else { return nil }
            // Drop the stored copy first, so the learned words are changed in place rather than copied.
            predictor = nil
            forgetAnswers()
            defer { predictor = p; unsaved = true; changedSinceSave = true }
            return body(&p)
        }
    }

    /// Saves what was learned since the last call, so a crash loses no word; a failed save is retried by
    /// `saveIfNeeded` (every 10 s), not at every change.
    public func saveChanges() {
        guard lock.withLock({ defer { changedSinceSave = false }; return changedSinceSave }) else { return }
        saveNow()
    }

    /// Writes the learned words if they changed; a failure is kept for `saveIfNeeded` to report.
    private func saveNow() {
        lock.withLock {
            guard unsaved, let p = predictor else { return }
            unsaved = false
            do {
                try p.save()
                if problem?.hasPrefix("Learned words not saved") == true { problem = nil }
            } catch {
                unsaved = true
                problem = "Learned words not saved: \(error)"
            }
        }
    }

    /// Writes the sentence history if it changed (atomically); a failure is kept for `saveIfNeeded` to report and
    /// retried there.
    private func saveHistory() {
        lock.withLock {
            guard historyUnsaved else { return }
            guard let historyFile else { historyUnsaved = false; return }
            do {
                try history.save(to: historyFile)
                historyUnsaved = false
                if problem?.hasPrefix("Sentences not saved") == true { problem = nil }
            } catch {
                problem = "Sentences not saved: \(error)"
            }
        }
    }

    /// Forgets every sentence of the history and saves that (Settings, `handsfree words history clear`).
    public func forgetSentences() {
        lock.withLock { history.clear(); historyUnsaved = true; forgetAnswers() }
        saveHistory()
    }

    /// The sentences kept, best first (the phrase board's frequent row).
    public func frequentSentences(limit: Int) -> [String] {
        lock.withLock {
            if frequent == nil { frequent = history.frequent(limit: 64).map(\.text) }
            return Array((frequent ?? []).prefix(limit))
        }
    }

    /// Follows Settings › "Suggest rude words", also when it is set before the words have loaded.
    public func suggestRudeWords(_ on: Bool) {
        lock.withLock {
            offerRude = on
            predictor?.offerHeldWords = on
            forgetAnswers()
        }
    }

    /// Retries a save that failed; returns what went wrong loading or saving, once.
    public func saveIfNeeded() -> String? {
        saveNow()
        saveHistory()
        return lock.withLock { defer { problem = nil }; return problem }
    }
}
