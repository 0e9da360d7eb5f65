#if canImport(Glibc)
import Glibc
#endif
import CX11
import Foundation
import Localization
import PtyHost
import TerminalModel
import SystemIO

/// The focused window of an X session, keyed through the XTEST extension (`--type-into x11`, or
/// `x11:DISPLAY` for another display than `$DISPLAY`: `x11:1`, `x11::1` and `:1` all name display 1).
///
/// Each character becomes its keysym, typed with the key and shift level the current layout has for it.
/// One the layout cannot type goes on a spare keycode bound to it, and the binding stays after the call,
/// listed on the root window for later calls and processes: a program looks a key's keysym up when it
/// handles the key, from the mapping as it is then, so a binding changed while the key waits in a busy
/// program's queue changes the character (see "Spare keycodes" below). Typing into no window (no focus,
/// or a focus that follows a pointer over nothing) is an error. A server that goes away becomes an
/// `OutputSinkError`, never the end of the shell: the shim's handlers are in place before the display is
/// opened, mark it lost instead of exiting, and no Xlib call is made on it after; the next call opens it
/// again. What of a text did not reach the server is named in the error's `unsent`. The only source
/// importing `CX11` (the tests' `X11SlowClient` does too).
public final class X11Sink: TextSink, PointerSink {
    public static let kind = OutputSinkKind(
        scheme: "x11", argument: "DISPLAY", argumentIsOptional: true, example: "x11::0",
        summary: N_("the focused window of an X session, through XTest: x11 for $DISPLAY, x11:1 (or x11::1, or :1) for another")
    ) { display, _ in X11Sink(display: display.map(X11Sink.displayName(from:))) }

    /// The display an option names: a bare number (`77`, `77.0`) is the local display `:77`; anything else
    /// (`:77`, `host:1.0`) is as written.
    public static func displayName(from argument: String) -> String {
        let number = argument.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard let first = number.first, digits(first), number.dropFirst().allSatisfy(digits) else { return argument }
        return ":" + argument
    }

    /// The display keys go to (`:0`, `host:1.0`); nil when neither the option nor `$DISPLAY` named one.
    public let displayName: String?
    /// How many times a spare keycode was bound to a character the layout has no key for.
    public private(set) var borrowedKeys = 0
    /// How many bindings waited for the focused program to show it had read the keys before them.
    public private(set) var provenChanges = 0
    /// How many spare keycodes the sink may bind, as of its last key.
    public var spareKeycodes: Int { pool.count }
    /// How many characters those keycodes hold at once: each has `Slot.columns` places.
    public var spareSlots: Int { slots.count }

    private var display: OpaquePointer?
    /// Set by the shim's exit handler, in the Xlib call that found the connection gone.
    private let lost: UnsafeMutablePointer<Int32>
    private var keyboard = Keyboard()

    // MARK: Spare keycodes
    //
    // A binding changed while a key on it waits in a program's queue changes that key's character, and a
    // busy program may hold its keys for any time. So bindings stay as long as they can: each spare keycode
    // holds four characters (plain and Shift, in the first and the second group; a key's event carries the
    // group it was pressed in, and the program looks the key up in that group), so a text needs no change
    // of a binding until it has used four times as many characters as there are spare keycodes, and the
    // one changed then is the one used longest ago, only once the focused program has shown it handled
    // every key on it. It shows that by answering a marker (see the shim's watch): an Expose of a strip of
    // its border sent after the keys, which a program takes from its queue in order, behind them, and xterm
    // answers by clearing that strip, which nothing else makes it do. Strips are drawn at random, and a
    // marker of another process's with the same strip may still wait ahead of the keys: so a watch's first
    // answer counts only once a second marker, sent after it, is answered too (`takeAnswer`: a test under
    // load once saw a slot bound again while another sink's keys still waited, the only way to it found in
    // the code). Nothing a program does on reading a change is
    // such evidence: Xlib fetches the mapping lazily, at the next key it looks up after reading a change,
    // which may be one queued before it, and an xterm busy for seconds under load had keys changed when
    // such fetches (and Xt's table rebuilds, which read the same) were taken for it. A program that
    // answers no marker but fetches the mapping goes by those fetches (`readSlot`), the weaker evidence;
    // without RECORD a change waits `unprovenWait` instead. That weaker evidence frees only slots whose
    // last key this sink sent: a slot bound before it (by another process: the root window lists the
    // keycodes) may hold a key that waits in any queue, and is bound again only on the answer to a marker
    // this sink sent after it; when only such slots are left, a program judged by its fetches is sent
    // markers for `evidenceTimeout` more, and then the character is refused (a loaded CI run once took
    // a slow xterm for one that answers none, and a fetch let a slot go while another process's key on it
    // still waited). A program that shows no progress for `evidenceTimeout` stops the text there, the
    // rest reported unsent (a changed character is worse than an unsent one: the user sees what was not
    // sent and can type it again); one that is slow but keeps handling its keys is waited for.

    /// A place on a spare keycode a character can be bound to: a column of the core mapping, 0 and 1 the
    /// first group (plain, Shift), 2 and 3 the second.
    struct Slot: Hashable {
        var code: KeyCode
        var column: Int
        /// The columns of a spare keycode the sink binds.
        static let columns = 4
        /// The group (0 the first) a key must be pressed in to type what the slot holds.
        var group: Int { column / 2 }
        /// Whether Shift must be held.
        var shifted: Bool { column % 2 == 1 }
    }

