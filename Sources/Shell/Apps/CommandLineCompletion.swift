import TerminalModel
/// Suggestions that fit a shell's command line: program names where a command starts, file names where a path
/// is typed, and the word predictor's words elsewhere (a commit message, an `echo`).
///
/// Pure: what is on disk comes in as `CommandLineListings` in the state, which the runtime fills by effect
/// from `PATH` and the child's working directory.
public enum CommandLineCompletion {
    /// Where the cursor is on the command line, read from the line's text before it.
    public struct Slot: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// The first word of a command: after the prompt, `|`, `;`, `&&`, `(`, or `sudo`-like words.
            case command
            /// A word with a slash or starting with `~` or `.`: only file names complete it.
            case path
            /// Any other argument: file names that start with it, then the predictor's words.
            case argument
        }
        public var kind: Kind
        /// The text after the last whitespace: what a completion replaces (part of it, for a path).
        public var token: String
        /// The token up to and including its last slash (`~/`, `src/Sh` → `src/`), empty if it has none.
        public var directory: String
        /// The token after `directory`: what a file name or program name must start with.
        public var partial: String
        /// The command only takes directories (`cd`, `pushd`, `rmdir`): no plain files are offered.
        public var directoriesOnly: Bool
    }

    /// One suggestion: the text the bar shows, and how committing it edits the line.
    public struct Completion: Equatable, Sendable {
        public var shown: String
        /// Characters before the cursor to erase first (0 when the suggestion continues what is typed).
        public var erase: Int
        /// Text typed after erasing.
        public var insert: String
        /// A program name is learned like a typed word; a file name is not (it would crowd out words).
        public var learn: Bool
        public init(shown: String, erase: Int, insert: String, learn: Bool) {
            self.shown = shown; self.erase = erase; self.insert = insert; self.learn = learn
        }
    }

    /// A directory's entry as path completion needs it.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var isDirectory: Bool
        public init(name: String, isDirectory: Bool) { self.name = name; self.isDirectory = isDirectory }
    }

    /// Words that run the word after them as a command.
    static let prefixCommands: Set<Substring> = ["sudo", "time", "nohup", "exec", "env", "xargs", "watch", "nice",
                                                 "command", "builtin", "then", "do", "else", "if", "while", "until",
                                                 "!", "{"]
    static let directoryCommands: Set<Substring> = ["cd", "pushd", "rmdir"]
    /// Common programs, most used first, for a command word with little or nothing typed; each is offered only
    /// if the machine has it.
    public static let commonCommands = ["ls", "cd", "git", "cat", "less", "grep", "vim", "nano", "man", "cp", "mv",
                                        "rm", "mkdir", "python3", "make", "ssh", "sudo", "find", "top", "exit"]
    /// Bash's builtins worth completing (they are not on PATH).
    public static let builtins = ["alias", "bg", "cd", "echo", "exit", "export", "fg", "history", "jobs", "kill",
                                  "popd", "pushd", "pwd", "read", "source", "type", "unalias", "unset", "wait"]

    /// Reads where the cursor is from the line before it.
    public static func slot(_ line: String) -> Slot {
        let chars = Array(line)
        var start = chars.count
        while start > 0, !chars[start - 1].isWhitespace { start -= 1 }
        let token = String(chars[start...])
        let before = String(chars[..<start])
        // Only an argument can be cd's; a command word is not, and costs no walk back.
        let isCommand = !token.contains("/") && !token.hasPrefix("~") && !token.hasPrefix(".") && isCommandPosition(before)
        let directoriesOnly = !isCommand && (lastCommandWord(before).map { directoryCommands.contains($0) } ?? false)
        if let slash = token.lastIndex(of: "/") {
            let dir = String(token[...slash]), partial = String(token[token.index(after: slash)...])
            return Slot(kind: .path, token: token, directory: dir, partial: partial, directoriesOnly: directoriesOnly)
        }
        if token.hasPrefix("~") || token.hasPrefix(".") {
            // "~" alone or "~us" is a user's home, not a path yet; a leading dot is a hidden file.
            let kind: Slot.Kind = token.hasPrefix("~") ? .argument : .path
            return Slot(kind: kind, token: token, directory: "", partial: token, directoriesOnly: directoriesOnly)
        }
        let kind: Slot.Kind = isCommand ? .command : .argument
        return Slot(kind: kind, token: token, directory: "", partial: token, directoriesOnly: directoriesOnly)
    }

    /// Whether a word after `before` starts a command.
    static func isCommandPosition(_ before: String) -> Bool {
        var b = Substring(before)
        while let last = b.last, last.isWhitespace { b.removeLast() }
        guard let last = b.last else { return true }
        // A new command after an operator; "&&" and "||" end in one too.
        if "|;&(`".contains(last) { return true }
        // The end of a prompt: bash's "$ " and "# ", zsh's "% ", fish's "> " alone, starship's "❯".
        if "$#%❯»".contains(last) { return true }
        if b == ">" { return true }
        // "sudo gi", "time mak": the word after a prefix command is a command too.
        let words = b.split(whereSeparator: \.isWhitespace)
        if let w = words.last, prefixCommands.contains(w) {
            return isCommandPosition(String(b.dropLast(w.count)))
        }
        return false
    }

    /// The command word of the command the cursor is in (`cd` for "$ cd ~/Do"), if its first word is one.
    static func lastCommandWord(_ before: String) -> Substring? {
        let words = before.split(whereSeparator: \.isWhitespace)
        // Walk back to the word that stands in command position: what precedes a word is the line up to it.
        for w in words.reversed() where !prefixCommands.contains(w) {
            if isCommandPosition(String(before[..<w.startIndex])) { return w }
        }
        return nil
    }

    /// Program names for a command word: those the predictor already offers (the user has typed them), then
    /// the common ones, then the rest of PATH, shortest first. `known` is sorted (as `Services.commands` gives
    /// it), so the bar, drawn at every frame, finds names by binary search instead of sorting thousands.
    public static func commands(_ slot: Slot, known: [String], learned: [String], limit: Int) -> [Completion] {
        // Without the runtime's list (no PATH read) nothing is known to be a program.
        guard !known.isEmpty else { return [] }
        let p = slot.partial
        func isProgram(_ c: String) -> Bool {
            let i = lowerBound(known, c)
            return (i < known.count && known[i] == c) || builtins.contains(c)
        }
        var out: [String] = []
        func add(_ c: String) {
            guard out.count < limit, c.hasPrefix(p), c != p, !out.contains(c), isProgram(c) else { return }
            out.append(c)
        }
        learned.forEach(add)
        commonCommands.forEach(add)
        // With nothing typed, the whole of PATH would only be noise.
        if !p.isEmpty, out.count < limit {
            // Only the shortest few can be taken: one letter typed matches hundreds of programs, which are not
            // all sorted for the few the bar has room for (those already offered, and the partial itself,
            // may be among them, so as many more are kept).
            var best = Shortest(keep: limit + out.count + 1)
            for b in builtins where b.hasPrefix(p) { best.offer(b) }
            var i = lowerBound(known, p)
            while i < known.count, known[i].hasPrefix(p) { best.offer(known[i]); i += 1 }
            for c in best.names where out.count < limit { add(c) }
        }
        return out.map { Completion(shown: $0, erase: 0, insert: String($0.dropFirst(p.count)) + " ", learn: true) }
    }

    /// The `keep` names that come first, shortest then alphabetical, of those offered, in that order (a name
    /// offered twice counts once).
    struct Shortest {
        let keep: Int
        private(set) var names: [String] = []

        init(keep: Int) { self.keep = keep }

        mutating func offer(_ name: String) {
            func before(_ a: String, _ b: String) -> Bool { (a.count, a) < (b.count, b) }
            if names.count == keep, let last = names.last, !before(name, last) { return }
            var i = names.count
            while i > 0, before(name, names[i - 1]) { i -= 1 }
            if i > 0, names[i - 1] == name { return }
            names.insert(name, at: i)
            if names.count > keep { names.removeLast() }
        }
    }

    /// The first index of a sorted array whose element is not below `x`.
    static func lowerBound(_ sorted: [String], _ x: String) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// File names in the slot's directory that complete it: a directory gets a slash (and no space, so the
    /// path goes on), a file a space. Hidden files only when a dot is typed.
    public static func files(_ slot: Slot, entries: [Entry], limit: Int) -> [Completion] {
        let p = slot.partial
        let candidates = entries.filter {
            (!slot.directoriesOnly || $0.isDirectory) && ($0.name.hasPrefix(".") == p.hasPrefix("."))
                && $0.name != "." && $0.name != ".."
        }
        let exact = candidates.filter { $0.name.hasPrefix(p) }
        let lowered = p.lowercased()
        let loose = p.isEmpty ? [] : candidates.filter { !$0.name.hasPrefix(p) && $0.name.lowercased().hasPrefix(lowered) }
        func order(_ a: Entry, _ b: Entry) -> Bool { (a.name.count, a.name) < (b.name.count, b.name) }
        return (exact.sorted(by: order) + loose.sorted(by: order)).prefix(limit).compactMap { e in
            guard e.name != p || e.isDirectory else { return nil }
            let shown = e.isDirectory ? e.name + "/" : e.name
            let end = e.isDirectory ? "/" : " "
            if e.name.hasPrefix(p) {
                return Completion(shown: shown, erase: 0, insert: escaped(String(e.name.dropFirst(p.count))) + end,
                                  learn: false)
            }
            return Completion(shown: shown, erase: p.count, insert: escaped(e.name) + end, learn: false)
        }
    }

    /// A file name as the shell reads it back: a backslash before spaces and the characters it would
    /// otherwise act on.
    public static func escaped(_ name: String) -> String {
        var out = ""
        for ch in name {
            if ch.isWhitespace || "\\'\"`$&|;<>()*?[]{}!#~".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}

/// What the disk said for the Terminal screen's suggestions: the programs on `PATH` and directory listings,
/// each with the source time it was read, kept in the state. Rendering reads them; a listing that is missing
/// or older than `maxAge` is asked for by effect (`Effect.listCommands`, `.listDirectory`) and comes back as
/// an event (`.commandsListed`, `.directoryListed`), so drawing the screen never touches the disk.
public struct CommandLineListings: Sendable, Equatable {
    /// How long a listing is used before it is read again (seconds of source time): files come and go.
    public static let maxAge = 2.0
    /// Directories kept at once; the oldest goes first.
    static let maxDirectories = 16

    public struct Directory: Hashable, Sendable {
        /// The directory as typed on the command line (`~/`, `src/`, "" for the working directory).
        public var typed: String
        public var workingDirectory: String?
        public init(typed: String, workingDirectory: String?) { self.typed = typed; self.workingDirectory = workingDirectory }
    }

    struct Listing: Sendable, Equatable {
        var at: Double
        /// Nil: the directory could not be read.
        var entries: [CommandLineCompletion.Entry]?
    }

    public private(set) var commands: [String]?
    var commandsAt = -Double.infinity
    var directories: [Directory: Listing] = [:]
    /// Asked for and not answered yet, so one drawing's need is asked once.
    var asked: Set<Directory> = []
    var askedCommands = false
    /// The line `requests` last read, and where its cursor is: every event asks (a tick twenty times a second
    /// on an idle pane), and the line seldom changes between two.
    private var lastSlot: (line: String, slot: CommandLineCompletion.Slot)?

    public init() {}

    /// Equal when what was read and asked is: the kept slot is only a shortcut.
    public static func == (a: Self, b: Self) -> Bool {
        a.commands == b.commands && a.commandsAt == b.commandsAt && a.directories == b.directories && a.asked == b.asked
            && a.askedCommands == b.askedCommands
    }

    /// A directory's entries as last read: nil when not read yet, `.some(nil)` when it could not be read.
    public func entries(_ d: Directory) -> [CommandLineCompletion.Entry]?? { directories[d].map(\.entries) }

    public mutating func store(commands: [String], at now: Double) {
        self.commands = commands; commandsAt = now; askedCommands = false
    }

    public mutating func store(_ entries: [CommandLineCompletion.Entry]?, for d: Directory, at now: Double) {
        directories[d] = Listing(at: now, entries: entries)
        asked.remove(d)
        if directories.count > Self.maxDirectories, let oldest = directories.min(by: { $0.value.at < $1.value.at })?.key {
            directories[oldest] = nil
        }
    }

    /// The directory a command line's suggestions would list for `slot`, if any: a path's directory as typed,
    /// or the working directory once an argument is begun (or after cd).
    public static func directory(for slot: CommandLineCompletion.Slot, in view: TerminalView) -> Directory? {
        guard slot.kind != .command, slot.kind == .path || !slot.partial.isEmpty || slot.directoriesOnly else { return nil }
        return Directory(typed: slot.directory, workingDirectory: view.workingDirectory)
    }

    /// What to ask the disk for, so the suggestions for `view` can be drawn at `now`; marks it asked.
    public mutating func requests(for view: TerminalView, at now: Double) -> [Effect] {
        guard !view.inputHidden, view.ended == nil, view.scrolledBack == 0 else { return [] }
        let line = view.lineBeforeCursor
        let slot: CommandLineCompletion.Slot
        if let last = lastSlot, last.line == line { slot = last.slot } else {
            slot = CommandLineCompletion.slot(line)
            lastSlot = (line, slot)
        }
        if slot.kind == .command {
            guard !askedCommands, commands == nil || now - commandsAt > Self.maxAge * 15 else { return [] }
            askedCommands = true
            return [.listCommands]
        }
        guard let d = Self.directory(for: slot, in: view), !asked.contains(d) else { return [] }
        if let l = directories[d], now - l.at <= Self.maxAge, now >= l.at { return [] }
        asked.insert(d)
        return [.listDirectory(d)]
    }
}
