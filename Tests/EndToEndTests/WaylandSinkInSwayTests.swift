#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The Wayland sink against a real compositor: a headless sway with foot running `cat > FILE`, typed into by
/// `handsfree type --into wayland` with a German layout. (wtype, the reference client of the protocol, is
/// not compared here: in one run of three it lost the first key it sent.)
///
/// sway refuses to run as root, and a Wayland client must run as the compositor's user to open its socket:
/// sway, foot and the typists all run as `nobody` (setpriv), so these tests need root.
@Suite(.serialized) struct WaylandSinkInSwayTests {
    static let binary = AppsE2E.binary
    static let ready = getuid() == 0 && FileManager.default.isExecutableFile(atPath: binary)
        && ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/foot", "/usr/bin/setpriv"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    static let reason: Comment = "needs root (sway runs as nobody through setpriv), sway, swaymsg and foot (scripts/install-deps.sh) and .build/debug/handsfree"

    @Test(.enabled(if: ready, reason)) func textPunctuationAndGermanLettersArriveExactly() throws {
        let desk = try SwayDesktop(tag: "text")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")

        let sentence = "Hello, world! Is 2+2=4? \"Yes\" (said 'she'); #1 ~/a_b {x} [y] <z> 50% & $5 *"
        let first = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", sentence], layout: "de")
        #expect(first.status == 0, "\(first.stderr)")
        // ✓ is on no German key: it goes through a keymap of spare keys, and the layout comes back after it.
        let letters = "äöü ß € @ | ✓ ok"
        let second = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", letters], layout: "de")
        #expect(second.status == 0, "\(second.stderr)")
        let expected = sentence + "\n" + letters + "\n"
        #expect(desk.waitForFile(expected) == expected)
    }

    @Test(.enabled(if: ready, reason), arguments: ["de", "fr"])
    func theGermanAndFrenchLayoutsTypeTheirOwnLetters(layout: String) throws {
        let desk = try SwayDesktop(tag: "layout-\(layout)")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        // XKB_DEFAULT_LAYOUT reaches the sink through its environment: € @ | are AltGr keys on both layouts,
        // and French has no äöü of its own (they go on spare keys).
        let text = "äöü ß € @ | Zürich, Noël; y=z*2 'q' \"w\" AZERTY QWERTZ"
        let typed = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", text], layout: layout)
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(desk.waitForFile(text + "\n") == text + "\n")
    }

    @Test(.enabled(if: ready, reason)) func aLongTextIsPacedAndArrivesWhole() throws {
        let desk = try SwayDesktop(tag: "long")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        // Past the burst the sink sends at once: the rest goes paced, with the compositor synced on the way.
        let text = (1...50).map { "line \($0): the quick brown fox, äöü €" }.joined(separator: "\n")
        let typed = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", text], layout: "de")
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(desk.waitForFile(text + "\n") == text + "\n")
    }

    @Test(.enabled(if: ready, reason)) func fiveThousandFrenchCharactersOnAUSLayoutArriveAndFootLives() throws {
        // Issue 49, item 2: each accent went out as a keymap of spare keys and then the ~60 KB layout again,
        // unpaced; after about 2,000 characters sway cut foot off and foot crashed (1,908 of 4,000 arrived,
        // exit 0). Now the layout and every accent of the text are one keymap, sent once.
        let desk = try SwayDesktop(tag: "french")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        let line = "Où est l'été, Zoë? Déjà là: « ça va, garçon » — naïf, cœur ému"
        var text = ""
        while text.count < 5000 { text += line + "\n" }
        let typed = try desk.asNobody([Self.binary, "type", "--into", "wayland", text], layout: "us")
        #expect(typed.status == 0, "\(typed.stderr)")
        // Waited for while foot lives and `type` succeeded: a text cut short fails at once, with the reason,
        // not after 30 waits of 30 s.
        var got = desk.typed()
        for _ in 0..<30 where typed.status == 0 && got != text {
            got = desk.waitForFile(text, while: { desk.foot() != nil })
            if desk.foot() == nil { break }
        }
        #expect(got == text, "\(got.count) of \(text.count) characters arrived")
        #expect(try desk.tree().contains("\"app_id\": \"foot\""), "foot is gone: \(desk.log)")
    }

