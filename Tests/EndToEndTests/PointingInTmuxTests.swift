#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 17: the built binary in tmux, frames over UDP on 127.0.0.1: Settings › Calibrate pointer by gaze and
/// jaw, nine dots followed by a user whose tracker is off; the calibration is saved for the source and the
/// next start uses it.
@Suite(.serialized) struct PointingInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// Gaze on a target (centre of its box) and the jaw opens and closes.
    static func press(_ b: Box, _ sender: UDPSender) {
        sender.play(b.center, [:], 0.6)
        sender.play(b.center, ["jawOpen": 0.8], 0.45)
        sender.play(b.center, [:], 0.3)
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func calibrateByGazeThenTheNextStartUsesIt() throws {
        let dir = NSTemporaryDirectory() + "hf-point-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let launcher = try targets(try run([Self.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let settings = try targets(try run([Self.binary, "layout", "--screen", "settings", "--size", "100x30"]))
        let calibration = try targets(try run([Self.binary, "layout", "--screen", "calibration", "--size", "100x30"]))
        let port = try freeUDPPort()
        let command = "env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config HANDSFREE_DATA_DIR=\(dir)/data "
            + "\(Self.binary) run --no-onboarding --no-speech --listen udp://127.0.0.1:\(port)"
        let session = Tmux(name: "hf-point-\(getpid())")
        defer { session.kill() }
        try session.start(command)
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender = try UDPSender(port: port)
        sender.play(try #require(launcher["launcher.settings"]).center, [:], 1.2)
        Self.press(try #require(launcher["launcher.settings"]), sender)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Settings") == true }, "\(session.screen)")
        Self.press(try #require(settings["settings.tab.pointer"]), sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("Calibrate pointer") } }, "\(session.screen)")
        // The button where the screen shows it, as the user finds it.
        let shown = session.capture()
        let row = try #require(shown.firstIndex { $0.contains("◎ Calibrate pointer") })
        let col = shown[row].distance(from: shown[row].startIndex, to: try #require(shown[row].range(of: "◎ Calibrate pointer")).lowerBound)
        Self.press(Box(x: col, y: row, w: 18, h: 1), sender)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Calibrate pointer") == true }, "\(session.screen)")
        Self.press(try #require(calibration["calibration.start"]), sender)

        // The user looks at each dot as it shows; their tracker reads 6 cells right and 2 rows low.
        let end = Date().addingTimeInterval(60)
        var done = false
        while Date() < end {
            let lines = session.capture()
            if lines.contains(where: { $0.contains("Calibrated:") }) { done = true; break }
            guard let row = lines.firstIndex(where: { $0.contains("◉") }), let col = lines[row].firstIndex(of: "◉") else {
                sender.play((50, 15), [:], 0.1); continue
            }
            let x = Double(lines[row].distance(from: lines[row].startIndex, to: col)) + 0.5
            sender.play((x + 6, Double(row) + 0.5 + 2), [:], 0.1)
        }
        #expect(done, "the nine dots did not end in a calibration:\n\(session.screen)")
        #expect(session.capture().contains { $0.contains("face ● ◎") }, "the status line shows the calibration")
        let file = dir + "/config/handsfree/calibration.toml"
        // Tried, not saved (issue 47): kept once the user acts with it, here on ✓ Done, looked at through the
        // same tracker (6 cells right, 2 rows low), which the new calibration corrects.
        #expect(session.capture().contains { $0.contains("Keep? Act once with the new setting") }, "\(session.screen)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let result = session.capture()
        let doneRow = try #require(result.firstIndex { $0.contains("✓ Done") })
        let doneCol = result[doneRow].distance(from: result[doneRow].startIndex, to: try #require(result[doneRow].range(of: "✓ Done")).lowerBound)
        Self.press(Box(x: doneCol + 6, y: doneRow + 2, w: 6, h: 1), sender)
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("Home › Settings") == true && !$0.joined().contains("Keep?") }, "\(session.screen)")
        #expect(session.waitFor(seconds: 5) { _ in FileManager.default.fileExists(atPath: file) }, "kept once acted with")
        let saved = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(saved.contains("[source.\"default\"]") && saved.contains("size = [100, 30]"), "\(file): \(saved)")

        // The next start reads it: the pointer is calibrated before any dot is shown.
        session.kill()
        let again = Tmux(name: "hf-point2-\(getpid())")
        defer { again.kill() }
        try again.start(command)
        #expect(again.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender2 = try UDPSender(port: port)
        sender2.play((50, 15), [:], 0.5)
        #expect(again.waitFor(seconds: 5) { $0.contains { $0.contains("face ● ◎") } }, "\(again.screen)")
    }
}
