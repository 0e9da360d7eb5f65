#if canImport(Glibc)
import Glibc
#endif
import CX11
import Foundation
import PtyHost
import Shell

/// The focused window of an X session, keyed through the XTEST extension (`--type-into x11`, or
/// `x11:DISPLAY` for another display than `$DISPLAY`).
///
/// Each character becomes its keysym, typed with the key and shift level the current layout has for it;
/// one the layout cannot type is typed on a spare keycode bound to it for the while (as xdotool does). The
/// connection is opened once and kept. A server that goes away becomes an `OutputSinkError`, never the
/// end of the shell: Xlib would exit the process, so the shim's handlers mark the display lost instead,
/// and the next call opens it again. The only importer of `CX11`.
public final class X11Sink: OutputSink {
    public static let kind = OutputSinkKind(
        scheme: "x11", argument: "DISPLAY", argumentIsOptional: true, example: "x11::0",
        summary: "the focused window of an X session, through XTest: x11 for $DISPLAY, x11::1 for another"
    ) { display, _ in X11Sink(display: display) }

    /// The display keys go to (`:0`, `host:1.0`); nil when neither the option nor `$DISPLAY` named one.
    public let displayName: String?
    /// How many times a spare keycode was bound to a character the layout has no key for.
    public private(set) var borrowedKeys = 0

    /// How long a window gets to read a borrowed keycode's mapping before it is given back: a client looks
    /// the mapping up when it handles the key, which may be after the server has it restored.
    public var bindingGrace: Double = 0.05

    private var display: OpaquePointer?
    /// Set by the shim's exit handler, in the Xlib call that found the connection gone.
    private let lost: UnsafeMutablePointer<Int32>
    private var keyboard = Keyboard()
    /// Spare keycodes bound to a keysym during the current call, given back at its end.
    private var borrowed: [KeySym: KeyCode] = [:]

    /// Xlib made safe for connections used from several threads (the shell uses one, on its loop; tests,
    /// the bench and `handsfree point` may hold several at once), once, before any other Xlib call.
    private static let threads: Bool = XInitThreads() != 0

    public init(display: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        _ = Self.threads
        let chosen = display ?? environment["DISPLAY"]
        displayName = chosen?.isEmpty == false ? chosen : nil
        lost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lost.initialize(to: 0)
    }

    deinit {
        if let display {
            if lost.pointee == 0 { giveBack(display) }
            XCloseDisplay(display)
        }
        lost.deallocate()
    }

    public var name: String { "X11 \(displayName ?? "(no display)")" }
    public var traits: SinkTraits { [] }

    public func check() throws(OutputSinkError) { _ = try connection() }

    /// Nothing to start: the windows run on their own.
    public func start(rows: Int, cols: Int) throws(OutputSinkError) {}

