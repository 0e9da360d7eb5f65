import Benchmarks
import Foundation
import Testing

/// `bench desktop`'s harness on a short text into a real Xvfb: that every character arrives in order and the
/// table is printed, never how fast (a test is not a benchmark).
struct DesktopBenchTests {
    static let hasX = ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xdotool"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func theTextIsDeterministicPrintableAndBrokenIntoShortLines() {
        let text = DesktopBench.text(chars: 1_000)
        #expect(text == DesktopBench.text(chars: 1_000))
        #expect(text.count == 1_000)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.count <= 70 })
        #expect(text.unicodeScalars.allSatisfy { $0 == "\n" || (0x20...0x7E).contains($0.value) })
    }

    @Test(.enabled(if: hasX, "needs Xvfb, xterm and xdotool (scripts/install-deps.sh)"))
    func threeHundredCharactersReachCatThroughX11WithNoneDroppedOrReordered() throws {
        var bench = DesktopBench()
        bench.chars = 300
        bench.keys = 20
        bench.moves = 100
        bench.only = "x11"
        var lines: [String] = []
        let figures = try bench.run { lines.append($0) }

        #expect(figures.measured == ["x11"])
        let ours = try #require(figures.typed.first { $0.typist.hasPrefix("handsfree") })
        #expect(ours.sent == 300 && ours.arrived == 300)
        #expect(ours.exact, "first mismatch at \(ours.firstMismatch ?? -1)")
        #expect(figures.typed.contains { $0.typist.hasPrefix("xdotool") })
        #expect(lines.contains { $0.hasPrefix("typist") && $0.contains("first mismatch") && $0.contains("chars/s") })
        #expect(lines.contains { $0.hasPrefix("X11 handsfree (XTest)") && $0.contains(" none ") })
        #expect(lines.contains { $0.contains("as sent (xdotool getmouselocation)") })
        #expect(lines.contains { $0.hasPrefix("goals:") })
    }
}
