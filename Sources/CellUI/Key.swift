/// Keys a helper can press.
public enum Key: Sendable, Equatable, Hashable {
    case up, down, left, right, enter, escape, backspace, tab
    case home, end, pageUp, pageDown, delete
    case char(Character)
    /// Ctrl with a letter or `\`, `]`, `^`, `_` as a terminal sends it: only the Terminal screen takes these
    /// (Ctrl-C off it quits, as the interrupt signal did).
    case ctrl(Character)
    /// F12, the carer's key: puts back the last settings the user acted with, on every screen (the Terminal
    /// screen's program never gets it).
    case restoreSettings
}
