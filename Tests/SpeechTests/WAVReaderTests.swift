import Foundation
import Testing
@testable import Speech

@Suite struct WAVReaderTests {
    let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]

    @Test func roundTripsSpeechFormat() throws {
        let audio = try WAVReader.parse(WAVReader.encode(samples))
        #expect(audio.samples == samples)
        #expect(audio.format == .speech)
    }

    @Test func skipsExtraChunksAndPadding() throws {
        var d = WAVReader.encode(samples)
        // Insert an odd-sized LIST chunk (padded to even length) between fmt and data.
        let list = Data("LIST".utf8) + Data([3, 0, 0, 0]) + Data("abc".utf8) + Data([0])
        d.insert(contentsOf: list, at: 36)
        #expect(try WAVReader.parse(d).samples == samples)
    }

    @Test func streamingDataSizeReadsToTheEnd() throws {
        var d = WAVReader.encode(samples)
        d.replaceSubrange(40..<44, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try WAVReader.parse(d).samples == samples)
    }

    @Test(arguments: [
        (WAVFormat(formatTag: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16), "8000 Hz, mono, 16-bit PCM"),
        (WAVFormat(formatTag: 1, channels: 2, sampleRate: 16000, bitsPerSample: 16), "16000 Hz, stereo, 16-bit PCM"),
        (WAVFormat(formatTag: 1, channels: 1, sampleRate: 16000, bitsPerSample: 8), "16000 Hz, mono, 8-bit PCM"),
        (WAVFormat(formatTag: 3, channels: 1, sampleRate: 44100, bitsPerSample: 32), "44100 Hz, mono, 32-bit float"),
        (WAVFormat(formatTag: 7, channels: 1, sampleRate: 8000, bitsPerSample: 8), "8000 Hz, mono, mu-law"),
    ])
    func wrongFormatNamesFoundAndNeededAndTheSoxLine(format: WAVFormat, found: String) throws {
        let d = WAVReader.encode(samples, format: format)
        #expect(throws: AudioError.unsupportedFormat(path: "in.wav", found: found)) {
            try WAVReader.parse(d, path: "in.wav")
        }
        let message = AudioError.unsupportedFormat(path: "in.wav", found: found).description
        #expect(message.contains(found))
        #expect(message.contains("16000 Hz, mono, 16-bit"))
        #expect(message.contains("sox in.wav -r 16000 -c 1 -b 16 in-16k.wav"))
    }

    @Test func extensibleFormatUsesSubFormat() throws {
        // WAVE_FORMAT_EXTENSIBLE with a PCM sub-format, 16 kHz mono 16-bit: accepted.
        var d = Data("RIFF".utf8) + le32(4 + 8 + 40 + 8 + 4) + Data("WAVE".utf8)
        d += Data("fmt ".utf8) + le32(40) + le16(0xFFFE) + le16(1) + le32(16000) + le32(32000) + le16(2) + le16(16)
        d += le16(22) + le16(16) + le32(4) + le16(1) + Data(repeating: 0, count: 14)
        d += Data("data".utf8) + le32(4) + Data([1, 0, 2, 0])
        #expect(try WAVReader.parse(d).samples == [1, 2])
    }

    @Test func notAWAVFile() {
        #expect(throws: AudioError.self) { try WAVReader.parse(Data("hello world, not audio".utf8)) }
        #expect(throws: AudioError.notWAV(path: "<data>", reason: "0 bytes, no RIFF header")) {
            try WAVReader.parse(Data())
        }
    }

    /// Every prefix of a valid file is rejected with an error, never a crash or a short read.
    @Test func everyTruncationIsAnError() {
        let full = WAVReader.encode(samples)
        for n in 0..<(full.count - 1) where n != 44 {  // 44 bytes: header complete, data announced but cut
            let prefix = full.prefix(n)
            do {
                let a = try WAVReader.parse(prefix, path: "cut.wav")
                Issue.record("prefix of \(n) bytes parsed to \(a.samples.count) samples")
            } catch {
                if n >= 12 { #expect(error.description.contains("truncated"), "\(n) bytes: \(error)") }
            }
        }
    }

    @Test func missingFileIsUnreadable() {
        #expect(throws: AudioError.self) { try WAVReader.read(path: "/nonexistent/x.wav") }
    }

    @Test func rawS16LE() {
        #expect(SpeechAudio.samples(fromS16LE: Data([0x01, 0x00, 0xFF, 0xFF, 0x00, 0x80, 0x07])) == [1, -1, -32768])
        #expect(SpeechAudio.samples(fromS16LE: SpeechAudio.s16LEData(samples)) == samples)
    }

    private func le16(_ v: UInt16) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
    private func le32(_ v: UInt32) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
}
