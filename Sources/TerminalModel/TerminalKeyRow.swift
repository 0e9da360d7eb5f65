/// One key the Terminal screen offers beside the letter keyboard: a key sent to the child, or a latch.
public struct TerminalRowKey: Hashable, Sendable {
    /// What pressing it does.
    public enum Action: Hashable, Sendable {
        /// Sends this key (modified by any latch that is on).
        case key(TerminalKey)
        /// Turns a latch on (or off again): Ctrl or Alt held for the next key.
        case latch(TerminalModifiers)
    }

    /// A stable name for layouts, keymaps and tests: `enter`, `page-up`, `ctrl-c`, `ctrl-latch`, `pipe`, `digit-0`.
    public let id: String
    /// What the key shows.
    public let label: String
    public let action: Action

    public init(id: String, label: String, action: Action) {
        self.id = id
        self.label = label
        self.action = action
    }
}

/// The keys the Terminal screen offers: the key row programs need, and the symbol layer a shell needs.
public enum TerminalKeyRow {
    /// Enter, Tab, Esc, Backspace, arrows, PgUp/PgDn, Home/End, Ctrl-C/D/Z and the Ctrl and Alt latches.
    public static let keys: [TerminalRowKey] = [
        TerminalRowKey(id: "enter", label: "Enter", action: .key(.enter)),
        TerminalRowKey(id: "tab", label: "Tab", action: .key(.tab)),
        TerminalRowKey(id: "escape", label: "Esc", action: .key(.escape)),
        TerminalRowKey(id: "backspace", label: "Bksp", action: .key(.backspace)),
        TerminalRowKey(id: "up", label: "Up", action: .key(.up)),
        TerminalRowKey(id: "down", label: "Down", action: .key(.down)),
        TerminalRowKey(id: "left", label: "Left", action: .key(.left)),
        TerminalRowKey(id: "right", label: "Right", action: .key(.right)),
        TerminalRowKey(id: "page-up", label: "PgUp", action: .key(.pageUp)),
        TerminalRowKey(id: "page-down", label: "PgDn", action: .key(.pageDown)),
        TerminalRowKey(id: "home", label: "Home", action: .key(.home)),
        TerminalRowKey(id: "end", label: "End", action: .key(.end)),
        TerminalRowKey(id: "ctrl-c", label: "Ctrl-C", action: .key(.ctrl("c"))),
        TerminalRowKey(id: "ctrl-d", label: "Ctrl-D", action: .key(.ctrl("d"))),
        TerminalRowKey(id: "ctrl-z", label: "Ctrl-Z", action: .key(.ctrl("z"))),
        TerminalRowKey(id: "ctrl-latch", label: "Ctrl", action: .latch(.ctrl)),
        TerminalRowKey(id: "alt-latch", label: "Alt", action: .latch(.alt)),
    ]

    /// The symbol layer: `- / . | > < ~ $ * & ; : = _ " '` and the digits.
    public static let symbols: [TerminalRowKey] = {
        let named: [(String, Character)] = [
            ("minus", "-"), ("slash", "/"), ("dot", "."), ("pipe", "|"), ("greater", ">"), ("less", "<"),
            ("tilde", "~"), ("dollar", "$"), ("star", "*"), ("ampersand", "&"), ("semicolon", ";"), ("colon", ":"),
            ("equals", "="), ("underscore", "_"), ("double-quote", "\""), ("quote", "'"),
        ]
        let symbols = named.map { TerminalRowKey(id: $0.0, label: String($0.1), action: .key(.char($0.1))) }
        let digits = "0123456789".map { TerminalRowKey(id: "digit-\($0)", label: String($0), action: .key(.char($0))) }
        return symbols + digits
    }()

    /// The key with this id in the key row or the symbol layer.
    public static func key(id: String) -> TerminalRowKey? {
        keys.first { $0.id == id } ?? symbols.first { $0.id == id }
    }
}

/// A key with the modifiers it is sent with, ready for `HostedTerminal.send` or `TmuxSink.send`.
public struct TerminalKeyPress: Hashable, Sendable {
    public var key: TerminalKey
    public var modifiers: TerminalModifiers

    public init(_ key: TerminalKey, modifiers: TerminalModifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }
}

/// The Ctrl, Alt and Super (logo) latches of the key row: a latch that is on modifies the next key, then releases.
///
/// Pressing a latch again turns it off. Both may be on (Ctrl-Alt). Pure state: the screen owns one value.
public struct TerminalLatches: Hashable, Sendable {
    /// The latches that are on.
    public private(set) var held: TerminalModifiers = []

    public init(held: TerminalModifiers = []) { self.held = held.intersection([.ctrl, .alt, .logo]) }

    /// Turns the latches in `modifiers` on, or off if they are on.
    public mutating func toggle(_ modifiers: TerminalModifiers) {
        held.formSymmetricDifference(modifiers.intersection([.ctrl, .alt, .logo]))
    }

    /// Applies a key-row or symbol key: a latch toggles and sends nothing; a key is sent with the latches on.
    public mutating func press(_ rowKey: TerminalRowKey) -> TerminalKeyPress? {
        switch rowKey.action {
        case .latch(let m):
            toggle(m)
            return nil
        case .key(let k):
            return press(k)
        }
    }

    /// The press that sends `key` with the latches that are on, which then release.
    ///
    /// A character under Ctrl becomes its control chord (`c` → Ctrl-C, the interrupt), under Alt its Meta
    /// chord (ESC then the character); a named key gets the modifiers (Ctrl-Left moves a word back).
    public mutating func press(_ key: TerminalKey) -> TerminalKeyPress {
        let mods = held
        held = []
        guard !mods.isEmpty else { return TerminalKeyPress(key) }
        switch key {
        case .char(let c):
            if mods.contains(.ctrl) { return TerminalKeyPress(.ctrl(c), modifiers: mods.subtracting(.ctrl)) }
            if mods.contains(.alt) { return TerminalKeyPress(.alt(c), modifiers: mods.subtracting(.alt)) }
            return TerminalKeyPress(key, modifiers: mods)
        case .ctrl(let c):
            return TerminalKeyPress(.ctrl(c), modifiers: mods.subtracting(.ctrl))
        case .alt(let c):
            return TerminalKeyPress(.alt(c), modifiers: mods.subtracting(.alt))
        default:
            return TerminalKeyPress(key, modifiers: mods)
        }
    }

    /// Presses for typed or dictated text: the latches modify only its first character, the rest goes plain.
    public mutating func type(_ text: String) -> [TerminalKeyPress] {
        var out: [TerminalKeyPress] = []
        for c in text {
            out.append(out.isEmpty ? press(.char(c)) : TerminalKeyPress(.char(c)))
        }
        return out
    }
}
