import Foundation
import Localization

/// What the user taught the predictor: word and word-pair counts, added and removed words.
///
/// Saved as a UTF-8 text file, one entry per line, fields separated by tabs:
/// `word<TAB>Form<TAB>count`, `pair<TAB>w1<TAB>w2<TAB>count` (w1 may be `<s>`),
/// `triple<TAB>w1<TAB>w2<TAB>w3<TAB>count`, `added<TAB>Form`, `removed<TAB>word`. Lines starting
/// with `#` are comments.
struct UserWords: Sendable, Equatable {
    /// Lowercase word → times committed.
    var counts: [String: Int] = [:]
    /// Lowercase word → the form to show (e.g. "Anne", "McDonald") when it is not all lowercase.
    var forms: [String: String] = [:]
    /// Lowercase previous word (or `<s>`) → lowercase next word → times seen together.
    var pairs: [String: [String: Int]] = [:]
    /// Total of `pairs[w1]` per w1.
    var pairTotals: [String: Int] = [:]
    /// The `topSuccessors` most frequent next words of each previous word, best first.
    ///
    /// Ranking offers these instead of walking all of `pairs[w1]`, which for "the" grows into
    /// thousands of words over years of use and would make every suggestion slower.
    private(set) var pairTop: [String: [String]] = [:]
    /// How many next words per previous word `pairTop` keeps.
    static let topSuccessors = 48
    /// "w1 w2" (lowercase, w1 may be `<s>`) → next word → times seen; the user's own phrases.
    var triples: [String: [String: Int]] = [:]
    /// Total of `triples[context]` per context.
    var tripleTotals: [String: Int] = [:]
    /// Words the user added by hand (kept even with a zero count).
    var added: Set<String> = []
    /// Words the user removed: never suggested, not learned again until added.
    var removed: Set<String> = []
    /// Sum of `counts`.
    var total = 0
    /// Lowercase UTF-8 keys of `counts`, sorted, for prefix lookup.
    private(set) var sortedKeys: [[UInt8]] = []
    /// Sorted keys of the words whose form starts with a capital (names, titles): what a capital typed in
    /// mid-sentence looks up, however many words the user has taught.
    private(set) var nameKeys: [[UInt8]] = []

    /// Nothing taught, added or removed: a ranking then depends on the lists alone.
    var isEmpty: Bool {
        total == 0 && counts.isEmpty && forms.isEmpty && pairs.isEmpty && triples.isEmpty && added.isEmpty && removed.isEmpty
    }

    mutating func bump(_ word: String, form: String?, by n: Int = 1) {
        if counts[word] == nil { insertKey(word) }
        let old = counts[word] ?? 0, new = Counts.adding(old, n)
        counts[word] = new
        total = Counts.sum(total, new - old)
        if let form, form != word {
            forms[word] = form
            // nameKeys mirrors the forms that start with a capital.
            let key = Array(word.utf8)
            if UserWords.isNameForm(form) {
                UserWords.insert(key, into: &nameKeys)
            } else {
                UserWords.remove(key, from: &nameKeys)
            }
        }
    }

    mutating func bumpPair(_ w1: String, _ w2: String, by n: Int = 1) {
        let old = pairs[w1]?[w2] ?? 0, new = Counts.adding(old, n)
        pairs[w1, default: [:]][w2] = new
        pairTotals[w1] = Counts.sum(pairTotals[w1] ?? 0, new - old)
        raiseInTop(w1, w2)
    }

    /// Moves `w2` to its place among `w1`'s best successors after its count grew.
    ///
    /// Counts only grow here, so a word outside the list can only enter it, and the list stays the top
    /// `topSuccessors` (ties in arrival order).
    private mutating func raiseInTop(_ w1: String, _ w2: String) {
        guard let succ = pairs[w1] else { return }
        var top = pairTop[w1] ?? []
        if let i = top.firstIndex(of: w2) { top.remove(at: i) }
        let c = succ[w2] ?? 0
        var pos = top.count
        while pos > 0, (succ[top[pos - 1]] ?? 0) < c { pos -= 1 }
        guard pos < UserWords.topSuccessors else { return }
        top.insert(w2, at: pos)
        if top.count > UserWords.topSuccessors { top.removeLast() }
        pairTop[w1] = top
    }

