import Localization
import Prediction
import Synchronization

/// The word predictor the screens consult, as a value in the state (`ShellState.predictor`): the word model
/// and the user's sentences as they stand, and whether they are loading, failed or ready.
///
/// Loading happens at the edge, which hands the loaded predictor in as an event (`.predictorLoaded`); learning
/// happens here, in the reducer (`ShellState.learn`), which changes this value and returns the files to write
/// as effects. So a replay of the same events gives the same suggestions, and drawing reads nothing that
/// changes behind the state's back.
///
/// Learning a word costs no copy of the word lists: `WordPredictor`'s shipped tables are arrays shared by
/// every copy, and the user's learned words, a small part of it, are changed in place while the state holds
/// the one reference (the state keeps the predictor behind `@Shared`).
public struct Predictor: Sendable {
    /// Which of the user's prediction files a write is: the learned words or the sentences.
    public enum Written: Sendable, Equatable { case learnedWords, sentences }

    /// How the word lists stand.
    public enum Status: Sendable, Equatable {
        /// Being read in the background: the bar says "loading words…".
        case loading
        /// Could not be read, and why: typing still works, without suggestions.
        case failed(UIMessage)
        /// Loaded (or fixed answers standing in for them).
        case ready
    }

    /// Answers that stand in for the word model (tests, a screen's golden picture): functions of what is
    /// asked alone, which hold nothing that changes.
    public struct FixedAnswers: Sendable {
        public var suggest: @Sendable (_ text: String, _ limit: Int) -> [String]
        public var phrase: @Sendable (_ text: String) -> String?
        public var expand: @Sendable (_ initials: String, _ context: String, _ partner: String, _ limit: Int) -> [String]
        public var frequent: @Sendable (_ limit: Int) -> [String]
        public var next: @Sendable (_ text: String) -> [String]

        public init(suggest: @escaping @Sendable (String, Int) -> [String] = { _, _ in [] },
                    phrase: @escaping @Sendable (String) -> String? = { _ in nil },
                    expand: @escaping @Sendable (String, String, String, Int) -> [String] = { _, _, _, _ in [] },
                    frequent: @escaping @Sendable (Int) -> [String] = { _ in [] },
                    next: @escaping @Sendable (String) -> [String] = { _ in [] }) {
            self.suggest = suggest; self.phrase = phrase; self.expand = expand; self.frequent = frequent
            self.next = next
        }
    }

    public private(set) var status: Status
    /// The word model (nil while loading, after a failure, or with fixed answers).
    public private(set) var words: WordPredictor?
    /// The sentences the user committed, consulted first.
    public private(set) var history: SentenceHistory
    /// Where the sentence history is written (nil: nowhere); the learned words go to `words.userFile`.
    public private(set) var historyFile: String?
    /// Offer phrases: the next few words as one suggestion (`continuePhrase`).
    public let continuation: Bool
    /// Phrase settings (thresholds of continuation, the beam of expansion).
    public let phraseSettings: WordPredictor.PhraseSettings
    private let fixed: FixedAnswers?
    /// Answers already worked out for this very predictor: the Terminal screen asks for the same line when a
    /// key is laid out, when its echo is, and when it is drawn. Transparent: a predictor that learns starts a
    /// new one.
    private var memo = Memo()

    /// No predictor yet: the word lists are loading.
    public static let loading = Predictor(status: .loading)

    /// No word suggestions, and why.
    public static func failed(_ reason: UIMessage) -> Predictor { Predictor(status: .failed(reason)) }

    /// Nothing to suggest (tests and screens that need no words): ready, with no answers.
    public static let none = Predictor(fixed: FixedAnswers())

    private init(status: Status) {
        self.status = status; history = SentenceHistory(); continuation = true
        phraseSettings = WordPredictor.PhraseSettings(); fixed = nil
    }

