import Config
import Foundation
import Runtime
import Shell
import Speech
import SpeechText

/// `bench speech --language es,fr,…`: per language, the pack's everyday sentences and commands (`[bench]` in
/// `languages/LL/speech.toml`) said by espeak-ng's voice for the language, transcribed by the language's Whisper
/// (the multilingual base), beside English's sentences said by flite and transcribed by tiny.en in the same run.
/// Word error rate, decode time per utterance, commands recognised as the right phrase, sentences taken for a
/// command. With `speech = .tuxpaint` the speech is real instead: the stamp descriptions volunteers recorded for
/// Tux Paint (`TuxPaintSpeech`), English's too.
public struct SpeechLanguagesBench {
    /// Where the speech comes from.
    public enum Source: String, Sendable, CaseIterable {
        /// The pack's `[bench]` sentences said by espeak-ng (English: flite).
        case synthetic
        /// Tux Paint's recorded stamp descriptions (Debian `tuxpaint-stamps-default`).
        case tuxpaint
        /// Asterisk's recorded telephone prompts (Debian `asterisk-core-sounds-LL-wav`): es, fr, it, and en.
        case asterisk
    }

    /// The languages, by code.
    public var languages: [String]
    /// Print every hypothesis.
    public var verbose = false
    /// Give Whisper the commands as its prompt when it hears a command.
    public var promptCommands = true
    /// Where the speech comes from.
    public var speech = Source.synthetic
    /// Whether the command prompt lists the launcher's own phrases in the language besides its "open …" ones
    /// (`CommandWords.commandPrompt`'s `screenPhrases`; the shell's choice unless told).
    public var screenPhrasesInPrompt = CommandWords.promptsScreenPhrases
    /// Recordings per language from the fixed shuffle (`.tuxpaint`; nil: all).
    public var limit: Int?
    /// Whisper's beam width for dictation in the languages other than English; nil: each pack's
    /// (`SpeechLanguage.dictationBeam`), as the shell runs it. Commands are greedy, as in the shell.
    public var beam: Int?
    /// The model for the languages other than English (nil: `WhisperWorker.defaultModel`, the multilingual base).
    public var model: String?
    /// Give Whisper two of the pack's own sentences as the text before the caret when it dictates, as a note
    /// already written in the language would (the shell gives it the text before the caret, none in an empty note).
    public var languagePrompt = false
    /// Let the worker decode an unlikely-looking text again at rising temperatures (faster-whisper's default,
    /// as the shell runs it).
    public var temperatureFallback = true

    public init(languages: [String]) { self.languages = languages }

    /// English's peer row: the same everyday sentences as the packs', in English.
    static let english = [
        "Hello, how are you today?", "I would like to open the notes.", "Tomorrow I will visit my sister in London.",
        "Please call the doctor this afternoon.", "I am thirsty, I would like a glass of water.",
        "The train leaves at eight in the morning.", "I really like reading books in the garden.",
        "Can you close the window, please?",
    ]

    /// One language's measures.
    public struct Row: Sendable {
        public var language: String
        public var errors = 0, words = 0
        public var decodeMs: [Double] = []
        public var commandsRight = 0, commands = 0
        public var sentencesTaken = 0, sentences = 0
        /// Sentences taken for a command when heard as a command utterance is (with the commands as Whisper's
        /// prompt), as the live shell hears what is said while its microphone is open for a command.
        public var sentencesTakenPrompted = 0
        /// The same counts with the letters of the whole phrase compared (`CommandWords.Matching.letters`, the
        /// decision before word-by-word matching), on the same texts.
        public var commandsRightByLetters = 0, sentencesTakenByLetters = 0, sentencesTakenPromptedByLetters = 0
        /// The same utterances decided by the screen's phrases scored against the audio
        /// (`CommandWords.scoredCommand`): commands right, and sentences heard as a command taken for one.
        public var commandsRightScored = 0, sentencesTakenScored = 0
        /// The worker's time scoring the phrases, per command utterance, and how many phrases it scored.
        public var scoreMs: [Double] = []
        /// The worker's CPU time scoring the phrases, per command utterance.
        public var scoreCpuMs: [Double] = []
        public var phrasesScored = 0
        /// Errors and words of the utterances of at least `longUtterance` words (real speech): dictation is
        /// mostly sentences, the recordings mostly a name or two.
        public var longErrors = 0, longWords = 0
        /// Requests the worker gave up on (no answer within its limit).
        public var failures = 0
        public var wer: Double { words == 0 ? 0 : Double(errors) / Double(words) }
    }

