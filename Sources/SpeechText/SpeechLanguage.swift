/// What speech needs of one language as data: spoken punctuation, dictation's own commands, number words and
/// the words of voice commands. English is built in (`english`); every other language comes from its pack's
/// `languages/LL/speech.toml`, read at the edge (`SpeechPack` in Runtime) into this value.
///
/// Words are compared folded (`SpeechLanguage.fold`: lower case, accents and marks removed), so "interrogación"
/// and "interrogacion", "Komma" and "komma" are the same to it.
public struct SpeechLanguage: Equatable, Sendable {
    /// A spoken form and what it stands for.
    public struct Spoken: Equatable, Sendable {
        /// The folded words said ("signo", "de", "interrogacion").
        public var words: [String]
        /// What they write (a mark, a line break), or the phrase they stand for.
        public var value: String
        /// The phrase as the pack writes it ("arrête la dictée"), accents kept; nil when not known.
        public var written: String?
        public init(words: [String], value: String, written: String? = nil) {
            self.words = words; self.value = value; self.written = written
        }
        public init(_ phrase: String, _ value: String) { self.init(words: SpeechLanguage.words(phrase), value: value) }
    }

    /// The language's code ("en", "es").
    public var code: String
    /// Spoken punctuation ("coma" → ","), longest first so "punto y coma" wins over "punto".
    public var punctuation: [Spoken] { didSet { punctuation = Self.longestFirst(punctuation) } }
    /// The forms of "stop dictation" and of "delete that".
    public var stopDictation: [[String]]
    public var deleteThat: [[String]]
    /// Number words, nil when the language has none listed (numbers stay as the engine wrote them).
    public var numbers: NumberWords?
    /// The words of voice commands ("abre" → open): see `CommandWords`.
    public var commands: CommandWords
    /// Whisper's beam width for dictated utterances (1: greedy, the worker's own). Per language because it
    /// pays off in one and not another (issue 45, Asterisk's prompts: Spanish 18.3 → 12.5 % WER at beam 5,
    /// French and Italian within the noise); commands stay greedy.
    public var dictationBeam: Int

    public init(code: String, punctuation: [Spoken], stopDictation: [[String]], deleteThat: [[String]],
                numbers: NumberWords? = nil, commands: CommandWords = CommandWords(), dictationBeam: Int = 1) {
        self.code = code; self.punctuation = Self.longestFirst(punctuation)
        self.stopDictation = stopDictation; self.deleteThat = deleteThat; self.numbers = numbers; self.commands = commands
        self.dictationBeam = dictationBeam
    }

    /// English, as the shell has always spoken it: PocketSphinx's and Whisper's words.
    public static let english = SpeechLanguage(
        code: "en",
        punctuation: [.init("period", "."), .init("full stop", "."), .init("comma", ","), .init("question mark", "?"),
                      .init("exclamation mark", "!"), .init("exclamation point", "!"), .init("colon", ":"),
                      .init("semicolon", ";"), .init("new line", "\n"), .init("new paragraph", "\n\n")],
        stopDictation: [["stop", "dictation"]], deleteThat: [["delete", "that"]])

    /// Whether this is English (the built-in rules: "i" written "I", numbers by `SpokenNumbers`).
    public var isEnglish: Bool { code == "en" }

    /// Lower case without accents or marks: how spoken words are compared.
    public static func fold(_ s: String) -> String {
        var out = ""
        for scalar in s.lowercased().decomposedStringWithCompatibilityMapping.unicodeScalars
        where !(0x300...0x36F).contains(scalar.value) {
            out.unicodeScalars.append(scalar)
        }
        // ß stays a letter of its own in decomposition; "strasse" is how it is typed without it.
        return out.replacingOccurrences(of: "ß", with: "ss")
    }

    /// The folded words of a phrase: letters, digits and apostrophes; anything else separates words.
    public static func words(_ phrase: String) -> [String] {
        fold(phrase).split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }).map(String.init)
    }

    private static func longestFirst(_ list: [Spoken]) -> [Spoken] {
        // Stable: among equal lengths the order written stays.
        list.enumerated().sorted { ($0.element.words.count, -$0.offset) > ($1.element.words.count, -$1.offset) }.map(\.element)
    }
}

