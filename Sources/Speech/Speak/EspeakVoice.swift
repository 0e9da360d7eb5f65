import Foundation

/// espeak-ng as a child process, one per sentence (`espeak-ng --stdout`): other languages, when installed.
public final class EspeakVoice: Synthesizer {
    public let name = VoiceName.espeak
    let path: String

    public init(path: String = "/usr/bin/espeak-ng") throws(VoiceError) {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw VoiceError("espeak-ng is not installed (apt-get install espeak-ng)")
        }
        self.path = path
    }

    public func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        // 175 words a minute is espeak-ng's own speed; `--` keeps text starting with "-" from being an option.
        p.arguments = ["--stdout", "-s", String(Int(175 * max(0.3, min(3, rate)))), "--", FliteEngine.sayable(text)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw VoiceError("cannot start espeak-ng: \(error.localizedDescription)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw VoiceError("espeak-ng exited with status \(p.terminationStatus)") }
        do {
            let a = try WAVReader.parse(data, path: "espeak-ng", anyRate: true)
            return SpokenAudio(samples: a.samples, sampleRate: a.format.sampleRate)
        } catch {
            throw VoiceError("espeak-ng's output: \(error.description)")
        }
    }
}
