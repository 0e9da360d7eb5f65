#if canImport(Glibc)
import Glibc
#endif
import CPty
import TerminalModel

/// Why text or a key could not be sent to a tmux pane; the message names the target.
///
/// The problem is kept apart from its English words, so that the sink above (`TmuxPaneSink`) can word it in
/// the user's language; `description` is the English.
public struct TmuxSinkError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    public enum Problem: Equatable, Sendable {
        /// The text holds a NUL byte, which tmux cannot type.
        case nulByte
        /// A key (with its modifiers) tmux has no name for.
        case noKeyName(TerminalKeyPress)
        /// The target names no pane: with a server running, tmux answers that with nothing.
        case noPane
        /// A capture printed nothing, or not the pane's description first.
        case emptyCapture
        case unexpectedDescription
        /// tmux is not installed (or not on PATH).
        case notInstalled
        /// The system refused a step of running tmux (a pipe, the spawn, the wait): the step, and `strerror`'s
        /// words.
        case cannotMakePipe(String)
        case cannotRun(String)
        case lostClient(String)
        /// tmux failed and said why in its own words (`can't find window: 9`, `no server running on …`).
        case tmuxSaid(String)
        /// tmux failed and said nothing: how it ended.
        case tmuxEnded(ExitStatus)
        /// Anything else, in English.
        case other(String)
    }

    /// The pane as the sink named it; nil for a problem that is not about one.
    public let target: String?
    public let problem: Problem

    public init(target: String, _ problem: Problem) { self.target = target; self.problem = problem }
    public init(_ description: String) { target = nil; problem = .other(description) }

    public var description: String {
        let detail = switch problem {
        case .nulByte: "text contains a NUL byte"
        case .noKeyName(let key): "\(key.label.english) has no tmux key name"
        case .noPane: "can't find pane"
        case .emptyCapture: "capture printed nothing"
        case .unexpectedDescription: "unexpected pane description"
        case .notInstalled: "tmux is not installed"
        case .cannotMakePipe(let why): "cannot make a pipe: \(why)"
        case .cannotRun(let why): "cannot run tmux: \(why)"
        case .lostClient(let why): "lost the tmux client: \(why)"
        case .tmuxSaid(let why), .other(let why): why
        case .tmuxEnded(let status): HostedTerminal.exitMessage(program: "tmux", status: status).english
        }
        return target.map { "tmux target \($0): \(detail)" } ?? detail
    }
}

/// Sends committed text and keys to an existing tmux pane instead of a hosted child: the tmux client under
/// Runtime's `TmuxPaneSink` (`--type-into tmux:TARGET`, parsed by `OutputSinks`).
///
/// Text goes as `tmux send-keys -l -t TARGET -- TEXT`, keys by tmux's key names (`Enter`, `BSpace`, `C-c`,
/// `M-x`, `C-Left`). Each call runs one tmux client to completion, so a failure (a closed pane, no server) is
/// reported for exactly the text or key that was not delivered and the caller can keep it.
public struct TmuxSink: Sendable {
    /// The pane as tmux names it: `%3`, `work:1.0`, `session`.
    public let target: String
    /// Options choosing the server, placed before the command: `["-L", "name"]`, or none for the default one.
    public let serverArguments: [String]

    /// A sink for `target` on the server chosen by `serverArguments` (the default server if empty).
    public init(target: String, serverArguments: [String] = []) {
        self.target = target
        self.serverArguments = serverArguments
    }

    /// tmux's name for a key with `modifiers` held, or nil for a key tmux cannot name.
    ///
    /// Characters without modifiers are not keys here: send them as text, which tmux passes on literally.
    public static func keyName(_ key: TerminalKey, modifiers: TerminalModifiers = []) -> String? {
        var mods = modifiers
        let base: String
        switch key {
        case .enter: base = "Enter"
        case .tab:
            // Shift-Tab is a key of its own in tmux.
            if mods == .shift { return "BTab" }
            base = "Tab"
        case .escape: base = "Escape"
        case .backspace: base = "BSpace"
        case .up: base = "Up"
        case .down: base = "Down"
        case .left: base = "Left"
        case .right: base = "Right"
        case .insert: base = "IC"
        case .delete: base = "DC"
        case .home: base = "Home"
        case .end: base = "End"
        case .pageUp: base = "PPage"
        case .pageDown: base = "NPage"
        case .function(let n):
            guard (1...12).contains(n) else { return nil }
            base = "F\(n)"
        case .char(let c):
            guard !mods.isEmpty, let b = charKeyName(c) else { return nil }
            base = b
        case .ctrl(let c):
            guard let b = charKeyName(c) else { return nil }
            // tmux names Ctrl chords with the lower-case letter; C-C would be Ctrl-Shift-C.
            base = b.count == 1 && b.first?.isUppercase == true ? b.lowercased() : b
            mods.insert(.ctrl)
        case .alt(let c):
            guard let b = charKeyName(c) else { return nil }
            base = b
            mods.insert(.alt)
        }
        var name = ""
        if mods.contains(.ctrl) { name += "C-" }
        if mods.contains(.alt) { name += "M-" }
        if mods.contains(.shift) { name += "S-" }
        return name + base
    }

