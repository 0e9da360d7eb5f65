import ArgumentParser
import Benchmarks

/// `handsfree bench terminal`: a child's output through pty + libvterm + snapshots at the display rate, beside
/// tmux doing the same work in the same run (`TerminalBench`).
struct BenchTerminal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terminal",
        abstract: tr("Hosted-terminal throughput (cat, seq), key→echo→screen latency and idle CPU, beside tmux."))

    @Option(help: ArgumentHelp(tr("Width of the shell's window; the pane is what the Terminal screen lays out in it."))) var width = 120
    @Option(help: ArgumentHelp(tr("Height of the shell's window."))) var height = 60
    @Option(help: ArgumentHelp(tr("Gestures for the response-time runs."))) var gestures = 20
    @Option(help: ArgumentHelp(tr("Megabytes of text for the cat run."))) var megabytes = 10
    @Option(help: ArgumentHelp(tr("Numbers for the seq run."))) var seq = 2_000_000
    @Option(help: ArgumentHelp(tr("Runs of each throughput case (best and median are printed)."))) var runs = 5
    @Option(help: ArgumentHelp(tr("Keystrokes for the latency run."))) var keys = 200
    @Option(help: ArgumentHelp(tr("Seconds of idle pane for the CPU figure."))) var idle = 3.0
    @Option(help: ArgumentHelp(tr("Display frames per second: a snapshot is taken at most this often."))) var fps = 60.0
    @Flag(help: ArgumentHelp(tr("Skip the tmux side."))) var noTmux = false
    @Flag(help: ArgumentHelp(tr("Run tmux's server with no client attached (before, the only way): no drawing on its side."))) var tmuxDetached = false
    @Option(help: ArgumentHelp(tr("Parts to run, comma-separated: cat, seq, keys, gestures, idle (default: all); for profiling one part.")))
    var only: String?

    func validate() throws {
        guard runs >= 1, keys >= 1, width >= 80, height >= 24, width <= 1000, height <= 1000, fps > 0, megabytes >= 1,
              seq >= 1, gestures >= 1, parts != nil else {
            throw ValidationError("--only takes \(TerminalBench.Part.allCases.map(\.rawValue).joined(separator: ", ")); --runs, --keys, --gestures, --megabytes and --seq must be at least 1, the window at least 80x24, --fps above 0")
        }
    }

    /// The parts `--only` names (nil if one is unknown), all without it.
    var parts: Set<TerminalBench.Part>? {
        guard let only else { return Set(TerminalBench.Part.allCases) }
        var out: Set<TerminalBench.Part> = []
        for name in only.split(separator: ",") {
            guard let p = TerminalBench.Part(rawValue: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            out.insert(p)
        }
        return out
    }

    func run() throws {
        printDebugBuildNote()
        var bench = TerminalBench()
        bench.width = width; bench.height = height; bench.gestures = gestures; bench.megabytes = megabytes
        bench.seq = seq; bench.runs = runs; bench.keys = keys; bench.idle = idle; bench.fps = fps; bench.noTmux = noTmux; bench.tmuxClient = !tmuxDetached
        if let parts { bench.parts = parts }
        try printing { try bench.run(out: $0) }
    }
}