/// The words of voice commands in a language, turned into the English phrases the keymap and the screen's
/// targets are bound to: "abre notas" → "open notas" (the target's label is already the translated "Notas"),
/// "atrás" → "back". A phrase far from every command the screen has is no command (`nearest`).
public struct CommandWords: Equatable, Sendable {
    /// Words that say "open …" ("abre", "abrir") and "select …" ("selecciona", "elige"), folded.
    public var open: [[String]]
    public var select: [[String]]
    /// Articles dropped after such a verb ("abre las notas"), folded.
    public var articles: Set<String>
    /// Whole phrases and the English phrase each stands for ("atrás" → "back"), folded.
    public var phrases: [SpeechLanguage.Spoken]
    /// The wake phrase in this language, if it has its own (else the keymap's).
    public var wake: String?
    /// The first of the words that say "open …" as the language writes them ("öffne", not the folded "offne"),
    /// for Whisper's prompt.
    public var openAsWritten: String?
    /// How a heard phrase is compared with a command's forms (`nearest`): word by word, the shell's, or the
    /// letters of the whole phrase, as before; the bench measures one against the other on the same texts.
    public var matching = Matching.words

    /// How a heard phrase is compared with a command's form.
    public enum Matching: String, Equatable, Sendable {
        /// Word by word (`wordDistance`): each heard word is one of the form's, a few letters apart, articles aside.
        case words
        /// The letters of the whole phrase, spaces included (`distance`): a word more or less can be within it.
        case letters
    }

    public init(open: [[String]] = [], select: [[String]] = [], articles: Set<String> = [],
                phrases: [SpeechLanguage.Spoken] = [], wake: String? = nil) {
        self.open = open; self.select = select; self.articles = articles; self.phrases = phrases; self.wake = wake
    }

    /// The English phrase `heard` says, folded: a listed phrase's, else "open"/"select" and the rest of it, else
    /// the words as they were heard.
    public func english(_ heard: String) -> String {
        var words = SpeechLanguage.words(heard)
        // "shell, restaurar ajustes": the wake phrase said before a command is not part of it.
        if let wake, case let w = SpeechLanguage.words(wake), !w.isEmpty, words.count > w.count, words.starts(with: w) {
            words.removeFirst(w.count)
        }
        if let p = phrases.first(where: { $0.words == words }) { return p.value }
        for (verbs, english) in [(open, "open"), (select, "select")] {
            for verb in verbs where words.starts(with: verb) && words.count > verb.count {
                var rest = words.dropFirst(verb.count)
                if let a = rest.first, articles.contains(a), rest.count > 1 { rest = rest.dropFirst() }
                return ([english] + rest).joined(separator: " ")
            }
        }
        return words.joined(separator: " ")
    }

    /// How far a heard phrase may be from a command and still be it: at most this share of each word's letters
    /// edited (of the whole phrase's with `Matching.letters`).
    public static let threshold = 0.25

    /// The command among `candidates` (the screen's phrases, as the keymap and targets write them) that `heard`
    /// says, and its distance (0 same … `threshold`); nil when every one is farther than the threshold, so an
    /// ordinary sentence is not taken for a command.
    ///
    /// A candidate is compared in English (`english(heard)`: "abre notas" is "open notas") and in each form
    /// the language has for it ("atrás" for "back", "abre notas" for "open notas"), so a word Whisper heard a
    /// little wrong ("enicio") is still near the language's own form ("inicio").
    ///
    /// The whole utterance (punctuation and a leading wake phrase aside) must be near the command: Whisper
    /// sometimes writes a command phrase into an ordinary sentence ("buono, apri le note"), and a sentence said
    /// while the microphone waits for a command must fire nothing. Whisper also says a short utterance twice
    /// ("Selecciona frases, selecciona frases"): clauses that are all the same command are that command once.
    /// Near means word by word (`matching`, `wordDistance`): a word more than the command, not an article, is no
    /// longer hidden in the letters a whole phrase may differ by ("7, 9, inizia dettatura").
    public func nearest(_ heard: String, among candidates: [String]) -> (phrase: String, distance: Double)? {
        if let whole = nearestWhole(heard, among: candidates) { return whole }
        var clauses = heard.split(whereSeparator: { ".,;:!?¿¡\n".contains($0) }).map(String.init)
            .filter { !SpeechLanguage.words($0).isEmpty }
        // "Shell, abre notas, abre notas": the wake phrase written as a clause of its own is not a repetition.
        if let wake, let first = clauses.first, SpeechLanguage.words(first) == SpeechLanguage.words(wake) { clauses.removeFirst() }
        guard clauses.count > 1 else { return nil }
        var found: (phrase: String, distance: Double)?
        for (n, clause) in clauses.enumerated() {
            // Whisper's repetition stops where its token cap cuts it ("…, selecciona frases, selecciona"): a last
            // clause that is the start of the one before is that command again.
            if n == clauses.count - 1, found != nil, matching == .words, case let cut = SpeechLanguage.words(clause),
               SpeechLanguage.words(clauses[n - 1]).starts(with: cut) { break }
            guard let m = nearestWhole(clause, among: candidates), found.map({ $0.phrase == m.phrase }) ?? true else { return nil }
            found = (m.phrase, max(found?.distance ?? 0, m.distance))
        }
        return found
    }

