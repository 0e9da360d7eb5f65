import Foundation
import Localization
import Logging

extension Logger {
    /// The default for the speech classes: discards everything, since only the executable decides
    /// where logs go (never the terminal curses owns).
    public static var speechSilent: Logger { Logger(label: "speech", factory: { _ in SwiftLogNoOpLogHandler() }) }
}

/// The one PCM format the recogniser takes: 16 kHz, mono, signed 16-bit little-endian.
public enum SpeechAudio {
    /// Samples per second the en-us acoustic model was trained on.
    public static let sampleRate = 16_000
    /// The `sox` command that converts any audio file to the needed format.
    public static func soxCommand(input: String, output: String) -> String {
        "sox \(input) -r 16000 -c 1 -b 16 \(output)"
    }
    /// Seconds of audio in `sampleCount` samples.
    public static func seconds(samples sampleCount: Int) -> Double {
        Double(sampleCount) / Double(sampleRate)
    }

    /// Decodes raw signed 16-bit little-endian samples; a trailing odd byte is ignored.
    public static func samples(fromS16LE data: Data) -> [Int16] {
        let count = data.count / 2
        var out = [Int16](repeating: 0, count: count)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            for i in 0..<count {
                out[i] = Int16(bitPattern: UInt16(raw[2 * i]) | UInt16(raw[2 * i + 1]) << 8)
            }
        }
        return out
    }

    /// Encodes samples as raw signed 16-bit little-endian bytes.
    public static func s16LEData(_ samples: [Int16]) -> Data {
        var data = Data(capacity: samples.count * 2)
        for s in samples {
            let u = UInt16(bitPattern: s)
            data.append(UInt8(u & 0xFF))
            data.append(UInt8(u >> 8))
        }
        return data
    }

    /// Reads a `.wav` (checked by `WAVReader`) or, for any other extension, a raw 16 kHz S16LE file.
    public static func readSamples(path: String) throws(AudioError) -> [Int16] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AudioError.unreadable(path: path, reason: error.localizedDescription)
        }
        if path.lowercased().hasSuffix(".wav") || data.starts(with: Array("RIFF".utf8)) {
            return try WAVReader.parse(data, path: path).samples
        }
        return samples(fromS16LE: data)
    }
}

/// Why audio could not be read or captured; `description` is a message for the user.
public enum AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The bytes are not a RIFF/WAVE file or a chunk is malformed.
    case notWAV(path: String, reason: String)
    /// The file ends before the header or data chunk it announces.
    case truncated(path: String, reason: String)
    /// A well-formed WAV in a format the recogniser cannot take.
    case unsupportedFormat(path: String, found: String)
    /// No ALSA device of that name (or it cannot be opened for capture); `reason` is ALSA's, in the user's
    /// language when shown.
    case deviceNotFound(device: String, reason: UIMessage)
    /// The ALSA device is in use by another program.
    case deviceBusy(device: String)
    /// The device refused 16 kHz mono S16_LE, or a read failed for good; `reason` says which, with ALSA's own
    /// reason inside it, in the user's language when shown.
    case deviceFailed(device: String, reason: UIMessage)

    /// The format every input must have, in words.
    public static let neededFormat = "16000 Hz, mono, 16-bit signed PCM"

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "\(path): cannot read audio file: \(reason)"
        case let .notWAV(path, reason):
            return "\(path): not a WAV file (\(reason))"
        case let .truncated(path, reason):
            return "\(path): truncated WAV file (\(reason))"
        case let .unsupportedFormat(path, found):
            let out = (path as NSString).deletingPathExtension + "-16k.wav"
            return "\(path): WAV format is \(found); speech needs \(Self.neededFormat). Convert it with: "
                + SpeechAudio.soxCommand(input: path, output: out)
        case let .deviceNotFound(device, reason):
            return "microphone \"\(device)\" not found: \(reason.english) (list capture devices with arecord -l)"
        case let .deviceBusy(device):
            return "microphone \"\(device)\" is busy (another program is using it)"
        case let .deviceFailed(device, reason):
            return "microphone \"\(device)\" failed: \(reason.english)"
        }
    }

    /// The problem as a message, translated where it is shown (`description` is its English); a reason that is
    /// the system's own words (`strerror`'s, which ALSA's are for system errors) shows in the system's
    /// translation, other reasons as they came.
    public var message: UIMessage {
        switch self {
        case let .unreadable(path, reason): UIMessage("{file}: cannot read audio file: {reason}", ["file": path], reasons: ["reason": .system(reason)])
        case let .notWAV(path, reason): UIMessage("{file}: not a WAV file ({reason})", ["file": path], reasons: ["reason": .system(reason)])
        case let .truncated(path, reason): UIMessage("{file}: truncated WAV file ({reason})", ["file": path], reasons: ["reason": .system(reason)])
        case let .unsupportedFormat(path, found):
            UIMessage("{file}: WAV format is {found}; speech needs 16000 Hz, mono, 16-bit signed PCM. Convert it with: {command}",
                      ["file": path, "found": found,
                       "command": SpeechAudio.soxCommand(input: path, output: (path as NSString).deletingPathExtension + "-16k.wav")])
        case let .deviceNotFound(device, reason):
            UIMessage("microphone \"{device}\" not found: {reason} (list capture devices with arecord -l)", ["device": device], reasons: ["reason": reason])
        case let .deviceBusy(device): UIMessage("microphone \"{device}\" is busy (another program is using it)", ["device": device])
        case let .deviceFailed(device, reason): UIMessage("microphone \"{device}\" failed: {reason}", ["device": device], reasons: ["reason": reason])
        }
    }
}

