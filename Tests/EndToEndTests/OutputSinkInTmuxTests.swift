#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The built binary's output sinks (issue 28): `--type-into` refused with the known sinks before anything
/// starts, and a tmux target whose server dies mid-session reported on screen with the text kept, the
/// shell running on.
@Suite(.serialized) struct OutputSinkInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary), "needs .build/debug/handsfree"))
    func aBadSinkOrAnUnreachableTargetIsSaidBeforeTheTerminalIsTaken() throws {
        let bad = try WebcamBridgeTests.run(Self.binary, ["run", "--no-speech", "--type-into", "screen:1"])
        #expect(bad.status == 64)
        #expect(bad.err.contains("The value 'screen:1' is invalid for '--type-into <sink>': unknown sink \"screen\" (known: pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto)"),
                "\(bad.err)")
        // A well-formed target on a server that is not there: named, exit 1, no screen drawn.
        let gone = try WebcamBridgeTests.run("/usr/bin/env", ["-u", "TMUX", "TMUX_TMPDIR=/nonexistent-hf", Self.binary,
                                                              "run", "--no-speech", "--type-into", "tmux:work:1"])
        #expect(gone.status == 1)
        #expect(gone.err.hasPrefix("handsfree: tmux target work:1: "), "\(gone.err)")
        #expect(gone.out.isEmpty)
        // The same in Spanish, tmux's usual answer included (tmux falls back from a TMUX_TMPDIR that is not
        // there to /tmp: "no server running on …", or "error connecting to …" where a socket is left).
        let spanish = try WebcamBridgeTests.run("/usr/bin/env", ["-u", "TMUX", "TMUX_TMPDIR=/nonexistent-hf", Self.binary, "run",
                                                                 "--no-speech", "--language", "es", "--type-into", "tmux:work:1"])
        #expect(spanish.status == 1)
        #expect(spanish.err.hasPrefix("handsfree: destino de tmux work:1: no hay ningún servidor en ejecución en ")
                || spanish.err.hasPrefix("handsfree: destino de tmux work:1: error al conectar con "), "\(spanish.err)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree, tmux and bash"))
    func theTargetsServerKilledMidSessionShowsTheFailureAndKeepsTheText() throws {
        let dir = try TerminalInTmuxTests.tempDir("sinkkill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/typed.txt"
        // The target on a tmux server of its own, so it can be killed under the shell.
        let target = Tmux(name: "hf-sink-target-\(getpid())")
        defer { target.kill() }
        try target.start("stty -echo; cat > \(Tmux.quote(out))")
        let socket = target.tmux(["display-message", "-p", "#{socket_path}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(socket.hasPrefix("/"), "no socket path: \(socket)")
        let session = Tmux(name: "hf-sink-shell-\(getpid())")
        defer { session.kill() }
        // A tmux client finds its server by $TMUX when no -L is given: the shell's reach the target's server.
        try session.start("env TMUX=\(Tmux.quote(socket + ",0,0")) "
                          + TerminalInTmuxTests.shell(in: dir, "--type-into tmux:\(target.name)"))
        #expect(session.waitFor { $0.contains { $0.contains("typing into tmux \(target.name)") } },
                "the shell did not start:\n\(session.screen)")
        session.literal("hello")
        session.keys("Enter")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? String(contentsOfFile: out, encoding: .utf8)) != "hello\n" { usleep(100_000) }
        #expect((try? String(contentsOfFile: out, encoding: .utf8)) == "hello\n")

        target.kill()
        session.literal("kept")
        let kept = session.waitFor {
            $0.contains { $0.contains("not sent: kept") && $0.contains("tmux target \(target.name)") }
        }
        #expect(kept, "the failure or the kept text is not shown:\n\(session.screen)")
        // The shell runs on, on the Terminal screen, and takes more keys (kept too).
        session.literal("!")
        #expect(session.waitFor { $0.contains { $0.contains("not sent: kept!") } }, "\(session.screen)")
        #expect(session.capture().first?.contains("Home › Terminal") == true, "\(session.screen)")
    }
}
