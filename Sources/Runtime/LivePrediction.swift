import Foundation
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

    public init() {}

    /// A predictor already loaded, for a run that must not wait or differ: the typing bench loads the word
    /// lists once and gives each simulated user a fresh copy, so what one learned never helps the next.
    public init(loaded: WordPredictor) {
        predictor = loaded; status = nil; finished = true
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
            lock.withLock {
                p.offerHeldWords = offerRude; predictor = p; status = nil; finished = true
                answers.removeAll()
                self.problem = problem
            }
        } catch {
            lock.withLock {
                status = "no word suggestions (\(error)); typing still works"
                finished = true
            }
        }
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
    }

    /// The predictor's words for `text`, from the recent answers if asked before; called under the lock.
    private func suggest(_ text: String, limit: Int) -> [String] {
        guard let predictor else { return [] }
        let q = Query(text: text, limit: limit)
        if let words = answers[q] { return words }
        let words = predictor.suggest(text, limit: limit)
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
            guard change({ $0.addWord(word) }) != nil else { return .notice("Words are still loading: “\(word)” was not added, try again") }
            event = .wordAdded(word)
        case .removeWord(let word):
            guard change({ $0.removeWord(word) }) != nil else { return .notice("Words are still loading: “\(word)” was not removed, try again") }
            event = .wordRemoved(word)
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
            answers.removeAll()
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

    /// Follows Settings › "Suggest rude words", also when it is set before the words have loaded.
    public func suggestRudeWords(_ on: Bool) {
        lock.withLock {
            offerRude = on
            predictor?.offerHeldWords = on
            answers.removeAll()
        }
    }

    /// Retries a save that failed; returns what went wrong loading or saving, once.
    public func saveIfNeeded() -> String? {
        saveNow()
        return lock.withLock { defer { problem = nil }; return problem }
    }
}