/// The `fmt ` chunk of a WAV file.
public struct WAVFormat: Equatable, Sendable, CustomStringConvertible {
    /// 1 = integer PCM, 3 = IEEE float, 0xFFFE = extensible (the real code is in the sub-format).
    public var formatTag: UInt16
    public var channels: Int
    public var sampleRate: Int
    public var bitsPerSample: Int

    public init(formatTag: UInt16, channels: Int, sampleRate: Int, bitsPerSample: Int) {
        self.formatTag = formatTag
        self.channels = channels
        self.sampleRate = sampleRate
        self.bitsPerSample = bitsPerSample
    }

    /// The recogniser's format: 16 kHz mono 16-bit integer PCM.
    public static let speech = WAVFormat(formatTag: 1, channels: 1, sampleRate: SpeechAudio.sampleRate, bitsPerSample: 16)

    /// Whether the recogniser can take this format as is.
    public var isSpeechFormat: Bool {
        formatTag == 1 && channels == 1 && sampleRate == SpeechAudio.sampleRate && bitsPerSample == 16
    }

    public var description: String {
        let kind: String
        switch formatTag {
        case 1: kind = "\(bitsPerSample)-bit PCM"
        case 3: kind = "\(bitsPerSample)-bit float"
        case 6: kind = "A-law"
        case 7: kind = "mu-law"
        default: kind = "\(bitsPerSample)-bit, encoding 0x\(String(formatTag, radix: 16))"
        }
        let ch = channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels"
        return "\(sampleRate) Hz, \(ch), \(kind)"
    }
}

/// Parses RIFF/WAVE files and accepts only the recogniser's format (see `SpeechAudio`).
public enum WAVReader {
    /// A parsed WAV file: its format and samples.
    public struct Audio: Sendable {
        public var format: WAVFormat
        public var samples: [Int16]
        /// Length in seconds.
        public var duration: Double { SpeechAudio.seconds(samples: samples.count) }
    }