    public func run(out: BenchReport) throws {
        if speech != .synthetic { return try runRecorded(out: out) }
        out("speech per language: synthetic speech (espeak-ng's voice; English: flite's rms), Whisper int8 greedy, fitted window")
        out(Self.commandsLegend)
        out("language  model                WER     decode p50  p90      commands right  sentences taken for a command (heard as one)")
        var english = Row(language: "en")
        do {
            let w = try OfflineSpeech.whisperWorker(model: WhisperWorker.defaultModel(language: "en"))
            defer { w.stop() }
            let flite = try FliteVoice()
            for s in Self.english {
                let audio = try flite.synthesize(s, rate: 1).resampled(to: 16_000).samples
                try measure(&english, s, audio, w, language: nil, out: out)
            }
            out(Self.line(english, model: "tiny.en"))
        } catch {
            out("en: skipped (\(error))")
        }
        for code in languages {
            let file = SpeechPack.file(code)
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { out("\(code): skipped (no \(file.path))"); continue }
            do {
                let language = try SpeechFile.parse(text, file: file.path, code: code)
                let (sentences, commands) = try Self.benchData(text, file: file.path)
                let w = try OfflineSpeech.whisperWorker(model: model ?? WhisperWorker.defaultModel(language: code), language: code)
                defer { w.stop() }
                let voice = try EspeakVoice(language: code)
                var row = Row(language: code)
                let (candidates, prompt, screenPhrases) = try commandScreen(language, commands)
                let scored = language.commands.scoredPhrases(screenPhrases)
                out("  \(code) command prompt (the launcher's, as the shell gives it): \(prompt)")
                out("  \(code) phrases scored (\(scored.count)): " + scored.map(\.said).joined(separator: ", "))
                if verbose { out("  \(code) phrases-json " + Self.phrasesJSON(scored)) }
                for s in sentences {
                    let audio = try voice.synthesize(s, rate: 1).resampled(to: 16_000).samples
                    let heard = try measure(&row, s, audio, w, language: code, beam: beam ?? language.dictationBeam, out: out)
                    row.sentences += 1
                    if let m = language.commands.nearest(heard, among: candidates) {
                        row.sentencesTaken += 1
                        if verbose { out("  \(code) taken for \"\(m.phrase)\": \(heard)") }
                    }
                    if Self.byLetters(language.commands).nearest(heard, among: candidates) != nil { row.sentencesTakenByLetters += 1 }
                    guard promptCommands else { continue }
                    let heardAsCommand = try w.transcribe(audio, prompt: prompt, phrases: scored.map(\.said))
                    let prompted = heardAsCommand.text
                    let byScore = Self.scoredDecision(language.commands, heardAsCommand, scored, screenPhrases, &row)
                    if byScore != nil { row.sentencesTakenScored += 1 }
                    if language.commands.nearest(prompted, among: candidates) != nil { row.sentencesTakenPrompted += 1 }
                    if Self.byLetters(language.commands).nearest(prompted, among: candidates) != nil { row.sentencesTakenPromptedByLetters += 1 }
                    if verbose {
                        out("  \(code) heard as a command: \(prompted) → \(Self.decided(language.commands, prompted, candidates)); "
                            + Self.scoredShown(heardAsCommand, scored, byScore))
                        out("  \(code) scores-json " + Self.scoresJSON(heardAsCommand, said: s, expected: nil,
                                                                  near: language.commands.nearest(prompted, among: screenPhrases)?.phrase,
                                                                  seconds: Double(audio.count) / 16_000))
                    }
                }
                for (said, expected) in commands {
                    let audio = try voice.synthesize(said, rate: 1).resampled(to: 16_000).samples
                    let r = try w.transcribe(audio, prompt: promptCommands ? prompt : nil, phrases: scored.map(\.said))
                    let m = language.commands.nearest(r.text, among: candidates)
                    let byScore = Self.scoredDecision(language.commands, r, scored, screenPhrases, &row)
                    row.commands += 1
                    if m?.phrase == expected { row.commandsRight += 1 }
                    if let byScore, Self.same(byScore, expected) { row.commandsRightScored += 1 }
                    if Self.byLetters(language.commands).nearest(r.text, among: candidates)?.phrase == expected { row.commandsRightByLetters += 1 }
                    if verbose {
                        out("  \(code) command \(m?.phrase == expected ? "right" : "MISSED") \"\(said)\" (\(expected)) → \(r.text) → "
                            + Self.decided(language.commands, r.text, candidates) + "; " + Self.scoredShown(r, scored, byScore))
                        out("  \(code) scores-json " + Self.scoresJSON(r, said: said, expected: expected,
                                                                  near: language.commands.nearest(r.text, among: screenPhrases)?.phrase,
                                                                  seconds: Double(audio.count) / 16_000))
                    }
                }
                out(Self.line(row, model: "base (multilingual)"))
            } catch {
                out("\(code): skipped (\(error))")
            }
        }
    }