    /// The candidate nearest all of `heard` (a leading wake phrase dropped), nil when none is within `threshold`.
    private func nearestWhole(_ heard: String, among candidates: [String]) -> (phrase: String, distance: Double)? {
        ranked(heard, among: candidates).first.flatMap { $0.distance <= Self.threshold ? $0 : nil }
    }

    /// Every candidate with its distance from all of `heard` (a leading wake phrase dropped), nearest first (the
    /// order written among equals); empty when `heard` has no words. `nearest` takes the first within `threshold`;
    /// the bench shows the first two.
    public func ranked(_ heard: String, among candidates: [String]) -> [(phrase: String, distance: Double)] {
        var aliases: [String: [[String]]] = [:]
        for p in phrases { aliases[SpeechLanguage.words(p.value).joined(separator: " "), default: []].append(p.words) }
        let said = english(heard).split(separator: " ").map(String.init)
        var raw = SpeechLanguage.words(heard)
        if let wake, case let w = SpeechLanguage.words(wake), !w.isEmpty, raw.count > w.count, raw.starts(with: w) {
            raw.removeFirst(w.count)
        }
        guard !said.isEmpty else { return [] }
        func far(_ heard: [String], _ form: [String]) -> Double {
            switch matching {
            case .words: Self.wordDistance(heard, form, articles: articles)
            case .letters: Self.distance(heard.joined(separator: " "), form.joined(separator: " "))
            }
        }
        var all: [(phrase: String, distance: Double)] = []
        for c in candidates {
            let target = SpeechLanguage.words(c)
            guard !target.isEmpty else { continue }
            var d = far(said, target)
            for alias in aliases[target.joined(separator: " ")] ?? [] { d = min(d, far(raw, alias)) }
            for (verbs, english) in [(open, "open"), (select, "select")] where target.first == english && target.count > 1 {
                for verb in verbs { d = min(d, far(raw, verb + target.dropFirst())) }
            }
            all.append((c, d))
        }
        return all.enumerated().sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }.map(\.element)
    }

    /// The screen's "open …" phrases (`candidates`: the keymap's and the targets' phrases) as the language says
    /// them, with the label as the screen writes it ("open Notizen" → "öffne Notizen"), at most `limit`. Whisper
    /// gets them as its prompt for a command: a short utterance is otherwise often heard as another, longer
    /// one. The listed phrases are not among them: they are kept folded (no accents), which misleads Whisper.
    public func spokenOpenPhrases(_ candidates: [String], limit: Int = 16) -> [String] {
        spokenPhrases(candidates, openLimit: limit, screenPhrases: false).map(\.said)
    }

    /// A screen phrase as the language says it: what Whisper's command prompt lists and what is scored against
    /// a command's audio (`scoredCommand`).
    public struct SpokenPhrase: Equatable, Sendable {
        /// As said, accents kept ("abre Notas", "atrás").
        public var said: String
        /// The screen's phrase it stands for, as `candidates` write it ("open Notas", "back").
        public var phrase: String
        /// Whether Whisper's command prompt lists it (one form per command; the other forms are only scored).
        public var prompted: Bool
        public init(said: String, phrase: String, prompted: Bool = true) {
            self.said = said; self.phrase = phrase; self.prompted = prompted
        }
    }

    /// The screen's phrases (`candidates`, `ShellState.voicePhrases`) as the language says them, the one list
    /// that Whisper's command prompt (`commandPrompt`) and the scoring of a command's audio are built from:
    /// first the "open …" phrases with the first open verb as the pack writes it and the label as the screen does
    /// (at most `openLimit`), then with `screenPhrases` the pack's own phrases for the screen's other commands as
    /// the pack writes them, one form per command in the pack's order (these are `prompted`); then, not
    /// prompted, "select …" with the first select verb for the same targets and the pack's other forms ("volver"
    /// beside "atrás"), which only the scoring reads.
    public func spokenPhrases(_ candidates: [String], openLimit: Int = 16,
                              screenPhrases: Bool = CommandWords.promptsScreenPhrases) -> [SpokenPhrase] {
        var out: [SpokenPhrase] = []
        var saids = Set<String>()
        func add(_ said: String, _ phrase: String, prompted: Bool) {
            guard saids.insert(said).inserted else { return }
            out.append(SpokenPhrase(said: said, phrase: phrase, prompted: prompted))
        }
        var labels: [(phrase: String, label: String)] = []
        if let verb = openAsWritten ?? open.first?.joined(separator: " ") {
            for c in candidates {
                let parts = c.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "open" else { continue }
                let said = verb + " " + parts[1]
                guard !saids.contains(said) else { continue }
                add(said, c, prompted: true)
                labels.append((c, String(parts[1])))
                if labels.count == openLimit { break }
            }
        }
        guard screenPhrases else { return out }
        let onScreen = Dictionary(candidates.map { (SpeechLanguage.words($0).joined(separator: " "), $0) },
                                  uniquingKeysWith: { first, _ in first })
        var said = Set<String>()
        var others: [SpokenPhrase] = []
        for p in phrases {
            let english = SpeechLanguage.words(p.value).joined(separator: " ")
            guard let written = p.written, let phrase = onScreen[english] else { continue }
            if said.insert(english).inserted { add(written, phrase, prompted: true) }
            else { others.append(SpokenPhrase(said: written, phrase: phrase, prompted: false)) }
        }
        if let verb = select.first?.joined(separator: " ") {
            for (_, label) in labels where candidates.contains("select " + label) {
                add(verb + " " + label, "select " + label, prompted: false)
            }
        }
        for o in others { add(o.said, o.phrase, prompted: false) }
        return out
    }

    /// Whisper's prompt for a command utterance on a screen whose phrases are `candidates` (the keymap's and the
    /// targets', `ShellState.voicePhrases`): the wake phrase first when the idle shell listens for it, then the
    /// screen's prompted phrases (`spokenPhrases`): its "open …" phrases as the language says them, then, with
    /// `screenPhrases`, the pack's own phrases for the screen's other commands as the pack writes them
    /// ("aide", "commence la dictée"), one form per command. At most `limit` characters: Whisper reads at most
    /// 224 tokens of prompt, and a phrase that does not fit is left out whole. The live shell and `bench speech`
    /// both hear commands with it.
    public func commandPrompt(_ candidates: [String], wake: String? = nil, screenPhrases: Bool = CommandWords.promptsScreenPhrases,
                              limit: Int = CommandWords.promptLimit) -> String {
        var parts: [String] = []
        var length = 0
        func add(_ p: String) {
            let more = (parts.isEmpty ? 0 : 2) + p.count
            guard length + more <= limit, !parts.contains(p) else { return }
            parts.append(p)
            length += more
        }
        if let wake { add(wake) }
        for p in spokenPhrases(candidates, screenPhrases: screenPhrases) where p.prompted { add(p.said) }
        return parts.joined(separator: ", ")
    }

    /// The phrases scored against a command's audio (`spokenPhrases`), at most `limit`, prompted ones first:
    /// each costs the worker a pass of Whisper's decoder.
    public func scoredPhrases(_ candidates: [String], limit: Int = CommandWords.scoredLimit) -> [SpokenPhrase] {
        Array(spokenPhrases(candidates).prefix(limit))
    }

    /// Whether the live shell has Whisper score the screen's phrases against a command's audio and decides by
    /// the scores (`scoredCommand`) instead of by the free text alone (`nearest`). Off: on espeak-ng's commands
    /// the scored decision is right 32 of 40 times against 22 and took 1 of 125 real recordings held out
    /// (Asterisk's, Tux Paint's), but the worker scores every command utterance, even one the free text decides,
    /// for 0.8-1.6 s of CPU (p50, 55 phrases, loaded machine), above the 500 ms the issue allows
    /// (docs/speech-languages.md).
    public static let decidesByScore = false

    /// The most phrases scored per command utterance (`scoredPhrases`).
    public static let scoredLimit = 64

    /// The command among the scored phrases (`scoredPhrases`) that Whisper's scores of the audio (`scores`)
    /// make it, and by how much it beat the next command (infinite when the free text named it); nil when none
    /// is clearly the one said.
    ///
    /// The free text comes first: when Whisper's free text of the utterance (`heard`) is a command by `nearest`'s
    /// rule, that is the command, as without scores ("Diktat starten," is "start dictation" even where the
    /// scores rank "home" first; on espeak-ng's commands this gave 25 of 32 right against 21 by the scores
    /// alone). Only a free text that is no command is decided by the scores, so they can add commands the free
    /// text misheard ("A mi Notas" for "abrir notas") but never lose one it heard.
    ///
    /// A phrase's evidence is its score less its prior (what the audio adds: a phrase whose later tokens follow
    /// from its first scores high against any audio, and its prior as high); a command's is its best form's.
    /// The best command is taken only if its evidence is at least `scoreMargin` above every other command's (a
    /// close second means the audio does not tell them apart) and it is plausible against what Whisper heard
    /// freely: its evidence is at least `evidenceFloor` and at most `scoreSlack` below the free text's (a free
    /// text the audio backs better than any command is what was said: "amici", "prego riprovare"), and the free text has at most
    /// `extraWords` words more than the command's form and at most `extraLetters` letters more than twice its
    /// letters. Forced scoring does not say whether a phrase covers the whole utterance: an ordinary sentence
    /// ("Bitte ruf heute Nachmittag den Arzt an") can score one short command ("weiter") well, but is heard
    /// freely as many words. An utterance with no free text (nothing heard) is no command. Pure: the same scores
    /// decide the same.
    public func scoredCommand(_ scores: CommandScores, heard: String, among candidates: [String])
        -> (phrase: String, margin: Double)? {
        let heardWords = SpeechLanguage.words(heard)
        guard !heardWords.isEmpty else { return nil }
        if let free = nearest(heard, among: candidates) { return (free.phrase, .infinity) }
        var best: [String: (evidence: Double, said: String)] = [:]
        var order: [String] = []
        for (i, p) in scores.phrases.enumerated() where i < scores.scores.count && i < scores.priors.count {
            guard let e = CommandScores.evidence(scores.scores[i], scores.priors[i]) else { continue }
            if best[p.phrase] == nil { order.append(p.phrase) }
            if e > best[p.phrase]?.evidence ?? -.infinity { best[p.phrase] = (e, p.said) }
        }
        let ranked = order.compactMap { p in best[p].map { (phrase: p, evidence: $0.evidence, said: $0.said) } }
            .enumerated().sorted { ($0.element.evidence, -$0.offset) > ($1.element.evidence, -$1.offset) }.map(\.element)
        guard let first = ranked.first, let text = CommandScores.evidence(scores.textScore, scores.textPrior) else { return nil }
        let margin = ranked.count > 1 ? first.evidence - ranked[1].evidence : .infinity
        guard margin >= Self.scoreMargin else { return nil }
        let form = SpeechLanguage.words(first.said)
        guard first.evidence >= max(Self.evidenceFloor, text - Self.scoreSlack), heardWords.count <= form.count + Self.extraWords,
              heardWords.joined().count <= 2 * form.joined().count + Self.extraLetters else { return nil }
        return (first.phrase, margin)
    }

    /// How far above every other command's the best command's evidence must be (`scoredCommand`), in mean
    /// log-probability; tuned on the packs' `[bench]` commands and sentences said by espeak-ng (the Python study
    /// in docs/speech-languages.md), Asterisk's real sentences held out.
    public static let scoreMargin = 0.25

    /// How far below the free text's evidence the best command's may be and still be what was said. On espeak-ng's
    /// commands (the tuning set) every command the scores added to the free text's was within 0.1 of the free
    /// text's evidence or above it; 3.0 before, which took 8 of 75 of Asterisk's real sentences ("amici" scored
    /// as "home", the command 1-3 below the free text).
    public static let scoreSlack = 0.5

    /// The least evidence (score less prior) the best command must have to be taken by its scores: every command
    /// the scores added on the tuning set had 2.8 or more; a free text that is garbage (evidence near 0) with a
    /// command a little above it is no command.
    public static let evidenceFloor = 1.5

    /// How many words more than the best command's form the free text may have and still be that command.
    public static let extraWords = 1

    /// How many letters more than twice the best command's form's the free text may have and still be that
    /// command: Whisper running on in a short window writes few words of many letters ("electrónica,
    /// cccccccccccccccc…" for "Mañana voy a visitar a mi hermana en Madrid", scored "inicio").
    public static let extraLetters = 6

    /// Whether the command prompt lists the screen's own phrases (`commandPrompt`'s `screenPhrases`) in the
    /// live shell: with them the packs' commands said by espeak-ng were heard right 22 of 40 times against 15,
    /// and Asterisk's sentences taken for a command stayed 0/0/2 of 100 (`bench speech --command-prompt`, one
    /// sitting; docs/speech-languages.md).
    public static let promptsScreenPhrases = true

    /// The longest command prompt, in characters (about half of Whisper's 224 tokens in the packs' languages).
    public static let promptLimit = 300

    /// What follows the wake phrase in `heard` (Whisper's text, "Shell, abre notas." → "abre notas"; "" for the
    /// wake phrase alone), or nil when `heard` does not start with it; nil without a wake phrase.
    ///
    /// Whisper writes the English wake word as the language hears it ("Schal", "Chelle"): "sch" and "ch" are
    /// read "sh", and up to `wakeThreshold` of its letters may differ. That is looser than a command's match;
    /// what follows the wake phrase must still be near a command to act.
    public func afterWake(_ heard: String) -> String? {
        guard let wake else { return nil }
        let w = SpeechLanguage.words(wake), said = SpeechLanguage.words(heard)
        guard !w.isEmpty, said.count >= w.count else { return nil }
        func sounds(_ words: ArraySlice<String>) -> String {
            words.joined(separator: " ").replacingOccurrences(of: "sch", with: "sh").replacingOccurrences(of: "ch", with: "sh")
        }
        guard Self.distance(sounds(said.prefix(w.count)), sounds(w[...])) <= Self.wakeThreshold else { return nil }
        return said.dropFirst(w.count).joined(separator: " ")
    }

    /// How far the wake phrase as Whisper wrote it may be from the wake phrase (share of letters edited).
    public static let wakeThreshold = 0.4

    /// How far heard words are from a command's form, word by word: 1 (no match) unless each heard word pairs,
    /// in order, with one word of the form at most `threshold` of the longer word's letters apart, and every word
    /// left unpaired on either side is an article ("ouvre les notes" is "ouvre notes"); else the letters edited
    /// (an unpaired article's all) over the longer phrase's letters, as `distance` counts them.
    ///
    /// Over the whole phrase's letters a word more or less can hide within the share: "7 9 inizia dettatura" is
    /// 0.20 from "inizia dettatura"; word by word it is two words that are not the command.
    static func wordDistance(_ heard: [String], _ form: [String], articles: Set<String>) -> Double {
        let none = Int.max
        // cost[i][j]: the fewest letters edited pairing heard[..<i] with form[..<j], none when they cannot pair.
        var cost = Array(repeating: Array(repeating: none, count: form.count + 1), count: heard.count + 1)
        cost[0][0] = 0
        for i in 0...heard.count {
            for j in 0...form.count where cost[i][j] != none {
                let c = cost[i][j]
                if i < heard.count, articles.contains(heard[i]) { cost[i + 1][j] = min(cost[i + 1][j], c + heard[i].count) }
                if j < form.count, articles.contains(form[j]) { cost[i][j + 1] = min(cost[i][j + 1], c + form[j].count) }
                if i < heard.count, j < form.count {
                    let h = heard[i], f = form[j]
                    let edits = h == f ? 0 : editDistance(Array(h), Array(f))
                    if Double(edits) <= threshold * Double(max(h.count, f.count)) {
                        cost[i + 1][j + 1] = min(cost[i + 1][j + 1], c + edits)
                    }
                }
            }
        }
        let edits = cost[heard.count][form.count]
        guard edits != none else { return 1 }
        let letters = max(heard.joined(separator: " ").count, form.joined(separator: " ").count)
        return Double(edits) / Double(max(1, letters))
    }

    /// The share of the longer text's characters that must be edited to make one the other.
    static func distance(_ a: String, _ b: String) -> Double {
        Double(editDistance(Array(a), Array(b))) / Double(max(1, max(a.count, b.count)))
    }

    /// Levenshtein distance between two character arrays.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let up = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = up
            }
        }
        return row[b.count]
    }
}

