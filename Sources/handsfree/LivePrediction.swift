import Foundation
import Prediction
import Shell

/// The word predictor behind every text field's suggestion bar.
///
/// Loading takes about half a second, so it runs on a background thread and the bar says "loading words…"
/// meanwhile; suggestions and learning go through a lock, since the loop reads while the loader writes.
/// Committed words are learned and saved to the user's word file by the loop (`saveIfNeeded`).
final class LivePrediction: @unchecked Sendable {
    private let lock = NSLock()
    private var predictor: WordPredictor?
    private static let loadingStatus = "loading words…"
    private var status: String? = LivePrediction.loadingStatus
    private var finished = false
    private var unsaved = false
    private var offerRude = false

    /// Starts loading the shipped word lists and the user's words (none: nothing is saved).
    func load(userFile: URL?) {
        let t = Thread { [self] in loadNow(userFile: userFile) }
        t.name = "handsfree.prediction.load"
        t.start()
    }

    /// Loads on the calling thread (the headless demo, which must be the same on every run).
    func loadNow(userFile: URL?) {
        do {
            var p = try WordPredictor.load(wordList: WordLists.words, ngrams: WordLists.ngrams, userFile: userFile,
                                           nouns: WordLists.nouns, held: WordLists.held)
            lock.withLock { p.offerHeldWords = offerRude; predictor = p; status = nil; finished = true }
        } catch {
            lock.withLock {
                status = "no word suggestions (\(error)); typing still works"
                finished = true
            }
        }
    }

    /// True once, after loading ended (either way): the loop redraws so the bar fills in.
    func takeFinished() -> Bool {
        lock.withLock { defer { finished = false }; return finished }
    }

    /// The services closures for `Services`: suggest, commit (which learns), and the bar's status.
    func install(into services: inout Services) {
        services.suggest = { [self] text, limit in lock.withLock { predictor?.suggest(text, limit: limit) ?? [] } }
        services.commit = { [self] word, text in
            // The context is the text before the word being completed.
            var context = text
            while let last = context.last, !last.isWhitespace { context.removeLast() }
            change { $0.learn(word: word, after: context) }
            return TextComposition.commit(word, into: text)
        }
        services.predictionStatus = { [self] in lock.withLock { status } }
        // The loading status is replaced when loading ends, either way.
        services.predictionLoading = { [self] in lock.withLock { status == LivePrediction.loadingStatus } }
        services.addWord = { [self] word in change { $0.addWord(word) } ?? false }
        services.removeWord = { [self] word in change { $0.removeWord(word) } }
        services.learn = { [self] word, before in change { $0.learn(word: word, after: before) } }
    }

    /// Changes the loaded predictor under the lock and marks it for saving; nil (and nothing done) while loading.
    @discardableResult
    private func change<T>(_ body: (inout WordPredictor) -> T) -> T? {
        lock.withLock {
            guard var p = predictor else { return nil }
            // Drop the stored copy first, so the learned words are changed in place rather than copied.
            predictor = nil
            defer { predictor = p; unsaved = true }
            return body(&p)
        }
    }

    /// Follows Settings › "Suggest rude words", also when it is set before the words have loaded.
    func suggestRudeWords(_ on: Bool) {
        lock.withLock {
            offerRude = on
            predictor?.offerHeldWords = on
        }
    }

    /// Writes learned words to the user file; returns a message if that failed.
    func saveIfNeeded() -> String? {
        let p: WordPredictor? = lock.withLock { defer { unsaved = false }; return unsaved ? predictor : nil }
        do { try p?.save() } catch { return "Learned words not saved: \(error.description)" }
        return nil
    }
}