    public func type(_ text: String) throws(OutputSinkError) {
        let display = try connection()
        defer { giveBack(display) }
        try loadKeyboard(display)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r": try tap(display, keysym: KeySym(XK_Return), modifiers: [])
            case "\t": try tap(display, keysym: KeySym(XK_Tab), modifiers: [])
            case "\u{1B}": try tap(display, keysym: KeySym(XK_Escape), modifiers: [])
            case "\u{08}", "\u{7F}": try tap(display, keysym: KeySym(XK_BackSpace), modifiers: [])
            default:
                guard let keysym = Self.keysym(for: scalar) else {
                    throw OutputSinkError("\(name) cannot type U+\(String(scalar.value, radix: 16, uppercase: true)), a control character with no key")
                }
                try tap(display, keysym: keysym, modifiers: [], character: scalar)
            }
        }
    }

    public func press(_ key: TerminalKeyPress) throws(OutputSinkError) {
        let display = try connection()
        defer { giveBack(display) }
        try loadKeyboard(display)
        var modifiers = key.modifiers
        let keysym: KeySym
        var character: Unicode.Scalar?
        switch key.key {
        case .enter: keysym = KeySym(XK_Return)
        case .tab: keysym = KeySym(XK_Tab)
        case .escape: keysym = KeySym(XK_Escape)
        case .backspace: keysym = KeySym(XK_BackSpace)
        case .up: keysym = KeySym(XK_Up)
        case .down: keysym = KeySym(XK_Down)
        case .left: keysym = KeySym(XK_Left)
        case .right: keysym = KeySym(XK_Right)
        case .insert: keysym = KeySym(XK_Insert)
        case .delete: keysym = KeySym(XK_Delete)
        case .home: keysym = KeySym(XK_Home)
        case .end: keysym = KeySym(XK_End)
        case .pageUp: keysym = KeySym(XK_Page_Up)
        case .pageDown: keysym = KeySym(XK_Page_Down)
        case .function(let n):
            guard (1...35).contains(n) else { throw OutputSinkError("\(name) has no key F\(n)") }
            keysym = KeySym(XK_F1) + KeySym(n - 1)
        case .char(let c), .ctrl(let c), .alt(let c):
            var typed = c
            if case .ctrl = key.key {
                modifiers.insert(.ctrl)
                // Ctrl-C is the interrupt whatever case it was named in; Ctrl-Shift-C is another chord.
                typed = Character(c.lowercased())
            }
            if case .alt = key.key { modifiers.insert(.alt) }
            guard typed.unicodeScalars.count == 1, let scalar = typed.unicodeScalars.first,
                  let sym = Self.keysym(for: scalar) else {
                throw OutputSinkError("\(name) cannot press \(String(reflecting: c)) as one key")
            }
            keysym = sym
            character = scalar
        }
        try tap(display, keysym: keysym, modifiers: modifiers, character: character)
    }

    /// Moves the pointer, presses a button or turns the wheel through XTest, and waits until the server has
    /// it, so keys sent next go where the pointer is. Positions are scaled to the default screen.
    public func point(_ event: PointerEvent) throws(OutputSinkError) {
        let display = try connection()
        let what: String
        switch event {
        case .moveTo(let x, let y):
            let screen = XDefaultScreen(display)
            let px = Self.pixel(x, size: Int(XDisplayWidth(display, screen)))
            let py = Self.pixel(y, size: Int(XDisplayHeight(display, screen)))
            XTestFakeMotionEvent(display, screen, Int32(px), Int32(py), 0)
            what = "moving the pointer to \(px),\(py)"
        case .moveBy(let dx, let dy):
            let rx = Self.pixels(dx), ry = Self.pixels(dy)
            XTestFakeRelativeMotionEvent(display, Int32(rx), Int32(ry), 0)
            what = "moving the pointer by \(rx),\(ry)"
        case .button(let button, let down):
            XTestFakeButtonEvent(display, Self.button(button), down ? 1 : 0, 0)
            what = "\(down ? "pressing" : "releasing") the \(button) button"
        case .click(let button, let count):
            for _ in 0..<max(0, count) {
                XTestFakeButtonEvent(display, Self.button(button), 1, 0)
                XTestFakeButtonEvent(display, Self.button(button), 0, 0)
            }
            what = "clicking the \(button) button"
        case .scroll(let dx, let dy):
            // The core protocol has no wheel: each notch is a click of button 4 (up), 5 (down), 6 (left), 7 (right).
            for (steps, less, more) in [(dy, UInt32(4), UInt32(5)), (dx, UInt32(6), UInt32(7))] {
                for _ in 0..<abs(steps) {
                    XTestFakeButtonEvent(display, steps > 0 ? more : less, 1, 0)
                    XTestFakeButtonEvent(display, steps > 0 ? more : less, 0, 0)
                }
            }
            what = "turning the wheel"
        }
        XFlush(display)
        XSync(display, 1)
        try confirm(display, what)
    }

    /// The pixel at `fraction` (clamped to 0…1, NaN counts as 0) of a screen side `size` pixels long.
    public static func pixel(_ fraction: Double, size: Int) -> Int {
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        return Int((clamped * Double(max(0, size - 1))).rounded())
    }

    /// A relative move in whole pixels, kept within what the protocol's 16-bit coordinates can carry.
    public static func pixels(_ delta: Double) -> Int {
        delta.isNaN ? 0 : Int(min(32_767, max(-32_768, delta.rounded())))
    }

    /// The core protocol's number of a button.
    static func button(_ button: PointerButton) -> UInt32 {
        switch button {
        case .left: return 1
        case .middle: return 2
        case .right: return 3
        }
    }

    // MARK: Characters and keysyms

    /// The keysym that types `scalar`: Latin-1 keysyms are the code point, a few others have keysyms of
    /// their own that layouts use (`EuroSign`), the rest are Unicode keysyms (0x01000000 + code point).
    /// Nil for a control character.
    public static func keysym(for scalar: Unicode.Scalar) -> KeySym? {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return nil }
        if v < 0x100 { return KeySym(v) }
        return legacyKeysyms[v] ?? KeySym(0x0100_0000 + v)
    }

    /// Every keysym a layout may type `scalar` with: the legacy one and the Unicode one.
    static func keysyms(for scalar: Unicode.Scalar) -> [KeySym] {
        guard let first = keysym(for: scalar) else { return [] }
        let unicode = KeySym(0x0100_0000 + scalar.value)
        return first == unicode || scalar.value < 0x100 ? [first] : [first, unicode]
    }

    /// Keysyms older than the Unicode ones that common layouts put on keys (keysymdef.h).
    static let legacyKeysyms: [UInt32: KeySym] = [
        0x20AC: 0x20AC,                                    // € EuroSign
        0x0152: 0x13BC, 0x0153: 0x13BD, 0x0178: 0x13BE,    // Œ œ Ÿ
        0x2013: 0xAAA, 0x2014: 0xAA9, 0x2026: 0xAAE,       // – — …
        0x2018: 0xAD0, 0x2019: 0xAD1, 0x201C: 0xAD2, 0x201D: 0xAD3, 0x201E: 0xAFE, 0x201A: 0xAFD,
        0x0104: 0x1A1, 0x0105: 0x1B1, 0x0141: 0x1A3, 0x0142: 0x1B3, 0x015A: 0x1A6, 0x015B: 0x1B6,
        0x0160: 0x1A9, 0x0161: 0x1B9, 0x017D: 0x1AE, 0x017E: 0x1BE, 0x017B: 0x1AF, 0x017C: 0x1BF,
        0x0106: 0x1C6, 0x0107: 0x1E6, 0x010C: 0x1C8, 0x010D: 0x1E8, 0x0118: 0x1CA, 0x0119: 0x1EA,
        0x011A: 0x1CC, 0x011B: 0x1EC, 0x0143: 0x1D1, 0x0144: 0x1F1, 0x0158: 0x1D8, 0x0159: 0x1F8,
        0x016E: 0x1D9, 0x016F: 0x1F9, 0x0150: 0x1D5, 0x0151: 0x1F5, 0x0170: 0x1DB, 0x0171: 0x1FB,
    ]

    // MARK: The connection

    /// The open display, opened (and checked for XTEST) on first use or after it was lost.
    private func connection() throws(OutputSinkError) -> OpaquePointer {
        if let display {
            guard lost.pointee != 0 else { return display }
            // Closing a lost connection only frees it: the server is not asked anything.
            XCloseDisplay(display)
            self.display = nil
        }
        guard let displayName else {
            throw OutputSinkError("no DISPLAY: start an X session or name one, x11::0 (--output, --type-into)")
        }
        guard let opened = XOpenDisplay(displayName) else {
            throw OutputSinkError("cannot open X display \(displayName): is its server running, and may this user reach it (xhost, XAUTHORITY)? Or name another, x11::0 (--output, --type-into)")
        }
        var event: Int32 = 0, error: Int32 = 0, major: Int32 = 0, minor: Int32 = 0
        guard XTestQueryExtension(opened, &event, &error, &major, &minor) != 0 else {
            XCloseDisplay(opened)
            throw OutputSinkError("X display \(displayName) has no XTEST extension: start its server with it (Xorg and Xvfb have it unless told -extension XTEST)")
        }
        lost.pointee = 0
        handsfree_x11_watch(opened, lost)
        display = opened
        return opened
    }

    /// Throws if the last call found the server gone, or refused a request.
    private func confirm(_ display: OpaquePointer, _ doing: @autoclosure () -> String) throws(OutputSinkError) {
        if lost.pointee != 0 {
            throw OutputSinkError("X display \(displayName ?? "") went away while \(doing()): its server ended or the connection broke")
        }
        let code = handsfree_x11_error_slot().pointee
        if code != 0 {
            handsfree_x11_error_slot().pointee = 0
            throw OutputSinkError("X display \(displayName ?? "") refused \(doing()) (X error \(code))")
        }
    }

    // MARK: The keyboard

    /// A key that types a keysym: its keycode and the column of the core mapping it is in.
    struct Key: Equatable {
        var code: KeyCode
        /// 0 plain, 1 Shift, 4 the third level (AltGr), 5 third level and Shift.
        var column: Int
    }

    /// The server's keyboard mapping as this sink reads it.
    struct Keyboard {
        var minCode = 8, maxCode = 255, perCode = 0
        var symbols: [KeySym] = []
        /// The first key with each keysym, plain before Shift before AltGr.
        var keys: [KeySym: Key] = [:]

        /// The keysym at keycode `code`, column `column`.
        func symbol(_ code: Int, _ column: Int) -> KeySym {
            column < perCode && (minCode...maxCode).contains(code) ? symbols[(code - minCode) * perCode + column] : 0
        }

        /// Keycodes with no keysym at all, free to borrow.
        var spare: [KeyCode] {
            (minCode...maxCode).filter { c in (0..<perCode).allSatisfy { symbol(c, $0) == 0 } }.map { KeyCode($0) }
        }
    }

    /// Reads the layout as it is now: the user may have switched it (setxkbmap) since the last call.
    private func loadKeyboard(_ display: OpaquePointer) throws(OutputSinkError) {
        var lo: Int32 = 0, hi: Int32 = 0, per: Int32 = 0
        XDisplayKeycodes(display, &lo, &hi)
        let map = XGetKeyboardMapping(display, KeyCode(truncatingIfNeeded: lo), hi - lo + 1, &per)
        try confirm(display, "reading the keyboard mapping")
        guard let map, per > 0, hi >= lo else {
            throw OutputSinkError("X display \(displayName ?? "") gave no keyboard mapping")
        }
        defer { XFree(map) }
        var k = Keyboard(minCode: Int(lo), maxCode: Int(hi), perCode: Int(per))
        k.symbols = Array(UnsafeBufferPointer(start: map, count: Int(hi - lo + 1) * Int(per)))
        // Columns 2 and 3 are the second group, which needs a group switch; 4 and 5 are the first group's
        // third and fourth levels.
        for column in [0, 1, 4, 5] where column < k.perCode {
            for code in k.minCode...k.maxCode {
                let s = k.symbol(code, column)
                if s != 0, k.keys[s] == nil { k.keys[s] = Key(code: KeyCode(code), column: column) }
            }
        }
        keyboard = k
    }

    /// The keycode that holds a modifier down.
    private func modifierCode(_ keysyms: [Int32], _ what: String) throws(OutputSinkError) -> KeyCode {
        for s in keysyms { if let key = keyboard.keys[KeySym(s)], key.column == 0 { return key.code } }
        throw OutputSinkError("the keyboard of X display \(displayName ?? "") has no \(what) key")
    }

    /// Presses and releases the key for `keysym` with `modifiers` and its shift level held, then waits
    /// for the server to have it, so keys arrive in order.
    private func tap(_ display: OpaquePointer, keysym: KeySym, modifiers: TerminalModifiers,
                     character: Unicode.Scalar? = nil) throws(OutputSinkError) {
        let named = character.map { String(reflecting: Character($0)) } ?? "keysym 0x\(String(keysym, radix: 16))"
        let what = character == nil ? "pressing \(named)" : "typing \(named)"
        var held: [KeyCode] = []
        if modifiers.contains(.ctrl) { held.append(try modifierCode([XK_Control_L, XK_Control_R], "Control")) }
        if modifiers.contains(.alt) { held.append(try modifierCode([XK_Alt_L, XK_Meta_L, XK_Alt_R], "Alt")) }
        if modifiers.contains(.logo) { held.append(try modifierCode([XK_Super_L, XK_Super_R], "Super")) }
        let code: KeyCode
        var shift = modifiers.contains(.shift)
        let candidates = character.map(Self.keysyms(for:)) ?? [keysym]
        let hasLevel3 = keyboard.keys[KeySym(XK_ISO_Level3_Shift)]?.column == 0
        if let key = candidates.lazy.compactMap({ self.keyboard.keys[$0] }).first, key.column < 4 || hasLevel3 {
            code = key.code
            if key.column >= 4 { held.append(try modifierCode([XK_ISO_Level3_Shift], "AltGr")) }
            if key.column % 2 == 1 { shift = true }
        } else if let bound = borrowed[keysym] {
            code = bound
        } else {
            code = try borrow(display, keysym, for: named)
        }
        if shift { held.append(try modifierCode([XK_Shift_L, XK_Shift_R], "Shift")) }
        for m in held { XTestFakeKeyEvent(display, UInt32(m), 1, 0) }
        XTestFakeKeyEvent(display, UInt32(code), 1, 0)
        XTestFakeKeyEvent(display, UInt32(code), 0, 0)
        for m in held.reversed() { XTestFakeKeyEvent(display, UInt32(m), 0, 0) }
        XFlush(display)
        // Discarding the queue too: the sink never reads events, and mapping changes would pile up.
        XSync(display, 1)
        try confirm(display, what)
    }

    /// Binds a spare keycode to `keysym` until the end of the call; when all are taken, gives them back
    /// first.
    private func borrow(_ display: OpaquePointer, _ keysym: KeySym, for named: String) throws(OutputSinkError) -> KeyCode {
        var free = keyboard.spare.filter { !borrowed.values.contains($0) }
        if free.isEmpty, !borrowed.isEmpty {
            giveBack(display)
            free = keyboard.spare
        }
        guard let code = free.first else {
            throw OutputSinkError("X display \(displayName ?? "") has no key for \(named) and no spare keycode to bind it to")
        }
        // Both columns, so the key types the keysym with or without Shift whatever key type the server infers.
        var pair: [KeySym] = [keysym, keysym]
        XChangeKeyboardMapping(display, Int32(code), 2, &pair, 1)
        XSync(display, 1)
        try confirm(display, "binding a spare keycode to \(named)")
        borrowed[keysym] = code
        borrowedKeys += 1
        return code
    }

    /// Gives the borrowed keycodes back (no keysym), once windows had time to read them.
    private func giveBack(_ display: OpaquePointer) {
        guard !borrowed.isEmpty else { return }
        if lost.pointee == 0 {
            usleep(UInt32(bindingGrace * 1_000_000))
            for code in borrowed.values {
                var none: [KeySym] = [0]
                XChangeKeyboardMapping(display, Int32(code), 1, &none, 1)
            }
            XSync(display, 1)
            handsfree_x11_error_slot().pointee = 0
        }
        borrowed = [:]
    }
}