/// Whisper's scores of one command utterance against a screen's phrases (`CommandWords.scoredPhrases`), as
/// the worker answered them: what `CommandWords.scoredCommand` decides from, in the core, so that a replay of
/// the same answer acts as the live shell did.
public struct CommandScores: Equatable, Sendable {
    /// The phrases scored.
    public var phrases: [CommandWords.SpokenPhrase]
    /// Each one's score, in the same order (mean natural log-probability of its tokens given the audio; nil for
    /// a phrase without tokens).
    public var scores: [Double?]
    /// Each one's prior, in the same order: its score against silence, what the decoder expects of it unheard.
    public var priors: [Double?]
    /// The free text's own score and prior the same way (nil when Whisper wrote nothing).
    public var textScore: Double?, textPrior: Double?
    public init(phrases: [CommandWords.SpokenPhrase], scores: [Double?], priors: [Double?], textScore: Double?,
                textPrior: Double?) {
        self.phrases = phrases; self.scores = scores; self.priors = priors; self.textScore = textScore
        self.textPrior = textPrior
    }

    /// What the audio adds to a phrase: its score less its prior (nil without either).
    public static func evidence(_ score: Double?, _ prior: Double?) -> Double? {
        guard let score, let prior, score.isFinite, prior.isFinite else { return nil }
        return score - prior
    }
}

