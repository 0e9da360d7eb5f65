import Config
import FrameFormats
import Foundation
import Localization
@testable import LiveServices
@testable import Runtime
import Shell
import Testing
import TrackingCore

/// What the edge says to the user (speech off, a file not read or written, a source that cannot make a
/// gesture, the webcam's bridge) is made as messages of the catalog, so it is drawn in the user's language:
/// each is translatable and the shipped Spanish catalog says it in Spanish, with the path or the system's
/// words kept as they are.
@Suite struct RuntimeNoticesTests {
    static let spanish: Catalog = {
        let path = TranslationsTests.root.path + "/po/es.po"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let po = POFile.parse(text, file: path)
        return Catalog(language: "es", entries: po.entries, file: path, problems: po.problems)
    }()

    /// A message the catalog translates: not shown as it is, and its Spanish is not its English.
    static func expectTranslated(_ message: UIMessage?, _ what: String, keeps kept: [String] = [],
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        guard let message else { Issue.record("\(what): no message", sourceLocation: sourceLocation); return }
        #expect(message.isTranslatable, "\(what): shown as it is: \(message.english)", sourceLocation: sourceLocation)
        let es = message.text(spanish)
        #expect(es != message.english, "\(what): not in Spanish: \(es)", sourceLocation: sourceLocation)
        for k in kept { #expect(es.contains(k), "\(what): lost \(k): \(es)", sourceLocation: sourceLocation) }
    }

    static func folder() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("hf-notices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    @Test func speechOffInThisRunIsAMessage() throws {
        let d = try Self.folder()
        defer { try? FileManager.default.removeItem(at: d) }
        let paths = UserPaths(environment: ["HOME": d.path], dataDir: d.appendingPathComponent("data").path)
        let settings = GestureConfig.defaults()
        let state = ShellState(keymap: try Setup.keymap("default", gestures: settings.gestures), gestures: settings.gestures)
        let r = ShellRuntime(session: Session(state: state, settings: settings), feed: .none, exitAtEnd: true, paths: paths)
        let events = r.speechEffect(.startDictation)
        guard case .speechUnavailable(let why)? = events.first else { Issue.record("\(events)"); return }
        Self.expectTranslated(why, "speech off in this run")
        #expect(why.text(Self.spanish) == "La voz está desactivada en esta sesión")
    }

    @Test func aSourceThatCannotMakeAGestureIsSaidInTheLanguage() throws {
        let gestures = GestureConfig.defaults().gestures
        let osf = try #require(SourceCapabilities.named("openseeface"))
        var watch = SourceWatch(gestures: gestures, bound: ["back", "commit", "wink_left"])
        let message = watch.check(osf)
        // The English is what the status line always said; each clause is a message of its own.
        #expect(message?.english == "openseeface: commit needs tongueOut; unreliable: back, wink_left (eyeBlinkRight, eyeBlinkLeft)")
        Self.expectTranslated(message, "source watch", keeps: ["openseeface", "tongueOut", "eyeBlinkRight"])
        #expect(watch.check(osf) == nil, "said once per source")
        var fine = SourceWatch(gestures: gestures, bound: ["activate"])
        #expect(fine.check(osf) == nil)
        var shaky = SourceWatch(gestures: gestures, bound: ["back"])
        #expect(shaky.check(osf)?.english.hasPrefix("openseeface: unreliable: back (eyeBlinkRight") == true)
    }

    @Test func unreadableAndUnwritableFilesAreSaidInTheLanguageWithTheirPaths() throws {
        let d = try Self.folder()
        defer { try? FileManager.default.removeItem(at: d) }
        // A folder where a file is expected: it cannot be read, and nothing can be written under a file.
        let notAFile = d.appendingPathComponent("calibration.toml")
        try FileManager.default.createDirectory(at: notAFile, withIntermediateDirectories: true)
        Self.expectTranslated(CalibrationFile.load(notAFile, source: "default").1, "pointer calibration", keeps: [notAFile.path])
        Self.expectTranslated(GestureCalibrationFile.load(notAFile, source: "default").1, "gesture calibration", keeps: [notAFile.path])
        Self.expectTranslated(TrackerFile.load(notAFile).1, "tracker.toml", keeps: [notAFile.path])
        let blocker = d.appendingPathComponent("blocker")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let under = blocker.appendingPathComponent("calibration.toml")
        Self.expectTranslated(CalibrationFile.save(nil, size: Size(width: 80, height: 24), source: "default", to: under),
                              "calibration not saved")
        let live = LivePrediction()
        let write = Predictor.Write(path: blocker.appendingPathComponent("user-words.txt").path, text: "hola\n")
        Self.expectTranslated(live.write(write, what: .learnedWords), "learned words not saved")
        Self.expectTranslated(live.saveIfNeeded(), "learned words retried")
        Self.expectTranslated(LivePrediction.pack(for: "xx").1, "no word data", keeps: ["xx"])
    }

    @Test func theWebcamsMissingPartsAreSaidInTheLanguage() {
        Self.expectTranslated(WebcamBridge.missing(python: nil, model: "m"), "no Python")
        Self.expectTranslated(WebcamBridge.missing(python: "/usr/bin/python3", model: nil), "no face model")
        #expect(WebcamBridge.missing(python: "/usr/bin/python3", model: "m") == nil)
    }

    /// The status line's speech part and the suggestion bar's "loading words…" are drawn in the language of
    /// the state's catalog, and a switch re-labels them.
    @Test func theMicStatusAndTheLoadingWordsAreDrawnInTheLanguage() throws {
        let settings = GestureConfig.defaults()
        var s = ShellState(keymap: try Setup.keymap("default", gestures: settings.gestures), gestures: settings.gestures,
                           predictor: .loading, catalog: Self.spanish)
        _ = reduce(&s, .micStatus(UIMessage("no microphone \"{device}\" · speech off", ["device": "default"])))
        _ = reduce(&s, .speechUnavailable(UIMessage("Speech is off in this run")))
        _ = s.show(screen: "notes")
        s.focus.set("notes.new", at: s.now)
        _ = reduce(&s, .key(.enter))
        let text = render(s, size: s.size).0.text
        #expect(text.contains("no hay micrófono «default» · voz desactivada"), "\(text)")
        #expect(text.contains("La voz está desactivada en esta sesión"), "\(text)")
        #expect(text.contains("cargando palabras…"), "\(text)")
        _ = reduce(&s, .languageLoaded(.english))
        let english = render(s, size: s.size).0.text
        #expect(english.contains("no microphone \"default\" · speech off") && english.contains("loading words…"), "\(english)")
    }
}
