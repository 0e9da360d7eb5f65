#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `handsfree type` and `handsfree point` against a real X server (issues 47 and 49): counts are bounded
/// before anything is sent, a server that dies in the middle is an error and not a crash, typing into no
/// window exits 1 naming what was not sent, and bytes that are not UTF-8 are refused, not typed as U+FFFD.
@Suite(.serialized) struct DesktopCommandsTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = DesktopInTmuxTests.ready
    static let reason: Comment = "needs .build/debug/handsfree, tmux, Xvfb, xterm and xdotool (scripts/install-deps.sh)"

    /// Runs the binary with `arguments` to its end: how it ended and what it printed on stderr.
    static func run(_ arguments: [String], executable: String = binary) throws
        -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationReason, p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary), "needs .build/debug/handsfree"))
    func pointBoundsItsCountsBeforeReachingTheDesktop() throws {
        // Issue 49, item 5: the lowest Int trapped, the highest and a billion clicks ran for hours.
        for (arguments, said) in [(["scroll", "-9223372036854775808"], "scroll turns at most 1000 notches each way"),
                                  (["scroll", "9223372036854775807"], "scroll turns at most 1000 notches each way"),
                                  (["scroll", "0", "1001"], "scroll turns at most 1000 notches each way"),
                                  (["--count", "1000000000", "click"], "--count must be 1 to 10")] {
            for sink in ["x11::99", "wayland:nowhere"] {
                let r = try Self.run(["point", "--into", sink] + arguments)
                #expect(r.reason == .exit && r.status == 64, "\(arguments) \(sink): \(r.stderr)")
                #expect(r.stderr.contains(said), "\(arguments): \(r.stderr)")
            }
        }
    }

    @Test(.enabled(if: ready, reason))
    func anXServerDyingWhilePointScrollsIsAnErrorNotACrash() throws {
        // Issue 49, item 6: XTest calls went on after Xlib had declared the connection dead: SIGSEGV.
        let dir = try TerminalInTmuxTests.tempDir("point-dies")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let x = try DesktopInTmuxTests.Desktop(directory: dir)
        _ = try x.catWindow("under", geometry: "80x24+0+0")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        // Over the window, then 800,000 wheel notches: from under a second to some seconds, as busy as xterm is.
        p.arguments = ["point", "--into", x.display, "move", "0.2", "0.2"]
            + Array(repeating: ["scroll", "1000", "-1000"], count: 400).flatMap { $0 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // The move is done once the pointer is there: the loop of turns is running.
        #expect(DesktopInTmuxTests.Desktop.wait(10) { (try? x.pointer()).map { $0 == (256, 160) } ?? false },
                "the pointer never moved")
        #expect(p.isRunning, "point ended before the server was killed")
        x.killServer()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 1, "\(p.terminationReason) \(p.terminationStatus): \(stderr)")
        #expect(stderr.hasPrefix("handsfree: X display \(x.display) went away while "), "\(stderr)")
    }

    @Test(.enabled(if: ready, reason))
    func typeIntoADisplayWithNoFocusedWindowExits1NamingWhatWasNotSent() throws {
        // Issue 47: this exited 0 having typed nowhere.
        let dir = try TerminalInTmuxTests.tempDir("no-focus")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let x = try DesktopInTmuxTests.Desktop(directory: dir)
        let r = try Self.run(["type", "--into", "x11:" + x.display.dropFirst(), "--enter", "hello there"])
        #expect(r.reason == .exit && r.status == 1, "\(r.stderr)")
        #expect(r.stderr == "handsfree: no window has the keyboard focus on X display \(x.display): it follows the pointer, "
                + "which is over no window, so the keys would reach no program\nnot sent: \"hello there\"\nkeys not pressed: Enter\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary), "needs .build/debug/handsfree"))
    func bytesThatAreNotUTF8AreRefusedNotTypedAsReplacementCharacters() throws {
        // A Swift String would hold U+FFFD in their place; the sink would type that.
        let r = try Self.run(["-c", "exec \"$0\" type --into tmux:nowhere \"$(printf 'ab\\377c')\"", Self.binary],
                             executable: "/bin/sh")
        #expect(r.reason == .exit && r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("argument 4 is not valid UTF-8 (byte 2 of it): nothing was typed"), "\(r.stderr)")
    }
}
