import Foundation
import Localization
import Testing
@testable import Speech

/// The real ALSA capture code, reading files through ALSA's `file` plugin (no sound card needed).
@Suite struct ALSACaptureTests {
    /// Writes raw S16LE samples to a temporary file (never a device node) and returns its path.
    private func tempRaw(_ samples: [Int16]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hf-alsa-\(UUID().uuidString).raw").path
        try SpeechAudio.s16LEData(samples).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Collects `count` samples from the capture thread (the file plugin goes on with silence at the end).
    /// Waited for on a semaphore from the capture thread itself (see `Heard`).
    private func capture(_ cap: ALSACapture, count: Int) -> [Int16] {
        let box = Collected(count)
        cap.start { box.add($0) }
        _ = box.done.wait(timeout: .now() + 30)
        cap.stop()
        return box.samples
    }

    @Test func deliversTheFileThenSilenceInChunks() throws {
        let samples = (0..<5000).map { Int16(truncatingIfNeeded: $0 * 7) }
        let path = try tempRaw(samples)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cap = try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: path),
                                  chunkFrames: 800)
        let got = capture(cap, count: 8000)
        #expect(Array(got.prefix(5000)) == samples)
        #expect(got.dropFirst(5000).allSatisfy { $0 == 0 })
        #expect(got.count % 800 == 0)
    }

    @Test func missingDeviceIsAnErrorValue() {
        #expect(throws: AudioError.self) { try ALSACapture(device: "no_such_pcm_device") }
        do {
            _ = try ALSACapture(device: "no_such_pcm_device")
        } catch {
            #expect(error.description.contains("no_such_pcm_device"))
        }
        #expect(throws: AudioError.self) { try ALSACapture(device: "x", configuration: "pcm.x { type ") }
    }

    /// A capture error built from parts (what failed, ALSA's reason inside it) is said whole in the user's
    /// language: German here, from the project's catalog (before, the part around ALSA's reason stayed English).
    @Test func aConfigurationThatDoesNotParseIsSaidInTheLanguage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("po/de.po").path
        let file = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let german = Catalog(language: "de", entries: file.entries, file: path, problems: file.problems)
        do {
            _ = try ALSACapture(device: "x", configuration: "pcm.x { type ")
            Issue.record("a configuration that does not parse was taken")
        } catch {
            let shown = error.message.text(german)
            #expect(shown.contains("Mikrofon »x«") && shown.contains("ALSA-Konfiguration"), "\(shown)")
            #expect(!shown.contains("does not parse") && !shown.contains("configuration"), "\(shown)")
            #expect(error.description.contains("ALSA configuration does not parse"), "\(error.description)")
        }
    }

    @Test(.enabled(if: TestData.haveSpeechData, "\(TestData.missingMessage), or pocketsphinx-en-us is not installed"))
    func fileThroughALSAIntoTheRecogniserToATranscript() throws {
        let dir = try #require(TestData.speechDir)
        let r = try Recognizer(configuration: .init(dictation: false))
        try r.addGrammar(name: "go", jsgf: String(contentsOf: dir.appendingPathComponent("goforward.gram"), encoding: .utf8))
        let speech = SpeechAudio.samples(fromS16LE: try Data(contentsOf: dir.appendingPathComponent("goforward.raw")))
        let path = try tempRaw(speech)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cap = try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: path))
        let listener = SpeechListener(recognizer: r, capture: cap)
        // Waited for on a semaphore, not an async stream: the capture feeds silence after the file as fast as
        // it can, and a test task left unscheduled on a busy cooperative pool let it run for minutes.
        let heard = Heard()
        listener.start(onEvent: { heard.add($0) })
        _ = heard.done.wait(timeout: .now() + 60)
        listener.stop()
        let (finals, partials) = heard.result
        #expect(finals == ["go forward ten meters"])
        #expect(partials > 0)
    }

    @Test(.enabled(if: TestData.haveSpeechData, "\(TestData.missingMessage), or pocketsphinx-en-us is not installed"))
    func dictationFromAWAVThroughALSA() throws {
        let dir = try #require(TestData.speechDir)
        let audio = try WAVReader.read(path: dir.appendingPathComponent("librivox/sense_and_sensibility_01_austen_64kb-0930.wav").path)
        let path = try tempRaw(audio.samples)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let listener = SpeechListener(recognizer: try Recognizer(),
                                      capture: try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: path)))
        let heard = Heard(nonEmpty: true)
        listener.start(onEvent: { heard.add($0) })
        _ = heard.done.wait(timeout: .now() + 60)
        listener.stop()
        var session = DictationSession()
        if let t = heard.result.finals.first { _ = session.apply(utterance: t + " period") }
        // "he might even have been made amiable himself": the decoder gets the start right.
        #expect(session.text.hasPrefix("He might even have been made"), "\(session.text)")
        #expect(session.text.hasSuffix("."))
    }
}

/// Speech events from the capture thread, until the first final (a non-empty one with `nonEmpty`).
final class Heard: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var finals: [String] = []
    private var partials = 0
    private let nonEmpty: Bool
    init(nonEmpty: Bool = false) { self.nonEmpty = nonEmpty }
    func add(_ e: SpeechEvent) {
        lock.lock(); defer { lock.unlock() }
        guard finals.isEmpty else { return }
        if case .partial = e { partials += 1 }
        if case let .final(t, _, _) = e, !nonEmpty || !t.isEmpty { finals.append(t); done.signal() }
    }
    var result: (finals: [String], partials: Int) { lock.lock(); defer { lock.unlock() }; return (finals, partials) }
}

/// Samples from the capture thread until `count` have come.
final class Collected: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var got: [Int16] = []
    private let count: Int
    init(_ count: Int) { self.count = count }
    func add(_ e: CaptureEvent) {
        lock.lock(); defer { lock.unlock() }
        guard got.count < count, case let .audio(a) = e else { return }
        got += a
        if got.count >= count { done.signal() }
    }
    var samples: [Int16] { lock.lock(); defer { lock.unlock() }; return got }
}