    /// The keycodes this sink may bind; their slots, each column across all keycodes before the next (so
    /// that consecutive bindings change different keycodes); and the keysym each slot holds now.
    private var pool: [KeyCode] = []
    private var slots: [Slot] = []
    private var slotSym: [Slot: KeySym] = [:]
    /// For each slot, the number of the change after which a key was last sent on it (0: before this
    /// sink, so it may still wait in a queue; none: never).
    private var lastUse: [Slot: Int] = [:]
    /// For each slot, the number of the last key sent on it, counted in the order they were sent (0: before
    /// this sink; none: never): a marker sent after key `n` covers it and every key before.
    private var lastKey: [Slot: Int] = [:]
    private var keysSent = 0
    /// The group the keyboard is locked in, and the one it is in, as of the last call: the sink locks the
    /// group a slot needs around its key and locks this one back.
    private var lockedGroup = 0
    private var effectiveGroup = 0
    /// Changes made by this sink, and the last one the focused program was shown to have read (and when).
    private var changes = 0
    private var proven = 0
    private var provenAt = 0.0
    /// The RECORD watch on the focused program (`target`), and the number of changes made before it began.
    private var watch: UnsafeMutablePointer<handsfree_x11_watch>?
    private var watchTarget: Window = 0
    private var watchOffset = 0
    /// Whether the server was found to lack RECORD, so the sink does not ask again.
    private var noRecord = false
    /// The marker waiting for the watched program's answer: its strip of the top border (see the shim's
    /// watch), the last key it covers, and when it was sent. Nil: none waits.
    private struct Marker {
        var x: Int32
        var width: Int32
        var covers: Int
        var sentAt: Double
        /// When the program was first seen fetching the mapping after this marker was sent.
        var fetchedAt: Double?
    }
    private var marker: Marker?
    /// The strip of the last marker sent: each marker's is drawn at random from `markerStrips`, another
    /// than the last (so that a late answer to the last is not taken for it).
    private var lastStrip: Int?
    /// Strips start at x 0 to 1023 and are 1 to 64 pixels wide: xterm clears the strip it is sent even
    /// where it lies beyond a narrow window's edge, so the strips need not fit in the window.
    static let markerStrips = 1024 * 64
    /// The start and width of strip `n`.
    static func strip(_ n: Int) -> (x: Int32, width: Int32) { (Int32(n % 1024), Int32(n / 1024 + 1)) }
    /// The strips the next markers take, in order, before random ones: for tests that answer a marker of
    /// another process's with the same strip.
    var testStrips: [Int] = []
    /// The markers answered since the watch began, counted up to 2 (see `takeAnswer`).
    private var answeredMarkers = 0
    /// The last key the watched program was shown to have handled (by its answer to a marker).
    private var handledKey = -1
    /// Whether the watched program answers markers (nil: not known yet; false: it fetched the mapping but
    /// left a marker unanswered for `evidenceTimeout`, so it goes by its fetches).
    private var answersMarkers: Bool?

    /// How long after the evidence a program gets to handle the keys it has read, before a code is bound
    /// again; how long a change waits where there is no evidence; how long a program may show none.
    static let grace = 0.003
    static let unprovenWait = 0.05
    public static let evidenceTimeout = 10.0
    /// How long this sink waits for evidence: `evidenceTimeout`, shorter in tests that reach its ends.
    var evidenceWait = X11Sink.evidenceTimeout
    /// Whether each program it watches is taken from the start for one that answers no marker (the state
    /// the sink reaches when a program that fetches the mapping leaves a marker unanswered for
    /// `evidenceWait`): for tests of that fallback, which a loaded machine reaches only by chance.
    var assumeNoMarkers = false
    /// How long a marker may go unanswered before it is sent again.
    static let markerAgain = 0.25

    /// Xlib made safe for connections used from several threads (the shell uses one, on its loop; tests,
    /// the bench and `handsfree point` may hold several at once), once, before any other Xlib call.
    private static let threads: Bool = XInitThreads() != 0

    /// Times the waits for the focused program's evidence.
    private let clock: any ShellClock

    public init(display: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                clock: any ShellClock = LiveClock()) {
        _ = Self.threads
        self.clock = clock
        let chosen = display ?? environment["DISPLAY"]
        displayName = chosen?.isEmpty == false ? chosen : nil
        lost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lost.initialize(to: 0)
    }

    deinit {
        if let display { close(display) }
        lost.deallocate()
    }

    public var name: String { "X11 \(displayName ?? "(no display)")" }
    public var traits: SinkTraits { [] }

    public func check() throws(OutputSinkError) { _ = try connection() }

    /// Nothing to start: the windows run on their own.
    public func start(rows: Int, cols: Int) throws(OutputSinkError) {}

    /// Types by `TypedText`'s rule; each key is confirmed by the server before the next, so a failure names
    /// exactly what did not reach it.
    public func type(_ text: String) throws(OutputSinkError) {
        let pieces = try TypedText.pieces(text)
        let display = try connection()
        try loadKeyboard(display)
        let target = try focusedWindow(display)
        var at = text.startIndex
        do throws(OutputSinkError) {
            for piece in pieces {
                switch piece {
                case .key(let key, let range):
                    at = range.lowerBound
                    try tap(display, keysym: Self.keysym(of: key), modifiers: [], target: target)
                case .text(let range):
                    let scalars = text.unicodeScalars
                    var i = range.lowerBound
                    while i < range.upperBound {
                        at = i
                        let scalar = scalars[i]
                        guard let keysym = Self.keysym(for: scalar) else {
                            throw OutputSinkError(UIMessage("{sink} cannot type {character}: it has no key", ["sink": name, "character": TypedText.describe(scalar)]))
                        }
                        try tap(display, keysym: keysym, modifiers: [], character: scalar, target: target)
                        i = scalars.index(after: i)
                    }
                }
            }
        } catch {
            throw error.leaving(TypedText.rest(text, from: at))
        }
    }

