/// What the Terminal screen shows of the program it drives, as the runtime last read it.
///
/// A value the pure shell keeps and draws; the runtime makes a new one when the child's screen changed (at
/// most once per displayed frame), when the child ended, or when the tty's modes changed.
public struct TerminalView: Hashable, Sendable {
    /// The screen as the pane shows it (scrolled back `scrolledBack` lines when the user scrolled).
    public var snapshot: TerminalSnapshot
    /// What the pane drives, for the title: `bash`, `vim notes.txt`, `tmux work:1`.
    public var program: String
    /// Lines kept above the screen, and how many of them the pane shows (0: the live screen).
    public var scrollback: Int
    public var scrolledBack: Int
    /// The child's tty has echo off and canonical mode on (`read -s`, sudo, ssh): a password prompt. Nothing
    /// typed then is learned, suggested from or logged.
    public var inputHidden: Bool
    /// How the child ended (`bash exited with status 0`); nil while it runs.
    public var ended: String?
    /// Something the user must know: the program could not start, the tmux target is gone.
    public var problem: String?
    /// Text the user typed that could not be delivered (a closed tmux target), kept so nothing is lost.
    public var unsent: String
    /// Keys go to a tmux pane (`--type-into`), not to a child of the shell: there is no restart.
    public var isTmux: Bool
    /// The program's working directory, where file names on its command line are completed from; nil when
    /// it is not known (a tmux pane, a program that ended).
    public var workingDirectory: String?

    public init(snapshot: TerminalSnapshot, program: String, scrollback: Int = 0, scrolledBack: Int = 0,
                inputHidden: Bool = false, ended: String? = nil, problem: String? = nil, unsent: String = "",
                isTmux: Bool = false, workingDirectory: String? = nil) {
        self.workingDirectory = workingDirectory
        self.snapshot = snapshot; self.program = program; self.scrollback = scrollback
        self.scrolledBack = scrolledBack; self.inputHidden = inputHidden; self.ended = ended
        self.problem = problem; self.unsent = unsent; self.isTmux = isTmux
    }

    /// The text on the cursor's line before the cursor: what word prediction completes.
    public var lineBeforeCursor: String {
        let s = snapshot
        guard scrolledBack == 0, s.rows > 0, s.cursor.row >= 0, s.cursor.row < s.rows else { return "" }
        let start = s.cursor.row * s.cols
        let end = start + min(max(0, s.cursor.col), s.cols)
        var out = ""
        for c in s.cells[start..<end] { out += c.text }
        return out
    }

    /// An empty pane of the given size, before the program's first output.
    public static func blank(rows: Int, cols: Int, program: String) -> TerminalView {
        let r = max(1, rows), c = max(1, cols)
        return TerminalView(snapshot: TerminalSnapshot(rows: r, cols: c, cells: Array(repeating: .blank, count: r * c),
                                                       cursor: TerminalPosition(row: 0, col: 0), cursorVisible: true,
                                                       isAltScreen: false, title: ""),
                            program: program)
    }
}

/// What the Terminal screen asks the runtime to do with the program it drives.
public enum TerminalRequest: Hashable, Sendable {
    /// Type text as if keyed.
    case type(String)
    /// Send one key.
    case press(TerminalKeyPress)
    /// Show the pane scrolled back this many lines (0: live).
    case scroll(to: Int)
    /// Start the program again after it ended.
    case restart
    /// The pane was resized to `rows` × `cols` cells.
    case resize(rows: Int, cols: Int)
}

extension TerminalKeyPress {
    /// The press a key name in a keymap's `[terminal]` section stands for: `enter`, `tab`, `escape`,
    /// `backspace`, `space`, arrows (`up`…), `insert`, `delete`, `home`, `end`, `page-up`, `page-down`,
    /// `f1`…`f12`, `ctrl-X` and `alt-X` for one character X; nil for anything else.
    public init?(name: String) {
        let n = name.lowercased()
        let named: [String: TerminalKey] = [
            "enter": .enter, "tab": .tab, "escape": .escape, "esc": .escape, "backspace": .backspace,
            "space": .char(" "), "up": .up, "down": .down, "left": .left, "right": .right, "insert": .insert,
            "delete": .delete, "home": .home, "end": .end, "page-up": .pageUp, "page-down": .pageDown,
        ]
        if let k = named[n] { self.init(k); return }
        if n.hasPrefix("f"), let k = Int(n.dropFirst()), (1...12).contains(k) { self.init(.function(k)); return }
        for (prefix, make) in [("ctrl-", TerminalKey.ctrl), ("alt-", TerminalKey.alt)] as [(String, (Character) -> TerminalKey)] {
            guard n.hasPrefix(prefix) else { continue }
            let rest = name.dropFirst(prefix.count)
            guard rest.count == 1, let c = rest.first, c.isASCII, !c.isWhitespace,
                  c.asciiValue.map({ $0 >= 0x21 && $0 < 0x7f }) == true else { return nil }
            self.init(make(prefix == "ctrl-" ? Character(c.lowercased()) : c))
            return
        }
        return nil
    }

    /// The key names `init(name:)` takes, for messages.
    public static let nameHelp = "enter, tab, escape, backspace, space, up, down, left, right, insert, delete, home, "
        + "end, page-up, page-down, f1…f12, ctrl-X, alt-X"
}

/// Programs whose files are not this machine's: a shell's working directory says nothing about the names a
/// command line typed through them can complete.
public enum RemoteShells {
    /// Login and container programs, by the name the kernel or tmux gives the foreground process.
    public static let names: Set<String> = ["ssh", "autossh", "sshpass", "mosh-client", "mosh", "et", "telnet",
                                            "rlogin", "rsh", "docker", "podman", "kubectl", "lxc", "lxc-attach",
                                            "machinectl", "chroot", "nsenter", "toolbox", "distrobox"]

    /// Whether a foreground program called `name` runs its command line somewhere else; `name` may be a path
    /// as typed (tmux gives `./ssh` for a program started by a relative path).
    public static func isRemote(_ name: String?) -> Bool {
        guard let name else { return false }
        return names.contains(String(name.split(separator: "/").last ?? Substring(name)))
    }
}
