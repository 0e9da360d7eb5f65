#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A long-lived Python worker that answers requests with JSON lines over pipes (the Whisper and Piper
/// workers): started, waited for until it says `{"ready": true, ...}`, written to and read from with
/// timeouts, stopped. What each request and answer hold is the caller's.
///
/// Calls block the calling thread. Not thread-safe: one caller at a time.
final class JSONLineWorker {
    /// Why a call failed; `lost` says the worker died or stopped answering, so a fresh one may do the request.
    struct Failure: Error {
        var message: String
        var lost = false
    }

    /// How the worker is named in messages, e.g. "the Whisper worker".
    let label: String
    private var process: Process?
    private var input: FileHandle?
    private var outputFD: Int32 = -1
    private var buffer: [UInt8] = []
    /// The worker's output reached its end (it closed it, or died).
    private var outputEnded = false

    init(label: String) { self.label = label }

    deinit { stop() }

    /// Whether the worker was started and has not been stopped (it may have died since).
    var started: Bool { process != nil }
    var isRunning: Bool { process?.isRunning == true }
    var pid: Int32? { isRunning ? process?.processIdentifier : nil }

    /// Starts `python script arguments` and waits up to `loadTimeout` seconds for its ready line, which is
    /// returned. `noPython` is the message for a missing interpreter (with the command that installs it), and
    /// `loading` names what loads ("the Whisper model").
    func start(python: String, script: String, arguments: [String], loadTimeout: Double, noPython: String,
               loading: String) throws(Failure) -> [String: Any] {
        stop()
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: python) else { throw Failure(message: noPython) }
        guard fm.fileExists(atPath: script) else { throw Failure(message: "\(script): \(label) is missing") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [script] + arguments
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        // The workers' C++ libraries log to standard error; the shell's screen must not get that.
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw Failure(message: "\(python): cannot start \(label): \(error.localizedDescription)") }
        process = p
        input = stdin.fileHandleForWriting
        // Writes must not block: a hung worker stops reading, and a full pipe would hang the caller.
        let inFD = stdin.fileHandleForWriting.fileDescriptor
        _ = fcntl(inFD, F_SETFL, fcntl(inFD, F_GETFL) | O_NONBLOCK)
        outputFD = stdout.fileHandleForReading.fileDescriptor
        buffer = []
        outputEnded = false
        guard let line = readLine(timeout: loadTimeout) else {
            // The end of its output is its death (killed, or an error it exited on); silence is a slow load.
            let ended = ending()
            stop()
            throw Failure(message: ended.map { "\(label) \($0) while \(loading) loaded" }
                          ?? "\(loading) did not load within \(Int(loadTimeout)) s")
        }
        guard let obj = Self.json(line), obj["ready"] as? Bool == true else {
            let message = Self.json(line)?["error"] as? String ?? "unexpected answer \(String(line.prefix(200)))"
            stop()
            throw Failure(message: message)
        }
        return obj
    }

    /// Ends the worker (closing its input ends it; a worker that does not end within a second is killed).
    func stop() {
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

    /// Writes a request: a JSON line, then `payload` bytes, waiting at most `timeout` seconds for the worker to
    /// read them.
    func send(_ request: [String: Any], payload: Data = Data(), timeout: Double) throws(Failure) {
        guard let input else { throw Failure(message: "\(label) is not running", lost: true) }
        guard let head = try? JSONSerialization.data(withJSONObject: request) else { throw Failure(message: "cannot encode the request") }
        var bytes = Data(head)
        bytes.append(0x0A)
        bytes.append(payload)
        // A worker that died makes the write fail with EPIPE, not kill the shell.
        signal(SIGPIPE, SIG_IGN)
        let fd = input.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw Failure(message: "\(label) died (cannot write to it)", lost: true) }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(message: "no answer from \(label) within \(Int(timeout)) s (it stopped reading)", lost: true) }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            _ = poll(&fds, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }

    /// Reads the answer line as a JSON object, waiting at most `timeout` seconds; `during` names the request
    /// for the message when the worker dies ("an utterance"). An `"error"` answer is thrown as it is.
    func answer(timeout: Double, during: String) throws(Failure) -> [String: Any] {
        guard let line = readLine(timeout: timeout) else {
            if let ended = ending() { throw Failure(message: "\(label) \(ended) during \(during)", lost: true) }
            throw Failure(message: "no answer from \(label) within \(Int(timeout)) s", lost: true)
        }
        guard let obj = Self.json(line) else { throw Failure(message: "unexpected answer \(String(line.prefix(200)))", lost: true) }
        if let e = obj["error"] as? String { throw Failure(message: e) }
        return obj
    }

    /// How the worker ended, once its output has ended ("was killed by signal 9 (Killed)", "exited with
    /// status 1");
    /// nil while it runs on. A process whose output has closed is given a moment to be reaped, so its status
    /// is known rather than guessed.
    private func ending() -> String? {
        guard let p = process else { return nil }
        if outputEnded {
            let deadline = Date().addingTimeInterval(2)
            while p.isRunning && Date() < deadline { usleep(10_000) }
        }
        guard !p.isRunning else { return nil }
        if p.terminationReason == .uncaughtSignal {
            let sig = p.terminationStatus
            return "was killed by signal \(sig)" + (strsignal(sig).map { " (\(String(cString: $0)))" } ?? "")
        }
        return "exited with status \(p.terminationStatus)"
    }

    /// Reads exactly `count` bytes following an answer; nil on timeout or end of output.
    func readBytes(_ count: Int, timeout: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        while buffer.count < count {
            guard fill(until: deadline) else { return nil }
        }
        let out = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return out
    }

    /// Reads one line, waiting at most `timeout` seconds; nil on timeout or end of output.
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
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { outputEnded = true; return false }
            buffer += chunk[0..<got]
            return true
        }
    }

    static func json(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
