/// Suggestions that fit a shell's command line: program names where a command starts, file names where a path
/// is typed, and the word predictor's words elsewhere (a commit message, an `echo`).
///
/// Pure: what is on disk comes in through `Services.commands` and `Services.listDirectory`, which the runtime
/// fills from `PATH` and the child's working directory.
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
            var matches: [String] = builtins.filter { $0.hasPrefix(p) }
            var i = lowerBound(known, p)
            while i < known.count, known[i].hasPrefix(p) { matches.append(known[i]); i += 1 }
            for c in matches.sorted(by: { ($0.count, $0) < ($1.count, $1) }) where out.count < limit { add(c) }
        }
        return out.map { Completion(shown: $0, erase: 0, insert: String($0.dropFirst(p.count)) + " ", learn: true) }
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
