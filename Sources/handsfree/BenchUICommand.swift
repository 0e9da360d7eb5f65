import ArgumentParser
import Benchmarks

/// `handsfree bench ui`: render + diff cost per frame, and live UDP latency and CPU at 60 frames/s (`UIBench`).
struct BenchUI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: tr("Render+diff time per frame at 100x30 and 200x60; live UDP datagram-to-terminal latency and CPU; drawings per input frame of the real loop."))

    @Option(help: ArgumentHelp(tr("Frames per render measurement."))) var frames = 3000
    @Option(help: ArgumentHelp(tr("Seconds of live UDP input at 60 frames/s."))) var seconds = 10.0
    @Option(help: ArgumentHelp(tr("UDP port for the live part (0: pick a free one)."))) var port: UInt16 = 0
    @Option(help: ArgumentHelp(tr("Parts to run, comma-separated: render, live, loop, still (default: all); for profiling one part.")))
    var only: String?

    func run() throws {
        printDebugBuildNote()
        var bench = UIBench()
        bench.frames = frames; bench.seconds = seconds; bench.port = port
        if let only { bench.parts = Set(only.split(separator: ",").map { String($0) }) }
        try printing { try bench.run(out: $0) }
    }
}
