#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime
import Shell
import Testing

/// The Wayland sink without a compositor: how it is named, and the messages for a missing display, a socket
/// no compositor answers, and a character nothing can type. Typing into a real sway is in
/// EndToEndTests/WaylandSinkInSwayTests.swift.
@Suite struct WaylandSinkTests {
    static func failure(_ body: () throws(OutputSinkError) -> Void) -> String? {
        do throws(OutputSinkError) { try body(); return nil } catch { return error.description }
    }

    @Test func theSocketIsOptionalAndDefaultsToWaylandDisplay() throws {
        let plain = try OutputSinks.parse("wayland")
        #expect(plain.kind.scheme == "wayland" && plain.argument == nil)
        let named = try OutputSinks.parse("wayland:wayland-1")
        #expect((named.open(OutputSetup(command: [])) as? WaylandSink)?.socket == "wayland-1")
        #expect((try? OutputSinks.parse("wayland:")) == nil, "an empty socket is refused")
        #expect(WaylandSink(socket: nil, environment: ["WAYLAND_DISPLAY": "wayland-3"]).name == "wayland wayland-3")
        #expect(WaylandSink(socket: nil, environment: [:]).traits == [])
    }

    @Test func noDisplayIsNamedWithTheFix() {
        let sink = WaylandSink(socket: nil, environment: [:])
        #expect(Self.failure { () throws(OutputSinkError) in try sink.check() }
                == "no Wayland display: WAYLAND_DISPLAY is not set (run inside a Wayland session, or name its socket: wayland:wayland-1)")
        #expect(Self.failure { () throws(OutputSinkError) in try sink.type("x") }?.hasPrefix("no Wayland display") == true)
    }

    @Test func pointingWithoutADisplayOrCompositorIsNamed() throws {
        let sink = WaylandSink(socket: nil, environment: [:])
        #expect(Self.failure { () throws(OutputSinkError) in try sink.point(.moveTo(x: 0.5, y: 0.5)) }?
            .hasPrefix("no Wayland display: WAYLAND_DISPLAY is not set") == true)
        let missing = NSTemporaryDirectory() + "hf-wayland-pointer-\(getpid())/wayland-9"
        #expect(Self.failure { () throws(OutputSinkError) in
            try WaylandSink(socket: missing, environment: [:]).point(.click(.left, count: 1))
        } == "cannot connect to the Wayland display \(missing): No such file or directory (is the compositor running, and is XDG_RUNTIME_DIR its runtime folder?)")
    }

    @Test func aSocketNoCompositorAnswersIsNamed() throws {
        let dir = NSTemporaryDirectory() + "hf-wayland-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = dir + "/wayland-9"
        #expect(Self.failure { () throws(OutputSinkError) in try WaylandSink(socket: missing, environment: [:]).check() }
                == "cannot connect to the Wayland display \(missing): No such file or directory (is the compositor running, and is XDG_RUNTIME_DIR its runtime folder?)")

        // A socket file whose listener is gone, as a compositor that crashed leaves it.
        let stale = dir + "/wayland-8"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in stale.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)
        #expect(bound == 0)
        #expect(Self.failure { () throws(OutputSinkError) in try WaylandSink(socket: stale, environment: [:]).check() }
                == "cannot connect to the Wayland display \(stale): Connection refused (is the compositor running, and is XDG_RUNTIME_DIR its runtime folder?)")
    }

    @Test func aCharacterWithoutAKeySymbolIsRefusedBeforeAnythingIsSent() {
        // No display: the text is refused while it is planned, before a connection is tried. (A noncharacter:
        // XKB gives every other code point a keysym.)
        let sink = WaylandSink(socket: nil, environment: [:])
        #expect(Self.failure { () throws(OutputSinkError) in try sink.type("ok\u{FFFE}") }
                == "cannot type \"\u{FFFE}\" (U+FFFE) at byte 2: XKB has no key symbol for it")
    }
}
