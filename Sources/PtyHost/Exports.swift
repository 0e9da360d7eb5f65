// The values a hosted terminal is read and driven with live in the pure TerminalModel module; importers of
// PtyHost get them too.
@_exported import TerminalModel

extension TerminalKeyPress {
    /// The bytes this press sends to a child whose modes `screen` holds (a fresh screen: the default modes).
    public func bytes(in screen: VTermScreen) -> [UInt8] { screen.press(key, modifiers: modifiers) }
}
