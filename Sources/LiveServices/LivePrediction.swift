import Foundation
import Localization
import Prediction
import Shell
import SystemIO
import UserFiles

/// Loads the word predictor in the background and writes what the reducer learned.
///
/// Loading takes about half a second, so it runs on a background thread and the bar says "loading words…"
/// meanwhile; the loaded predictor reaches the loop as an event carrying it and the language it is for
/// (`.predictorLoaded`). Which language is in use, and the predictors of languages used before, are the
/// state's (`ShellState.predictorLanguage`, `parkedPredictors`): this only loads what it is asked. From then
/// on the state holds it (`ShellState.predictor`): learning is the reducer's, which asks for the learned
/// words' and sentences' files to be written (`.saveLearnedWords`, `.saveSentences`, with their text), at
/// once, so a crash loses none. A write that fails is tried again every 10 s (`saveIfNeeded`), its problem
/// shown once. A user file that could not be read whole is kept aside, never overwritten.
public final class LivePrediction: @unchecked Sendable {
    private let lock = NSLock()
    /// The predictors loaded and not yet taken by the loop, in the order they ended: each with the language it
    /// was asked for (nil: words that do not follow the language) and a problem to show.
    private var loaded: [Loaded] = []
    /// What a failed write left to write again, by path.
    private var unwritten: [String: (text: String, what: Predictor.Written)] = [:]
    /// What went wrong writing, for the loop to show once.
    private var problem: (message: UIMessage, what: Predictor.Written)?

    public init() {}

    /// A predictor loaded in the background: the language it was asked for, and a problem to show.
    public struct Loaded: Sendable {
        public var predictor: Predictor
        public var language: String?
        public var problem: UIMessage?
    }

    /// The sentence history file beside a user word file: `sentences.txt`, and a language's own beside its own
    /// words (`user-words-es.txt`: `sentences-es.txt`), so one language's sentences are never offered in another.
    public static func historyFile(beside userFile: URL) -> URL {
        let name = userFile.deletingPathExtension().lastPathComponent
        let suffix = name.hasPrefix("user-words-") ? String(name.dropFirst("user-words".count)) : ""
        return userFile.deletingLastPathComponent().appendingPathComponent("sentences\(suffix).txt")
    }

    /// Starts loading the shipped word lists and the user's words (none: nothing is saved), through the
    /// compiled lists in `cache` when given (`WordPredictor.load(cache:)`): words that do not follow the
    /// language.
    public func load(userFile: URL?, cache: URL? = nil) {
        start {
            let (predictor, problem) = Self.loadNow(userFile: userFile, cache: cache)
            return Loaded(predictor: predictor, language: nil, problem: problem)
        }
    }

    /// Starts loading the words of `language` (a code as `Catalog.language` gives it, `en` for English) for the
    /// user whose files `paths` names (`loadNow(language:paths:)`); the event says it is for `language`.
    public func load(language: String, paths: UserPaths) {
        start { Self.loadNow(language: language, paths: paths) }
    }

    private func start(_ work: @escaping @Sendable () -> Loaded) {
        let t = Thread { [self] in
            let result = work()
            lock.withLock { loaded.append(result) }
        }
        t.name = "handsfree.prediction.load"
        t.start()
    }

    /// The predictors loaded in the background since last asked, in the order they ended.
    public func takeLoaded() -> [Loaded] {
        lock.withLock { defer { loaded = [] }; return loaded }
    }

    /// Loads the words of `language` on the calling thread: the pack's lists through the user's compiled cache of
    /// them (`LanguagePack.wordCache`), the user's own words of that language (`LanguagePack.userWords`) and the
    /// sentences beside them. A language without word data suggests from English's lists, says so, and keeps
    /// what the user learns in its own files (`user-words-LL.txt`), so it never reaches another language.
    public static func loadNow(language: String, paths: UserPaths) -> Loaded {
        let (pack, missing) = Self.pack(for: language)
        let code = pack?.code ?? LanguageChoice.normalise(language) ?? language
        let english = pack == nil && LanguageChoice.isEnglish(code)
        let userFile = pack?.userWords(in: paths)
            ?? (english ? paths.userWords : paths.data.appendingPathComponent("user-words-\(code).txt"))
        let (predictor, problem) = loadNow(userFile: userFile, cache: pack?.wordCache(in: paths) ?? paths.wordCache, pack: pack)
        return Loaded(predictor: predictor, language: language, problem: missing ?? problem)
    }

    /// The pack with word data for `language`, nil for English (or, with a problem to say, for a language that
    /// has no word data: English's lists stand in).
    static func pack(for language: String) -> (LanguagePack?, UIMessage?) {
        guard !LanguageChoice.isEnglish(LanguageChoice.normalise(language) ?? language) else { return (nil, nil) }
        do {
            let pack = try LanguagePacks.find(language)
            guard pack.words != nil else { return (nil, UIMessage("No word data in the {pack} pack: suggestions are in English", ["pack": pack.name])) }
            return (pack, nil)
        } catch {
            return (nil, UIMessage("No word data for {language} ({reason}): suggestions are in English", ["language": language],
                                  reasons: ["reason": error.reason]))
        }
    }

