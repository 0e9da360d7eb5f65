#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The Wayland sink's pointer against a real compositor: a headless sway (as `nobody`, see
/// WaylandSinkInSwayTests) tiling two foot windows side by side, driven by `handsfree point --into wayland`.
/// Pointing at the window without the focus and clicking gives it the focus, and the next typed text goes
/// to its `cat > FILE`. Also the logo key, which the Desktop screen's chords use: Super+k runs sway's binding.
@Suite(.serialized) struct WaylandPointerInSwayTests {
    static let binary = WaylandSinkInSwayTests.binary

    @Test(.enabled(if: WaylandSinkInSwayTests.ready, WaylandSinkInSwayTests.reason))
    func clickingTheOtherWindowFocusesItAndTextGoesThere() throws {
        let desk = try SwayDesktop(tag: "pointer", windows: 2)
        defer { desk.stop() }
        try #require(desk.waitForFoot(count: 2), "the two foot windows never appeared: \(desk.log)")
        // The windows start in either order: which is where, and which has the focus, comes from sway's tree.
        var windows = try desk.windows()
        try #require(windows.count == 2 && windows.filter(\.focused).count == 1, "\(windows)")
        guard let other = windows.first(where: { !$0.focused }), let index = Int(other.name.dropFirst("window".count))
        else { Issue.record("no unfocused window named windowN: \(windows)"); return }
        // The output is 1280x800 at the origin (the test's sway config).
        let x = (other.x + other.width / 2) / 1280, y = (other.y + other.height / 2) / 800
        let pointed = try desk.asNobody([Self.binary, "point", "--into", "wayland", "move", "\(x)", "\(y)", "click", "left"])
        #expect(pointed.status == 0, "\(pointed.stderr)")
        windows = try desk.windows()
        #expect(windows.first(where: \.focused)?.name == other.name, "\(windows)")

        let typed = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--enter", "pointed at"])
        #expect(typed.status == 0, "\(typed.stderr)")
        let target = desk.files[index - 1], elsewhere = desk.files[2 - index]
        #expect(desk.waitForFile("pointed at\n", path: target) == "pointed at\n")
        #expect(((try? String(contentsOfFile: elsewhere, encoding: .utf8)) ?? "").isEmpty)

        // A relative move, the wheel and a right click go through without an error.
        let more = try desk.asNobody([Self.binary, "point", "--into", "wayland", "by", "-20", "15", "scroll", "3", "-1",
                                      "click", "right", "down", "up"])
        #expect(more.status == 0, "\(more.stderr)")
    }

    @Test(.enabled(if: WaylandSinkInSwayTests.ready, WaylandSinkInSwayTests.reason))
    func aLogoChordIsSuperToSwaysBindings() throws {
        let desk = try SwayDesktop(tag: "logo")
        defer { desk.stop() }
        try #require(desk.waitForFoot(), "foot's window never appeared: \(desk.log)")
        // The test's sway config binds Mod4+k to touching a file.
        let pressed = try desk.asNobody([Self.binary, "type", "--into", "wayland", "--press", "super-k"])
        #expect(pressed.status == 0, "\(pressed.stderr)")
        let marker = desk.base + "/out/super-k"
        var made = false
        let end = Date().addingTimeInterval(5)
        while !made, Date() < end {
            made = FileManager.default.fileExists(atPath: marker)
            if !made { usleep(100_000) }
        }
        #expect(made, "sway never ran the Mod4+k binding")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandSinkInSwayTests.binary),
                   "needs .build/debug/handsfree"))
    func theCommandRefusesAPtyAndUnknownActions() throws {
        for (arguments, message) in [(["--into", "pty", "click"], "pty has no pointer"),
                                     (["--into", "wayland", "jump"], "unknown action \"jump\""),
                                     (["--into", "wayland", "move", "0.5"], "move Y needs a number")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Self.binary)
            p.arguments = ["point"] + arguments
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus != 0 && text.contains(message), "\(arguments): \(text)")
        }
    }
}
