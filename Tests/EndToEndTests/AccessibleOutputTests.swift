#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// NO_COLOR, themes and plain mode, seen the way a user's terminal sees them: the built binary in tmux.
@Suite(.serialized) struct AccessibleOutputTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// SGR parameters that set a colour (30–38, 40–48, 90–107); 39/49 only reset to the default.
    static func colourCodes(_ screen: String) -> [String] {
        var found: [String] = []
        var rest = Substring(screen)
        while let start = rest.range(of: "\u{1B}[") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(where: { !($0.isNumber || $0 == ";") }) else { break }
            if rest[end] == "m" {
                for p in rest[..<end].split(separator: ";", omittingEmptySubsequences: false) {
                    if let n = Int(p), (30...38).contains(n) || (40...48).contains(n) || (90...107).contains(n) {
                        found.append(String(rest[..<end]))
                    }
                }
            }
            rest = rest[end...]
        }
        return found
    }

    func tempDir(_ tag: String) -> String { NSTemporaryDirectory() + "hf-a11y-\(tag)-\(getpid())" }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"),
          arguments: ["NO_COLOR=1", "--no-color"])
    func noColourShowsNoColourCodesButFocusStillShows(how: String) throws {
        let dir = tempDir("nc")
        let session = Tmux(name: "hf-a11y-nc-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        let env = how.hasPrefix("NO_COLOR") ? how : ""
        let flag = how.hasPrefix("--") ? how : ""
        try session.start("env LANG=C.UTF-8 \(env) XDG_STATE_HOME=\(dir)/s XDG_CONFIG_HOME=\(dir)/c XDG_DATA_HOME=\(dir)/d "
                          + "\(Self.binary) run --no-onboarding --no-speech --theme colour-blind-safe \(flag)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "\(session.screen)")
        session.keys("Right")
        let styled = { session.tmux(["capture-pane", "-e", "-p", "-t", session.name]) }
        // The focused tile is drawn reversed (SGR 7): focus without any colour.
        #expect(session.waitFor { _ in styled().contains("\u{1B}[1;7m") }, "no reverse video for focus")
        let screen = styled()
        #expect(Self.colourCodes(screen).isEmpty, "colour codes with \(how): \(Set(Self.colourCodes(screen)))")
    }

    /// The same check, done on a coloured run, shows the parser finds colour when there is some.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func aColouredRunHasColourCodes() throws {
        let dir = tempDir("col")
        let session = Tmux(name: "hf-a11y-col-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env -u NO_COLOR LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/s XDG_CONFIG_HOME=\(dir)/c XDG_DATA_HOME=\(dir)/d "
                          + "\(Self.binary) run --no-onboarding --no-speech")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        #expect(!Self.colourCodes(session.tmux(["capture-pane", "-e", "-p", "-t", session.name])).isEmpty)
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func headlessPlainDemoPrintsChangesWithoutEscapes() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["demo", "--plain", "--headless"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "screen opened Home")
        #expect(lines.contains("screen opened Notes"), "\(text)")
        #expect(lines.contains("activated Notes"))
        #expect(lines.contains { $0.hasPrefix("typed \"h\"") })
        // The next word after "How" is the language model's first guess (with the whole en-us.lm.bin, "much").
        #expect(lines.contains("suggestion committed: much"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("typed") && $0.hasSuffix("Note: \"How much \"") }, "\(text)")
        #expect(lines.contains("back to Home"))
        #expect(!text.unicodeScalars.contains("\u{1B}"), "escape sequences in plain output")
    }

    /// The paced demo through the live loop, in a terminal: lines only, no curses, and it ends by itself.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func pacedPlainDemoRunsToTheEndWithoutCurses() throws {
        let session = Tmux(name: "hf-a11y-demo-\(getpid())")
        defer { session.kill() }
        try session.start("env LANG=C.UTF-8 \(Self.binary) demo --plain --speed 20; echo DEMO-EXIT=$?; sleep 30")
        #expect(session.waitFor(seconds: 30) { $0.contains { $0.contains("DEMO-EXIT=") } }, "\(session.screen)")
        // The whole output, scrolled-off lines too: no cursor addressing, so it scrolls like any program's.
        let all = session.tmux(["capture-pane", "-p", "-S", "-", "-t", session.name])
        #expect(all.contains("DEMO-EXIT=0"), "\(all)")
        #expect(all.contains("screen opened Notes") && all.contains("screen opened Help"), "\(all)")
        #expect(all.hasPrefix("screen opened Home\n"), "\(all)")
        #expect(!session.tmux(["capture-pane", "-e", "-p", "-S", "-", "-t", session.name]).contains("\u{1B}"))
    }

    /// `bell_on_activate` rings the terminal bell when a tile is opened; off (the default), it stays silent.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"), arguments: [true, false])
    func bellOnActivate(on: Bool) throws {
        let dir = tempDir("bell-\(on)")
        try FileManager.default.createDirectory(atPath: dir + "/c/handsfree", withIntermediateDirectories: true)
        try Data("bell_on_activate = \(on)\n".utf8).write(to: URL(fileURLWithPath: dir + "/c/handsfree/settings.toml"))
        let session = Tmux(name: "hf-a11y-bell-\(on)-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/s XDG_CONFIG_HOME=\(dir)/c XDG_DATA_HOME=\(dir)/d "
                          + "\(Self.binary) run --no-onboarding --no-speech")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        func bell() -> String { session.tmux(["display-message", "-p", "-t", session.name, "#{window_bell_flag}"]).trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(bell() == "0")
        session.keys("Right")
        session.keys("Enter")
        #expect(session.waitFor { $0.first?.contains("Home › Notes") == true }, "\(session.screen)")
        if on {
            #expect(session.waitFor(seconds: 5) { _ in bell() == "1" }, "no bell on activation")
        } else {
            // A bell the activation rang would reach tmux before the drawing of the next screen.
            session.keys("Escape")
            #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true }, "\(session.screen)")
            #expect(bell() == "0")
        }
    }

    /// Keys work in plain mode: raw standard input, no curses.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree and tmux"))
    func plainRunTakesKeysAndRestoresTheTerminal() throws {
        let dir = tempDir("pk")
        let session = Tmux(name: "hf-a11y-pk-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/s XDG_CONFIG_HOME=\(dir)/c XDG_DATA_HOME=\(dir)/d "
                          + "\(Self.binary) run --plain --no-speech --no-onboarding; echo RUN-EXIT=$?; stty -a; "
                          + "python3 -c 'import fcntl, os; print(\"NONBLOCK=%d\" % bool(fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK))'; sleep 30")
        #expect(session.waitFor { $0.contains("screen opened Home") })
        session.keys("Right")
        #expect(session.waitFor { $0.contains("focus on Notes") }, "\(session.screen)")
        session.keys("Enter")
        #expect(session.waitFor { $0.contains("screen opened Notes") }, "\(session.screen)")
        session.keys("Escape")
        #expect(session.waitFor { $0.contains("back to Home") }, "\(session.screen)")
        session.keys("q")
        #expect(session.waitFor { $0.contains { $0.contains("RUN-EXIT=0") } }, "\(session.screen)")
        // Canonical mode and echo are back for the shell that started it.
        #expect(session.waitFor { $0.joined(separator: " ").contains(" icanon ") && $0.joined(separator: " ").contains(" echo ") },
                "\(session.screen)")
        // And its standard input is blocking again: the file description is the terminal's, shared with it.
        #expect(session.waitFor { $0.contains("NONBLOCK=0") }, "\(session.screen)")
    }
}
