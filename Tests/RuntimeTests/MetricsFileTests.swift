import Foundation
import Runtime
@testable import Shell
import Testing

/// Session records keep every figure a session can produce, or say which record they skipped and why.
@Suite struct MetricsFileTests {
    /// A temporary metrics file, removed with its folder.
    final class TempFile {
        let dir = NSTemporaryDirectory() + "hf-metricsfile-\(getpid())-\(UUID().uuidString.prefix(8))"
        var path: String { dir + "/metrics.ndjson" }
        deinit { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// The record of a replay whose frames came at `times`.
    static func record(_ times: [Double]) -> MetricsRecord {
        var m = SessionMetrics()
        for t in times { m.gestures(at: t, face: true, []) }
        return m.record(kind: "replay", source: "take.ndjson", date: "2026-01-01T00:00:00Z")
    }

    @Test(arguments: [
        [0, 5e-324], [0, 1e-323], [0, 1e-310], [-5e-324, 5e-324], [0, 2.2250738585072014e-308],
        [0, 0.0004], [0, 0.001], [-0.0, 0], [0, 1e12], [-1e12, 1e12], [0, 1e300], [-1e307, 1e308], [0, 1.7976931348623157e308],
    ] as [[Double]])
    func aSessionOfAnyFiniteLengthIsSavedAndReadBack(_ times: [Double]) throws {
        let f = TempFile()
        let r = Self.record(times)
        #expect(r.wpm == 0 && r.duration.isFinite)
        #expect(MetricsFile.append(r, to: f.path) == nil)
        let (back, problems) = MetricsFile.load(f.path)
        #expect(problems.isEmpty)
        #expect(back == [r])
        #expect(back.first?.duration.bitPattern == r.duration.bitPattern)
    }

    /// Issue 49: counts of Int.max trapped `stats` adding them up. Such a record stays in the file (records
    /// are only appended) but is skipped, named by its line, and the others are read.
    @Test func aCountPastTheLimitSkipsTheRecordAndNamesItsLine() throws {
        let f = TempFile()
        var big = Self.record([0, 1])
        big.characters = Int.max
        var negative = Self.record([0, 1])
        negative.gestures = ["activate": MetricsRecord.Gesture(count: -3, meanHold: 0.2)]
        let fine = Self.record([0, 2])
        for r in [big, fine, negative] { #expect(MetricsFile.append(r, to: f.path) == nil) }
        let (back, problems) = MetricsFile.load(f.path)
        #expect(back == [fine])
        #expect(problems == [
            "\(f.path):1: skipped, characters = 9223372036854775807 is out of range (0 to 1000000000000)",
            "\(f.path):3: skipped, gestures.activate.count = -3 is out of range (0 to 1000000000000)",
        ])
    }

    @Test func subnormalHugeAndSignedZeroFiguresRoundTripExactly() throws {
        let f = TempFile()
        let edges: [Double] = [5e-324, -5e-324, 1e-310, 2.2250738585072014e-308, -0.0, 0,
                               1.7976931348623157e308, -1.7976931348623157e308, 1e19, 0.1 + 0.2]
        var written: [MetricsRecord] = []
        for (k, v) in edges.enumerated() {
            var r = Self.record([0, 1])
            r.source = "edge \(k)"
            r.duration = v; r.wpm = v; r.ksr = v
            r.dwell = MetricsRecord.Dwell(count: 1, mean: v, max: v)
            r.gestures = ["activate": MetricsRecord.Gesture(count: 2, meanHold: v)]
            #expect(MetricsFile.append(r, to: f.path) == nil, "\(v)")
            written.append(r)
        }
        let (back, problems) = MetricsFile.load(f.path)
        #expect(problems.isEmpty)
        #expect(back.count == edges.count)
        for (w, b) in zip(written, back) {
            for (x, y) in [(w.duration, b.duration), (w.wpm, b.wpm), (w.ksr ?? 1, b.ksr ?? 2), (w.dwell.mean, b.dwell.mean),
                           (w.gestures["activate"]?.meanHold ?? 1, b.gestures["activate"]?.meanHold ?? 2)] {
                #expect(x.bitPattern == y.bitPattern, "\(w.source): wrote \(x), read \(y)")
            }
        }
    }

    @Test func aFigureJSONCannotHoldSkipsTheRecordAndNamesIt() throws {
        let f = TempFile()
        // Timestamps no decoder passes (they stop at 1e12 s), but the arithmetic must not write garbage.
        let endless = Self.record([-1.7976931348623157e308, 1.7976931348623157e308])
        #expect(endless.duration == .infinity)
        let problem = MetricsFile.append(endless, to: f.path)
        #expect(problem == "\(f.path): skipped the replay record of take.ndjson (2026-01-01T00:00:00Z): its duration is inf, which JSON cannot hold")
        var nan = Self.record([0, 1])
        nan.gestures = ["wink_left": MetricsRecord.Gesture(count: 1, meanHold: .nan)]
        #expect(MetricsFile.append(nan, to: f.path)?.contains("its gestures.wink_left.meanHold is nan") == true)
        #expect(!FileManager.default.fileExists(atPath: f.path), "nothing written for either")
        #expect(MetricsFile.line(nan) == nil)
    }
}