    /// The phrases a screen offers (the keymap's English ones and the pack's commands' own) and Whisper's prompt
    /// for a command utterance: the live shell's (`CommandWords.commandPrompt`) for the launcher drawn in the
    /// language, where the pack's bench commands are said (its "open …" targets; every keymap phrase is the
    /// launcher's too).
    func commandScreen(_ language: SpeechLanguage, _ commands: [(said: String, english: String)]) throws
        -> (candidates: [String], prompt: String, screenPhrases: [String]) {
        let candidates = Array(Set(commands.map(\.english) + language.commands.phrases.map(\.value))).sorted()
        let launcher = ShellState(keymap: try Setup.keymap("default", gestures: GestureDefaults.definitions),
                                  catalog: Translations.catalog(language.code))
        let prompt = language.commands.commandPrompt(launcher.voicePhrases, screenPhrases: screenPhrasesInPrompt)
        return (candidates, prompt, launcher.voicePhrases)
    }

    /// The command the screen's phrases scored against the audio make of a worker's answer (the shell's rule,
    /// `CommandWords.scoredCommand`, among the launcher's phrases), its scoring time added to `row`.
    static func scoredDecision(_ commands: CommandWords, _ r: WhisperResult, _ scored: [CommandWords.SpokenPhrase],
                               _ screenPhrases: [String], _ row: inout Row) -> String? {
        row.scoreMs.append(r.scoreMs)
        row.scoreCpuMs.append(r.scoreCpuMs)
        row.phrasesScored = scored.count
        let scores = CommandScores(phrases: scored, scores: r.phraseScores, priors: r.phrasePriors, textScore: r.textScore,
                                   textPrior: r.textPrior)
        return commands.scoredCommand(scores, heard: r.text, among: screenPhrases)?.phrase
    }

