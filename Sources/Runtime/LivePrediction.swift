import Foundation
import Localization
import Prediction
import Shell
import SystemIO

/// Loads the word predictor in the background and writes what the reducer learned.
///
/// Loading takes about half a second, so it runs on a background thread and the bar says "loading words…"
/// meanwhile; the loaded predictor reaches the loop as an event carrying it (`.predictorLoaded`), and from then
/// on the state holds it (`ShellState.predictor`): learning is the reducer's, which asks for the learned
/// words' and sentences' files to be written (`.saveLearnedWords`, `.saveSentences`, with their text), at
/// once, so a crash loses none. A write that fails is tried again every 10 s (`saveIfNeeded`), its problem
/// shown once. A user file that could not be read whole is kept aside, never overwritten.
public final class LivePrediction: @unchecked Sendable {
    private let lock = NSLock()
    /// The predictor loaded and not yet taken by the loop, with a problem to show.
    private var loaded: (Predictor, String?)?
    /// What a failed write left to write again, by path.
    private var unwritten: [String: (text: String, what: String)] = [:]
    /// What went wrong writing, for the loop to show once.
    private var problem: String?

    public init() {}

    /// The sentence history file beside a user word file.
    public static func historyFile(beside userFile: URL) -> URL {
        userFile.deletingLastPathComponent().appendingPathComponent("sentences.txt")
    }

    /// Starts loading the shipped word lists and the user's words (none: nothing is saved), through the
    /// compiled lists in `cache` when given (`WordPredictor.load(cache:)`).
    public func load(userFile: URL?, cache: URL? = nil) {
        let t = Thread { [self] in
            let result = Self.loadNow(userFile: userFile, cache: cache)
            lock.withLock { loaded = result }
        }
        t.name = "handsfree.prediction.load"
        t.start()
    }

    /// The predictor loaded in the background, once, with a problem to show; nil until it is.
    public func takeLoaded() -> (Predictor, String?)? {
        lock.withLock { defer { loaded = nil }; return loaded }
    }

    /// Loads on the calling thread (the headless demo, which must be the same on every run): the predictor,
    /// or why there is none, and a problem to show.
    public static func loadNow(userFile: URL?, cache: URL? = nil) -> (Predictor, String?) {
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
            let (h, historyTo, historyProblem) = loadHistory(beside: userFile)
            return (Predictor(words: p, history: h, historyFile: historyTo?.path), problem ?? historyProblem ?? WordLists.languageModelNotice)
        } catch {
            return (.failed("no word suggestions (\(error)); typing still works"), nil)
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

    /// Writes a file the reducer asked for (`what`: "Learned words", "Sentences"); a failure is kept to be
    /// written again by `saveIfNeeded` and returned, to show.
    @discardableResult
    public func write(_ w: Predictor.Write, what: String) -> String? {
        if let failure = DurableFile.write(Array(w.text.utf8), to: w.path) {
            let message = "\(what) not saved: \(PredictionError.cannotWrite(path: w.path, reason: failure.reason))"
            lock.withLock { unwritten[w.path] = (w.text, what); problem = message }
            return message
        }
        lock.withLock {
            unwritten[w.path] = nil
            if problem?.hasPrefix(what + " not saved") == true { problem = nil }
        }
        return nil
    }

    /// Writes again what failed to be written; returns what went wrong, once.
    public func saveIfNeeded() -> String? {
        let pending = lock.withLock { unwritten }
        for (path, w) in pending.sorted(by: { $0.key < $1.key }) { write(Predictor.Write(path: path, text: w.text), what: w.what) }
        return lock.withLock { defer { problem = nil }; return problem }
    }
}