/// A language's number words, to write a run of them as digits ("veintitrés" → 23, "dreiundzwanzig" → 23,
/// "quatre-vingt-dix" → 90). Values below 100 add to each other only from larger to smaller (tens, then units),
/// a hundred multiplies the units before it, a scale ("mil", "tausend") multiplies what came before.
public struct NumberWords: Equatable, Sendable {
    /// Folded word → value: units, tens, the irregular compounds (es "veintitrés", fr "soixante-dix" as
    /// "soixante dix" is matched word by word: list "soixante" 60 and "dix" 10 and the run adds them), and whole
    /// hundreds ("doscientos" 200).
    public var values: [String: Int]
    /// Words for a hundred that multiply the unit before them ("hundert", "cent"), folded.
    public var hundred: Set<String>
    /// Scale words and their value ("mil" 1000, "millones" 1000000), folded.
    public var scales: [String: Int]
    /// Words that join parts of one number ("y", "e", "et", "und"), folded.
    public var joiners: Set<String>
    /// Whether a word made of number words run together is read by its parts ("dreiundzwanzig",
    /// "centoventitre"): German and Italian.
    public var compound: Bool
    /// Whether the unit comes before the ten ("drei und zwanzig"): German.
    public var unitsFirst: Bool

    public init(values: [String: Int], hundred: Set<String> = [], scales: [String: Int] = [:], joiners: Set<String> = [],
                compound: Bool = false, unitsFirst: Bool = false) {
        self.values = values; self.hundred = hundred; self.scales = scales; self.joiners = joiners
        self.compound = compound; self.unitsFirst = unitsFirst
    }

