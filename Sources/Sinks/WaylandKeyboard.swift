#if canImport(Glibc)
import Glibc
#endif
import CVirtualKeyboard
import Localization
import CWayland

/// One `zwp_virtual_keyboard_v1` on a Wayland compositor's first seat: the only user of libwayland-client
/// (through CVirtualKeyboard) and of libxkbcommon.
///
/// Every request is flushed at once; a failure, including a compositor that went away, is thrown as
/// `OutputSinkError` naming the display, and the keyboard is then unusable.
final class WaylandKeyboard {
    /// The display as the user named it, for messages.
    let display: String
    private let handle: OpaquePointer

    /// Connects to `socket` (a name in `$XDG_RUNTIME_DIR`, or an absolute path) and creates the keyboard.
    init(socket: String, display: String) throws(OutputSinkError) {
        self.display = display
        var status: Int32 = 0
        var code: Int32 = 0
        guard let handle = hf_vk_connect(socket, &status, &code) else {
            throw Self.connectFailure(status: status, code: code, display: display)
        }
        self.handle = handle
    }

    deinit { hf_vk_close(handle) }

    /// Sends an XKB text keymap; the keys that follow are read with it.
    func keymap(_ text: String) throws(OutputSinkError) {
        try checked(hf_vk_keymap(handle, text))
    }

    /// Presses or releases the key with this evdev code (the XKB keycode minus 8).
    func key(_ evdev: UInt32, pressed: Bool) throws(OutputSinkError) {
        try checked(hf_vk_key(handle, WaylandClient.milliseconds(), evdev, pressed ? 1 : 0))
    }

    /// Whether the seat had a keyboard before this one: if not, each program has to make a keyboard object of
    /// its own for this one before any key can reach it.
    var seatHadKeyboard: Bool { hf_vk_seat_had_keyboard(handle) != 0 }

    /// The connection's socket.
    var fd: Int32 { hf_vk_fd(handle) }

    /// How far behind the compositor's other programs are: the most bytes it sent one that the program has
    /// not read, and the most one sent that the compositor has not read. Nil when the kernel does not say.
    /// `other` is this process's pointer connection (`WaylandPointer.fd`), which no one reads meanwhile.
    func backlog(other: Int32 = -1) -> (clients: UInt32, compositor: UInt32)? {
        var clients: UInt32 = 0, compositor: UInt32 = 0
        guard hf_vk_backlog(handle, other, &clients, &compositor) == 0 else { return nil }
        return (clients, compositor)
    }

    /// The compositor's other programs as the kernel shows their connections, by the inode of their end: the
    /// bytes the compositor sent each that it has not read, and whether it closed its end (it ended, or the
    /// compositor cut it off). Nil when the kernel does not say. `other` as in `backlog`.
    func clients(other: Int32 = -1) -> [UInt32: (unread: UInt32, closed: Bool)]? {
        var list = [hf_wayland_client](repeating: hf_wayland_client(), count: 64)
        var count = hf_vk_clients(handle, other, &list, Int32(list.count))
        if count > Int32(list.count) {
            // More programs than room: once more with room for all (and some that came meanwhile).
            list = [hf_wayland_client](repeating: hf_wayland_client(), count: Int(count) + 64)
            count = hf_vk_clients(handle, other, &list, Int32(list.count))
        }
        guard count >= 0 else { return nil }
        var found: [UInt32: (unread: UInt32, closed: Bool)] = [:]
        for client in list.prefix(min(Int(count), list.count)) {
            found[client.inode] = (client.unread_by_client, client.closed != 0)
        }
        return found
    }

