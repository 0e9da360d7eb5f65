import Foundation

/// What the user typed in initials mode: the first letter of each word, with words spelled out in full or in
/// part where the initials are ambiguous ("iwlac tea" → "I would like a cup of tea").
///
/// Letters run together are initials, one word each. After a space (or any other character that is not part of
/// a word), a group of letters is a word spelled out in full or in part ("tea", "te"), or, when that reads
/// worse, more initials ("iwlac tea wm": "with milk"). A group with an apostrophe is always a word ("i'd").
public struct InitialsPattern: Sendable, Equatable {
    /// One group of letters between separators.
    public struct Group: Sendable, Equatable {
        /// Its letters, lowercase UTF-8.
        public var letters: [UInt8]
        /// Each of its letters (characters) alone, UTF-8: an initial may take several bytes ("é", "ж").
        public var characters: [[UInt8]]
        /// Whether it may be read as one word spelled out (any group but the first).
        public var word: Bool
        /// Whether it may be read as initials, one word per letter.
        public var initials: Bool
    }

    public var groups: [Group]

    /// Most words an expansion has; longer input is refused (a phrase is said in one breath).
    public static let maxWords = 32

    /// Why a pattern could not be read.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case tooLong(words: Int)

        public var description: String {
            switch self {
            case .empty: return "no initials: type the first letter of each word, e.g. iwlacot"
            case .tooLong(let n): return "\(n) words is more than the \(InitialsPattern.maxWords) a phrase may have"
            }
        }
    }

    /// The least and most words the pattern can stand for.
    public var words: ClosedRange<Int> {
        var lo = 0, hi = 0
        for g in groups {
            lo += g.word ? 1 : g.characters.count
            hi += g.initials ? g.characters.count : 1
        }
        return lo...max(lo, hi)
    }

    /// Reads `text`; characters other than letters, digits and apostrophes separate groups.
    public static func parse(_ text: String) -> Result<InitialsPattern, Problem> {
        var groups: [Group] = []
        var current: [UInt8] = []
        var characters: [[UInt8]] = []
        var apostrophe = false
        func flush() {
            defer { current = []; characters = []; apostrophe = false }
            guard !current.isEmpty else { return }
            let first = groups.isEmpty
            groups.append(Group(letters: current, characters: characters, word: !first || apostrophe, initials: !apostrophe))
            if characters.count == 1 { groups[groups.count - 1].word = false; groups[groups.count - 1].initials = true }
        }
        for c in text.lowercased() {
            if c == "'" || c == "’" {
                if !current.isEmpty { current.append(UInt8(ascii: "'")); characters.append([UInt8(ascii: "'")]); apostrophe = true }
            } else if Tokens.isWordCharacter(c) {
                let bytes = Array(String(c).utf8)
                current.append(contentsOf: bytes)
                characters.append(bytes)
            } else {
                flush()
            }
            // Input far longer than any phrase is refused without reading the rest.
            if groups.count > maxWords || current.count > 4 * maxWords { return .failure(.tooLong(words: maxWords + 1)) }
        }
        flush()
        let p = InitialsPattern(groups: groups)
        guard !groups.isEmpty else { return .failure(.empty) }
        if p.words.lowerBound > maxWords { return .failure(.tooLong(words: p.words.lowerBound)) }
        return .success(p)
    }
}

