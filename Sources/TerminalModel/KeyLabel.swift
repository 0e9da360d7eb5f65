import Localization

/// Keys named in messages ("the keyboard has no Ctrl key", "tmux has no name for Page Up") as the user's
/// desktop labels them in the user's language: GTK's keyboard labels (`msgctxt "keyboard label"` in its
/// catalogs), which its shortcuts show and which most keyboards of that language carry on their keycaps
/// ("Strg", "Entf", "Bild auf" in German; "Supr", "Re Pág" in Spanish; "Échap", "Suppr" in French). A user
/// looks for the key under that name, not under an English word or the program's own name of it.
public enum KeyLabel {
    /// The context the labels are translated in, the same as GTK's.
    public static let context = "keyboard label"

    /// The Control key.
    public static var ctrl: UIMessage { UIMessage("Ctrl", context: "keyboard label") }
    /// The Alt key.
    public static var alt: UIMessage { UIMessage("Alt", context: "keyboard label") }
    /// The logo key (Windows key), as GTK calls it.
    public static var superKey: UIMessage { UIMessage("Super", context: "keyboard label") }
    /// The Shift key.
    public static var shift: UIMessage { UIMessage("Shift", context: "keyboard label") }
    /// The space bar.
    public static var space: UIMessage { UIMessage("Space", context: "keyboard label") }
    /// The key right of the space bar that gives a layout's third level: "AltGr" on the keycaps of every
    /// language here (GTK has no label of its own for it).
    public static var altGr: UIMessage { .verbatim("AltGr") }

    /// The modifiers' labels in GTK's order (Ctrl, Alt, Super).
    static func labels(_ modifiers: TerminalModifiers) -> [UIMessage] {
        [(TerminalModifiers.ctrl, ctrl), (.alt, alt), (.logo, superKey)].filter { modifiers.contains($0.0) }.map(\.1)
    }
}

extension TerminalKey {
    /// The key as the desktop labels it in the user's language; a chord joins its keys with "+" as GTK's
    /// shortcuts do ("Strg+C"); a function key or a character is the same in every language ("F5", "é").
    public var label: UIMessage {
        // The context is written out at each label: the extractor reads literals only.
        switch self {
        case .enter: UIMessage("Enter", context: "keyboard label")
        case .tab: UIMessage("Tab", context: "keyboard label")
        case .escape: UIMessage("Esc", context: "keyboard label")
        case .backspace: UIMessage("Backspace", context: "keyboard label")
        case .up: UIMessage("Up", context: "keyboard label")
        case .down: UIMessage("Down", context: "keyboard label")
        case .left: UIMessage("Left", context: "keyboard label")
        case .right: UIMessage("Right", context: "keyboard label")
        case .insert: UIMessage("Insert", context: "keyboard label")
        case .delete: UIMessage("Delete", context: "keyboard label")
        case .home: UIMessage("Home", context: "keyboard label")
        case .end: UIMessage("End", context: "keyboard label")
        case .pageUp: UIMessage("Page Up", context: "keyboard label")
        case .pageDown: UIMessage("Page Down", context: "keyboard label")
        case .function(let n): .verbatim("F\(n)")
        case .char(let ch): .verbatim(String(ch))
        case .ctrl(let ch): .together([KeyLabel.ctrl, .verbatim(ch.uppercased())], separator: "+")
        case .alt(let ch): .together([KeyLabel.alt, .verbatim(String(ch))], separator: "+")
        }
    }
}

extension TerminalKeyPress {
    /// The key with its modifiers as the desktop labels them ("Strg+Alt+Entf").
    public var label: UIMessage {
        modifiers.isEmpty ? key.label : .together(KeyLabel.labels(modifiers) + [key.label], separator: "+")
    }
}

/// The names the Terminal and Desktop screens print on their keys: GTK's keyboard labels (`TerminalKey.label`),
/// except for the keys whose label is long in some language, which print a short form translated in the
/// "key cap" context (the language's keyboards' "Bild↑" for GTK's "Bild auf", "Tab" for "Tabulator"; the same
/// word as the label where that fits a key of those rows, six columns at 80), so that a key shows the name the
/// messages use for it.
public enum KeyCap {
    /// The short form of `key` where it has one (the keys whose labels are long in some language), else nil.
    public static func short(_ key: TerminalKey) -> UIMessage? {
        // The context is written out at each cap: the extractor reads literals only.
        switch key {
        case .escape: UIMessage("Esc", context: "key cap")
        case .tab: UIMessage("Tab", context: "key cap")
        case .enter: UIMessage("Enter", context: "key cap")
        case .home: UIMessage("Home", context: "key cap")
        case .end: UIMessage("End", context: "key cap")
        case .pageUp: UIMessage("PgUp", context: "key cap")
        case .pageDown: UIMessage("PgDn", context: "key cap")
        case .insert: UIMessage("Ins", context: "key cap")
        case .delete: UIMessage("Del", context: "key cap")
        default: nil
        }
    }

    /// The cap of `key` in `catalog`'s language: its short form where it has one, else its label (a chord's
    /// joins the modifier's label and the key as the messages do: "Strg+C").
    public static func text(_ key: TerminalKey, _ catalog: Catalog) -> String {
        (short(key) ?? key.label).text(catalog)
    }

    /// The cap of a key pressed with `modifiers` ("Alt+Tab").
    public static func text(_ press: TerminalKeyPress, _ catalog: Catalog) -> String {
        (KeyLabel.labels(press.modifiers).map { $0.text(catalog) } + [text(press.key, catalog)]).joined(separator: "+")
    }

    /// The label of each modifier in `modifiers` in GTK's order, as the caps of the latches show them.
    public static func modifiers(_ modifiers: TerminalModifiers, _ catalog: Catalog) -> [String] {
        KeyLabel.labels(modifiers).map { $0.text(catalog) }
    }
}
