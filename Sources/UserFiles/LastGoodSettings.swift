import Foundation
import Localization
import Shell

/// `settings.last-good.toml` beside `settings.toml`: the last settings the user acted with, written when a
/// change is kept (or the user first acts with settings the file does not have yet). At start it stands in
/// for a settings file with values the shell cannot use, and it is what the escape puts back.
public enum LastGoodSettings {
    /// The copy, or nil with none (or one that is not whole, which is said).
    public static func load(_ file: URL) -> (ShellSettings?, UIMessage?) {
        switch AtomicFile.read(file.path) {
        case .missing:
            return (nil, nil)
        case .failed(let e):
            return (nil, UIMessage("{file}: cannot read the last good settings ({reason})", ["file": file.path], reasons: ["reason": .system(e)]))
        case .damaged(let text, _):
            let n = text.unicodeScalars.reduce(0) { $0 + ($1 == "\u{FFFD}" ? 1 : 0) }
            return (nil, .plural("{file}: {n} place is not UTF-8 text (shown as �); the last good settings are not used",
                                 "{file}: {n} places are not UTF-8 text (shown as �); the last good settings are not used", n, ["file": file.path]))
        case .text(let text):
            let (s, problems) = ShellSettings.read(text, file: file.path)
            // Written by the shell only: a problem means it was changed by hand, and it is good no longer.
            if let p = problems.first { return (nil, UIMessage("{problem}; the last good settings are not used", reasons: ["problem": p.shown])) }
            return (s, nil)
        }
    }

    /// Writes the copy; returns a problem to show.
    public static func save(_ s: ShellSettings, to file: URL) -> UIMessage? {
        let text = "# The last settings you acted with, written by HandsFree Shell beside settings.toml: used when\n"
            + "# settings.toml holds values it cannot use, and put back by the escape (the jaw held open 3 s, F12,\n"
            + "# \"restore settings\").\n" + s.toml
        return AtomicFile.writing(text, to: file.path)
    }

    /// The settings to start with and the last known good, from what `settings.toml` gave (`loaded`, with its
    /// `problems`) and the copy (`lastGood`): a file with values the shell cannot use gives way to the last
    /// good copy, and the problems say so. Without a copy, the last known good is nil: the caller takes the
    /// built-in values of whatever decides about gestures (`ShellSettings.withGestureFields`).
    public static func choose(loaded: ShellSettings, problems: [UIMessage], lastGood: ShellSettings?, file: URL)
        -> (start: ShellSettings, known: ShellSettings?, problems: [UIMessage]) {
        guard let lastGood else { return (loaded, nil, problems) }
        guard !problems.isEmpty else { return (loaded, lastGood, []) }
        return (lastGood, lastGood, problems + [UIMessage("The last settings you acted with are used instead ({file}).", ["file": file.lastPathComponent])])
    }
}