/// Phrases: initials expansion and phrase continuation, over the n-gram model and the user's sentences.
extension WordPredictor {
    /// The knobs of phrase prediction (tried with `handsfree bench expand --set`).
    public struct PhraseSettings: Sendable, Equatable {
        /// Hypotheses kept at each step of the beam search.
        public var beam = 24
        /// Words tried for each letter from each hypothesis.
        public var branch = 12
        /// Rank hypotheses by their probability times that of the likeliest word for their next letter (see
        /// `beamSearch`), not by their probability so far alone.
        public var lookahead = true
        /// With `lookahead`: words considered for the first letter, of which the `branch` that lead on best are
        /// tried (after it, the `branch` likeliest: a pool of 24 for every letter tripled the time of `bench predict`'s
        /// expansion, p50 5.6 → 17.5 ms in a debug build, for no more phrases found than at the first letter alone).
        public var pool = 24
        /// Factor on a group read as initials where it could be a word spelled out: the user spelled it out.
        public var initialsPenalty = 0.02
        /// Factor on a lower order's probability where the higher one is missing (stupid backoff), for n-grams
        /// without back-off weights (the shipped text alone) or with `modelBackoff` off.
        public var backoff = 0.4
        /// Score a missing n-gram by the model's own back-off weights (Katz) when it has them (`LMTrie`). Off:
        /// `bench expand` on the conversation text (1,231 phrases, with the sentence end) gave 3.0% among the first
        /// 3, 4.1% with the partner's words, 15.8% with the longest word spelled out (7.5% first), against 2.9%,
        /// 4.2%, 16.7% (13.2% first) by stupid backoff.
        public var modelBackoff = false
        /// Weight of the model's probability that the sentence ends after a phrase's last words (0: not asked), for
        /// initials typed at a sentence's start: "how are you" ends a sentence, "how are your" does not. `bench
        /// expand`, conversation text: 0 → 2.5% / 3.9% / 16.0% (no history / partner's words / a word spelled out),
        /// 1 → 2.9% / 4.2% / 16.7%.
        public var sentenceEndWeight = 1.0
        /// Weight of the conversational model (`WordPredictor.phraseModel`, when loaded) in each word's probability
        /// and the sentence's end: P = (1 - w) P(word model and the user's words) + w P(conversation). First tuned on
        /// the chatterbot dialogues that `bench expand` never types (its history half, 448 phrases of 3-8 words, among
        /// the first 3): 0 → 8.5%, 0.3 → 11.6%, 0.5 → 11.2%, 0.7 → 10.5%, 0.9 → 9.8%; then, with the model made
        /// without the held-out chit-chat conversations, on their tuning part (`scripts/chitchat-phrases.sh tune`,
        /// 1,251 phrases of people talking, no history, with `utteranceWeight` 0.3): 0.3 → 16.9%, 0.5 → 18.8%,
        /// 0.7 → 20.5%, 0.9 → 21.0%. The trigram model kept 0.3: at 0.7 "wtii" offered "Wow that is interesting" and not "What time is
        /// it", and "iwla cup ot" lost "I would like a cup of tea" (`InitialsExpansionTests`): chat's frequent chains
        /// push out the everyday requests a user of this shell needs. With the 4-gram model (seventh round; tuning text,
        /// no history / strict history): 0.2 → 18.0% / 19.3% (kept), 0.3 → 19.0% / 20.0%, 0.4 → 20.2% / 20.7%, 0.5 →
        /// 20.9% / 21.3%. From 0.3 "wtii" offers "Wow that is impressive" first ("What time is it" after it), from 0.4
        /// "iwla cup ot" "I would love a cup of tea" and not "I would like", from 0.5 "What time is it" not at all.
        public var conversationWeight = 0.2
        /// `conversationWeight` for a sentence's first word (after its start; nil: the same). Tuning text, no history /
        /// strict history: 0.3 everywhere 16.9% / 19.0%; 0.7 at the first word 17.2% / 19.3% (kept); 0.7 elsewhere
        /// with 0.3 at the first word 20.1% / 20.4% (0.7 everywhere: 20.5% / 20.7%), which loses "What time is it" to
        /// "Wow that is interesting": where chat and a request part is mid-sentence ("that is interesting" against
        /// "time is it"), so a weight by place cannot take both.
        public var startConversationWeight: Double? = 0.7
        /// `conversationWeight` for a sentence's second word (nil: the same).
        public var secondConversationWeight: Double? = nil
        /// `conversationWeight` when the conversation partner's last message is given (nil: the same): the user is
        /// chatting then, and chat's phrases are likelier than a request's. Tuning text with the partner's message,
        /// no history / strict history: 0.3 → 17.5% / 19.1%, 0.7 → 20.2% / 21.1% (kept), 0.9 → 21.5% / 21.3%.
        public var partnerConversationWeight: Double? = 0.7
        /// Weight of the conversation partner's words in the mix (a word just heard is likely said back).
        public var partnerWeight = 0.1
        /// Phrase continuation from the word model: its confidence in all the words offered must be at least this;
        /// above 1, never. `bench typing` (40 shipped phrases, eye tracker): 0.35 offered none (16.8 wpm, as the
        /// word on the key alone), 0.2 → 16.1, 0.1 → 11.9: a phrase that is wrong past its first word costs the
        /// reading and takes the word's place on the key, so the model's phrases are off. Tried again and dropped:
        /// the confidence counted over the words after the first only, and a phrase shown only where its first
        /// word is the key's own (so a phrase never displaces a different word): 0.8 → 18.2 wpm (with history
        /// 18.0), 0.6 with 2 words at most → 18.0 (17.9), 0.5 → 17.7 (17.9), 0.3 → 17.5 (17.7), against the word on
        /// the key's 18.3 (17.9) in the same sitting (seed 1, debug build). This rule offered almost none at 0.5 or
        /// 0.3 either (18.3 wpm, the word on the key's figures).
        public var continuationConfidence = 1.01
        /// Phrase continuation from the user's sentences: the sentence's share of the matching ones must be at
        /// least this.
        public var historyShare = 0.8
        /// Phrase continuation from the user's sentences: the uses of the sentences that go on so must add up to at
        /// least this (a sentence said once is not yet a habit). `bench typing`'s default history (the other
        /// phrases of the set, each once, never the phrase typed) therefore offers no phrase; with 1 it offers the
        /// other phrases' endings, which are wrong by construction (eye tracker 16.4 wpm against 17.9).
        public var historyUses = 2
        /// The user's sentences: how often those going on with a word must have been said for that word to come
        /// first among the words (on the key); said less, it comes second, after the model's first (but see
        /// `historyWordContext`). 1: a sentence said once puts its next word first (as before issue 50's wpm round 6:
        /// see docs/prediction.md).
        public var historyWordUses = 2
        /// The user's sentences: a word of a sentence said less than `historyWordUses` times still comes first when
        /// the text holds at least this many words of that sentence before it (the user is inside it).
        public var historyWordContext = 2
        /// Most words a continuation from the model offers (the user's own sentences are offered whole).
        public var continuationWords = 4
        /// The word on the key: the model's next words shown after its word (taken word by word with the tongue)
        /// when their shares multiplied are at least this; above 1, never. Off: `bench typing` (40 shipped phrases,
        /// release, seed 1; word on the key 18.4 / 18.7 wpm without / with history) gave 0.3 → 18.0 / 18.3, 0.5 →
        /// 18.2 / 17.8, 0.7 → 18.4 / 18.3, 0.8 with one word → 18.5 / 18.5 for the eye tracker, and the letters typed
        /// fell by 2 of 305 at most: the model is rarely sure of the next word, and right less often than that
        /// (see docs/prediction.md, "Words per minute").
        public var nextWordConfidence = 1.01
        /// The word on the key: at most this many of the model's next words after its word.
        public var nextWords = 2
        /// Offer a sentence of the history whose first words the initials match (the rest follows). Off: on
        /// conversational text whose typed phrases are never in the history it only pushed out right phrases
        /// (1.8% among the first 3 with it, 1.9% without) and cost reading in `bench typing` (initials with
        /// history 11.6 wpm against 13.5 without, eye tracker).
        public var historyPrefix = false
        /// Weight of the conversational model's whole sentences (`PhraseModel.utterances`: "how are you doing",
        /// said hundreds of times) at a sentence's start: P(phrase) = (1 − u)·P(beam) + u·P(said whole). 0: not asked.
        /// Tuning text (see `conversationWeight`), no history, w = 0.3: u = 0 → 16.6%, 0.3 → 16.9%, 0.7 → 16.9%: the
        /// trigram model already offers most of these sentences; kept for the few longer ones it does not.
        public var utteranceWeight = 0.3

