import ArgumentParser
import Benchmarks

/// `handsfree bench pointing`: simulated users calibrate, then look at targets, through an uncalibrated and a
/// calibrated pipeline in the same run (`PointingBench`).
struct BenchPointing: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pointing",
        abstract: tr("Pointer error before and after calibration and drift correction, over simulated users; cost per frame."))

    @Option(help: ArgumentHelp(tr("Simulated users (each with its own offset, scale, tilt, bend and noise)."))) var users = 20
    @Option(help: ArgumentHelp(tr("Targets looked at per phase."))) var targets = 40
    @Option(help: ArgumentHelp(tr("Random seed."))) var seed: UInt64 = 1

    func validate() throws {
        guard users >= 1, targets >= 1 else { throw ValidationError("--users and --targets must be at least 1") }
    }

    func run() throws {
        printDebugBuildNote()
        var bench = PointingBench()
        bench.users = users; bench.targets = targets; bench.seed = seed
        _ = try printing { try bench.run(out: $0) }
    }
}