    /// One command utterance's scores as a JSON line, for `--verbose` (to weigh other rules on the same answers):
    /// what was said and expected (nil for a sentence), the free text and the screen phrase `nearest` makes of
    /// it, the utterance's seconds, and the worker's scores and priors in the order of the phrases listed once
    /// per language ("phrases scored").
    static func scoresJSON(_ r: WhisperResult, said: String, expected: String?, near: String?, seconds: Double) -> String {
        let fields: [String: Any] = [
            "said": said, "expected": expected ?? NSNull(), "heard": r.text, "near": near ?? NSNull(), "seconds": seconds,
            "scores": r.phraseScores.map { $0 ?? Double.nan }.map { $0.isFinite ? $0 as Any : NSNull() },
            "priors": r.phrasePriors.map { $0 ?? Double.nan }.map { $0.isFinite ? $0 as Any : NSNull() },
            "text_score": r.textScore ?? NSNull(), "text_prior": r.textPrior ?? NSNull(), "cpu_ms": r.scoreCpuMs, "ms": r.scoreMs,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The phrases scored, as `[said, phrase]` pairs in JSON, for `--verbose` (`scoresJSON`'s order).
    static func phrasesJSON(_ scored: [CommandWords.SpokenPhrase]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: scored.map { [$0.said, $0.phrase] }) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether a screen phrase ("open Notas") is the bench's expected one ("open notas").
    static func same(_ a: String, _ b: String) -> Bool { SpeechLanguage.words(a) == SpeechLanguage.words(b) }

    /// What the command columns of both tables mean (synthetic and recorded speech).
    static let commandsLegend = "commands matched word by word, as the shell does; \"by letters\": the letters of the whole phrase compared "
        + "instead (the decision before), on the same texts; \"scored\": the free text's command if it names one, else the launcher's "
        + "phrases scored against the same audio by Whisper (CommandWords.scoredCommand: score less prior, margin \(CommandWords.scoreMargin), at least \(CommandWords.evidenceFloor), slack "
        + "\(CommandWords.scoreSlack), \(CommandWords.extraWords) word and 2x+\(CommandWords.extraLetters) letters at most), "
        + "+ms: the worker's extra time for it"

    /// The scored decision and the two phrases the audio adds most to (score less prior), for `--verbose`.
    static func scoredShown(_ r: WhisperResult, _ scored: [CommandWords.SpokenPhrase], _ decided: String?) -> String {
        let evidence = CommandScores.evidence
        let firsts = scored.indices.compactMap { i -> (String, Double)? in
            guard i < r.phraseScores.count, i < r.phrasePriors.count, let e = evidence(r.phraseScores[i], r.phrasePriors[i]) else { return nil }
            return (scored[i].said, e)
        }.sorted { $0.1 > $1.1 }.prefix(2).map { "\"\($0.0)\" \(String(format: "%.2f", $0.1))" }.joined(separator: ", ")
        return "scored: " + (decided.map { "\"\($0)\"" } ?? "no command")
            + " (free text \(evidence(r.textScore, r.textPrior).map { String(format: "%.2f", $0) } ?? "-"); best \(firsts))"
    }

    /// Real recordings in each language (Tux Paint's descriptions or Asterisk's prompts) and LibriVox's English in
    /// the same run: WER, the worker's decode time, the time from the utterance's end (all its audio handed over)
    /// to its final text, and, for the languages, how many of these ordinary sentences the command path takes
    /// for a command.
    func runRecorded(out: BenchReport) throws {
        let sample: (String) throws -> (utterances: [TuxPaintSpeech.Utterance], skipped: Int)
        let shuffle = limit.map { "the first \($0) of the fixed shuffle (seed \(TuxPaintSpeech.seed))" } ?? "all"
        switch speech {
        case .asterisk:
            sample = { try AsteriskSpeech.sample(language: $0, limit: limit) }
            out("speech per language: real recorded speech, Asterisk's telephone prompts (Debian asterisk-core-sounds-LL-wav, "
                + "CC BY-SA 3.0; 8 kHz), " + shuffle + " per language; Spanish's text has no accents, so its WER folds them")
        default:
            guard TuxPaintSpeech.installed() else {
                throw BenchError("no recordings in \(TuxPaintSpeech.root): \(TuxPaintSpeech.install)")
            }
            sample = { try TuxPaintSpeech.sample(language: $0, limit: limit) }
            out("speech per language: real recorded speech, Tux Paint's stamp descriptions (Debian tuxpaint-stamps-default, GPL-2), "
                + shuffle + " per language")
        }
        out("WER: words compared as Whisper's published evaluations normalise them (its BasicTextNormalizer: lower case, "
            + "punctuation, symbols, apostrophes and hyphens as spaces), the same on both sides")
        out("Whisper int8, fitted window; English: tiny.en greedy; the others: "
            + "\(model ?? "base (multilingual)"), dictation \(beam.map { $0 == 1 ? "greedy" : "beam \($0)" } ?? "at each pack's beam (1: greedy)"), commands greedy"
            + (languagePrompt ? ", two of the pack's sentences as the text before the caret" : "")
            + (temperatureFallback ? ", temperature fallback" : ", no temperature fallback"))
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(oneMinuteLoad()) at the start")
        out(Self.commandsLegend)
        out("language      utterances  audio    WER     WER ≥\(Self.longUtterance)w  decode p50  p90      end → text p50  p90      sentences taken for a command")
        // English's peer: the real English the bench already reads (LibriVox, ../shared/data), through tiny.en.
        let librivox = ProjectPaths.dir("..").appendingPathComponent("shared/data/speech/pocketsphinx-test/librivox").path
        do {
            let transcript = Transcripts.parse(try String(contentsOfFile: librivox + "/transcription", encoding: .utf8))
            let utterances = try transcript.map { id, text in
                TuxPaintSpeech.Utterance(recording: .init(path: librivox + "/" + id + ".wav", text: text),
                                         samples: try SpeechAudio.readSamples(path: librivox + "/" + id + ".wav"))
            }
            out(try measureRecorded("en", utterances, skipped: 0, label: "en (LibriVox)", out: out))
        } catch {
            out("en: skipped (\(librivox): \(error))")
        }
        if speech == .asterisk {
            do {
                let (utterances, skipped) = try sample("en")
                out(try measureRecorded("en", utterances, skipped: skipped, label: "en (Asterisk)", out: out))
            } catch {
                out("en (Asterisk): skipped (\(error))")
            }
        }
        for code in languages where code != "en" {
            do {
                let (utterances, skipped) = try sample(code)
                guard !utterances.isEmpty else { out("\(code): no recordings of \(speech.rawValue) in this language"); continue }
                out(try measureRecorded(code, utterances, skipped: skipped, label: code, out: out))
            } catch {
                out("\(code): skipped (\(error))")
            }
        }
        out("utterances: (-N) recordings left out because their text has more words than fit their length (edited after the "
            + "recording)" + (speech == .asterisk ? " or they last over 30 s" : "") + "; WER ≥\(Self.longUtterance)w: over the utterances of at least \(Self.longUtterance) words.")
        out("end → text: from handing the worker the utterance's audio (as the shell does when PocketSphinx ends it) "
            + "to its text; decode: the worker's own time. The shell adds PocketSphinx's end-of-utterance silence before it. "
            + "Load average \(oneMinuteLoad()) at the end.")
    }

    /// One language's row over real recordings: dictation's WER and times, then (not English, whose commands are
    /// PocketSphinx's grammar) each recording heard as a command utterance and matched to the screen's phrases.
    private func measureRecorded(_ code: String, _ utterances: [TuxPaintSpeech.Utterance], skipped: Int, label: String,
                                 out: BenchReport) throws -> String {
        var screen: (language: SpeechLanguage, candidates: [String], prompt: String, screenPhrases: [String],
                     scored: [CommandWords.SpokenPhrase])?
        var dictationPrompt: String?
        if code != "en" {
            let file = SpeechPack.file(code)
            let text = try String(contentsOf: file, encoding: .utf8)
            let language = try SpeechFile.parse(text, file: file.path, code: code)
            let (sentences, commands) = try Self.benchData(text, file: file.path)
            let (candidates, prompt, screenPhrases) = try commandScreen(language, commands)
            screen = (language, candidates, prompt, screenPhrases, language.commands.scoredPhrases(screenPhrases))
            out("  \(code) command prompt (the launcher's, as the shell gives it): \(prompt)")
            if verbose { out("  \(code) phrases-json " + Self.phrasesJSON(language.commands.scoredPhrases(screenPhrases))) }
            if languagePrompt { dictationPrompt = sentences.prefix(2).joined(separator: " ") }
        }
        let w = try OfflineSpeech.whisperWorker(
            model: code == "en" ? WhisperWorker.defaultModel(language: "en") : model ?? WhisperWorker.defaultModel(language: code),
            language: code, temperatureFallback: temperatureFallback)
        defer { w.stop() }
        var row = Row(language: label)
        var endToText: [Double] = [], audio = 0.0
        for u in utterances {
            let t0 = Date()
            // An utterance the worker gives up on (the shell's 20 s limit; the machine is shared) writes nothing:
            // counted as every word missed, and the worker is started again for the next, as in the shell.
            var text = ""
            do {
                let r = try w.transcribe(u.samples, prompt: dictationPrompt, beam: code == "en" ? 1 : beam ?? screen?.language.dictationBeam)
                text = r.text
                row.decodeMs.append(r.decodeMs)
            } catch {
                row.failures += 1
                if verbose { out("  \(code) no text (\(error)): \(u.recording.text)") }
            }
            endToText.append(Date().timeIntervalSince(t0) * 1000)
            audio += u.seconds
            let (e, n) = Self.errors(reference: u.recording.text, hypothesis: text,
                                     foldAccents: speech == .asterisk && AsteriskSpeech.transcriptsWithoutAccents.contains(code))
            row.errors += e
            row.words += n
            if n >= Self.longUtterance { row.longErrors += e; row.longWords += n }
            if verbose { out("  \(code) \(e)/\(n) \(String(format: "%.0f", endToText.last ?? 0)) ms: \(u.recording.text) → \(text)") }
            guard let screen else { continue }
            // As the live shell hears an utterance while its microphone is open for a command; one the worker
            // gives up on is no command there either.
            row.sentences += 1
            guard let answer = try? w.transcribe(u.samples, prompt: screen.prompt, phrases: screen.scored.map(\.said)) else {
                row.failures += 1; continue
            }
            let heard = answer.text
            let taken = screen.language.commands.nearest(heard, among: screen.candidates) != nil
            if taken { row.sentencesTaken += 1 }
            let byScore = Self.scoredDecision(screen.language.commands, answer, screen.scored, screen.screenPhrases, &row)
            if byScore != nil { row.sentencesTakenScored += 1 }
            if Self.byLetters(screen.language.commands).nearest(heard, among: screen.candidates) != nil { row.sentencesTakenByLetters += 1 }
            if verbose {
                out("  \(code) heard as a command\(taken ? " TAKEN" : "")\(byScore != nil ? " TAKEN BY SCORE" : ""): \(u.recording.text) → \(heard) → "
                    + Self.decided(screen.language.commands, heard, screen.candidates) + "; " + Self.scoredShown(answer, screen.scored, byScore))
                out("  \(code) scores-json " + Self.scoresJSON(answer, said: u.recording.text, expected: nil,
                                                          near: screen.language.commands.nearest(heard, among: screen.screenPhrases)?.phrase,
                                                          seconds: u.seconds))
            }
        }
        return Self.recordedLine(row, utterances: utterances.count, skipped: skipped, audio: audio, endToText: endToText)
    }

    /// What the command path made of `heard`, for `--verbose`: the command `nearest` took (or none), then by the
    /// letters of the whole phrase, and the two nearest phrases by letters with their distances (word by word, a
    /// phrase whose words do not pair is 1), so a sentence taken or a command missed shows by how much.
    static func decided(_ commands: CommandWords, _ heard: String, _ candidates: [String]) -> String {
        func shown(_ m: (phrase: String, distance: Double)?) -> String {
            m.map { "\"\($0.phrase)\" \(String(format: "%.2f", $0.distance))" } ?? "no command"
        }
        let letters = byLetters(commands)
        let firsts = letters.ranked(heard, among: candidates).prefix(2).map(shown).joined(separator: ", ")
        return shown(commands.nearest(heard, among: candidates)) + " (by letters: "
            + shown(letters.nearest(heard, among: candidates)) + "; nearest by letters: \(firsts))"
    }

    /// The same command words comparing the letters of the whole phrase: the decision before word-by-word
    /// matching, for its figures beside the shell's.
    static func byLetters(_ commands: CommandWords) -> CommandWords {
        var c = commands
        c.matching = .letters
        return c
    }

    /// Words from which an utterance counts as a sentence in the WER of sentences.
    static let longUtterance = 6

    static func recordedLine(_ row: Row, utterances: Int, skipped: Int, audio: Double, endToText: [Double]) -> String {
        func pct(_ v: [Double], _ p: Double) -> Double {
            let s = v.sorted()
            return s.isEmpty ? 0 : s[min(s.count - 1, Int((p * Double(s.count)).rounded(.up)) - 1)]
        }
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        let taken = row.sentences == 0 ? "-"
            : "\(row.sentencesTaken)/\(row.sentences) (" + String(format: "%.1f%%", 100 * Double(row.sentencesTaken) / Double(row.sentences))
                + "; by letters \(row.sentencesTakenByLetters); scored \(row.sentencesTakenScored), \(row.phrasesScored) phrases, "
                + String(format: "+%.0f ms p50, CPU %.0f ms p50 %.0f ms p90", pct(row.scoreMs, 0.5), pct(row.scoreCpuMs, 0.5),
                         pct(row.scoreCpuMs, 0.9)) + ")"
        return pad(row.language, 14) + pad("\(utterances)" + (skipped > 0 ? " (-\(skipped))" : ""), 12) + pad(String(format: "%.0f s", audio), 9)
            + pad(String(format: "%.1f%%", 100 * row.wer), 8)
            + pad(row.longWords == 0 ? "-" : String(format: "%.1f%%", 100 * Double(row.longErrors) / Double(row.longWords)), 10)
            + pad(String(format: "%.0f ms", pct(row.decodeMs, 0.5)), 12) + pad(String(format: "%.0f ms", pct(row.decodeMs, 0.9)), 9)
            + pad(String(format: "%.0f ms", pct(endToText, 0.5)), 16) + pad(String(format: "%.0f ms", pct(endToText, 0.9)), 9) + taken
            + (row.failures > 0 ? "; \(row.failures) requests without an answer" : "")
    }

    /// Transcribes one sentence, adds its errors and decode time to `row`, and returns what was heard.
    @discardableResult
    private func measure(_ row: inout Row, _ sentence: String, _ audio: [Int16], _ w: WhisperWorker, language: String?,
                         beam: Int = 1, out: BenchReport) throws -> String {
        let t0 = Date()
        let r = try w.transcribe(audio, beam: beam)
        row.decodeMs.append(Date().timeIntervalSince(t0) * 1000)
        let (e, n) = Self.errors(reference: sentence, hypothesis: r.text)
        row.errors += e
        row.words += n
        if verbose { out("  \(language ?? "en") \(e)/\(n): \(sentence) → \(r.text)") }
        return r.text
    }

    /// The sentences and commands of a pack's `[bench]` table.
    static func benchData(_ text: String, file: String) throws -> (sentences: [String], commands: [(said: String, english: String)]) {
        let doc = try TOMLDocument(text: text, file: file)
        let bench = doc.root["bench"]?.table ?? [:]
        let sentences = (bench["sentences"]?.array ?? []).compactMap(\.string)
        let commands = (bench["commands"]?.table ?? [:]).compactMap { k, v in v.string.map { (said: k, english: $0) } }
            .sorted { $0.said < $1.said }
        return (sentences, commands)
    }

    /// Word errors (Levenshtein over `comparedWords`, accents kept unless `foldAccents`) and reference words.
    static func errors(reference: String, hypothesis: String, foldAccents: Bool = false) -> (Int, Int) {
        func words(_ s: String) -> [String] { comparedWords(s, foldAccents: foldAccents) }
        let r = words(reference), h = words(hypothesis)
        guard !r.isEmpty else { return (h.count, 0) }
        var row = Array(0...h.count)
        for i in 1...r.count {
            var diagonal = row[0]
            row[0] = i
            for j in stride(from: 1, through: h.count, by: 1) {
                let up = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (r[i - 1] == h[j - 1] ? 0 : 1))
                diagonal = up
            }
        }
        return (row[h.count], r.count)
    }

    /// The words a WER compares, as Whisper's published evaluations normalise text in languages other than
    /// English (openai/whisper's `BasicTextNormalizer`): lower case, text in brackets or parentheses dropped, and
    /// after NFKC every mark, symbol and punctuation character a space, so "dell'operatore" is "dell operatore"
    /// on both sides and "e-mail" is "e mail". Before, an apostrophe stayed inside a word: Whisper's correct
    /// "un'operatore" for a transcript's "un operatore" counted two errors.
    static func comparedWords(_ text: String, foldAccents: Bool = false) -> [String] {
        let bracketed = #/[<\[][^>\]]*[>\]]/#, parenthesised = #/\(([^)]+?)\)/#
        let dropped = text.lowercased().replacing(bracketed, with: "").replacing(parenthesised, with: "")
        var spaced = String.UnicodeScalarView()
        for scalar in dropped.precomposedStringWithCompatibilityMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .mathSymbol, .currencySymbol, .modifierSymbol,
                 .otherSymbol, .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                 .initialPunctuation, .finalPunctuation, .otherPunctuation:
                spaced.append(" ")
            default:
                spaced.append(scalar)
            }
        }
        let words = String(spaced).lowercased()
        return (foldAccents ? words.folding(options: .diacriticInsensitive, locale: nil) : words)
            .split(whereSeparator: \.isWhitespace).map(String.init)
    }

