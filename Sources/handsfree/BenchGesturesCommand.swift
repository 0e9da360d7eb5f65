import ArgumentParser
import Benchmarks
import Foundation

/// `handsfree bench gestures [FILE…]`: deliberate gestures caught and false actions during talking, blinking
/// and looking down, per gesture config, on a generated face whose truth is known; and the events of
/// recordings (`GestureBench`).
struct BenchGestures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestures",
        abstract: tr("Opens caught and false actions during talking, blinking and looking down, per gesture config; events of recordings."))

    @Argument(help: ArgumentHelp(tr("Recordings to replay too (NDJSON, Live Link Face CSV, .gesichter); default: the shared face takes when present.")))
    var files: [String] = []
    @Option(name: .customLong("config"), help: ArgumentHelp(tr("Gesture configs to compare (repeatable; default: gestures and webcam).")))
    var configs: [String] = []
    @Option(name: .customLong("set"), help: ArgumentHelp(tr("Override one value for this run, e.g. gesture.activate.press=0.55.")))
    var overrides: [String] = []
    @Option(help: ArgumentHelp(tr("Rounds of the generated script."))) var rounds = 5
    @Option(help: ArgumentHelp(tr("Random seed."))) var seed: UInt64 = 7
    @Flag(name: .customLong("on-key"), help: ArgumentHelp(tr("Replay as with the eyes on a letter key, where the shorter key_hold_ms applies.")))
    var onKey = false

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() throws {
        var bench = GestureBench()
        bench.rounds = rounds
        bench.seed = seed
        bench.overrides = overrides
        bench.onKey = onKey
        if !configs.isEmpty { bench.configs = configs }
        if files.isEmpty {
            let shared = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .deletingLastPathComponent().appendingPathComponent("shared/data/face")
            bench.files = ["alex_rom_4.csv", "S07-001.csv"].map { shared.appendingPathComponent($0).path }
                .filter { FileManager.default.fileExists(atPath: $0) }
        } else {
            bench.files = files
        }
        _ = try printing { try bench.run(out: $0) }
    }
}
