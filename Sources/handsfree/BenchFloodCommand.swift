import ArgumentParser
import Benchmarks

/// `handsfree bench flood`: the built binary's `run --listen` in tmux, flooded over loopback UDP (`FloodBench`).
struct BenchFlood: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: tr("Flood a running shell with UDP datagrams (valid frames, garbage, 60 KB datagrams, mixed formats)."),
        discussion: tr("Runs this binary's `run --listen` in a tmux session of its own (the code a live session runs) and reads the screen with `tmux capture-pane`, so response times include tmux's, as a user would see them."))

    @Option(help: ArgumentHelp(tr("Datagrams per second, over all sender threads."))) var rate = 100_000
    @Option(help: ArgumentHelp(tr("Seconds of flood."))) var seconds = 10.0
    @Option(help: ArgumentHelp(tr("Sender threads."))) var senders = 2
    @Option(help: ArgumentHelp(tr("Flood another build of handsfree instead of this one (e.g. an older one, for comparison).")))
    var binary: String?

    func validate() throws {
        if rate < 1 || senders < 1 || !(seconds > 0) { throw ValidationError("--rate, --seconds and --senders must be above 0") }
    }

    func run() throws {
        printDebugBuildNote()
        var bench = FloodBench()
        bench.rate = rate; bench.seconds = seconds; bench.senders = senders; bench.binary = binary
        try printing { try bench.run(out: $0) }
    }
}
