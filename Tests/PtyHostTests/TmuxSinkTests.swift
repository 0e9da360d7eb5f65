#if canImport(Glibc)
import Glibc
#endif
import SystemIO
import Testing
@testable import PtyHost

/// The tmux client under the `--type-into tmux:TARGET` sink against a real tmux server of its own (`-L name`),
/// `cat > FILE` in a pane. (Parsing the option is `OutputSinks.parse`'s, tested in RuntimeTests' OutputSinkTests.)
@Suite struct TmuxSinkTests {
    static var hasTmux: Bool {
        ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].contains { (path: String) in access(path, X_OK) == 0 }
    }

    /// A private tmux server with one session running `cat > FILE`; killed with its files on `stop`.
    final class CatPane {
        let socket: String
        let dir: String
        let file: String
        let sink: TmuxSink

        init(_ tag: String) throws {
            socket = "hf-sink-\(getpid())-\(tag)"
            var template = Array("/tmp/hf-sink-XXXXXX".utf8CString)
            guard let d = mkdtemp(&template) else { throw TmuxSinkError("mkdtemp failed") }
            dir = String(cString: d)
            file = dir + "/out.txt"
            sink = TmuxSink(target: "cat", serverArguments: ["-L", socket])
            for _ in 0..<3 {
                run("-f /dev/null new-session -d -s cat -x 80 -y 24 'stty -echo; exec cat > \(file)'")
                if (try? sink.check()) != nil { return }
                usleep(200_000)  // a retry: the tmux server, just started, may refuse the first new-session
            }
            throw TmuxSinkError("tmux session cat on \(socket) did not start")
        }

        @discardableResult
        func run(_ args: String) -> Int32 {
            let cmd = "tmux -L \(socket) \(args) >/dev/null 2>&1 </dev/null"
            guard let f = popen(cmd, "r") else { return -1 }
            return pclose(f)
        }

        /// The file's bytes once `cat` has exited (the session is then gone), or what it holds after 10 s.
        func contents(waitingForExit: Bool = true) -> [UInt8] {
            let end = LiveClock().now() + 10
            while waitingForExit, LiveClock().now() < end, run("has-session -t cat") == 0 { usleep(50_000) }
            guard let f = fopen(file, "rb") else { return [] }
            defer { fclose(f) }
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n <= 0 { break }
                out += buf[0..<n]
            }
            return out
        }

        func stop() {
            run("kill-server")
            unlink(file)
            rmdir(dir)
        }
    }

    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func textAndKeysReachTheFileCatWrites() throws {
        let pane = try CatPane("text")
        defer { pane.stop() }
        let s = pane.sink
        // Shell text with quotes, a leading dash (not an option to send-keys) and UTF-8.
        try s.send(text: "-n echo 'a b' \"$HOME\" | grep ~/x*; é")
        try s.send(.enter)
        try s.send(text: "abx")
        try s.send(.backspace)
        try s.send(.char("c"))
        try s.send(.tab)
        try s.send(.alt("x"))
        try s.send(.up)
        try s.send(.enter)
        try s.send(.ctrl("d"))
        let got = String(decoding: pane.contents(), as: UTF8.self)
        // The pane's line discipline applied Backspace; Tab, ESC x and the arrow's sequence are plain bytes to cat.
        #expect(got == "-n echo 'a b' \"$HOME\" | grep ~/x*; é\nabc\t\u{1b}x\u{1b}[A\n")
    }

    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func ctrlCReachesThePane() throws {
        let pane = try CatPane("intr")
        defer { pane.stop() }
        try pane.sink.send(text: "kept")
        try pane.sink.send(.enter)
        // cat must have read the line before the interrupt: the tty drops input not yet read at Ctrl-C, and on a
        // loaded machine cat was once not scheduled in between (CI: the file came out empty).
        let end = LiveClock().now() + 10
        while LiveClock().now() < end, pane.contents(waitingForExit: false) != Array("kept\n".utf8) { usleep(20_000) }
        try pane.sink.send(text: "lost")
        try pane.sink.send(.ctrl("c"))
        // The interrupt ended cat; the line it had not read yet is dropped by the tty, as in a real terminal.
        #expect(String(decoding: pane.contents(), as: UTF8.self) == "kept\n")
    }

    /// The pane's working directory comes with each capture and follows the program's cd, so the Terminal
    /// screen completes file names in `--type-into` mode too.
    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aCaptureCarriesThePanesWorkingDirectory() throws {
        let pane = try CatPane("cwd")
        defer { pane.stop() }
        let sub = pane.dir + "/sub dir"
        #expect(mkdir(sub, 0o755) == 0)
        defer { unlink(sub + "/ssh"); rmdir(sub) }
        let sink = TmuxSink(target: "sh", serverArguments: ["-L", pane.socket])
        pane.run("new-session -d -s sh -c \(pane.dir) -x 80 -y 24 'exec /bin/sh'")
        // tmux knows the pane's directory once its program has started: on a loaded machine the first capture
        // can come before that and name none.
        var first = try sink.capture()
        let started = LiveClock().now()
        while first.workingDirectory == nil, LiveClock().now() - started < 5 { usleep(50_000); first = try sink.capture() }
        #expect(first.workingDirectory == pane.dir)
        #expect(first.snapshot.cols == 80)
        try sink.send(text: "cd 'sub dir'")
        try sink.send(.enter)
        let end = LiveClock().now() + 5
        var now = first.workingDirectory
        while LiveClock().now() < end, now != sub { usleep(50_000); now = try sink.capture().workingDirectory }
        #expect(now == sub)
        // Under ssh (a copy of sleep by that name) the pane's folder is not where the command line's files are.
        try sink.send(text: "cp /bin/sleep ssh && ./ssh 30")
        try sink.send(.enter)
        let end2 = LiveClock().now() + 5
        while LiveClock().now() < end2, now != nil { usleep(50_000); now = try sink.capture().workingDirectory }
        #expect(now == nil)
        try sink.send(.ctrl("c"))
        unlink(sub + "/ssh")
    }

    @Test(.enabled(if: hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aMissingOrClosedTargetIsNamedInTheError() throws {
        let pane = try CatPane("gone")
        defer { pane.stop() }
        let wrong = TmuxSink(target: "nosuchpane", serverArguments: ["-L", pane.socket])
        #expect(throws: TmuxSinkError.self) { try wrong.send(text: "x") }
        do {
            try wrong.send(.enter)
            Issue.record("sending to a missing pane succeeded")
        } catch {
            #expect(error.description.contains("tmux target nosuchpane:"), "\(error)")
        }
        // The pane closes when cat ends; then sending to it fails, naming it.
        try pane.sink.send(.ctrl("d"))
        _ = pane.contents()
        do {
            try pane.sink.send(text: "after")
            Issue.record("sending to a closed pane succeeded")
        } catch {
            #expect(error.description.hasPrefix("tmux target cat: "), "\(error)")
        }
        // No server at all on the socket.
        let noServer = TmuxSink(target: "w:1", serverArguments: ["-L", "hf-sink-none-\(getpid())"])
        #expect(throws: TmuxSinkError.self) { try noServer.check() }
    }

    @Test func keysHaveTmuxNames() {
        #expect(TmuxSink.keyName(.enter) == "Enter")
        #expect(TmuxSink.keyName(.backspace) == "BSpace")
        #expect(TmuxSink.keyName(.escape) == "Escape")
        #expect(TmuxSink.keyName(.pageUp) == "PPage")
        #expect(TmuxSink.keyName(.pageDown) == "NPage")
        #expect(TmuxSink.keyName(.home) == "Home")
        #expect(TmuxSink.keyName(.end) == "End")
        #expect(TmuxSink.keyName(.delete) == "DC")
        #expect(TmuxSink.keyName(.function(5)) == "F5")
        #expect(TmuxSink.keyName(.ctrl("c")) == "C-c")
        #expect(TmuxSink.keyName(.ctrl("Z")) == "C-z")
        #expect(TmuxSink.keyName(.alt("b")) == "M-b")
        #expect(TmuxSink.keyName(.ctrl(" ")) == "C-Space")
        #expect(TmuxSink.keyName(.left, modifiers: .ctrl) == "C-Left")
        #expect(TmuxSink.keyName(.up, modifiers: [.ctrl, .alt]) == "C-M-Up")
        #expect(TmuxSink.keyName(.tab, modifiers: .shift) == "BTab")
        #expect(TmuxSink.keyName(.char("x"), modifiers: .alt) == "M-x")
        #expect(TmuxSink.keyName(.ctrl("c"), modifiers: .alt) == "C-M-c")
        // A plain character is text, not a key name; a control character has no name.
        #expect(TmuxSink.keyName(.char("x")) == nil)
        #expect(TmuxSink.keyName(.ctrl("\u{7}")) == nil)
    }
}
