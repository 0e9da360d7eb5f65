import Foundation
import Localization
import SystemIO

/// The sentences the user committed, each with how often and how lately it was said: what phrase prediction
/// and initials expansion offer first, since AAC users say the same few hundred sentences again and again.
///
/// A value with no clock: "lately" counts sentences, not seconds (`clock` grows by one per sentence learned),
/// so the same history always ranks the same way. Bounded: at most `capacity` sentences of at most
/// `maxWords` words; past `capacity` the least used and oldest are dropped (`compact`).
///
/// Saved as UTF-8 text beside the learned words (`sentences.txt`), one sentence a line:
/// `COUNT<TAB>LAST<TAB>Text as written`, where LAST is the `clock` of its last use; a line `clock<TAB>N` keeps
/// the clock. Lines starting with `#` are comments.
public struct SentenceHistory: Sendable, Equatable {
    /// One sentence the user said.
    public struct Entry: Sendable, Equatable {
        /// The sentence as last written ("I'd like a cup of tea.").
        public var text: String
        /// Its words, lowercase: what matching compares.
        public var words: [String]
        /// Times said.
        public var count: Int
        /// `clock` when last said.
        public var last: Int
    }

    /// Sentences in the order they were first said (oldest first).
    public private(set) var entries: [Entry] = []
    /// Lowercase words joined by spaces → index in `entries`.
    private var index: [String: Int] = [:]
    /// Sentences learned so far (the recency clock).
    public private(set) var clock = 0
    /// Most sentences kept; past it by a tenth, the lowest ranked are dropped.
    public var capacity = 5000
    /// Sentences said this many sentences ago count half as much as one said just now.
    public var halfLife = 500.0
    /// Longest sentence kept, in words (longer ones are not sentences one says again).
    public static let maxWords = 40
    /// Longest sentence kept, in characters.
    public static let maxCharacters = 400
    /// Largest part of a history file read; a larger file is read from its end (its newest lines).
    public static let maxFileBytes = 8 << 20

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// How much an entry counts now: its uses, halved every `halfLife` sentences since it was last said.
    public func weight(_ e: Entry) -> Double {
        Double(e.count) * pow(0.5, Double(clock - e.last) / halfLife)
    }

    /// The entries best first (most used and most recent), at most `limit`: the phrase board's "frequent" row.
    public func frequent(limit: Int) -> [Entry] {
        Array(entries.sorted { (weight($0), $0.last) > (weight($1), $1.last) }.prefix(limit))
    }

    /// The sentences of committed text: split at `.`, `!`, `?` and new lines, spaces tidied, each of at least
    /// two words and at most `maxWords` (`maxCharacters`).
    public static func sentences(of text: String) -> [String] {
        var out: [String] = []
        var current = ""
        func flush() {
            let s = current.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            current = ""
            let n = Tokens.words(s).count
            if n >= 2, n <= maxWords, s.count <= maxCharacters { out.append(s) }
        }
        var word = ""
        for c in text {
            if c == "\n" || c == "\r" { flush(); word = ""; continue }
            current.append(c)
            if Tokens.isWordCharacter(c) { word.append(c); continue }
            if Tokens.endsSentence(c, after: Substring(word)) { flush() }
            word = ""
        }
        flush()
        return out
    }

    /// The key two forms of a sentence share: its words, lowercase.
    static func key(_ words: [String]) -> String { words.joined(separator: " ") }

    /// What tells two sentences apart: their words, lowercase (`forget(sentence:)` forgets by it).
    public static func key(of sentence: String) -> String { key(Tokens.words(sentence).map { $0.word.lowercased() }) }

    /// Learns the sentences of committed text (see `sentences(of:)`), each one use more and said now.
    public mutating func learn(_ text: String) {
        for s in Self.sentences(of: text) { add(s, count: 1) }
        compactIfNeeded()
    }

    /// Adds `count` uses of one sentence, said now (at the current clock, which then moves on).
    mutating func add(_ sentence: String, count: Int, last: Int? = nil) {
        let words = Tokens.words(sentence).map { $0.word.lowercased() }
        guard !words.isEmpty else { return }
        let k = Self.key(words)
        if last == nil { clock += 1 }
        let at = last ?? clock
        if let i = index[k] {
            entries[i].count += count
            if at >= entries[i].last { entries[i].last = at; entries[i].text = sentence }
        } else {
            index[k] = entries.count
            entries.append(Entry(text: sentence, words: words, count: count, last: at))
        }
    }

    /// Forgets every sentence containing `word` (any case): removing a word from the word list forgets it here too.
    public mutating func forget(word: String) {
        let w = word.lowercased()
        keep { !$0.words.contains(w) }
    }

    /// Forgets the sentence `sentence` (compared by its words, any case); true if it was there.
    @discardableResult
    public mutating func forget(sentence: String) -> Bool {
        let k = Self.key(Tokens.words(sentence).map { $0.word.lowercased() })
        guard index[k] != nil else { return false }
        keep { Self.key($0.words) != k }
        return true
    }

    /// Forgets every sentence (Settings › "Forget my sentences", `handsfree words history clear`).
    public mutating func clear() {
        entries = []; index = [:]
    }

    /// Drops the lowest ranked sentences once there are a tenth more than `capacity`, keeping `capacity`.
    mutating func compactIfNeeded() {
        guard entries.count > capacity + capacity / 10 else { return }
        compact()
    }

    /// Keeps the `capacity` best ranked sentences, in their order.
    public mutating func compact() {
        guard entries.count > capacity else { return }
        let ranked = entries.indices.sorted { (weight(entries[$0]), entries[$0].last) > (weight(entries[$1]), entries[$1].last) }
        let kept = Set(ranked.prefix(capacity))
        var i = -1
        keep { _ in i += 1; return kept.contains(i) }
    }

