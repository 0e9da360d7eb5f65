import Benchmarks
import Testing

/// `bench gestures` scores the generated face by its labels: counts only, no timings.
@Suite struct GestureBenchTests {
    @Test func theScriptIsScoredForEachConfig() throws {
        var bench = GestureBench()
        bench.rounds = 1
        var lines: [String] = []
        try bench.run { lines.append($0) }
        #expect(lines.contains { $0.contains("config gestures:") } && lines.contains { $0.contains("config webcam:") })
        // Every deliberate kind is reported with its count, and every non-gesture with its false actions.
        #expect(lines.filter { $0.contains("caught") }.count == 10, "\(lines)")
        #expect(lines.filter { $0.contains("false actions") }.count == 6, "\(lines)")
        // A quick deliberate open is taken by the phone's config; a long hold by both.
        #expect(lines.contains { $0.contains("quick open 0.5 s") && $0.contains("caught 1 of 1") })
        #expect(lines.filter { $0.contains("open held 1.2 s") && $0.contains("caught 1 of 1") }.count == 2)
        // The webcam config, which asks for the rhythm of a deliberate opening, takes nothing from talking.
        let webcam = lines.drop { !$0.contains("config webcam:") }
        #expect(webcam.contains { $0.contains("talking") && $0.contains("false actions none") }, "\(lines)")
    }
}
