import Benchmarks
import Config
import FrameFormats
import Testing
import TrackingCore

/// `bench pipeline`'s harness on a few seconds of frames: which rows it measures and what it counts, never
/// how fast (a test is not a benchmark).
struct PipelineBenchTests {
    /// Three seconds at 60 frames/s: resting, the jaw held open for a second (one activate), resting.
    static let recording: [UInt8] = {
        let frames = (0..<180).map { i in
            TrackingFrame(t: Double(i) / 60, blend: BlendShapes([.jawOpen: (60..<120).contains(i) ? 0.8 : 0.02]),
                          gaze: GazePoint(x: 0.5, y: 0.5))
        }
        return Array(frames.map { NDJSONEncoder.encode($0) + "\n" }.joined().utf8)
    }()

    static let settings = GestureConfig.defaults()

    @Test func everyDecoderAndThePipelineGetARowInTheOrderReported() throws {
        var lines: [String] = []
        let bench = PipelineBench(frames: 360, settings: Self.settings)
        let result = try #require(try bench.measure(Self.recording, path: "take.ndjson") { lines.append($0) })

        #expect(result.format == .ndjson)
        #expect(result.items == 180)
        #expect(result.bytes == Self.recording.count)
        let trackers = TrackerDatagrams.encoders.map(\.name)
        #expect(result.decoders.map(\.name) == ["ndjson", "ndjson", "livelink-udp"] + trackers)
        #expect(result.decoders.map(\.unit) == ["frames/s", "frames/s", "frames/s"] + trackers.map { _ in "packets/s" })
        #expect(result.decoders.map(\.label).first == "decode ndjson")

        let pipeline = try #require(result.pipeline)
        #expect(pipeline.detectors == Self.settings.gestures.count)
        // The recording is run twice (360 frames asked of 180), each time with the same gestures.
        #expect(pipeline.gestures > 0)
        #expect(pipeline.gestures % 2 == 0)

        #expect(lines.count == 1 + result.decoders.count + 1)
        #expect(lines.first == "take.ndjson (ndjson, 180 frames, \(Self.recording.count) bytes)")
        for (line, row) in zip(lines.dropFirst(), result.decoders) { #expect(line.hasPrefix("  \(row.label): ")) }
        #expect(lines.last?.hasPrefix("  pipeline (validate, gaze, smoothing, \(pipeline.detectors) detectors): ") == true)
        #expect(lines.last?.hasSuffix(" (\(pipeline.gestures) gestures)") == true)
    }

    @Test func onlyMeasuresTheRowsItNames() throws {
        let bench = PipelineBench(frames: 180, only: "vmc", settings: Self.settings)
        let result = try #require(try bench.measure(Self.recording, path: "take.ndjson"))
        #expect(!result.decoders.isEmpty)
        #expect(result.decoders.allSatisfy { $0.name.contains("vmc") })
        #expect(result.pipeline == nil)
    }

    @Test func bytesOfNoKnownFormatAreRefusedWithTheirPath() {
        let bench = PipelineBench(frames: 10, settings: Self.settings)
        #expect(throws: BenchError.self) { try bench.measure([0xFF, 0x00, 0x13], path: "noise.bin") }
        do { _ = try bench.measure([0xFF, 0x00, 0x13], path: "noise.bin") } catch {
            #expect("\(error)" == "noise.bin: unknown format")
        }
    }

    @Test func ratesAreWrittenWithThousandsSeparators() {
        #expect(PipelineBench.formatRate(1_234_567.4) == "1,234,567")
        #expect(PipelineBench.formatRate(999) == "999")
        #expect(PipelineBench.formatRate(.infinity) == "∞")
    }
}