    /// Reads and parses a WAV file.
    public static func read(path: String) throws(AudioError) -> Audio {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AudioError.unreadable(path: path, reason: error.localizedDescription)
        }
        return try parse(data, path: path)
    }

    /// Parses WAV bytes; `path` only names the file in errors.
    ///
    /// Walks the chunk list rather than assuming a 44-byte header, because `LIST`/`fact` chunks are common.
    /// With `anyRate`, any mono 16-bit integer PCM is taken (speech output's voices are 16 or 22.05 kHz).
    public static func parse(_ data: Data, path: String = "<data>", anyRate: Bool = false) throws(AudioError) -> Audio {
        let bytes = [UInt8](data)
        func u16(_ o: Int) -> UInt16 { UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> UInt32 {
            UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
        }
        func tag(_ o: Int) -> String { String(decoding: bytes[o..<o + 4], as: UTF8.self) }

        guard bytes.count >= 12 else {
            if bytes.count >= 4, tag(0) == "RIFF" {
                throw AudioError.truncated(path: path, reason: "\(bytes.count) bytes, shorter than the RIFF header")
            }
            throw AudioError.notWAV(path: path, reason: "\(bytes.count) bytes, no RIFF header")
        }
        guard tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw AudioError.notWAV(path: path, reason: "starts with \"\(tag(0).debugDescription)\", not RIFF....WAVE")
        }
        var offset = 12
        var format: WAVFormat?
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            let size = Int(u32(offset + 4))
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16 else { throw AudioError.notWAV(path: path, reason: "fmt chunk of \(size) bytes") }
                guard body + 16 <= bytes.count else {
                    throw AudioError.truncated(path: path, reason: "file ends inside the fmt chunk")
                }
                var f = WAVFormat(formatTag: u16(body), channels: Int(u16(body + 2)),
                                  sampleRate: Int(u32(body + 4)), bitsPerSample: Int(u16(body + 14)))
                // WAVE_FORMAT_EXTENSIBLE keeps the real encoding in the first two bytes of the sub-format GUID.
                if f.formatTag == 0xFFFE, size >= 40, body + 26 <= bytes.count { f.formatTag = u16(body + 24) }
                format = f
            } else if id == "data" {
                guard let f = format else {
                    throw AudioError.notWAV(path: path, reason: "data chunk before the fmt chunk")
                }
                let taken = anyRate ? f.formatTag == 1 && f.channels == 1 && f.bitsPerSample == 16 : f.isSpeechFormat
                guard taken else { throw AudioError.unsupportedFormat(path: path, found: f.description) }
                let available = bytes.count - body
                // Streaming writers (sox to a pipe, arecord) leave 0 or 0xFFFFFFFF, espeak-ng's --stdout
                // 0x7FFFF000: read to the end.
                let streaming = size == 0 || size == 0xFFFF_FFFF || size == 0x7FFF_F000
                if !streaming && size > available {
                    throw AudioError.truncated(path: path,
                                               reason: "data chunk announces \(size) bytes, \(available) present")
                }
                let length = streaming ? available : size
                return Audio(format: f, samples: SpeechAudio.samples(fromS16LE: data.subdata(in: data.startIndex + body
                    ..< data.startIndex + body + length)))
            }
            offset = body + size + (size & 1)  // chunks are padded to even length
        }
        if format == nil {
            throw AudioError.truncated(path: path, reason: "no fmt chunk before the end of the file")
        }
        throw AudioError.truncated(path: path, reason: "no data chunk before the end of the file")
    }

    /// Builds a minimal 16 kHz mono 16-bit WAV file (for tests and tools).
    public static func encode(_ samples: [Int16], format: WAVFormat = .speech) -> Data {
        var d = Data()
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func put16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let pcm = SpeechAudio.s16LEData(samples)
        let blockAlign = format.channels * format.bitsPerSample / 8
        d.append(contentsOf: Array("RIFF".utf8)); put32(UInt32(36 + pcm.count)); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); put32(16)
        put16(format.formatTag); put16(UInt16(format.channels)); put32(UInt32(format.sampleRate))
        put32(UInt32(format.sampleRate * blockAlign)); put16(UInt16(blockAlign)); put16(UInt16(format.bitsPerSample))
        d.append(contentsOf: Array("data".utf8)); put32(UInt32(pcm.count))
        d.append(pcm)
        return d
    }
}
