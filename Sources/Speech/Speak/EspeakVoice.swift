import Foundation
import Localization

/// espeak-ng as a child process, one per sentence (`espeak-ng --stdout`): other languages, when installed.
public final class EspeakVoice: Synthesizer {
    public let name = VoiceName.espeak
    let path: String
    /// espeak-ng's voice: the language's code ("es", "fr", "de", "it", "pt"; "en" is its US English).
    public let language: String

    public init(path: String = "/usr/bin/espeak-ng", language: String = "en") throws(VoiceError) {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw VoiceError(UIMessage("espeak-ng is not installed (apt-get install espeak-ng)"))
        }
        // A code is letters and "-" only, starting with a letter, so it can never be taken for an option.
        let code = language.replacingOccurrences(of: "_", with: "-").lowercased()
        guard code.first?.isLetter == true, code.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else {
            throw VoiceError(UIMessage("espeak-ng: \"{language}\" is not a language code", ["language": language]))
        }
        self.path = path
        self.language = code == "en" ? "en-us" : code
    }

    /// Whether espeak-ng has a voice for `language` (its data folder has the language), for `doctor`.
    public static func hasVoice(_ language: String, path: String = "/usr/bin/espeak-ng") -> Bool {
        guard FileManager.default.isExecutableFile(atPath: path) else { return false }
        let code = language.split(separator: "_").first.map(String.init) ?? language
        for data in ["/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data", "/usr/share/espeak-ng-data"] {
            if FileManager.default.fileExists(atPath: data + "/" + code + "_dict") { return true }
        }
        return false
    }

    public func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        // 175 words a minute is espeak-ng's own speed; `--` keeps text starting with "-" from being an option.
        p.arguments = ["--stdout", "-v", language, "-s", String(Int(175 * max(0.3, min(3, rate)))), "--", FliteEngine.sayable(text)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { throw VoiceError(UIMessage("cannot start espeak-ng: {reason}", ["reason": error.localizedDescription])) }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw VoiceError(UIMessage("espeak-ng exited with status {status}", ["status": String(p.terminationStatus)])) }
        do {
            let a = try WAVReader.parse(data, path: "espeak-ng", anyRate: true)
            return SpokenAudio(samples: a.samples, sampleRate: a.format.sampleRate)
        } catch {
            throw VoiceError(UIMessage("espeak-ng's output: {reason}", reasons: ["reason": error.message]))
        }
    }
}
