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

    public static func == (a: WhisperResult, b: WhisperResult) -> Bool {
        a.text == b.text && a.decodeMs == b.decodeMs && a.words.count == b.words.count
            && zip(a.words, b.words).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
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
        /// A model folder, `package` (the PyPI tiny.en), or one of faster-whisper's model names.
        public var model: String
        /// CTranslate2 threads: two where there are two cores, since the decode is what the user waits for
        /// at the end of an utterance and the shell's own loop needs little.
        public var threads: Int
        /// Shortest encoder window in seconds: the worker encodes the utterance plus a second, at least this
        /// long, instead of Whisper's 30 s (0: always 30 s, the slower way it was trained).
        public var minWindow: Double = 10
        /// Longest wait for the model to load.
        public var loadTimeout: Double
        /// Longest wait for one utterance, beyond which the worker is taken as hung and restarted.
        public var decodeTimeout: Double

        public init(python: String, script: String, model: String = "package",
                    threads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount),
                    loadTimeout: Double = 60, decodeTimeout: Double = 20) {
            self.python = python; self.script = script; self.model = model; self.threads = threads
            self.loadTimeout = loadTimeout; self.decodeTimeout = decodeTimeout
        }
    }

    /// The longest utterance sent: Whisper's window is 30 s; longer audio keeps PocketSphinx's text.
    public static let longestUtterance = 30.0

    public let configuration: Configuration
    private var process: Process?
    private var input: FileHandle?
    private var outputFD: Int32 = -1
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Times the worker was started again after dying or hanging.
    public private(set) var restarts = 0
    /// The model folder the worker reported, once ready.
    public private(set) var modelPath: String?
    /// The worker's process id while it runs (for its memory figure).
    public var pid: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

    public init(_ configuration: Configuration) { self.configuration = configuration }

    deinit { stop() }

    /// Starts the worker and waits until its model is loaded.
    public func start() throws(WhisperError) {
        stop()
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: configuration.python) else {
            throw WhisperError("no Python at \(configuration.python): run scripts/python-env.sh whisper, or set HANDSFREE_PYTHON")
        }
        guard fm.fileExists(atPath: configuration.script) else {
            throw WhisperError("\(configuration.script): the Whisper worker is missing")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: configuration.python)
        p.arguments = [configuration.script, "--model", configuration.model, "--threads", String(configuration.threads),
                       "--min-window", String(configuration.minWindow)]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        // Its C++ libraries log to standard error; the shell's screen must not get that.
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw WhisperError("\(configuration.python): cannot start the Whisper worker: \(error.localizedDescription)") }
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
            throw WhisperError(status.map { "the Whisper worker exited with status \($0) before it was ready" }
                               ?? "the Whisper model did not load within \(Int(configuration.loadTimeout)) s")
        }
        guard let obj = Self.json(line), obj["ready"] as? Bool == true else {
            let message = Self.json(line)?["error"] as? String ?? "unexpected answer \(String(line.prefix(200)))"
            stop()
            throw WhisperError(message)
        }
        modelPath = obj["model"] as? String
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

    /// Transcribes one utterance (16 kHz mono samples); `prompt` is the text before it, `hotwords` the user's
    /// words. A worker that died or hangs is restarted once and the utterance asked again.
    public func transcribe(_ samples: [Int16], prompt: String? = nil, hotwords: String? = nil,
                           words: Bool = false) throws(WhisperError) -> WhisperResult {
        guard Double(samples.count) / 16_000 <= Self.longestUtterance else {
            throw WhisperError("utterance longer than \(Int(Self.longestUtterance)) s")
        }
        var lastError = WhisperError("the Whisper worker is not running")
        for attempt in 0..<2 {
            if process?.isRunning != true {
                // A worker that was there and is gone (died between utterances, or stopped for hanging).
                if process != nil || attempt > 0 { restarts += 1 }
                try start()
            }
            do throws(WhisperError) {
                return try ask(samples, prompt: prompt, hotwords: hotwords, words: words)
            } catch {
                lastError = error
                // An error the worker answered with (bad audio) is final; a death or a hang gets one retry.
                guard error.workerLost || process?.isRunning != true else { throw error }
                stop()
            }
        }
        throw lastError
    }

    private func ask(_ samples: [Int16], prompt: String?, hotwords: String?, words: Bool) throws(WhisperError) -> WhisperResult {
        guard let input else { throw WhisperError(lost: "the Whisper worker is not running") }
        let id = nextID
        nextID += 1
        var header: [String: Any] = ["id": id, "bytes": samples.count * 2, "words": words]
        if let prompt, !prompt.isEmpty { header["prompt"] = String(prompt.suffix(600)) }
        if let hotwords, !hotwords.isEmpty { header["hotwords"] = String(hotwords.prefix(600)) }
        guard let head = try? JSONSerialization.data(withJSONObject: header) else { throw WhisperError("cannot encode the request") }
        var bytes = Data(head)
        bytes.append(0x0A)
        samples.withUnsafeBytes { raw in
            for s in raw.bindMemory(to: Int16.self) { withUnsafeBytes(of: s.littleEndian) { bytes.append(contentsOf: $0) } }
        }
        // A worker that died makes the write fail with EPIPE, not kill the shell (SIGPIPE is ignored).
        signal(SIGPIPE, SIG_IGN)
        try write(bytes, to: input.fileDescriptor, timeout: configuration.decodeTimeout)
        guard let line = readLine(timeout: configuration.decodeTimeout) else {
            if process?.isRunning != true { throw WhisperError(lost: "the Whisper worker died during an utterance") }
            throw WhisperError(lost: "no answer from the Whisper worker within \(Int(configuration.decodeTimeout)) s")
        }
        guard let obj = Self.json(line) else { throw WhisperError("unexpected answer \(String(line.prefix(200)))") }
        if let e = obj["error"] as? String { throw WhisperError(e) }
        guard obj["id"] as? Int == id, let text = obj["text"] as? String else {
            throw WhisperError("answer to another request")
        }
        let ws = (obj["words"] as? [[Any]] ?? []).compactMap { w -> (String, Double, Double)? in
            guard w.count == 3, let s = w[0] as? String, let a = w[1] as? Double, let b = w[2] as? Double else { return nil }
            return (s, a, b)
        }
        return WhisperResult(text: text, words: ws, decodeMs: obj["ms"] as? Double ?? 0)
    }

    /// Writes all of `bytes` to the worker's input, waiting at most `timeout` seconds for it to read them.
    private func write(_ bytes: Data, to fd: Int32, timeout: Double) throws(WhisperError) {
        let deadline = Date().addingTimeInterval(timeout)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw WhisperError(lost: "the Whisper worker died (cannot write to it)") }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw WhisperError(lost: "no answer from the Whisper worker within \(Int(timeout)) s (it stopped reading)") }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            _ = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }

    /// Reads one line from the worker, waiting at most `timeout` seconds; nil on timeout or end of output.
    private func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, outputFD >= 0 else { return nil }
            var fds = [pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got = read(outputFD, &chunk, chunk.count)
            if got <= 0 { return nil }
            buffer += chunk[0..<got]
        }
    }

    private static func json(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
