/// Modifier keys held with a key sent to a hosted program.
public struct TerminalModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = TerminalModifiers(rawValue: 1)
    public static let alt = TerminalModifiers(rawValue: 2)
    public static let ctrl = TerminalModifiers(rawValue: 4)
    /// The logo key (Super, Windows): only the desktop sinks can send it; a terminal has no code for it.
    public static let logo = TerminalModifiers(rawValue: 8)
}

/// A key the user sends to a hosted program: named keys, characters, and Ctrl/Alt chords.
public enum TerminalKey: Hashable, Sendable {
    case enter, tab, escape, backspace
    case up, down, left, right
    case insert, delete, home, end, pageUp, pageDown
    /// F1…F12 (1-based).
    case function(Int)
    /// A character as typed (may hold combining marks).
    case char(Character)
    /// Ctrl with a character: `ctrl("c")` is the interrupt, `ctrl("d")` end of input, `ctrl("z")` suspend.
    case ctrl(Character)
    /// Alt (Meta) with a character: ESC then the character.
    case alt(Character)

    /// The named keys libvterm encodes itself (its `VTermKey` numbering).
    public enum Named: UInt32, Sendable {
        case enter = 1, tab, backspace, escape, up, down, left, right, insert, delete, home, end, pageUp, pageDown
        /// `VTERM_KEY_FUNCTION_0`; F*n* is this plus *n*.
        static let function0: UInt32 = 256
    }

    /// One libvterm keyboard call.
    public enum Call: Equatable, Sendable {
        /// `vterm_keyboard_key(vt, key, mods)` with a `VTermKey` value.
        case key(UInt32, TerminalModifiers)
        /// `vterm_keyboard_unichar(vt, scalar, mods)`.
        case unichar(UInt32, TerminalModifiers)
    }

    /// The libvterm calls that send this key with `extra` modifiers held.
    ///
    /// libvterm then encodes them following the child's modes (Up is `ESC [ A`, or `ESC O A` once vim or less
    /// turned on application cursor keys), so nothing here hand-makes escape sequences.
    public func calls(modifiers extra: TerminalModifiers = []) -> [Call] {
        func named(_ n: Named) -> [Call] { [.key(n.rawValue, extra)] }
        switch self {
        case .enter: return named(.enter)
        case .tab: return named(.tab)
        case .escape: return named(.escape)
        case .backspace: return named(.backspace)
        case .up: return named(.up)
        case .down: return named(.down)
        case .left: return named(.left)
        case .right: return named(.right)
        case .insert: return named(.insert)
        case .delete: return named(.delete)
        case .home: return named(.home)
        case .end: return named(.end)
        case .pageUp: return named(.pageUp)
        case .pageDown: return named(.pageDown)
        case .function(let n):
            guard (1...24).contains(n) else { return [] }
            return [.key(Named.function0 + UInt32(n), extra)]
        case .char(let c):
            return c.unicodeScalars.map { .unichar($0.value, extra) }
        case .alt(let c):
            return TerminalKey.char(c).calls(modifiers: extra.union(.alt))
        case .ctrl(let c):
            return TerminalKey.ctrlCalls(c, extra: extra)
        }
    }

    /// Ctrl chords as a terminal sends them: letters as their control codes whatever their case.
    ///
    /// libvterm would encode Ctrl with I, J, M or [ (and any capital) as `CSI u`, which shells do not read, so
    /// those go out as the keys they are the same byte as.
    private static func ctrlCalls(_ c: Character, extra: TerminalModifiers) -> [Call] {
        guard c.unicodeScalars.count == 1, let s = c.unicodeScalars.first else {
            return TerminalKey.char(c).calls(modifiers: extra.union(.ctrl))
        }
        let lower = (s.value >= 0x41 && s.value <= 0x5a) ? s.value + 0x20 : s.value
        let rest = extra.subtracting(.ctrl)
        switch lower {
        case 0x69: return [.key(Named.tab.rawValue, rest)]          // Ctrl-I is Tab
        case 0x6d: return [.key(Named.enter.rawValue, rest)]        // Ctrl-M is CR
        case 0x5b: return [.key(Named.escape.rawValue, rest)]       // Ctrl-[ is ESC
        case 0x6a: return [.unichar(0x0a, rest)]                    // Ctrl-J is LF
        default: return [.unichar(lower, rest.union(.ctrl))]
        }
    }
}
