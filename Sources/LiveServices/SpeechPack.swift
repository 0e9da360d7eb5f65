import Config
import Foundation
import Localization
import SpeechText
import UserFiles

/// A language pack's speech data, `languages/LL/speech.toml` beside the pack's `pack.toml` (word data): spoken
/// punctuation, dictation's own commands, number words and voice commands, read into a `SpeechLanguage`.
/// English is built in and has no file. The format is in docs/speech-languages.md.
public enum SpeechPack {
    /// The file of language `code` in the packs' folder.
    public static func file(_ code: String, in folder: URL = ProjectPaths.dir("languages")) -> URL {
        folder.appendingPathComponent(code).appendingPathComponent("speech.toml")
    }

    /// The speech data of `code`: English's own for "en"; else its file's, or English's with the problem said
    /// (a missing file, a mistake with file:line), so dictation and commands still work in English words.
    public static func load(_ code: String, in folder: URL = ProjectPaths.dir("languages")) -> (language: SpeechLanguage, problem: UIMessage?) {
        let base = code.split(separator: "_").first.map(String.init) ?? code
        guard base != "en" else { return (.english, nil) }
        let url = file(base, in: folder)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return (.english, UIMessage("{file}: no speech data for \"{language}\"; spoken punctuation and commands are English",
                                        ["file": url.path, "language": base]))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return (.english, UIMessage("{file}: not UTF-8 text; spoken punctuation and commands are English", ["file": url.path]))
        }
        do throws(ConfigError) {
            return (try SpeechFile.parse(text, file: url.path, code: base), nil)
        } catch {
            return (.english, UIMessage("{problem} (spoken punctuation and commands are English)", reasons: ["problem": error.shown]))
        }
    }
}