    /// The program that holds each socket (by its inode): its process and its name for messages, as
    /// `foot (pid 812)`; sockets whose program this process may not see are left out.
    static func owners(_ inodes: [UInt32]) -> [UInt32: (pid: Int, name: String)] {
        guard !inodes.isEmpty else { return [:] }
        var pids = [Int32](repeating: 0, count: inodes.count)
        guard hf_socket_owners(inodes, Int32(inodes.count), &pids) == 0 else { return [:] }
        var named: [UInt32: (pid: Int, name: String)] = [:]
        for (inode, pid) in zip(inodes, pids) where pid > 0 {
            var comm = [CChar](repeating: 0, count: 64)
            var name = "pid \(pid)"
            if let file = fopen("/proc/\(pid)/comm", "r") {
                if fgets(&comm, Int32(comm.count), file) != nil {
                    var read = String(decoding: comm.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    while read.last == "\n" { read.removeLast() }
                    if !read.isEmpty { name = "\(read) (pid \(pid))" }
                }
                fclose(file)
            }
            named[inode] = (Int(pid), name)
        }
        return named
    }

    /// Sets the modifiers held (a mask of the current keymap's modifier indices).
    func modifiers(_ mask: UInt32) throws(OutputSinkError) {
        try checked(hf_vk_modifiers(handle, mask, 0, 0, 0))
    }

    /// Waits until the compositor has handled everything sent, so a failure shows before `type` returns.
    func sync() throws(OutputSinkError) {
        try checked(hf_vk_sync(handle))
    }

    private func checked(_ result: Int32) throws(OutputSinkError) {
        guard result != 0 else { return }
        throw OutputSinkError(UIMessage("the Wayland display {display} stopped taking keys: {reason}", ["display": display],
                                        reasons: ["reason": WaylandClient.requestFailure(hf_vk_error(handle))]))
    }

    private static func connectFailure(status: Int32, code: Int32, display: String) -> OutputSinkError {
        switch UInt32(status) {
        case HF_VK_NO_DISPLAY.rawValue:
            return WaylandClient.noDisplay(display, code: code)
        case HF_VK_NO_SEAT.rawValue:
            return OutputSinkError(UIMessage("the Wayland display {display} offers no wl_seat: it has no keyboard to type with", ["display": display]))
        case HF_VK_NO_MANAGER.rawValue:
            return WaylandClient.noManager(display, "zwp_virtual_keyboard_manager_v1", pointer: false)
        default:
            return WaylandClient.failed(display, code: code, refused: UIMessage("the compositor refused the virtual keyboard"))
        }
    }

}

/// A key and the modifiers that make it give a keysym: `@` on a German layout is Q with AltGr (Mod5).
struct KeyStroke: Equatable {
    /// The evdev code (the XKB keycode minus 8), what `zwp_virtual_keyboard_v1.key` takes.
    var key: UInt32
    /// The modifier mask, in the keymap's modifier indices.
    var modifiers: UInt32
}

/// An XKB keymap compiled by libxkbcommon: its text for the compositor and which key gives each keysym.
final class XKBKeymap {
    /// The keymap as XKB text, sent to the compositor.
    let text: String
    /// For each keysym the layout's first group gives, the key at the lowest level that gives it.
    let strokes: [UInt32: KeyStroke]
    /// For each single-modifier mask, the evdev code of a key that holds it while pressed: Shift on Left Shift,
    /// AltGr (Mod5 in xkeyboard-config's layouts) on Right Alt. For sinks that press keys, not masks (uinput).
    let modifierKeys: [UInt32: UInt32]
    /// The masks of Shift, Control, Alt (Mod1) and Super (Mod4); 0 when the keymap lacks one.
    let shift, control, alt, superKey: UInt32
    /// Keycodes below 256 that give nothing, for `adding`: named ones (the evdev rules name most codes) first,
    /// then unnamed ones.
    let unusedKeys: [(code: UInt32, name: String?)]
    /// The keysyms `adding` put on keys of their own.
    private(set) var added: Set<UInt32> = []