    enum Part: Equatable { case value(Int), hundred, scale(Int), joiner }

    /// The part a folded word is by itself, if it is listed.
    func single(_ word: String) -> Part? {
        if let v = values[word] { return .value(v) }
        if hundred.contains(word) { return .hundred }
        if let s = scales[word] { return .scale(s) }
        if joiners.contains(word) { return .joiner }
        return nil
    }

    /// The parts a folded word is made of, or nil when it is no number word.
    func parts(_ word: String) -> [Part]? {
        if let p = single(word) { return [p] }
        if word.contains("-") {
            // French and Portuguese write compounds with hyphens ("vingt-trois", "quatre-vingt-dix"): the longest
            // run of pieces that is a listed word first ("quatre-vingt" 80), then the rest.
            let pieces = word.split(separator: "-").map(String.init)
            for n in stride(from: pieces.count - 1, through: 1, by: -1) {
                let head = pieces.prefix(n).joined(separator: "-")
                guard let first = n == 1 ? single(head).map({ [$0] }) : values[head].map({ [Part.value($0)] }),
                      let rest = parts(pieces.dropFirst(n).joined(separator: "-")) else { continue }
                return first + rest
            }
            return nil
        }
        guard compound, word.count > 3 else { return nil }
        // Longest listed piece first, the rest read the same way ("centoventitre" = "cento" + "ventitre"). Only
        // a listed head is followed, so a long word that is no number costs a few look-ups per letter.
        for length in stride(from: word.count - 1, through: 2, by: -1) {
            let head = String(word.prefix(length))
            guard let part = single(head) else { continue }
            let first = [part]
            if let rest = parts(String(word.dropFirst(length))) {
                var all = first + rest
                if unitsFirst, all.count == 3, case .value(let u) = all[0], u < 10, all[1] == .joiner, case .value(let t) = all[2], t >= 20 {
                    all = [.value(t), .value(u)]
                }
                return all
            }
        }
        return nil
    }

