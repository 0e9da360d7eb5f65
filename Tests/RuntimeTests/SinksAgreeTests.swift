#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PtyHost
import Runtime
import Shell
import SystemIO
import Testing

/// Issue 49, item 8: one rule for control characters in every sink. The same text, with a Windows line end,
/// a lone CR, DEL, BS, a tab and ESC, is typed through each sink that runs here into `cat > FILE` on a tty in
/// cooked mode, and every FILE must hold the same: each line end one Enter, DEL and BS both Backspace (so
/// the tty erases the character before), tab and ESC as themselves. (uinput is absent on this machine; its
/// plan is checked in UinputSinkTests.)
@Suite(.serialized) struct SinksAgreeTests {
    static let text = "one\r\ntwo\rthree\nfourX\u{7F}\tfivX\u{08}e\u{1B}.\n"
    static let expected = "one\ntwo\nthree\nfour\tfive\u{1B}.\n"

    /// FILE once it holds `expected`, or what it holds after 10 s.
    static func contents(_ path: String) -> String {
        var now = ""
        let end = LiveClock().now() + 10
        while LiveClock().now() < end {
            now = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if now == expected { break }
            usleep(20_000)
        }
        return now
    }

    @Test func thePiecesAreTheRule() throws {
        let pieces = try TypedText.pieces("a\r\nb\rc\u{7F}\u{08}\t\u{1B}")
        let keys: [TerminalKey] = pieces.compactMap { if case .key(let key, _) = $0 { return key } else { return nil } }
        #expect(keys == [.enter, .enter, .backspace, .backspace, .tab, .escape])
        #expect(pieces.count == 9)
        // Any other control character is refused before anything is sent, named with its byte offset.
        #expect(throws: OutputSinkError("cannot type U+0007 at byte 3: no key types that control character, so nothing was sent")) {
            _ = try TypedText.pieces("é.\u{07}")
        }
    }

    @Test func aChildOnAPty() throws {
        let dir = try TmuxCat.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = PtySink(argv: ["/bin/sh", "-c", "exec cat > '\(dir)/out.txt'"])
        try sink.start(rows: 24, cols: 80)
        try sink.type(Self.text)
        var got = ""
        let end = LiveClock().now() + 10
        while LiveClock().now() < end {
            _ = sink.pump(limit: 1 << 16, budget: 0.01, ready: nil)
            got = (try? String(contentsOfFile: dir + "/out.txt", encoding: .utf8)) ?? ""
            if got == Self.expected { break }
            usleep(10_000)
        }
        #expect(got == Self.expected)
    }

    @Test(.enabled(if: OutputSinkTests.hasTmux, "tmux is not installed (scripts/install-deps.sh installs it)"))
    func aTmuxPane() throws {
        let pane = try TmuxCat("agree")
        defer { pane.stop() }
        let sink = TmuxPaneSink(TmuxSink(target: "cat", serverArguments: ["-L", pane.socket]))
        try sink.type(Self.text)
        #expect(Self.contents(pane.file) == Self.expected)
    }

    @Test(.enabled(if: X11SinkTests.hasTools, X11SinkTests.skipReason))
    func anXWindow() throws {
        let x = try X11SinkTests.XSession()
        defer { x.stop() }
        let file = try x.catWindow("agree")
        try X11Sink(display: x.display).type(Self.text)
        #expect(Self.contents(file.path) == Self.expected)
    }

    static let hasSway = getuid() == 0 && ["/usr/bin/sway", "/usr/bin/foot", "/usr/bin/setpriv"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: hasSway, "needs root (sway runs as nobody through setpriv), sway and foot (scripts/install-deps.sh)"))
    func aWaylandWindow() throws {
        let desk = try HeadlessSway(tag: "agree")
        defer { desk.stop() }
        try #require(desk.waitForWindow(), "foot's window never appeared: \(desk.log)")
        // Root may connect to nobody's compositor: the socket is a file root can open.
        try WaylandSink(socket: desk.socket, environment: ["XKB_DEFAULT_LAYOUT": "us"]).type(Self.text)
        #expect(Self.contents(desk.file) == Self.expected)
    }
}

/// A headless sway as `nobody` running foot with `cat > FILE`, for the sink tests of this target (the
/// end-to-end tests have a fuller one, `SwayDesktop`).
final class HeadlessSway {
    let base: String
    let file: String
    let sway: Process
    var socket: String { base + "/run/wayland-1" }

    init(tag: String) throws {
        base = NSTemporaryDirectory() + "hf-sway-rt-\(tag)-\(getpid())"
        file = base + "/out/typed.txt"
        let fm = FileManager.default
        try? fm.removeItem(atPath: base)
        for dir in [base + "/run", base + "/out", base + "/home"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try fm.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534, .posixPermissions: 0o700], ofItemAtPath: dir)
        }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        let config = "xwayland disable\noutput HEADLESS-1 resolution 1280x800\nexec foot -e sh -c 'cat > \(file)'\n"
        try config.write(toFile: base + "/config", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: base + "/config")
        sway = Process()
        sway.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        sway.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway", "-c", base + "/config"]
        sway.environment = ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "XDG_RUNTIME_DIR": base + "/run",
                            "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"]
        _ = fm.createFile(atPath: base + "/sway.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: base + "/sway.log"))
        sway.standardOutput = log
        sway.standardError = log
        try sway.run()
    }

    var log: String { (try? String(contentsOfFile: base + "/sway.log", encoding: .utf8)) ?? "" }

    /// Waits (up to 15 s) for foot's window to have the focus, and its `cat` to have made FILE: keys sent
    /// before go nowhere.
    func waitForWindow() -> Bool {
        let end = LiveClock().now() + 15
        while LiveClock().now() < end {
            if FileManager.default.fileExists(atPath: file), footHasTheFocus() { return true }
            usleep(50_000)
        }
        return false
    }

    /// Whether sway's tree (`swaymsg -t get_tree`) has foot's window, focused: it is mapped a little after its
    /// program started.
    func footHasTheFocus() -> Bool {
        guard let ipc = try? FileManager.default.contentsOfDirectory(atPath: base + "/run").first(where: { $0.hasPrefix("sway-ipc.") })
        else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/swaymsg")
        p.arguments = ["-t", "get_tree"]
        p.environment = ["SWAYSOCK": base + "/run/" + ipc]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        func focusedFoot(_ node: [String: Any]) -> Bool {
            if node["app_id"] as? String == "foot", node["focused"] as? Bool == true { return true }
            let children = (node["nodes"] as? [[String: Any]] ?? []) + (node["floating_nodes"] as? [[String: Any]] ?? [])
            return children.contains(where: focusedFoot)
        }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]).map(focusedFoot) ?? false
    }

    /// The process id of foot, found by the FILE its command line names.
    func foot() -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let argv = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if argv.first?.hasSuffix("foot") == true, argv.contains(where: { $0.contains(file) }) { return pid }
        }
        return nil
    }

    func stop() {
        if sway.isRunning { kill(sway.processIdentifier, SIGKILL); sway.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: base)
    }
}