    /// Loads on the calling thread (the headless demo, which must be the same on every run): the predictor,
    /// or why there is none, and a problem to show. `pack`: a language's lists (nil: English's).
    public static func loadNow(userFile: URL?, cache: URL? = nil, pack: LanguagePack? = nil) -> (Predictor, UIMessage?) {
        var problem: UIMessage?
        var readFrom = userFile
        var saveTo = userFile
        if let userFile, case .failed(let e) = AtomicFile.read(userFile.path) {
            // Not a line could be read: keep it aside and start afresh, or, if it cannot be moved, never save over it.
            readFrom = nil
            if let aside = AtomicFile.moveAside(userFile.path) {
                problem = UIMessage("Learned words file could not be read ({reason}); kept as {file}.", ["reason": "\(e)", "file": aside])
            } else {
                saveTo = nil
                problem = UIMessage("Learned words file {file} could not be read ({reason}); new words are not saved over it.",
                                    ["file": userFile.path, "reason": "\(e)"])
            }
        }
        do {
            var p = try pack.map { pack throws(PredictionError) in try pack.load(userFile: readFrom, cache: cache, prebuilt: pack.words?.compiled).0 }
                ?? WordLists.load(userFile: readFrom, cache: cache, prebuilt: WordLists.compiled)
            p.userFile = saveTo
            // English's conversational model for initials expansion; without it (or with a file that cannot be read)
            // expansion uses the n-grams alone, as `handsfree expand --phrase-model` shows. Its bad lines are skipped,
            // as the shipped lists' are (`handsfree expand` prints them).
            // Compiled beside the word lists' cache (`conversation-en.bin`): read in one go at the next start.
            if pack == nil, FileManager.default.fileExists(atPath: WordLists.phraseModel.path) {
                let compiled = cache?.deletingLastPathComponent().appendingPathComponent("conversation-en.bin")
                if let (m, problems) = try? PhraseModel.load(WordLists.phraseModel, for: p, cache: compiled) {
                    p.phraseModel = m
                    for case .damagedPhraseCache(let path, let reason) in problems where problem == nil {
                        problem = UIMessage("Conversational model cache {file} was damaged ({reason}); its text was read instead.",
                                            ["file": path], reasons: ["reason": reason])
                    }
                }
            }
            // Said once, so a cache that keeps getting damaged (a failing disk) is noticed; the lists loaded anyway.
            for case .damagedCache(let path, let reason) in p.warnings where problem == nil {
                problem = UIMessage("Word list cache {file} was damaged ({reason}); the word lists were read instead.", ["file": path],
                                    reasons: ["reason": reason])
            }
            if let userFile = readFrom, let aside = UserWordsFile.keepAside(p, userFile) {
                problem = aside.message
                if aside.moved {
                    // The readable part goes back under the usual name, so the next start has it too.
                    do { try p.save() } catch {
                        problem = .together([aside.message, UIMessage("Not saved: {reason}", reasons: ["reason": error.message])], separator: " ")
                    }
                } else {
                    p.userFile = nil
                }
            }
            let (h, historyTo, historyProblem) = loadHistory(beside: userFile)
            return (Predictor(words: p, history: h, historyFile: historyTo?.path), problem ?? historyProblem ?? (pack == nil ? WordLists.languageModelNotice : nil))
        } catch {
            let reason = (error as? PredictionError)?.message ?? .verbatim("\(error)")
            return (.failed(UIMessage("no word suggestions ({reason}); typing still works", reasons: ["reason": reason])), nil)
        }
    }

    /// The sentence history beside `userFile`, where to save it, and what to tell the user: a file with bad lines
    /// or too large to read whole is kept aside (`NAME.corrupt-N`) and its readable part used, so nothing is lost;
    /// one that cannot be read or moved is not saved over.
    static func loadHistory(beside userFile: URL?) -> (SentenceHistory, URL?, UIMessage?) {
        guard let userFile else { return (SentenceHistory(), nil, nil) }
        let url = historyFile(beside: userFile)
        do {
            let loaded = try SentenceHistory.load(url)
            guard !loaded.warnings.isEmpty else { return (loaded.history, url, nil) }
            let first = loaded.warnings.first?.message ?? .verbatim("")
            guard let aside = AtomicFile.moveAside(url.path) else {
                return (loaded.history, nil, UIMessage("Sentence history {problem}; new sentences are not saved over it.", reasons: ["problem": first]))
            }
            var message = UIMessage("Sentence history kept as {file} ({problem}); the rest is used.", ["file": aside], reasons: ["problem": first])
            do { try loaded.history.save(to: url) } catch {
                message = .together([message, UIMessage("Not saved: {reason}", reasons: ["reason": error.message])], separator: " ")
            }
            return (loaded.history, url, message)
        } catch {
            return (SentenceHistory(), nil, UIMessage("Sentence history {problem}; new sentences are not saved over it.", reasons: ["problem": error.message]))
        }
    }

    /// Writes a file the reducer asked for (`what`: the learned words or the sentences); a failure is kept to be
    /// written again by `saveIfNeeded` and returned, to show.
    @discardableResult
    public func write(_ w: Predictor.Write, what: Predictor.Written) -> UIMessage? {
        if let failure = DurableFile.write(Array(w.text.utf8), to: w.path) {
            let reason = PredictionError.cannotWrite(path: w.path, reason: failure.reason).message
            let message = switch what {
            case .learnedWords: UIMessage("Learned words not saved: {reason}", reasons: ["reason": reason])
            case .sentences: UIMessage("Sentences not saved: {reason}", reasons: ["reason": reason])
            }
            lock.withLock { unwritten[w.path] = (w.text, what); problem = (message, what) }
            return message
        }
        lock.withLock {
            unwritten[w.path] = nil
            if problem?.what == what { problem = nil }
        }
        return nil
    }

    /// Writes again what failed to be written; returns what went wrong, once.
    public func saveIfNeeded() -> UIMessage? {
        let pending = lock.withLock { unwritten }
        for (path, w) in pending.sorted(by: { $0.key < $1.key }) { write(Predictor.Write(path: path, text: w.text), what: w.what) }
        return lock.withLock { defer { problem = nil }; return problem?.message }
    }
}
