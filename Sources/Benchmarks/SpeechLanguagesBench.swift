import Config
import Foundation
import Runtime
import Speech
import SpeechText

/// `bench speech --language es,fr,…`: per language, the pack's everyday sentences and commands (`[bench]` in
/// `languages/LL/speech.toml`) said by espeak-ng's voice for the language, transcribed by the language's Whisper
/// (the multilingual base), beside English's sentences said by flite and transcribed by tiny.en in the same run.
/// Word error rate, decode time per utterance, commands recognised as the right phrase, sentences taken for a
/// command. The speech is synthetic: no recording of real speech in these languages is in ../shared/data.
public struct SpeechLanguagesBench {
    /// The languages, by code.
    public var languages: [String]
    /// Print every hypothesis.
    public var verbose = false
    /// Give Whisper the commands as its prompt when it hears a command.
    public var promptCommands = true

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
        public var wer: Double { words == 0 ? 0 : Double(errors) / Double(words) }
    }

    public func run(out: BenchReport) throws {
        out("speech per language: synthetic speech (espeak-ng's voice; English: flite's rms), Whisper int8 greedy, fitted window")
        out("language  model                WER     decode p50  p90      commands right  sentences taken for a command")
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
                let w = try OfflineSpeech.whisperWorker(model: WhisperWorker.defaultModel(language: code), language: code)
                defer { w.stop() }
                let voice = try EspeakVoice(language: code)
                var row = Row(language: code)
                // The phrases a screen offers: the keymap's English ones and the commands' own.
                let candidates = Array(Set(commands.map(\.english) + language.commands.phrases.map(\.value)))
                for s in sentences {
                    let audio = try voice.synthesize(s, rate: 1).resampled(to: 16_000).samples
                    let heard = try measure(&row, s, audio, w, language: code, out: out)
                    row.sentences += 1
                    if let m = language.commands.nearest(heard, among: candidates) {
                        row.sentencesTaken += 1
                        if verbose { out("  \(code) taken for \"\(m.phrase)\": \(heard)") }
                    }
                }
                // Whisper's prompt is the screen's phrases in the language, as a command utterance would get them:
                // a short utterance is otherwise often heard as another, longer one.
                let prompt = (commands.map(\.said) + language.commands.phrases.prefix(20).map { $0.words.joined(separator: " ") })
                    .joined(separator: ", ")
                for (said, expected) in commands {
                    let audio = try voice.synthesize(said, rate: 1).resampled(to: 16_000).samples
                    let r = try w.transcribe(audio, prompt: promptCommands ? prompt : nil)
                    let m = language.commands.nearest(r.text, among: candidates)
                    row.commands += 1
                    if m?.phrase == expected { row.commandsRight += 1 }
                    if verbose { out("  \(code) \"\(said)\" → \(r.text) → \(m?.phrase ?? "no command")") }
                }
                out(Self.line(row, model: "base (multilingual)"))
            } catch {
                out("\(code): skipped (\(error))")
            }
        }
    }

    /// Transcribes one sentence, adds its errors and decode time to `row`, and returns what was heard.
    @discardableResult
    private func measure(_ row: inout Row, _ sentence: String, _ audio: [Int16], _ w: WhisperWorker, language: String?,
                         out: BenchReport) throws -> String {
        let t0 = Date()
        let r = try w.transcribe(audio)
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

    /// Word errors (Levenshtein over words: lower case, punctuation removed, accents kept) and reference words.
    static func errors(reference: String, hypothesis: String) -> (Int, Int) {
        func words(_ s: String) -> [String] {
            s.lowercased().replacingOccurrences(of: "’", with: "'")
                .split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }).map(String.init)
        }
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

    static func line(_ row: Row, model: String) -> String {
        let sorted = row.decodeMs.sorted()
        let p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2], p90 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        let commands = row.commands == 0 ? "-" : "\(row.commandsRight)/\(row.commands) (\(Int((100 * Double(row.commandsRight) / Double(row.commands)).rounded()))%)"
        let taken = row.sentences == 0 ? "-" : "\(row.sentencesTaken)/\(row.sentences)"
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        return pad(row.language, 10) + pad(model, 21) + pad(String(format: "%.1f%%", 100 * row.wer), 8)
            + pad(String(format: "%.0f ms", p50), 12) + pad(String(format: "%.0f ms", p90), 9) + pad(commands, 16) + taken
    }
}