    /// A character as a tmux key name: itself, or the name tmux uses for Space.
    private static func charKeyName(_ c: Character) -> String? {
        guard c.unicodeScalars.count == 1, let s = c.unicodeScalars.first, s.value >= 0x20, s.value != 0x7f else {
            return nil
        }
        return s == " " ? "Space" : String(c)
    }

    /// Types `text` into the pane literally.
    public func send(text: String) throws(TmuxSinkError) {
        guard !text.isEmpty else { return }
        guard !text.utf8.contains(0) else { throw TmuxSinkError(target: target, .nulByte) }
        try run(["send-keys", "-l", "-t", target, "--", text])
    }

    /// Text typed literally, or a key by its tmux name: what `send(_ inputs:)` takes.
    public enum Input: Equatable, Sendable {
        case text(String)
        case key(TerminalKey)
    }

    /// Sends text and keys in order with one tmux client (its commands joined by `;`), so a line of text and
    /// its Enter cost one run. Throws, sending nothing, for a key tmux cannot name or text with a NUL byte.
    public func send(_ inputs: [Input]) throws(TmuxSinkError) {
        var args: [String] = []
        for input in inputs {
            if case .text(let text) = input, text.isEmpty { continue }
            if !args.isEmpty { args.append(";") }
            switch input {
            case .text(let text):
                guard !text.utf8.contains(0) else { throw TmuxSinkError(target: target, .nulByte) }
                args += ["send-keys", "-l", "-t", target, "--", text]
            case .key(let key):
                guard let name = Self.keyName(key) else { throw TmuxSinkError(target: target, .noKeyName(TerminalKeyPress(key))) }
                args += ["send-keys", "-t", target, "--", name]
            }
        }
        guard !args.isEmpty else { return }
        try run(args)
    }

    /// Sends a key (with `modifiers` held) to the pane; an unmodified character is typed as text.
    public func send(_ key: TerminalKey, modifiers: TerminalModifiers = []) throws(TmuxSinkError) {
        if case .char(let c) = key, modifiers.isEmpty { return try send(text: String(c)) }
        guard let name = Self.keyName(key, modifiers: modifiers) else {
            throw TmuxSinkError(target: target, .noKeyName(TerminalKeyPress(key, modifiers: modifiers)))
        }
        try run(["send-keys", "-t", target, "--", name])
    }

    /// Sends a key-row press (a key with the latches that were on).
    public func send(_ press: TerminalKeyPress) throws(TmuxSinkError) {
        try send(press.key, modifiers: press.modifiers)
    }

    /// Checks that the target names a live pane; throws a message naming it if not.
    public func check() throws(TmuxSinkError) {
        // With a server running, tmux 3.3 answers a target that names no pane with nothing and status 0.
        let id = try output(["display-message", "-p", "-t", target, "#{pane_id}"])
        guard id.first == UInt8(ascii: "%") else { throw TmuxSinkError(target: target, .noPane) }
    }

    /// Runs one tmux client to completion; throws with its error text if it fails.
    private func run(_ args: [String]) throws(TmuxSinkError) {
        _ = try output(args)
    }

    /// Runs one tmux client and returns what it printed; throws with its error text if it fails.
    private func output(_ args: [String]) throws(TmuxSinkError) -> [UInt8] {
        switch TmuxSink.runTmux(serverArguments + args) {
        case .success(let out): return out
        case .failure(let why): throw TmuxSinkError(target: target, why)
        }
    }

