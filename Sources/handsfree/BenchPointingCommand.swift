import ArgumentParser
import Benchmarks
import Foundation

/// `handsfree bench pointing`: simulated users calibrate, then look at targets, through an uncalibrated and a
/// calibrated pipeline in the same run (`PointingBench`).
struct BenchPointing: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pointing",
        abstract: tr("Pointer error before and after calibration and drift correction, over simulated users; cost per frame."))

    @Option(help: ArgumentHelp(tr("Simulated users (each with its own offset, scale, tilt, bend and noise)."))) var users = 20
    @Option(help: ArgumentHelp(tr("Targets looked at per phase."))) var targets = 40
    @Option(help: ArgumentHelp(tr("Random seed."))) var seed: UInt64 = 1
    @Argument(help: ArgumentHelp(tr("Real face takes to replay through the smoothing (Live Link Face CSV, NDJSON, .gesichter); default: the shared face takes when present.")))
    var files: [String] = []
    @OptionGroup var pipeline: PipelineOptions

    func validate() throws {
        guard users >= 1, targets >= 1 else { throw ValidationError("--users and --targets must be at least 1") }
    }

    func run() throws {
        printDebugBuildNote()
        var bench = PointingBench()
        bench.users = users; bench.targets = targets; bench.seed = seed
        bench.settings = try pipeline.settings()
        // The webcam config binds pursed lips, not the tongue: its own keymap, as `bench gestures` does.
        if pipeline.config == "webcam" { bench.keymap = "webcam" }
        if files.isEmpty {
            let shared = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .deletingLastPathComponent().appendingPathComponent("shared/data/face")
            bench.recordings = ["alex_rom_4.csv", "S07-001.csv", "apfel.csv"].map { shared.appendingPathComponent($0).path }
                .filter { FileManager.default.fileExists(atPath: $0) }
        } else {
            bench.recordings = files
        }
        _ = try printing { try bench.run(out: $0) }
    }
}
