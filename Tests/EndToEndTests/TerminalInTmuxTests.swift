#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 11: real programs on the Terminal screen. The built binary in tmux hosts a real bash or vim on a
/// pty (or types into another tmux pane); frames arrive over UDP on 127.0.0.1 and keys from tmux, and what
/// the user sees is read back with capture-pane.
@Suite(.serialized) struct TerminalInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready && FileManager.default.isExecutableFile(atPath: "/bin/bash")

    static func tempDir(_ tag: String) throws -> String {
        let dir = NSTemporaryDirectory() + "hf-term-\(tag)-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The shell with its state and data in `dir`, no onboarding, no speech unless `args` names audio.
    static func shell(in dir: String, _ args: String) -> String {
        let speech = args.contains("--audio") ? "--dictation pocketsphinx" : "--no-speech"
        return "env LANG=C.UTF-8 PS1='$ ' HOME=\(dir) XDG_STATE_HOME=\(dir)/state XDG_DATA_HOME=\(dir)/xdgdata "
            + "HANDSFREE_DATA_DIR=\(dir)/data \(binary) run --no-onboarding \(speech) \(args)"
    }

    /// The Terminal screen's targets at 100×30.
    static func layout() throws -> [String: Box] {
        try targets(try run([binary, "layout", "--screen", "terminal", "--size", "100x30"]))
    }

    /// Gaze on a target, then the jaw opens and closes: one activation.
    static func press(_ id: String, _ boxes: [String: Box], _ sender: UDPSender) {
        guard let b = boxes[id] else { Issue.record("no target \(id)"); return }
        // Long enough for the smoothed gaze to settle on the key after the last one (gaze is filtered).
        sender.play(b.center, [:], 0.6)
        sender.play(b.center, ["jawOpen": 0.8], 0.45)
        sender.play(b.center, [:], 0.3)
    }

    static func screenText(_ s: Tmux) -> String { s.capture().joined(separator: "\n") }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func gazeAndJawOnTheKeyboardRunEchoHelloInBash() throws {
        let dir = try Self.tempDir("echo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let boxes = try Self.layout()
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-term-echo-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--listen udp://127.0.0.1:\(port) -- /bin/bash --norc --noprofile"))
        #expect(session.waitFor { $0.first?.contains("Home › Terminal") == true && $0.contains { $0.hasPrefix("$") } },
                "bash did not start in the pane:\n\(Self.screenText(session))")
        let sender = try UDPSender(port: port)
        let some = try #require(boxes["terminal.keyboard.key.e"])
        sender.play(some.center, [:], 1.2)   // safe start: a still face first
        for ch in "echo" { Self.press("terminal.keyboard.key.\(ch)", boxes, sender) }
        Self.press("terminal.keyboard.space", boxes, sender)
        for ch in "hello" { Self.press("terminal.keyboard.key.\(ch)", boxes, sender) }
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("$ echo hello") } },
                "the keys did not reach bash:\n\(Self.screenText(session))")
        Self.press("terminal.key.enter", boxes, sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "hello" } },
                "bash did not run the command:\n\(Self.screenText(session))")
    }

    /// The gaze cursor crossing wide characters (CJK) over the pane leaves no trail. Each drawing over half of
    /// one blanks its other half; before, the terminal was left a wide character's stray half, drew it over
    /// the cell the cursor had left, and a copy of the cursor stayed at every cell it crossed.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func theGazeCursorLeavesNoTrailOverWideCharacters() throws {
        let dir = try Self.tempDir("wide")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let line = String(repeating: "中文漢字", count: 10)
        let script = dir + "/wide.sh"
        try "for i in 1 2 3 4 5 6; do echo '\(line)'; done\nexec /bin/bash --norc --noprofile\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let pane = try #require(try Self.layout()["terminal.pane"])
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-term-wide-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--listen udp://127.0.0.1:\(port) -- /bin/bash --norc --noprofile \(script)"))
        #expect(session.waitFor { $0.filter { $0.contains(line) }.count == 6 }, "no text in the pane:\n\(Self.screenText(session))")
        let sender = try UDPSender(port: port)
        // Along the third row of text, a cell at a time, then resting.
        let y = Double(pane.y + 3) + 0.5
        sender.play((Double(pane.x) + 1.5, y), [:], 1.2)
        for x in stride(from: Double(pane.x) + 1.5, to: Double(pane.x) + 50, by: 1) { sender.play((x, y), [:], 0.05) }
        sender.play((Double(pane.x) + 50, y), [:], 0.8)
        // One cursor, and every row of text but the one it rests on whole.
        #expect(session.waitFor(seconds: 5) { rows in
            rows.joined().filter { $0 == "◉" }.count == 1 && rows.filter { $0.contains(line) }.count == 5
        }, "the cursor left a trail, or a row broken:\n\(Self.screenText(session))")
    }

    /// A helper's Ctrl-C on the Terminal screen interrupts the program, not the shell; Ctrl-R reaches bash's
    /// history search. On the launcher Ctrl-C still ends the shell, cleanly.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func ctrlCInterruptsTheProgramAndOnlyOffTheTerminalTheShell() throws {
        let dir = try Self.tempDir("ctrlc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = Tmux(name: "hf-term-ctrlc-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "-- /bin/bash --norc --noprofile") + "; echo shell-ended-$?; sleep 30")
        #expect(session.waitFor { $0.contains { $0.hasPrefix("$") } }, "bash did not start:\n\(Self.screenText(session))")
        // "started" shows once sleep runs: "$ sleep 30" alone is on the screen before bash has read the line,
        // and a Ctrl-C then is echoed on that line and interrupts bash's reading, not sleep.
        session.literal("echo started && sleep 30")
        session.keys("Enter")
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "started" } },
                "sleep did not start:\n\(Self.screenText(session))")
        session.keys("C-c")
        #expect(session.waitFor(seconds: 5) { s in s.filter { $0.hasPrefix("$") }.count == 2 && s.contains { $0 == "^C" } },
                "Ctrl-C did not interrupt sleep:\n\(Self.screenText(session))")
        #expect(session.capture().first?.contains("Home › Terminal") == true, "the shell did not stay")
        session.keys("C-r")
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("reverse-i-search") } },
                "Ctrl-R did not reach bash:\n\(Self.screenText(session))")

        let home = Tmux(name: "hf-home-ctrlc-\(getpid())")
        defer { home.kill() }
        try home.start(Self.shell(in: dir, "") + "; echo shell-ended-$?; sleep 30")
        #expect(home.waitFor { $0.first?.contains("HandsFree") == true }, "\(Self.screenText(home))")
        home.keys("C-c")
        #expect(home.waitFor(seconds: 5) { $0.contains { $0.hasPrefix("shell-ended-130") } },
                "Ctrl-C on the launcher did not end the shell:\n\(Self.screenText(home))")
    }

    /// The suggestion bar on a command line offers programs from PATH where a command begins and names from
    /// the shell's working directory where a file is typed, and committing one (gaze and jaw) types the rest.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func theBarCompletesProgramsAndTheShellsOwnFiles() throws {
        let dir = try Self.tempDir("complete")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let work = dir + "/work"
        try FileManager.default.createDirectory(atPath: work + "/Documents/drafts", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/Downloads", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: work + "/Documents/plan for may.txt"))
        let boxes = try Self.layout()
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-term-complete-\(getpid())")
        defer { session.kill() }
        try session.start("cd \(work) && " + Self.shell(in: dir, "--listen udp://127.0.0.1:\(port) -- /bin/bash --norc --noprofile"))
        #expect(session.waitFor { $0.contains { $0.hasPrefix("$") } }, "bash did not start:\n\(Self.screenText(session))")
        let sender = try UDPSender(port: port)
        // The gaze rests on the pane; the tongue commits the starred suggestion, wherever the user looks.
        let pane = try #require(boxes["terminal.pane"])
        sender.play(pane.center, [:], 1.2)   // safe start: a still face first
        func commit() {
            sender.play(pane.center, ["tongueOut": 0.6], 0.45)
            sender.play(pane.center, [:], 0.3)
        }
        func bar(_ s: [String]) -> String? { s.first { $0.contains("★") } }
        // (Enter is pressed by gaze and jaw too: a helper's Enter would activate the focused pane.)
        // A program: "ech" is completed from PATH and the builtins, not from the dictionary.
        session.literal("ech")
        #expect(session.waitFor(seconds: 5) { bar($0)?.contains("★ echo") == true }, "\(Self.screenText(session))")
        commit()
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.hasPrefix("$ echo") } }, "\(Self.screenText(session))")
        Self.press("terminal.key.enter", boxes, sender)
        // A directory after cd, from the shell's working directory, and on into it.
        session.literal("cd Do")
        #expect(session.waitFor(seconds: 5) { bar($0)?.contains("★ Documents/") == true && bar($0)?.contains("Downloads/") == true },
                "\(Self.screenText(session))")
        commit()
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.hasPrefix("$ cd Documents/") } }, "\(Self.screenText(session))")
        Self.press("terminal.key.enter", boxes, sender)
        // Now the shell is in Documents: a file with spaces is typed escaped, and cat finds it.
        session.literal("cat pl")
        #expect(session.waitFor(seconds: 5) { bar($0)?.contains("★ plan for may.txt") == true }, "\(Self.screenText(session))")
        commit()
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.hasPrefix(#"$ cat plan\ for\ may.txt"#) } },
                "\(Self.screenText(session))")
        Self.press("terminal.key.enter", boxes, sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "x$" } },
                "cat did not find the file:\n\(Self.screenText(session))")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func aPasswordPromptHidesSuggestionsAndTheSecretReachesNoFile() throws {
        let dir = try Self.tempDir("secret")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = Tmux(name: "hf-term-secret-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "-- /bin/bash --norc --noprofile"))
        #expect(session.waitFor { $0.contains { $0.hasPrefix("$") } }, "bash did not start:\n\(Self.screenText(session))")
        // A word typed on an ordinary command line is learned (so learning works in this run at all)…
        // The word is learned from the line the pane shows when the space comes: a space typed in the same
        // burst as the word can come before the word's echo (on a loaded machine it did), so the space waits
        // until the word is on the screen, as it is for a user who looks at what they type.
        // Words committed while the word lists still load (a fresh home compiles them first; slow on a loaded
        // machine) are not learned, so the line is typed again until the learned words' file holds the word.
        let learnedFile = dir + "/data/user-words.txt"
        func holdsTheWord() -> Bool {
            let end = Date().addingTimeInterval(5)
            while Date() < end {
                if let text = try? String(contentsOfFile: learnedFile, encoding: .utf8), text.contains("zebraword") { return true }
                usleep(100_000)
            }
            return false
        }
        var tries = 0
        repeat {
            tries += 1
            session.literal("echo zebraword")
            #expect(session.waitFor { $0.contains { $0.contains("$ echo zebraword") } }, "\(Self.screenText(session))")
            session.literal(" ")
            session.keys("Enter")
            #expect(session.waitFor { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "zebraword" } })
        } while tries < 8 && !holdsTheWord()
        // (No ";": tmux takes a lone ";" argument for its own command separator.)
        session.literal("read -s -p 'Password: ' pw && echo got-${#pw}")
        session.keys("Enter")
        #expect(session.waitFor { $0.contains { $0.contains("Password: ") } && $0.contains { $0.contains("input is hidden") } },
                "the password prompt was not recognised:\n\(Self.screenText(session))")
        // …the secret is not: typed with spaces, so each word would be a finished word to learn (read drops the
        // last space: 25 characters).
        var suggestionsShown = false
        for word in ["hunter", "xylophonic", "quasarz"] {
            session.literal(word + " ")
            let screen = session.capture()
            if screen.contains(where: { $0.contains("★") }) { suggestionsShown = true }
            #expect(!screen.contains { $0.contains(word) }, "the secret is on the screen:\n\(screen.joined(separator: "\n"))")
        }
        #expect(!suggestionsShown, "a suggestion was shown at the password prompt")
        session.keys("Enter")
        #expect(session.waitFor { $0.contains { $0.contains("got-25") } }, "bash did not get the secret:\n\(Self.screenText(session))")
        // End the shell, so everything it keeps is written.
        session.stopShell()
        // The cache folder holds what the shell compiles from shipped files: the word lists
        // (`$HOME/.cache/handsfree/words-en.bin`, which hold "hunter" like any dictionary) and the conversational
        // model (`conversation-en.bin`); nothing the user typed goes there, so the two secrets no dictionary has
        // are in neither.
        let cache = dir + "/.cache/handsfree/"
        let files = try Self.allFiles(dir).filter { !$0.hasPrefix(cache) }
        let cached = try Self.allFiles(dir).filter { $0.hasPrefix(cache) }
        #expect(cached.allSatisfy { $0.hasSuffix("/words-en.bin") || $0.hasSuffix("/conversation-en.bin") },
                "only the compiled word lists and conversational model are in the cache folder: \(cached)")
        for f in cached {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: f))) ?? Data()
            for word in ["xylophonic", "quasarz"] {
                #expect(bytes.range(of: Data(word.utf8)) == nil, "\(f) holds the secret word \(word)")
            }
        }
        #expect(!files.isEmpty, "the shell wrote nothing at all")
        var learned = false
        for f in files {
            let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: f))) ?? Data(), as: UTF8.self)
            for word in ["hunter", "xylophonic", "quasarz"] { #expect(!text.contains(word), "\(f) holds the secret word \(word)") }
            if text.contains("zebraword") { learned = true }
        }
        #expect(learned, "the ordinary word was not learned either, so this run proves nothing: \(files)")
    }

    @Test(.enabled(if: ready && SpeechInTmuxTests.ready && SpeechInTmuxTests.canSynthesise
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/vim.basic")
                   || FileManager.default.isExecutableFile(atPath: "/usr/bin/vim.tiny"),
                   "needs the debug binary, tmux, vim, pocketsphinx-en-us, flite and sox"))
    func vimTakesKeysAndDictationAndWritesTheFile() throws {
        let dir = try Self.tempDir("vim")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SpeechInTmuxTests.speak("hello world", to: dir + "/hello.wav")
        let file = dir + "/note.txt"
        let vim = FileManager.default.isExecutableFile(atPath: "/usr/bin/vim.basic") ? "/usr/bin/vim.basic" : "/usr/bin/vim.tiny"
        let boxes = try Self.layout()
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-term-vim-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "--audio \(dir)/hello.wav --listen udp://127.0.0.1:\(port) -- \(vim) -u NONE -N \(file)"))
        #expect(session.waitFor { $0.contains { $0.contains("note.txt") } }, "vim did not start:\n\(Self.screenText(session))")
        let sender = try UDPSender(port: port)
        let pane = try #require(boxes["terminal.pane"])
        sender.play(pane.center, [:], 1.2)
        // Insert mode by the on-screen keyboard, then a word typed by keys.
        Self.press("terminal.keyboard.key.i", boxes, sender)
        for ch in "ok" { Self.press("terminal.keyboard.key.\(ch)", boxes, sender) }
        Self.press("terminal.keyboard.space", boxes, sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.hasPrefix("ok") } }, "keys did not reach vim:\n\(Self.screenText(session))")
        // Gaze + jaw on the pane opens the microphone: the WAV is dictated into vim.
        Self.press("terminal.pane", boxes, sender)
        #expect(session.waitFor(seconds: 20) { $0.contains { $0.lowercased().hasPrefix("ok hello world") } },
                "dictation did not reach vim:\n\(Self.screenText(session))")
        session.keys("Escape")   // a helper's Esc ends dictation first
        #expect(session.waitFor(seconds: 5) { !$0.contains { $0.contains("dictating") } })
        sender.play(pane.center, [:], 1.2)
        Self.press("terminal.key.escape", boxes, sender)
        session.literal(":wq")
        Self.press("terminal.key.enter", boxes, sender)
        #expect(session.waitFor(seconds: 5) { $0.contains { $0.contains("exited with status 0") } },
                "vim did not end:\n\(Self.screenText(session))")
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(text.lowercased().hasPrefix("ok hello world"), "the file holds \(text.debugDescription)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func typeIntoATmuxPaneRunningCatAndAClosedTargetKeepsTheText() throws {
        let dir = try Self.tempDir("typeinto")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/typed.txt"
        let session = Tmux(name: "hf-term-into-\(getpid())")
        defer { session.kill() }
        try session.start("sleep 600")
        session.tmux(["new-window", "-d", "-t", session.name + ":", "-n", "cat", "cat > \(Tmux.quote(out))"])
        session.tmux(["new-window", "-d", "-t", session.name + ":", "-n", "shell", Self.shell(in: dir, "--type-into tmux:\(session.name):cat")])
        let shellWindow = { session.tmux(["capture-pane", "-p", "-t", "\(session.name):shell"]) }
        let started = session.waitFor { _ in shellWindow().contains("typing into tmux") }
        #expect(started, "the shell did not start:\n\(shellWindow())")
        session.tmux(["send-keys", "-t", "\(session.name):shell", "-l", "hello tmux"])
        session.tmux(["send-keys", "-t", "\(session.name):shell", "Enter"])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? String(contentsOfFile: out, encoding: .utf8)) != "hello tmux\n" { usleep(100_000) }
        #expect((try? String(contentsOfFile: out, encoding: .utf8)) == "hello tmux\n", "cat wrote \(String(describing: try? String(contentsOfFile: out, encoding: .utf8)))")
        // The target goes away: what is typed next is kept on screen with the target's name.
        session.tmux(["kill-window", "-t", "\(session.name):cat"])
        session.tmux(["send-keys", "-t", "\(session.name):shell", "-l", "kept"])
        let kept = session.waitFor { _ in
            let s = shellWindow()
            return s.contains("not sent: kept") && s.contains("\(session.name):cat")
        }
        #expect(kept, "the unsent text or the target is not shown:\n\(shellWindow())")
        #expect(shellWindow().contains("HandsFree"), "the shell is still running")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func aMissingCommandAndBinaryGarbageLeaveTheShellRunning() throws {
        let dir = try Self.tempDir("garbage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = Tmux(name: "hf-term-garbage-\(getpid())")
        defer { session.kill() }
        try session.start(Self.shell(in: dir, "-- no-such-command-here"))
        #expect(session.waitFor { $0.contains { $0.contains("no-such-command-here exited with status 127 (command not found)") } },
                "no clear message for a missing command:\n\(Self.screenText(session))")
        #expect(session.capture().contains { $0.contains("↻ Restart") })
        session.kill()

        let flood = Tmux(name: "hf-term-flood-\(getpid())")
        defer { flood.kill() }
        try flood.start(Self.shell(in: dir, "-- /bin/bash --norc --noprofile"))
        #expect(flood.waitFor { $0.contains { $0.hasPrefix("$") } })
        // Ten megabytes of seeded noise (the same every run: urandom can leave the emulator in any mode), then a
        // full reset (ESC c) so the marker lands on a clean screen. No ";": tmux takes it for a separator.
        var noise = [UInt8](repeating: 0, count: 10_000_000)
        var seed: UInt64 = 0x5eed_f00d
        for k in noise.indices { seed = seed &* 6364136223846793005 &+ 1442695040888963407; noise[k] = UInt8(truncatingIfNeeded: seed >> 33) }
        try Data(noise).write(to: URL(fileURLWithPath: dir + "/noise.bin"))
        flood.literal("cat \(dir)/noise.bin && printf '\\033c' && echo done-$((6*7))")
        flood.keys("Enter")
        // While it floods (the command line scrolled away), the shell still answers a key: the symbol layer toggles.
        #expect(flood.waitFor(seconds: 30) { !$0.contains { $0.contains("noise.bin") } }, "\(Self.screenText(flood))")
        flood.keys("Tab")
        #expect(flood.waitFor(seconds: 60) { $0.contains { $0.contains("done-42") } },
                "the shell stopped following the child:\n\(Self.screenText(flood))")
        #expect(flood.capture().first?.contains("Home › Terminal") == true)
    }

    /// Every regular file under `dir`.
    static func allFiles(_ dir: String) throws -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var out: [String] = []
        while let p = e.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + p, isDirectory: &isDir), !isDir.boolValue { out.append(dir + "/" + p) }
        }
        return out
    }
}

extension Tmux {
    /// Ends the shell in the session's pane with SIGTERM and waits for the pane to go (it writes its files
    /// on the way out).
    func stopShell() {
        guard let pane = panePID else { return }
        let comm = { (pid: pid_t) in ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        // `sh -c` may have exec'd the command, or run it as its child.
        let pid = comm(pane) == "handsfree" ? pane : LiveEdgesTests.child(of: pane)
        guard let pid else { return }
        _ = Glibc.kill(pid, SIGTERM)
        _ = waitFor(seconds: 10) { _ in !self.exists }
    }
}