    /// Words with runs of number words written as digits; a lone number word below ten stays a word.
    public func digits(_ words: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < words.count {
            if let (value, used, count) = number(at: i, in: words), !(count == 1 && value < 10) {
                // What was written after the last word ("veintitrés,") stays after the digits.
                let last = words[i + used - 1]
                out.append(String(value) + String(last.reversed().prefix { !($0.isLetter || $0.isNumber) }.reversed()))
                i += used
            } else {
                out.append(words[i])
                i += 1
            }
        }
        return out
    }

    /// The number a run starting at `start` says, the words it took and how many number parts it had.
    func number(at start: Int, in words: [String]) -> (Int, Int, Int)? {
        var total = 0, group = 0, count = 0, used = 0
        var joined = false
        var i = start
        wordLoop: while i < words.count {
            let w = SpeechLanguage.fold(words[i]).filter { $0.isLetter || $0 == "-" }
            // A word written with punctuation after it ("veintitrés,") ends the run.
            let closes = words[i].last.map { !($0.isLetter || $0.isNumber) } ?? false
            guard !w.isEmpty, let ps = parts(w) else { break }
            var g = group, t = total, n = count, j = joined
            for p in ps {
                switch p {
                case .joiner:
                    guard n > 0, !j else { break wordLoop }
                    j = true
                    continue
                case .value(let v):
                    let r = g % 100
                    let fits: Bool
                    if v >= 100 { fits = g == 0 }
                    else if v >= 20 { fits = r == 0 }
                    // French 70 and 90: "soixante-dix", "quatre-vingt-dix-sept".
                    else if v >= 10 { fits = r == 0 || ((r == 60 || r == 80) && g % 10 == 0) }
                    else { fits = r == 0 || (r >= 20 && g % 10 == 0) }
                    guard fits else { break wordLoop }
                    g += v
                case .hundred:
                    if g == 0 { g = 100 } else if g < 10 { g *= 100 } else { break wordLoop }
                case .scale(let s):
                    guard t == 0 || t % (s * 1000) == 0 else { break wordLoop }
                    t += max(g, 1) * s
                    g = 0
                }
                j = false
                n += 1
            }
            group = g; total = t; count = n; joined = j
            i += 1
            // A joiner is part of the number only when a number word follows it.
            if !joined { used = i - start }
            if closes { break }
        }
        guard count > 0, used > 0 else { return nil }
        return (total + group, used, count)
    }
}