    @Test(.enabled(if: ready, reason)) func aWindowThatEndsMidTextFailsTypeNamingWhatWasNotTyped() throws {
        // Issue 49: sway cut foot off after 189 of 5,040 characters and `type` exited 0. A foot killed while
        // the keys go stands for any window that leaves: the sink sees its connection end, stops, and says
        // which program left and what of the text it was not shown to read.
        let desk = try SwayDesktop(tag: "ends")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        let foot = try #require(desk.foot(), "no foot process")
        // 4,080 characters: 400 go at once, the rest at 1,000 a second, so foot ends with most unsent.
        let text = String(repeating: String(repeating: "abcdefghi ", count: 5) + "\n", count: 80)
        let typist = try desk.startAsNobody([Self.binary, "type", "--into", "wayland", text], layout: "us")
        let end = Date().addingTimeInterval(30)
        while Date() < end, typist.process.isRunning, desk.typed().count < 300 { usleep(10_000) }
        kill(foot, SIGKILL)
        typist.process.waitUntilExit()
        let stderr = String(decoding: typist.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(typist.process.terminationReason == .exit && typist.process.terminationStatus == 1, "\(stderr)")
        let said = try #require(stderr.firstMatch(of: /foot \(pid (\d+)\) left the Wayland display wayland-1 while it was being typed into \(it ended, or the compositor cut it off\): (\d+) of (\d+) characters were shown to reach it/),
                                "\(stderr)")
        #expect(Int32(said.1) == foot)
        #expect(Int(said.3) == text.count)
        // Counted up to the last time foot had read everything sent: less than the whole; the rest is named.
        let delivered = try #require(Int(said.2))
        #expect(delivered < text.count, "\(stderr)")
        #expect(stderr.contains("not sent: "), "\(stderr)")
    }

    @Test(.enabled(if: ready, reason)) func anotherWindowThatEndsMidTextDoesNotFailTheText() throws {
        // Any program that left the display mid-text failed it, though the keys went to foot's window and
        // all arrived. Now sway's IPC says which window has the focus, and only its program's leaving fails
        // the text.
        let (typist, stderr, text, desk) = try typeWhileAnotherWindowEnds(ipc: true)
        defer { desk.stop() }
        #expect(typist.terminationReason == .exit && typist.terminationStatus == 0, "\(stderr)")
        #expect(desk.waitForFile(text) == text)
    }

    @Test(.enabled(if: ready, reason)) func withoutSwaysIPCAnyWindowThatEndsMidTextFailsTheText() throws {
        // Where no compositor says which window has the focus (SWAYSOCK empty, as under another wlroots
        // compositor), any program that leaves may have been the one typed into: the text stops, named.
        let (typist, stderr, _, desk) = try typeWhileAnotherWindowEnds(ipc: false)
        defer { desk.stop() }
        #expect(typist.terminationReason == .exit && typist.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains("left the Wayland display wayland-1 while it was being typed into"), "\(stderr)")
    }

