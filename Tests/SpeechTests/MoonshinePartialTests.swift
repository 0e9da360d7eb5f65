import Foundation
import Testing

/// The Moonshine peer of `bench speech`'s first partial word (python/moonshine_partial.py): the model the
/// package installs, really loaded and run on real speech.
@Suite struct MoonshinePartialTests {
    static let ready = TestData.speechDir != nil && TestData.venvImports("moonshine_cpp, numpy")
    static let reason: Comment = "needs ../shared/data and .venv with moonshine-cpp (scripts/python-env.sh moonshine)"

    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestData.venvPython)
        p.arguments = [TestData.packageRoot.appendingPathComponent("python/moonshine_partial.py").path] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// "He" starts 0.21 s into the file: Moonshine shows text, and later the word itself, after it starts; every
    /// run is timed.
    // Minutes under a loaded CI run, where the model shares two cores with the rest of the suite.
    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(5)))
    func showsTheFirstWordOfRealSpeechAndTimesEachRun() throws {
        let wav = try #require(TestData.speechDir).appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0930.wav").path
        let r = try run([wav, "0.21", "he"])
        #expect(r.status == 0, "\(r.err)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.out)")
        let first = try #require(o["first"] as? Double, "no text within two seconds: \(r.out)")
        let right = try #require(o["right"] as? Double, "\"he\" never shown first: \(r.out)")
        #expect(first > 0.21 && right >= first, "\(r.out)")
        let runs = try #require(o["runs_ms"] as? [Double])
        #expect(!runs.isEmpty && runs.allSatisfy { $0 > 0 }, "\(r.out)")
    }

    /// Audio too short for the model (which would abort the process), a file that is not 16 kHz mono and a
    /// missing file are refused with the file named, before the model loads; a wrong argument count prints the
    /// usage.
    @Test(.enabled(if: ready, reason))
    func badInputIsNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hf-moonshine-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func wav(_ name: String, rate: UInt32, samples: Int) throws -> String {
            var d = Data("RIFF".utf8)
            func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
            le(UInt32(36 + samples * 2)); d.append(contentsOf: Array("WAVEfmt ".utf8))
            le(UInt32(16)); le(UInt16(1)); le(UInt16(1)); le(rate); le(rate * 2); le(UInt16(2)); le(UInt16(16))
            d.append(contentsOf: Array("data".utf8)); le(UInt32(samples * 2)); d.append(Data(count: samples * 2))
            let path = dir.appendingPathComponent(name).path
            try d.write(to: URL(fileURLWithPath: path))
            return path
        }
        let short = try run([try wav("short.wav", rate: 16000, samples: 800), "0", "he"])
        #expect(short.status == 1 && short.err.contains("short.wav: shorter than 0.1 s"), "\(short)")
        let rate = try run([try wav("rate.wav", rate: 8000, samples: 8000), "0", "he"])
        #expect(rate.status == 1 && rate.err.contains("rate.wav: not 16 kHz mono 16-bit"), "\(rate)")
        let missing = try run([dir.appendingPathComponent("nosuch.wav").path, "0", "he"])
        #expect(missing.status == 1 && missing.err.contains("nosuch.wav: [Errno 2]"), "\(missing)")
        let usage = try run(["only-a-file.wav"])
        #expect(usage.status == 2 && usage.err.contains("usage: moonshine_partial.py"), "\(usage)")
    }
}