        public init() {}
    }

    /// Up to `limit` phrases for `initials` (see `InitialsPattern`), best first: the user's own sentences that
    /// match, most used and most recent first, then the model's by a beam search over the n-grams and the
    /// user's words. `context`: the text before the initials (its sentence so far); `partner`: what the
    /// conversation partner said last. An unreadable or too long pattern gives none.
    public func expand(_ initials: String, context: String = "", partner: String = "", history: SentenceHistory = SentenceHistory(),
                       limit: Int = 3, settings: PhraseSettings = PhraseSettings()) -> [String] {
        guard limit > 0, case .success(let pattern) = InitialsPattern.parse(initials) else { return [] }
        let (ctx, _, sentenceStart) = Tokens.split(context + " ")
        var out: [String] = []
        var seen = Set<String>()
        func offer(_ phrase: String) {
            let k = Tokens.words(phrase).map { $0.word.lowercased() }.joined(separator: " ")
            if !k.isEmpty, seen.insert(k).inserted { out.append(phrase) }
        }
        if !history.isEmpty {
            let sofar = sentenceStart ? [] : Self.sentenceWords(context)
            for phrase in historyMatches(pattern, after: sofar, history: history, prefixes: settings.historyPrefix) where out.count < limit {
                offer(phrase)
            }
        }
        if out.count < limit {
            let partnerWords = Set(Tokens.words(partner).map { $0.word.lowercased() })
            var settings = settings
            if !partnerWords.isEmpty, let w = settings.partnerConversationWeight { settings.conversationWeight = w }
            var found = beamSearch(pattern, context: ctx, sentenceStart: sentenceStart, partner: partnerWords,
                                   limit: limit + out.count, settings: settings)
            if sentenceStart, settings.utteranceWeight > 0, let model = phraseModel, !model.utterances.isEmpty {
                found = withUtterances(found, pattern, model.utterances, weight: settings.utteranceWeight)
            }
            for (phrase, _) in found where out.count < limit {
                offer(phrase)
            }
        }
        return out
    }

    /// The beam's phrases and the whole sentences people often say that match the pattern, best first by
    /// (1 − `weight`)·P(beam) + `weight`·P(said whole). A sentence the beam did not offer counts its share alone (its
    /// beam probability is below the last offered, so it adds little).
    func withUtterances(_ found: [(phrase: String, logp: Double)], _ pattern: InitialsPattern,
                        _ utterances: [(words: [Int32], logp: Float)], weight: Double) -> [(phrase: String, logp: Double)] {
        var all: [String: (phrase: String, logp: Double)] = [:]
        for f in found {
            let k = Tokens.words(f.phrase).map { $0.word.lowercased() }.joined(separator: " ")
            all[k] = (f.phrase, f.logp + log(1 - weight))
        }
        let counts = pattern.words
        let empty = TypedCase("")
        for u in utterances where counts.contains(u.words.count) {
            let words = u.words.map { lexicon.word(Int($0)) }
            guard Self.match(pattern, words) == true else { continue }
            let k = words.map { $0.lowercased() }.joined(separator: " ")
            let said = log(weight) + Double(u.logp) * M_LN10
            if let f = all[k] {
                let hi = max(f.logp, said), lo = min(f.logp, said)
                all[k] = (f.phrase, hi + log1p(exp(lo - hi)))
            } else {
                let phrase = u.words.enumerated().map { i, id in display(.id(id), typed: "", typedCase: empty, sentenceStart: i == 0) }
                all[k] = (phrase.joined(separator: " "), said)
            }
        }
        return all.sorted { $0.value.logp != $1.value.logp ? $0.value.logp > $1.value.logp : $0.key < $1.key }.map(\.value)
    }

    /// The words of the sentence `text` ends in, lowercase (none after a full stop).
    static func sentenceWords(_ text: String) -> [String] {
        let words = Tokens.words(text)
        guard let start = words.lastIndex(where: { $0.sentenceStart }) else { return [] }
        if let last = text.last(where: { !$0.isWhitespace }), Tokens.endsSentence(last) { return [] }
        return words[start...].map { $0.word.lowercased() }
    }

