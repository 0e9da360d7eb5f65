#if canImport(Glibc)
import Glibc
#endif
import CUinput
import Foundation
@testable import Runtime
import Shell
import SystemIO
import TerminalModel
import Testing

/// The uinput sink: its events checked byte for byte against the kernel's `struct input_event`, the keys
/// it picks for German and French characters (libxkbcommon with those layouts), its messages, and, where
/// /dev/uinput can be opened, a real device read back.
@Suite struct UinputSinkTests {
    typealias Event = UinputSink.InputEvent

    static func failure(_ body: () throws(OutputSinkError) -> Void) -> String? {
        do { try body(); return nil } catch { return error.description }
    }

    /// Reads `struct input_event` records back with the offsets <linux/input.h> gives.
    static func decode(_ bytes: [UInt8]) -> [Event] {
        let size = hf_ui_event_size()
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            func read<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
                bytes[(start + offset)..<(start + offset + MemoryLayout<T>.size)].withUnsafeBytes { $0.loadUnaligned(as: T.self) }
            }
            return Event(type: read(hf_ui_offset_type(), UInt16.self), code: read(hf_ui_offset_code(), UInt16.self),
                         value: read(hf_ui_offset_value(), Int32.self))
        }
    }

    // MARK: The encoder

    @Test func theEncoderWritesTheKernelsInputEventLayoutAndEndsWithASynReport() {
        // On 64-bit Linux: a 16-byte timeval, then type, code and value.
        #expect(hf_ui_event_size() == 24)
        #expect(hf_ui_offset_time() == 0 && hf_ui_offset_type() == 16 && hf_ui_offset_code() == 18 && hf_ui_offset_value() == 20)
        let events = [Event(type: 1, code: 100, value: 1), Event(type: 1, code: 16, value: 1),
                      Event(type: 3, code: 0, value: 65535), Event(type: 2, code: 8, value: -3)]
        let bytes = UinputSink.encode(events)
        #expect(bytes.count == 5 * hf_ui_event_size())
        #expect(Self.decode(bytes) == events + [Event(type: 0, code: 0, value: 0)])
        // The time is left to the kernel.
        #expect(bytes[0..<16].allSatisfy { $0 == 0 })
        #expect(UinputSink.encode([]) == [UInt8](repeating: 0, count: hf_ui_event_size()))
        var tooSmall = [UInt8](repeating: 0, count: 10)
        let raw = [hf_ui_event(type: 1, code: 30, value: 1)]
        #expect(hf_ui_encode(raw, 1, &tooSmall, tooSmall.count) == 0)
    }

    @Test func aStrokeIsModifiersDownTheKeyDownAndUpThenModifiersUpInReverse() {
        let reports = UinputSink.reports(UinputSink.Stroke(key: 16, modifiers: [29, 100]))
        #expect(reports == [[Event(type: 1, code: 29, value: 1)], [Event(type: 1, code: 100, value: 1)],
                            [Event(type: 1, code: 16, value: 1)], [Event(type: 1, code: 16, value: 0)],
                            [Event(type: 1, code: 100, value: 0)], [Event(type: 1, code: 29, value: 0)]])
    }

    @Test func pointerEventsScaleToTheAxesAndCarryFractions() {
        var rest = (x: 0.0, y: 0.0)
        func reports(_ e: PointerEvent) -> [[Event]] {
            UinputSink.pointerReports(e, remainder: &rest).map(\.events)
        }
        #expect(UinputSink.pointerReports(.moveTo(x: 0.5, y: 1.2), remainder: &rest).map(\.absolute) == [true])
        #expect(reports(.moveTo(x: 0.5, y: 1.2)) == [[Event(type: 3, code: 0, value: 32768), Event(type: 3, code: 1, value: 65535)]])
        #expect(reports(.moveTo(x: -1, y: .nan)) == [[Event(type: 3, code: 0, value: 0), Event(type: 3, code: 1, value: 0)]])
        #expect(reports(.moveBy(dx: 2.6, dy: -0.4)) == [[Event(type: 2, code: 0, value: 2)]])
        #expect(reports(.moveBy(dx: 0.5, dy: -0.7)) == [[Event(type: 2, code: 0, value: 1), Event(type: 2, code: 1, value: -1)]])
        #expect(reports(.button(.right, down: true)) == [[Event(type: 1, code: 0x111, value: 1)]])
        #expect(reports(.click(.left, count: 2)).count == 4)
        // Down is a negative wheel step for the kernel; right is positive.
        #expect(reports(.scroll(dx: 1, dy: 3)) == [[Event(type: 2, code: 8, value: -3), Event(type: 2, code: 6, value: 1)]])
        #expect(UinputSink.pointerReports(.scroll(dx: 0, dy: 0), remainder: &rest).isEmpty)
    }

    // MARK: Layouts

    static let altGr: UInt32 = 100

    /// A character, the layout, and the evdev key (and whether AltGr) that types it there.
    struct Mapping: Sendable, CustomTestStringConvertible {
        var layout: String, c: Character, key: UInt32, altGr: Bool
        init(_ layout: String, _ c: Character, _ key: UInt32, altGr: Bool = false) {
            self.layout = layout; self.c = c; self.key = key; self.altGr = altGr
        }
        var testDescription: String { "\(layout) \(c)" }
    }

    @Test(arguments: [
        Mapping("de", "ä", 40), Mapping("de", "ö", 39), Mapping("de", "ü", 26), Mapping("de", "ß", 12),
        Mapping("de", "€", 18, altGr: true), Mapping("de", "@", 16, altGr: true), Mapping("de", "|", 86, altGr: true),
        Mapping("de", "z", 21), Mapping("de", " ", 57),
        Mapping("fr", "@", 11, altGr: true), Mapping("fr", "|", 7, altGr: true), Mapping("fr", "€", 18, altGr: true),
        Mapping("fr", "ß", 31, altGr: true), Mapping("fr", "a", 16),
    ])
    func germanAndFrenchCharactersMapToTheirKeysAndAltGr(_ m: Mapping) throws {
        let keymap = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": m.layout])
        #expect(UinputSink.stroke(for: m.c, layout: keymap) == [UinputSink.Stroke(key: m.key, modifiers: m.altGr ? [Self.altGr] : [])])
    }

    @Test func shiftIsLeftShiftAndFrenchLacksTheUmlauts() throws {
        let de = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "de"])
        #expect(UinputSink.stroke(for: "Ü", layout: de) == [UinputSink.Stroke(key: 26, modifiers: [42])])
        let fr = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "fr"])
        // French types ä with a dead key: the sink pastes it instead.
        for c: Character in ["ä", "ö", "ü"] { #expect(UinputSink.stroke(for: c, layout: fr) == nil) }
        #expect(try UinputSink.plan("aäb", layout: fr, layoutName: "fr", canPaste: true)
                == [.keys([UinputSink.Stroke(key: 16, modifiers: [])]), .paste("ä"), .keys([UinputSink.Stroke(key: 48, modifiers: [])])])
    }

    @Test func lineEndsAndDeleteFollowTheOneRuleOfEverySink() throws {
        // Issue 49, item 8 (uinput is absent here, so its plan stands for it): CR LF and a lone CR are one
        // Enter each, DEL and BS are Backspace, as through the other sinks (SinksAgreeTests).
        let us = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "us"])
        let a = UinputSink.Stroke(key: 30, modifiers: []), enter = UinputSink.Stroke(key: 28, modifiers: [])
        let backspace = UinputSink.Stroke(key: 14, modifiers: [])
        #expect(try UinputSink.plan("a\r\na\ra\u{7F}\u{08}", layout: us, layoutName: "us", canPaste: false)
                == [.keys([a, enter, a, enter, a, backspace, backspace])])
    }

    @Test func theSinksEnvironmentChoosesTheLayoutNotTheProcesses() throws {
        let us = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "us"])
        #expect(UinputSink.stroke(for: "z", layout: us) == [UinputSink.Stroke(key: 44, modifiers: [])])
        #expect(Self.failure { () throws(OutputSinkError) in _ = try XKBKeymap(environment: ["XKB_DEFAULT_LAYOUT": "no-such-layout"]) }
                == "libxkbcommon could not compile the keyboard layout (check XKB_DEFAULT_LAYOUT)")
    }

    @Test func theSystemKeyboardFileGivesTheLayoutWhenTheEnvironmentNamesNone() {
        let file = """
        # KEYBOARD CONFIGURATION FILE
        XKBMODEL="pc105"
        XKBLAYOUT="de,us"
        XKBVARIANT="nodeadkeys,"
        XKBOPTIONS='grp:alt_shift_toggle,compose:ralt'
        BACKSPACE="guess"
        """
        #expect(UinputSink.systemLayout(file) == ["XKB_DEFAULT_MODEL": "pc105", "XKB_DEFAULT_LAYOUT": "de",
                                                  "XKB_DEFAULT_VARIANT": "nodeadkeys",
                                                  "XKB_DEFAULT_OPTIONS": "grp:alt_shift_toggle,compose:ralt"])
        #expect(UinputSink.systemLayout("").isEmpty)
    }

    // MARK: Messages

    @Test func aCharacterTheLayoutCannotTypeWithoutAClipboardIsAnErrorNamingIt() {
        // No display, so no clipboard tool is looked for; the text is refused before a device is opened.
        let sink = UinputSink(device: "/nonexistent/uinput", environment: ["XKB_DEFAULT_LAYOUT": "us", "PATH": "/usr/bin:/bin"])
        #expect(Self.failure { () throws(OutputSinkError) in try sink.type("naïve") }
                == "cannot type \"ï\" (U+00EF): the keyboard layout (us) has no key for it, and there is no clipboard to paste it through (install wl-clipboard on Wayland or xclip on X11)")
    }

    @Test func theClipboardToolFollowsTheSession() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uinput-clip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for tool in ["wl-copy", "xclip"] {
            _ = FileManager.default.createFile(atPath: dir.path + "/" + tool, contents: Data("#!/bin/sh\n".utf8),
                                           attributes: [.posixPermissions: 0o755])
        }
        #expect(UinputSink.clipboard(environment: ["PATH": dir.path, "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"])
                == [dir.path + "/wl-copy"])
        #expect(UinputSink.clipboard(environment: ["PATH": dir.path, "DISPLAY": ":0"]) == [dir.path + "/xclip", "-selection", "clipboard"])
        #expect(UinputSink.clipboard(environment: ["PATH": dir.path]) == nil)
        #expect(UinputSink.clipboard(environment: ["PATH": "/nonexistent", "DISPLAY": ":0"]) == nil)
    }

    @Test func aMissingOrForbiddenDeviceNamesItAndTheFix() {
        let missing = UinputSink(device: "/nonexistent/uinput", environment: ["XKB_DEFAULT_LAYOUT": "us"])
        #expect(Self.failure { () throws(OutputSinkError) in try missing.check() }
                == "/nonexistent/uinput is missing: the kernel's uinput module is not loaded (sudo modprobe uinput; scripts/install.sh --uinput loads it at every boot and lets you open it), or choose wayland or x11 (--output, --type-into)")
        #expect(UinputSink.openFailure(EACCES, device: "/dev/uinput").description
                == "cannot open /dev/uinput: permission denied (scripts/install.sh --uinput installs a udev rule that lets the logged-in user open it), or choose wayland or x11 (--output, --type-into)")
    }

    @Test func theOptionNamesUinput() throws {
        let choice = try OutputSinks.parse("uinput")
        #expect(choice.kind.scheme == "uinput")
        #expect(choice.open(OutputSetup(command: [])).name == "uinput")
        #expect(OutputSinkTests.refusal("uinput:x") == "uinput takes nothing after it, write uinput")
    }

    // MARK: A real device

    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/uinput"),
                   "needs a writable /dev/uinput (this kernel may lack the uinput module: sudo modprobe uinput)"))
    func aRealDeviceSendsTheKeysAndPointerBack() throws {
        let sink = UinputSink(environment: ["XKB_DEFAULT_LAYOUT": "de"])
        try sink.check()
        let nodes = sink.eventNodes()
        try #require(nodes.count == 2, "no event nodes for the devices: \(nodes)")
        let keyboard = open(nodes[0], O_RDONLY | O_NONBLOCK), pointer = open(nodes[1], O_RDONLY | O_NONBLOCK)
        try #require(keyboard >= 0 && pointer >= 0, "cannot read \(nodes): \(String(cString: strerror(errno)))")
        defer { close(keyboard); close(pointer) }
        try sink.type("z@")
        // The kernel passes on only changed values: both axes start at 0.
        try sink.point(.moveTo(x: 1, y: 0.5))
        /// The events read from `fd` once `count` have come (5 s at most), and any more then waiting.
        func drain(_ fd: Int32, count: Int) -> [Event] {
            var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
            let end = LiveClock().now() + 5
            repeat {
                while case let n = read(fd, &buffer, buffer.count), n > 0 { bytes += buffer.prefix(n) }
                if Self.decode(bytes).filter({ $0.type != 0 }).count >= count { break }
                usleep(5_000)
            } while LiveClock().now() < end
            return Self.decode(bytes).filter { $0.type != 0 }
        }
        // German z is the US y key; @ is AltGr+Q.
        #expect(drain(keyboard, count: 6) == [Event(type: 1, code: 21, value: 1), Event(type: 1, code: 21, value: 0),
                                              Event(type: 1, code: 100, value: 1), Event(type: 1, code: 16, value: 1),
                                              Event(type: 1, code: 16, value: 0), Event(type: 1, code: 100, value: 0)])
        #expect(drain(pointer, count: 2) == [Event(type: 3, code: 0, value: 65535), Event(type: 3, code: 1, value: 32768)])
    }
}
