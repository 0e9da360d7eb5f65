import Localization

/// Where messages go that do not fit whole where they belong: a notice too long for the title bar, the
/// status line's readiness or speech text when the status row has no room for it. They are never cut: the
/// status area's first row (the meters' row) becomes the notice line and shows them whole, and a message
/// longer than the line is split between words into parts shown in turn, each for `secondsPerPart` of frame
/// time. The meters come back when nothing is left to say.
public enum NoticeLine {
    /// How long each part stays on the notice line (seconds of frame time), and how long a notice stays at
    /// least before an action clears it: long enough to read a line.
    public static let secondsPerPart = 4.0

    /// The parts of `texts` for a line `width` columns wide, in order: each text wrapped between words; a
    /// part whose text goes on in the next ends with " …".
    public static func parts(_ texts: [String], width: Int) -> [String] {
        guard width > 4 else { return [] }
        var out: [String] = []
        for text in texts {
            let lines = Canvas.wrap(text, width: width - 2)
            for (k, line) in lines.enumerated() { out.append(k < lines.count - 1 ? line + " …" : line) }
        }
        return out
    }

    /// The part shown at `now` of messages showing since `since` (each part for `secondsPerPart`, then
    /// round again); nil when there is nothing to show.
    public static func part(_ texts: [String], width: Int, since: Double, now: Double) -> String? {
        let all = parts(texts, width: width)
        guard !all.isEmpty else { return nil }
        let step = Int(max(0, now - since) / secondsPerPart)
        return all[step % all.count]
    }
}

extension ShellState {
    /// Where the title bar's right part begins when it shows `right`, and how many columns it has: the
    /// crumbs keep at least 30 columns, a notice may take the rest.
    func titleRoom(width: Int) -> Int {
        max(10, width - min(CellGrid.columns(of: crumbs), 30) - 3)
    }

    /// The title bar's left part: the shell's name, then the title of each screen from the launcher to the
    /// one showing, in the shell's language (a screen's `title` is marked with `N_` where it is written).
    var crumbs: String {
        " HandsFree │ " + stack.map { $0.title(in: catalog) }.joined(separator: " › ")
    }

    /// The notice, if it fits whole in the title bar at `width`; else it goes to the notice line.
    func titleNotice(width: Int) -> String? {
        guard let n = shownNotice, CellGrid.columns(of: n) <= titleRoom(width: width) else { return nil }
        return n
    }

    /// Whether the notice line shows something whose parts take turns with time: a drawing may change with
    /// no event but the clock's.
    public var noticeLineTurns: Bool { StatusLook(self, width: size.width).noticeLine != nil }

    /// Whether an action may clear the notice: it has been up for `NoticeLine.secondsPerPart` of frame time,
    /// or for each of its parts on the notice line.
    var noticeSeen: Bool {
        guard let n = shownNotice else { return true }
        let parts = titleNotice(width: size.width) != nil ? 1 : max(1, NoticeLine.parts([n], width: size.width - 2).count)
        return now - noticeAt >= NoticeLine.secondsPerPart * Double(parts)
    }
}