    /// Types 4,080 characters into foot's window while a second foot, which the focus does not go to
    /// (`no_focus`), is killed after some 300 arrived; the typist has sway's IPC socket if `ipc`.
    private func typeWhileAnotherWindowEnds(ipc: Bool) throws -> (typist: Process, stderr: String, text: String, desk: SwayDesktop) {
        let desk = try SwayDesktop(tag: "other-\(ipc)")
        // The caller stops the desktop it is given; one this fails on is stopped here.
        var handedOver = false
        defer { if !handedOver { desk.stop() } }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        let other = try desk.startAsNobody(["/usr/bin/foot", "--app-id=blip", "--title=blip", "sleep", "60"])
        defer { if other.process.isRunning { kill(other.process.processIdentifier, SIGKILL) } }
        try #require(desk.waitForWindow(appID: "blip"), "the second foot's window never appeared: \(desk.log)")
        #expect(try desk.windows().first { $0.focused }?.name == "window1")
        let text = String(repeating: String(repeating: "abcdefghi ", count: 5) + "\n", count: 80)
        let typist = try desk.startAsNobody([Self.binary, "type", "--into", "wayland", text], layout: "us",
                                            extra: ipc ? [:] : ["SWAYSOCK": ""])
        let end = Date().addingTimeInterval(30)
        while Date() < end, typist.process.isRunning, desk.typed().count < 300 { usleep(10_000) }
        #expect(typist.process.isRunning, "the text was typed before the other window ended")
        kill(other.process.processIdentifier, SIGKILL)
        typist.process.waitUntilExit()
        let stderr = String(decoding: typist.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        handedOver = true
        return (typist.process, stderr, text, desk)
    }

    @Test(.enabled(if: ready, reason)) func aWindowStoppedMidTextGetsTheTextWholeAndLives() throws {
        // A window that reads nothing for a moment (stopped here; busy on a loaded machine) is waited for, not
        // cut off by the compositor, and the text goes on when it reads again.
        let desk = try SwayDesktop(tag: "stopped")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        let foot = try #require(desk.foot(), "no foot process")
        let text = String(repeating: String(repeating: "Zoë été ", count: 6) + "\n", count: 40)
        let typist = try desk.startAsNobody([Self.binary, "type", "--into", "wayland", text], layout: "us")
        let end = Date().addingTimeInterval(30)
        while Date() < end, typist.process.isRunning, desk.typed().count < 100 { usleep(10_000) }
        kill(foot, SIGSTOP)
        usleep(1_500_000)
        kill(foot, SIGCONT)
        typist.process.waitUntilExit()
        let stderr = String(decoding: typist.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(typist.process.terminationStatus == 0, "\(stderr)")
        #expect(desk.waitForFile(text) == text)
        #expect(try desk.tree().contains("\"app_id\": \"foot\""), "foot is gone: \(desk.log)")
    }

    @Test(.enabled(if: ready, reason)) func aWindowBusyWhenTheKeyboardComesGetsTheTextWhole() throws {
        // Issue 49, item 3: on a seat with no other keyboard each program must make a keyboard object for
        // the sink's; foot, busy then, got nothing, and `type` exited 0. Now the sink waits until every
        // program has read the news of the keyboard and the compositor their answers.
        let desk = try SwayDesktop(tag: "busy")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        let foot = try #require(desk.foot(), "no foot process")
        kill(foot, SIGSTOP)
        // Not a wait: foot, a real program, is kept busy (stopped) for half a second while `type` starts.
        let resume = Thread { usleep(500_000); kill(foot, SIGCONT) }
        resume.start()
        let typed = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", "café über"], layout: "us")
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(desk.waitForFile("café über\n") == "café über\n")
    }

    @Test(.enabled(if: ready, reason)) func aCompositorThatGoesAwayIsAnErrorNotACrash() throws {
        let desk = try SwayDesktop(tag: "gone")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        // About 1.5 million keys, some seconds of typing, cut short. (One argument holds at most 128 KB.)
        let text = [String](repeating: String(repeating: "abc def ", count: 12_000), count: 8)
        let keyboards = desk.keyboards()
        let typist = try desk.startAsNobody([Self.binary, "type", "--into", "wayland"] + text)
        // Cut short once the sink's keyboard is on the seat and its keys are going.
        let end = Date().addingTimeInterval(30)
        while Date() < end, desk.keyboards() == keyboards { usleep(20_000) }
        #expect(desk.keyboards() > keyboards, "the sink's keyboard never came: \(desk.log)")
        desk.stop()
        typist.process.waitUntilExit()
        let stderr = String(decoding: typist.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(typist.process.terminationReason == .exit && typist.process.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains("handsfree: the Wayland display wayland-1 stopped taking keys: the compositor closed the connection")
                || stderr.contains("handsfree: the Wayland display wayland-1 failed"), "\(stderr)")
    }
}

/// A headless sway as `nobody` in a folder of its own, running foot with `cat > FILE` (or several foots,
/// titled `window1`, `window2`, … with files of their own).
final class SwayDesktop {
    static let nobody = "65534"
    let base: String
    let runtime: String
    let file: String
    let sway: Process

    /// The files the foots' `cat` write, in the order they were started (the first is `file`).
    let files: [String]

    init(tag: String, windows: Int = 1) throws {
        let base = NSTemporaryDirectory() + "hf-sway-\(tag)-\(getpid())"
        self.base = base
        runtime = base + "/run"
        file = base + "/out/typed.txt"
        files = [file] + (1..<max(1, windows)).map { base + "/out/typed\($0 + 1).txt" }
        let fm = FileManager.default
        try? fm.removeItem(atPath: base)
        for dir in [runtime, base + "/out", base + "/home"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            // Only nobody's: the runtime folder must be 0700 and the compositor's user must own it.
            try fm.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534, .posixPermissions: 0o700], ofItemAtPath: dir)
        }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        let config = """
        xwayland disable
        output HEADLESS-1 resolution 1280x800
        bindsym Mod4+k exec touch \(base)/out/super-k
        no_focus [app_id="blip"]
        \(files.enumerated().map { "exec foot --title=window\($0.offset + 1) -e sh -c 'cat > \($0.element)'" }.joined(separator: "\n"))

        """
        try config.write(toFile: base + "/config", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: base + "/config")
        _ = fm.createFile(atPath: base + "/sway.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: base + "/sway.log"))
        sway = Process()
        sway.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        sway.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/usr/bin/sway", "-c", base + "/config"]
        sway.environment = ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "XDG_RUNTIME_DIR": runtime,
                            "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"]
        sway.standardOutput = log
        sway.standardError = log
        // A folder nobody may enter: the test's own (a checkout in a 0700 home) is not, and foot, started by
        // sway, changes into its working folder before its shell starts.
        sway.currentDirectoryURL = URL(fileURLWithPath: base + "/home")
        try sway.run()
    }

    var log: String { (try? String(contentsOfFile: base + "/sway.log", encoding: .utf8)) ?? "" }

    /// Waits (up to 60 s: sway and foot start slowly on a loaded machine) for `count` foot windows in sway's
    /// tree: text sent before one exists is lost.
    func waitForFoot(count: Int = 1) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let tree = try? tree(), tree.components(separatedBy: "\"app_id\": \"foot\"").count > count {
                return true
            }
            usleep(100_000)
        }
        return false
    }

    /// Waits (up to 60 s) for a window of `appID` in sway's tree.
    func waitForWindow(appID: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? tree())?.contains("\"app_id\": \"\(appID)\"") == true { return true }
            usleep(100_000)
        }
        return false
    }

    /// `swaymsg -t get_tree`, run as nobody on sway's socket.
    func tree() throws -> String { try swaymsg("get_tree") }

    /// `swaymsg -t TYPE`, run as nobody on sway's socket ("" before sway made it).
    func swaymsg(_ type: String) throws -> String {
        guard let socket = ipcSocket else { return "" }
        return try asNobody(["/usr/bin/swaymsg", "-t", type], extra: ["SWAYSOCK": socket]).stdout
    }

    /// sway's IPC socket, once sway made it.
    var ipcSocket: String? {
        ((try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []).first { $0.hasPrefix("sway-ipc.") }
            .map { runtime + "/" + $0 }
    }

    /// How many keyboards sway's seat has (`get_inputs`): a sink's virtual keyboard is one more.
    func keyboards() -> Int {
        ((try? swaymsg("get_inputs")) ?? "").components(separatedBy: "\"type\": \"keyboard\"").count - 1
    }

    /// The windows in sway's tree: each one's name (its title), whether it has the focus, and its rectangle.
    func windows() throws -> [(name: String, focused: Bool, x: Double, y: Double, width: Double, height: Double)] {
        guard let root = try JSONSerialization.jsonObject(with: Data(try tree().utf8)) as? [String: Any] else { return [] }
        var found: [(name: String, focused: Bool, x: Double, y: Double, width: Double, height: Double)] = []
        func walk(_ node: [String: Any]) {
            if node["app_id"] is String, let rect = node["rect"] as? [String: Any] {
                func number(_ key: String) -> Double { (rect[key] as? NSNumber)?.doubleValue ?? -1 }
                found.append((node["name"] as? String ?? "", node["focused"] as? Bool ?? false,
                              number("x"), number("y"), number("width"), number("height")))
            }
            for child in (node["nodes"] as? [[String: Any]] ?? []) + (node["floating_nodes"] as? [[String: Any]] ?? []) {
                walk(child)
            }
        }
        walk(root)
        return found
    }

    /// FILE (or `path`) once it holds `expected` (up to 30 s, and while `going` holds), else what it holds then.
    func waitForFile(_ expected: String, path: String? = nil, while going: () -> Bool = { true }) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            text = typed(path)
            if text == expected || !going() { break }
            usleep(100_000)
        }
        return text
    }

    /// What FILE (or `path`) holds now.
    func typed(_ path: String? = nil) -> String {
        (try? String(contentsOfFile: path ?? file, encoding: .utf8)) ?? ""
    }

    private func environment(layout: String?, extra: [String: String]) -> [String: String] {
        var env = ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1"]
        // As sway gives it to the programs it starts: the sink asks it which window has the focus.
        if let socket = ipcSocket { env["SWAYSOCK"] = socket }
        if let layout { env["XKB_DEFAULT_LAYOUT"] = layout }
        return env.merging(extra) { $1 }
    }

    /// `program` as nobody can run it: a system program as it is; anything else (the built binary, in a
    /// checkout nobody may enter) copied into this desktop's own world-readable folder, and run from there.
    private func runnable(_ program: String) throws -> String {
        guard !program.hasPrefix("/usr/"), !program.hasPrefix("/bin/") else { return program }
        let fm = FileManager.default
        let copy = base + "/bin/" + (program as NSString).lastPathComponent
        if !fm.fileExists(atPath: copy) {
            try fm.createDirectory(atPath: base + "/bin", withIntermediateDirectories: true)
            // A hard link where it can be made: a copy is a file open for writing, and a child another test
            // forks meanwhile keeps it open until its own exec, so running the copy could fail with
            // ETXTBSY (setpriv's exit 126).
            if link(program, copy) != 0 { try fm.copyItem(atPath: program, toPath: copy) }
            try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base + "/bin")
            if !fm.isExecutableFile(atPath: copy) { try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy) }
        }
        return copy
    }

    /// Starts `argv` as nobody, connected to this desktop, in a folder of its own.
    func startAsNobody(_ argv: [String], layout: String? = nil, extra: [String: String] = [:]) throws -> (process: Process, stdout: Pipe, stderr: Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let program = try argv.first.map { try runnable($0) }
        p.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"] + (program.map { [$0] } ?? []) + argv.dropFirst()
        p.currentDirectoryURL = URL(fileURLWithPath: base + "/home")
        p.environment = environment(layout: layout, extra: extra)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return (p, out, err)
    }

    /// Runs `argv` as nobody to its end.
    func asNobody(_ argv: [String], layout: String? = nil, extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        // A copy just written can be busy for a moment (see `runnable`): that exec is tried again.
        for _ in 0..<20 {
            let r = try runOnceAsNobody(argv, layout: layout, extra: extra)
            guard r.status == 126, r.stderr.contains("Text file busy") else { return r }
            usleep(50_000)   // another test's child holds the copy open until its exec
        }
        return try runOnceAsNobody(argv, layout: layout, extra: extra)
    }

    private func runOnceAsNobody(_ argv: [String], layout: String?, extra: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let (p, out, err) = try startAsNobody(argv, layout: layout, extra: extra)
        // Both pipes at once, so neither fills while the other is waited on.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// The process id of the first foot, found by the FILE its command line names.
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

    /// Ends sway (foot goes with it) and removes the folder.
    func stop() {
        // SIGKILL: a child inherits the blocked signals of the test's thread, and SIGTERM would stay pending.
        if sway.isRunning { kill(sway.processIdentifier, SIGKILL); sway.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: base)
    }
}