    /// Rebuilds `w1`'s best successors from its counts (after words were forgotten).
    private mutating func rebuildTop(_ w1: String) {
        guard let succ = pairs[w1], !succ.isEmpty else { pairTop[w1] = nil; return }
        pairTop[w1] = succ.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(UserWords.topSuccessors).map(\.key)
    }

    mutating func bumpTriple(_ w1: String, _ w2: String, _ w3: String, by n: Int = 1) {
        let ctx = UserWords.tripleKey(w1, w2)
        let old = triples[ctx]?[w3] ?? 0, new = Counts.adding(old, n)
        triples[ctx, default: [:]][w3] = new
        tripleTotals[ctx] = Counts.sum(tripleTotals[ctx] ?? 0, new - old)
    }

    /// The key of a two-word context in `triples`.
    static func tripleKey(_ w1: String, _ w2: String) -> String { w1 + " " + w2 }

    mutating func forget(_ word: String) {
        if let c = counts.removeValue(forKey: word) {
            total = Counts.sum(total, -c)
            UserWords.remove(Array(word.utf8), from: &sortedKeys)
        }
        if forms.removeValue(forKey: word) != nil { UserWords.remove(Array(word.utf8), from: &nameKeys) }
        added.remove(word)
        if let succ = pairs.removeValue(forKey: word) { _ = succ }
        pairTotals[word] = nil
        pairTop[word] = nil
        for (w1, var succ) in pairs {
            if let c = succ.removeValue(forKey: word) {
                pairs[w1] = succ
                pairTotals[w1] = Counts.sum(pairTotals[w1] ?? 0, -c)
                rebuildTop(w1)
            }
        }
        for (ctx, var succ) in triples {
            if ctx.split(separator: " ").contains(where: { $0 == word }) {
                triples[ctx] = nil; tripleTotals[ctx] = nil
            } else if let c = succ.removeValue(forKey: word) {
                triples[ctx] = succ
                tripleTotals[ctx] = Counts.sum(tripleTotals[ctx] ?? 0, -c)
            }
        }
    }

    private func position(of key: [UInt8]) -> Int? { UserWords.position(of: key, in: sortedKeys) }

    /// Where `key` is or would go in the sorted `keys`.
    private static func position(of key: [UInt8], in keys: [[UInt8]]) -> Int? {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid].lexicographicallyPrecedes(key) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private static func insert(_ key: [UInt8], into keys: inout [[UInt8]]) {
        let i = UserWords.position(of: key, in: keys) ?? keys.count
        if i < keys.count, keys[i] == key { return }
        keys.insert(key, at: i)
    }

    private static func remove(_ key: [UInt8], from keys: inout [[UInt8]]) {
        if let i = UserWords.position(of: key, in: keys), i < keys.count, keys[i] == key { keys.remove(at: i) }
    }

    private mutating func insertKey(_ word: String) {
        UserWords.insert(Array(word.utf8), into: &sortedKeys)
    }

    /// True for a form that marks a name or title: it starts with a capital ("Anne", "McDonald").
    static func isNameForm(_ form: String) -> Bool { form.first?.isUppercase == true }

    /// True if the user wrote `word` (lowercase) as a name. Only `bump` sets a form, and with a count, so a
    /// name is always a word the user has taught.
    func isName(_ word: String) -> Bool { forms[word].map(UserWords.isNameForm) ?? false }

    /// The names (words with a capitalised form) starting with `prefix`, at most `limit`.
    func names(prefix: [UInt8], limit: Int) -> [String] {
        var i = UserWords.position(of: prefix, in: nameKeys) ?? 0
        var out: [String] = []
        while i < nameKeys.count, nameKeys[i].starts(with: prefix), out.count < limit {
            out.append(String(decoding: nameKeys[i], as: UTF8.self))
            i += 1
        }
        return out
    }

    /// Indices into `sortedKeys` of words starting with `prefix`.
    func range(prefix: [UInt8]) -> Range<Int> {
        if prefix.isEmpty { return 0..<sortedKeys.count }
        let lo = position(of: prefix) ?? 0
        var hi = lo
        while hi < sortedKeys.count && sortedKeys[hi].starts(with: prefix) { hi += 1 }
        return lo..<hi
    }

    static func == (a: UserWords, b: UserWords) -> Bool {
        a.counts == b.counts && a.forms == b.forms && a.pairs == b.pairs && a.triples == b.triples && a.added == b.added && a.removed == b.removed
    }

    // MARK: File

