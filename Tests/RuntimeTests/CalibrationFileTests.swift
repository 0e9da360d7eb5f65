import Config
import FrameFormats
import Foundation
import Localization
import Runtime
import Shell
import Testing
import TrackingCore

/// Issue 17: calibrations are kept per source in calibration.toml; a damaged file or another source's
/// calibration is not applied, and the user is told.
@Suite struct CalibrationFileTests {
    func tempFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cal-\(UUID().uuidString)/calibration.toml")
    }

    @Test func savedPerSourceAndReadBack() throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        let a = PointerCalibration(cx: [0.1, 0.9, 0.01, 0, 0, 0.02], cy: [-0.05, 0, 1.1, 0, 0.01, 0], shiftX: 0.01, shiftY: -0.02)
        let b = PointerCalibration(cx: [0, 1, 0, 0, 0, 0], cy: [0.2, 0, 0.8, 0, 0, 0])
        #expect(CalibrationFile.save(a, size: Size(width: 100, height: 30), source: "mediapipe", to: f) == nil)
        #expect(CalibrationFile.save(b, size: Size(width: 120, height: 40), source: "default", to: f) == nil)
        let (ma, pa) = CalibrationFile.load(f, source: "mediapipe")
        #expect(pa == nil)
        #expect(ma == SavedCalibration(calibration: a, size: Size(width: 100, height: 30)))
        #expect(CalibrationFile.load(f, source: "default").0?.calibration == b)
        let (none, told) = CalibrationFile.load(f, source: "livelink")
        #expect(none == nil)
        #expect(told?.english == "Pointer calibrated for default, mediapipe, not for livelink: calibrate in Settings")
        // Removing one keeps the other.
        #expect(CalibrationFile.save(nil, size: Size(width: 100, height: 30), source: "mediapipe", to: f) == nil)
        #expect(CalibrationFile.load(f, source: "mediapipe").0 == nil)
        #expect(CalibrationFile.load(f, source: "default").0?.calibration == b)
    }

    @Test func aDamagedFileIsNamedAndNothingApplied() throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: f.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[source.default]\nsize = [100, 30]\ncx = [1, 2]\ncy = [0, 0, 1, 0, 0, 0]\nshift = [0, 0]\n".write(to: f, atomically: true, encoding: .utf8)
        let (c, p) = CalibrationFile.load(f, source: "default")
        #expect(c == nil)
        #expect(p?.english.contains("calibration.toml:3: cx must be 6 numbers") == true, "\(String(describing: p))")
        #expect(CalibrationFile.load(tempFile(), source: "default") == (nil, nil), "no file: nothing to say")
    }

    /// The parser's reason inside the sentence is in the language too: German reads the file:line, then
    /// "cx muss aus 6 Zahlen bestehen; der Zeiger ist nicht kalibriert", with no English left (a gesture
    /// calibration file likewise).
    @Test func aDamagedFilesReasonIsInTheLanguage() throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: f.deletingLastPathComponent(), withIntermediateDirectories: true)
        let path = TranslationsTests.root.appendingPathComponent("po/de.po").path
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let german = Catalog(language: "de", entries: po.entries, file: path, problems: po.problems)
        try "[source.default]\nsize = [100, 30]\ncx = [1, 2]\ncy = [0, 0, 1, 0, 0, 0]\nshift = [0, 0]\n".write(to: f, atomically: true, encoding: .utf8)
        let shown = CalibrationFile.load(f, source: "default").1?.text(german) ?? ""
        #expect(shown == f.path + ":3: cx muss aus 6 Zahlen bestehen; der Zeiger ist nicht kalibriert", "\(shown)")
        try "[source.default]\nsize = \n".write(to: f, atomically: true, encoding: .utf8)
        let syntax = CalibrationFile.load(f, source: "default").1?.text(german) ?? ""
        #expect(syntax.hasPrefix(f.path + ":2: ") && syntax.contains("Wert") && !syntax.contains("expected"), "\(syntax)")
        let gestures = f.deletingLastPathComponent().appendingPathComponent("gesture-calibration.toml")
        try "[source.default.activate]\npress = \"high\"\n".write(to: gestures, atomically: true, encoding: .utf8)
        let g = GestureCalibrationFile.load(gestures, source: "default").1?.text(german) ?? ""
        #expect(g.hasPrefix(gestures.path + ":2: ") && !g.contains(" must ") && g.contains("Konfiguration"), "\(g)")
    }

    /// Issue 49: a coefficient huge enough to make the pointer infinite (or NaN) is out of range, named with
    /// its line, and nothing is applied.
    @Test(arguments: ["1e300", "-1e7"])
    func aCoefficientOutOfRangeIsNamed(_ value: String) throws {
        let f = tempFile()
        defer { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: f.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[source.default]\nsize = [100, 30]\ncx = [0, 1, 0, 0, 0, 0]\ncy = [0, 0, 1, \(value), 0, 0]\nshift = [0, 0]\n"
            .write(to: f, atomically: true, encoding: .utf8)
        let (c, p) = CalibrationFile.load(f, source: "default")
        #expect(c == nil)
        #expect(p?.english.contains("calibration.toml:4: cy must be 6 numbers within ±1000000") == true, "\(String(describing: p))")
    }

    /// The saved calibration applies only at the size it was made at; otherwise the title bar says why.
    @Test(arguments: [(100, 30, true), (120, 40, false)])
    func aSavedCalibrationAppliesAtItsOwnSize(_ w: Int, _ h: Int, _ applies: Bool) throws {
        let settings = GestureConfig.defaults()
        let km = try Setup.keymap("default", gestures: settings.gestures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("calrun-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let items: [DecodedItem] = (0..<30).map { .frame(TrackingFrame(t: Double($0) / 60), nil) }
        var state = ShellState(keymap: km, gestures: settings.gestures)
        state.savedCalibration = SavedCalibration(calibration: PointerCalibration(cx: [0.1, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0]),
                                                  size: Size(width: w, height: h))
        var r = ShellRuntime(session: Session(state: state, settings: settings),
                             feed: .replay(items: items, speed: 4, name: "t"), exitAtEnd: true,
                             paths: UserPaths(environment: ["HOME": home.path], dataDir: nil))
        let display = ScriptedDisplay(keys: [])
        r.display = { display }
        try r.run()
        #expect((r.session.state.calibration != nil) == applies)
        #expect((r.session.pipeline.settings.mapping.calibration != nil) == applies)
        let said = display.shown.compactMap(\.notice)
        #expect(said.contains { $0.contains("not applied at 100x30") } == !applies, "\(said)")
    }
}

/// Issue 13: the remembered cepstral mean's file.
@Suite struct CepstralMeanFileTests {
    @Test func writtenAndReadBackAndGarbageIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cmn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = UserPaths(environment: ["HOME": dir.path], dataDir: nil)
        let f = paths.cepstralMean(device: "hw:1,0")
        #expect(f.lastPathComponent == "cmn-hw_1_0.txt")
        let v: [Float] = [53.1, -2.5, 0.25, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        #expect(CepstralMeanFile.write(v, to: f) == nil)
        #expect(CepstralMeanFile.read(f) == v)
        try "53.1 banana 0\n".write(to: f, atomically: true, encoding: .utf8)
        #expect(CepstralMeanFile.read(f) == nil)
        #expect(CepstralMeanFile.read(dir.appendingPathComponent("none.txt")) == nil)
    }
}