    /// The user's sentences whose words after `sofar` match the pattern: whole matches first, then (with
    /// `prefixes`) sentences whose first words it matches; each best first. Phrases are the sentence's rest as
    /// written.
    func historyMatches(_ pattern: InitialsPattern, after sofar: [String], history: SentenceHistory, prefixes: Bool) -> [String] {
        var whole: [(Double, Int, String)] = [], begun: [(Double, Int, String)] = []
        for e in history.entries where e.words.count > sofar.count && e.words.starts(with: sofar) {
            let rest = Array(e.words[sofar.count...])
            guard let m = Self.match(pattern, rest) else { continue }
            guard m || prefixes else { continue }
            let text = sofar.isEmpty ? e.text : Self.tail(of: e.text, dropping: sofar.count) ?? rest.joined(separator: " ")
            if m { whole.append((history.weight(e), e.last, text)) } else { begun.append((history.weight(e), e.last, text)) }
        }
        let order: ((Double, Int, String), (Double, Int, String)) -> Bool = { ($0.0, $0.1) > ($1.0, $1.1) }
        return whole.sorted(by: order).map(\.2) + begun.sorted(by: order).prefix(1).map(\.2)
    }

    /// The text after its first `n` words, as written; nil when its spaces do not part the words one by one.
    static func tail(of text: String, dropping n: Int) -> String? {
        let raw = text.split(separator: " ")
        guard raw.count == Tokens.words(text).count, raw.count > n else { return nil }
        return raw[n...].joined(separator: " ")
    }

    /// Whether `words` match the pattern: true when all of them do, false when the pattern matches their first
    /// words only, nil when it does not match.
    static func match(_ pattern: InitialsPattern, _ words: [String]) -> Bool? {
        // States (group, letter within it) reachable after each word; a pattern has at most a few dozen.
        struct At: Hashable { var group: Int; var offset: Int }
        var states: Set<At> = [At(group: 0, offset: 0)]
        for (i, w) in words.enumerated() {
            let bytes = Array(w.utf8)
            var next: Set<At> = []
            for s in states where s.group < pattern.groups.count {
                let g = pattern.groups[s.group]
                if s.offset == 0, g.word, bytes.starts(with: g.letters) { next.insert(At(group: s.group + 1, offset: 0)) }
                if g.initials, bytes.starts(with: g.characters[s.offset]) {
                    next.insert(s.offset + 1 == g.characters.count ? At(group: s.group + 1, offset: 0) : At(group: s.group, offset: s.offset + 1))
                }
            }
            if next.isEmpty { return nil }
            states = next
            if states.contains(At(group: pattern.groups.count, offset: 0)) { return i == words.count - 1 ? true : false }
        }
        return nil
    }

    /// One hypothesis of the beam: the words so far and where the pattern has got to.
    private struct Hypothesis {
        var words: [Candidate] = []
        var keys: [String] = []
        /// The last three words' ids (`w0` only the conversational 4-gram model reads).
        var w0: Int32?, w1: Int32?, w2: Int32?
        var u1: String?, u2: String?
        var logp = 0.0
        /// `logp` plus the log probability of the likeliest next word for the next letter: what the beam ranks by.
        var rank = 0.0
        var group = 0, offset = 0
    }

