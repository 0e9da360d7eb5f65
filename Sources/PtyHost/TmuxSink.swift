#if canImport(Glibc)
import Glibc
#endif
import CPty

/// Why text or a key could not be sent to a tmux pane; the message names the target.
public struct TmuxSinkError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Sends committed text and keys to an existing tmux pane (`--type-into tmux:TARGET`) instead of a hosted child.
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

    /// Parses a `--type-into` value: `tmux:TARGET`.
    public init(typeInto spec: String, serverArguments: [String] = []) throws(TmuxSinkError) {
        guard spec.hasPrefix("tmux:") else {
            throw TmuxSinkError("--type-into \"\(spec)\": expected tmux:TARGET, for example tmux:work:1.0")
        }
        let target = String(spec.dropFirst("tmux:".count))
        guard !target.isEmpty else { throw TmuxSinkError("--type-into \"\(spec)\": the tmux target is empty") }
        guard !target.utf8.contains(0) else { throw TmuxSinkError("--type-into: the tmux target contains a NUL byte") }
        self.init(target: target, serverArguments: serverArguments)
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
        guard !text.utf8.contains(0) else { throw TmuxSinkError("tmux target \(target): text contains a NUL byte") }
        try run(["send-keys", "-l", "-t", target, "--", text])
    }

    /// Sends a key (with `modifiers` held) to the pane; an unmodified character is typed as text.
    public func send(_ key: TerminalKey, modifiers: TerminalModifiers = []) throws(TmuxSinkError) {
        if case .char(let c) = key, modifiers.isEmpty { return try send(text: String(c)) }
        guard let name = Self.keyName(key, modifiers: modifiers) else {
            throw TmuxSinkError("tmux target \(target): \(key) has no tmux key name")
        }
        try run(["send-keys", "-t", target, "--", name])
    }

    /// Sends a key-row press (a key with the latches that were on).
    public func send(_ press: TerminalKeyPress) throws(TmuxSinkError) {
        try send(press.key, modifiers: press.modifiers)
    }

    /// Checks that the target names a live pane; throws a message naming it if not.
    public func check() throws(TmuxSinkError) {
        try run(["display-message", "-p", "-t", target, "#{pane_id}"])
    }

    /// Runs one tmux client to completion; throws with its error text if it fails.
    private func run(_ args: [String]) throws(TmuxSinkError) {
        let result = TmuxSink.runTmux(serverArguments + args)
        switch result {
        case .success: return
        case .failure(let why):
            throw TmuxSinkError("tmux target \(target): \(why)")
        }
    }

    private enum Outcome { case success, failure(String) }

    /// Spawns `tmux ARGS` (stdin and stdout on /dev/null, stderr read back) and waits for it.
    ///
    /// posix_spawn, not Foundation's Process: Process would also reap children it did not start.
    private static func runTmux(_ args: [String]) -> Outcome {
        var errPipe: [Int32] = [-1, -1]
        guard cpty_pipe_cloexec(&errPipe) == 0 else { return .failure("cannot make a pipe: \(String(cString: strerror(errno)))") }
        let argv = ["tmux"] + args
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, "tmux", &actions, nil, cArgs, environ)
        close(errPipe[1])
        guard rc == 0 else {
            close(errPipe[0])
            return .failure("cannot run tmux: \(String(cString: strerror(rc)))")
        }
        var err: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = read(errPipe[0], &buf, buf.count)
            if n > 0 { if err.count < 4096 { err.append(contentsOf: buf[0..<n]) }; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(errPipe[0])
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 {
            if errno != EINTR { return .failure("lost the tmux client: \(String(cString: strerror(errno)))") }
        }
        let status = ExitStatus(waitStatus: st)
        if status == .exited(0) { return .success }
        var why = String(decoding: err, as: UTF8.self)
        while why.last?.isWhitespace == true { why.removeLast() }
        if status == .exited(127) && why.isEmpty { return .failure("tmux is not installed") }
        return .failure(why.isEmpty ? "tmux \(status)" : why)
    }
}
