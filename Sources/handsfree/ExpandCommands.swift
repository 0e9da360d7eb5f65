import ArgumentParser
import Benchmarks
import Foundation
import Prediction
import Runtime

/// `handsfree expand INITIALS`: the best phrases for the first letters of their words, as `predict` gives words.
struct Expand: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Print the best whole phrases for a string of initials (\"iwlacot\"), words spelled out allowed (\"iwlac tea\")."),
        discussion: tr("""
        Letters run together are initials, one word each; after a space, a group of letters is a word spelled out in \
        full or in part, or more initials where no word reads better ("iwlac tea wm"). Prints one phrase a line, \
        best first: the user's own sentences that match (sentences.txt in the data folder), then the word model's. \
        At most {n} words.
        """, ["n": String(InitialsPattern.maxWords)]))

    @Argument(help: ArgumentHelp(tr("The initials (its parts are joined by single spaces)."))) var initials: [String]
    @Option(help: ArgumentHelp(tr("The text typed before the initials (the sentence so far)."))) var context = ""
    @Option(help: ArgumentHelp(tr("What the conversation partner said last: its words are more likely."))) var partner = ""
    @Option(name: .short, help: ArgumentHelp(tr("Number of phrases."))) var n = 3
    @Option(help: ArgumentHelp(tr("The user's sentence history (default sentences.txt in the data folder); 'none' for none."))) var history: String?
    @OptionGroup var files: PredictionFiles

    func validate() throws {
        guard (1...20).contains(n) else { throw ValidationError(tr("-n must be between 1 and 20")) }
        if case .failure(let problem) = InitialsPattern.parse(initials.joined(separator: " ")) { throw ValidationError("\(problem)") }
    }

    func run() throws {
        let predictor: WordPredictor
        do { predictor = try files.load(prebuilt: WordLists.compiled) } catch let e as PredictionError { throw ValidationError(e.message.shown) }
        let h = try SentenceHistoryFile.load(history, dataDir: files.dataDir)
        for line in predictor.expand(initials.joined(separator: " "), context: context, partner: partner, history: h, limit: n) {
            print(line)
        }
    }
}

/// Finding and reading the sentence history for the commands.
enum SentenceHistoryFile {
    /// The file `option` names (nil: the data folder's, "none": none).
    static func url(_ option: String?, dataDir: String?) -> URL? {
        if option == "none" { return nil }
        if let option, !option.isEmpty { return URL(fileURLWithPath: option) }
        return UserPaths.current(dataDir: dataDir).sentenceHistory
    }

    /// The history of that file, its warnings on standard error (file:line); empty for none.
    static func load(_ option: String?, dataDir: String?) throws -> SentenceHistory {
        guard let url = url(option, dataDir: dataDir) else { return SentenceHistory() }
        do {
            let loaded = try SentenceHistory.load(url)
            for w in loaded.warnings.prefix(20) { FileHandle.standardError.write(Data((tr("warning: {problem}", ["problem": w.message.shown]) + "\n").utf8)) }
            return loaded.history
        } catch { throw ValidationError(shown(error)) }
    }
}