    /// The model's phrases for the pattern, best first, by a beam search: each step gives every hypothesis one
    /// more word (the `branch` likeliest words with the next letter or spelled prefix after its last two words)
    /// and keeps the `beam` likeliest.
    func beamSearch(_ pattern: InitialsPattern, context: [String], sentenceStart: Bool, partner: Set<String>,
                    limit: Int, settings: PhraseSettings) -> [(phrase: String, logp: Double)] {
        func id(_ w: String) -> Int32 {
            if w == "<s>" { return ngrams.sentenceStart }
            return lexicon.id(of: w).map { Int32($0) } ?? -1
        }
        var start = Hypothesis()
        start.w2 = context.last.map(id)
        start.w1 = context.count >= 2 ? id(context[context.count - 2]) : nil
        start.w0 = context.count >= 3 ? id(context[context.count - 3]) : nil
        start.u2 = context.last
        start.u1 = context.count >= 2 ? context[context.count - 2] : nil
        var live = [start]
        var done: [Hypothesis] = []
        // The same word list after the same two words and letters: asked for by many hypotheses.
        var memo: [String: [(Double, Candidate)]] = [:]
        struct FutureKey: Hashable { var w1: Int32, w2: Int32, group: Int, offset: Int }
        var futureMemo: [FutureKey: Double] = [:]
        // Each place of the pattern's words with its letters and their likeliest word, found once.
        var lettersMemo: [Int: (range: Range<Int>, top: Int32?)] = [:]
        func letters(_ prefix: [UInt8], _ place: Int) -> (range: Range<Int>, top: Int32?) {
            if let m = lettersMemo[place] { return m }
            let range = lexicon.range(prefix: prefix)
            let m = (range, range.isEmpty ? nil : lexicon.top(prefix: prefix, range: range, k: 1, skip: { _ in false }).first.map { Int32($0) })
            lettersMemo[place] = m
            return m
        }
        // How likely the best word for the hypothesis's next letter is after its last two words: "thank" after
        // "<s>" is unlikely, but "you" after it very likely, where "there" is likelier and "you" after it is not.
        // Ranking by the probability so far alone dropped "thank you very much" for "there you very much".
        func future(_ n: Hypothesis) -> Double {
            guard settings.lookahead, n.group < pattern.groups.count else { return 0 }
            let key = FutureKey(w1: n.w1 ?? -2, w2: n.w2 ?? -2, group: n.group, offset: n.offset)
            if let m = futureMemo[key] { return m }
            let g = pattern.groups[n.group]
            var best = -Double.infinity
            if n.offset == 0, g.word { best = bestNext(letters(g.letters, n.group * 256 + 255), w1: n.w1, w2: n.w2, settings: settings) }
            if g.initials {
                let factor = g.word && n.offset == 0 ? settings.initialsPenalty : 1
                best = max(best, bestNext(letters(g.characters[n.offset], n.group * 256 + n.offset), w1: n.w1, w2: n.w2, settings: settings)
                    + log(factor))
            }
            let f = best.isFinite ? best : 0
            futureMemo[key] = f
            return f
        }
        let steps = pattern.words.upperBound
        for _ in 0..<steps where !live.isEmpty {
            var next: [Hypothesis] = []
            for h in live {
                let g = pattern.groups[h.group]
                var options: [(prefix: [UInt8], exact: Bool, group: Int, offset: Int, factor: Double)] = []
                if h.offset == 0, g.word { options.append((g.letters, true, h.group + 1, 0, 1)) }
                if g.initials {
                    let end = h.offset + 1 == g.characters.count
                    options.append((g.characters[h.offset], false, end ? h.group + 1 : h.group, end ? 0 : h.offset + 1,
                                    g.word && h.offset == 0 ? settings.initialsPenalty : 1))
                }
                for o in options {
                    let uctx = h.u2.flatMap { b in h.u1.map { UserWords.tripleKey($0, b) } }
                    // The fourth word back only where the conversational model has 4-grams after it (else it changes nothing).
                    let w0 = phraseModel?.fourContext(h.w0, h.w1, h.w2)
                    let memoKey = "\(w0 ?? -2) \(h.w1 ?? -2) \(h.w2 ?? -2) \(h.u1 ?? "") \(h.u2 ?? "") \(o.exact) " + String(decoding: o.prefix, as: UTF8.self)
                    let cands = memo[memoKey] ?? scored(prefix: o.prefix, w0: w0, w1: h.w1, w2: h.w2, u2: h.u2, uctx: uctx,
                                                        partner: partner, partnerWeight: settings.partnerWeight,
                                                        k: settings.lookahead && h.words.isEmpty ? max(settings.pool, settings.branch) : settings.branch,
                                                        backoffFactor: settings.backoff, modelBackoff: settings.modelBackoff,
                                                        conversation: conversationWeight(w1: h.w1, w2: h.w2, settings: settings))
                    memo[memoKey] = cands
                    // With lookahead, the `branch` best of a wider pool by what they lead to.
                    var children: [Hypothesis] = []
                    for (p, c) in cands {
                        var n = h
                        let k = key(c)
                        n.words.append(c); n.keys.append(k)
                        n.logp += log(max(p, 1e-300)) + log(o.factor)
                        n.w0 = h.w1; n.w1 = h.w2
                        if case .id(let i) = c { n.w2 = i } else { n.w2 = -1 }
                        n.u1 = h.u2; n.u2 = k
                        n.group = o.group; n.offset = o.offset
                        if n.group == pattern.groups.count {
                            if settings.sentenceEndWeight > 0, sentenceStart, let end = sentenceEnd(w0: n.w0, w1: n.w1, w2: n.w2, settings: settings) {
                                n.logp += settings.sentenceEndWeight * end * M_LN10
                            }
                            done.append(n)
                        } else {
                            n.rank = n.logp + future(n)
                            children.append(n)
                        }
                    }
                    if children.count > settings.branch {
                        children.sort { $0.rank > $1.rank }
                        children.removeLast(children.count - settings.branch)
                    }
                    next += children
                }
            }
            next.sort { $0.rank > $1.rank }
            live = Array(next.prefix(settings.beam))
            // Nothing left in the beam can beat the finished ones once enough are as likely: each more word only
            // lowers a hypothesis's probability.
            if done.count >= limit {
                let bar = done.map(\.logp).sorted(by: >)[limit - 1]
                live.removeAll { $0.logp < bar }
            }
        }
        done.sort { $0.logp != $1.logp ? $0.logp > $1.logp : $0.keys.lexicographicallyPrecedes($1.keys) }
        let empty = TypedCase("")
        return done.prefix(limit).map { h in
            (h.words.enumerated().map { i, c in display(c, typed: "", typedCase: empty, sentenceStart: i == 0 && sentenceStart) }
                .joined(separator: " "), h.logp)
        }
    }

    /// The log probability of the likeliest word of `letters` (a prefix's words and the likeliest of them) after
    /// `w1 w2` among the model's best trigram, bigram and unigram continuations (the user's words left out: a
    /// guess of what comes next, asked often).
    private func bestNext(_ letters: (range: Range<Int>, top: Int32?), w1: Int32?, w2: Int32?, settings: PhraseSettings) -> Double {
        let range = letters.range
        guard !range.isEmpty else { return -Double.infinity }
        var ids: [Int32] = []
        if let w1, let w2, w1 >= 0, w2 >= 0 { ids += ngrams.successors(w1, w2, in: range, k: 1) }
        if let w2, w2 >= 0 { ids += ngrams.successors(w2, in: range, k: 1) }
        if let top = letters.top { ids.append(top) }
        let w = conversationWeight(w1: w1, w2: w2, settings: settings)
        let model = w > 0 ? phraseModel : nil
        if let model { ids += model.successors(w1: w1, w2: w2, in: range, k: 1).filter { $0 >= 0 } }
        let ranges = contextRanges(w1: w1, w2: w2)
        let a = settings.backoff
        var best = -Double.infinity
        // The model's part of `phraseScore` (log10), without the user's words: this is a guess, and it is asked often.
        for id in ids {
            let l: Double
            if settings.modelBackoff, ngrams.hasBackoffs {
                l = Double(ngrams.backedOff(id, w1: w1, w2: w2, unigram: lexicon.logProb[Int(id)], bigrams: ranges.bigrams, trigrams: ranges.trigrams))
            } else if let w1, let w2, w1 >= 0, w2 >= 0, let t = ngrams.logProb(of: id, in: ranges.trigrams) {
                l = Double(t)
            } else if let w2, w2 >= 0, let b = ngrams.logProb(of: id, in: ranges.bigrams) {
                l = Double(b) + ((w1 ?? -1) >= 0 ? log10(a) : 0)
            } else {
                l = log10(max(lexicon.probability[Int(id)], 1e-300)) + ((w2 ?? -1) >= 0 ? 2 * log10(a) : 0)
            }
            if let model {
                best = max(best, log((1 - w) * pow(10, l) + w * pow(10, Double(model.logProb(id, w1: w1, w2: w2)))))
            } else {
                best = max(best, l * M_LN10)
            }
        }
        return best
    }

