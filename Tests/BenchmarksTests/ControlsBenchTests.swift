import Foundation
import Testing
@testable import Benchmarks

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
        #expect(listing.names.count == 3 && listing.ours.count == 3 && listing.peer.count == 3)
        #expect(figures.actions.count == 4)
        #expect(figures.refreshes.count == 2 && figures.refreshes.allSatisfy { $0 > 0 && $0 < 5 })
        #expect(lines.contains { $0.hasPrefix("list    12 buttons, with actions and extents: ours p50") && $0.contains("pyatspi p50") }, "\(lines)")
    }
}