    static func line(_ row: Row, model: String) -> String {
        let sorted = row.decodeMs.sorted()
        let p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2], p90 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        let commands = row.commands == 0 ? "-" : "\(row.commandsRight)/\(row.commands) (\(Int((100 * Double(row.commandsRight) / Double(row.commands)).rounded()))%; by letters \(row.commandsRightByLetters))"
        let taken = row.sentences == 0 ? "-" : "\(row.sentencesTaken)/\(row.sentences) (\(row.sentencesTakenPrompted)/\(row.sentences))"
            + "; by letters \(row.sentencesTakenByLetters)/\(row.sentences) (\(row.sentencesTakenPromptedByLetters)/\(row.sentences))"
        let scoreMs = row.scoreMs.sorted(), scoreCpuMs = row.scoreCpuMs.sorted()
        let scored = row.commands == 0 && row.sentences == 0 ? ""
            : "  | scored: commands \(row.commandsRightScored)/\(row.commands), sentences taken (\(row.sentencesTakenScored)/\(row.sentences)), "
                + "\(row.phrasesScored) phrases, +\(Int(scoreMs.isEmpty ? 0 : scoreMs[scoreMs.count / 2])) ms p50, "
                + "CPU \(Int(scoreCpuMs.isEmpty ? 0 : scoreCpuMs[scoreCpuMs.count / 2])) ms p50"
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        return pad(row.language, 10) + pad(model, 21) + pad(String(format: "%.1f%%", 100 * row.wer), 8)
            + pad(String(format: "%.0f ms", p50), 12) + pad(String(format: "%.0f ms", p90), 9) + pad(commands, 16) + taken + scored
    }
}