/// `handsfree bench expand`: the intended phrase among the first few offered, with and without a history.
struct BenchExpand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expand",
        abstract: tr("How often initials expansion offers the intended phrase among the first N, with no history and with one learned from a separate text."),
        discussion: tr("""
        Phrases: one a line, or 'what the partner said<TAB>the phrase'. History: sentences the user said before, one a \
        line or as running text; a history sentence equal to the phrase being expanded is left out. Only phrases of \
        --min-words to --max-words words count.
        """))

    @Option(help: ArgumentHelp(tr("Phrase file (default: the shipped wordlists/phrases-en.txt)."))) var phrases: String?
    @Option(help: ArgumentHelp(tr("Text of the user's earlier sentences, kept apart from the phrases (default: the other phrases of the set)."))) var history: String?
    @Option(name: .short, help: ArgumentHelp(tr("Phrases offered; a hit is the intended phrase among them."))) var n = 3
    @Option(help: ArgumentHelp(tr("Shortest phrase counted, in words."))) var minWords = 3
    @Option(help: ArgumentHelp(tr("Longest phrase counted, in words."))) var maxWords = 8
    @Option(help: ArgumentHelp(tr("Say why each phrase missed with no history was missed, and show this many misses one by one."))) var explain = 0
    @Option(help: ArgumentHelp(tr("Share of the distinct phrases put once in the history for the 'said before' run (0: no such run)."))) var repeatShare = 0.5
    @Option(name: .customLong("set"), help: ArgumentHelp(tr("Tuning: name=value (beam, branch, initialsPenalty, partnerWeight, backoff, modelBackoff, sentenceEndWeight, lookahead, pool, conversationWeight, startConversationWeight, secondConversationWeight, partnerConversationWeight, utteranceWeight, historyPrefix, learnHistory); repeatable.")))
    var settings: [String] = []
    @Option(help: ArgumentHelp(tr("Only these runs, comma-separated (none, partner, spelled, history, history-partner, earlier, said-before); default: all.")))
    var runs: String?
    @Option(help: ArgumentHelp(tr("Only the first N phrases of the file (0: all)."))) var limit = 0
    @OptionGroup var files: PredictionFiles

    /// The runs `--runs` names (nil: all).
    func chosenRuns() throws -> Set<ExpandBench.Run>? {
        guard let runs else { return nil }
        return Set(try runs.split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let r = ExpandBench.Run(rawValue: name) else { throw ValidationError(tr("--runs: unknown run '{name}'", ["name": name])) }
            return r
        })
    }

    func validate() throws {
        guard (1...20).contains(n) else { throw ValidationError(tr("-n must be between 1 and 20")) }
        guard limit >= 0 else { throw ValidationError(tr("--limit must be 0 or more")) }
        _ = try chosenRuns()
        guard (0...1).contains(repeatShare) else { throw ValidationError(tr("--repeat-share must be between 0 and 1")) }
        guard minWords >= 1, minWords <= maxWords else { throw ValidationError(tr("--min-words must be between 1 and --max-words")) }
    }

    func run() throws {
        printDebugBuildNote()
        let predictor: WordPredictor
        do { predictor = try files.load(useUserFile: false, prebuilt: WordLists.compiled) } catch let e as PredictionError { throw ValidationError(e.message.shown) }
        let path = phrases ?? WordLists.folder.appendingPathComponent("phrases-en.txt").path
        var items: [ExpandBench.Item] = []
        for line in try BenchTyping.read(path, max: 64 << 20).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            let phrase = String(parts.last ?? "").trimmingCharacters(in: .whitespaces)
            guard !phrase.isEmpty else { continue }
            items.append(.init(phrase: phrase, partner: parts.count > 1 ? String(parts[0]) : ""))
        }
        if limit > 0 { items = Array(items.prefix(limit)) }
        // Without a history text, each phrase has the others for its history (never itself: `ExpandBench`).
        let sentences = try history.map { try BenchTyping.read($0, max: 64 << 20).split(separator: "\n").map(String.init) }
            ?? items.map(\.phrase)
        var bench = ExpandBench(items: items, history: sentences)
        bench.top = n
        bench.words = minWords...maxWords
        bench.explain = explain
        bench.repeatShare = repeatShare
        bench.runs = try chosenRuns()
        for kv in settings {
            let parts = kv.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let v = Double(parts[1]) else { throw ValidationError(tr("--set needs name=number, got '{value}'", ["value": kv])) }
            switch parts[0] {
            case "beam": bench.settings.beam = Int(v)
            case "branch": bench.settings.branch = Int(v)
            case "initialsPenalty": bench.settings.initialsPenalty = v
            case "partnerWeight": bench.settings.partnerWeight = v
            case "backoff": bench.settings.backoff = v
            case "historyPrefix": bench.settings.historyPrefix = v != 0
            case "learnHistory": bench.learnHistory = v != 0
            case "modelBackoff": bench.settings.modelBackoff = v != 0
            case "sentenceEndWeight": bench.settings.sentenceEndWeight = v
            case "lookahead": bench.settings.lookahead = v != 0
            case "pool": bench.settings.pool = Int(v)
            case "conversationWeight": bench.settings.conversationWeight = v
            case "utteranceWeight": bench.settings.utteranceWeight = v
            case "startConversationWeight": bench.settings.startConversationWeight = v
            case "secondConversationWeight": bench.settings.secondConversationWeight = v
            case "partnerConversationWeight": bench.settings.partnerConversationWeight = v
            default: throw ValidationError(tr("--set: unknown name '{name}'", ["name": String(parts[0])]))
            }
        }
        print("expand: \(items.count) phrases of \(path); history: " + (history.map { "\(sentences.count) lines of \($0)" } ?? "the other phrases of the set"))
        print("goals: among the first 3 for ≥ 50% of 3-8-word phrases with no history, ≥ 75% with history; p99 ≤ 20 ms for 8 initials (bench predict)")
        _ = bench.run(predictor, out: { print($0) })
    }
}