    /// The user's layout: `XKB_DEFAULT_LAYOUT` and the other `XKB_DEFAULT_*` variables of `environment` (the
    /// sink's, so a test or caller can name another layout than the process has), else libxkbcommon's
    /// defaults.
    convenience init(environment: [String: String]) throws(OutputSinkError) {
        let names = ["RULES", "MODEL", "LAYOUT", "VARIANT", "OPTIONS"].map { part in
            environment["XKB_DEFAULT_" + part].flatMap { $0.isEmpty ? nil : strdup($0) }
        }
        defer { for name in names { free(name) } }
        try self.init(flags: XKB_CONTEXT_NO_ENVIRONMENT_NAMES) { context in
            var rmlvo = xkb_rule_names(rules: names[0].map { UnsafePointer($0) }, model: names[1].map { UnsafePointer($0) },
                                       layout: names[2].map { UnsafePointer($0) }, variant: names[3].map { UnsafePointer($0) },
                                       options: names[4].map { UnsafePointer($0) })
            return xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
    }

    /// A keymap from XKB text.
    convenience init(text: String) throws(OutputSinkError) {
        try self.init { context in
            xkb_keymap_new_from_string(context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
    }

    private init(flags: xkb_context_flags = XKB_CONTEXT_NO_FLAGS,
                 compile: (OpaquePointer) -> OpaquePointer?) throws(OutputSinkError) {
        guard let context = xkb_context_new(flags) else {
            throw OutputSinkError(UIMessage("libxkbcommon could not start"))
        }
        defer { xkb_context_unref(context) }
        guard let keymap = compile(context) else {
            throw OutputSinkError(UIMessage("libxkbcommon could not compile the keyboard layout (check XKB_DEFAULT_LAYOUT)"))
        }
        defer { xkb_keymap_unref(keymap) }
        guard let cText = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            throw OutputSinkError(UIMessage("libxkbcommon could not write the keyboard layout"))
        }
        text = String(cString: cText)
        free(cText)
        strokes = Self.walk(keymap)
        modifierKeys = Self.modifierKeys(keymap)
        func mask(_ name: String) -> UInt32 {
            let index = xkb_keymap_mod_get_index(keymap, name)
            return index == XKB_MOD_INVALID || index >= 32 ? 0 : 1 << index
        }
        var named: [(code: UInt32, name: String?)] = [], unnamed: [(code: UInt32, name: String?)] = []
        let low = max(8, xkb_keymap_min_keycode(keymap)), high = min(255, xkb_keymap_max_keycode(keymap))
        if low <= high {
            for code in low...high where xkb_keymap_num_layouts_for_key(keymap, code) == 0 {
                if let name = xkb_keymap_key_get_name(keymap, code) { named.append((code, String(cString: name))) }
                else { unnamed.append((code, nil)) }
            }
        }
        for code in UInt32(8)...255 where code < low || code > high { unnamed.append((code, nil)) }
        unusedKeys = named + unnamed
        shift = mask(XKB_MOD_NAME_SHIFT)
        control = mask(XKB_MOD_NAME_CTRL)
        alt = mask(XKB_MOD_NAME_ALT)
        superKey = mask(XKB_MOD_NAME_LOGO)
    }

    /// The most keys `adding` puts in one keymap: the keymap grows by about 60 bytes a key, and every program
    /// that has the focus is sent it whole.
    static let mostAdded = 1000

    /// This keymap with one more key for each of `syms` (keysyms it has no key for): on keycodes below 256 it
    /// leaves unused (which programs under Xwayland can also receive), then from 256 up. One keymap holds the
    /// layout and every character of a burst, so a text is one keymap change, not two a character.
    func adding(_ syms: [UInt32]) throws(OutputSinkError) -> XKBKeymap {
        var codes: [String] = [], keys: [String] = []
        var highest: UInt32 = 0
        for (i, sym) in syms.enumerated() {
            guard let symName = Self.name(ofKeysym: sym) else {
                throw OutputSinkError(UIMessage("cannot type {character}: XKB has no name for its key symbol", ["character": Self.describe(keysym: sym)]))
            }
            let name: String
            if i < unusedKeys.count, let existing = unusedKeys[i].name {
                name = existing
            } else {
                let code = i < unusedKeys.count ? unusedKeys[i].code : 256 + UInt32(i - unusedKeys.count)
                name = "HF\(i)"
                codes.append("\t<\(name)> = \(code);\n")
                highest = max(highest, code)
            }
            keys.append("\tkey <\(name)> { [ \(symName) ] };\n")
        }
        guard var keycodes = text.range(of: "xkb_keycodes"),
              let keycodesEnd = text.range(of: "\n};", range: keycodes.upperBound..<text.endIndex),
              let symbols = text.range(of: "xkb_symbols"),
              let symbolsEnd = text.range(of: "\n};", range: symbols.upperBound..<text.endIndex),
              keycodesEnd.lowerBound < symbols.lowerBound else {
            throw OutputSinkError(UIMessage("libxkbcommon wrote the keyboard layout in a form the sink cannot extend"))
        }
        var extended = String(text[..<keycodesEnd.lowerBound]) + "\n" + codes.joined()
            + String(text[keycodesEnd.lowerBound..<symbolsEnd.lowerBound]) + "\n" + keys.joined()
            + String(text[symbolsEnd.lowerBound...])
        if highest > 255 {
            keycodes = extended.range(of: "xkb_keycodes") ?? keycodes
            if let maximum = extended.range(of: #"maximum = \d+;"#, options: .regularExpression,
                                            range: keycodes.upperBound..<extended.endIndex) {
                extended.replaceSubrange(maximum, with: "maximum = \(highest);")
            }
        }
        let made = try XKBKeymap(text: extended)
        made.added = Set(syms)
        return made
    }

    /// A keysym for messages: the character it types, else its number.
    static func describe(keysym sym: UInt32) -> String {
        let code = xkb_keysym_to_utf32(sym)
        if code != 0, let scalar = Unicode.Scalar(code) { return TypedText.describe(scalar) }
        return "keysym 0x" + String(sym, radix: 16)
    }

    /// Every key's levels in the first group, lowest keycode and level first, so a keysym maps to the
    /// plainest way of typing it (the digit row, not a keypad; no modifier before Shift before AltGr). The
    /// usual keys (evdev codes below 256) come before the rare extra ones: € is AltGr+E, not KEY_EURO (435),
    /// which few keyboards have and a uinput keyboard does not send.
    private static func walk(_ keymap: OpaquePointer) -> [UInt32: KeyStroke] {
        var found: [UInt32: (level: UInt32, stroke: KeyStroke)] = [:]
        func rank(_ level: UInt32, _ keycode: UInt32) -> (UInt32, UInt32) { (keycode - 8 >= 256 ? 1 : 0, level) }
        let first = xkb_keymap_min_keycode(keymap), last = xkb_keymap_max_keycode(keymap)
        guard first >= 8, first <= last else { return [:] }
        for keycode in first...last {
            let levels = xkb_keymap_num_levels_for_key(keymap, keycode, 0)
            for level in 0..<levels {
                var syms: UnsafePointer<xkb_keysym_t>?
                guard xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, level, &syms) == 1,
                      let sym = syms?.pointee else { continue }
                var masks = [xkb_mod_mask_t](repeating: 0, count: 8)
                let count = xkb_keymap_key_get_mods_for_level(keymap, keycode, 0, level, &masks, masks.count)
                // A level no modifier combination reaches cannot be typed.
                guard count > 0, let mask = masks.prefix(count).min(by: { $0.nonzeroBitCount < $1.nonzeroBitCount })
                else { continue }
                if let old = found[sym], rank(old.level, old.stroke.key + 8) <= rank(level, keycode) { continue }
                found[sym] = (level, KeyStroke(key: keycode - 8, modifiers: mask))
            }
        }
        return found.mapValues(\.stroke)
    }

    /// Presses each key on a fresh state and keeps the modifier it holds; the usual modifier keys are tried
    /// first, so AltGr is Right Alt and not the spare <LVL3> key that also gives it.
    private static func modifierKeys(_ keymap: OpaquePointer) -> [UInt32: UInt32] {
        let first = xkb_keymap_min_keycode(keymap), last = xkb_keymap_max_keycode(keymap)
        guard first >= 8, first <= last else { return [:] }
        let usual: [UInt32] = [42, 54, 29, 97, 56, 100, 125, 126]
        var found: [UInt32: UInt32] = [:]
        for evdev in usual + (first...last).map({ $0 - 8 }) where (first...last).contains(evdev + 8) {
            guard let state = xkb_state_new(keymap) else { continue }
            _ = xkb_state_update_key(state, evdev + 8, XKB_KEY_DOWN)
            let mask = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED)
            xkb_state_unref(state)
            if mask.nonzeroBitCount == 1, found[mask] == nil { found[mask] = evdev }
        }
        return found
    }

    /// The keysym a character's scalar types, or nil when XKB has none (control characters, surrogates).
    static func keysym(_ scalar: Unicode.Scalar) -> UInt32? {
        let sym = xkb_utf32_to_keysym(scalar.value)
        return sym == 0 ? nil : sym
    }

    /// XKB's name of a keysym (`U20AC` for one it names by code point), or nil if it has none.
    static func name(ofKeysym sym: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = xkb_keysym_get_name(sym, &buffer, buffer.count)
        guard n > 0, n < buffer.count else { return nil }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