    /// `p` mixed with the conversational model's probability of the candidate after `w0 w1 w2` at `weight` (`p` as
    /// it is without the model or at weight 0); a word the model's list lacks gets its floor.
    func conversational(_ p: Double, _ c: Candidate, w0: Int32? = nil, w1: Int32?, w2: Int32?, weight: Double) -> Double {
        guard weight > 0, let model = phraseModel else { return p }
        let pc: Float
        if case .id(let id) = c { pc = model.logProb(id, w0: w0, w1: w1, w2: w2) } else { pc = model.floor }
        return (1 - weight) * p + weight * pow(10, Double(pc))
    }

    /// The conversational model's weight for the word after `w1 w2`: `startConversationWeight` after the sentence's
    /// start, `secondConversationWeight` one word later, `conversationWeight` elsewhere.
    func conversationWeight(w1: Int32?, w2: Int32?, settings: PhraseSettings) -> Double {
        if w2 == ngrams.sentenceStart, let w = settings.startConversationWeight { return w }
        if w1 == ngrams.sentenceStart, let w = settings.secondConversationWeight { return w }
        return settings.conversationWeight
    }

    /// log10 P(the sentence ends after `w0 w1 w2`): the word model's (after `w1 w2`), mixed with the
    /// conversational model's.
    func sentenceEnd(w0: Int32? = nil, w1: Int32?, w2: Int32?, settings: PhraseSettings) -> Double? {
        let base = ngrams.sentenceEnd(w1: w1, w2: w2).map { pow(10, Double($0)) }
        let w = conversationWeight(w1: w1, w2: w2, settings: settings)
        guard w > 0, let model = phraseModel else { return base.map(log10) }
        let pc = pow(10, Double(model.logProb(PhraseModel.end, w0: w0, w1: w1, w2: w2)))
        return log10((1 - w) * (base ?? pc) + w * pc)
    }

    /// The `k` likeliest words starting with `prefix` after the context, with their probabilities (the
    /// suggestion bar's mix: n-grams, the user's words, pairs and phrases), and the partner's words raised.
    private func scored(prefix: [UInt8], w0: Int32? = nil, w1: Int32?, w2: Int32?, u2: String?, uctx: String?, partner: Set<String>,
                        partnerWeight: Double, k: Int, backoffFactor: Double? = nil, modelBackoff: Bool = false,
                        conversation: Double = 0) -> [(Double, Candidate)] {
        let range = lexicon.range(prefix: prefix)
        var cands: [Candidate] = []
        var seen = Set<Candidate>()
        func allowed(_ id: Int32) -> Bool {
            (user.removed.isEmpty || !user.removed.contains(lexicon.word(Int(id)))) && offerable(Int(id))
        }
        func add(_ c: Candidate) { if seen.insert(c).inserted { cands.append(c) } }
        if let w1, let w2, w1 >= 0, w2 >= 0 {
            for id in ngrams.successors(w1, w2, in: range, k: k) where allowed(id) { add(.id(id)) }
        }
        if let w2, w2 >= 0 {
            for id in ngrams.successors(w2, in: range, k: k) where allowed(id) { add(.id(id)) }
        }
        for id in lexicon.top(prefix: prefix, range: range, k: k, skip: { !allowed(Int32($0)) }) { add(.id(Int32(id))) }
        if let u2, !user.pairTop.isEmpty, let top = user.pairTop[u2] {
            for w in top where w.utf8.starts(with: prefix) && !user.removed.contains(w) { add(candidate(w)) }
        }
        if let uctx, !user.triples.isEmpty, let succ = user.triples[uctx] {
            for (w, _) in succ where w.utf8.starts(with: prefix) && !user.removed.contains(w) { add(candidate(w)) }
        }
        for w in partner where w.utf8.starts(with: prefix) && !user.removed.contains(w) { add(candidate(w)) }
        if conversation > 0, let model = phraseModel {
            for id in model.successors(w0: w0, w1: w1, w2: w2, in: range, k: k) where id >= 0 && allowed(id) { add(.id(id)) }
        }
        let ranges = contextRanges(w1: w1, w2: w2)
        var out: [(Double, Candidate)] = []
        out.reserveCapacity(cands.count)
        for c in cands {
            var p = backoffFactor.map { phraseScore(c, w1: w1, w2: w2, u2: u2, uctx: uctx, ranges: ranges, backoff: $0, modelBackoff: modelBackoff) }
                ?? score(c, w1: w1, w2: w2, u2: u2, uctx: uctx, ranges: ranges)
            p = conversational(p, c, w0: w0, w1: w1, w2: w2, weight: conversation)
            if !partner.isEmpty, partnerWeight > 0 {
                p = (1 - partnerWeight) * p + (partner.contains(key(c)) ? partnerWeight / Double(partner.count) : 0)
            }
            if p > 0 { out.append((p, c)) }
        }
        // Sorted by score, then by word, so equal scores never depend on hashing.
        let lex = lexicon
        func word(_ c: Candidate) -> String {
            switch c {
            case .id(let i): return lex.word(Int(i))
            case .extra(let w): return w
            }
        }
        out.sort { $0.0 != $1.0 ? $0.0 > $1.0 : word($0.1) < word($1.1) }
        return Array(out.prefix(k))
    }

