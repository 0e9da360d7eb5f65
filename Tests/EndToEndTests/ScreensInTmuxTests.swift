#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// What a user and a carer read on the built binary's screens in tmux: a dwell fill that leaves a note's text
/// readable, practice screens that say so, the phrase board's show mode when nothing can be heard, and
/// notices read whole at 80 and 100 columns.
@Suite(.serialized) struct ScreensInTmuxTests {
    typealias E = AppsE2E

    /// Dwell in the dwell keymap, by frames over loopback UDP: the note's text stays whole while the fill runs
    /// along the row's bottom border.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aDwellFillLeavesTheNoteReadable() throws {
        let launcher = try targets(run([E.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let tile = try #require(launcher["launcher.notes"])
        let env = E.TempHome("dwell-fill")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let note = "Call the pharmacy about the refill"
        try "handsfree-notes 1\nnote\t1\t\(note)\n".write(toFile: env.data + "/notes.txt", atomically: true, encoding: .utf8)
        let port = try freeUDPPort()
        let tmux = Tmux(name: "hf-dwell-fill-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --listen udp://127.0.0.1:\(port) --keymap dwell --no-onboarding --no-speech")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        let send = try UDPSender(port: port)
        // A still face first (safe start), then a dwell on the Notes tile opens it.
        send.play(tile.center, [:], 1.2)
        send.play(tile.center, [:], 1.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true }, "dwell did not open Notes:\n\(tmux.screen)")
        let lines = tmux.capture()
        let row = try #require(lines.firstIndex { $0.contains(note) }, "\(tmux.screen)")
        // Rest the gaze on the note for most of the dwell time, while the screen is read.
        let done = DispatchSemaphore(value: 0)
        Self.playAside(port: port, from: send, at: (40, Double(row) + 0.5), seconds: 0.8, done: done)
        var seen: [String] = []
        let filled = tmux.waitFor(seconds: 3) { l in
            guard l.count > row + 1 else { return false }
            seen = l
            return l[row + 1].contains("████")
        }
        done.wait()
        #expect(filled, "no fill along the note's border:\n\(seen.joined(separator: "\n"))")
        #expect(seen.count > row && seen[row].contains(note), "the note's text is whole under the dwell:\n\(seen.joined(separator: "\n"))")
        #expect(seen.count > row && !seen[row].contains("█"), "\(seen.joined(separator: "\n"))")
    }

    /// The default keymap binds no dwell: resting the gaze on a tile fills nothing, and opens nothing.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func noFillWhereDwellDoesNothing() throws {
        let launcher = try targets(run([E.binary, "layout", "--screen", "launcher", "--size", "100x30"]))
        let tile = try #require(launcher["launcher.notes"])
        let env = E.TempHome("no-fill")
        defer { env.remove() }
        let port = try freeUDPPort()
        let tmux = Tmux(name: "hf-no-fill-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding --no-speech")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        let send = try UDPSender(port: port)
        send.play(tile.center, [:], 1.2)
        var fills = 0
        let done = DispatchSemaphore(value: 0)
        Self.playAside(port: port, from: send, at: tile.center, seconds: 1.5, done: done)
        let end = Date().addingTimeInterval(1.4)
        while Date() < end {
            let l = tmux.capture()
            if l.count > tile.y + tile.h, l[(tile.y)..<(tile.y + tile.h)].contains(where: { $0.contains("█") }) { fills += 1 }
            usleep(100_000)
        }
        done.wait()
        #expect(fills == 0, "a fill that ends in nothing:\n\(tmux.screen)")
        #expect(tmux.capture().first?.contains("Home ›") == false, "dwell opened something:\n\(tmux.screen)")
    }

