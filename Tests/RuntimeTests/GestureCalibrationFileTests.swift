import Config
import Foundation
import Runtime
import Testing
import TrackingCore

/// Issue 12: calibrated gesture thresholds are kept per source; a damaged table is named by file and line and
/// nothing of it applied; another source's are not applied.
@Suite struct GestureCalibrationFileTests {
    func tempFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("gcal-\(UUID().uuidString)/gesture-calibration.toml")
    }

    @Test func savedPerSourceAndReadBack() throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        let webcam = [GestureThreshold(name: "activate", press: 0.3125, release: 0.125, hold: 0.49, calm: 0.62),
                      GestureThreshold(name: "back", press: 0.0875, release: 0.0375)]
        let phone = [GestureThreshold(name: "activate", press: 0.45, release: 0.2)]
        #expect(GestureCalibrationFile.save(webcam, source: "mediapipe", to: f) == nil)
        #expect(GestureCalibrationFile.save(phone, source: "default", to: f) == nil)
        let (a, pa) = GestureCalibrationFile.load(f, source: "mediapipe")
        #expect(pa == nil)
        #expect(a == webcam)
        #expect(GestureCalibrationFile.load(f, source: "default").0 == phone)
        // Another source gets nothing, and no complaint: it simply was not calibrated.
        let (none, told) = GestureCalibrationFile.load(f, source: "openseeface")
        #expect(none.isEmpty && told == nil)
        // Removing one keeps the other.
        #expect(GestureCalibrationFile.save([], source: "mediapipe", to: f) == nil)
        #expect(GestureCalibrationFile.load(f, source: "mediapipe").0.isEmpty)
        #expect(GestureCalibrationFile.load(f, source: "default").0 == phone)
    }

    @Test func aDamagedTableIsNamedByLineAndNothingApplied() throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: f.deletingLastPathComponent(), withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            ("[source.default.activate]\npress = 0.4\nrelease = 0.1\n\n[source.default.back]\npress = 1.5\nrelease = 0.1\n",
             ":6: press must be a number from 0 to 1"),
            ("[source.default.activate]\npress = 0.2\nrelease = 0.3\n", ":3: release must be below press"),
            ("[source.default.activate]\npress = nan\nrelease = 0.1\n", ":2: press must be a number from 0 to 1"),
            ("[source.default]\nactivate = 3\n", "activate must be a table of press and release"),
            ("[source.default.activate\npress = 0.4\n", ":1:"),
        ]
        for (text, expected) in cases {
            try text.write(to: f, atomically: true, encoding: .utf8)
            let (got, problem) = GestureCalibrationFile.load(f, source: "default")
            #expect(got.isEmpty, "\(text)")
            #expect(problem?.english.contains(f.path) == true && problem?.english.contains(expected) == true, "\(problem?.english ?? "nil")")
            #expect(problem?.english.hasSuffix("the gestures keep the config's values") == true)
        }
        // An unreadable file (a directory where the file should be) is said so.
        try FileManager.default.removeItem(at: f)
        try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true)
        #expect(GestureCalibrationFile.load(f, source: "default").1?.english == "\(f.path): cannot be read; calibrate gestures again in Settings")
    }
}
