import Foundation
import Localization

/// The voices the shell can speak with.
public enum VoiceName: String, CaseIterable, Sendable, Equatable {
    /// flite in the process (Debian's libflite, the slt voice): starts in milliseconds, always there.
    case flite
    /// Piper's natural voice through the project's Python worker (`scripts/python-env.sh speak`).
    case piper
    /// espeak-ng as a child process, for other languages, when it is installed.
    case espeak

    /// The voice that says text in `language`: this one for English (flite stays English's voice), espeak-ng's
    /// voice for the language otherwise, since flite and the installed Piper voice (en_US joe) speak only English.
    public func speaking(_ language: String) -> VoiceName {
        language == "en" || language.hasPrefix("en_") || language.hasPrefix("en-") ? self : .espeak
    }

    /// Parses a voice name; the error lists the known ones.
    public static func parse(_ text: String) throws(VoiceError) -> VoiceName {
        guard let v = VoiceName(rawValue: text.lowercased()) else {
            throw VoiceError(UIMessage("unknown voice \"{voice}\" (known: {known})", ["voice": text, "known": allCases.map(\.rawValue).joined(separator: ", ")]))
        }
        return v
    }
}

/// A problem with a voice or the speaker, said so the user knows what to install or pass.
public struct VoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// The problem as a message, translated where it is shown (as `description` where none was written).
    public var message: UIMessage
    /// The voice's worker died or stopped answering: a fresh one may say the sentence.
    var workerLost = false
    public init(_ d: String) { description = d; message = .verbatim(d) }
    /// A problem worded for translation; `description` is its English.
    public init(_ m: UIMessage) { description = m.english; message = m }
    init(lost d: String) { description = d; message = .verbatim(d); workerLost = true }
}

/// Audio a voice made: mono signed 16-bit samples at `sampleRate`.
public struct SpokenAudio: Sendable, Equatable {
    public var samples: [Int16]
    public var sampleRate: Int
    public init(samples: [Int16], sampleRate: Int) { self.samples = samples; self.sampleRate = sampleRate }
    /// Length in seconds.
    public var seconds: Double { Double(samples.count) / Double(max(1, sampleRate)) }

    /// The samples scaled by `volume` (0…1, clamped), with no wrap-around.
    public func scaled(by volume: Double) -> SpokenAudio {
        let v = max(0, min(1, volume))
        guard v < 1 else { return self }
        return SpokenAudio(samples: samples.map { Int16(Double($0) * v) }, sampleRate: sampleRate)
    }

    /// The same sound at `rate` Hz, linearly interpolated (for Whisper's 16 kHz, or a device's fixed rate).
    public func resampled(to rate: Int) -> SpokenAudio {
        guard rate != sampleRate, !samples.isEmpty, rate > 0 else { return self }
        let count = Int(Double(samples.count) * Double(rate) / Double(sampleRate))
        let step = Double(sampleRate) / Double(rate)
        var out = [Int16](repeating: 0, count: count)
        for i in 0..<count {
            let x = Double(i) * step
            let j = Int(x), f = x - Double(j)
            let a = Double(samples[min(j, samples.count - 1)]), b = Double(samples[min(j + 1, samples.count - 1)])
            out[i] = Int16(max(-32768, min(32767, (a + (b - a) * f).rounded())))
        }
        return SpokenAudio(samples: out, sampleRate: rate)
    }

    /// Root-mean-square level (0…32768): a way to tell speech from silence.
    public var rms: Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// A 16-bit mono WAV file of this audio.
    public var wav: Data {
        WAVReader.encode(samples, format: WAVFormat(formatTag: 1, channels: 1, sampleRate: sampleRate, bitsPerSample: 16))
    }

    /// Reads a 16-bit mono PCM WAV at any rate (what the voices and ALSA's file plugin write).
    public static func read(wav path: String) throws(AudioError) -> SpokenAudio {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw AudioError.unreadable(path: path, reason: error.localizedDescription)
        }
        let a = try WAVReader.parse(data, path: path, anyRate: true)
        return SpokenAudio(samples: a.samples, sampleRate: a.format.sampleRate)
    }
}

/// Something that turns one sentence into audio. Not thread-safe: the speaker's synthesis thread alone calls it.
public protocol Synthesizer: AnyObject {
    var name: VoiceName { get }
    /// Makes the audio of `text` (one sentence); `rate` 1 is the voice's own speed, 2 twice as fast.
    func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio
}

/// Where the voices are: the venv's Python and the Piper worker script, espeak-ng's path.
public struct VoiceSetup: Sendable {
    public var python: String
    public var piperScript: String
    public var espeak: String
    public init(python: String, piperScript: String, espeak: String = "/usr/bin/espeak-ng") {
        self.python = python; self.piperScript = piperScript; self.espeak = espeak
    }

    /// Makes the voice `name` for `language`, starting its worker; a voice that cannot start throws what to install.
    public func make(_ name: VoiceName, language: String = "en") throws(VoiceError) -> any Synthesizer {
        switch name {
        case .flite: return try FliteVoice()
        case .piper:
            let w = PiperWorker(.init(python: python, script: piperScript))
            try w.start()
            return w
        case .espeak: return try EspeakVoice(path: espeak, language: language)
        }
    }
}
