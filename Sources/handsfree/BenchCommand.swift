import ArgumentParser
import Benchmarks
import Foundation
import Runtime

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Measure speed and memory; prints figures (build with -c release)."),
        subcommands: [BenchPipeline.self, BenchUI.self, BenchFlood.self, BenchSpeech.self, BenchPredict.self, BenchLanguage.self, BenchExpand.self,
                      BenchTerminal.self, BenchPointing.self, BenchDesktop.self, BenchSpeak.self,
                      BenchGestures.self, BenchTyping.self, BenchStartup.self, BenchControls.self]
    )
}

/// Says so when the figures come from a debug build, which are not the ones to quote.
func printDebugBuildNote() {
    #if DEBUG
    print("note: debug build; use `swift build -c release` for meaningful figures")
    #endif
}

/// Runs a harness with a report that prints each line as it comes. A harness that cannot go on fails as the
/// bench commands always have, with a `ValidationError`.
func printing<T>(_ harness: (BenchReport) throws -> T) throws -> T {
    do { return try harness { print($0) } } catch let e as BenchError { throw ValidationError(e.description) }
}

struct BenchPipeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: tr("Decode throughput per format and the pipeline's cost per frame after decoding."))

    @Argument(help: ArgumentHelp(tr("Recordings (CSV takes, .gesichter, NDJSON)."))) var files: [String]
    @Option(help: ArgumentHelp(tr("Minimum frames to push through each measurement."))) var frames: Int = 2_000_000
    @Option(help: ArgumentHelp(tr("Only the rows whose name contains this (e.g. ndjson, vmc, pipeline), for profiling one decoder.")))
    var only: String?
    @OptionGroup var pipeline: PipelineOptions

    func run() throws {
        let bench = PipelineBench(frames: frames, only: only, settings: try pipeline.settings())
        printDebugBuildNote()
        print(PipelineBench.header)
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("\(file): cannot be read") }
            _ = try printing { try bench.measure([UInt8](data), path: file, out: $0) }
        }
    }
}

struct BenchStartup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract: tr("Time from starting `handsfree run -- cat` to its first screen and first word suggestion, beside tmux."),
        discussion: tr("Each start runs on its own pty with fresh folders and no speech; warm runs find the compiled word lists in the cache folder, cold runs do not: from the data folder as it is, and from a copy laid out as installed, with the lists compiled beside them."))

    @Option(help: ArgumentHelp(tr("Starts of each kind (warm, and tmux)."))) var runs = 15
    @Option(help: ArgumentHelp(tr("Starts with an empty cache folder, of each kind (as it is, as installed)."))) var coldRuns = 5

    func run() throws {
        printDebugBuildNote()
        // This very binary is the one measured.
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var bench = StartupBench(executable: exe, home: ProjectPaths.root?.path)
        bench.runs = runs; bench.coldRuns = coldRuns
        try printing { try bench.run(out: $0) }
    }
}