    /// Why the beam search missed a phrase, for `bench expand`: where its words stop being offered.
    public enum Miss: String, Sendable, CaseIterable {
        /// A word the lists and the user's words do not have.
        case unknownWord = "a word not in the lists"
        /// A word not among the `branch` words tried for its letter after the words before it.
        case notBranched = "a word not among those tried for its letter"
        /// Its words were all tried, but the beam dropped it before the end.
        case pruned = "dropped from the beam"
        /// Found, but three or more phrases scored higher.
        case outscored = "outscored by other phrases"
    }

    /// The beam search's log score of `words` for the initials typed without spelling (context: the sentence
    /// start), and whether each word was among those tried for its letter; nil when a word is unknown.
    public func phraseDiagnosis(_ words: [String], settings: PhraseSettings = PhraseSettings()) -> (score: Double, branched: Bool)? {
        func id(_ w: String) -> Int32 { lexicon.id(of: w).map { Int32($0) } ?? -1 }
        var w0: Int32? = nil, w1: Int32? = nil, w2: Int32? = ngrams.sentenceStart
        var u1: String? = nil, u2: String? = "<s>"
        var logp = 0.0
        var branched = true
        for w in words {
            let c = candidate(w)
            if case .extra(let s) = c, user.counts[s] == nil { return nil }
            let uctx = u2.flatMap { b in u1.map { UserWords.tripleKey($0, b) } }
            let prefix = Array(w.utf8.prefix(1))
            let m0 = phraseModel?.fourContext(w0, w1, w2)
            let cands = scored(prefix: prefix, w0: m0, w1: w1, w2: w2, u2: u2, uctx: uctx, partner: [], partnerWeight: 0, k: settings.branch,
                               backoffFactor: settings.backoff, modelBackoff: settings.modelBackoff,
                               conversation: conversationWeight(w1: w1, w2: w2, settings: settings))
            if !cands.contains(where: { $0.1 == c }) { branched = false }
            let p = conversational(phraseScore(c, w1: w1, w2: w2, u2: u2, uctx: uctx, ranges: contextRanges(w1: w1, w2: w2), backoff: settings.backoff,
                                               modelBackoff: settings.modelBackoff), c, w0: m0, w1: w1, w2: w2,
                                 weight: conversationWeight(w1: w1, w2: w2, settings: settings))
            logp += log(max(p, 1e-300))
            w0 = w1; w1 = w2
            if case .id(let i) = c { w2 = i } else { w2 = -1 }
            u1 = u2; u2 = w
        }
        if settings.sentenceEndWeight > 0, let end = sentenceEnd(w0: w0, w1: w1, w2: w2, settings: settings) {
            logp += settings.sentenceEndWeight * end * M_LN10
        }
        return (logp, branched)
    }

    /// The model's phrases for initials typed at a sentence's start with their log scores, best first (no history,
    /// no partner): what `bench expand` compares a missed phrase's own score with.
    public func modelExpansions(_ initials: String, limit: Int, settings: PhraseSettings = PhraseSettings()) -> [(phrase: String, logp: Double)] {
        guard case .success(let pattern) = InitialsPattern.parse(initials) else { return [] }
        return beamSearch(pattern, context: ["<s>"], sentenceStart: true, partner: [], limit: limit, settings: settings)
    }

    // MARK: Continuation

    /// The rest of the user's sentence that goes on from the sentence typed so far (its partial word completed),
    /// when it is at least `historyShare` of those that do and has two or more words; nil otherwise.
    /// `minUses`: how often that sentence must have been said (`historyUses` when nil); `minWords`: how many
    /// words it must still have.
    public func historyContinuation(_ textSoFar: String, history: SentenceHistory,
                                    settings: PhraseSettings = PhraseSettings(), minUses: Int? = nil, minWords: Int = 2) -> String? {
        guard !history.isEmpty else { return nil }
        let (_, partial, sentenceStart) = Tokens.split(textSoFar)
        let prefix = Array(partial.lowercased().utf8)
        var before = textSoFar
        before.removeLast(min(partial.count, before.count))
        let sofar = sentenceStart ? [] : Self.sentenceWords(before)
        let going = history.continuing(sofar, limit: 64).filter { $0.entry.words[sofar.count].utf8.starts(with: prefix) }
        let total = going.reduce(0) { $0 + $1.weight }
        guard let best = going.first, total > 0, best.weight / total >= settings.historyShare,
              best.entry.count >= (minUses ?? settings.historyUses), best.entry.words.count - sofar.count >= minWords else { return nil }
        return (sofar.isEmpty ? best.entry.text : Self.tail(of: best.entry.text, dropping: sofar.count))
            ?? best.entry.words[sofar.count...].joined(separator: " ")
    }