    /// A loaded word model with the user's sentences (`historyFile`: where learned sentences are written).
    public init(words: WordPredictor, history: SentenceHistory = SentenceHistory(), historyFile: String? = nil,
                continuation: Bool = true, settings: WordPredictor.PhraseSettings = WordPredictor.PhraseSettings()) {
        status = .ready; self.words = words; self.history = history; self.historyFile = historyFile
        self.continuation = continuation; phraseSettings = settings; fixed = nil
    }

    /// Fixed answers standing in for the word model.
    public init(fixed: FixedAnswers) {
        status = .ready; history = SentenceHistory(); continuation = true
        phraseSettings = WordPredictor.PhraseSettings(); self.fixed = fixed
    }

    /// Fixed word suggestions standing in for the word model.
    public init(answers: @escaping @Sendable (_ text: String, _ limit: Int) -> [String]) {
        self.init(fixed: FixedAnswers(suggest: answers))
    }

    // MARK: Asking

    /// Why there are no suggestions, when there is a reason to show ("loading words…", a missing word list).
    public var statusLine: UIMessage? {
        switch status {
        case .loading: return UIMessage("loading words…")
        case .failed(let reason): return reason
        case .ready: return nil
        }
    }

    /// True while the word lists are still loading (the demo waits for them before it types).
    public var isLoading: Bool { status == .loading }

    /// Word suggestions for the text typed so far, best first.
    public func suggest(_ text: String, limit: Int) -> [String] {
        if let fixed { return fixed.suggest(text, limit) }
        guard let words else { return [] }
        let key = Memo.Query(text: text, limit: limit)
        if let found = memo.answers.withLock({ $0.words[key] }) { return found }
        let out = history.isEmpty ? words.suggest(text, limit: limit)
            : words.suggest(text, limit: limit, history: history, settings: phraseSettings)
        memo.answers.withLock { m in
            // A few lines' worth: the loop asks for the line showing, and a text field for its text.
            if m.words.count >= 16 { m.words.removeAll(keepingCapacity: true) }
            m.words[key] = out
        }
        return out
    }

    /// Whole phrases for initials typed in initials mode, best first: the initials, the text before them,
    /// what the conversation partner said last, how many.
    public func expand(_ initials: String, context: String, partner: String, limit: Int) -> [String] {
        if let fixed { return fixed.expand(initials, context, partner, limit) }
        guard let words else { return [] }
        let key = "\(limit)\u{1}\(initials)\u{1}\(context)\u{1}\(partner)"
        if let found = memo.answers.withLock({ $0.expansions[key] }) { return found }
        let out = words.expand(initials, context: context, partner: partner, history: history, limit: limit,
                               settings: phraseSettings)
        memo.answers.withLock { m in
            if m.expansions.count >= 32 { m.expansions.removeAll(keepingCapacity: true) }
            m.expansions[key] = out
        }
        return out
    }

    /// The next few words after the text typed so far as one suggestion, when the user's sentences or the word
    /// model are confident; nil otherwise.
    public func suggestPhrase(_ text: String) -> String? {
        if let fixed { return fixed.phrase(text) }
        guard continuation, let words else { return nil }
        if let found = memo.answers.withLock({ $0.phrases[text] }) { return found }
        let out = words.continuePhrase(text, history: history, settings: phraseSettings)
        memo.answers.withLock { m in
            if m.phrases.count >= 32 { m.phrases.removeAll(keepingCapacity: true) }
            m.phrases[text] = .some(out)
        }
        return out
    }

    /// The words the model is confident come after the text, which ends after a finished word (`nextWords`):
    /// the word on the key shows them after its word, taken word by word. None with continuation off.
    public func nextWords(after text: String) -> [String] {
        if let fixed { return fixed.next(text) }
        guard continuation, let words else { return [] }
        if let found = memo.answers.withLock({ $0.next[text] }) { return found }
        let out = words.nextWords(after: text, settings: phraseSettings)
        memo.answers.withLock { m in
            if m.next.count >= 32 { m.next.removeAll(keepingCapacity: true) }
            m.next[text] = out
        }
        return out
    }