    /// The file's text.
    func serialized() -> String {
        var out = "# HandsFree Shell learned words (word/pair/added/removed, tab-separated)\n"
        for w in counts.keys.sorted() {
            out += "word\t\(forms[w] ?? w)\t\(counts[w] ?? 0)\n"
        }
        for w1 in pairs.keys.sorted() {
            guard let succ = pairs[w1] else { continue }
            for w2 in succ.keys.sorted() { out += "pair\t\(w1)\t\(w2)\t\(succ[w2] ?? 0)\n" }
        }
        for ctx in triples.keys.sorted() {
            guard let succ = triples[ctx] else { continue }
            let (w1, w2) = (ctx.split(separator: " ").first ?? "", ctx.split(separator: " ").last ?? "")
            for w3 in succ.keys.sorted() { out += "triple\t\(w1)\t\(w2)\t\(w3)\t\(succ[w3] ?? 0)\n" }
        }
        for w in added.sorted() { out += "added\t\(forms[w] ?? w)\n" }
        for w in removed.sorted() { out += "removed\t\(w)\n" }
        return out
    }

    /// Parses a user file; bad lines (a count out of range among them) are reported in `warnings` with their
    /// line and skipped, and the caller keeps the file aside before saving over it (`UserWordsFile.keepAside`).
    static func parse(_ bytes: [UInt8], path: String, warnings: inout [PredictionError]) -> UserWords {
        var u = UserWords()
        var bad: [PredictionError] = []
        func validWord(_ s: String) -> Bool {
            !s.isEmpty && s.count <= 64 && s.allSatisfy { Tokens.isWordCharacter($0) }
        }
        LineReader.forEachLine(bytes, tabsOnly: true) { line, f in
            func fail(_ m: UIMessage) { bad.append(.badLine(path: path, line: line, message: m)) }
            let fields = f.map { LineReader.string($0) }
            guard !fields.contains(where: { $0 == nil }) else { return fail(UIMessage("not valid UTF-8")) }
            let s = fields.compactMap { $0 }
            /// The count in the last field; nil (and the line reported) when it is not one.
            func count() -> Int? {
                guard let last = s.last, case .value(let n) = Counts.parse(last) else {
                    fail(Counts.problem(s.last ?? "", what: Counts.Field.count) ?? UIMessage("no count"))
                    return nil
                }
                return n
            }
            switch s[0] {
            case "word":
                guard s.count == 3 else { return fail(UIMessage("expected 'word<TAB>form<TAB>count'")) }
                guard validWord(s[1]) else { return fail(UIMessage("'{word}' is not a word", ["word": Shown.cut(s[1])])) }
                guard let n = count() else { return }
                u.bump(s[1].lowercased(), form: s[1], by: n)
            case "pair":
                guard s.count == 4 else { return fail(UIMessage("expected 'pair<TAB>w1<TAB>w2<TAB>count'")) }
                guard s[1] == "<s>" || validWord(s[1]), validWord(s[2]) else { return fail(UIMessage("'{words}' is not a word pair", ["words": Shown.cut(s[1] + " " + s[2])])) }
                guard let n = count() else { return }
                u.bumpPair(s[1].lowercased(), s[2].lowercased(), by: n)
            case "triple":
                guard s.count == 5 else { return fail(UIMessage("expected 'triple<TAB>w1<TAB>w2<TAB>w3<TAB>count'")) }
                guard s[1] == "<s>" || validWord(s[1]), validWord(s[2]), validWord(s[3]) else {
                    return fail(UIMessage("'{words}' is not a word triple", ["words": Shown.cut(s[1] + " " + s[2] + " " + s[3])]))
                }
                guard let n = count() else { return }
                u.bumpTriple(s[1].lowercased(), s[2].lowercased(), s[3].lowercased(), by: n)
            case "added":
                guard s.count == 2, validWord(s[1]) else { return fail(UIMessage("expected 'added<TAB>word'")) }
                let w = s[1].lowercased()
                if u.counts[w] == nil { u.bump(w, form: s[1], by: 0) }
                u.added.insert(w)
            case "removed":
                guard s.count == 2, validWord(s[1]) else { return fail(UIMessage("expected 'removed<TAB>word'")) }
                u.removed.insert(s[1].lowercased())
            default:
                fail(UIMessage("unknown entry '{entry}' (expected word, pair, triple, added or removed)", ["entry": Shown.cut(s[0])]))
            }
        }
        warnings += bad
        return u
    }
}
