#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 46: `handsfree controls` reads and presses the controls of real windows on a real accessibility bus:
/// a D-Bus session of its own (dbus-daemon, as `dbus-run-session` starts it), Xvfb, the AT-SPI bus launcher,
/// and GTK 3 applications (zenity, `python/controls_app.py` through the Debian python with python3-gi), which
/// find the bus and load their bridge themselves.
@Suite(.serialized) struct ControlsOnTheBusTests {
    static let binary = AppsE2E.binary
    static let python = "/usr/bin/python3"
    static let app = AppsE2E.root + "/python/controls_app.py"
    static let ready = FileManager.default.isExecutableFile(atPath: binary)
        && ["/usr/bin/Xvfb", "/usr/bin/dbus-daemon", "/usr/libexec/at-spi-bus-launcher", "/usr/bin/zenity", python]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
    static let reason: Comment = "needs .build/debug/handsfree, Xvfb, dbus, at-spi2-core, zenity and python3-gi with GTK 3 (scripts/install-deps.sh)"

    @Test(.enabled(if: ready, reason)) func zenitysButtonsAreListedAndPressingSendByNameEndsTheDialogWithYes() throws {
        let desk = try AccessibleDesktop(tag: "zenity")
        defer { desk.stop() }
        let dialog = try desk.start("/usr/bin/zenity", ["--question", "--ok-label", "Send", "--cancel-label", "Cancel", "--text", "Send it?"])
        let listing = try #require(desk.waitForControls { $0.contains("Send") && $0.contains("Cancel") }, "zenity's buttons never showed: \(desk.last)")
        #expect(listing.contains("zenity \"Question\""), "\(listing)")
        #expect(listing.range(of: #"\d+  button +Send .*\(click\)  at \d+,\d+ \d+x\d+"#, options: .regularExpression) != nil, "\(listing)")

        let pressed = try desk.handsfree(["controls", "--press", "send"])
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(pressed.stdout == "Send: click\n")
        #expect(desk.waitForExit(dialog) == 0, "zenity did not end with Send's status 0")
    }

    @Test(.enabled(if: ready, reason)) func pressingCancelByNumberEndsTheDialogWithNo() throws {
        let desk = try AccessibleDesktop(tag: "cancel")
        defer { desk.stop() }
        let dialog = try desk.start("/usr/bin/zenity", ["--question", "--ok-label", "Send", "--cancel-label", "Cancel", "--text", "Send it?"])
        let json = try #require(desk.waitForJSON { ($0["controls"] as? [[String: Any]])?.count == 2 }, "zenity never listed: \(desk.last)")
        let controls = try #require(json["controls"] as? [[String: Any]])
        let cancel = try #require(controls.first { $0["name"] as? String == "Cancel" })
        #expect(cancel["role"] as? String == "button")
        #expect(cancel["toolkitRole"] as? String == "push button")
        #expect(cancel["actions"] as? [String] == ["click"])
        let extents = try #require(cancel["extents"] as? [String: Int])
        #expect((extents["width"] ?? 0) > 0 && (extents["height"] ?? 0) > 0, "\(extents)")
        let number = try #require(cancel["number"] as? Int)

        let pressed = try desk.handsfree(["controls", "--press", String(number)])
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(desk.waitForExit(dialog) == 1, "zenity did not end with Cancel's status 1")
    }