    /// The sentences the user writes most and lately, best first (the phrase board's frequent row).
    public func frequentSentences(_ limit: Int) -> [String] {
        if let fixed { return fixed.frequent(limit) }
        let all = memo.answers.withLock { m in
            if m.frequent == nil { m.frequent = history.frequent(limit: 64).map(\.text) }
            return m.frequent ?? []
        }
        return Array(all.prefix(limit))
    }

    /// The user's added and capitalised words (names, places), for the speech recogniser's hotwords.
    public var userVocabulary: [String] { words?.userVocabulary() ?? [] }

    /// Whether rude words are offered (Settings › "Suggest rude words").
    public var offersHeldWords: Bool { words?.offerHeldWords ?? false }

    // MARK: Learning (a new snapshot)

    /// What a learning step asks to be written: the file and its whole new text.
    public struct Write: Sendable, Equatable {
        public var path: String
        public var text: String
        public init(path: String, text: String) { self.path = path; self.text = text }
    }

    /// Learns a word the user finished after the text before it; the learned words' file to write, if any.
    mutating func learn(word: String, after before: String) -> Write? {
        guard words != nil else { return nil }
        forget()
        words?.learn(word: word, after: before)
        return wordsFile()
    }

    /// Adds a word to be suggested; false while the words are still loading (nothing done).
    mutating func addWord(_ word: String) -> (done: Bool, write: Write?) {
        guard status == .ready else { return (false, nil) }
        forget()
        words?.addWord(word)
        return (true, wordsFile())
    }

    /// Removes a word from the suggestions, and from the sentences kept; false while loading.
    mutating func removeWord(_ word: String) -> (done: Bool, words: Write?, sentences: Write?) {
        guard status == .ready else { return (false, nil, nil) }
        forget()
        words?.removeWord(word)
        let before = history.count
        history.forget(word: word)
        return (true, wordsFile(), history.count != before ? historyWrite() : nil)
    }

    /// Keeps the sentences of committed text; the history's file to write, if any.
    mutating func learnSentences(_ text: String) -> Write? {
        forget()
        history.learn(text)
        return historyWrite()
    }

    /// Forgets one sentence of the history; the history's file to write, if it changed.
    mutating func forgetSentence(_ text: String) -> Write? {
        guard history.forget(sentence: text) else { return nil }
        forget()
        return historyWrite()
    }

    /// Offers rude words or holds them back (the setting), also when it is set before the words have loaded.
    mutating func offerHeldWords(_ on: Bool) {
        guard words != nil, words?.offerHeldWords != on else { return }
        forget()
        words?.offerHeldWords = on
    }

    /// Uses `history` from now on instead of the one loaded or learned (the typing bench: the history before
    /// each phrase, never the phrase itself).
    public mutating func replaceHistory(_ h: SentenceHistory) {
        forget()
        history = h
    }

    private mutating func forget() {
        // Answers already given stay with the snapshots that gave them.
        if isKnownUniquelyReferenced(&memo) { memo.answers.withLock { $0 = Memo.Answers() } } else { memo = Memo() }
    }

    private func wordsFile() -> Write? {
        guard let words, let url = words.userFile else { return nil }
        return Write(path: url.path, text: words.learnedWordsText)
    }

    private func historyWrite() -> Write? {
        historyFile.map { Write(path: $0, text: history.serialized()) }
    }

    /// Answers already worked out, behind a lock since a snapshot is `Sendable` (the loop alone asks).
    final class Memo: Sendable {
        struct Query: Hashable { var text: String, limit: Int }
        struct Answers {
            var words: [Query: [String]] = [:]
            var phrases: [String: String?] = [:]
            var next: [String: [String]] = [:]
            var expansions: [String: [String]] = [:]
            var frequent: [String]?
        }
        let answers = Mutex(Answers())
    }
}
