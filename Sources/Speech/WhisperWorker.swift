#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A problem with the Whisper worker, said so the user knows what to do.
public struct WhisperError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// The worker died or stopped answering: a fresh worker may do the utterance.
    var workerLost = false
    public init(_ d: String) { description = d }
    init(lost d: String) { description = d; workerLost = true }
}

/// What Whisper made of one utterance.
public struct WhisperResult: Sendable, Equatable {
    public var text: String
    /// Words with start and end seconds, when asked for.
    public var words: [(String, Double, Double)]
    /// The worker's own decoding time, milliseconds.
    public var decodeMs: Double
    /// Each phrase's score against the audio, in the order asked (`transcribe`'s `phrases`): the mean natural
    /// log-probability of its tokens given the audio, 0 certain; nil for a phrase with no tokens. Empty when
    /// no phrases were asked.
    public var phraseScores: [Double?] = []
    /// Each phrase's prior: its score against a second of silence, what the decoder expects of it unheard.
    public var phrasePriors: [Double?] = []
    /// The free text's own score the same way (nil for an empty text, or when no phrases were asked).
    public var textScore: Double?
    /// The free text's prior.
    public var textPrior: Double?
    /// The scoring's share of `decodeMs`, milliseconds.
    public var scoreMs: Double = 0
    /// The worker's CPU time for the scoring (all its threads), milliseconds: on a shared machine the wall time
    /// `scoreMs` is mostly waiting, this what the scoring itself costs.
    public var scoreCpuMs: Double = 0

    public init(text: String, words: [(String, Double, Double)], decodeMs: Double) {
        self.text = text; self.words = words; self.decodeMs = decodeMs
    }

    public static func == (a: WhisperResult, b: WhisperResult) -> Bool {
        a.text == b.text && a.decodeMs == b.decodeMs && a.words.count == b.words.count
            && zip(a.words, b.words).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
            && a.phraseScores == b.phraseScores && a.textScore == b.textScore
            && a.phrasePriors == b.phrasePriors && a.textPrior == b.textPrior
    }
}

