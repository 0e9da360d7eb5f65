import Foundation
import Testing
@testable import Benchmarks
import Runtime

/// `bench controls`'s harness on a small window: every listing finds every button, each press by name reaches
/// the application, and each focus change shows in a new reading.
struct ControlsBenchTests {
    static let ready = ["/usr/bin/Xvfb", "/usr/bin/dbus-daemon", "/usr/libexec/at-spi-bus-launcher", "/usr/bin/python3"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/pyatspi/__init__.py")

    @Test(.enabled(if: ready, "needs Xvfb, dbus, at-spi2-core, python3-gi with GTK 3 and python3-pyatspi (scripts/install-deps.sh)"))
    func aSmallRunMeasuresEveryPartBesidePyatspi() throws {
        var bench = ControlsBench()
        bench.sizes = [12]
        bench.runs = 3
        bench.presses = 4
        bench.switches = 2
        var lines: [String] = []
        let figures = try bench.run { lines.append($0) }
        let listing = try #require(figures.listing[12])
        #expect(listing.controls == 12)
        #expect(listing.names.count == 3 && listing.peerNames.count == 3 && listing.ours.count == 3 && listing.viaBus.count == 3
                && listing.peer.count == 3)
        #expect(figures.actions.count == 4)
        #expect(figures.refreshes.count == 2 && figures.refreshes.allSatisfy { $0 > 0 && $0 < 5 })
        // Each figure says what it includes, beside pyatspi reading the same, with the CPU each side spent.
        for what in ["roles, names, states (the Controls view's list)",
                     "roles, names, states, actions, extents (controls --json), on the application's own connection",
                     "roles, names, states, actions, extents, through the bus daemon"] {
            #expect(lines.contains { $0.hasPrefix("list    12 buttons · \(what): ours p50") && $0.contains("pyatspi, the same, p50")
                && $0.contains("CPU a listing: ours") }, "\(lines)")
        }
    }
}

/// `bench controls`' simulated presses: on the list every press acts on the entry looked at, and in pointer
/// mode every press ends with a click inside the button (or is counted as given up).
struct ControlsAimBenchTests {
    @Test func listPressesHitTheEntryLookedAtAndPointerPressesAreTimed() throws {
        let path = ProjectPaths.dir("config").appendingPathComponent("typing-profiles.toml").path
        let profiles = try TypingProfile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        var bench = ControlsAimBench(profile: try #require(profiles.first { $0.name == "webcam" }))
        bench.sizes = [16, 32]
        bench.trials = 3
        var lines: [String] = []
        let rows = try bench.run { lines.append($0) }
        #expect(rows.map(\.size) == [16, 32])
        for row in rows {
            #expect(row.wrong == 0, "a list press acted on another entry")
            #expect(row.list.count == 3 && row.pointer.count == 3)
            #expect(row.list.allSatisfy { $0 > 0.2 && $0 < 10 } && row.pointer.allSatisfy { $0 > 0.2 && $0 < 60 }, "\(row)")
        }
        #expect(lines.count == 2 && lines[0].hasPrefix("press a 16 px button, webcam: list "), "\(lines)")
    }
}