    private mutating func keep(_ ok: (Entry) -> Bool) {
        entries = entries.filter(ok)
        index = [:]
        for (i, e) in entries.enumerated() { index[Self.key(e.words)] = i }
    }

    // MARK: Matching

    /// The entries whose words start with `words` (lowercase), best first, with how much each counts.
    public func continuing(_ words: [String], limit: Int = 8) -> [(entry: Entry, weight: Double)] {
        var out: [(Entry, Double)] = []
        for e in entries where e.words.count > words.count && e.words.starts(with: words) {
            out.append((e, weight(e)))
        }
        return Array(out.sorted { ($0.1, $0.0.last) > ($1.1, $1.0.last) }.prefix(limit))
    }

    // MARK: File

    /// The file's text: the clock, then the sentences in the order they were first said.
    public func serialized() -> String {
        var out = "# HandsFree Shell: sentences you wrote (times said, when last said, text), tab-separated\n"
        out += "clock\t\(clock)\n"
        for e in entries {
            out += "\(e.count)\t\(e.last)\t\(e.text)\n"
        }
        return out
    }

    /// Parses a history file; bad lines (not UTF-8, wrong fields, a sentence too long) are reported with
    /// their line in `warnings` and skipped. `firstLine`: the line number of the first line of `bytes` (a
    /// file read from its end).
    public static func parse(_ bytes: [UInt8], path: String, firstLine: Int = 1, warnings: inout [PredictionError]) -> SentenceHistory {
        var h = SentenceHistory()
        var bad: [PredictionError] = []
        var badCount = 0
        var maxClock = 0
        LineReader.forEachLine(bytes, tabsOnly: true) { line, f in
            let at = line + firstLine - 1
            func fail(_ m: UIMessage) {
                badCount += 1
                if bad.count < 100 { bad.append(.badLine(path: path, line: at, message: m)) }
            }
            guard let head = LineReader.string(f[0]) else { return fail(UIMessage("not valid UTF-8")) }
            if head == "clock" {
                guard f.count == 2, let s = LineReader.string(f[1]), let n = Int(s), n >= 0 else { return fail(UIMessage("expected 'clock<TAB>number'")) }
                maxClock = max(maxClock, n)
                return
            }
            guard f.count == 3 else { return fail(UIMessage("expected 'count<TAB>last<TAB>sentence'")) }
            guard let c = Int(head), c > 0, let ls = LineReader.string(f[1]), let last = Int(ls), last >= 0 else {
                return fail(UIMessage("expected whole numbers for the count and the last use"))
            }
            guard let text = LineReader.string(f[2]) else { return fail(UIMessage("not valid UTF-8")) }
            let n = Tokens.words(text).count
            guard n >= 1, n <= maxWords, text.count <= maxCharacters else {
                return fail(UIMessage("not a sentence of 1 to {words} words and at most {characters} characters",
                                      ["words": "\(maxWords)", "characters": "\(maxCharacters)"]))
            }
            h.add(text, count: c, last: last)
            maxClock = max(maxClock, last)
        }
        h.clock = maxClock
        if badCount > bad.count {
            bad.append(.badLine(path: path, line: firstLine, message: .plural("{n} more bad line", "{n} more bad lines", badCount - bad.count)))
        }
        warnings += bad
        h.compact()
        return h
    }

    /// What `load` read.
    public struct Loaded: Sendable {
        public var history: SentenceHistory
        /// Bad lines, with file and line.
        public var warnings: [PredictionError]
        /// The file was larger than `maxFileBytes`: only its end was read, so it must be kept aside before the
        /// history is saved over it.
        public var cutShort: Bool
    }

    /// Reads a history file: a missing one is an empty history; one larger than `maxFileBytes` is read from its
    /// last `maxFileBytes` (its newest sentences), in bounded time. An unreadable one throws with its path.
    public static func load(_ url: URL, maxBytes: Int = maxFileBytes) throws(PredictionError) -> Loaded {
        guard FileManager.default.fileExists(atPath: url.path) else { return Loaded(history: SentenceHistory(), warnings: [], cutShort: false) }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw .cannotRead(path: url.path, reason: UIMessage("not readable")) }
        defer { try? handle.close() }
        do {
            let size = try handle.seekToEnd()
            var bytes: [UInt8]
            var firstLine = 1
            let cut = size > UInt64(maxBytes)
            try handle.seek(toOffset: cut ? size - UInt64(maxBytes) : 0)
            bytes = [UInt8](try handle.read(upToCount: maxBytes) ?? Data())
            if cut {
                // Start at a whole line; the line numbers of a file read from its end are not known, so they are
                // counted from the first whole line read (said in the warning's message).
                if let nl = bytes.firstIndex(of: 10) { bytes.removeFirst(nl + 1) } else { bytes = [] }
                firstLine = 1
            }
            var warnings: [PredictionError] = []
            let h = parse(bytes, path: url.path, firstLine: firstLine, warnings: &warnings)
            if cut {
                warnings.insert(.badLine(path: url.path, line: 1, message: UIMessage("larger than {bytes} bytes: only its last {bytes} bytes were read (line numbers count from there)",
                                                                                   ["bytes": "\(maxBytes)"])), at: 0)
            }
            return Loaded(history: h, warnings: warnings, cutShort: cut)
        } catch {
            throw .cannotRead(path: url.path, reason: UIMessage("not readable"))
        }
    }

    /// Writes the history to `url` so that a crash at any moment leaves the old or the new file whole.
    public func save(to url: URL) throws(PredictionError) {
        if let failure = DurableFile.write(Array(serialized().utf8), to: url.path) {
            throw .cannotWrite(path: url.path, reason: failure.reason)
        }
    }
}