    @Test(.enabled(if: ready, reason)) func aFormsFieldTakesTypedTextItsCheckBoxTogglesAndAMenuItemIsChosen() throws {
        let desk = try AccessibleDesktop(tag: "form")
        defer { desk.stop() }
        let out = try desk.startApp("form")
        let listing = try #require(desk.waitForControls { $0.contains("Submit") }, "the form never listed: \(desk.last)")
        for line in ["menu           File", "text field     Name", "password field Password", "check box      Remember me",
                     "combo box      Colour", "button         Submit"] {
            #expect(listing.contains(line), "missing \(line) in\n\(listing)")
        }
        #expect(!listing.contains("Open"), "a closed menu's items are not listed:\n\(listing)")

        // A text field is focused, not activated: what the X11 sink types next goes there.
        let focus = try desk.handsfree(["controls", "--press", "Name"])
        #expect(focus.status == 0 && focus.stdout == "Name: focused\n", "\(focus.stdout)\(focus.stderr)")
        let typed = try desk.handsfree(["type", "--into", "x11", "hello there"])
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(desk.waitForLine(out, "name=hello there"), "\(AccessibleDesktop.contents(out))")

        let check = try desk.handsfree(["controls", "--press", "remember me"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(desk.waitForLine(out, "remember=True"), "\(AccessibleDesktop.contents(out))")
        #expect(desk.waitForControls { $0.contains("Remember me  [checked]") } != nil, "the check box's new state was not read back: \(desk.last)")

        // "open File": the menu opens, its items become the list, and one is chosen.
        let open = try desk.handsfree(["controls", "--press", "File"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(desk.waitForControls { $0.contains("menu item      Open") && $0.contains("menu item      Quit") } != nil,
                "the open menu's items were not listed: \(desk.last)")
        let choose = try desk.handsfree(["controls", "--press", "Open"])
        #expect(choose.status == 0, "\(choose.stderr)")
        #expect(desk.waitForLine(out, "menu=Open"), "\(AccessibleDesktop.contents(out))")
    }

    @Test(.enabled(if: ready, reason)) func aPasswordFieldsTextIsNeverRead() throws {
        let desk = try AccessibleDesktop(tag: "password")
        defer { desk.stop() }
        let out = try desk.startApp("form")
        _ = try #require(desk.waitForControls { $0.contains("Password") }, "the form never listed: \(desk.last)")
        let focus = try desk.handsfree(["controls", "--press", "Password"])
        #expect(focus.status == 0, "\(focus.stderr)")
        let secret = "hunter2secret"
        #expect(try desk.handsfree(["type", "--into", "x11", secret]).status == 0)
        #expect(desk.waitForLine(out, "password-length=\(secret.count)"), "\(AccessibleDesktop.contents(out))")
        let json = try desk.handsfree(["controls", "--json"])
        let text = try desk.handsfree(["controls"])
        #expect(json.stdout.contains("\"password field\""), "\(json.stdout)")
        for shown in [json.stdout, json.stderr, text.stdout, text.stderr] {
            #expect(!shown.contains(secret) && !shown.contains("hunter"), "the password's text was shown: \(shown)")
        }
    }

    @Test(.enabled(if: ready, reason)) func hostileNamesAreCleanedCutOrReplacedAndDuplicatesAreToldApartByNumber() throws {
        let desk = try AccessibleDesktop(tag: "hostile")
        defer { desk.stop() }
        let out = try desk.startApp("hostile")
        let listing = try #require(desk.waitForControls { $0.contains("OK") }, "the window never listed: \(desk.last)")
        // No escape or control character reaches the terminal: only the name's plain words are left.
        #expect(!listing.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                "\(listing.debugDescription)")
        #expect(listing.contains("button         Red alert now"), "\(listing)")
        #expect(listing.contains("button         Bell and back space"), "\(listing)")
        let long = try #require(listing.split(separator: "\n").first { $0.contains("LLLL") })
        #expect(long.count < 250 && long.contains("L…"), "a 10,000-character name is cut: \(long.count) characters")
        #expect(listing.contains("button         button 4"), "an unnamed button is named by its role and place:\n\(listing)")

        let twice = try desk.handsfree(["controls", "--press", "OK"])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("2 controls in") && twice.stderr.contains("are called \"OK\" (5 OK, 6 OK): say which by number"), "\(twice.stderr)")
        let none = try desk.handsfree(["controls", "--press", "Launch missiles"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("is called \"Launch missiles\""), "\(none.stderr)")
        #expect(AccessibleDesktop.contents(out) == "ready\n", "nothing may be pressed by a name that matches nothing or twice")

        #expect(try desk.handsfree(["controls", "--press", "6"]).status == 0)
        #expect(desk.waitForLine(out, "pressed=6"), "\(AccessibleDesktop.contents(out))")
        #expect(try desk.handsfree(["controls", "--press", "button 4"]).status == 0)
        #expect(desk.waitForLine(out, "pressed=4"), "\(AccessibleDesktop.contents(out))")
    }

    @Test(.enabled(if: ready, reason)) func aHungApplicationIsNamedWithinSecondsAndTheCommandEnds() throws {
        let desk = try AccessibleDesktop(tag: "hung")
        defer { desk.stop() }
        let out = try desk.startApp("many", "40")
        _ = try #require(desk.waitForControls { $0.contains("Button 40") }, "the window never listed: \(desk.last)")
        _ = out
        // Stopped, it answers no call: every one times out within a second, and the walk gives up.
        let app = try #require(desk.apps.last)
        kill(app.processIdentifier, SIGSTOP)
        defer { kill(app.processIdentifier, SIGCONT) }
        let started = Date()
        let listed = try desk.handsfree(["controls", "--window", "Many"])
        let took = Date().timeIntervalSince(started)
        #expect(took < 10, "listing a hung application took \(took) s")
        // Named by its accessible name when libatspi has it, else by its process.
        let said = listed.stdout + listed.stderr
        #expect(said.contains("controls_app.py does not answer in time") || said.contains("the program python3 does not answer in time"), "\(said)")
    }

    static let firefox = "/usr/bin/firefox-esr"
    static let hasFirefox = ready && FileManager.default.isExecutableFile(atPath: firefox)

    @Test(.enabled(if: hasFirefox, "needs firefox-esr (scripts/install-deps.sh) besides what the other tests need"))
    func inFirefoxALinkIsFollowedAndAButtonPressedByNameAndTheTitleIsReadBack() throws {
        let desk = try AccessibleDesktop(tag: "firefox")
        defer { desk.stop() }
        let site = desk.base + "/site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>Controls page</title></head><body>
        <p><a href="second.html">Go to the second page</a></p>
        <button onclick="document.title='Message sent'">Send message</button>
        <form><label>Your name <input type="text" name="who"></label>
        <label><input type="checkbox" name="agree"> I agree</label></form>
        </body></html>
        """.write(toFile: site + "/page.html", atomically: true, encoding: .utf8)
        try "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Second page</title></head><body>Arrived.</body></html>"
            .write(toFile: site + "/second.html", atomically: true, encoding: .utf8)
        // The shell says the bus is in use (org.a11y.Status IsEnabled), as screen readers do, before the
        // browser starts: without it Firefox may expose its toolbar and not the page.
        _ = try desk.handsfree(["controls"])
        try FileManager.default.createDirectory(atPath: desk.base + "/profile", withIntermediateDirectories: true)
        _ = try desk.start(Self.firefox, ["--no-remote", "--new-instance", "--profile", desk.base + "/profile", "file://\(site)/page.html"])
        let window = ["--window", "Mozilla Firefox"]
        let lines = ["link           Go to the second page  (jump)", "button         Send message  (press)",
                     "text field     Your name", "check box      I agree  [not checked]  (check)"]
        // Firefox takes some seconds to start, and exposes the page's elements as it builds them.
        var listing = ""
        let end = Date().addingTimeInterval(40)
        while Date() < end {
            listing = try desk.handsfree(["controls"] + window).stdout
            if lines.allSatisfy(listing.contains) { break }
            usleep(250_000)
        }
        #expect(listing.contains("Controls page — Mozilla Firefox"), "\(listing)")
        for line in lines {
            #expect(listing.contains(line), "missing \(line) in\n\(listing)")
        }

        let press = try desk.handsfree(["controls", "--press", "send message"] + window)
        #expect(press.status == 0 && press.stdout == "Send message: press\n", "\(press.stdout)\(press.stderr)")
        #expect(Self.waitForTitle(desk, window, "Message sent — Mozilla Firefox"), "the button did not change the title")

        let follow = try desk.handsfree(["controls", "--press", "Go to the second page"] + window)
        #expect(follow.status == 0 && follow.stdout == "Go to the second page: jump\n", "\(follow.stdout)\(follow.stderr)")
        #expect(Self.waitForTitle(desk, window, "Second page — Mozilla Firefox"), "the link was not followed")
    }

    /// Whether the window's title, read through the bus, becomes `title` within 10 s.
    static func waitForTitle(_ desk: AccessibleDesktop, _ window: [String], _ title: String) -> Bool {
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let listed = try? desk.handsfree(["controls"] + window), listed.stdout.hasPrefix("Firefox \"\(title)\"\n") { return true }
            usleep(100_000)
        }
        return false
    }

    static let hasSway = ready && WaylandSinkInSwayTests.ready

    /// The same dialog on Wayland: headless sway as nobody, and the D-Bus session, the accessibility bus,
    /// zenity and the command as nobody too (a session bus takes only its own user).
    @Test(.enabled(if: hasSway, "needs root, sway and foot (as the Wayland sink's tests) besides what the other tests need"))
    func underSwayTheDialogIsListedAndSendIsPressedByName() throws {
        let desk = try SwayDesktop(tag: "controls")
        var started: [Process] = []
        var session: [String: String] = [:]
        defer { Self.stopNobodysSession(desk, session, started) }
        try #require(desk.waitForFoot(), "sway never showed its first window: \(desk.log)")
        session = try Self.nobodysSession(desk, started: &started)
        let dialog = try desk.startAsNobody(["/usr/bin/zenity", "--question", "--ok-label", "Send", "--cancel-label", "Cancel", "--text", "Send it?"],
                                            extra: session.merging(["GDK_BACKEND": "wayland"]) { $1 })
        started.append(dialog.process)
        var listing = ""
        let end = Date().addingTimeInterval(15)
        while Date() < end {
            listing = try desk.asNobody([Self.binary, "controls"], extra: session).stdout
            if listing.contains("Send") && listing.contains("Cancel") { break }
            usleep(100_000)
        }
        #expect(listing.hasPrefix("zenity \"Question\"\n"), "\(listing)")
        #expect(listing.range(of: #"\d+  button +Send .*\(click\)"#, options: .regularExpression) != nil, "\(listing)")
        let pressed = try desk.asNobody([Self.binary, "controls", "--press", "Send"], extra: session)
        #expect(pressed.status == 0 && pressed.stdout == "Send: click\n", "\(pressed.stdout)\(pressed.stderr)")
        let stop = Date().addingTimeInterval(10)
        while dialog.process.isRunning && Date() < stop { usleep(50_000) }
        #expect(!dialog.process.isRunning && dialog.process.terminationStatus == 0, "zenity did not end with Send's status 0")
    }

    /// Ends what a sway test started as nobody: what runs on its session bus, the processes it started with
    /// their children, then the desktop.
    static func stopNobodysSession(_ desk: SwayDesktop, _ session: [String: String], _ started: [Process]) {
        var pids = session["DBUS_SESSION_BUS_ADDRESS"].map { AccessibleDesktop.startedOn(bus: $0) } ?? []
        for p in started where p.isRunning { pids += [p.processIdentifier] + AccessibleDesktop.descendants(p.processIdentifier) }
        for pid in pids { kill(pid, SIGKILL) }
        desk.stop()
    }

    /// A D-Bus session and the AT-SPI bus launcher as nobody on `desk` (a session bus takes only its own
    /// user); what was started is added to `started`; the session's environment.
    static func nobodysSession(_ desk: SwayDesktop, started: inout [Process]) throws -> [String: String] {
        let bus = try desk.startAsNobody(["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1", "--nosyslog"])
        started.append(bus.process)
        var address = ""
        while !address.contains("\n") {
            let data = bus.stdout.fileHandleForReading.availableData
            if data.isEmpty { break }
            address += String(decoding: data, as: UTF8.self)
        }
        let session = ["DBUS_SESSION_BUS_ADDRESS": address.trimmingCharacters(in: .whitespacesAndNewlines)]
        started.append(try desk.startAsNobody(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], extra: session).process)
        return session
    }

    /// Under sway a GTK window's tabs (no action: clicked through the pointer) are clicked where they are:
    /// GTK gives a Wayland window's extents relative to the window, which the compositor places on the
    /// desktop where it likes.
    @Test(.enabled(if: hasSway, "needs root, sway and foot (as the Wayland sink's tests) besides what the other tests need"))
    func underSwayAControlWithoutAnActionIsClickedAtItsCentre() throws {
        let desk = try SwayDesktop(tag: "controls-tabs")
        var started: [Process] = []
        var session: [String: String] = [:]
        defer { Self.stopNobodysSession(desk, session, started) }
        try #require(desk.waitForFoot(), "sway never showed its first window: \(desk.log)")
        // As sway gives the programs it starts: its socket, where its tree says where windows are.
        let ipc = try #require(try FileManager.default.contentsOfDirectory(atPath: desk.runtime).first { $0.hasPrefix("sway-ipc.") })
        session = try Self.nobodysSession(desk, started: &started).merging(["SWAYSOCK": desk.runtime + "/" + ipc]) { $1 }
        let out = desk.base + "/out/tabs.txt"
        started.append(try desk.startAsNobody([Self.python, Self.app, "tabs", out], extra: session.merging(["GDK_BACKEND": "wayland"]) { $1 }).process)
        var listing = ""
        let end = Date().addingTimeInterval(20)
        while Date() < end {
            listing = try desk.asNobody([Self.binary, "controls"], extra: session).stdout
            if listing.contains("Advanced") && AccessibleDesktop.contents(out).contains("ready") { break }
            usleep(100_000)
        }
        #expect(listing.range(of: #"2  tab +Advanced  at \d+,\d+ \d+x\d+\n"#, options: .regularExpression) != nil, "\(listing)")
        let pressed = try desk.asNobody([Self.binary, "controls", "--press", "advanced"], extra: session)
        #expect(pressed.status == 0 && pressed.stdout == "Advanced: clicked at its centre\n", "\(pressed.stdout)\(pressed.stderr)")
        let done = Date().addingTimeInterval(10)
        while !AccessibleDesktop.contents(out).contains("tab=1") && Date() < done { usleep(50_000) }
        #expect(AccessibleDesktop.contents(out).contains("tab=1"),
                "the pointer's click did not switch the tab: \(AccessibleDesktop.contents(out))\n\(listing)\n\((try? desk.windows()).map { "\($0)" } ?? "")")
    }

    static let shellReady = ready && Tmux.available

    /// The shell on the Desktop screen in tmux, on this desktop, reading frames from a UDP port.
    static func startShell(_ desk: AccessibleDesktop, _ session: Tmux, port: UInt16, extra: String = "") throws -> String {
        let dir = desk.base + "/shell"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try session.start("env DISPLAY=\(desk.display) DBUS_SESSION_BUS_ADDRESS=\(desk.sessionBus) "
                          + TerminalInTmuxTests.shell(in: dir, "--desktop --output x11 --listen udp://127.0.0.1:\(port) \(extra)"))
        return dir
    }

    /// Where on the screen a line holding `text` is, in cells (the middle of the text), or nil.
    static func cell(of text: String, in lines: [String], below row: Int = 1) -> (Double, Double)? {
        for (y, line) in lines.enumerated() where y > row {
            if let r = line.range(of: text) {
                let x = line[..<r.lowerBound].count
                return (Double(x) + Double(text.count) / 2, Double(y) + 0.5)
            }
        }
        return nil
    }

    /// Opens the Controls view with the ☰ Controls key (gaze and jaw), and waits for `entry` in the list.
    static func openControls(_ session: Tmux, _ sender: UDPSender, entry: String) throws -> [String] {
        let boxes = try targets(try run([binary, "layout", "--screen", "desktop", "--size", "100x30"]))
        let key = try #require(boxes["desktop.controls"], "the Desktop screen has no Controls key")
        sender.play(key.center, [:], 1.2)   // safe start: a still face first
        TerminalInTmuxTests.press("desktop.controls", boxes, sender)
        var shown: [String] = []
        #expect(session.waitFor { shown = $0; return $0.contains { $0.contains(entry) } },
                "the Controls view did not list \(entry):\n\(session.screen)")
        return shown
    }

    @Test(.enabled(if: shellReady, "needs tmux besides what the other tests need"))
    func gazeAndJawOnTheControlsListEndTheDialogWithSend() throws {
        let desk = try AccessibleDesktop(tag: "view")
        defer { desk.stop() }
        let dialog = try desk.start("/usr/bin/zenity", ["--question", "--ok-label", "Send", "--cancel-label", "Cancel", "--text", "Send it?"])
        _ = try #require(desk.waitForControls { $0.contains("Send") }, "zenity never listed: \(desk.last)")
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-controls-view-\(getpid())")
        defer { session.kill() }
        _ = try Self.startShell(desk, session, port: port)
        #expect(session.waitFor { $0.first?.contains("Home › Desktop") == true }, "no Desktop screen:\n\(session.screen)")
        let sender = try UDPSender(port: port)
        let shown = try Self.openControls(session, sender, entry: "2  Send")
        #expect(shown.contains { $0.contains("Controls of zenity: Question") }, "\(shown.joined(separator: "\n"))")
        #expect(shown.contains { $0.contains("Buttons") } && shown.contains { $0.contains("1  Cancel") }, "\(shown.joined(separator: "\n"))")
        let send = try #require(Self.cell(of: "2  Send", in: shown))
        sender.play(send, [:], 0.6)
        sender.play(send, ["jawOpen": 0.8], 0.45)
        sender.play(send, [:], 0.3)
        #expect(desk.waitForExit(dialog) == 0, "zenity did not end with Send's status 0:\n\(session.screen)")
    }

    @Test(.enabled(if: shellReady, "needs tmux besides what the other tests need"))
    func theListFollowsACheckBoxItTogglesAndAPasswordFieldTurnsTheComposerPrivate() throws {
        let desk = try AccessibleDesktop(tag: "follow")
        defer { desk.stop() }
        let out = try desk.startApp("form")
        _ = try #require(desk.waitForControls { $0.contains("Submit") }, "the form never listed: \(desk.last)")
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-controls-follow-\(getpid())")
        defer { session.kill() }
        _ = try Self.startShell(desk, session, port: port)
        #expect(session.waitFor { $0.first?.contains("Home › Desktop") == true }, "no Desktop screen:\n\(session.screen)")
        let sender = try UDPSender(port: port)
        let shown = try Self.openControls(session, sender, entry: "4  ☐ Remember me")
        func press(_ text: String, in lines: [String]) throws {
            let at = try #require(Self.cell(of: text, in: lines), "no \(text) on the screen")
            sender.play(at, [:], 0.6)
            sender.play(at, ["jawOpen": 0.8], 0.45)
            sender.play(at, [:], 0.3)
        }
        try press("4  ☐ Remember me", in: shown)
        #expect(desk.waitForLine(out, "remember=True"), "\(AccessibleDesktop.contents(out))")
        // The bus says the state changed; the list is read again and shows it, with no action of the user.
        var now: [String] = []
        #expect(session.waitFor(seconds: 5) { now = $0; return $0.contains { $0.contains("4  ☑ Remember me") } },
                "the list did not follow the check box:\n\(session.screen)")
        try press("3  Password", in: now)
        #expect(session.waitFor { $0.first?.contains("Desktop · private") == true }, "the composer did not turn private:\n\(session.screen)")
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 0.5)
        let secret = "hunter2"
        let typed = try desk.handsfree(["type", "--into", "x11", secret])
        #expect(typed.status == 0)
        #expect(desk.waitForLine(out, "password-length=\(secret.count)"), "the focused password field did not take the keys: \(AccessibleDesktop.contents(out))")
        #expect(!session.screen.contains(secret))
    }

    @Test(.enabled(if: shellReady && SpeechInTmuxTests.canSynthesise, "needs tmux, flite and sox besides what the other tests need"))
    func sayingClickSendEndsTheDialogThroughTheRealRecogniser() throws {
        let desk = try AccessibleDesktop(tag: "voice")
        defer { desk.stop() }
        let dialog = try desk.start("/usr/bin/zenity", ["--question", "--ok-label", "Send", "--cancel-label", "Cancel", "--text", "Send it?"])
        _ = try #require(desk.waitForControls { $0.contains("Send") }, "zenity never listed: \(desk.last)")
        try SpeechInTmuxTests.speak("click send", to: desk.base + "/cmd.wav", pad: ["pad", "0.3", "0.5"])
        let port = try freeUDPPort()
        let session = Tmux(name: "hf-controls-voice-\(getpid())")
        defer { session.kill() }
        _ = try Self.startShell(desk, session, port: port, extra: "--audio \(desk.base)/cmd.wav")
        #expect(session.waitFor(seconds: 15) { $0.contains { $0.contains("audio cmd.wav") } }, "speech did not load:\n\(session.screen)")
        let sender = try UDPSender(port: port)
        _ = try Self.openControls(session, sender, entry: "2  Send")
        // Push-to-talk (the brows) while looking at nothing in particular: the file then plays.
        sender.play(gaze: (0.5, 0.02), blend: ["browInnerUp": 0.9], seconds: 0.8)
        sender.play(gaze: (0.5, 0.02), blend: [:], seconds: 0.2)
        #expect(desk.waitForExit(dialog) == 0, "\"click send\" did not end zenity with Send's status 0:\n\(session.screen)")
    }

    @Test(.enabled(if: ready, reason)) func aControlWithoutAnActionIsClickedAtItsCentreThroughThePointer() throws {
        let desk = try AccessibleDesktop(tag: "tabs")
        defer { desk.stop() }
        let out = try desk.startApp("tabs")
        let listing = try #require(desk.waitForControls { $0.contains("Advanced") }, "the window never listed: \(desk.last)")
        // GTK's notebook tabs offer no action: only their place on the screen.
        #expect(listing.range(of: #"2  tab +Advanced  at \d+,\d+ \d+x\d+\n"#, options: .regularExpression) != nil, "\(listing)")
        let press = try desk.handsfree(["controls", "--press", "advanced"])
        #expect(press.status == 0 && press.stdout == "Advanced: clicked at its centre\n", "\(press.stdout)\(press.stderr)")
        #expect(desk.waitForLine(out, "tab=1"), "the pointer's click did not switch the tab: \(AccessibleDesktop.contents(out))")
    }

    @Test(.enabled(if: ready, reason)) func aListOf100000RowsIsCutNotWalkedAndTheButtonAfterItIsPressed() throws {
        let desk = try AccessibleDesktop(tag: "huge")
        defer { desk.stop() }
        let out = try desk.startApp("huge", "100000")
        let started = Date()
        let listing = try #require(desk.waitForControls { $0.contains("Done") }, "the window never listed: \(desk.last)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(listing.contains("list item      Row 1 "), "\(listing)")
        #expect(!listing.contains("Row 100000"), "a list of 100,000 rows is cut")
        #expect(listing.contains("has more elements than are read: the list shows the first part"), "\(listing)")
        let took = Date()
        let press = try desk.handsfree(["controls", "--press", "Done"])
        #expect(press.status == 0, "\(press.stderr)")
        #expect(Date().timeIntervalSince(took) < 5, "listing and pressing took \(Date().timeIntervalSince(took)) s")
        #expect(desk.waitForLine(out, "done"), "\(AccessibleDesktop.contents(out))")
    }

    @Test(.enabled(if: ready, reason)) func withoutABusTheCommandSaysSoAndExitsOne() throws {
        let none = try AccessibleDesktop.run(Self.binary, ["controls"], environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        #expect(none.status == 1)
        #expect(none.stderr == "handsfree: there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)\n", "\(none.stderr)")
        let dead = try AccessibleDesktop.run(Self.binary, ["controls", "--press", "Send"],
                                             environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(dead.status == 1)
        #expect(dead.stderr.hasPrefix("handsfree: the D-Bus session does not answer ("), "\(dead.stderr)")
    }
}

/// A desktop with an accessibility bus, of its own: a D-Bus session daemon, Xvfb (a display it picks), the
/// AT-SPI bus launcher, and the applications a test starts; everything it started is killed with its
/// descendants (SIGKILL: the test's threads block SIGTERM, and children inherit that).
final class AccessibleDesktop {
    let base: String
    let display: String
    let sessionBus: String
    private(set) var apps: [Process] = []
    private var processes: [Process] = []
    /// The last listing read by a `waitFor…`, for failure messages.
    private(set) var last = ""

    init(tag: String) throws {
        base = NSTemporaryDirectory() + "hf-a11y-\(tag)-\(getpid())"
        try? FileManager.default.removeItem(atPath: base)
        try FileManager.default.createDirectory(atPath: base + "/home", withIntermediateDirectories: true)
        // The session bus, as dbus-run-session starts it: it prints its address and its pid once it listens.
        // Not forked: a daemon that forks keeps Foundation's watch on its parent open, which then never ends.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address=1", "--nosyslog"]
        daemon.environment = ["PATH": "/usr/bin:/bin", "HOME": base + "/home"]
        let said = Pipe()
        daemon.standardOutput = said
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        processes.append(daemon)
        var printed = ""
        while !printed.contains("\n") {
            let data = said.fileHandleForReading.availableData
            if data.isEmpty { break }
            printed += String(decoding: data, as: UTF8.self)
        }
        sessionBus = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !sessionBus.isEmpty else { kill(daemon.processIdentifier, SIGKILL); throw CocoaError(.featureUnsupported) }

        let x = Process()
        x.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        x.arguments = ["-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
        let out = Pipe()
        x.standardOutput = out
        x.standardError = FileHandle.nullDevice
        try x.run()
        processes.append(x)
        var text = ""
        while !text.contains("\n") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let n = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(x.processIdentifier, SIGKILL)
            kill(daemon.processIdentifier, SIGKILL)
            throw CocoaError(.featureUnsupported)
        }
        display = ":\(n)"
        processes.append(try spawn("/usr/libexec/at-spi-bus-launcher", ["--launch-immediately"]))
    }

    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": base + "/home", "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": sessionBus,
         "LANG": "C.UTF-8"]
    }

    private func spawn(_ tool: String, _ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.environment = environment
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Ends the AT-SPI bus launcher and the accessibility bus it runs (with what that bus started), and starts
    /// another, as a session does when the launcher dies and is activated again; waits until the session bus
    /// gives the new bus's address.
    func restartBus() throws {
        guard let launcher = processes.first(where: { $0.executableURL?.path == "/usr/libexec/at-spi-bus-launcher" }) else {
            throw CocoaError(.featureUnsupported)
        }
        for pid in Self.descendants(launcher.processIdentifier).reversed() + [launcher.processIdentifier] { kill(pid, SIGKILL) }
        launcher.waitUntilExit()
        processes.removeAll { $0 === launcher }
        processes.append(try spawn("/usr/libexec/at-spi-bus-launcher", ["--launch-immediately"]))
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            let asked = try Self.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus",
                                                        "--method", "org.a11y.Bus.GetAddress"], environment: environment)
            if asked.status == 0 && asked.stdout.contains("unix:") { return }
            usleep(50_000)
        }
        throw CocoaError(.featureUnsupported)
    }

    /// Starts an application on this desktop.
    func start(_ tool: String, _ args: [String]) throws -> Process {
        let p = try spawn(tool, args)
        apps.append(p)
        return p
    }

    /// Starts `python/controls_app.py MODE OUT …` and waits for it to say it shows; returns OUT's path.
    func startApp(_ mode: String, _ extra: String...) throws -> String {
        let out = base + "/\(mode)-\(apps.count).txt"
        _ = try start(ControlsOnTheBusTests.python, [ControlsOnTheBusTests.app, mode, out] + extra)
        #expect(waitForLine(out, "ready"), "controls_app.py \(mode) did not start")
        return out
    }

    /// Runs `handsfree ARGS` on this desktop to its end.
    func handsfree(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Self.run(ControlsOnTheBusTests.binary, args, environment: environment)
    }

    /// Lists the controls until the listing satisfies `done` (up to 15 s: an application registers with the
    /// bus some time after its window shows); the listing, or nil.
    func waitForControls(seconds: Double = 15, _ done: (String) -> Bool) -> String? {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let listed = try? handsfree(["controls"]) {
                last = listed.stdout + listed.stderr
                if done(listed.stdout) { return listed.stdout }
            }
            usleep(100_000)
        }
        return nil
    }

    /// As `waitForControls`, with `--json`.
    func waitForJSON(_ done: ([String: Any]) -> Bool) -> [String: Any]? {
        var found: [String: Any]?
        _ = waitForControls { _ in
            guard let listed = try? handsfree(["controls", "--json"]),
                  let object = try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any] else { return false }
            found = object
            return done(object)
        }
        return found
    }

    func waitForLine(_ file: String, _ line: String) -> Bool {
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if Self.contents(file).split(separator: "\n").contains(Substring(line)) { return true }
            usleep(50_000)
        }
        return false
    }

    /// The exit status of `process` once it ends (up to 10 s), else nil.
    func waitForExit(_ process: Process) -> Int32? {
        let end = Date().addingTimeInterval(10)
        while process.isRunning && Date() < end { usleep(50_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    static func contents(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

    /// Runs a program to its end with both outputs read at once.
    static func run(_ tool: String, _ args: [String], environment: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.environment = environment
        p.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// A process's descendants, from /proc (children of each of its threads).
    static func descendants(_ pid: pid_t) -> [pid_t] {
        var found: [pid_t] = []
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let children = contents("/proc/\(pid)/task/\(task)/children").split(separator: " ").compactMap { pid_t($0) }
            for child in children { found.append(child); found += descendants(child) }
        }
        return found
    }

    /// The processes whose environment holds this session bus's address: what the bus started on demand
    /// (the registry daemon, dconf) leaves its parent, so it is found by the address, which is this test's own.
    static func startedOn(bus address: String) -> [pid_t] {
        let wanted = Data("DBUS_SESSION_BUS_ADDRESS=\(address)\u{0}".utf8)
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap { pid_t($0) }.filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.range(of: wanted) != nil
        }
    }

    /// Kills everything started here, and what those started (the accessibility bus, its registry).
    func stop() {
        var all: [pid_t] = Self.startedOn(bus: sessionBus)
        for p in apps + processes where p.isRunning { all.append(p.processIdentifier) }
        var everything: [pid_t] = []
        for pid in all { everything.append(pid); everything += Self.descendants(pid) }
        for pid in everything { kill(pid, SIGCONT); kill(pid, SIGKILL) }
        for p in apps + processes where p.isRunning { p.waitUntilExit() }
        if display.hasPrefix(":") {
            let n = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(n)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
        }
        try? FileManager.default.removeItem(atPath: base)
    }
}