    /// The keysym of a key `TypedText` names.
    static func keysym(of key: TerminalKey) -> KeySym {
        switch key {
        case .tab: return KeySym(XK_Tab)
        case .escape: return KeySym(XK_Escape)
        case .backspace: return KeySym(XK_BackSpace)
        default: return KeySym(XK_Return)
        }
    }

    public func press(_ key: TerminalKeyPress) throws(OutputSinkError) {
        let display = try connection()
        try loadKeyboard(display)
        let target = try focusedWindow(display)
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
            guard (1...35).contains(n) else { throw OutputSinkError(UIMessage("{sink} has no key F{number}", ["sink": name, "number": "\(n)"])) }
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
                throw OutputSinkError(UIMessage("{sink} cannot press {character} as one key", ["sink": name, "character": String(reflecting: c)]))
            }
            keysym = sym
            character = scalar
        }
        try tap(display, keysym: keysym, modifiers: modifiers, character: character, target: target)
    }

    /// Moves the pointer, presses a button or turns the wheel through XTest, and waits until the server has
    /// it, so keys sent next go where the pointer is. Positions are scaled to the default screen. A press,
    /// click or wheel turn over no window is an error; clicks and notches are bounded (`PointerEvent.mostClicks`,
    /// `mostNotches`).
    public func point(_ event: PointerEvent) throws(OutputSinkError) {
        let display = try connection()
        let what: UIMessage
        func fake(_ button: UInt32, _ down: Bool) throws(OutputSinkError) {
            try alive(Self.pressing(button, down))
            XTestFakeButtonEvent(display, button, down ? 1 : 0, 0)
        }
        switch event {
        case .moveTo(let x, let y):
            let screen = XDefaultScreen(display)
            let px = Self.pixel(x, size: Int(XDisplayWidth(display, screen)))
            let py = Self.pixel(y, size: Int(XDisplayHeight(display, screen)))
            XTestFakeMotionEvent(display, screen, Int32(px), Int32(py), 0)
            what = UIMessage("moving the pointer to {x},{y}", ["x": "\(px)", "y": "\(py)"], context: "X11 step")
        case .moveBy(let dx, let dy):
            let rx = Self.pixels(dx), ry = Self.pixels(dy)
            XTestFakeRelativeMotionEvent(display, Int32(rx), Int32(ry), 0)
            what = UIMessage("moving the pointer by {x},{y}", ["x": "\(rx)", "y": "\(ry)"], context: "X11 step")
        case .button(let button, let down):
            if down { try pointerTarget(display, UIMessage("press a button", context: "X11 pointer target")) }
            try fake(Self.button(button), down)
            what = Self.pressing(Self.button(button), down)
        case .click(let button, let count):
            try pointerTarget(display, UIMessage("click", context: "X11 pointer target"))
            for _ in 0..<PointerEvent.bounded(clicks: count) {
                try fake(Self.button(button), true)
                try fake(Self.button(button), false)
            }
            what = UIMessage("clicking button {button}", ["button": "\(Self.button(button))"], context: "X11 step")
        case .scroll(let dx, let dy):
            try pointerTarget(display, UIMessage("turn the wheel", context: "X11 pointer target"))
            // The core protocol has no wheel: each notch is a click of button 4 (up), 5 (down), 6 (left), 7 (right).
            for (steps, less, more) in [(PointerEvent.bounded(notches: dy), UInt32(4), UInt32(5)),
                                        (PointerEvent.bounded(notches: dx), UInt32(6), UInt32(7))] {
                for _ in 0..<abs(steps) {
                    try fake(steps > 0 ? more : less, true)
                    try fake(steps > 0 ? more : less, false)
                }
            }
            what = UIMessage("turning the wheel", context: "X11 step")
        }
        try alive(what)
        XSync(display, 1)
        try confirm(display, what)
    }

    /// Throws unless a window is under the pointer to take what the pointer does there.
    private func pointerTarget(_ display: OpaquePointer, _ doing: UIMessage) throws(OutputSinkError) {
        var root: Window = 0, child: Window = 0
        var rx: Int32 = 0, ry: Int32 = 0, wx: Int32 = 0, wy: Int32 = 0
        var mask: UInt32 = 0
        let onScreen = XQueryPointer(display, XDefaultRootWindow(display), &root, &child, &rx, &ry, &wx, &wy, &mask)
        try confirm(display, UIMessage("asking where the pointer is", context: "X11 step"))
        if onScreen == 0 || child == 0 {
            throw OutputSinkError(UIMessage("no window is under the pointer on X display {display}, at {x},{y}, to {doing} in", ["display": displayName ?? "", "x": "\(rx)", "y": "\(ry)"], reasons: ["doing": doing]))
        }
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

    /// The step of pressing or releasing pointer button `button` (X's number: 1 left, 2 middle, 3 right).
    static func pressing(_ button: UInt32, _ down: Bool) -> UIMessage {
        down ? UIMessage("pressing button {button}", ["button": "\(button)"], context: "X11 step")
            : UIMessage("releasing button {button}", ["button": "\(button)"], context: "X11 step")
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
            close(display)
        }
        guard let displayName else {
            throw OutputSinkError(UIMessage("no DISPLAY: start an X session or name one, {example} (--output, --type-into)", ["example": "x11::0"]))
        }
        lost.pointee = 0
        guard let opened = handsfree_x11_open(displayName, lost) else {
            throw OutputSinkError(UIMessage("cannot open X display {display}: is its server running, and may this user reach it (xhost, XAUTHORITY)? Or name another, {example} (--output, --type-into)", ["display": displayName, "example": "x11::0"]))
        }
        var event: Int32 = 0, error: Int32 = 0, major: Int32 = 0, minor: Int32 = 0
        guard lost.pointee == 0, XTestQueryExtension(opened, &event, &error, &major, &minor) != 0, lost.pointee == 0 else {
            let gone = lost.pointee != 0
            XCloseDisplay(opened)
            throw OutputSinkError(gone ? UIMessage("X display {display} went away while it was being opened", ["display": displayName])
                                  : UIMessage("X display {display} has no XTEST extension: start its server with it (Xorg and Xvfb have it unless told -extension XTEST)", ["display": displayName]))
        }
        display = opened
        return opened
    }

    /// Lets a display go: the watch first, and no request on either once the server is gone (closing a lost
    /// connection only frees it).
    private func close(_ display: OpaquePointer) {
        if let watch { handsfree_x11_watch_stop(watch, display, lost.pointee) }
        watch = nil
        watchTarget = 0
        XCloseDisplay(display)
        self.display = nil
        lastUse = [:]
        lastKey = [:]
        keysSent = 0
        changes = 0
        proven = 0
        marker = nil
        answeredMarkers = 0
        handledKey = -1
        answersMarkers = nil
    }

    /// Throws, before any Xlib call, once the connection is known lost: Xlib crashes on a call after that.
    private func alive(_ doing: @autoclosure () -> UIMessage) throws(OutputSinkError) {
        if lost.pointee != 0 {
            throw OutputSinkError(UIMessage("X display {display} went away while {doing}: its server ended or the connection broke", ["display": displayName ?? ""], reasons: ["doing": doing()]))
        }
    }

    /// Throws if the last call found the server gone, or refused a request.
    private func confirm(_ display: OpaquePointer, _ doing: @autoclosure () -> UIMessage) throws(OutputSinkError) {
        try alive(doing())
        let code = handsfree_x11_error_slot().pointee
        if code != 0 {
            handsfree_x11_error_slot().pointee = 0
            throw OutputSinkError(UIMessage("X display {display} refused a request while {doing} (X error {code})", ["display": displayName ?? "", "code": "\(code)"], reasons: ["doing": doing()]))
        }
    }

    /// The window the keys will reach: the focus, or with a focus that follows the pointer the top window
    /// under it. Throws when that is none: keys sent then reach no program.
    private func focusedWindow(_ display: OpaquePointer) throws(OutputSinkError) -> Window {
        var focus: Window = 0
        var revert: Int32 = 0
        XGetInputFocus(display, &focus, &revert)
        try confirm(display, UIMessage("asking which window has the focus", context: "X11 step"))
        let root = XDefaultRootWindow(display)
        if focus == 0 {
            throw OutputSinkError(UIMessage("no window has the keyboard focus on X display {display}: the keys would reach no program", ["display": displayName ?? ""]))
        }
        guard focus == Window(PointerRoot) || focus == root else { return focus }
        var rootBack: Window = 0, child: Window = 0
        var rx: Int32 = 0, ry: Int32 = 0, wx: Int32 = 0, wy: Int32 = 0
        var mask: UInt32 = 0
        let onScreen = XQueryPointer(display, root, &rootBack, &child, &rx, &ry, &wx, &wy, &mask)
        try confirm(display, UIMessage("asking where the pointer is", context: "X11 step"))
        if onScreen == 0 || child == 0 {
            throw OutputSinkError(UIMessage("no window has the keyboard focus on X display {display}: it follows the pointer, which is over no window, so the keys would reach no program",
                                                ["display": displayName ?? ""]))
        }
        return child
    }

    /// The keycodes earlier sinks bound, as listed on the root window.
    private func borrowedList(_ display: OpaquePointer) -> [KeyCode] {
        let atom = XInternAtom(display, Self.listName, 0)
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard lost.pointee == 0,
              XGetWindowProperty(display, XDefaultRootWindow(display), atom, 0, 64, 0, Atom(XA_CARDINAL),
                                 &type, &format, &count, &after, &data) == Success, let data else { return [] }
        defer { XFree(data) }
        guard format == 8 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(count)))
    }

    /// The root window property listing the keycodes the sink bound.
    static let listName = "_HANDSFREE_SPARE_KEYCODES"

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

        /// Every keysym at keycode `code`, NoSymbol left out.
        func row(_ code: Int) -> [KeySym] { (0..<perCode).map { symbol(code, $0) }.filter { $0 != 0 } }
    }

    /// Reads the layout as it is now: the user may have switched it (setxkbmap) since the last call.
    private func loadKeyboard(_ display: OpaquePointer) throws(OutputSinkError) {
        var lo: Int32 = 0, hi: Int32 = 0, per: Int32 = 0
        XDisplayKeycodes(display, &lo, &hi)
        let map = XGetKeyboardMapping(display, KeyCode(truncatingIfNeeded: lo), hi - lo + 1, &per)
        try confirm(display, UIMessage("reading the keyboard mapping", context: "X11 step"))
        guard let map, per > 0, hi >= lo else {
            throw OutputSinkError(UIMessage("X display {display} gave no keyboard mapping", ["display": displayName ?? ""]))
        }
        defer { XFree(map) }
        var k = Keyboard(minCode: Int(lo), maxCode: Int(hi), perCode: Int(per))
        k.symbols = Array(UnsafeBufferPointer(start: map, count: Int(hi - lo + 1) * Int(per)))
        // The spare keycodes: those this sink (or an earlier one, in any process: the root window lists them)
        // bound and that still hold one keysym, and the empty ones but the lowest, which is left for other
        // tools (xdotool takes the lowest empty keycode, and fails without one).
        let ours = Set(borrowedList(display))
        var empty: [KeyCode] = []
        var spare: [KeyCode: [KeySym]] = [:]
        for code in k.minCode...k.maxCode {
            let row = k.row(code)
            if row.isEmpty { empty.append(KeyCode(code)) }
            else if ours.contains(KeyCode(code)), (Slot.columns..<max(Slot.columns, k.perCode)).allSatisfy({ k.symbol(code, $0) == 0 }) {
                spare[KeyCode(code)] = (0..<Slot.columns).map { k.symbol(code, $0) }
            }
        }
        pool = spare.keys.sorted() + empty.dropFirst()
        slots = (0..<Slot.columns).flatMap { column in pool.map { Slot(code: $0, column: column) } }
        slotSym = [:]
        for (code, row) in spare {
            for (column, sym) in row.enumerated() where sym != 0 { slotSym[Slot(code: code, column: column)] = sym }
        }
        // Bound before this sink, perhaps by another process: keys on them may still wait in a queue.
        for slot in slotSym.keys where lastUse[slot] == nil {
            lastUse[slot] = 0
            lastKey[slot] = 0
        }
        var state = XkbStateRec()
        XkbGetState(display, UInt32(XkbUseCoreKbd), &state)
        try confirm(display, UIMessage("reading the keyboard's group", context: "X11 step"))
        lockedGroup = Int(state.locked_group)
        effectiveGroup = Int(state.group)
        // Columns 2 and 3 are the second group, which needs a group switch; 4 and 5 are the first group's
        // third and fourth levels.
        for column in [0, 1, 4, 5] where column < k.perCode {
            for code in k.minCode...k.maxCode where spare[KeyCode(code)] == nil {
                let s = k.symbol(code, column)
                if s != 0, k.keys[s] == nil { k.keys[s] = Key(code: KeyCode(code), column: column) }
            }
        }
        keyboard = k
    }

    /// The character `named` needs a keycode of its own, and none is left to bind.
    private func noSpareKeycode(for named: String) -> OutputSinkError {
        OutputSinkError(UIMessage("X display {display} has no key for {character} and no spare keycode to bind it to",
                                  ["display": displayName ?? "", "character": named]))
    }

    /// The focused window `target` has not read its keys, so binding a spare keycode to `named` would
    /// change keys still waiting in it.
    private func keysUnread(_ display: OpaquePointer, _ target: Window, before named: String) -> OutputSinkError {
        OutputSinkError(UIMessage("the focused window {window} on X display {display} did not read its keys within {seconds} s, so {character} could not be bound to a spare keycode without changing keys it has not read yet (it is busy or stopped)",
                                  ["window": describe(display, target), "display": displayName ?? "",
                                   "seconds": "\(Int(evidenceWait.rounded(.up)))", "character": named]))
    }

    /// Every slot `named` could take holds a key sent before this sink (by another process, or an earlier
    /// connection), and the focused window `target` has answered no marker sent after it: binding one again
    /// could change that key.
    private func keysHeldElsewhere(_ display: OpaquePointer, _ target: Window, before named: String) -> OutputSinkError {
        OutputSinkError(UIMessage("the focused window {window} on X display {display} did not show within {seconds} s that it handled the keys typed before: another handsfree process bound every spare keycode {character} could use, and binding one again could change a key still waiting on it, so {character} was not typed",
                                  ["window": describe(display, target), "display": displayName ?? "",
                                   "seconds": "\(Int(evidenceWait.rounded(.up)))", "character": named]))
    }

    /// A window as an error names it: the title of it or of the nearest window above it that has one
    /// (xterm's is on its top-level window), and its id. Only the id once the connection is lost.
    private func describe(_ display: OpaquePointer, _ window: Window) -> String {
        let id = "0x" + String(window, radix: 16)
        var current = window
        for _ in 0..<4 where lost.pointee == 0 {
            var name: UnsafeMutablePointer<CChar>?
            if XFetchName(display, current, &name) != 0, let name {
                let title = String(cString: name)
                XFree(name)
                if !title.isEmpty { return "\(String(reflecting: title)) (\(id))" }
            }
            var root: Window = 0, parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard lost.pointee == 0, XQueryTree(display, current, &root, &parent, &children, &count) != 0 else { break }
            if let children { XFree(children) }
            guard parent != 0, parent != root else { break }
            current = parent
        }
        // A window gone meanwhile refuses these requests; that is no failure of the call being reported.
        handsfree_x11_error_slot().pointee = 0
        return id
    }

    /// The keycode that holds a modifier down.
    private func modifierCode(_ keysyms: [Int32], _ what: UIMessage) throws(OutputSinkError) -> KeyCode {
        for s in keysyms { if let key = keyboard.keys[KeySym(s)], key.column == 0 { return key.code } }
        throw OutputSinkError(UIMessage("the keyboard of X display {display} has no {key} key", ["display": displayName ?? ""], reasons: ["key": what]))
    }

    /// Presses and releases the key for `keysym` with `modifiers` and its shift level held (and, for a
    /// spare keycode's slot, its group locked, then the user's locked back), then waits for the server to
    /// have it, so keys arrive in order.
    private func tap(_ display: OpaquePointer, keysym: KeySym, modifiers: TerminalModifiers,
                     character: Unicode.Scalar? = nil, target: Window) throws(OutputSinkError) {
        let named = character.map { TypedText.describe($0) } ?? "keysym 0x\(String(keysym, radix: 16))"
        let what = character == nil ? UIMessage("pressing {key}", ["key": named], context: "X11 step")
                                     : UIMessage("typing {character}", ["character": named], context: "X11 step")
        var held: [KeyCode] = []
        if modifiers.contains(.ctrl) { held.append(try modifierCode([XK_Control_L, XK_Control_R], KeyLabel.ctrl)) }
        if modifiers.contains(.alt) { held.append(try modifierCode([XK_Alt_L, XK_Meta_L, XK_Alt_R], KeyLabel.alt)) }
        if modifiers.contains(.logo) { held.append(try modifierCode([XK_Super_L, XK_Super_R], KeyLabel.superKey)) }
        let code: KeyCode
        var slot: Slot?
        var shift = modifiers.contains(.shift)
        let candidates = character.map(Self.keysyms(for:)) ?? [keysym]
        let hasLevel3 = keyboard.keys[KeySym(XK_ISO_Level3_Shift)]?.column == 0
        if let key = candidates.lazy.compactMap({ self.keyboard.keys[$0] }).first, key.column < 4 || hasLevel3 {
            code = key.code
            if key.column >= 4 { held.append(try modifierCode([XK_ISO_Level3_Shift], KeyLabel.altGr)) }
            if key.column % 2 == 1 { shift = true }
        } else {
            let chosen: Slot
            if let bound = slots.first(where: { slotSym[$0].map(candidates.contains) == true }) {
                chosen = bound
            } else {
                chosen = try borrow(display, keysym, for: named, target: target)
            }
            code = chosen.code
            slot = chosen
            lastUse[chosen] = changes
            keysSent += 1
            lastKey[chosen] = keysSent
            if chosen.shifted { shift = true }
        }
        if shift { held.append(try modifierCode([XK_Shift_L, XK_Shift_R], KeyLabel.shift)) }
        // The event carries the group the server is in as it delivers the key, and the program looks the key
        // up in that group: so the group is locked before the press and the user's locked back after the release.
        let group = slot.map(\.group).flatMap { $0 == effectiveGroup ? nil : $0 }
        if let group { try alive(what); XkbLockGroup(display, UInt32(XkbUseCoreKbd), UInt32(group)) }
        for m in held { try alive(what); XTestFakeKeyEvent(display, UInt32(m), 1, 0) }
        try alive(what); XTestFakeKeyEvent(display, UInt32(code), 1, 0)
        try alive(what); XTestFakeKeyEvent(display, UInt32(code), 0, 0)
        for m in held.reversed() { try alive(what); XTestFakeKeyEvent(display, UInt32(m), 0, 0) }
        if group != nil { try alive(what); XkbLockGroup(display, UInt32(XkbUseCoreKbd), UInt32(lockedGroup)) }
        if slot != nil { try markAhead(display, target: target) }
        try alive(what)
        // Discarding the queue too: the sink never reads events, and mapping changes would pile up.
        XSync(display, 1)
        try confirm(display, what)
    }

    /// Binds a free slot of a spare keycode to `keysym`, one that no key still waiting in the focused
    /// program can need.
    private func borrow(_ display: OpaquePointer, _ keysym: KeySym, for named: String,
                        target: Window) throws(OutputSinkError) -> Slot {
        guard !slots.isEmpty else {
            throw noSpareKeycode(for: named)
        }
        watchProgram(display, target)
        let slot = try freeSlot(display, target: target, for: named)
        let first = !slotSym.keys.contains { $0.code == slot.code }
        try change(display, slot, to: keysym, doing: UIMessage("binding a spare keycode to {character}", ["character": named], context: "X11 step"))
        if first {
            // Listed, so later calls and processes know the binding is the sink's to change.
            var byte = UInt8(slot.code)
            XChangeProperty(display, XDefaultRootWindow(display), XInternAtom(display, Self.listName, 0),
                            Atom(XA_CARDINAL), 8, PropModeAppend, &byte, 1)
            try confirm(display, UIMessage("listing the spare keycode {code}", ["code": "\(slot.code)"], context: "X11 step"))
        }
        borrowedKeys += 1
        return slot
    }

    /// Binds `slot` to `keysym`, the keycode's other slots as they are (a program that looks up a key
    /// waiting on one of them finds what it was sent for): one change, counted. An empty other level of
    /// the group gets the keysym too: the server makes a lone letter a two-level key of its lower and upper
    /// case ("Ö" alone would type "ö").
    private func change(_ display: OpaquePointer, _ slot: Slot, to keysym: KeySym,
                        doing: @autoclosure () -> UIMessage) throws(OutputSinkError) {
        try alive(doing())
        var row: [KeySym] = (0..<Slot.columns).map { slotSym[Slot(code: slot.code, column: $0)] ?? 0 }
        row[slot.column] = keysym
        let partner = slot.column ^ 1
        if row[partner] == 0 { row[partner] = keysym }
        XChangeKeyboardMapping(display, Int32(slot.code), Int32(Slot.columns), &row, 1)
        XSync(display, 1)
        try confirm(display, doing())
        slotSym[slot] = keysym
        slotSym[Slot(code: slot.code, column: partner)] = row[partner]
        changes += 1
    }

    /// A slot no waiting key can need: never used (the first of them, so that bindings go round the
    /// keycodes), or, the one used longest ago, one whose last key the focused program was shown to have
    /// handled by answering a marker sent after it; for a program that answers no marker, one this sink
    /// used and the program fetched the mapping after (`readSlot`). A slot that holds a key sent before this
    /// sink (by another process) is bound again only on a marker's answer: the fetches show only that the
    /// program read a change, and it may read one while keys queued before it still wait. When only such
    /// slots are left, a program judged by its fetches is sent markers again, for `evidenceWait`, and then
    /// the character is refused, never bound on weaker evidence.
    private func freeSlot(_ display: OpaquePointer, target: Window, for named: String) throws(OutputSinkError) -> Slot {
        if let never = slots.first(where: { lastKey[$0] == nil && slotSym[$0] == nil }) { return never }
        func age(_ slot: Slot) -> Int { lastKey[slot] ?? -1 }
        // A slow program that keeps handling its keys is waited for: the timeout runs from its last request.
        var progressAt = clock.now()
        var requests: UInt?
        // When this call found only other processes' slots left for a program judged by its fetches.
        var markersOnlySince: Double?
        while true {
            if let watch { takeAnswer(watch) }
            let free = slots.filter { (lastKey[$0] ?? -1) <= handledKey }
            if let slot = free.min(by: { age($0) < age($1) }) {
                if lastKey[slot] != nil { provenChanges += 1 }
                return slot
            }
            if watch == nil || answersMarkers == false {
                if let slot = try readSlot(display, target: target, for: named, deadline: progressAt + evidenceWait) { return slot }
                let now = clock.now()
                // Without RECORD no answer can be seen, so there is nothing to wait for.
                guard watch != nil, now <= (markersOnlySince ?? now) + evidenceWait else {
                    throw keysHeldElsewhere(display, target, before: named)
                }
                if markersOnlySince == nil { markersOnlySince = now }
            }
            guard let watch else { throw keysHeldElsewhere(display, target, before: named) }
            if marker == nil {
                try sendMarker(display, target: target, doing: UIMessage("asking the focused window to show it handled its keys", context: "X11 step"))
            } else if let waiting = marker, clock.now() > waiting.sentAt + Self.markerAgain {
                // xterm was seen leaving a marker it had read in its queue until another event came (10 s,
                // until the sink changed a binding): the same marker again is that event. An answer to
                // either shows the keys before the first handled.
                let doing = UIMessage("asking the focused window again to show it handled its keys", context: "X11 step")
                try alive(doing)
                handsfree_x11_send_marker(display, target, waiting.x, waiting.width)
                try alive(doing)
                XSync(display, 1)
                try confirm(display, doing)
                marker?.sentAt = clock.now()
            }
            _ = handsfree_x11_watch_poll(watch, 10, lost)
            try alive(UIMessage("waiting for the focused window to handle its keys", context: "X11 step"))
            let now = clock.now()
            let made = UInt(handsfree_x11_watch_requests(watch))
            if let seen = requests, made != seen {
                progressAt = now
                // A program that reads the mapping but has not answered a marker in all the time since is
                // taken for one that answers none, and goes by what it fetched from then on.
                if marker?.fetchedAt == nil { marker?.fetchedAt = now }
            }
            requests = made
            if answersMarkers == nil, let fetchedAt = marker?.fetchedAt, now > fetchedAt + evidenceWait {
                answersMarkers = false
                continue
            }
            if now > progressAt + evidenceWait {
                throw keysUnread(display, target, before: named)
            }
        }
    }

    /// Takes in what the watch recorded: a marker answered shows every key it covers handled.
    ///
    /// The first answer since the watch began counts for nothing but leave to send the next marker: an
    /// answer is a clearing of the marker's strip, and a marker of another process's (an earlier sink's,
    /// still waiting in the program's queue ahead of the keys it covers) may have the same strip, one
    /// chance in `markerStrips`; then this sink took the program's answer to that marker for its own, and
    /// bound a slot again while keys on it waited. The second marker is sent only after the first's
    /// answer, with a strip drawn anew, so the two answers in order are both another's only by two
    /// coincidences in order. Once they are in, every marker queued before the second has been answered
    /// (the program takes its queue in order), another process's too: one answer is enough from then on,
    /// unless another process sends the program markers at the same time, and two processes typing into
    /// one window at once mix their text anyway.
    private func takeAnswer(_ watch: UnsafeMutablePointer<handsfree_x11_watch>) {
        _ = handsfree_x11_watch_poll(watch, 0, lost)
        guard marker != nil, handsfree_x11_watch_answers(watch) > 0, let waiting = marker else { return }
        answeredMarkers = min(answeredMarkers + 1, 2)
        if answeredMarkers == 2 { handledKey = max(handledKey, waiting.covers) }
        marker = nil
        answersMarkers = true
    }

    /// Sends the focused program a marker behind every key sent so far (see the shim's watch).
    private func sendMarker(_ display: OpaquePointer, target: Window, doing: @autoclosure () -> UIMessage) throws(OutputSinkError) {
        guard let watch else { return }
        try alive(doing())
        var strip = testStrips.isEmpty ? Int.random(in: 0..<Self.markerStrips) : testStrips.removeFirst()
        while strip == lastStrip { strip = Int.random(in: 0..<Self.markerStrips) }
        lastStrip = strip
        let (x, width) = Self.strip(strip)
        marker = Marker(x: x, width: width, covers: keysSent, sentAt: clock.now())
        handsfree_x11_watch_expect(watch, x, width)
        handsfree_x11_send_marker(display, target, x, width)
        try alive(doing())
        XSync(display, 1)
        try confirm(display, doing())
    }

    /// After a key on a slot: takes in the program's answers, and when half the slots wait for one and no
    /// marker is out, sends one, so that the evidence is in before a slot is needed again.
    private func markAhead(_ display: OpaquePointer, target: Window) throws(OutputSinkError) {
        guard let watch, watchTarget == target, answersMarkers != false else { return }
        takeAnswer(watch)
        guard marker == nil else { return }
        let waiting = slots.reduce(0) { $0 + ((lastKey[$1] ?? -1) > handledKey ? 1 : 0) }
        if waiting * 2 >= slots.count {
            try sendMarker(display, target: target, doing: UIMessage("asking the focused window to show it handled its keys", context: "X11 step"))
        }
    }

    /// A slot for a program that shows only that it read a change: one this sink last used before a change
    /// it fetched the mapping after (and `grace` since). Waits for the evidence of the last change first, so
    /// there is never more than one change it has not shown it read; when every such slot was used since,
    /// makes one more change that alters nothing (then Shift, so that programs that fetch the mapping at
    /// their next key do so) and waits for that. Nil when every slot holds a key sent before this sink
    /// (`lastKey` 0), which this evidence cannot free.
    private func readSlot(_ display: OpaquePointer, target: Window, for named: String, deadline: Double) throws(OutputSinkError) -> Slot? {
        func age(_ slot: Slot) -> Int { lastUse[slot] ?? -1 }
        let own = slots.filter { lastKey[$0] != 0 }
        while true {
            if changes > proven {
                try awaitEvidence(display, target: target, deadline: deadline, for: named)
                continue
            }
            let free = own.filter { age($0) < proven }
            if let slot = free.min(by: { age($0) < age($1) }) {
                if lastUse[slot] != nil { clock.sleep(until: provenAt + Self.grace) }
                return slot
            }
            guard let slot = own.min(by: { age($0) < age($1) }) else { return nil }
            guard let sym = slotSym[slot] else { throw noSpareKeycode(for: named) }
            try change(display, slot, to: sym, doing: UIMessage("asking the focused window to read its keys", context: "X11 step"))
            let shift = try modifierCode([XK_Shift_L, XK_Shift_R], KeyLabel.shift)
            try alive(UIMessage("pressing Shift", context: "X11 step")); XTestFakeKeyEvent(display, UInt32(shift), 1, 0)
            try alive(UIMessage("pressing Shift", context: "X11 step")); XTestFakeKeyEvent(display, UInt32(shift), 0, 0)
            try alive(UIMessage("pressing Shift", context: "X11 step"))
            XSync(display, 1)
            try confirm(display, UIMessage("pressing Shift", context: "X11 step"))
        }
    }

    /// Watches the program that owns `target` for the mapping fetches that show it read its keys (RECORD).
    private func watchProgram(_ display: OpaquePointer, _ target: Window) {
        guard !noRecord, watchTarget != target, let displayName else { return }
        if let watch { handsfree_x11_watch_stop(watch, display, lost.pointee) }
        watch = handsfree_x11_watch_start(display, displayName, target, lost)
        watchTarget = watch == nil ? 0 : target
        if watch == nil { noRecord = true }
        // Changes made while another program had the focus are not this one's to show (its fetches); keys
        // sent to it are shown handled only by its answer to a marker of its own.
        proven = changes
        provenAt = clock.now()
        watchOffset = changes
        marker = nil
        answeredMarkers = 0
        handledKey = -1
        answersMarkers = assumeNoMarkers ? false : nil
    }

    /// Waits until the focused program fetched the mapping after the last change, or `unprovenWait` without
    /// RECORD; throws at `deadline`, naming the character that waits.
    private func awaitEvidence(_ display: OpaquePointer, target: Window, deadline: Double, for named: String) throws(OutputSinkError) {
        guard let watch else {
            clock.sleep(for: Self.unprovenWait)
            proven = changes
            provenAt = clock.now()
            return
        }
        while watchOffset + Int(handsfree_x11_watch_poll(watch, 10, lost)) < changes {
            try alive(UIMessage("waiting for the focused window to read its keys", context: "X11 step"))
            if clock.now() > deadline {
                throw keysUnread(display, target, before: named)
            }
        }
        proven = changes
        provenAt = clock.now()
        provenChanges += 1
    }
}
