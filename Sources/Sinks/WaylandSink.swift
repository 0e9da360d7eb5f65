#if canImport(Glibc)
import Glibc
#endif
import Localization
import PtyHost
import SystemIO
import TerminalModel

/// The focused window of a Wayland desktop, typed into through the compositor's virtual keyboard
/// (`--type-into wayland`, or `wayland:SOCKET`; the socket defaults to `$WAYLAND_DISPLAY`).
///
/// The keyboard carries the user's layout from libxkbcommon (`XKB_DEFAULT_LAYOUT`, else the system's
/// defaults), so the focused program reads the characters it would read from the user's own keyboard. The
/// characters of a text the layout has no key for are put, all at once, on unused keys of one keymap that
/// also holds the whole layout (`XKBKeymap.adding`): a text is at most one keymap change, made before its
/// first key and confirmed by a round trip, and the keymap stays for the texts after it. A character XKB
/// cannot name is refused before anything is sent. `type` returns once the programs the keys went to have
/// read them (as the kernel shows their connections); the program of the focused window (as sway's IPC
/// says; any program where it does not) leaving the display during a text (it ended, or the compositor cut
/// it off) fails the text, naming what it was not shown to read. The
/// connection is made by `check` or the first key and made again after a failure, so a compositor that
/// restarts is reached.
public final class WaylandSink: TextSink, PointerSink {
    public static let kind = OutputSinkKind(
        scheme: "wayland", argument: "SOCKET", argumentIsOptional: true, example: "wayland:wayland-1",
        summary: N_("the focused window of a wlroots desktop (sway), through its virtual keyboard; SOCKET defaults to $WAYLAND_DISPLAY")
    ) { socket, _ in WaylandSink(socket: socket) }

    /// The socket named after the colon, else nil for `$WAYLAND_DISPLAY`.
    public let socket: String?
    private let environment: [String: String]
    private var keyboard: WaylandKeyboard?
    /// Made on the first pointer event, on a connection of its own (see `WaylandPointer`).
    private var pointer: WaylandPointer?
    private var layout: XKBKeymap?
    /// The keymap the compositor holds: the layout, or the layout with keys added; and the modifiers held.
    private var current: XKBKeymap?
    private var held: UInt32 = 0
    /// How many keymaps were sent since the connection was made (the first is the layout).
    public private(set) var keymapsSent = 0
    /// Keys that may go at once, and when that was counted (see `burst`).
    private var allowance = Double(WaylandSink.burst)
    private var counted: Double
    /// Paces the keys and times the waits for the compositor's programs.
    private let clock: any ShellClock

    public init(socket: String?, environment: [String: String] = PtyProcess.currentEnvironment(),
                clock: any ShellClock = LiveClock()) {
        self.socket = socket
        self.environment = environment
        self.clock = clock
        counted = clock.now()
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
        try send(try Self.plan(text, layout: layout), of: text)
    }

