import ArgumentParser
import Benchmarks

/// `handsfree bench desktop`: the X11 and Wayland sinks typing into `cat` in a terminal on headless desktops,
/// beside `xdotool type` and `wtype` in the same run (`DesktopBench`).
struct BenchDesktop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desktop",
        abstract: tr("Desktop sinks: dropped or reordered characters, chars/s, key → FILE p50/p99, pointer updates/s, beside xdotool and wtype."))

    @Option(help: ArgumentHelp(tr("Characters of the text typed and checked."))) var chars = 10_000
    @Option(help: ArgumentHelp(tr("Single keys for the latency figures."))) var keys = 300
    @Option(help: ArgumentHelp(tr("Pointer positions for the updates-per-second and gaze → pointer figures."))) var moves = 2_000
    @Option(help: ArgumentHelp(tr("Only one back end: x11 or wayland."))) var only: String?
    @Option(help: ArgumentHelp(tr("An X display to use instead of starting Xvfb."))) var display: String?
    @Option(help: ArgumentHelp(tr("A Wayland socket (a name in XDG_RUNTIME_DIR, or a path) to use instead of starting sway.")))
    var waylandSocket: String?
    @Flag(help: ArgumentHelp(tr("Skip the xdotool and wtype sides."))) var noPeers = false

    func validate() throws {
        guard chars >= 2, keys >= 1, moves >= 1 else { throw ValidationError("--chars must be at least 2, --keys and --moves at least 1") }
        if let only, only != "x11", only != "wayland" { throw ValidationError("--only takes x11 or wayland") }
    }

    func run() throws {
        printDebugBuildNote()
        var bench = DesktopBench()
        bench.chars = chars; bench.keys = keys; bench.moves = moves; bench.only = only
        bench.display = display; bench.waylandSocket = waylandSocket; bench.noPeers = noPeers
        _ = try printing { try bench.run(out: $0) }
    }
}
