#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 47, item 1, "Never locked out": the built binary in tmux at 100×30, frames sent by hand over UDP on
/// 127.0.0.1, as the tester found it (one gaze + jaw on Settings › Jaw threshold raised it out of reach and
/// saved it, and only a carer's keyboard got the user back).
@Suite(.serialized) struct LockoutInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// A user's config folder with these files, and the shell on it.
    struct Run {
        let dir: String
        let session: Tmux
        let port: UInt16
        var config: String { dir + "/config/handsfree" }

        init(_ tag: String, files: [String: String], listen: Bool = true) throws {
            dir = NSTemporaryDirectory() + "hf-lock-\(tag)-\(getpid())"
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir + "/config/handsfree", withIntermediateDirectories: true)
            for (name, text) in files { try text.write(toFile: dir + "/config/handsfree/" + name, atomically: true, encoding: .utf8) }
            port = try freeUDPPort()
            session = Tmux(name: "hf-lock-\(tag)-\(getpid())")
            let command = "env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config HANDSFREE_DATA_DIR=\(dir)/data "
                + "\(LockoutInTmuxTests.binary) run --no-onboarding --no-speech --no-metrics"
                + (listen ? " --listen udp://127.0.0.1:\(port)" : "")
            try session.start(command)
        }

        func end() {
            session.kill()
            try? FileManager.default.removeItem(atPath: dir)
        }

        func file(_ name: String) -> String { (try? String(contentsOfFile: config + "/" + name, encoding: .utf8)) ?? "" }
        var screen: String { session.screen }
        func shows(_ text: String, seconds: Double = 8) -> Bool { session.waitFor(seconds: seconds) { $0.joined(separator: "\n").contains(text) } }
    }

    static func layout(_ screen: String) throws -> [String: Box] {
        try targets(try run([binary, "layout", "--screen", screen, "--size", "100x30"]))
    }

    /// Looks at a cell, opens the jaw to `jaw` for half a second, lets go.
    static func press(_ cell: (Double, Double), jaw: Double, _ sender: UDPSender) {
        sender.play(cell, [:], 0.6)
        sender.play(cell, ["jawOpen": jaw], 0.5)
        sender.play(cell, [:], 0.4)
    }

    /// A still face at `cell` for `seconds` of the frames' time, sent ten times faster than it passes: the
    /// shell counts the frames' time, not its own (20 frames a second of it, each step far below a jump).
    static func wait(_ seconds: Double, at cell: (Double, Double), _ sender: UDPSender) {
        let line = { (t: Double) in "{\"t\": \(t), \"face\": true, \"blend\": {}, \"gaze\": [\(cell.0 / 100), \(cell.1 / 30)]}" }
        for _ in 0..<Int(seconds * 20) {
            sender.t += 0.05
            var a = sender.addr
            _ = line(sender.t).withCString { p in
                withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(sender.fd, p, strlen(p), 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            usleep(5_000)  // pacing, not waiting: the frames' 20 a second of their own time, ten times faster
        }
    }

    /// The jaw slider's track, far right: where the tester looked ("a higher threshold").
    static func trackRight(_ b: Box) -> (Double, Double) { (Double(b.x + b.w - 3), Double(b.y) + 1.5) }

    static let settings08 = "jaw_threshold = 0.8\n"

    /// A still face, then Home › Settings by gaze and jaw, then the jaw threshold's track looked at on its
    /// right and the jaw opened: 0.8 becomes 0.85, tried. Returns the sender and the Settings screen's targets.
    static func raiseTheJawThreshold(_ r: Run) throws -> (UDPSender, [String: Box]) {
        let launcher = try layout("launcher"), settings = try layout("settings")
        #expect(r.shows("HandsFree │ Home"), "\(r.screen)")
        let sender = try UDPSender(port: r.port)
        sender.play(try #require(launcher["launcher.settings"]).center, [:], 1.2)
        press(try #require(launcher["launcher.settings"]).center, jaw: 0.9, sender)
        #expect(r.shows("Jaw threshold: 0.8"), "\(r.screen)")
        press(trackRight(try #require(settings["settings.jaw"])), jaw: 0.9, sender)
        #expect(r.shows("Jaw threshold: 0.85"), "one step from 0.8:\n\(r.screen)")
        #expect(r.shows("Keep? Act once with the new setting within 15 s, or it goes back."), "\(r.screen)")
        return (sender, settings)
    }

    /// Raised by gaze + jaw to 0.85 (one step: it jumped to where the gaze was before), the jaw threshold is
    /// tried, not saved; the user's jaw opens to 0.82 only, acts on nothing for 15 s, and 0.8 comes back on
    /// screen and stays in the file. Before the fix: 0.9 at once, saved, and nothing acted again.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aRaisedJawThresholdNobodyActsWithGoesBack() throws {
        let r = try Run("back", files: ["settings.toml": Self.settings08])
        defer { r.end() }
        let (sender, settings) = try Self.raiseTheJawThreshold(r)
        #expect(r.file("settings.toml").contains("jaw_threshold = 0.8\n"), "tried, not saved: \(r.file("settings.toml"))")
        // The user tries, and the jaw opens to 0.82: nothing acts (still on the Gestures tab, still tried).
        let display = try #require(settings["settings.tab.display"]).center
        for _ in 0..<2 { Self.press(display, jaw: 0.82, sender) }
        #expect(r.screen.contains("▸ Gestures ◂") && r.screen.contains("Jaw threshold: 0.85"), "\(r.screen)")
        // 3.6 s of frames have passed since the change (the rest of its press, two presses): 13 more pass 15.
        Self.wait(13, at: display, sender)
        #expect(r.shows("No action within 15 s: the setting went back"), "\(r.screen)")
        #expect(r.shows("Jaw threshold: 0.8 ") || r.shows("Jaw threshold: 0.8─"), "\(r.screen)")
        #expect(!r.screen.contains("Keep?"))
        let saved = r.file("settings.toml")
        #expect(saved.contains("jaw_threshold = 0.8\n") && !saved.contains("0.85"), "\(saved)")
        // And 0.82 acts again.
        Self.press(display, jaw: 0.82, sender)
        #expect(r.shows("▸ Display ◂"), "\(r.screen)")
    }

    /// Acting once under the new value keeps it: saved in settings.toml and in the last good copy beside it;
    /// long after, it is still there.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func actingUnderTheNewThresholdKeepsAndSavesIt() throws {
        let r = try Run("keep", files: ["settings.toml": Self.settings08])
        defer { r.end() }
        let (sender, settings) = try Self.raiseTheJawThreshold(r)
        let display = try #require(settings["settings.tab.display"]).center
        Self.press(display, jaw: 0.9, sender)
        #expect(r.shows("Kept: you acted with the new setting"), "\(r.screen)")
        #expect(r.shows("▸ Display ◂"), "the action itself acted:\n\(r.screen)")
        #expect(r.file("settings.toml").contains("jaw_threshold = 0.85\n"), "\(r.file("settings.toml"))")
        #expect(r.file("settings.last-good.toml").contains("jaw_threshold = 0.85\n"), "\(r.file("settings.last-good.toml"))")
        Self.wait(16, at: display, sender)
        Self.press(try #require(settings["settings.tab.tracking"]).center, jaw: 0.9, sender)
        #expect(r.shows("Jaw threshold: 0.85"), "\(r.screen)")
        #expect(r.file("settings.toml").contains("jaw_threshold = 0.85\n"))
    }

    /// A start with settings no gesture of this user can act under (the jaw threshold 0.95; the jaw opens to
    /// 0.6): the banner says so and offers the escape; the jaw held open 3 s (read at the built-in 0.5) puts
    /// back the last good copy (0.45), and the same 0.6 opening then opens Notes.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theEscapeGestureFromSettingsWhereNothingCanFire() throws {
        let r = try Run("escape", files: ["settings.toml": "jaw_threshold = 0.95\n", "settings.last-good.toml": "jaw_threshold = 0.45\n"])
        defer { r.end() }
        let launcher = try Self.layout("launcher")
        #expect(r.shows("HandsFree │ Home"), "\(r.screen)")
        #expect(r.shows("The jaw threshold 0.95 is above what faces reach"), "\(r.screen)")
        #expect(r.shows("To restore your last good settings: open the jaw and hold for 3 seconds · F12 · say “shell,"), "\(r.screen)")
        let sender = try UDPSender(port: r.port)
        let notes = try #require(launcher["launcher.notes"]).center
        sender.play(notes, [:], 1.2)
        Self.press(notes, jaw: 0.6, sender)
        #expect(r.screen.contains("HandsFree │ Home"), "0.6 is below 0.95: nothing opens\n\(r.screen)")
        sender.play(notes, ["jawOpen": 0.6], 3.3)
        sender.play(notes, [:], 0.5)
        #expect(r.shows("Restored the last settings you acted with"), "\(r.screen)")
        #expect(r.file("settings.toml").contains("jaw_threshold = 0.45\n"), "\(r.file("settings.toml"))")
        Self.press(notes, jaw: 0.6, sender)
        #expect(r.shows("Home › Notes"), "\(r.screen)")
    }

    /// The carer's F12: during a trial it puts back the value before at once; at a start with settings out of
    /// reach and no last good copy, it puts back the gesture config's own values; a key that is not F12 keeps a trial.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theCarersKey() throws {
        let r = try Run("f12", files: ["settings.toml": Self.settings08])
        defer { r.end() }
        _ = try Self.raiseTheJawThreshold(r)
        r.session.keys("F12")
        #expect(r.shows("Restored the last settings you acted with"), "\(r.screen)")
        #expect(r.screen.contains("Jaw threshold: 0.8") && !r.screen.contains("0.85") && !r.screen.contains("Keep?"), "\(r.screen)")
        #expect(r.file("settings.toml").contains("jaw_threshold = 0.8\n"))
        r.end()

        // Nothing of this user's acts, and no last good copy: F12 brings the gesture config's own values, which
        // the file then leaves to the config (no jaw_threshold of its own).
        let k = try Run("f12b", files: ["settings.toml": "jaw_threshold = 0.95\n"], listen: false)
        defer { k.end() }
        #expect(k.shows("The jaw threshold 0.95 is above what faces reach"), "\(k.screen)")
        k.session.keys("F12")
        #expect(k.shows("Restored the last settings you acted with"), "\(k.screen)")
        #expect(!k.file("settings.toml").contains("jaw_threshold"), "\(k.file("settings.toml"))")
        // The keyboard alone: a change is tried on the ticks' time, and a key keeps it.
        k.session.keys("Right", "Right", "Right", "Enter")
        #expect(k.shows("Home › Settings"), "\(k.screen)")
        // Tab through the seven tabs and − to the track, then +.
        for _ in 0..<10 { k.session.keys("Tab") }
        k.session.keys("Enter")
        #expect(k.shows("Keep? Act once"), "\(k.screen)")
        #expect(k.shows("Jaw threshold: 0.55"), "\(k.screen)")
        k.session.keys("Tab")
        #expect(k.shows("Kept: you acted with the new setting"), "\(k.screen)")
    }

    /// Plain mode (screen readers, braille) says the banner as a line, and reads F12 from raw standard input.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func plainModeSaysTheBannerAndTakesF12() throws {
        let dir = NSTemporaryDirectory() + "hf-lock-plain-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/config/handsfree", withIntermediateDirectories: true)
        try "jaw_threshold = 0.95\n".write(toFile: dir + "/config/handsfree/settings.toml", atomically: true, encoding: .utf8)
        let session = Tmux(name: "hf-lock-plain-\(getpid())")
        defer { session.kill() }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config HANDSFREE_DATA_DIR=\(dir)/data "
                          + "\(Self.binary) run --plain --no-speech --no-onboarding --no-metrics")
        #expect(session.waitFor { $0.joined().contains("settings: The jaw threshold 0.95 is above what faces reach") }, "\(session.screen)")
        session.keys("F12")
        #expect(session.waitFor { $0.contains("settings: Restored the last settings you acted with.") }, "\(session.screen)")
        let saved = (try? String(contentsOfFile: dir + "/config/handsfree/settings.toml", encoding: .utf8)) ?? ""
        #expect(saved.hasPrefix("# HandsFree Shell settings") && !saved.contains("jaw_threshold"), "the config's own again: \(saved)")
    }

    /// settings.toml edited by hand to values the shell cannot use: each is reported with its file and line,
    /// and the last good copy is used instead (its jaw threshold and dwell time on the Settings screen).
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aHandEditedSettingsFileIsReportedAndTheLastGoodCopyUsed() throws {
        let good = "jaw_threshold = 0.6\ndwell_ms = 1500\n"
        let r = try Run("edit", files: ["settings.toml": "# edited by hand\njaw_threshold = 5\ndwell_ms = 0\n",
                                        "settings.last-good.toml": good], listen: false)
        defer { r.end() }
        #expect(r.shows("HandsFree │ Home"), "\(r.screen)")
        let banner = { r.session.capture().prefix(10).joined(separator: " ") }
        #expect(r.session.waitFor(seconds: 8) { _ in banner().contains("settings.toml:2: jaw_threshold must be a number") },
                "\(r.screen)")
        #expect(banner().contains("settings.toml:3: dwell_ms must be a number"), "\(r.screen)")
        #expect(banner().contains("The last settings you acted with are used instead (settings.last-good.toml)."), "\(r.screen)")
        #expect(banner().contains("To restore your last good settings"), "\(r.screen)")
        r.session.keys("Right", "Right", "Right", "Enter")
        #expect(r.shows("Jaw threshold: 0.6"), "\(r.screen)")
        #expect(r.shows("Dwell time: 1.5 s"), "\(r.screen)")
        #expect(r.file("settings.toml").contains("jaw_threshold = 5"), "the hand edit is not written over")
    }

    /// The spoken escape through the existing grammar: "shell, restore settings" heard on an ALSA microphone
    /// (flite's voice through the `file` plugin, the real PocketSphinx) puts back the last good copy.
    @Test(.enabled(if: SpeechInTmuxTests.ready && SpeechInTmuxTests.canSynthesise,
                   "needs the debug binary, tmux, pocketsphinx-en-us, flite and sox"))
    func theSpokenEscape() throws {
        let dir = NSTemporaryDirectory() + "hf-lock-say-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/config/handsfree", withIntermediateDirectories: true)
        try "jaw_threshold = 0.95\n".write(toFile: dir + "/config/handsfree/settings.toml", atomically: true, encoding: .utf8)
        try "jaw_threshold = 0.45\n".write(toFile: dir + "/config/handsfree/settings.last-good.toml", atomically: true, encoding: .utf8)
        try SpeechInTmuxTests.speak("shell, restore settings", to: dir + "/said.wav", pad: ["pad", "1", "1"])
        _ = try run(["/usr/bin/sox", dir + "/said.wav", "-t", "raw", "-e", "signed-integer", dir + "/said.raw"])
        let session = Tmux(name: "hf-lock-say-\(getpid())")
        defer { session.kill() }
        try session.start(SpeechInTmuxTests.fileMicrophone(in: dir, raw: dir + "/said.raw")
            + "env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config HANDSFREE_DATA_DIR=\(dir)/data "
            + "\(Self.binary) run --no-onboarding --no-metrics --dictation pocketsphinx --mic hfmic")
        #expect(session.waitFor(seconds: 20) { $0.joined().contains("Restored the last settings you acted with") },
                "\"shell, restore settings\" did not restore:\n\(session.screen)")
        let saved = (try? String(contentsOfFile: dir + "/config/handsfree/settings.toml", encoding: .utf8)) ?? ""
        #expect(saved.contains("jaw_threshold = 0.45\n"), "\(saved)")
    }
}