    /// Messages is practice, and says so on its tile, in its title and on its first line.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func thePracticeChatSaysItIsPractice() throws {
        let env = E.TempHome("practice")
        defer { env.remove() }
        let tmux = Tmux(name: "hf-practice-\(getpid())", width: 80, height: 24)
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding --no-speech")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        #expect(tmux.screen.contains("Practice chat") && tmux.screen.contains("nobody receives"), "\(tmux.screen)")
        tmux.keys("Tab", "Tab", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Practice chat") == true }, "\(tmux.screen)")
        #expect(tmux.screen.contains("Practice: nobody receives these messages. People and replies are made up."), "\(tmux.screen)")
        tmux.keys("Tab", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Ana (practice)") == true }, "\(tmux.screen)")
        #expect(tmux.screen.contains("Practice: nobody receives this."), "\(tmux.screen)")
    }

    /// No speaker: a phrase said from the board is shown in big letters with why it was not spoken, and the
    /// usual back gesture (the right eye held) returns to the board.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"), .timeLimit(.minutes(2)))
    func aPhraseIsShownWhenNoSpeakerCanSayIt() throws {
        let env = E.TempHome("show")
        defer { env.remove() }
        let port = try freeUDPPort()
        let tmux = Tmux(name: "hf-show-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --listen udp://127.0.0.1:\(port) --no-onboarding --no-speech"
                       + " --speaker no_such_pcm_device")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        for _ in 0..<8 { tmux.keys("Tab") }
        tmux.keys("Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Phrases") == true }, "\(tmux.screen)")
        // Four group tabs, then the phrases: the sixth target is "Good morning.".
        for _ in 0..<6 { tmux.keys("Tab") }
        tmux.keys("Enter")
        #expect(tmux.waitFor { $0.first?.contains("Phrases › Show phrase") == true }, "no show mode:\n\(tmux.screen)")
        let shown = tmux.screen
        #expect(shown.contains("Not spoken aloud:") && shown.contains("no_such_pcm_device"), "\(shown)")
        // "GOOD": the G, O, O and D in five rows of blocks.
        #expect(shown.split(separator: "\n").filter { $0.contains("█") }.count == 5, "\(shown)")
        #expect(shown.contains("◀ Back to the phrases"))
        let send = try UDPSender(port: port)
        send.play((50, 15), [:], 1.2)
        send.play((50, 15), ["eyeBlinkRight": 0.95], 0.7)
        send.play((50, 15), [:], 0.4)
        #expect(tmux.waitFor { $0.first?.contains("Home › Phrases") == true && $0.first?.contains("Show") == false },
                "the back gesture did not return to the board:\n\(tmux.screen)")
    }

    /// Notices at 80 and 100 columns are read whole, in the title bar or in parts on the notice line; never a
    /// word cut off. Two long ones come from the outside: a keymap file broken while the shell runs, and a
    /// speaker that does not exist.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"), .timeLimit(.minutes(2)),
          arguments: [(80, 24), (100, 30)])
    func noticesAreNeverCut(_ width: Int, _ height: Int) throws {
        let env = E.TempHome("notice-\(width)")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.base, withIntermediateDirectories: true)
        let keymap = env.base + "/my-keymap-with-a-long-name.toml"
        let good = try String(contentsOfFile: E.root + "/keymaps/default.toml", encoding: .utf8)
        try good.write(toFile: keymap, atomically: true, encoding: .utf8)
        let tmux = Tmux(name: "hf-notice-\(width)-\(getpid())", width: width, height: height)
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --keymap \(keymap) --no-onboarding --no-speech --speaker no_such_pcm_device")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "did not start:\n\(tmux.screen)")
        try (good + "\n[global.voice]\n\"make tea\" = \"brew-tea\"\n").write(toFile: keymap, atomically: true, encoding: .utf8)
        // What `handsfree check` says of the file is what the notice must read whole.
        let problem = try run([E.binary, "check", keymap]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(problem.hasPrefix(keymap + ":"), "\(problem)")
        #expect(tmux.waitFor { $0.contains { $0.contains("Keymap not reloaded") } }, "\(tmux.screen)")
        Self.readWhole(tmux, "Keymap not reloaded: " + problem, width: width)

        for _ in 0..<8 { tmux.keys("Tab") }
        tmux.keys("Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Phrases") == true }, "\(tmux.screen)")
        for _ in 0..<6 { tmux.keys("Tab") }
        tmux.keys("Enter")
        #expect(tmux.waitFor { $0.contains { $0.contains("no audio output") } }, "\(tmux.screen)")
        Self.readWhole(tmux, "Sound could not be played: no audio output \"no_such_pcm_device\" (No such file or directory): pass --speaker NAME"
                       + " (aplay -L lists them) or --speaker-file FILE.wav", width: width)
    }

    /// Plays still frames on another thread, going on from `sender`'s clock (a clock that jumped back would be
    /// a restarted tracker), while the caller reads the screen; `done` is signalled at the end.
    static func playAside(port: UInt16, from sender: UDPSender, at cell: (Double, Double), seconds: Double,
                          done: DispatchSemaphore) {
        let t0 = sender.t
        sender.t += Double(Int(seconds * 60)) / 60
        DispatchQueue.global().async {
            if let aside = try? UDPSender(port: port) {
                aside.t = t0
                aside.play(cell, [:], seconds)
            }
            done.signal()
        }
    }

    /// Watches the title bar and the notice line for 14 s: `text` must be read whole, in the title bar or in
    /// parts on the notice line that join into it (a part that goes on ends with " …"), no word cut.
    static func readWhole(_ tmux: Tmux, _ text: String, width: Int) {
        let start = String(text.prefix(12))
        var parts: [String] = []
        // The parts in order from the notice's first, until one that does not go on.
        func joined() -> String {
            var out = ""
            guard let first = parts.firstIndex(where: { $0.hasPrefix(start) }) else { return out }
            for p in parts[first...] {
                out += (out.isEmpty ? "" : " ") + (p.hasSuffix(" …") ? String(p.dropLast(2)) : p)
                if !p.hasSuffix(" …") { break }
            }
            return out
        }
        let end = Date().addingTimeInterval(14)
        while Date() < end, joined() != text {
            let l = tmux.capture().filter { !$0.isEmpty }
            guard l.count >= 3 else { usleep(200_000); continue }
            if l[0].contains(text) { return }
            let line = l[l.count - 2].trimmingCharacters(in: .whitespaces)
            if parts.last != line { parts.append(line) }
            usleep(250_000)
        }
        #expect(joined() == text, "\(width) columns: read as \(joined().debugDescription) from \(parts)")
    }
}

