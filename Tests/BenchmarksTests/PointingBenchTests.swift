import Benchmarks
import Config
import Foundation
import Testing

/// `bench pointing`'s real takes: fixations found by dispersion, and the smoothing given with `--set` is the one
/// the takes go through.
@Suite struct PointingBenchTests {
    static let take = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/data/face/S07-001.csv").path

    static func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }

    @Test func fixationsAreStillRunsLongEnough() {
        // 60 frames/s: half a second still, a 50 ms jump, a 0.1 s rest (too short), a jump, 0.4 s still.
        var t: [Double] = [], cells: [(x: Double, y: Double)] = []
        func still(_ x: Double, _ y: Double, _ seconds: Double) {
            for k in 0..<Int(seconds * 60) { t.append(Double(t.count) / 60); cells.append((x + (k % 2 == 0 ? 0.4 : -0.4), y)) }
        }
        still(10, 10, 0.5)
        for k in 1...3 { t.append(Double(t.count) / 60); cells.append((10 + Double(k) * 10, 10)) }
        still(40, 10, 0.1)
        for k in 1...3 { t.append(Double(t.count) / 60); cells.append((40 + Double(k) * 5, 10 + Double(k) * 3)) }
        still(60, 20, 0.4)
        let found = PointingBench.fixations(t, cells)
        #expect(found.count == 2, "\(found)")
        #expect(found.first.map { $0.0 == 0 && $0.1 == 29 } == true, "\(found)")
        #expect(found.last.map { $0.1 == t.count - 1 && t[$0.1] - t[$0.0] >= 0.3 } == true, "\(found)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: take), "../shared/data/face/S07-001.csv is not here"))
    func aRealTakeGoesThroughTheSmoothingGiven() throws {
        var bench = PointingBench()
        let smoothed = try bench.recorded(Self.take)
        bench.settings = try GestureConfig.parse(GestureConfig.defaultText, file: "gestures.toml", overrides: ["smoothing.filter=none"])
        let raw = try bench.recorded(Self.take)
        // The same fixations (found on the raw pointer, whatever the smoothing)…
        #expect(smoothed.fixations > 20 && smoothed.fixations == raw.fixations, "\(smoothed.fixations) \(raw.fixations)")
        // …reached sooner without smoothing, and shakier while the person talks: more frames on another target.
        let rawWait = Self.mean(raw.highlight), smoothedWait = Self.mean(smoothed.highlight)
        #expect(rawWait < smoothedWait, "\(rawWait) \(smoothedWait)")
        #expect(raw.wrong > 2 * smoothed.wrong, "\(raw.wrong) \(smoothed.wrong)")
        #expect(smoothed.frames > 0 && smoothed.frames == raw.frames)
    }
}
