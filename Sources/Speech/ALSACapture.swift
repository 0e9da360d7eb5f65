import CALSA
import Foundation
import Localization
import Logging

/// What the capture thread delivers.
public enum CaptureEvent: Sendable, Equatable {
    /// A chunk of 16 kHz mono samples.
    case audio([Int16])
    /// The PCM returned no frames from a blocking read: its source ran dry. A microphone never does, and
    /// neither does ALSA's `file` plugin, which goes on with its slave's silence after the file ends.
    case ended
    /// Capture stopped on an error it could not recover from.
    case failed(AudioError)
}

/// The open `snd_pcm_t` and the local configuration it was opened from; closes both when released.
///
/// `@unchecked Sendable`: after `ALSACapture.start` only the capture thread touches the pointer.
private final class PCMHandle: @unchecked Sendable {
    let pcm: OpaquePointer
    let config: OpaquePointer?

    init(pcm: OpaquePointer, config: OpaquePointer?) {
        self.pcm = pcm
        self.config = config
    }

    deinit {
        snd_pcm_close(pcm)
        if let config { snd_config_delete(config) }
    }
}

/// A flag and a "finished" signal shared by the owner and the capture thread.
private final class CaptureControl: @unchecked Sendable {
    private let lock = NSLock()
    private var stopRequested = false
    private var running = false
    let finished = DispatchSemaphore(value: 0)
    var thread: Thread?

    var shouldStop: Bool { lock.withLock { stopRequested } }
    func requestStop() -> Bool { lock.withLock { stopRequested = true; return running } }
    func markRunning() -> Bool { lock.withLock { if running || stopRequested { return false }; running = true; return true } }
    func markDone() { lock.withLock { running = false }; finished.signal() }
}

/// Captures 16 kHz mono S16_LE from an ALSA PCM on its own thread, so a UI never waits on audio.
///
/// A missing or busy device is an `AudioError` from `init`, never a crash. Tests and replays can open a PCM
/// of ALSA's `file` plugin from a configuration string (see `fileConfiguration(infile:)`).
public final class ALSACapture: @unchecked Sendable {
    /// The PCM name, e.g. `default`, `hw:1,0`, or a name defined in `configuration`.
    public let device: String
    /// Frames per read (and per delivered chunk); 800 = 50 ms, small so partial results come quickly.
    public let chunkFrames: Int
    private let handle: PCMHandle
    private let control = CaptureControl()
    private let logger: Logger