/// The long-lived Whisper worker (`python/whisper_worker.py`): started once, asked one utterance at a time
/// over pipes, restarted when it dies or hangs.
///
/// Calls block the calling thread (the speech decode thread, or a command), never the shell's loop. Not
/// thread-safe: one caller at a time.
public final class WhisperWorker: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The Python with faster-whisper.
        public var python: String
        /// `python/whisper_worker.py`.
        public var script: String
        /// A model folder, `package` (the PyPI tiny.en), `package-base` (the PyPI multilingual base), or one of
        /// faster-whisper's model names.
        public var model: String
        /// The language spoken (ISO 639-1, "en", "es"), passed to Whisper so that it neither guesses nor
        /// translates; an English-only model refuses any other with what to install.
        public var language = "en"
        /// CTranslate2 threads: two where there are two cores, since the decode is what the user waits for
        /// at the end of an utterance and the shell's own loop needs little.
        public var threads: Int
        /// Shortest encoder window in seconds: the worker encodes the utterance plus a second, at least this
        /// long, instead of Whisper's 30 s (0: always 30 s, the slower way it was trained).
        public var minWindow: Double = 10
        /// The beam search's width (1: greedy, the default; `bench speech --beam` measures wider ones).
        public var beam = 1
        /// Let faster-whisper decode an unlikely-looking text again at rising temperatures (its own default): on
        /// real speech 2-3 points fewer words wrong, seconds more at p90 (`bench speech --speech tuxpaint`).
        public var temperatureFallback = true
        /// Longest wait for the model to load.
        public var loadTimeout: Double
        /// Longest wait for one utterance, beyond which the worker is taken as hung and restarted.
        public var decodeTimeout: Double
        /// The time the worker is given for an utterance's temperature fallback and 30 s redo (its greedy
        /// decode always runs): two fifths of `decodeTimeout`, so that the attempt running when it ends, and
        /// the redo's, still answer within the timeout. Without it one real 52.9 s Italian decode (the fallback
        /// at every temperature, then the redo, at load 20) went past the 20 s limit and was lost.
        public var decodeBudget: Double { decodeTimeout * 0.4 }

        public init(python: String, script: String, model: String = "package",
                    threads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount),
                    loadTimeout: Double = 60, decodeTimeout: Double = 20) {
            self.python = python; self.script = script; self.model = model; self.threads = threads
            self.loadTimeout = loadTimeout; self.decodeTimeout = decodeTimeout
        }
    }

    /// The model a language dictates with unless one is named: tiny.en for English (as accurate there as the
    /// multilingual base at half its time), the multilingual base from PyPI (`package-base`) for any other.
    public static func defaultModel(language: String) -> String {
        language == "en" ? "package" : "package-base"
    }

    /// The longest utterance sent: Whisper's window is 30 s; longer audio keeps PocketSphinx's text.
    public static let longestUtterance = 30.0

    public let configuration: Configuration
    private let worker = JSONLineWorker(label: "the Whisper worker")
    private var nextID = 1
    /// Times the worker was started again after dying or hanging.
    public private(set) var restarts = 0
    /// The model folder the worker reported, once ready.
    public private(set) var modelPath: String?
    /// The worker's process id while it runs (for its memory figure).
    public var pid: Int32? { worker.pid }

    public init(_ configuration: Configuration) { self.configuration = configuration }

    deinit { stop() }

    /// Starts the worker and waits until its model is loaded.
    public func start() throws(WhisperError) {
        do throws(JSONLineWorker.Failure) {
            let ready = try worker.start(
                python: configuration.python, script: configuration.script,
                arguments: ["--model", configuration.model, "--threads", String(configuration.threads),
                            "--min-window", String(configuration.minWindow), "--language", configuration.language]
                    + (configuration.beam == 1 ? [] : ["--beam", String(configuration.beam)])
                    + (configuration.temperatureFallback ? [] : ["--no-temperature-fallback"]),
                loadTimeout: configuration.loadTimeout,
                noPython: "no Python at \(configuration.python): run \(PythonInstall.command) whisper, or set HANDSFREE_PYTHON",
                loading: "the Whisper model")
            modelPath = ready["model"] as? String
        } catch {
            throw WhisperError(error.message)
        }
    }

    /// Ends the worker (closing its input ends it; a worker that does not end is killed).
    public func stop() { worker.stop() }

    /// Transcribes one utterance (16 kHz mono samples); `prompt` is the text before it, `hotwords` the user's
    /// words; each of `phrases` (a screen's commands as the language says them) is scored against the audio
    /// besides (`WhisperResult.phraseScores`). A worker that died or hangs is restarted once and the utterance asked again, then with no time
    /// for the fallback (its greedy decode only), so that the same audio cannot hang it twice. `beam` (1–10) is
    /// this utterance's beam width instead of the worker's (a language pack's dictation, `SpeechLanguage.dictationBeam`).
    public func transcribe(_ samples: [Int16], prompt: String? = nil, hotwords: String? = nil,
                           words: Bool = false, language: String? = nil,
                           phrases: [String] = [], beam: Int? = nil) throws(WhisperError) -> WhisperResult {
        guard Double(samples.count) / 16_000 <= Self.longestUtterance else {
            throw WhisperError("utterance longer than \(Int(Self.longestUtterance)) s")
        }
        var lastError = WhisperError("the Whisper worker is not running")
        for attempt in 0..<2 {
            if !worker.isRunning {
                // A worker that was there and is gone (died between utterances, or stopped for hanging).
                if worker.started || attempt > 0 { restarts += 1 }
                try start()
            }
            do throws(JSONLineWorker.Failure) {
                return try ask(samples, prompt: prompt, hotwords: hotwords, words: words, language: language,
                               phrases: phrases, beam: beam, budget: attempt == 0 ? configuration.decodeBudget : 0)
            } catch {
                lastError = error.lost ? WhisperError(lost: error.message) : WhisperError(error.message)
                // An error the worker answered with (bad audio) is final; a death or a hang gets one retry.
                guard error.lost || !worker.isRunning else { throw lastError }
                stop()
            }
        }
        throw lastError
    }

    /// Transcribes audio of any length (a file): cut where it is quietest into pieces of at most 29.5 s
    /// (`SilenceSplit`), each given the text before it as its prompt, their texts joined with spaces and their
    /// words' times counted from the start of the whole.
    public func transcribeLong(_ samples: [Int16], words: Bool = false) throws(WhisperError) -> WhisperResult {
        var whole = WhisperResult(text: "", words: [], decodeMs: 0)
        for piece in SilenceSplit.pieces(samples, longest: Self.longestUtterance - 0.5) {
            let r = try transcribe(Array(samples[piece]), prompt: whole.text, words: words)
            let offset = Double(piece.lowerBound) / 16_000
            let text = r.text.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { whole.text += (whole.text.isEmpty ? "" : " ") + text }
            whole.words += r.words.map { ($0.0, $0.1 + offset, $0.2 + offset) }
            whole.decodeMs += r.decodeMs
        }
        return whole
    }

    private func ask(_ samples: [Int16], prompt: String?, hotwords: String?, words: Bool,
                     language: String?, phrases: [String], beam: Int? = nil, budget: Double) throws(JSONLineWorker.Failure) -> WhisperResult {
        let id = nextID
        nextID += 1
        var header: [String: Any] = ["id": id, "bytes": samples.count * 2, "words": words, "budget": budget]
        if let prompt, !prompt.isEmpty { header["prompt"] = String(prompt.suffix(600)) }
        if let hotwords, !hotwords.isEmpty { header["hotwords"] = String(hotwords.prefix(600)) }
        // Another language than the worker's own (a switch at run time): the multilingual model takes it.
        if let language { header["language"] = language }
        if !phrases.isEmpty { header["phrases"] = phrases }
        if let beam, beam != configuration.beam { header["beam"] = beam }
        var pcm = Data(capacity: samples.count * 2)
        samples.withUnsafeBytes { raw in
            for s in raw.bindMemory(to: Int16.self) { withUnsafeBytes(of: s.littleEndian) { pcm.append(contentsOf: $0) } }
        }
        try worker.send(header, payload: pcm, timeout: configuration.decodeTimeout)
        let obj = try worker.answer(timeout: configuration.decodeTimeout, during: "an utterance")
        guard obj["id"] as? Int == id, let text = obj["text"] as? String else {
            throw JSONLineWorker.Failure(message: "answer to another request", lost: true)
        }
        let ws = (obj["words"] as? [[Any]] ?? []).compactMap { w -> (String, Double, Double)? in
            guard w.count == 3, let s = w[0] as? String, let a = w[1] as? Double, let b = w[2] as? Double else { return nil }
            return (s, a, b)
        }
        var result = WhisperResult(text: text, words: ws, decodeMs: Self.number(obj["ms"]) ?? 0)
        if !phrases.isEmpty {
            let scores = obj["scores"] as? [Any] ?? [], priors = obj["priors"] as? [Any] ?? []
            guard scores.count == phrases.count, priors.count == phrases.count else {
                throw JSONLineWorker.Failure(message: "\(scores.count) scores and \(priors.count) priors for \(phrases.count) phrases",
                                             lost: false)
            }
            result.phraseScores = scores.map(Self.number)
            result.phrasePriors = priors.map(Self.number)
            result.textScore = Self.number(obj["text_score"])
            result.textPrior = Self.number(obj["text_prior"])
            result.scoreMs = Self.number(obj["score_ms"]) ?? 0
            result.scoreCpuMs = Self.number(obj["score_cpu_ms"]) ?? 0
        }
        return result
    }

    /// A JSON number as a Double (JSONSerialization gives whole numbers as Int); nil for null or anything else.
    private static func number(_ v: Any?) -> Double? {
        switch v {
        case let d as Double: d
        case let i as Int: Double(i)
        default: nil
        }
    }
}

/// The command that installs the Python parts, as the workers' messages name it: the binary sets
/// `HANDSFREE_PYTHON_ENV` to its installation's own script at start (`PythonEnv.installScript`).
enum PythonInstall {
    static var command: String {
        ProcessInfo.processInfo.environment["HANDSFREE_PYTHON_ENV"].flatMap { $0.isEmpty ? nil : $0 } ?? "scripts/python-env.sh"
    }
}