    /// What the target pane shows now, as a snapshot of plain cells (tmux gives text, not attributes), with its
    /// cursor: what the Terminal screen draws and completes words from in `--type-into` mode; and the working
    /// directory of its program (tmux's `pane_current_path`), where file names are completed from, nil under
    /// ssh or a container's shell, whose files are elsewhere. One tmux client for both.
    public func capture() throws(TmuxSinkError) -> (snapshot: TerminalSnapshot, workingDirectory: String?) {
        let out = try output(["display-message", "-p", "-t", target,
                              "#{cursor_x} #{cursor_y} #{pane_width} #{pane_height} #{alternate_on}", ";",
                              "display-message", "-p", "-t", target, "#{pane_current_command} #{pane_current_path}", ";",
                              "capture-pane", "-p", "-t", target])
        var lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2 else { throw TmuxSinkError(target: target, .emptyCapture) }
        let head = lines.removeFirst().split(separator: " ").compactMap { Int($0) }
        // "bash /home/me/src": the command has no space, the path may have.
        let place = lines.removeFirst()
        let command = place.prefix { $0 != " " }
        let path = place.dropFirst(command.count + 1)
        let workingDirectory = path.hasPrefix("/") && !RemoteShells.isRemote(String(command)) ? String(path) : nil
        guard head.count == 5, head[2] > 0, head[3] > 0, head[2] <= 1000, head[3] <= 1000 else {
            throw TmuxSinkError(target: target, .unexpectedDescription)
        }
        let cols = head[2], rows = head[3]
        var cells = [TerminalCell](repeating: .blank, count: rows * cols)
        for (r, line) in lines.prefix(rows).enumerated() {
            var c = 0
            for ch in line where c < cols {
                // Controls never reach the screen that draws this (tmux prints none without -e, but be sure).
                guard let u = ch.unicodeScalars.first, u.value >= 0x20, u.value != 0x7f else { c += 1; continue }
                let w = CharacterWidth.isWide(u.value) ? 2 : 1
                guard c + w <= cols else { break }
                cells[r * cols + c] = TerminalCell(text: String(ch), width: UInt8(w))
                if w == 2 { cells[r * cols + c + 1] = TerminalCell(text: "", width: 0) }
                c += w
            }
        }
        let snapshot = TerminalSnapshot(rows: rows, cols: cols, cells: cells,
                                        cursor: TerminalPosition(row: min(rows - 1, head[1]), col: min(cols, head[0])),
                                        cursorVisible: true, isAltScreen: head[4] == 1, title: "")
        return (snapshot, workingDirectory)
    }

    private enum Outcome { case success([UInt8]), failure(TmuxSinkError.Problem) }

    /// Spawns `tmux ARGS` (stdin on /dev/null, stdout and stderr read back) and waits for it.
    ///
    /// posix_spawn, not Foundation's Process: Process would also reap children it did not start.
    private static func runTmux(_ args: [String]) -> Outcome {
        var errPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        guard cpty_pipe_cloexec(&errPipe) == 0 else { return .failure(.cannotMakePipe(String(cString: strerror(errno)))) }
        guard cpty_pipe_cloexec(&outPipe) == 0 else {
            close(errPipe[0]); close(errPipe[1])
            return .failure(.cannotMakePipe(String(cString: strerror(errno))))
        }
        let argv = ["tmux"] + args
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, "tmux", &actions, nil, cArgs, environ)
        close(errPipe[1]); close(outPipe[1])
        guard rc == 0 else {
            close(errPipe[0]); close(outPipe[0])
            return .failure(.cannotRun(String(cString: strerror(rc))))
        }
        // Standard output first, to its end: tmux writes little to standard error, which the pipe holds.
        let out = drain(outPipe[0], limit: 4 << 20)
        let err = drain(errPipe[0], limit: 4096)
        close(errPipe[0]); close(outPipe[0])
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 {
            if errno != EINTR { return .failure(.lostClient(String(cString: strerror(errno)))) }
        }
        let status = ExitStatus(waitStatus: st)
        if status == .exited(0) { return .success(out) }
        var why = String(decoding: err, as: UTF8.self)
        while why.last?.isWhitespace == true { why.removeLast() }
        if status == .exited(127) && why.isEmpty { return .failure(.notInstalled) }
        return .failure(why.isEmpty ? .tmuxEnded(status) : .tmuxSaid(why))
    }

    /// Reads a pipe to its end, keeping at most `limit` bytes.
    private static func drain(_ fd: Int32, limit: Int) -> [UInt8] {
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buf, buf.count)
            if n > 0 { if got.count < limit { got.append(contentsOf: buf[0..<min(n, limit - got.count)]) }; continue }
            if n < 0 && errno == EINTR { continue }
            return got
        }
    }
}
