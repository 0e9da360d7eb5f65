#if canImport(Glibc)
import Glibc
#endif
import CALSA
import Foundation
import Localization
import SystemIO

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
    /// The WAV file a `file` plugin writes (`toFile`), named in messages instead of the PCM's made-up name.
    public let file: String?
    private var pcm: OpaquePointer?
    private var config: OpaquePointer?
    private var rate = 0

    /// Nothing is opened until the first `prepare`: a shell with no sound card starts, and says so when it speaks.
    public init(device: String = "default", configuration: String? = nil, file: String? = nil) {
        self.device = device
        self.configurationText = configuration
        self.file = file
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
        ALSAPlayback(device: "tofile", configuration: fileConfiguration(path: path), file: path)
    }

    /// How messages name the output: the file written, or the ALSA device.
    var label: String { file ?? "audio output \"\(device)\"" }

    public func prepare(sampleRate: Int) throws(VoiceError) -> Int {
        if pcm != nil { return rate }
        if let file {
            // The plugin opens its file without a word and then fails every write with EIO: open it first, to
            // name the file and the system's reason (a folder, a read-only place).
            let fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw VoiceError(UIMessage("cannot write {file}: {reason}", ["file": file], reasons: ["reason": .system(String(cString: strerror(errno)))])) }
            Glibc.close(fd)
        }
        if let text = configurationText {
            var top: OpaquePointer?
            guard snd_config_top(&top) == 0, let top else { throw VoiceError(UIMessage("cannot create an ALSA configuration")) }
            var input: OpaquePointer?
            let loaded: Int32 = text.withCString { p in
                guard snd_input_buffer_open(&input, p, text.utf8.count) == 0, let input else { return -EINVAL }
                defer { snd_input_close(input) }
                return snd_config_load(top, input)
            }
            guard loaded == 0 else {
                snd_config_delete(top)
                throw VoiceError(UIMessage("ALSA configuration for {device} does not parse: {reason}", ["device": label], reasons: ["reason": alsaReason(loaded)]))
            }
            config = top
        }
        var handle: OpaquePointer?
        let rc = config.map { snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, 0, $0) }
            ?? snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc == 0, let handle else {
            if let config { snd_config_delete(config) }
            config = nil
            if let file { throw VoiceError(UIMessage("cannot write {file} through ALSA's file plugin: {reason}", ["file": file], reasons: ["reason": alsaReason(rc)])) }
            throw VoiceError(UIMessage("no audio output \"{device}\" ({reason}): pass --speaker NAME (aplay -L lists them) or --speaker-file FILE.wav",
                                       ["device": device], reasons: ["reason": alsaReason(rc)]))
        }
        // 100 ms of buffer: enough to ride over a busy moment, and `drop` discards it at once when stopped.
        let set = snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1,
                                     UInt32(sampleRate), 1, 100_000)
        guard set == 0 else {
            snd_pcm_close(handle)
            throw VoiceError(UIMessage("{device} refuses {rate} Hz mono 16-bit: {reason}", ["device": label, "rate": String(sampleRate)], reasons: ["reason": alsaReason(set)]))
        }
        pcm = handle
        rate = sampleRate
        return rate
    }

    public func play(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        guard let pcm else { throw VoiceError(UIMessage("{device} is not open", ["device": label])) }
        var rest = samples
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { raw in snd_pcm_writei(pcm, raw.baseAddress, snd_pcm_uframes_t(rest.count)) }
            if n > 0 { rest = rest.dropFirst(Int(n)); continue }
            let err = Int32(truncatingIfNeeded: n)
            // An underrun (the voice was slower than the card) or a suspend: recover and go on.
            guard n < 0, snd_pcm_recover(pcm, err, 1) == 0 else {
                throw VoiceError(UIMessage("{device} failed: {reason}", ["device": label], reasons: ["reason": alsaReason(err)]))
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

/// Writes what is played into a WAV file as it comes (`handsfree say --out`): the header first, the samples
/// after it slice by slice, and the sizes filled in on `close`. A long text costs the memory of a slice, not of
/// all its audio (1 MB of text is hours of speech).
///
/// A file that cannot be opened (a folder, a read-only place) is named with the system's reason at the first
/// audio, which ends the utterance. Where the sizes cannot be filled in (a pipe), they stay 0xFFFFFFFF, which
/// readers of a stream take as "until the end".
public final class WAVFileSink: AudioSink {
    public let path: String
    /// The rate of the file, set by the first `prepare`.
    public private(set) var sampleRate = 0
    /// Bytes of samples written so far.
    public private(set) var dataBytes = 0
    /// Why the file could not be written, if it could not.
    public private(set) var writeError: UIMessage?
    private var fd: Int32 = -1
    /// The most a WAV's 32-bit sizes can count, less the header's 36 bytes counted with them.
    static let largestData = Int(UInt32.max) - 36

    public init(path: String) { self.path = path }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public func prepare(sampleRate: Int) throws(VoiceError) -> Int {
        if let writeError { throw VoiceError(writeError) }
        if self.sampleRate == 0 { self.sampleRate = sampleRate }
        if fd < 0 { try open() }
        return self.sampleRate
    }

    /// Creates the file and writes its header, the sizes left open.
    private func open() throws(VoiceError) {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail(UIMessage("cannot write {file}: {reason}", ["file": path], reasons: ["reason": .system(String(cString: strerror(errno)))])) }
        var header = [UInt8](WAVReader.encode([], format: WAVFormat(formatTag: 1, channels: 1, sampleRate: sampleRate, bitsPerSample: 16)))
        for offset in [4, 40] { header.replaceSubrange(offset..<(offset + 4), with: [0xFF, 0xFF, 0xFF, 0xFF]) }
        try write(header)
    }

    public func play(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        if let writeError { throw VoiceError(writeError) }
        guard fd >= 0 else { throw VoiceError(UIMessage("{device} is not open", ["device": path])) }
        guard dataBytes + samples.count * 2 <= Self.largestData else {
            throw fail(.plural("{file} is full: a WAV file holds at most 4 GB of audio ({n} hour at {rate} Hz); the rest is not in it",
                               "{file} is full: a WAV file holds at most 4 GB of audio ({n} hours at {rate} Hz); the rest is not in it",
                               Self.largestData / 2 / max(1, sampleRate) / 3600, ["file": path, "rate": String(sampleRate)]))
        }
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        for (k, v) in samples.enumerated() {
            let u = UInt16(bitPattern: v)
            bytes[2 * k] = UInt8(u & 0xFF); bytes[2 * k + 1] = UInt8(u >> 8)
        }
        try write(bytes)
        dataBytes += bytes.count
    }

    public func finish(while keepGoing: () -> Bool) {}
    public func drop() {}

    /// Fills in the sizes and closes the file; with nothing played, writes a file of no audio at 16 kHz.
    public func close() {
        if fd < 0 && writeError == nil {
            if sampleRate == 0 { sampleRate = 16_000 }
            do throws(VoiceError) { try open() } catch { return }
        }
        guard fd >= 0 else { return }
        defer { Glibc.close(fd); fd = -1 }
        guard writeError == nil else { return }
        for (offset, size) in [(4, 36 + dataBytes), (40, dataBytes)] {
            var v = UInt32(size).littleEndian
            // A pipe cannot be written back into: its sizes stay "until the end".
            if pwrite(fd, &v, 4, off_t(offset)) != 4 && errno != ESPIPE {
                writeError = UIMessage("cannot write {file}: {reason}", ["file": path], reasons: ["reason": .system(String(cString: strerror(errno)))])
                return
            }
        }
    }

    private func write(_ bytes: [UInt8]) throws(VoiceError) {
        if let e = DurableFile.writeAll(fd, bytes) { throw fail(UIMessage("cannot write {file}: {reason}", ["file": path], reasons: ["reason": .system(e)])) }
    }

    private func fail(_ message: UIMessage) -> VoiceError {
        writeError = message
        return VoiceError(message)
    }
}