    public func press(_ press: TerminalKeyPress) throws(OutputSinkError) {
        let layout = try loadedLayout()
        var extra: UInt32 = 0
        if press.modifiers.contains(.shift) { extra |= layout.shift }
        if press.modifiers.contains(.ctrl) { extra |= layout.control }
        if press.modifiers.contains(.alt) { extra |= layout.alt }
        if press.modifiers.contains(.logo) {
            guard layout.superKey != 0 else { throw OutputSinkError(UIMessage("the keyboard layout has no Super (logo) modifier")) }
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
                throw .noKey(sink: name, key: TerminalKeyPress(press.key))
            }
            stroke = KeyStroke(key: code, modifiers: extra)
        }
        // Every keymap the sink sends holds the layout on the same keys, with the same modifiers.
        try send([Item(sym: nil, stroke: stroke, at: nil)], of: "")
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
            throw Self.noDisplay
        }
        let made = try WaylandPointer(socket: display, display: display)
        // A seat that had no pointer gains one with this: as with the keyboard, the first event waits until
        // the programs have taken it up (a click sent at once reached sway's focus, and no GTK window).
        if !made.seatHadPointer {
            let other = keyboard?.fd ?? -1
            try awaitTakenUp(backlog: { made.backlog(other: other) }, sync: made.sync,
                             refused: UIMessage("a program on the Wayland display {display} has not read what the compositor sent it for {seconds} s (it is busy or stopped), so it cannot have taken up the new pointer: nothing was clicked",
                                                ["display": display, "seconds": "\(Int(Self.takeUpTimeout))"]))
        }
        pointer = made
        return made
    }

    // MARK: Keys

    /// One key to tap: a keysym to look up in the keymap the compositor holds (nil for a stroke given
    /// outright), and where in the text it comes from (nil for a key pressed on its own).
    struct Item: Equatable {
        var sym: UInt32?
        var stroke: KeyStroke?
        var at: String.Index?
    }

    /// The keys that type `text`, by `TypedText`'s rule: each character's keysym, line ends as Return and the
    /// other keys as theirs. Throws, naming the character, for one XKB has no keysym for, before anything
    /// is sent.
    static func plan(_ text: String, layout: XKBKeymap) throws(OutputSinkError) -> [Item] {
        var items: [Item] = []
        for piece in try TypedText.pieces(text) {
            switch piece {
            case .key(let key, let range):
                items.append(Item(sym: keysym(of: key), stroke: nil, at: range.lowerBound))
            case .text(let range):
                let scalars = text.unicodeScalars
                var i = range.lowerBound
                while i < range.upperBound {
                    guard let sym = XKBKeymap.keysym(scalars[i]) else {
                        throw OutputSinkError(UIMessage("cannot type {character} at byte {byte}: XKB has no key symbol for it",
                                                                    ["character": TypedText.describe(scalars[i]),
                                                                     "byte": "\(text.utf8.distance(from: text.startIndex, to: i))"]))
                    }
                    items.append(Item(sym: sym, stroke: nil, at: i))
                    i = scalars.index(after: i)
                }
            }
        }
        return items
    }

    /// The keysym of a key `TypedText` names.
    static func keysym(of key: TerminalKey) -> UInt32 {
        switch key {
        case .tab: return keysymTab
        case .escape: return 0xff1b
        case .backspace: return 0xff08
        default: return keysymReturn
        }
    }

    /// No display named and none in the environment.
    static var noDisplay: OutputSinkError {
        OutputSinkError(UIMessage("no Wayland display: WAYLAND_DISPLAY is not set (run inside a Wayland session, or name its socket: {example})",
                                  ["example": "wayland:wayland-1"]))
    }

    /// A chord whose character has no key of its own on the layout (here and in the uinput sink).
    static func noKeyWithModifiers(_ c: Character) -> OutputSinkError {
        OutputSinkError(UIMessage("cannot send {character} with modifiers: the keyboard layout has no key for it", ["character": describe(c)]))
    }

    /// The key that types `c` on the layout, with `modifiers` added; a chord needs the layout's own key.
    static func stroke(for c: Character, layout: XKBKeymap, adding modifiers: UInt32) throws(OutputSinkError) -> KeyStroke {
        guard c.unicodeScalars.count == 1, let scalar = c.unicodeScalars.first,
              let sym = XKBKeymap.keysym(scalar), var stroke = layout.strokes[sym] else {
            throw noKeyWithModifiers(c)
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
        c.unicodeScalars.map(TypedText.describe).joined(separator: " ")
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
            throw Self.noDisplay
        }
        let layout = try loadedLayout()
        let made = try WaylandKeyboard(socket: display, display: display)
        try made.keymap(layout.text)
        // The round trip: the compositor has the keymap, and has told the programs of a seat that had no
        // keyboard that it has one now.
        try made.sync()
        keyboard = made
        takenUp = made.seatHadKeyboard
        current = layout
        keymapsSent = 1
        held = 0
        return made
    }

    /// Whether the programs have taken the keyboard up (see `awaitTakenUp`).
    private var takenUp = true

    /// On a seat that had no keyboard before the sink's, each program must make a keyboard object for it,
    /// and keys sent before the focused one has are dropped (whole lines in the sway tests; everything, to a
    /// program busy at that moment). No protocol says when another program has handled an event, but the
    /// kernel says when it has read it: this waits until every program has read all the compositor sent
    /// (the news of the keyboard among it) and the compositor all they sent back (their requests for
    /// keyboard objects), twice, a round trip apart. A program that has not within `takeUpTimeout` is
    /// stopped or hung: the text is refused, all of it unsent. Where the kernel does not answer, `settle`.
    private func awaitTakenUp(_ keyboard: WaylandKeyboard) throws(OutputSinkError) {
        guard !takenUp else { return }
        let other = pointer?.fd ?? -1
        try awaitTakenUp(backlog: { keyboard.backlog(other: other) }, sync: keyboard.sync,
                         refused: UIMessage("a program on the Wayland display {display} has not read what the compositor sent it for {seconds} s (it is busy or stopped), so it cannot have taken up the new keyboard: nothing was typed",
                                            ["display": keyboard.display, "seconds": "\(Int(Self.takeUpTimeout))"]))
        takenUp = true
    }

    /// The wait of `awaitTakenUp(_:)` for a new keyboard or pointer: its connection's `backlog` and `sync`;
    /// `refused` is what a program that did not take it up in time is told as.
    private func awaitTakenUp(backlog: () -> (clients: UInt32, compositor: UInt32)?, sync: () throws(OutputSinkError) -> Void,
                              refused: UIMessage) throws(OutputSinkError) {
        let deadline = clock.now() + Self.takeUpTimeout
        var quiet = 0
        while quiet < 2 {
            guard let behind = backlog() else {
                clock.sleep(for: Self.settle)
                break
            }
            if behind.clients == 0 && behind.compositor == 0 {
                quiet += 1
                if quiet == 2 { break }
                clock.sleep(for: 0.02)
                try sync()
                continue
            }
            quiet = 0
            guard clock.now() < deadline else {
                throw OutputSinkError(refused)
            }
            clock.sleep(for: 0.005)
        }
    }

    /// How long programs get to take up a seat's first keyboard; how long one is given without the kernel's
    /// word.
    static let takeUpTimeout = 5.0
    static let settle = 0.15

    /// Keys sent between two looks at the programs (`look`), and the most bytes of events a program may leave
    /// unread at a look before the sink waits for it. libwayland keeps 4 KB for a program whose socket is
    /// full and cuts the program off when that overflows ("Data too big for buffer"): the socket holds
    /// about 208 KB as the kernel counts it (each message the compositor writes costs some hundred bytes
    /// besides its own), and a look lets through at most `mostBehind` and then `batch` keys, each a few
    /// messages, far below that. (The first 400 keys went unlooked at; foot, slowed by a busy machine, was
    /// cut off after 189 characters of 5,040.)
    static let batch = 16
    static let mostBehind: UInt32 = 32 * 1024
    /// How long a program may read nothing of what is waiting for it before the text stops there.
    static let catchUpTimeout = 10.0

    /// What the sink saw of the display's other programs during one text: the connections there when it
    /// began (a program that leaves meanwhile may have been the window typed into), how far each was shown
    /// to have read (the items before that index), and what each had unread at the start.
    private struct Watch {
        var readUpTo: [UInt32: Int]
        var unreadAtStart: [UInt32: UInt32]
        /// The programs seen with more unread than at the start: those the keys go to.
        var receivers: Set<UInt32> = []
        /// The processes whose window had the focus at some look during the text, as sway's tree says; nil
        /// where it does not (no `SWAYSOCK`: another compositor), and then any program that leaves fails the
        /// text.
        var focused: Set<Int>?
        /// When sway's tree was last read.
        var focusReadAt: Double = 0
    }

    /// How often, at most, a text asks sway again which window has the focus (the user may click another
    /// mid-text): reading the tree costs some milliseconds, a look comes every 16 keys.
    static let focusInterval = 0.25

    /// The process showing the focused window, from sway's tree; nil where sway does not answer.
    private func focusedPid() -> Int? {
        SwayTree.read(environment: environment)?.focusedPid
    }

    /// Whether the connection `inode` leaving fails the text: it is a focused window's program; or sway
    /// did not say which window has the focus, or none of the programs watched shows it (an Xwayland
    /// window, a program this process may not see), and then any program is.
    private func isTarget(_ inode: UInt32, of watch: Watch) -> Bool {
        guard let focused = watch.focused else { return true }
        let known = watch.readUpTo.keys.contains { owners[$0].map { focused.contains($0.pid) } ?? false }
        guard known else { return true }
        return owners[inode].map { focused.contains($0.pid) } ?? false
    }

    /// The programs on the display, for a text about to start; nil where the kernel does not say.
    private func watch(_ keyboard: WaylandKeyboard) -> Watch? {
        guard let clients = keyboard.clients(other: pointer?.fd ?? -1) else { return nil }
        owners = owners.filter { clients[$0.key] != nil }
        let unknown = clients.keys.filter { owners[$0] == nil }
        if !unknown.isEmpty {
            // Named now: a program that leaves can no longer be found by its socket.
            for (inode, owner) in WaylandKeyboard.owners(Array(unknown)) { owners[inode] = owner }
        }
        // One that closed its end already is not typed into by this text.
        let open = clients.filter { !$0.value.closed }
        return Watch(readUpTo: open.mapValues { _ in 0 }, unreadAtStart: open.mapValues(\.unread),
                     focused: focusedPid().map { [$0] }, focusReadAt: clock.now())
    }

    /// The programs' processes and names by their socket's inode, kept while the connection lasts.
    private var owners: [UInt32: (pid: Int, name: String)] = [:]

    /// Taps the items, each with the keymap the compositor holds, changed (once for as many of their
    /// characters the layout lacks as one keymap holds) and confirmed by a round trip before the keys that
    /// need it; every `batch` keys and at the end it looks at the programs (`look`). On a failure the
    /// connection is dropped, so the next key connects again, and the error names what of `text` was not
    /// shown to arrive.
    private func send(_ items: [Item], of text: String) throws(OutputSinkError) {
        let keyboard = try connected()
        let layout = try loadedLayout()
        // Everything before this item is known to have reached the compositor.
        var confirmed = 0
        var index = 0
        // Refused whole, the keyboard kept: the programs go on taking it up meanwhile.
        try awaitTakenUp(keyboard)
        var watched = watch(keyboard)
        var sinceLook = 0
        do throws(OutputSinkError) {
            while index < items.count {
                // The run of items one keymap can type: as long as their missing keysyms fit in one.
                var end = index
                var needed = Set<UInt32>(), order: [UInt32] = []
                while end < items.count {
                    if let sym = items[end].sym, layout.strokes[sym] == nil, !needed.contains(sym) {
                        if needed.count == XKBKeymap.mostAdded { break }
                        needed.insert(sym); order.append(sym)
                    }
                    end += 1
                }
                let keymap: XKBKeymap
                if let current, needed.isSubset(of: current.added) {
                    keymap = current
                } else {
                    keymap = order.isEmpty ? layout : try layout.adding(order)
                    try keyboard.keymap(keymap.text)
                    try keyboard.sync()
                    confirmed = index
                    current = keymap
                    keymapsSent += 1
                    held = 0
                }
                for item in items[index..<end] {
                    guard let stroke = item.stroke ?? item.sym.flatMap({ keymap.strokes[$0] }) else {
                        throw OutputSinkError(item.sym.map {
                            UIMessage("cannot type {character}: neither the keyboard layout nor an added key gives it",
                                      ["character": XKBKeymap.describe(keysym: $0)])
                        } ?? UIMessage("cannot type a key: neither the keyboard layout nor an added key gives it"))
                    }
                    if sinceLook == Self.batch {
                        try look(&watched, at: index, of: items, text: text, on: keyboard, drain: false)
                        confirmed = index
                        sinceLook = 0
                    }
                    try tap(stroke, on: keyboard)
                    sinceLook += 1
                    index += 1
                }
            }
            if held != 0 { try keyboard.modifiers(0); held = 0 }
            try look(&watched, at: items.count, of: items, text: text, on: keyboard, drain: true)
        } catch {
            self.keyboard = nil
            current = nil
            let from = items.indices.contains(confirmed) ? items[confirmed].at : nil
            // A program's failure names its own point; the compositor's is where the round trips got to.
            throw error.unsent == nil ? error.leaving(from.map { TypedText.rest(text, from: $0) }) : error
        }
    }

    /// After a round trip (the compositor has passed on every key before `index`), looks at the programs:
    /// one that left the display since the text began may have been the window typed into, so the text
    /// stops, naming what it was not shown to have read; while one has more than `mostBehind` unread (or,
    /// to `drain` at the end, while one the keys went to has more than when the text began) the sink waits,
    /// and stops the text when none of it was read for `catchUpTimeout`. A program that reads everything is
    /// shown to have the keys: no protocol says when it has handled them, but the kernel says when it has
    /// read them.
    private func look(_ watched: inout Watch?, at index: Int, of items: [Item], text: String,
                      on keyboard: WaylandKeyboard, drain: Bool) throws(OutputSinkError) {
        try keyboard.sync()
        guard var watch = watched else { return }
        defer { watched = watch }
        if watch.focused != nil, clock.now() - watch.focusReadAt >= Self.focusInterval {
            // Keys sent since the last read may have gone to a window focused meanwhile.
            if let pid = focusedPid() { watch.focused?.insert(pid) }
            watch.focusReadAt = clock.now()
        }
        var deadline = clock.now() + Self.catchUpTimeout
        var least = UInt32.max
        while true {
            guard let clients = keyboard.clients(other: pointer?.fd ?? -1) else {
                watched = nil
                return
            }
            for (inode, client) in clients where !client.closed {
                if client.unread == 0, watch.readUpTo[inode] != nil { watch.readUpTo[inode] = index }
                if client.unread > watch.unreadAtStart[inode] ?? 0 { watch.receivers.insert(inode) }
            }
            for (inode, read) in watch.readUpTo.sorted(by: { $0.key < $1.key }) where read < items.count {
                guard clients[inode].map({ $0.closed }) ?? true else { continue }
                guard isTarget(inode, of: watch) else {
                    // Another window's program: the keys did not go to it, and its leaving loses nothing.
                    watch.readUpTo[inode] = nil
                    continue
                }
                throw left(inode, read: read, of: items, text: text, display: keyboard.display)
            }
            let waiting = clients.filter { inode, client in
                // One that left reads nothing more; whether that fails the text was settled above.
                !client.closed && (drain ? watch.receivers.contains(inode) && client.unread > watch.unreadAtStart[inode] ?? 0
                      : client.unread > Self.mostBehind)
            }
            guard let slowest = waiting.max(by: { $0.value.unread < $1.value.unread }) else { return }
            if slowest.value.unread < least {
                least = slowest.value.unread
                deadline = clock.now() + Self.catchUpTimeout
            } else if clock.now() >= deadline {
                let read = watch.readUpTo[slowest.key] ?? 0
                let from = items.indices.contains(read) ? items[read].at : nil
                throw OutputSinkError(UIMessage("{program} on the Wayland display {display} stopped reading its keys ({size} KB of them unread for {seconds} s)",
                                                ["display": keyboard.display, "size": "\(slowest.value.unread / 1024)",
                                                 "seconds": "\(Int(Self.catchUpTimeout))"],
                                                reasons: ["program": program(slowest.key)]),
                                      unsent: from.map { TypedText.rest(text, from: $0) })
            }
            clock.sleep(for: 0.002)
        }
    }

    /// A program as messages name it: `foot (pid 812)`, else "a program".
    private func program(_ inode: UInt32) -> UIMessage {
        owners[inode].map { UIMessage.verbatim($0.name) } ?? UIMessage("a program")
    }

    /// The failure for a program that left the display during a text, having read the items before `read`.
    private func left(_ inode: UInt32, read: Int, of items: [Item], text: String,
                      display: String) -> OutputSinkError {
        let from = items.indices.contains(read) ? items[read].at : nil
        let delivered = from.map { text[..<$0].count } ?? 0
        return OutputSinkError(.plural("{program} left the Wayland display {display} while it was being typed into (it ended, or the compositor cut it off): {delivered} of {n} character was shown to reach it",
                                       "{program} left the Wayland display {display} while it was being typed into (it ended, or the compositor cut it off): {delivered} of {n} characters were shown to reach it",
                                       text.count, ["display": display, "delivered": "\(delivered)"],
                                       reasons: ["program": program(inode)]),
                               unsent: from.map { TypedText.rest(text, from: $0) } ?? text)
    }

    /// Keys sent at once before pacing starts, and the pace after, in keys a second: a sentence goes at
    /// once, a long text at a pace foot kept up with. (`look` is what keeps a slow program from being cut
    /// off.)
    static let burst = 400
    static let pace = 1000.0

    /// Taps one key, first waiting for the pace.
    private func tap(_ stroke: KeyStroke, on keyboard: WaylandKeyboard) throws(OutputSinkError) {
        let now = clock.now()
        allowance = min(Double(Self.burst), allowance + (now - counted) * Self.pace)
        counted = now
        if allowance < 1 {
            clock.sleep(for: (1 - allowance) / Self.pace)
            allowance = 1
            counted = clock.now()
        }
        allowance -= 1
        if stroke.modifiers != held { try keyboard.modifiers(stroke.modifiers); held = stroke.modifiers }
        try keyboard.key(stroke.key, pressed: true)
        try keyboard.key(stroke.key, pressed: false)
    }
}
