import ArgumentParser
import Benchmarks
import Config
import Foundation
import Runtime

/// `handsfree bench controls`: the accessibility client listing windows of 50 and 2,000 buttons beside a
/// pyatspi walk, a named command until the application acted, and the refresh after a focus change
/// (`ControlsBench`).
struct BenchControls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: tr("Controls view: list 50 and 2,000 controls p50/p99 beside pyatspi, command → action, refresh after a focus change."))

    @Option(help: ArgumentHelp(tr("Listings timed per window size."))) var runs = 30
    @Option(help: ArgumentHelp(tr("Buttons pressed by name."))) var presses = 50
    @Option(help: ArgumentHelp(tr("Focus changes timed."))) var switches = 30
    @Option(help: ArgumentHelp(tr("Window sizes in buttons, comma-separated."))) var sizes = "50,2000"
    @Option(help: ArgumentHelp(tr("The simulated user who presses buttons on the list and in pointer mode (a profile of config/typing-profiles.toml).")))
    var profile = "webcam"
    @Option(help: ArgumentHelp(tr("Presses per button size and way (16, 24 and 32 px; 0 skips the part)."))) var aims = 20

    func validate() throws {
        guard runs >= 1, presses >= 1, switches >= 1 else { throw ValidationError("--runs, --presses and --switches must be at least 1") }
        let parsed = sizes.split(separator: ",").compactMap { Int($0) }
        guard !parsed.isEmpty, parsed.allSatisfy({ (1...20_000).contains($0) }) else {
            throw ValidationError("--sizes takes numbers of buttons from 1 to 20000, comma-separated")
        }
    }

    func run() throws {
        printDebugBuildNote()
        var bench = ControlsBench()
        bench.runs = runs; bench.presses = presses; bench.switches = switches
        bench.sizes = sizes.split(separator: ",").compactMap { Int($0) }
        if aims > 0 {
            let path = ProjectPaths.dir("config").appendingPathComponent("typing-profiles.toml").path
            let profiles: [TypingProfile]
            do {
                profiles = try TypingProfile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
            } catch let error as ConfigError {
                throw ValidationError(error.shown.shown)
            }
            guard let user = profiles.first(where: { $0.name == profile }) else {
                throw ValidationError(tr("no profile \"{profile}\" in {file} (known: {known})",
                                         ["profile": profile, "file": path, "known": profiles.map(\.name).joined(separator: ", ")]))
            }
            var aim = ControlsAimBench(profile: user)
            aim.trials = aims
            bench.aim = aim
        }
        _ = try printing { try bench.run(out: $0) }
    }
}
