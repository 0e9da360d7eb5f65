import Localization

/// What the Terminal screen shows of the program it drives, as the runtime last read it.
///
/// A value the pure shell keeps and draws; the runtime makes a new one when the child's screen changed (at
/// most once per displayed frame), when the child ended, or when the tty's modes changed.
public struct TerminalView: Hashable, Sendable {
    /// The screen as the pane shows it (scrolled back `scrolledBack` lines when the user scrolled).
    public var snapshot: TerminalSnapshot
    /// What the pane drives, for the title: `bash`, `vim notes.txt`, `tmux work:1`.
    public var program: String
    /// What the output sink behind the pane can do: the screen offers a restart, or draws the pane, only
    /// when the sink says so.
    public var sink: SinkTraits
    /// Lines kept above the screen, and how many of them the pane shows (0: the live screen).
    public var scrollback: Int
    public var scrolledBack: Int
    /// The child's tty has echo off and canonical mode on (`read -s`, sudo, ssh): a password prompt. Nothing
    /// typed then is learned, suggested from or logged.
    public var inputHidden: Bool
    /// How the child ended (`bash exited with status 0`), translated where it is drawn; nil while it runs.
    public var ended: UIMessage?
    /// Something the user must know about the program: it could not start, the tmux pane cannot be captured;
    /// translated where it is drawn. (Text or keys that could not be delivered come to the shell as an event
    /// of their own.)
    public var problem: UIMessage?
    /// The program's working directory, where file names on its command line are completed from; nil when
    /// it is not known (a tmux pane, a program that ended).
    public var workingDirectory: String?

    public init(snapshot: TerminalSnapshot, program: String, scrollback: Int = 0, scrolledBack: Int = 0,
                inputHidden: Bool = false, ended: UIMessage? = nil, problem: UIMessage? = nil,
                sink: SinkTraits = .childOnPty, workingDirectory: String? = nil) {
        self.workingDirectory = workingDirectory
        self.snapshot = snapshot; self.program = program; self.scrollback = scrollback
        self.scrolledBack = scrolledBack; self.inputHidden = inputHidden; self.ended = ended
        self.problem = problem; self.sink = sink
    }

    /// The text on the cursor's line before the cursor: what word prediction completes.
    public var lineBeforeCursor: String {
        let s = snapshot
        guard scrolledBack == 0, s.rows > 0, s.cursor.row >= 0, s.cursor.row < s.rows,
              s.cursor.row < s.cells.rows.count else { return "" }
        return TerminalSnapshot.utf8Text(of: s.cells.rows[s.cursor.row].prefix(max(0, s.cursor.col)))
    }

    /// An empty pane of the given size, before the program's first output.
    public static func blank(rows: Int, cols: Int, program: String) -> TerminalView {
        let r = max(1, rows), c = max(1, cols)
        return TerminalView(snapshot: TerminalSnapshot(rows: r, cols: c, cells: TerminalCells.blank(rows: r, cols: c),
                                                       cursor: TerminalPosition(row: 0, col: 0), cursorVisible: true,
                                                       isAltScreen: false, title: ""),
                            program: program)
    }
}

/// What the Terminal screen's output sink can do, as the screen needs to know it: never which kind of sink
/// it is, only what to offer.
public struct SinkTraits: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The program is the shell's own child: it starts when the pane first shows, can be restarted once it
    /// ended, and the title names it. Without this, keys go into something that runs on its own (a tmux pane,
    /// later a desktop window): the screen says "typing into" it and offers no restart.
    public static let ownsProgram = SinkTraits(rawValue: 1 << 0)
    /// The sink shows what its program displays (the pty's emulated screen, a tmux pane's capture). Without
    /// it (a desktop sink) the pane has nothing of the program to draw.
    public static let showsPane = SinkTraits(rawValue: 1 << 1)

    /// A child of the shell on a pty: the default.
    public static let childOnPty: SinkTraits = [.ownsProgram, .showsPane]
}

