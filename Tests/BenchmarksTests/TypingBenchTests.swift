import Benchmarks
import Config
import Foundation
import Prediction
import Runtime
import Shell
import Testing
import TrackingCore

/// `bench typing`'s inputs and harness: phrase files and profile files with bad lines, and a tiny run whose
/// typed text must equal the phrases (never how fast: a test is not a benchmark).
struct TypingBenchTests {
    static let keys: Set<Character> = Set(Keymap.defaultKeyboardRows.joined())

    static func shippedProfiles() throws -> [TypingProfile] {
        let path = ProjectPaths.dir("config").appendingPathComponent("typing-profiles.toml").path
        return try TypingProfile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    }

    @Test func theShippedPhrasesAndProfilesAreReadWhole() throws {
        let path = WordLists.folder.appendingPathComponent("phrases-en.txt").path
        let (phrases, problems) = PhraseSet.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, keys: Self.keys)
        #expect(problems.isEmpty)
        #expect(phrases.count == 40)
        let profiles = try Self.shippedProfiles()
        #expect(profiles.map(\.name) == ["eye-tracker", "webcam", "slow"])
        #expect(profiles.allSatisfy { !$0.sources.isEmpty })
        #expect(profiles.first { $0.name == "slow" }?.latencyMax == 1.0)
    }

    @Test func untypableEmptyAndHugeLinesAreNamedAndSkipped() {
        let huge = String(repeating: "a", count: 1 << 20)
        let text = "# a comment\nhello there\n\nwhat is 2 plus 2\nCAPITALS  are   fine\n\(huge)\ncafé au lait\nthe end\n"
        let (phrases, problems) = PhraseSet.parse(text, file: "p.txt", keys: Self.keys)
        #expect(phrases == ["hello there", "capitals are fine", "the end"])
        #expect(problems == [
            "p.txt:3: empty line, skipped",
            "p.txt:4: “2” cannot be typed on the keyboard, skipped",
            "p.txt:6: a line of 1048576 bytes (a phrase is at most 200 characters), skipped",
            "p.txt:7: “é” cannot be typed on the keyboard, skipped",
        ])
        // A control character is named by its code, not printed.
        #expect(PhraseSet.parse("bell\u{7}here", file: "q", keys: Self.keys).problems == ["q:1: U+7 cannot be typed on the keyboard, skipped"])
    }

    /// The shipped eye-tracker profile with one line replaced.
    static func profile(replacing key: String, with line: String?) throws -> String {
        let path = ProjectPaths.dir("config").appendingPathComponent("typing-profiles.toml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "[profile.eye-tracker]"),
              let i = lines[start...].firstIndex(where: { $0.hasPrefix(key + " =") }) else { return text }
        if let line { lines[i] = line } else { lines.remove(at: i) }
        return lines.joined(separator: "\n")
    }

    static func error(_ text: String) -> String? {
        do { _ = try TypingProfile.parse(text, file: "u.toml"); return nil } catch { return error.description }
    }

    @Test func impossibleOrMissingProfileValuesGiveFileAndLine() throws {
        let text = try Self.profile(replacing: "latency_ms", with: "latency_ms = -200")
        let line = (text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == "latency_ms = -200" } ?? 0) + 1
        #expect(Self.error(text) == "u.toml:\(line): profile.eye-tracker.latency_ms = -200.0: cannot be negative")
        #expect(Self.error(try Self.profile(replacing: "noise", with: "noise = nan"))?.contains("profile.eye-tracker.noise = nan: must be a finite number") == true)
        #expect(Self.error(try Self.profile(replacing: "scan_ms", with: "scan_ms = \"fast\""))?.contains("scan_ms must be a number") == true)
        let missing = try Self.profile(replacing: "scan_ms", with: nil)
        let header = (missing.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == "[profile.eye-tracker]" } ?? 0) + 1
        #expect(Self.error(missing) == "u.toml:\(header): profile.eye-tracker: scan_ms is missing")
        #expect(Self.error(try Self.profile(replacing: "pointer", with: "pointer = \"nose\""))?.contains("must be \"eye\" or \"head\"") == true)
        #expect(Self.error(try Self.profile(replacing: "error_rate", with: "error_rat = 0.1"))?.contains("error_rat: unknown key") == true)
        #expect(Self.error("x = 1\n") == "u.toml: no [profile.NAME] table")
    }

    @Test func twoShortPhrasesAreTypedExactlyWithAndWithoutPrediction() throws {
        let predictor = try WordLists.load()
        guard let eye = try Self.shippedProfiles().first(where: { $0.name == "eye-tracker" }) else { Issue.record("no eye-tracker"); return }
        let phrases = ["good night", "the cat is here"]
        let bench = TypingBench(phrases: phrases, profiles: [eye], predictor: predictor)
        let activate = bench.settings.gestures.first { $0.name == "activate" }
        guard case .threshold(let spec) = activate?.kind else { Issue.record("no activate gesture"); return }
        let keyHold = spec.hold(onKey: true)
        var lines: [String] = []
        let results = try bench.run { lines.append($0) }
        #expect(results.map(\.prediction) == [true, true, false])
        #expect(results.map(\.reading) == [.key, .bar, .bar])
        for r in results {
            #expect(r.texts == phrases, "\(r.prediction ? "with prediction, \(r.reading.rawValue)" : "without prediction")")
            #expect(r.abandoned == 0)
            #expect(r.characters == phrases.reduce(0) { $0 + $1.count })
            #expect(r.errors.uncorrected == 0)
            print(TypingBench.line(r), r.keystrokes, r.selections, r.charactersTyped)
        }
        #expect(results[2].selections == 0, "no suggestions without prediction")
        #expect(results[2].ksr == nil && TypingBench.line(results[2]).contains("KSR —"), "no prediction, no savings to report")
        #expect((results[0].ksr ?? 0) > 0)
        // Prediction against none, in words: faster or slower, never a negative "faster".
        let comparisons = lines.filter { $0.contains("without:") }
        #expect(comparisons.count == 2)
        #expect(comparisons.allSatisfy { ($0.hasSuffix("faster") || $0.hasSuffix("slower") || $0.hasSuffix("as fast")) && !$0.contains(" -") },
                "\(comparisons)")
        // Reading the word on the key costs no look at the bar; committed words there are key + word in one action.
        #expect(results[0].time.reading < results[1].time.reading)
        #expect(results[0].selections > 0)
        #expect(results[0].seconds < results[2].seconds, "the word on the key is faster than no prediction")
        // Each run also says where its time went by action; that adds up to its time (the actions count the frames
        // each wait really took, up to a frame more than the wait), and without prediction no word is taken and
        // every key is a letter or a space.
        #expect(lines.count == 11)
        #expect(lines.filter { $0.contains("by action: letters") }.count == 3)
        // And each says how long a jaw's and a tongue's action took, step by step: one step record per action, the
        // jaw held at least the activate gesture's hold before its key acted.
        #expect(lines.filter { $0.contains("each jaw action (") && $0.contains("face until it acts") }.count == 3)
        for r in results {
            #expect(abs(r.actions.total - r.time.total) <= 0.05 * r.time.total, "\(r.actions) against \(r.time)")
            #expect(r.jawSteps.count + r.tongueSteps.count == r.actions.letterCount + r.actions.spaceCount + r.actions.takeCount,
                    "\(r.jawSteps) \(r.tongueSteps) \(r.actions)")
            // (On the keys one ⌫ undoes, the activate gesture's shorter `key_hold_ms`.)
            #expect(r.jawSteps.untilActed >= keyHold * Double(r.jawSteps.count), "\(r.jawSteps)")
        }
        #expect(results[2].tongueSteps.count == 0)
        #expect(results[2].actions.takeCount == 0 && results[2].actions.taking == 0)
        #expect(results[2].actions.letterCount + results[2].actions.spaceCount >= phrases.reduce(0) { $0 + $1.count } - phrases.count)
        #expect(results[0].actions.takeCount > 0 && results[0].actions.taking > 0)
    }

    @Test func theWebcamConfigIsTypedWithItsKeymapAndPursedLips() throws {
        // `bench typing --config webcam`: the webcam keymap (no tongue: pursed lips commit) and its 900 ms hold.
        let predictor = try WordLists.load()
        guard let webcam = try Self.shippedProfiles().first(where: { $0.name == "webcam" }) else { Issue.record("no webcam"); return }
        let phrases = ["the cat is here"]
        var bench = TypingBench(phrases: phrases, profiles: [webcam], predictor: predictor)
        bench.settings = try Setup.settings(config: "webcam")
        bench.keymapName = "webcam"
        bench.commitShape = .mouthPucker
        let r = try bench.type(webcam, prediction: predictor, reading: .key)
        #expect(r.texts == phrases)
        #expect(r.abandoned == 0 && r.errors.uncorrected == 0)
        #expect(r.selections > 0 && r.tongueSteps.count == r.selections, "words taken with the lips: \(r.selections), \(r.tongueSteps)")
        #expect(r.jawSteps.untilActed >= 0.9 * Double(r.jawSteps.count), "the webcam config's hold: \(r.jawSteps)")
    }

    @Test func theWebcamConfigTypesDoubleLettersWithoutPrediction() throws {
        // The same key twice: the user reopens a quarter of a second after closing. The webcam's calm (400 ms still
        // before an opening) counted none of those until a reopening after a fired one needed only repeat_calm_ms.
        let predictor = try WordLists.load()
        guard let webcam = try Self.shippedProfiles().first(where: { $0.name == "webcam" }) else { Issue.record("no webcam"); return }
        let phrases = ["good book"]
        var bench = TypingBench(phrases: phrases, profiles: [webcam], predictor: predictor)
        bench.keymapName = "webcam"
        bench.commitShape = .mouthPucker
        bench.settings = try Setup.settings(config: "webcam")
        let r = try bench.type(webcam, prediction: nil)
        #expect(r.texts == phrases && r.abandoned == 0 && r.errors.uncorrected == 0, "\(r.texts)")
        // Without the repeat rule the phrase is not typed as it stands: the trap this guards against.
        bench.settings = try Setup.settings(config: "webcam", overrides: ["gesture.activate.repeat_calm_ms=0"])
        let strict = try bench.type(webcam, prediction: nil)
        #expect(strict.texts != phrases || strict.abandoned > 0)
    }

    @Test func theShippedKeyCalmKeepsDoubleLettersAtTheKeyHold() throws {
        // "ll", "oo": the same key twice by two openings, on the shipped config (key hold 150 ms, key_calm_ms 500).
        // A fired opening never counts against the next, so each letter still acts after the key hold.
        let predictor = try WordLists.load()
        guard let eye = try Self.shippedProfiles().first(where: { $0.name == "eye-tracker" }) else { Issue.record("no eye-tracker"); return }
        let phrases = ["all good"]
        var bench = TypingBench(phrases: phrases, profiles: [eye], predictor: predictor)
        let activate = bench.settings.gestures.first { $0.name == "activate" }
        guard case .threshold(let spec) = activate?.kind, spec.keyCalm != nil else {
            Issue.record("the shipped activate gesture has no key_calm_ms"); return
        }
        let r = try bench.type(eye, prediction: nil)
        #expect(r.texts == phrases && r.abandoned == 0 && r.errors.uncorrected == 0, "\(r.texts)")
        // The jaw acted sooner on average than the full hold alone takes (0.41 s a letter at 300 ms, 0.26 s at
        // 150): the guard did not take the key hold from the second letter of a pair.
        #expect(r.jawSteps.untilActed < spec.hold * Double(r.jawSteps.count), "\(r.jawSteps)")
        // And exactly as soon as without the guard: it withheld the key hold from none of them.
        bench.settings = try Setup.settings(config: "gestures", overrides: ["gesture.activate.key_calm_ms=0"])
        let bare = try bench.type(eye, prediction: nil)
        #expect(bare.texts == phrases && abs(bare.jawSteps.untilActed - r.jawSteps.untilActed) < 1e-9,
                "\(r.jawSteps) against \(bare.jawSteps)")
    }

    @Test func everyMethodTypesThePhrasesExactlyWithAndWithoutHistory() throws {
        let predictor = try WordLists.load()
        guard let eye = try Self.shippedProfiles().first(where: { $0.name == "eye-tracker" }) else { Issue.record("no eye-tracker"); return }
        let phrases = ["how are you", "i am cold"]
        var bench = TypingBench(phrases: phrases, profiles: [eye], predictor: predictor)
        bench.methods = [.word, .phrases, .initials]
        bench.history = ["how are you", "how are you doing today", "how are you doing today", "i am hungry"]
        var lines: [String] = []
        let results = try bench.run { lines.append($0) }
        #expect(results.map(TypingBench.name) == ["word on the key", "word on the key, with history", "phrase continuation",
                                                  "phrase continuation, with history", "initials", "initials, with history",
                                                  "bar only", "bar only"])
        for r in results {
            #expect(r.texts == phrases, "\(TypingBench.name(r))")
            #expect(r.errors.uncorrected == 0)
            #expect(r.abandoned == 0)
        }
        // Initials: "how are you" is said twice in the history (never the phrase typed: "how are you" is left
        // out), so its phrase comes from the model or the longer sentence. With the whole CMU model "How about
        // you" comes before "How are you" and "i am cold" is not among the first 3, so the two phrases now take
        // as many actions as their letters (fewer before): no more than that.
        // The shorter key hold changed how many frames each action takes, and with them the random slips: this run
        // mends one slip more than with the full hold (the wrong key and its ⌫: 22 actions against 20).
        #expect(results[4].keystrokes + results[4].selections <= phrases.reduce(0) { $0 + $1.count } + 2)
        #expect(lines.contains { $0.contains("prediction (initials, with history)") })
    }
}
