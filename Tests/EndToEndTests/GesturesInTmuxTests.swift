#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 12: the built binary in tmux, frames over UDP on 127.0.0.1: Settings › Calibrate gestures by gaze
/// and jaw, then a user whose gestures are weaker than the config expects performs each one as asked; the
/// thresholds are saved for the source, and at the next start a jaw opening the config would ignore opens a
/// tile.
@Suite(.serialized) struct GesturesInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// What this user does for each gesture of config/gestures.toml: shapes at 0.42 (the config presses at
    /// 0.5 and above), held as long as each needs.
    static let performances: [String: ([String: Double], Double)] = [
        "activate": (["jawOpen": 0.42], 0.6), "back": (["eyeBlinkRight": 0.42], 0.6), "commit": (["tongueOut": 0.42], 0.4),
        "confirm": (["mouthSmileLeft": 0.42, "mouthSmileRight": 0.42], 2.3), "scroll": (["mouthSmileLeft": 0.42], 0.5),
        "wink_left": (["eyeBlinkLeft": 0.42], 0.25), "wink_right": (["eyeBlinkRight": 0.42], 0.25),
        "brow_raise": (["browInnerUp": 0.42], 0.8),
    ]

    /// The gesture a prompt asks for, by the words it says it in ("Now: open the jaw and hold …"); the left
    /// smile before the smile, which its words contain.
    static let asked: [(words: String, gesture: String)] = [
        ("open the jaw", "activate"), ("close the right eye", "back"), ("stick the tongue out", "commit"),
        ("smile on the left side", "scroll"), ("smile and hold", "confirm"), ("wink of the left eye", "wink_left"),
        ("wink of the right eye", "wink_right"), ("raise the eyebrows", "brow_raise"),
    ]

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func calibrateGesturesThenTheNextStartUsesThem() throws {
        let dir = NSTemporaryDirectory() + "hf-gcal-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let launcher = try targets(try run([Self.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let settings = try targets(try run([Self.binary, "layout", "--screen", "settings", "--size", "100x30"]))
        let screen = try targets(try run([Self.binary, "layout", "--screen", "gesture-calibration", "--size", "100x30"]))
        let port = try freeUDPPort()
        let command = "env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config HANDSFREE_DATA_DIR=\(dir)/data "
            + "\(Self.binary) run --no-onboarding --no-speech --listen udp://127.0.0.1:\(port)"
        let session = Tmux(name: "hf-gcal-\(getpid())")
        defer { session.kill() }
        try session.start(command)
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender = try UDPSender(port: port)
        sender.play(try #require(launcher["launcher.settings"]).center, [:], 1.2)
        PointingInTmuxTests.press(try #require(launcher["launcher.settings"]), sender)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Settings") == true }, "\(session.screen)")
        PointingInTmuxTests.press(try #require(settings["settings.tab.pointer"]), sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("Calibrate gestures") } }, "\(session.screen)")
        let shown = session.capture()
        let row = try #require(shown.firstIndex { $0.contains("◎ Calibrate gestures") })
        let col = shown[row].distance(from: shown[row].startIndex, to: try #require(shown[row].range(of: "◎ Calibrate gestures")).lowerBound)
        PointingInTmuxTests.press(Box(x: col, y: row, w: 18, h: 1), sender)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Calibrate gestures") == true }, "\(session.screen)")
        PointingInTmuxTests.press(try #require(screen["gestures.start"]), sender)

        // The user reads each prompt and performs what it asks, then relaxes; the gaze rests mid-screen.
        let end = Date().addingTimeInterval(90)
        var done = false, performed = 0
        while Date() < end {
            let lines = session.capture()
            if lines.contains(where: { $0.contains("Calibrated:") || $0.contains("Not calibrated") }) { done = true; break }
            guard let line = lines.first(where: { $0.contains("Now: ") }),
                  let name = Self.asked.first(where: { line.contains($0.words) })?.gesture,
                  let (blend, hold) = Self.performances[name] else {
                sender.play((50, 15), [:], 0.1); continue
            }
            sender.play((50, 15), blend, hold)
            sender.play((50, 15), [:], 0.6)
            performed += 1
        }
        #expect(done, "the calibration did not end:\n\(session.screen)")
        #expect(session.capture().contains { $0.contains("Calibrated:") }, "\(session.screen)")
        #expect(performed >= 16, "each of the 8 gestures twice")
        // Nothing acted meanwhile: still on the calibration screen, no pause, no open microphone.
        #expect(session.capture().first?.contains("Calibrate gestures") == true)
        let file = dir + "/config/handsfree/gesture-calibration.toml"
        // Tried, not saved (issue 47): kept once the user acts with the new thresholds, here a 0.42 jaw on
        // ✓ Done (the config's 0.5 would not have seen it).
        #expect(session.capture().contains { $0.contains("Keep? Act once with the new setting") }, "\(session.screen)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let result = session.capture()
        let doneRow = try #require(result.firstIndex { $0.contains("✓ Done") })
        let doneCol = result[doneRow].distance(from: result[doneRow].startIndex, to: try #require(result[doneRow].range(of: "✓ Done")).lowerBound)
        let doneCell = (Double(doneCol) + 3, Double(doneRow) + 0.5)
        sender.play(doneCell, [:], 1.2)
        sender.play(doneCell, ["jawOpen": 0.42], 0.6)
        sender.play(doneCell, [:], 0.4)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Home › Settings") == true }, "\(session.screen)")
        #expect(session.waitFor(seconds: 5) { _ in FileManager.default.fileExists(atPath: file) }, "kept once acted with")
        let saved = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(saved.contains("[source.\"default\".\"activate\"]") && saved.contains("[source.\"default\".\"wink_left\"]"), "\(file): \(saved)")

        // The next start reads them: a jaw at 0.45, below the config's 0.5, opens the Notes tile.
        session.kill()
        let again = Tmux(name: "hf-gcal2-\(getpid())")
        defer { again.kill() }
        try again.start(command)
        #expect(again.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender2 = try UDPSender(port: port)
        let notes = try #require(launcher["launcher.notes"])
        sender2.play(notes.center, [:], 1.2)
        sender2.play(notes.center, ["jawOpen": 0.45], 0.6)
        sender2.play(notes.center, [:], 0.3)
        #expect(again.waitFor(seconds: 5) { $0.first?.contains("Notes") == true }, "\(again.screen)")
    }
}