    /// Opens `device` for capture and sets 16 kHz, mono, S16_LE (ALSA resamples if the hardware cannot).
    ///
    /// - Parameter configuration: ALSA configuration text that defines `device` (used instead of the
    ///   system's configuration), or nil for the normal one (`/usr/share/alsa`, `~/.asoundrc`).
    public init(device: String = "default", configuration: String? = nil, chunkFrames: Int = 800,
                logger: Logger = .speechSilent) throws(AudioError) {
        self.device = device
        self.chunkFrames = max(64, chunkFrames)
        self.logger = logger
        // ALSA prints its own errors to stderr, which would scribble over the curses screen.
        handsfree_alsa_silence_errors()

        var config: OpaquePointer?
        if let text = configuration {
            var top: OpaquePointer?
            guard snd_config_top(&top) == 0, let top else {
                throw .deviceFailed(device: device, reason: UIMessage("cannot create an ALSA configuration"))
            }
            var input: OpaquePointer?
            let loaded: Int32 = text.withCString { p in
                guard snd_input_buffer_open(&input, p, text.utf8.count) == 0, let input else { return -EINVAL }
                defer { snd_input_close(input) }
                return snd_config_load(top, input)
            }
            guard loaded == 0 else {
                snd_config_delete(top)
                throw .deviceFailed(device: device, reason: UIMessage("ALSA configuration does not parse: {reason}", reasons: ["reason": alsaReason(loaded)]))
            }
            config = top
        }

        var pcm: OpaquePointer?
        let rc: Int32
        if let config {
            rc = snd_pcm_open_lconf(&pcm, device, SND_PCM_STREAM_CAPTURE, 0, config)
        } else {
            rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        }
        guard rc == 0, let pcm else {
            if let config { snd_config_delete(config) }
            if rc == -EBUSY { throw .deviceBusy(device: device) }
            throw .deviceNotFound(device: device, reason: alsaReason(rc))
        }
        handle = PCMHandle(pcm: pcm, config: config)
        // Ask for 16 kHz mono S16_LE with soft resampling and 100 ms of latency: the recogniser's format,
        // so no conversion happens in Swift.
        let set = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1,
                                     UInt32(SpeechAudio.sampleRate), 1, 100_000)
        guard set == 0 else {
            throw .deviceFailed(device: device, reason: UIMessage("cannot set 16000 Hz mono S16_LE: {reason}", reasons: ["reason": alsaReason(set)]))
        }
        logger.info("microphone open", metadata: ["device": "\(device)"])
    }

    deinit {
        stop()
    }

    /// ALSA configuration text for a PCM named `name` that reads raw 16 kHz S16LE samples from `infile`
    /// through ALSA's `file` plugin (its slave is a `null` PCM, its output copy goes to /dev/null).
    ///
    /// The null slave is not paced by a clock, so a file is read as fast as the reader goes; after the file's
    /// end the PCM delivers silence forever, like a quiet microphone, so a reader stops by counting samples.
    public static func fileConfiguration(infile: String, name: String = "fromfile") -> String {
        let quoted = infile.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return """
        pcm.\(name) {
            type file
            slave.pcm { type null }
            file "/dev/null"
            infile "\(quoted)"
            format "raw"
        }
        """
    }

    /// Starts the capture thread; `onEvent` runs on that thread, so hop to the UI's own queue or actor.
    ///
    /// Calling it again while running does nothing. The last event is `.ended` or `.failed`, unless `stop()`
    /// ended capture.
    public func start(onEvent: @escaping @Sendable (CaptureEvent) -> Void) {
        guard control.markRunning() else { return }
        let handle = self.handle, control = self.control, frames = chunkFrames
        let device = self.device, logger = self.logger
        let thread = Thread {
            defer { control.markDone() }
            var buffer = [Int16](repeating: 0, count: frames)
            while !control.shouldStop {
                // The file plugin's null slave returns frames without writing them; clearing first makes
                // the audio after the file's end silence rather than a repeat of the last chunk.
                buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                let n = buffer.withUnsafeMutableBytes { raw in
                    snd_pcm_readi(handle.pcm, raw.baseAddress, snd_pcm_uframes_t(frames))
                }
                if n > 0 {
                    onEvent(.audio(Array(buffer[0..<Int(n)])))
                } else if n == 0 {
                    // Only a file source returns no frames from a blocking read: it is exhausted.
                    onEvent(.ended)
                    return
                } else {
                    let err = Int32(truncatingIfNeeded: n)
                    // Overruns (the reader fell behind) and suspends are routine; recover and go on.
                    if snd_pcm_recover(handle.pcm, err, 1) == 0 {
                        logger.warning("capture recovered", metadata: ["error": "\(Self.message(err))"])
                        continue
                    }
                    onEvent(.failed(.deviceFailed(device: device, reason: alsaReason(err))))
                    return
                }
            }
        }
        thread.name = "handsfree.alsa.capture"
        control.thread = thread
        thread.start()
    }

    /// The capture as an `AsyncStream` (starts the thread); the stream finishes after `.ended`/`.failed`.
    public func events() -> AsyncStream<CaptureEvent> {
        AsyncStream { continuation in
            start { event in
                continuation.yield(event)
                if case .audio = event { return }
                continuation.finish()
            }
            continuation.onTermination = { [weak self] _ in self?.requestStop() }
        }
    }

    /// Stops capture and waits (up to a second) for the thread to finish its current read.
    public func stop() {
        guard control.requestStop() else { return }
        // From the capture thread itself (a callback calling stop) waiting would deadlock.
        if let t = control.thread, t == Thread.current { return }
        _ = control.finished.wait(timeout: .now() + 1)
    }

    private func requestStop() { _ = control.requestStop() }

    private static func message(_ rc: Int32) -> String {
        guard let s = snd_strerror(rc) else { return "error \(rc)" }
        return String(cString: s)
    }
}

/// ALSA's reason for return code `rc` as a message in the user's language: a system error (a negative
/// `errno`, which is what `snd_strerror` shows as `strerror`'s words) in the system's own translation, ALSA's
/// own codes in our words.
func alsaReason(_ rc: Int32) -> UIMessage {
    let code = rc < 0 ? -rc : rc
    // SND_ERROR_BEGIN: ALSA's own codes start there; below it, snd_strerror is strerror.
    if code < 500_000 { return .system(String(cString: strerror(code))) }
    if code == 500_000 { return UIMessage("the ALSA library and the sound driver speak different protocol versions") }
    return UIMessage("ALSA error {code}", ["code": String(rc)])
}
