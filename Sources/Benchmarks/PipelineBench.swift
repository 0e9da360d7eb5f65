import FrameFormats
import Foundation
import SystemIO
import TrackingCore

/// `handsfree bench pipeline`: decode throughput per format on a recording's own frames, re-encoded in every
/// other format, and the pipeline's cost per frame after decoding.
public struct PipelineBench {
    /// Minimum frames pushed through each measurement.
    public var frames: Int
    /// Only the rows whose name contains this (e.g. ndjson, vmc, pipeline), for profiling one decoder.
    public var only: String?
    /// The gestures and filters the pipeline row runs.
    public var settings: PipelineSettings

    public init(frames: Int = 2_000_000, only: String? = nil, settings: PipelineSettings) {
        self.frames = frames; self.only = only; self.settings = settings
    }

    /// One decoder measured on the recording's frames.
    public struct Row: Sendable, Equatable {
        /// What `only` matches: the format's name, `ndjson`, `livelink-udp` or a tracker's datagram name.
        public var name: String
        /// The row as reported, e.g. `decode ndjson (same frames)`.
        public var label: String
        /// Items per CPU second of the measuring thread.
        public var rate: Double
        /// `frames/s` or `packets/s`.
        public var unit: String
    }

    /// The pipeline (validation, gaze, smoothing, every detector) over the decoded items.
    public struct PipelineRow: Sendable, Equatable {
        public var detectors: Int
        public var rate: Double
        public var nanosecondsPerFrame: Double
        /// Gestures recognised over all repetitions (the same recording, shifted in time each time).
        public var gestures: Int
    }

    /// What one recording gave.
    public struct FileResult: Sendable, Equatable {
        public var path: String
        public var format: FrameFormat
        /// Decoded items (frames and face-lost marks).
        public var items: Int
        public var bytes: Int
        public var decoders: [Row] = []
        public var pipeline: PipelineRow?
    }

    /// The line reported before the first file.
    public static var header: String {
        "machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; rates are per CPU second of the measuring thread"
    }

    /// Whether the row named `name` is measured.
    public func wanted(_ name: String) -> Bool { only.map { name.contains($0) } ?? true }

    /// Measures one recording (`path` names it in errors and the report); nil when it holds no frames.
    public func measure(_ bytes: [UInt8], path: String, out: BenchReport = { _ in }) throws -> FileResult? {
        guard let format = FrameFormat.detect(bytes) else { throw BenchError("\(path): unknown format") }
        let items = try FrameFile.decode(bytes, format: format, path: path)
        let frameCount = items.count
        guard frameCount > 0 else { return nil }
        var result = FileResult(path: path, format: format, items: frameCount, bytes: bytes.count)
        out("\(path) (\(format.rawValue), \(frameCount) frames, \(bytes.count) bytes)")
        func report(_ row: Row) {
            result.decoders.append(row)
            out("  \(row.label): \(Self.formatRate(row.rate)) \(row.unit)")
        }

        let reps = max(1, self.frames / frameCount / 4)
        if wanted(format.rawValue) {
            let rate = measure(reps: reps, frames: frameCount) {
                _ = try? FrameFile.decode(bytes, format: format, path: path).count
            }
            report(Row(name: format.rawValue, label: "decode \(format.rawValue)", rate: rate, unit: "frames/s"))
        }

        // The same frames as native NDJSON and as UDP packets, so every decoder is measured on real data.
        let frames = items.compactMap { if case .frame(let f, _) = $0 { return f }; return nil }
        if wanted("ndjson") {
            let nd = Array(frames.map { NDJSONEncoder.encode($0) + "\n" }.joined().utf8)
            let ndRate = measure(reps: reps, frames: frames.count) {
                var d = NDJSONDecoder(); _ = d.feed(nd).count + d.finish().count
            }
            report(Row(name: "ndjson", label: "decode ndjson (same frames)", rate: ndRate, unit: "frames/s"))
        }
        if wanted("livelink-udp") {
            let packets = frames.map { LiveLinkUDP.encode($0) }
            let udpRate = measure(reps: reps, frames: packets.count) {
                var n = 0
                for (k, p) in packets.enumerated() { if case .frame = LiveLinkUDP.decode(p, index: k) { n += 1 } }
                precondition(n >= 0)
            }
            report(Row(name: "livelink-udp", label: "decode livelink-udp packets (same frames)", rate: udpRate,
                       unit: "frames/s"))
        }
        for (name, encode) in TrackerDatagrams.encoders where wanted(name) {
            let datagrams = frames.map(encode)
            let r = measure(reps: reps, frames: datagrams.count) {
                // As a live socket decodes them: each datagram recognised by itself.
                var d = LiveDecoder()
                var n = 0
                for (k, p) in datagrams.enumerated() {
                    n += p.withUnsafeBytes { d.decode($0, index: k, arrival: Double(k)) }.count
                }
                precondition(n >= 0)
            }
            report(Row(name: name, label: "decode \(name) (same frames)", rate: r, unit: "packets/s"))
        }

        guard wanted("pipeline") else { return result }
        let pipeReps = max(1, self.frames / max(1, items.count))
        var gestures = 0
        let start = threadCPUSeconds()
        for r in 0..<pipeReps {
            var p = Pipeline(settings)
            // Shift timestamps per repetition so time never goes backwards across repetitions.
            let offset = Double(r) * 100_000
            for item in items {
                if case .frame(var f, let pos) = item {
                    f.t += offset
                    gestures += p.step(.frame(f, pos)).count
                } else {
                    gestures += p.step(item).count
                }
            }
        }
        let el = threadCPUSeconds() - start
        let n = Double(pipeReps * items.count)
        let row = PipelineRow(detectors: settings.gestures.count, rate: n / el, nanosecondsPerFrame: el / n * 1e9,
                              gestures: gestures)
        result.pipeline = row
        out("  pipeline (validate, gaze, smoothing, \(row.detectors) detectors): \(Self.formatRate(row.rate)) frames/s, "
            + "\(String(format: "%.0f", row.nanosecondsPerFrame)) ns/frame (\(row.gestures) gestures)")
        return result
    }

    /// Frames per CPU second of this thread (so other processes on a busy machine do not dilute it).
    private func measure(reps: Int, frames: Int, _ body: () -> Void) -> Double {
        body()
        let start = threadCPUSeconds()
        for _ in 0..<reps { body() }
        return Double(reps * frames) / (threadCPUSeconds() - start)
    }

    /// A rate rounded to a whole number with thousands separators (`1,234,567`).
    public static func formatRate(_ r: Double) -> String {
        // A measurement too short for the thread's clock to see gives infinity, which Int() would trap on.
        guard r.isFinite else { return r.isNaN ? "?" : "∞" }
        let i = Int(r.rounded())
        var s = String(i)
        var k = s.count - 3
        while k > 0 { s.insert(",", at: s.index(s.startIndex, offsetBy: k)); k -= 3 }
        return s
    }
}
