#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Runtime
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

    @Test func theMissingCharactersOfATextGoOnOneKeymapWithTheWholeLayout() throws {
        let us = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "us"])
        let syms = "éàç中✓".unicodeScalars.compactMap(XKBKeymap.keysym)
        #expect(syms.allSatisfy { us.strokes[$0] == nil })
        let both = try us.adding(syms)
        #expect(both.added == Set(syms))
        // Every layout key is where it was, with the same modifiers; each added character has a key of its
        // own, below 256 while the layout leaves some unused.
        for (sym, stroke) in us.strokes { #expect(both.strokes[sym] == stroke) }
        for sym in syms {
            let stroke = try #require(both.strokes[sym])
            #expect(stroke.modifiers == 0 && stroke.key + 8 < 256)
        }
        // Past the unused keycodes the keys go from 256 up.
        let many = (0..<600).compactMap { XKBKeymap.keysym(Unicode.Scalar(0x4E00 + UInt32($0))!) }
        let big = try us.adding(many)
        #expect(many.allSatisfy { big.strokes[$0] != nil })
        #expect(many.contains { (big.strokes[$0]?.key ?? 0) + 8 > 255 })
    }

    @Test(.enabled(if: SinksAgreeTests.hasSway, "needs root (sway runs as nobody through setpriv), sway and foot (scripts/install-deps.sh)"))
    func accentedTextIsOneKeymapChangeAndTheNextTextKeepsIt() throws {
        // Issue 49, item 2: each accented character cost two keymaps of ~60 KB.
        let desk = try HeadlessSway(tag: "keymaps")
        defer { desk.stop() }
        try #require(desk.waitForWindow(), "foot's window never appeared: \(desk.log)")
        let sink = WaylandSink(socket: desk.socket, environment: ["XKB_DEFAULT_LAYOUT": "us"])
        try sink.type("Où est l'été, Zoë? Déjà là: « ça va, garçon »\n")
        #expect(sink.keymapsSent == 2, "the layout, then the layout with the accents")
        try sink.type("ça, là, été\n")
        #expect(sink.keymapsSent == 2, "the accents are on the keymap already")
        let expected = "Où est l'été, Zoë? Déjà là: « ça va, garçon »\nça, là, été\n"
        var got = ""
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            got = (try? String(contentsOfFile: desk.file, encoding: .utf8)) ?? ""
            if got == expected { break }
            usleep(50_000)
        }
        #expect(got == expected)
    }

    @Test func aCharacterWithoutAKeySymbolIsRefusedBeforeAnythingIsSent() {
        // No display: the text is refused while it is planned, before a connection is tried. (A noncharacter:
        // XKB gives every other code point a keysym.)
        let sink = WaylandSink(socket: nil, environment: [:])
        #expect(Self.failure { () throws(OutputSinkError) in try sink.type("ok\u{FFFE}") }
                == "cannot type \"\u{FFFE}\" (U+FFFE) at byte 2: XKB has no key symbol for it")
    }
}