/// What the Terminal screen, or the reducer on its behalf, asks the runtime to do with the program it drives.
public enum TerminalRequest: Hashable, Sendable {
    /// Type text as if keyed.
    case type(String)
    /// Send one key.
    case press(TerminalKeyPress)
    /// Show the pane scrolled back this many lines (0: live).
    case scroll(to: Int)
    /// Start the program again after it ended, at the pane's size (`rows` × `cols` cells): the pane's size is
    /// the state's, and the runtime keeps no copy of it.
    case restart(rows: Int, cols: Int)
    /// The pane showed for the first time, `rows` × `cols` cells: start the program at that size (asked
    /// once; a second one is taken as a resize).
    case start(rows: Int, cols: Int)
    /// The pane was resized to `rows` × `cols` cells.
    case resize(rows: Int, cols: Int)
    /// The pane came into view or left it (another screen on top, a window too small): the runtime looks at
    /// the program between its own outputs (a tmux pane's capture, the tty's modes) only while it shows.
    case showing(Bool)
    /// Move the desktop pointer, press or click a button, turn the wheel (desktop sinks only).
    case point(PointerEvent)
}

extension TerminalKeyPress {
    /// The press a key name in a keymap's `[terminal]` or `[desktop]` section stands for: `enter`, `tab`,
    /// `escape`, `backspace`, `space`, arrows (`up`…), `insert`, `delete`, `home`, `end`, `page-up`,
    /// `page-down`, `f1`…`f12`, one printable ASCII character, each after any of the prefixes `ctrl-`,
    /// `alt-`, `shift-` and `super-` (`ctrl-c`, `alt-tab`, `ctrl-alt-t`, `super-d`); nil for anything else.
    /// Ctrl or Alt with a character is its control or Meta chord (`ctrl-c` is the interrupt); `super-` is a
    /// desktop key, which a terminal program never receives.
    public init?(name: String) {
        let named: [String: TerminalKey] = [
            "enter": .enter, "tab": .tab, "escape": .escape, "esc": .escape, "backspace": .backspace,
            "space": .char(" "), "up": .up, "down": .down, "left": .left, "right": .right, "insert": .insert,
            "delete": .delete, "home": .home, "end": .end, "page-up": .pageUp, "page-down": .pageDown,
        ]
        let prefixes: [(String, TerminalModifiers)] = [("ctrl-", .ctrl), ("alt-", .alt), ("shift-", .shift), ("super-", .logo)]
        var rest = Substring(name)
        var mods: TerminalModifiers = []
        while let (prefix, m) = prefixes.first(where: { rest.lowercased().hasPrefix($0.0) }), rest.count > prefix.count {
            guard !mods.contains(m) else { return nil }
            mods.insert(m)
            rest = rest.dropFirst(prefix.count)
        }
        let n = rest.lowercased()
        let key: TerminalKey
        if let k = named[n] {
            key = k
        } else if n.hasPrefix("f"), let k = Int(n.dropFirst()), (1...12).contains(k) {
            key = .function(k)
        } else if !mods.isEmpty, rest.count == 1, let c = rest.first, c.isASCII,
                  c.asciiValue.map({ $0 >= 0x21 && $0 < 0x7f }) == true {
            // A key name is lower case: `ctrl-C` is still the interrupt.
            let ch = mods.contains(.ctrl) ? Character(c.lowercased()) : c
            if mods.contains(.ctrl) {
                key = .ctrl(ch); mods.remove(.ctrl)
            } else if mods.contains(.alt) {
                key = .alt(ch); mods.remove(.alt)
            } else {
                key = .char(ch)
            }
        } else {
            return nil
        }
        self.init(key, modifiers: mods)
    }

    /// The key names `init(name:)` takes, listed (the same in every language; `nameHelp` adds how they combine).
    public static let names = "enter, tab, escape, backspace, space, up, down, left, right, insert, delete, home, "
        + "end, page-up, page-down, f1…f12, ctrl-X, alt-X, super-X"

    /// The key names `init(name:)` takes and how they combine, in English (messages a user reads say it in their
    /// language: `TerminalKeyPress.nameMessage` in Config).
    public static let nameHelp = names + ", and those after ctrl-, alt-, shift-, super- (alt-tab)"
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
