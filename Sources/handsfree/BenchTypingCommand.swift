import ArgumentParser
import Benchmarks
import Config
import Foundation
import Prediction
import Runtime
import Shell
import TrackingCore

/// `handsfree bench typing`: simulated users type a phrase set through the real session on the note editor,
/// with word prediction and without (`TypingBench`).
struct BenchTyping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typing",
        abstract: tr("Words per minute, errors (MSD), keystrokes per character, KSR and where the time goes, for simulated users typing on the note editor, with and without prediction."),
        discussion: tr("Phrases: one a line, lowercased (the keyboard has no capitals); lines the keyboard cannot type, empty lines and overlong lines are named and skipped. Profiles: config/typing-profiles.toml (every value with its source)."))

    @Option(help: ArgumentHelp(tr("Phrase file (default: the shipped wordlists/phrases-en.txt)."))) var phrases: String?
    @Option(help: ArgumentHelp(tr("Simulated user: a profile name of the profile file (default: every profile)."))) var user: String?
    @Option(help: ArgumentHelp(tr("Profile file (default: config/typing-profiles.toml)."))) var profiles: String?
    @Option(help: ArgumentHelp(tr("Type only the first N phrases."))) var limit: Int?
    @Option(help: ArgumentHelp(tr("Random seed."))) var seed: UInt64 = 1
    @Option(help: ArgumentHelp(tr("Keyboard letter rows separated by '/', e.g. \"qwertyuiop/asdfghjkl'/zxcvbnm,.?\" (default: the keymap's).")))
    var rows: String?
    @Flag(help: ArgumentHelp(tr("Say first what wpm, KSPC, KSR and MSD mean, one line each."))) var explain = false
    @Option(help: ArgumentHelp(tr("What the key offers, comma-separated: word (the word on the key), phrases (phrase continuation), initials (default: all three).")))
    var methods = "word,phrases,initials"
    @Option(help: ArgumentHelp(tr("The user's earlier sentences for the runs with a history, one a line (default: the other phrases of the set; the phrase being typed is never in it); 'none': no runs with a history.")))
    var history: String?
    @Option(name: .customLong("phrase-set"), help: ArgumentHelp(tr("Phrase prediction: name=value (continuationConfidence, historyShare, historyUses, historyWordUses, historyWordContext, continuationWords, nextWordConfidence, nextWords, beam, branch, backoff); repeatable.")))
    var phraseSet: [String] = []
    @OptionGroup var pipeline: PipelineOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        _ = try chosenMethods()
    }

    func chosenMethods() throws -> [TypingBench.Method] {
        try methods.split(separator: ",").map { name -> TypingBench.Method in
            switch name {
            case "word": return .word
            case "phrases": return .phrases
            case "initials": return .initials
            default: throw ValidationError("--methods: '\(name)' is not word, phrases or initials")
            }
        }
    }

    /// A text file, at most `max` bytes.
    static func read(_ path: String, max: Int) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ValidationError("\(path): cannot be read") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: max + 1)) ?? Data()
        guard data.count <= max else { throw ValidationError("\(path): more than \(max) bytes; a phrase set is smaller") }
        return String(decoding: data, as: UTF8.self)
    }

    func run() throws {
        // No debug-build note: every figure is in the simulated users' time, the same in any build.
        let profilePath = profiles ?? ProjectPaths.dir("config").appendingPathComponent("typing-profiles.toml").path
        let profileText = try Self.read(profilePath, max: Setup.maxTextFileSize)
        var users: [TypingProfile]
        do { users = try TypingProfile.parse(profileText, file: profilePath) } catch { throw ValidationError(error.shown.shown) }
        if let user {
            users = users.filter { $0.name == user }
            guard !users.isEmpty else { throw ValidationError(tr("--user {user}: no such profile in {file}", ["user": user, "file": profilePath])) }
        }
        let phrasePath = phrases ?? WordLists.folder.appendingPathComponent("phrases-en.txt").path
        let (all, problems) = PhraseSet.parse(try Self.read(phrasePath, max: 64 << 20), file: phrasePath, keys: try TypingBench.keys())
        for p in problems { FileHandle.standardError.write(Data("handsfree: \(p)\n".utf8)) }
        let chosen = Array(all.prefix(limit ?? all.count))
        guard !chosen.isEmpty else { throw ValidationError("\(phrasePath): no phrase the keyboard can type") }
        let predictor: WordPredictor
        do {
            // The installed compiled lists when they are of these lists, as `expand` and `predict` read them.
            predictor = try WordLists.load(prebuilt: WordLists.compiled)
        } catch { throw ValidationError("word prediction: \(error)") }
        if let notice = WordLists.languageModelNotice { print("note: \(notice.shown)") }
        print("typing: \(chosen.count) phrases of \(phrasePath) (\(problems.count) lines skipped), \(chosen.reduce(0) { $0 + $1.count }) characters; "
              + "the note editor with the default keymap (jaw activates, tongue commits ★), 60 frames/s through the session")
        print("goals: eye-tracker ≥ 20 wpm, webcam ≥ 12 wpm, slow user ≥ 10 wpm, uncorrected errors ≤ 1%")
        if explain { print(TextEntryRate.explanations.map(\.shown).joined(separator: "\n")) }
        var bench = TypingBench(phrases: chosen, profiles: users, predictor: predictor)
        bench.seed = seed
        bench.settings = try pipeline.settings()
        // The webcam config commits with pursed lips (MediaPipe sees no tongue): its own keymap, as `bench gestures` does.
        if pipeline.config == "webcam" { bench.keymapName = "webcam"; bench.commitShape = .mouthPucker }
        bench.keyboardRows = rows.map { $0.split(separator: "/").map(String.init) }
        bench.methods = try chosenMethods()
        for kv in phraseSet {
            let parts = kv.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let v = Double(parts[1]) else { throw ValidationError("--phrase-set needs name=number, got '\(kv)'") }
            switch parts[0] {
            case "continuationConfidence": bench.phraseSettings.continuationConfidence = v
            case "historyShare": bench.phraseSettings.historyShare = v
            case "historyUses": bench.phraseSettings.historyUses = Int(v)
            case "historyWordUses": bench.phraseSettings.historyWordUses = Int(v)
            case "historyWordContext": bench.phraseSettings.historyWordContext = Int(v)
            case "continuationWords": bench.phraseSettings.continuationWords = Int(v)
            case "nextWordConfidence": bench.phraseSettings.nextWordConfidence = v
            case "nextWords": bench.phraseSettings.nextWords = Int(v)
            case "beam": bench.phraseSettings.beam = Int(v)
            case "branch": bench.phraseSettings.branch = Int(v)
            case "backoff": bench.phraseSettings.backoff = v
            default: throw ValidationError("--phrase-set: unknown name '\(parts[0])'")
            }
        }
        switch history {
        case "none"?: bench.history = nil
        case let path?: bench.history = try Self.read(path, max: 64 << 20).split(separator: "\n").map(String.init)
        case nil: bench.history = all
        }
        print("history: " + (history == "none" ? "none" : history.map { "\(bench.history?.count ?? 0) lines of \($0)" }
              ?? "the other phrases of the set") + " (never the phrase being typed)")
        _ = try printing { try bench.run(out: $0) }
    }
}
