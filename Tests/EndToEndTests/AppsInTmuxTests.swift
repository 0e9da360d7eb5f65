#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The apps in the built binary, in tmux at 100×30: the jaw threshold changed with the Settings slider by
/// frames over real loopback UDP is in effect at once; a note survives SIGKILL mid-typing; a damaged notes
/// file is reported and kept. Each test uses its own temporary config, state and data folders.
@Suite(.serialized) struct AppsInTmuxTests {
    typealias E = AppsE2E

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func jawThresholdFromTheSettingsSliderIsInEffect() throws {
        let launcher = try targets(run([E.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let settings = try targets(run([E.binary, "layout", "--screen", "settings", "--size", "100x30"]))
        let tile = try #require(launcher["launcher.settings"]), notes = try #require(launcher["launcher.notes"])
        let jaw = try #require(settings["settings.jaw"])
        let env = E.TempHome("jaw")
        defer { env.remove() }
        let port = try freeUDPPort()
        let tmux = Tmux(name: "hf-apps-jaw-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        let send = try UDPSender(port: port)

        // A still face for a second first: nothing acts before (safe start).
        send.play(tile.center, [:], 1.2); send.play(tile.center, ["jawOpen": 0.8], 0.5); send.play(tile.center, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Settings") == true }, "Settings did not open:\n\(tmux.screen)")
        #expect(tmux.screen.contains("Jaw threshold: 0.5"))

        // The slider spans 0.2…0.9 over its track (inside the box border); 0.8 lies 6/7 of the way along. Each
        // activation moves it one step towards the gaze (issue 47), each kept by the next (acted with): six.
        let x0 = jaw.x + 1, w = jaw.w - 2
        let at = (Double(x0) + (Double(w - 1) * 6 / 7).rounded() + 0.5, Double(jaw.y) + Double(jaw.h) / 2)
        for step in ["0.55", "0.6", "0.65", "0.7", "0.75", "0.8"] {
            send.play(at, [:], 0.8); send.play(at, ["jawOpen": 0.9], 0.5); send.play(at, [:], 0.4)
            #expect(tmux.waitFor { $0.contains { $0.contains("Jaw threshold: \(step)") } }, "slider did not move to \(step):\n\(tmux.screen)")
        }
        // Tried, not saved yet: the last kept value is in the file.
        #expect(((try? String(contentsOfFile: env.config + "/handsfree/settings.toml", encoding: .utf8)) ?? "").contains("jaw_threshold = 0.75"))

        send.play(at, ["eyeBlinkRight": 0.95], 0.7); send.play(at, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home ›") == false }, "back did not return:\n\(tmux.screen)")

        // 0.65 activated before (above 0.5) and no longer does; 0.95 does.
        send.play(notes.center, [:], 0.8); send.play(notes.center, ["jawOpen": 0.65], 0.8); send.play(notes.center, [:], 0.6)
        #expect(tmux.screen.split(separator: "\n").first?.contains("Home ›") == false, "0.65 must not activate now:\n\(tmux.screen)")
        send.play(notes.center, ["jawOpen": 0.95], 0.5); send.play(notes.center, [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true }, "0.95 must activate:\n\(tmux.screen)")

        // Acting with 0.8 (the 0.95 opening) kept it.
        let saved = try String(contentsOfFile: env.config + "/handsfree/settings.toml", encoding: .utf8)
        #expect(saved.contains("jaw_threshold = 0.8"), "saved to the user's config")
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aNoteSurvivesSIGKILLMidTyping() throws {
        let env = E.TempHome("kill")
        defer { env.remove() }
        let tmux = Tmux(name: "hf-apps-kill-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        tmux.keys("Right", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true })
        tmux.keys("Tab", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Notes › Note") == true }, "\(tmux.screen)")
        let text = "remember the milk and call Ana at five"
        tmux.literal(text)
        #expect(tmux.waitFor { $0.contains { $0.contains(text) } }, "\(tmux.screen)")
        // Killed mid-note: no chance to flush or clean up.
        let pid = try #require(tmux.panePID)
        #expect(Glibc.kill(pid, SIGKILL) == 0)
        #expect(Tmux.waitUntilGone(pid), "the shell outlived SIGKILL")
        let saved = try String(contentsOfFile: env.data + "/notes.txt", encoding: .utf8)
        #expect(saved.contains("\t" + text + "\n"), "the note is on disk whole: \(saved)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: env.data).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "no half-written temp files: \(leftovers)")
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aDamagedNotesFileIsReportedAndKept() throws {
        let env = E.TempHome("corrupt")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let damaged = "handsfree-notes 1\nnote\t1\tkept note\n\u{1}\u{2}torn li"
        try damaged.write(toFile: env.data + "/notes.txt", atomically: true, encoding: .utf8)
        let tmux = Tmux(name: "hf-apps-corrupt-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        tmux.keys("Right", "Enter")
        #expect(tmux.waitFor { $0.contains { $0.contains("Damaged file notes.txt kept as notes.txt.corrupt-1") } }, "\(tmux.screen)")
        #expect(tmux.screen.contains("kept note"))
        #expect(try String(contentsOfFile: env.data + "/notes.txt.corrupt-1", encoding: .utf8) == damaged)
    }
}

/// Paths and temporary folders of these tests; the tmux, UDP and layout helpers are shared with the other
/// end-to-end suites (ShellInTmuxTests.swift).
enum AppsE2E {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let binary = root + "/.build/debug/handsfree"
    static let ready = FileManager.default.isExecutableFile(atPath: binary)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    /// Temporary state, config and data folders, passed to the shell as environment variables.
    struct TempHome {
        let base: String
        init(_ tag: String) { base = NSTemporaryDirectory() + "hf-apps-\(tag)-\(getpid())" }
        var config: String { base + "/config" }
        var data: String { base + "/data" }
        var vars: String {
            "env LANG=C.UTF-8 XDG_STATE_HOME=\(base)/state XDG_CONFIG_HOME=\(config) HANDSFREE_DATA_DIR=\(data)"
        }
        func remove() { try? FileManager.default.removeItem(atPath: base) }
    }
}
