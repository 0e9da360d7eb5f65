import ArgumentParser
import FrameFormats
import Foundation
import Runtime
import TrackingCore
import Transport

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure speed and memory; prints figures (build with -c release).",
        subcommands: [BenchPipeline.self, BenchUI.self, BenchFlood.self, SpeechBench.self, BenchPredict.self,
                      BenchTerminal.self, BenchPointing.self]
    )
}

struct BenchPipeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Decode throughput per format and the pipeline's cost per frame after decoding.")

    @Argument(help: "Recordings (CSV takes, .gesichter, NDJSON).") var files: [String]
    @Option(help: "Minimum frames to push through each measurement.") var frames: Int = 2_000_000
    @Option(help: "Only the rows whose name contains this (e.g. ndjson, vmc, pipeline), for profiling one decoder.")
    var only: String?

    /// Whether the row named `name` is measured.
    func wanted(_ name: String) -> Bool { only.map { name.contains($0) } ?? true }
    @OptionGroup var pipeline: PipelineOptions

    func run() throws {
        let settings = try pipeline.settings()
        #if DEBUG
        print("note: debug build; use `swift build -c release` for meaningful figures")
        #endif
        print("rates are per CPU second of the measuring thread")
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("\(file): cannot be read") }
            let bytes = [UInt8](data)
            guard let format = FrameFormat.detect(bytes) else { throw ValidationError("\(file): unknown format") }
            let items = try FrameFile.decode(bytes, format: format, path: file)
            let frameCount = items.count
            guard frameCount > 0 else { continue }
            print("\(file) (\(format.rawValue), \(frameCount) frames, \(bytes.count) bytes)")

            let reps = max(1, frames / frameCount / 4)
            if wanted(format.rawValue) {
                let rate = measure(reps: reps, frames: frameCount) {
                    _ = try? FrameFile.decode(bytes, format: format, path: file).count
                }
                print("  decode \(format.rawValue): \(fmtRate(rate)) frames/s")
            }

            // The same frames as native NDJSON and as UDP packets, so every decoder is measured on real data.
            let frames = items.compactMap { if case .frame(let f, _) = $0 { return f }; return nil }
            if wanted("ndjson") {
                let nd = Array(frames.map { NDJSONEncoder.encode($0) + "\n" }.joined().utf8)
                let ndRate = measure(reps: reps, frames: frames.count) {
                    var d = NDJSONDecoder(); _ = d.feed(nd).count + d.finish().count
                }
                print("  decode ndjson (same frames): \(fmtRate(ndRate)) frames/s")
            }
            if wanted("livelink-udp") {
                let packets = frames.map { LiveLinkUDP.encode($0) }
                let udpRate = measure(reps: reps, frames: packets.count) {
                    var n = 0
                    for (k, p) in packets.enumerated() { if case .frame = LiveLinkUDP.decode(p, index: k) { n += 1 } }
                    precondition(n >= 0)
                }
                print("  decode livelink-udp packets (same frames): \(fmtRate(udpRate)) frames/s")
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
                print("  decode \(name) (same frames): \(fmtRate(r)) packets/s")
            }

            guard wanted("pipeline") else { continue }
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
            print("  pipeline (validate, gaze, smoothing, \(settings.gestures.count) detectors): \(fmtRate(n / el)) frames/s, \(String(format: "%.0f", el / n * 1e9)) ns/frame (\(gestures) gestures)")
        }
    }

    /// Frames per CPU second of this thread (so other processes on a busy machine do not dilute it).
    private func measure(reps: Int, frames: Int, _ body: () -> Void) -> Double {
        body()
        let start = threadCPUSeconds()
        for _ in 0..<reps { body() }
        return Double(reps * frames) / (threadCPUSeconds() - start)
    }

    private func fmtRate(_ r: Double) -> String {
        let i = Int(r.rounded())
        var s = String(i)
        var k = s.count - 3
        while k > 0 { s.insert(",", at: s.index(s.startIndex, offsetBy: k)); k -= 3 }
        return s
    }
}
