import CALSA
import Foundation

/// Where spoken audio goes: a sound card through ALSA, or a WAV file. Used from one thread at a time (the
/// speaker's playback thread, or a command).
public protocol AudioSink: AnyObject {
    /// Gets ready for audio at `sampleRate` and answers the rate it plays at (the caller resamples to it): a
    /// sink keeps the rate it was first opened at.
    func prepare(sampleRate: Int) throws(VoiceError) -> Int
    /// Plays samples, blocking as a device does until it has room for them.
    func play(_ samples: ArraySlice<Int16>) throws(VoiceError)
    /// Waits until what was played has been heard; `keepGoing` is asked every few milliseconds and a false
    /// answer ends the wait.
    func finish(while keepGoing: () -> Bool)
    /// Throws away what has not been heard yet, at once.
    func drop()
    /// Releases the device, or writes the file.
    func close()
}

/// ALSA playback on a named PCM (`default`, `plughw:1`, or one defined by configuration text, such as a `file`
/// plugin that writes what would be heard to a WAV).
public final class ALSAPlayback: AudioSink {
    public let device: String
    let configurationText: String?
    private var pcm: OpaquePointer?
    private var config: OpaquePointer?
    private var rate = 0

    /// Nothing is opened until the first `prepare`: a shell with no sound card starts, and says so when it speaks.
    public init(device: String = "default", configuration: String? = nil) {
        self.device = device
        self.configurationText = configuration
        // ALSA prints its own errors to stderr, which would scribble over the curses screen.
        handsfree_alsa_silence_errors()
    }

    deinit { close() }

    /// ALSA configuration for a PCM named `name` that writes everything played to `path` as a WAV file through
    /// the `file` plugin; its slave is a `null` PCM, which takes audio as fast as it comes.
    public static func fileConfiguration(path: String, name: String = "tofile") -> String {
        let quoted = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return """
        pcm.\(name) {
            type file
            slave.pcm { type null }
            file "\(quoted)"
            format "wav"
        }
        """
    }

    /// A playback writing `path` (a WAV) through ALSA's file plugin.
    public static func toFile(_ path: String) -> ALSAPlayback {
        ALSAPlayback(device: "tofile", configuration: fileConfiguration(path: path))
    }

    public func prepare(sampleRate: Int) throws(VoiceError) -> Int {
        if pcm != nil { return rate }
        if let text = configurationText {
            var top: OpaquePointer?
            guard snd_config_top(&top) == 0, let top else { throw VoiceError("cannot create an ALSA configuration") }
            var input: OpaquePointer?
            let loaded: Int32 = text.withCString { p in
                guard snd_input_buffer_open(&input, p, text.utf8.count) == 0, let input else { return -EINVAL }
                defer { snd_input_close(input) }
                return snd_config_load(top, input)
            }
            guard loaded == 0 else {
                snd_config_delete(top)
                throw VoiceError("ALSA configuration for \(device) does not parse: \(Self.message(loaded))")
            }
            config = top
        }
        var handle: OpaquePointer?
        let rc = config.map { snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, 0, $0) }
            ?? snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc == 0, let handle else {
            if let config { snd_config_delete(config) }
            config = nil
            throw VoiceError("no audio output \"\(device)\" (\(Self.message(rc))): pass --speaker NAME (aplay -L lists them) or --speaker-file FILE.wav")
        }
        // 100 ms of buffer: enough to ride over a busy moment, and `drop` discards it at once when stopped.
        let set = snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1,
                                     UInt32(sampleRate), 1, 100_000)
        guard set == 0 else {
            snd_pcm_close(handle)
            throw VoiceError("audio output \"\(device)\" refuses \(sampleRate) Hz mono 16-bit: \(Self.message(set))")
        }
        pcm = handle
        rate = sampleRate
        return rate
    }

    public func play(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        guard let pcm else { throw VoiceError("audio output \"\(device)\" is not open") }
        var rest = samples
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { raw in snd_pcm_writei(pcm, raw.baseAddress, snd_pcm_uframes_t(rest.count)) }
            if n > 0 { rest = rest.dropFirst(Int(n)); continue }
            let err = Int32(truncatingIfNeeded: n)
            // An underrun (the voice was slower than the card) or a suspend: recover and go on.
            guard n < 0, snd_pcm_recover(pcm, err, 1) == 0 else {
                throw VoiceError("audio output \"\(device)\" failed: \(Self.message(err))")
            }
        }
    }

    public func finish(while keepGoing: () -> Bool) {
        guard let pcm else { return }
        if configurationText != nil {
            // A file plugin has no clock: drain writes out what it holds at once.
            snd_pcm_drain(pcm)
        } else {
            var delay: snd_pcm_sframes_t = 0
            while keepGoing(), snd_pcm_delay(pcm, &delay) == 0, delay > 0 { usleep(5_000) }
            snd_pcm_drop(pcm)
        }
        snd_pcm_prepare(pcm)
    }

    public func drop() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    public func close() {
        if let pcm {
            if configurationText != nil { snd_pcm_drain(pcm) }
            snd_pcm_close(pcm)
        }
        pcm = nil
        if let config { snd_config_delete(config) }
        config = nil
    }

    static func message(_ rc: Int32) -> String {
        guard let s = snd_strerror(rc) else { return "error \(rc)" }
        return String(cString: s)
    }
}

/// Keeps what is played and writes it as one WAV file on `close` (`handsfree say --out`).
public final class WAVFileSink: AudioSink {
    public let path: String
    public private(set) var audio = SpokenAudio(samples: [], sampleRate: 0)
    /// The write's error, if `close` could not write the file.
    public private(set) var writeError: String?

    public init(path: String) { self.path = path }

    public func prepare(sampleRate: Int) throws(VoiceError) -> Int {
        if audio.sampleRate == 0 { audio.sampleRate = sampleRate }
        return audio.sampleRate
    }
    public func play(_ samples: ArraySlice<Int16>) throws(VoiceError) { audio.samples += samples }
    public func finish(while keepGoing: () -> Bool) {}
    public func drop() {}
    public func close() {
        if audio.sampleRate == 0 { audio.sampleRate = 16_000 }
        do { try audio.wav.write(to: URL(fileURLWithPath: path)) } catch {
            writeError = "cannot write \(path): \(error.localizedDescription)"
        }
    }
}
