#if canImport(Glibc)
import Glibc
#endif
import Localization
import SystemIO
import Testing
@testable import PtyHost

/// Real programs in a real pty, their output through libvterm. Every wait is bounded.
@Suite struct PtyProcessTests {
    static let wait = 10.0

    /// A plain interactive bash with a prompt the tests can recognise.
    static func bash(rows: Int = 24, cols: Int = 80) throws -> HostedTerminal {
        try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                           environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                           rows: rows, cols: cols)
    }

    static func lines(_ t: HostedTerminal) -> [String] {
        let s = t.screen.snapshot()
        return (0..<s.rows).map(s.lineText)
    }

    static func shows(_ line: String) -> (HostedTerminal) -> Bool {
        { lines($0).contains(line) }
    }

    static func hasProgram(_ name: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { access($0 + name, X_OK) == 0 }
    }

    /// Whether /proc still lists `pid` (a zombie is still listed until it is reaped).
    static func procExists(_ pid: pid_t) -> Bool { access("/proc/\(pid)/stat", F_OK) == 0 }

    @Test func typedCommandThroughTheScreenKeyboardRunsInBash() throws {
        let t = try Self.bash()
        #expect(t.run(until: { Self.lines($0).contains("$") }, timeout: Self.wait))
        t.type("echo hello")
        t.send(.enter)
        #expect(t.run(until: Self.shows("hello"), timeout: Self.wait), "screen: \(Self.lines(t))")
        #expect(Self.lines(t).contains("$ echo hello"))
    }

    @Test func childHasARealControllingTerminal() throws {
        let t = try HostedTerminal(argv: ["bash", "-c", "tty; ps -o tty= -p $$; exit 0"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.process.exitStatus != nil }, timeout: Self.wait))
        t.pump()
        let ls = Self.lines(t)
        #expect(ls.first?.hasPrefix("/dev/pts/") == true, "screen: \(ls)")
        // ps names the controlling terminal of the shell itself: "?" would mean none.
        #expect(ls.count > 1 && ls[1].hasPrefix("pts/"), "screen: \(ls)")
        #expect(t.process.exitStatus == .exited(0))
    }

    @Test func resizeReachesTheChild() throws {
        let t = try Self.bash(rows: 24, cols: 80)
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        t.resize(rows: 31, cols: 97)
        #expect(t.process.size?.rows == 31 && t.process.size?.cols == 97)
        t.type("stty size")
        t.send(.enter)
        #expect(t.run(until: Self.shows("31 97"), timeout: Self.wait), "screen: \(Self.lines(t))")
    }

    @Test func passwordPromptIsEchoOffAndCanonical() throws {
        let t = try Self.bash()
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        // At bash's own prompt readline has echo and canonical mode off: not a password prompt.
        #expect(t.process.isPasswordPrompt == false)
        t.type("read -p 'name: ' n")
        t.send(.enter)
        #expect(t.run(until: Self.shows("name:"), timeout: Self.wait))
        #expect(t.process.isPasswordPrompt == false)
        t.type("ann")
        t.send(.enter)
        #expect(t.run(until: { Self.lines($0).last { !$0.isEmpty } == "$" }, timeout: Self.wait))
        t.type("read -s -p 'secret: ' s; echo; echo got ${#s}")
        t.send(.enter)
        #expect(t.run(until: { _ in t.process.isPasswordPrompt }, timeout: Self.wait))
        t.type("hunter2")
        t.send(.enter)
        #expect(t.run(until: Self.shows("got 7"), timeout: Self.wait), "screen: \(Self.lines(t))")
        #expect(!Self.lines(t).joined().contains("hunter2"))
        #expect(t.process.isPasswordPrompt == false)
    }

    @Test func inputIsHiddenWhileReadSWaitsAndNotAfter() throws {
        let t = try Self.bash()
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        #expect(t.isInputHidden == false)
        t.type("read -s x; echo len=${#x}")
        t.send(.enter)
        // bash turns echo off inside `read -s`; wait for that, then the flag must hold until the line is read.
        #expect(t.run(until: { $0.isInputHidden }, timeout: Self.wait), "screen: \(Self.lines(t))")
        t.type("s3cret")
        t.pump()
        #expect(t.isInputHidden)
        t.send(.enter)
        #expect(t.run(until: Self.shows("len=6"), timeout: Self.wait), "screen: \(Self.lines(t))")
        #expect(t.run(until: { Self.lines($0).last { !$0.isEmpty } == "$" }, timeout: Self.wait))
        #expect(t.isInputHidden == false)
        #expect(!Self.lines(t).joined().contains("s3cret"))
    }

    /// The foreground's working directory follows cd, and is not given while ssh (here a copy of sleep named
    /// ssh) holds the pty: its command line's files are on another machine.
    @Test func theForegroundsWorkingDirectoryFollowsCdAndIsNotGivenUnderSsh() throws {
        var template = Array("/tmp/hf-cwd-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { unlink(dir + "/sub/ssh"); rmdir(dir + "/sub"); rmdir(dir) }
        #expect(mkdir(dir + "/sub", 0o755) == 0)
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   workingDirectory: dir, rows: 24, cols: 80)
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        #expect(t.process.foregroundWorkingDirectory == dir)
        t.type("cd sub && cp /bin/sleep ssh && ./ssh 30")
        t.send(.enter)
        #expect(t.run(until: { $0.process.foregroundProgram == "ssh" }, timeout: Self.wait), "screen: \(Self.lines(t))")
        #expect(t.process.foregroundWorkingDirectory == nil)
        t.send(.ctrl("c"))
        #expect(t.run(until: { $0.process.foregroundProgram == "bash" }, timeout: Self.wait))
        #expect(t.process.foregroundWorkingDirectory == dir + "/sub")
    }

    /// A program that execs ssh keeps its group, so a view keeps the answers it had; the loop's periodic look
    /// (`refreshForegroundAnswers`) asks /proc again once they are half a second old, and the directory goes.
    @Test func anExecOfSshIsSeenByThePeriodicLookNotByAKeysView() throws {
        var template = Array("/tmp/hf-cwd-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { unlink(dir + "/ssh"); rmdir(dir) }
        let clock = TestClock()
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   workingDirectory: dir, rows: 24, cols: 80, clock: clock)
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        t.type("cp /bin/sleep ssh && bash -c 'sleep 0.6; exec ./ssh 30'")
        t.send(.enter)
        // Views while the job is still bash, then after its exec.
        #expect(t.run(until: { _ = $0.process.foregroundWorkingDirectory; return $0.process.foregroundProgram == "ssh" }, timeout: Self.wait))
        #expect(t.process.foregroundWorkingDirectory == dir, "the view asked /proc again")
        clock.advance(by: 0.6)
        #expect(t.process.refreshForegroundAnswers())
        #expect(t.process.foregroundWorkingDirectory == nil)
        #expect(t.process.refreshForegroundAnswers() == false)
        t.send(.ctrl("c"))
    }

    /// The directory is kept between keys (a readlink in /proc per echo was a third of its cost), but never
    /// past a `cd`: every command ends with a new line, after which it is read again.
    @Test func theWorkingDirectoryFollowsACdAtOnceThoughItIsKeptBetweenKeys() throws {
        var template = Array("/tmp/hf-cwd-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { rmdir(dir + "/a"); rmdir(dir + "/b"); rmdir(dir) }
        #expect(mkdir(dir + "/a", 0o755) == 0 && mkdir(dir + "/b", 0o755) == 0)
        let clock = TestClock()
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   workingDirectory: dir, rows: 24, cols: 80, clock: clock)
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        #expect(t.process.foregroundWorkingDirectory == dir)
        for (n, sub) in ["a", "b", "a"].enumerated() {
            // Past the half second a read is kept, so only the new line can make it read again.
            clock.advance(by: 0.6)
            _ = t.process.foregroundWorkingDirectory
            t.type("cd \(dir)/\(sub)")
            t.send(.enter)
            // The prompt after the cd: bash has changed directory by then.
            let prompts = { (t: HostedTerminal) in t.screen.snapshot().text.split(separator: "\n").filter { $0.hasPrefix("$") }.count }
            #expect(t.run(until: { prompts($0) >= n + 2 }, timeout: Self.wait), "screen: \(Self.lines(t))")
            #expect(t.process.foregroundWorkingDirectory == dir + "/" + sub)
            // Keys typed now change nothing and are answered from what was read.
            t.type("x")
            _ = t.pump()
            #expect(t.process.foregroundWorkingDirectory == dir + "/" + sub)
            t.send(.backspace)
        }
    }

    @Test func exitStatusIsReportedAndTheChildReaped() throws {
        let t = try HostedTerminal(argv: ["bash", "-c", "exit 3"], rows: 24, cols: 80)
        let pid = t.process.pid
        #expect(t.run(until: { $0.process.exitStatus != nil }, timeout: Self.wait))
        #expect(t.process.exitStatus == .exited(3))
        #expect(!Self.procExists(pid), "pid \(pid) is still in /proc (a zombie?)")
    }

    @Test func withoutAPidfdTheExitIsFoundThoughABackgroundJobHoldsThePty() throws {
        let p = try PtyProcess(argv: ["sh", "-c", "trap '' HUP; sleep 5 & exit 3"], rows: 24, cols: 80, pidfd: false)
        defer { p.terminate() }
        #expect(p.exitFD == -1)
        #expect(p.waitForExit(timeout: Self.wait))
        #expect(p.exitStatus == .exited(3))
        // The job still holds the slave: the master has not hung up, so only waitpid could have said it.
        var fd = pollfd(fd: p.outputFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 0)
        #expect(fd.revents & Int16(POLLHUP) == 0)
    }

    @Test func exitMessagesNameTheProgramAndHowItEnded() throws {
        let t = try HostedTerminal(argv: ["bash", "-c", "exit 3"], rows: 24, cols: 80)
        #expect(t.exitMessage == nil || t.exitStatus != nil)
        #expect(t.run(until: { $0.exitStatus != nil }, timeout: Self.wait))
        #expect(t.exitMessage?.english == "bash exited with status 3")
        let k = try HostedTerminal(argv: ["sleep", "30"], rows: 24, cols: 80)
        #expect(k.exitMessage == nil)
        #expect(k.run(until: { $0.process.foregroundProgram == "sleep" }, timeout: Self.wait))
        kill(k.process.pid, SIGKILL)
        #expect(k.run(until: { $0.exitStatus != nil }, timeout: Self.wait))
        #expect(k.exitMessage?.english == "sleep was killed by signal 9 (SIGKILL)")
        #expect(HostedTerminal.exitMessage(program: "x", status: .signaled(11, coreDumped: true)).english
                == "x was killed by signal 11 (SIGSEGV), core dumped")
    }

    /// What the pane says when its program ends is in the user's language: every case, in each shipped
    /// catalog, is translated (not the English) and keeps the program, the status and the signal's name.
    @Test(arguments: ShippedCatalog.languages)
    func exitMessagesReadInTheLanguage(_ lang: String) throws {
        let catalog = try ShippedCatalog.load(lang)
        let statuses: [PtyHost.ExitStatus] = [.exited(3), .exited(127), .exited(126), .signaled(9, coreDumped: false),
                                              .signaled(11, coreDumped: true), .signaled(40, coreDumped: false), .signaled(40, coreDumped: true)]
        let kept: [[String]] = [["3"], ["127"], ["126"], ["9", "SIGKILL"], ["11", "SIGSEGV"], ["40"], ["40"]]
        for (status, kept) in zip(statuses, kept) {
            let m = HostedTerminal.exitMessage(program: "vim", status: status)
            let shown = m.text(catalog)
            #expect(shown != m.english, "\(lang): \(shown)")
            for part in kept + ["vim"] { #expect(shown.contains(part), "\(lang): \(shown)") }
        }
    }

    @Test func missingCommandGivesAClearMessageOnScreenAndInTheExitMessage() throws {
        let t = try HostedTerminal(argv: ["handsfree-no-such-command-xyz", "arg"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.exitStatus != nil && $0.isOutputClosed }, timeout: Self.wait))
        #expect(t.exitMessage?.english == "handsfree-no-such-command-xyz exited with status 127 (command not found)")
        #expect(Self.lines(t).first == "handsfree: handsfree-no-such-command-xyz: command not found")
    }

    @Test func restartStartsTheCommandAgainAndReapsTheOldChild() throws {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   rows: 10, cols: 40)
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        t.type("echo first; exit 4")
        t.send(.enter)
        #expect(t.run(until: { $0.exitStatus != nil && $0.isOutputClosed }, timeout: Self.wait))
        #expect(t.exitStatus == .exited(4))
        let oldPID = t.process.pid
        try t.restart()
        #expect(t.process.pid != oldPID)
        #expect(t.exitStatus == nil && t.exitMessage == nil && !t.isOutputClosed)
        #expect(!Self.procExists(oldPID))
        t.type("echo second")
        t.send(.enter)
        #expect(t.run(until: Self.shows("second"), timeout: Self.wait), "screen: \(Self.lines(t))")
        // The old child's output is still on the screen above the new one.
        #expect(Self.lines(t).contains("first"))

        // Restarting a child that still runs ends it first: no zombie is left.
        let runningPID = t.process.pid
        try t.restart()
        #expect(!Self.procExists(runningPID), "pid \(runningPID) is still in /proc (a zombie?)")
        #expect(t.run(until: { Self.lines($0).last { !$0.isEmpty } == "$" }, timeout: Self.wait), "screen: \(Self.lines(t))")
        t.process.terminate()
    }

    @Test func restartLeavesTheAlternateScreenAndTheOldModes() throws {
        let t = try HostedTerminal(argv: ["printf", "\u{1b}[?1049h\u{1b}[?1hALT"], rows: 5, cols: 20)
        #expect(t.run(until: { $0.exitStatus != nil && $0.isOutputClosed }, timeout: Self.wait))
        #expect(t.screen.isAltScreen)
        #expect(t.screen.press(.up) == Array("\u{1b}OA".utf8))
        try t.restart()
        #expect(!t.screen.isAltScreen)
        #expect(t.screen.press(.up) == Array("\u{1b}[A".utf8))
        #expect(t.run(until: { $0.exitStatus != nil && $0.isOutputClosed }, timeout: Self.wait))
    }

    @Test func signalDeathIsDecoded() throws {
        let t = try HostedTerminal(argv: ["bash", "-c", "kill -TERM $$"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.process.exitStatus != nil }, timeout: Self.wait))
        #expect(t.process.exitStatus == .signaled(SIGTERM, coreDumped: false))
    }

    @Test func missingCommandExits127WithAMessage() throws {
        let t = try HostedTerminal(argv: ["handsfree-no-such-command-xyz"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.process.exitStatus != nil && $0.isOutputClosed }, timeout: Self.wait))
        #expect(t.process.exitStatus == .exited(127))
        #expect(Self.lines(t).contains { $0.contains("handsfree-no-such-command-xyz: command not found") },
                "screen: \(Self.lines(t))")
    }

    @Test func terminatingARunningChildLeavesNoZombie() throws {
        let t = try HostedTerminal(argv: ["sleep", "30"], rows: 24, cols: 80)
        let p = t.process
        let pid = p.pid
        // Terminated before exec, the child would end another way; wait until it is sleep.
        #expect(t.run(until: { $0.process.foregroundProgram == "sleep" }, timeout: Self.wait))
        #expect(p.reapIfExited() == nil)
        p.terminate()
        #expect(p.exitStatus == .signaled(SIGHUP, coreDumped: false))
        #expect(!Self.procExists(pid))
    }

    @Test(.enabled(if: hasProgram("vim"), "vim is not installed (scripts/install-deps.sh installs it)"))
    func vimUsesTheAlternateScreen() throws {
        let t = try HostedTerminal(argv: ["vim", "-u", "NONE", "-i", "NONE", "-N", "-n"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.screen.isAltScreen }, timeout: Self.wait))
        #expect(t.process.foregroundProgram == "vim")
        // vim is waiting for keys with echo off and canonical mode off: not a password prompt.
        #expect(t.process.isPasswordPrompt == false)
        t.type(":q!")
        t.send(.enter)
        #expect(t.run(until: { $0.process.exitStatus != nil }, timeout: Self.wait))
        #expect(t.process.exitStatus == .exited(0))
        // vim's last bytes may still be on their way through the pty when its exit is seen (a loaded machine
        // runs the pty's buffer work late): read until they came.
        #expect(t.run(until: { !$0.screen.isAltScreen }, timeout: Self.wait))
    }

    @Test(.enabled(if: hasProgram("less"), "less is not installed (scripts/install-deps.sh installs it)"))
    func lessUsesTheAlternateScreenAndArrowKeysFollowItsMode() throws {
        let t = try HostedTerminal(argv: ["bash", "-c", "seq 1 200 | less"], rows: 10, cols: 40)
        #expect(t.run(until: { $0.screen.isAltScreen && Self.lines($0).first == "1" }, timeout: Self.wait))
        // less turned on application cursor keys, so libvterm sends Down as ESC O B.
        #expect(t.screen.press(.down) == Array("\u{1b}OB".utf8))
        t.send(.down)
        #expect(t.run(until: { Self.lines($0).first == "2" }, timeout: Self.wait), "screen: \(Self.lines(t))")
        t.type("q")
        #expect(t.run(until: { $0.process.exitStatus != nil }, timeout: Self.wait))
        #expect(t.screen.isAltScreen == false)
    }

    @Test func wideAndCombiningCharactersComeThrough() throws {
        let t = try HostedTerminal(argv: ["printf", "\u{4F60}x e\u{0301}!"], rows: 5, cols: 20)
        #expect(t.run(until: { $0.process.exitStatus != nil && Self.lines($0).first?.hasSuffix("!") == true },
                      timeout: Self.wait))
        let s = t.screen.snapshot()
        #expect(s.cell(row: 0, col: 0) == TerminalCell(text: "\u{4F60}", width: 2))
        #expect(s.cell(row: 0, col: 1).width == 0)
        #expect(s.cell(row: 0, col: 2).text == "x")
        #expect(s.cell(row: 0, col: 4).text == "e\u{0301}")
        #expect(s.cell(row: 0, col: 5).text == "!")
        #expect(s.lineText(0) == "\u{4F60}x e\u{0301}!")
    }

    @Test func coloursAndAttributesDecode() throws {
        let text = "\u{1b}[31mR\u{1b}[38;2;1;2;3;48;5;202mG\u{1b}[0;1;4;7;3mA\u{1b}[0mN"
        let t = try HostedTerminal(argv: ["printf", "%s", text], rows: 5, cols: 20)
        #expect(t.run(until: { $0.process.exitStatus != nil && Self.lines($0).first == "RGAN" }, timeout: Self.wait))
        let s = t.screen.snapshot()
        #expect(s.cell(row: 0, col: 0).foreground == .indexed(1))
        #expect(s.cell(row: 0, col: 1).foreground == .rgb(1, 2, 3))
        #expect(s.cell(row: 0, col: 1).background == .indexed(202))
        #expect(s.cell(row: 0, col: 2).attributes == [.bold, .underline, .reverse, .italic])
        #expect(s.cell(row: 0, col: 3) == TerminalCell(text: "N"))
    }

    @Test func seqFillsTheScrollback() throws {
        let t = try HostedTerminal(argv: ["seq", "1", "20000"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.process.exitStatus != nil && $0.isOutputClosed }, timeout: 30))
        // 20000 lines and the final newline: the screen's last row is empty, 23 numbers are on it.
        #expect(t.screen.scrollbackCount == 10_000)
        #expect(t.screen.snapshot().lineText(22) == "20000")
        #expect(t.screen.scrollbackText(0) == "19977")
        #expect(t.screen.scrollbackText(9_999) == "9978")
        #expect(t.screen.scrollbackText(10_000) == "")
    }

    @Test func bashSeqKeepsTheNewestTenThousandLinesReadableByWindow() throws {
        let t = try Self.bash()
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        t.type("seq 1 20000")
        t.send(.enter)
        #expect(t.run(until: { Self.lines($0).suffix(2) == ["20000", "$"] }, timeout: 60), "screen: \(Self.lines(t))")
        let s = t.screen
        // 20002 lines (command, numbers, prompt) on 24 rows: 19978 scrolled off, the newest 10000 are kept.
        #expect(s.scrollbackCount == 10_000)
        #expect(s.scrollbackText(0) == "19977")
        #expect(s.scrollbackText(9_999) == "9978")
        let window = s.scrollbackWindow(back: 100, count: 3).map { TerminalSnapshot.text(of: $0) }
        #expect(window == ["19875", "19876", "19877"])
        let top = s.view(scrolledBack: 10_000)
        #expect(top.lineText(0) == "9978" && top.lineText(23) == "10001")
        let mid = s.view(scrolledBack: 5)
        #expect(mid.lineText(0) == "19973" && mid.lineText(4) == "19977" && mid.lineText(5) == "19978")
    }

    @Test func randomBytesDoNotCrashTheEmulator() throws {
        let t = try HostedTerminal(argv: ["head", "-c", "1000000", "/dev/urandom"], rows: 24, cols: 80)
        #expect(t.run(until: { $0.process.exitStatus != nil && $0.isOutputClosed }, timeout: 60))
        #expect(t.process.exitStatus == .exited(0))
        // The tty's output processing may add bytes (NL becomes CR NL), never remove them.
        #expect(t.bytesRead >= 1_000_000)
        // The screen still works after the garbage: a reset and text show as expected.
        _ = t.screen.feed(Array("\u{1b}c\u{1b}[?1049l\u{1b}[Hok".utf8))
        #expect(t.screen.snapshot().lineText(0) == "ok")
    }

    @Test func foregroundProgramFollowsTheJob() throws {
        let t = try Self.bash()
        #expect(t.run(until: Self.shows("$"), timeout: Self.wait))
        #expect(t.process.foregroundProgram == "bash")
        t.type("sleep 5")
        t.send(.enter)
        #expect(t.run(until: { $0.process.foregroundProgram == "sleep" }, timeout: Self.wait))
        // Ctrl-C reaches the foreground job as the interrupt character.
        t.send(.ctrl("c"))
        #expect(t.run(until: { $0.process.foregroundProgram == "bash" }, timeout: Self.wait))
    }
}
