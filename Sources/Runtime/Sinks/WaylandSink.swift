#if canImport(Glibc)
import SystemIO
import Glibc
#endif
import PtyHost
import Shell
import Transport

/// The focused window of a Wayland desktop, typed into through the compositor's virtual keyboard
/// (`--type-into wayland`, or `wayland:SOCKET`; the socket defaults to `$WAYLAND_DISPLAY`).
///
/// The keyboard carries the user's layout from libxkbcommon (`XKB_DEFAULT_LAYOUT`, else the system's
/// defaults), so the focused program reads the characters it would read from the user's own keyboard. A
/// character the layout has no key for is typed with a second keymap that binds spare keys to it, then the
/// layout is sent again; a character XKB cannot name is refused before anything is sent. The connection is
/// made by `check` or the first key and made again after a failure, so a compositor that restarts is reached.
public final class WaylandSink: OutputSink {
    public static let kind = OutputSinkKind(
        scheme: "wayland", argument: "SOCKET", argumentIsOptional: true, example: "wayland:wayland-1",
        summary: "the focused window of a wlroots desktop (sway), through its virtual keyboard; SOCKET defaults to $WAYLAND_DISPLAY"
    ) { socket, _ in WaylandSink(socket: socket) }

    /// The socket named after the colon, else nil for `$WAYLAND_DISPLAY`.
    public let socket: String?
    private let environment: [String: String]
    private var keyboard: WaylandKeyboard?
    /// Made on the first pointer event, on a connection of its own (see `WaylandPointer`).
    private var pointer: WaylandPointer?
    private var layout: XKBKeymap?
    /// Whether the compositor holds the layout (not a keymap of spare keys) and which modifiers are held.
    private var layoutSent = false
    private var held: UInt32 = 0
    /// Keys that may go at once, and when that was counted (see `burst`).
    private var allowance = Double(WaylandSink.burst)
    private var counted = monotonicSeconds()

    public init(socket: String?, environment: [String: String] = PtyProcess.currentEnvironment()) {
        self.socket = socket
        self.environment = environment
    }

