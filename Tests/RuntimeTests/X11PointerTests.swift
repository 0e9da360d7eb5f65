#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PtyHost
import Runtime
import Testing

/// The X11 sink's pointer against a real X server: Xvfb with two xterms side by side and no window manager,
/// so keys go to the window under the pointer (the server's focus is PointerRoot): moving the pointer
/// through the sink decides which `cat > FILE` the typed text reaches.
@Suite(.serialized) struct X11PointerTests {
    typealias XSession = X11SinkTests.XSession

    /// Where the pointer is, as `xdotool getmouselocation --shell` reports it.
    static func location(_ x: XSession) throws -> (x: Int, y: Int) {
        let fields = try x.run("xdotool", ["getmouselocation", "--shell"]).split(separator: "\n")
            .reduce(into: [String: Int]()) { found, line in
                let parts = line.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { found[String(parts[0])] = value }
            }
        return (fields["X"] ?? -1, fields["Y"] ?? -1)
    }

    @Test func fractionsBecomePixelsOfTheScreenClamped() {
        #expect(X11Sink.pixel(0, size: 1280) == 0)
        #expect(X11Sink.pixel(1, size: 1280) == 1279)
        #expect(X11Sink.pixel(0.5, size: 801) == 400)
        #expect(X11Sink.pixel(-3, size: 1280) == 0 && X11Sink.pixel(7, size: 1280) == 1279)
        #expect(X11Sink.pixel(.nan, size: 1280) == 0)
        #expect(X11Sink.pixels(.infinity) == 32_767 && X11Sink.pixels(-2.6) == -3)
    }

    @Test(.enabled(if: X11SinkTests.hasTools, X11SinkTests.skipReason))
    func movingThePointerOverTheSecondWindowSendsTheTypedTextThere() throws {
        let x = try XSession()
        defer { x.stop() }
        // 80x24 xterms are 484x316 pixels with the default font: the second one spans x 660…1143, y 0…315.
        let first = try x.catWindow("first", focus: false, geometry: "80x24+0+0")
        let second = try x.catWindow("second", focus: false, geometry: "80x24+660+0")
        let sink = X11Sink(display: x.display)
        // The screen is 1280x800: the second window's centre, about (902, 158), is x 0.705, y 0.198.
        try sink.point(.moveTo(x: 902.0 / 1279, y: 158.0 / 799))
        let at = try Self.location(x)
        #expect(at.x == 902 && at.y == 158)
        try sink.point(.click(.left, count: 1))
        try sink.type("to the second\n")
        #expect(XSession.contents(of: second, becoming: "to the second\n") == "to the second\n")

        // Back over the first one by a relative move: the next line goes there.
        try sink.point(.moveBy(dx: -660, dy: 0))
        #expect(try Self.location(x) == (242, 158))
        try sink.point(.scroll(dx: 1, dy: -2))
        try sink.point(.click(.left, count: 2))
        try sink.type("to the first\n")
        #expect(XSession.contents(of: first, becoming: "to the first\n") == "to the first\n")
        #expect(XSession.contents(of: second, becoming: "to the second\n", timeout: 0.2) == "to the second\n")

        // Past the edge is clamped to the last pixel.
        try sink.point(.moveTo(x: 2, y: -1))
        #expect(try Self.location(x) == (1279, 0))
    }

    @Test(.enabled(if: X11SinkTests.hasTools && access("/usr/bin/xev", X_OK) == 0, "needs xev (x11-utils) and the X11 tools"))
    func aLogoChordReachesTheWindowUnderThePointerWithSuperHeld() throws {
        let x = try XSession()
        defer { x.stop() }
        // xev prints each key event with the modifier state the window saw: Super is Mod4, state 0x40.
        let log = x.directory.appendingPathComponent("xev.txt")
        let xev = Process()
        xev.executableURL = URL(fileURLWithPath: "/bin/sh")
        xev.arguments = ["-c", "exec /usr/bin/xev -geometry 400x300+0+0 -event keyboard > '\(log.path)'"]
        xev.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": x.display]) { $1 }
        try xev.run()
        // SIGKILL: children of the test process inherit its mask, which blocks SIGTERM.
        defer { kill(xev.processIdentifier, SIGKILL); xev.waitUntilExit() }
        try XSession.wait("xev's window", timeout: 10) {
            !((try? x.run("xdotool", ["search", "--name", "^Event Tester$"])) ?? "").isEmpty
        }
        let sink = X11Sink(display: x.display)
        try sink.point(.moveTo(x: 200.0 / 1279, y: 150.0 / 799))
        try sink.press(TerminalKeyPress(.char("a"), modifiers: .logo))
        try sink.type("b")
        var text = ""
        try? XSession.wait("xev's report", timeout: 5) {
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.contains("keysym 0x62, b")
        }
        #expect(text.contains("state 0x40, keycode 38 (keysym 0x61, a)"), "\(text)")
        // Released after the chord: the next key comes without it.
        #expect(text.contains("state 0x0, keycode 56 (keysym 0x62, b)"), "\(text)")
    }

    @Test func withoutADisplayPointingNamesTheCause() {
        let sink = X11Sink(display: nil, environment: [:])
        #expect(throws: OutputSinkError("no DISPLAY: start an X session or name one, x11::0 (--output, --type-into)")) {
            try sink.point(.moveTo(x: 0.5, y: 0.5))
        }
    }

    @Test(.enabled(if: X11SinkTests.hasTools, X11SinkTests.skipReason))
    func aServerThatGoesAwayIsAPointerErrorNamingTheDisplay() throws {
        let x = try XSession()
        defer { x.stop() }
        let sink = X11Sink(display: x.display)
        try sink.point(.moveTo(x: 0.5, y: 0.5))
        x.killServer()
        let error = #expect(throws: OutputSinkError.self) { try sink.point(.click(.left, count: 1)) }
        #expect(error?.description.contains(x.display) == true, "\(String(describing: error))")
    }
}