    /// `suggest`, with the next word of the user's own sentence among the words when one goes on from the text
    /// (see `historyContinuation`): first when the sentences going on with it were said `historyWordUses` times or
    /// the text already holds `historyWordContext` words of the sentence; second (after the model's first) else.
    public func suggest(_ textSoFar: String, limit: Int, history: SentenceHistory,
                        settings: PhraseSettings = PhraseSettings()) -> [String] {
        var words = suggest(textSoFar, limit: limit)
        guard limit > 0, let mine = historyContinuation(textSoFar, history: history, settings: settings, minUses: 1, minWords: 1),
              let first = mine.split(separator: " ").first else { return words }
        var word = String(first)
        while let l = word.last, !Tokens.isWordCharacter(l) { word.removeLast() }
        let (_, partial, sentenceStart) = Tokens.split(textSoFar)
        guard !word.isEmpty, word.count > partial.count else { return words }
        let lower = word.lowercased()
        if words.first?.lowercased() == lower { return words }
        // A sentence said once that shares no more than a word with the text so far predicts worse than the model's
        // first word, and the word on the key is the first: a wrong one there costs a letter typed in place of the
        // model's right word (docs/prediction.md, wpm round 6, conversation text: at a sentence's start the
        // history's word was right 0 times of 65 where it differed, the model's 21; from two words in, 120 against 7).
        var before = textSoFar
        before.removeLast(min(partial.count, before.count))
        let sofar = sentenceStart ? [] : Self.sentenceWords(before)
        let uses = history.continuing(sofar, limit: 64).reduce(0) { n, c in
            c.entry.words[sofar.count] == lower ? n + c.entry.count : n
        }
        let leads = uses >= settings.historyWordUses || sofar.count >= settings.historyWordContext || words.isEmpty
        words.removeAll { $0.lowercased() == lower }
        words.insert(word, at: leads ? 0 : 1)
        return Array(words.prefix(limit))
    }

    /// The next few words after the text typed so far, as one suggestion, when the user's sentences or the
    /// model are confident enough; nil otherwise. With a partial word, the phrase starts with its completion
    /// ("how are y" → "you doing today"); it has at least two words.
    public func continuePhrase(_ textSoFar: String, history: SentenceHistory = SentenceHistory(),
                               settings: PhraseSettings = PhraseSettings()) -> String? {
        guard Tokens.split(textSoFar).partial.count <= WordPredictor.maxWordLength else { return nil }
        if let mine = historyContinuation(textSoFar, history: history, settings: settings) { return mine }
        let words = modelContinuation(textSoFar, confidence: settings.continuationConfidence, maxWords: settings.continuationWords)
        return words.count >= 2 ? words.joined(separator: " ") : nil
    }

    /// The words the model is confident come next after a finished word ("how are you " → "doing", "today"):
    /// each word's share of the likeliest 16 after the words before it, multiplied, at least
    /// `nextWordConfidence`; at most `nextWords`. Empty when the text ends inside a word or nothing is that sure.
    /// The word on the key shows them after its word, and the tongue takes the phrase word by word.
    public func nextWords(after textSoFar: String, settings: PhraseSettings = PhraseSettings()) -> [String] {
        guard settings.nextWords > 0, let last = textSoFar.last, !Tokens.isWordCharacter(last) else { return [] }
        return modelContinuation(textSoFar, confidence: settings.nextWordConfidence, maxWords: settings.nextWords)
    }

    /// The model's likeliest words after the text (the first completing its partial word), as long as their
    /// shares multiplied stay at least `confidence`, at most `maxWords`, as they are shown.
    func modelContinuation(_ textSoFar: String, confidence threshold: Double, maxWords: Int) -> [String] {
        let (context, partial, sentenceStart) = Tokens.split(textSoFar)
        guard partial.count <= WordPredictor.maxWordLength, threshold <= 1 else { return [] }
        // The lexicon's keys are folded: "cancio" finds "canción".
        let prefix = Array(Folding.fold(partial).utf8)
        func id(_ w: String) -> Int32 {
            if w == "<s>" { return ngrams.sentenceStart }
            return lexicon.id(of: w).map { Int32($0) } ?? -1
        }
        var w2 = context.last.map(id), w1 = context.count >= 2 ? id(context[context.count - 2]) : nil
        var u2 = context.last, u1 = context.count >= 2 ? context[context.count - 2] : nil
        var words: [Candidate] = []
        var confidence = 1.0
        var first = prefix
        while words.count < maxWords {
            let uctx = u2.flatMap { b in u1.map { UserWords.tripleKey($0, b) } }
            var cands = scored(prefix: first, w1: w1, w2: w2, u2: u2, uctx: uctx, partner: [], partnerWeight: 0, k: 16)
            // The word typed in full saves nothing as a first word.
            if words.isEmpty, !prefix.isEmpty { cands.removeAll { length($0.1) == prefix.count } }
            guard let best = cands.first else { break }
            let total = cands.reduce(0) { $0 + $1.0 }
            let share = best.0 / total
            guard confidence * share >= threshold else { break }
            confidence *= share
            words.append(best.1)
            w1 = w2
            if case .id(let i) = best.1 { w2 = i } else { w2 = -1 }
            u1 = u2; u2 = key(best.1)
            first = []
        }
        let typedCase = TypedCase(partial)
        return words.enumerated().map { i, c in
            i == 0 ? display(c, typed: partial, typedCase: typedCase, sentenceStart: sentenceStart)
                : display(c, typed: "", typedCase: TypedCase(""), sentenceStart: false)
        }
    }
}