    private var display: String? {
        if let socket { return socket }
        return environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public var name: String { "wayland \(display ?? "(no display)")" }
    public var traits: SinkTraits { [] }

    public func check() throws(OutputSinkError) { _ = try connected() }

    /// Connects, so the first key does not wait for it.
    public func start(rows: Int, cols: Int) throws(OutputSinkError) { _ = try connected() }

    public func type(_ text: String) throws(OutputSinkError) {
        let layout = try loadedLayout()
        try send(try Self.plan(text, layout: layout))
    }

    public func press(_ press: TerminalKeyPress) throws(OutputSinkError) {
        let layout = try loadedLayout()
        var extra: UInt32 = 0
        if press.modifiers.contains(.shift) { extra |= layout.shift }
        if press.modifiers.contains(.ctrl) { extra |= layout.control }
        if press.modifiers.contains(.alt) { extra |= layout.alt }
        if press.modifiers.contains(.logo) {
            guard layout.superKey != 0 else { throw OutputSinkError("the keyboard layout has no Super (logo) modifier") }
            extra |= layout.superKey
        }
        let stroke: KeyStroke
        switch press.key {
        case .char(let c) where extra == 0:
            return try type(String(c))
        case .char(let c):
            stroke = try Self.stroke(for: c, layout: layout, adding: extra)
        case .ctrl(let c):
            stroke = try Self.stroke(for: c.lowercased().first ?? c, layout: layout, adding: extra | layout.control)
        case .alt(let c):
            stroke = try Self.stroke(for: c, layout: layout, adding: extra | layout.alt)
        default:
            guard let code = Self.evdevCode(press.key) else {
                throw OutputSinkError("\(name) has no key for \(press.key)")
            }
            stroke = KeyStroke(key: code, modifiers: extra)
        }
        try send([.layout([stroke])])
    }

    /// Moves the pointer, presses a button or turns the wheel through the compositor's virtual pointer, and
    /// waits until the compositor has it, so keys sent next go where the pointer put the focus.
    public func point(_ event: PointerEvent) throws(OutputSinkError) {
        let pointer = try pointerConnected()
        do throws(OutputSinkError) {
            try pointer.send(event)
            try pointer.sync()
        } catch {
            // The next event connects again, as the keyboard does after a failure.
            self.pointer = nil
            throw error
        }
    }

    private func pointerConnected() throws(OutputSinkError) -> WaylandPointer {
        if let pointer { return pointer }
        guard let display else {
            throw OutputSinkError("no Wayland display: WAYLAND_DISPLAY is not set (run inside a Wayland session, "
                                  + "or name its socket: wayland:wayland-1)")
        }
        let made = try WaylandPointer(socket: display, display: display)
        pointer = made
        return made
    }

    // MARK: Keys

    /// A run of keys on the layout, or characters typed with a keymap of spare keys.
    enum Step: Equatable {
        case layout([KeyStroke])
        case spare([UInt32])
    }

    /// At most this many characters go in one spare keymap (keycodes 9 up, below XKB's 255).
    static let sparePerKeymap = 200

    /// The steps that type `text`: each character's keysym on the layout, else on a spare key. Line breaks
    /// are Enter, tabs Tab. Throws, naming the character, for one XKB has no keysym for.
    static func plan(_ text: String, layout: XKBKeymap) throws(OutputSinkError) -> [Step] {
        var steps: [Step] = []
        // The open run is kept apart and closed when the kind changes, so long text costs linear time.
        var strokes: [KeyStroke] = [], spare: [UInt32] = []
        func close() {
            if !strokes.isEmpty { steps.append(.layout(strokes)); strokes = [] }
            if !spare.isEmpty { steps.append(.spare(spare)); spare = [] }
        }
        func add(_ sym: UInt32) {
            if let stroke = layout.strokes[sym] {
                if !spare.isEmpty { close() }
                strokes.append(stroke)
            } else {
                if !strokes.isEmpty || spare.count == sparePerKeymap { close() }
                spare.append(sym)
            }
        }
        for c in text {
            switch c {
            case "\n", "\r", "\r\n": add(keysymReturn)
            case "\t": add(keysymTab)
            default:
                for scalar in c.unicodeScalars {
                    guard let sym = XKBKeymap.keysym(scalar) else {
                        throw OutputSinkError("cannot type \(describe(c)): XKB has no key symbol for it")
                    }
                    add(sym)
                }
            }
        }
        close()
        return steps
    }

    /// The key that types `c` on the layout, with `modifiers` added; a chord needs the layout's own key.
    static func stroke(for c: Character, layout: XKBKeymap, adding modifiers: UInt32) throws(OutputSinkError) -> KeyStroke {
        guard c.unicodeScalars.count == 1, let scalar = c.unicodeScalars.first,
              let sym = XKBKeymap.keysym(scalar), var stroke = layout.strokes[sym] else {
            throw OutputSinkError("cannot send \(describe(c)) with modifiers: the keyboard layout has no key for it")
        }
        stroke.modifiers |= modifiers
        return stroke
    }

    static let keysymReturn: UInt32 = 0xff0d
    static let keysymTab: UInt32 = 0xff09

    /// The Linux input code (linux/input-event-codes.h) of a named key.
    static func evdevCode(_ key: TerminalKey) -> UInt32? {
        switch key {
        case .enter: return 28
        case .tab: return 15
        case .escape: return 1
        case .backspace: return 14
        case .up: return 103
        case .down: return 108
        case .left: return 105
        case .right: return 106
        case .insert: return 110
        case .delete: return 111
        case .home: return 102
        case .end: return 107
        case .pageUp: return 104
        case .pageDown: return 109
        case .function(let n) where (1...10).contains(n): return 58 + UInt32(n)
        case .function(11): return 87
        case .function(12): return 88
        default: return nil
        }
    }

    /// A character for messages: `"€" (U+20AC)`.
    static func describe(_ c: Character) -> String {
        let codes = c.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }
        let shown = c.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control } ? "\"\(c)\" " : ""
        return "\(shown)(\(codes.joined(separator: " ")))"
    }

    /// A keymap whose keycodes 9, 10, … give `syms`, for characters the layout lacks.
    static func spareKeymap(_ syms: [UInt32]) -> String? {
        var codes = "", keys = ""
        for (i, sym) in syms.enumerated() {
            guard let symName = XKBKeymap.name(ofKeysym: sym) else { return nil }
            codes += "<S\(i)> = \(9 + i); "
            keys += "key <S\(i)> { [ \(symName) ] }; "
        }
        return """
        xkb_keymap {
        xkb_keycodes "handsfree" { minimum = 8; maximum = 255; \(codes)};
        xkb_types "handsfree" { include "complete" };
        xkb_compatibility "handsfree" { include "complete" };
        xkb_symbols "handsfree" { \(keys)};
        };
        """
    }

    // MARK: The connection

    private func loadedLayout() throws(OutputSinkError) -> XKBKeymap {
        if let layout { return layout }
        let made = try XKBKeymap(environment: environment)
        layout = made
        return made
    }

    private func connected() throws(OutputSinkError) -> WaylandKeyboard {
        if let keyboard { return keyboard }
        guard let display else {
            throw OutputSinkError("no Wayland display: WAYLAND_DISPLAY is not set (run inside a Wayland session, "
                                  + "or name its socket: wayland:wayland-1)")
        }
        let layout = try loadedLayout()
        let made = try WaylandKeyboard(socket: display, display: display)
        try made.keymap(layout.text)
        try made.sync()
        // A seat that had no keyboard gains one with ours, and each program then asks for its own keyboard
        // object: keys sent before the focused one has it are lost (whole lines, in the sway tests).
        usleep(UInt32(Self.settle * 1_000_000))
        keyboard = made
        layoutSent = true
        held = 0
        return made
    }

    /// How long a new keyboard is left before its first key, so programs can take it up (see `connected`).
    static let settle = 0.15

    /// Sends the steps, then waits for the compositor to have them; on a failure the connection is dropped,
    /// so the next key connects again.
    private func send(_ steps: [Step]) throws(OutputSinkError) {
        let keyboard = try connected()
        let layout = try loadedLayout()
        do throws(OutputSinkError) {
            for step in steps {
                switch step {
                case .layout(let strokes):
                    if !layoutSent { try keyboard.keymap(layout.text); layoutSent = true; held = 0 }
                    for stroke in strokes { try tap(stroke, on: keyboard) }
                case .spare(let syms):
                    guard let text = Self.spareKeymap(syms), (try? XKBKeymap(text: text)) != nil else {
                        let shown = syms.compactMap { Unicode.Scalar(xkb32: $0) }.map { Self.describe(Character($0)) }
                        throw OutputSinkError("cannot type \(shown.joined(separator: ", ")): "
                                              + "neither the keyboard layout nor a spare key gives it")
                    }
                    try keyboard.keymap(text)
                    layoutSent = false
                    held = 0
                    for i in syms.indices { try tap(KeyStroke(key: UInt32(9 + i - 8), modifiers: 0), on: keyboard) }
                }
            }
            if held != 0 { try keyboard.modifiers(0); held = 0 }
            try keyboard.sync()
        } catch {
            self.keyboard = nil
            throw error
        }
    }

    /// Keys sent at once before pacing starts, and the pace after, in keys a second. The compositor passes
    /// keys on to the focused program as fast as they come and disconnects a program that falls about
    /// 200 KB behind: foot, sent 50,000 characters at once, was cut off and crashed. A sentence goes at
    /// once; a long text at this pace, which foot kept up with.
    static let burst = 400
    static let pace = 1000.0

    private func tap(_ stroke: KeyStroke, on keyboard: WaylandKeyboard) throws(OutputSinkError) {
        let now = monotonicSeconds()
        allowance = min(Double(Self.burst), allowance + (now - counted) * Self.pace)
        counted = now
        if allowance < 1 {
            // The compositor first takes what was sent, so the wait paces the program, not a queue.
            try keyboard.sync()
            let wait = (1 - allowance) / Self.pace
            usleep(UInt32(wait * 1_000_000))
            allowance = 1
            counted = monotonicSeconds()
        }
        allowance -= 1
        if stroke.modifiers != held { try keyboard.modifiers(stroke.modifiers); held = stroke.modifiers }
        try keyboard.key(stroke.key, pressed: true)
        try keyboard.key(stroke.key, pressed: false)
    }
}

private extension Unicode.Scalar {
    /// The character of a Unicode keysym (`0x1000000 + code point`) or a Latin-1 one, for messages.
    init?(xkb32 sym: UInt32) {
        if sym >= 0x0100_0000 { self.init(sym - 0x0100_0000) } else if sym < 0x100 { self.init(sym) } else { return nil }
    }
}
