#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell
import SystemIO

/// The file system as the Terminal screen's suggestions see it: the programs on `PATH` and the entries of the
/// directories typed on the command line.
///
/// The suggestion bar asks at every drawing, so each answer is kept for a moment (`maxAge`) and a listing
/// stops at `maxEntries`: a huge directory costs one bounded read, not one per frame.
public final class CommandLineFiles: @unchecked Sendable {
    let searchPath: [String]
    let home: String?
    let maxAge: Double
    let maxEntries: Int
    /// Ages the answers kept.
    let clock: any ShellClock
    private let lock = NSLock()
    private var commandCache: (at: Double, names: [String])?
    /// A new listing of `PATH` is being made on another thread.
    private var refreshing = false
    private var listings: [String: (at: Double, entries: [CommandLineCompletion.Entry]?)] = [:]

    /// `environment` gives `PATH` and `HOME`, as the program on the Terminal screen inherits them.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, maxAge: Double = 2,
                maxEntries: Int = 5_000, clock: any ShellClock = LiveClock()) {
        searchPath = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        home = environment["HOME"]
        self.maxAge = maxAge
        self.maxEntries = maxEntries
        self.clock = clock
    }

    /// Carries out the reducer's `listCommands` and `listDirectory` effects; returns the event that answers
    /// one, nil for any other effect.
    public func perform(_ effect: Effect) -> ShellEvent? {
        switch effect {
        case .listCommands: return .commandsListed(commands())
        case .listDirectory(let d): return .directoryListed(d, list(d.typed, workingDirectory: d.workingDirectory))
        default: return nil
        }
    }

    /// The names of the executables on `PATH`, each once, sorted (the suggestion bar searches them).
    ///
    /// Only the first listing is made on the caller's thread. Listing `PATH` takes milliseconds (a read of
    /// each directory and an `access` per entry), which at every refresh stalled the event loop while the
    /// user typed: once the list is old, the old one is answered and a new one made on another thread, for
    /// the next ask.
    public func commands() -> [String] {
        let now = clock.now()
        lock.lock()
        if let c = commandCache {
            if now - c.at >= maxAge * 15, !refreshing {
                refreshing = true
                DispatchQueue.global(qos: .utility).async { [self] in
                    let list = scanCommands()
                    lock.lock()
                    commandCache = (clock.now(), list)
                    refreshing = false
                    lock.unlock()
                }
            }
            lock.unlock()
            return c.names
        }
        lock.unlock()
        let list = scanCommands()
        lock.lock()
        commandCache = (now, list)
        lock.unlock()
        return list
    }

    /// A new listing of the executables on `PATH`.
    private func scanCommands() -> [String] {
        var names: Set<String> = []
        for dir in searchPath where dir.hasPrefix("/") {
            for e in Self.read(directory: dir, limit: maxEntries * 2) ?? [] where !e.isDirectory {
                if access(dir + "/" + e.name, X_OK) == 0 { names.insert(e.name) }
            }
        }
        return names.sorted()
    }

    /// The entries of a directory typed on a command line: `~/…` from `HOME`, `/…` as it is, anything else
    /// (including "") from `workingDirectory`; nil if it cannot be read or is relative with no working
    /// directory known.
    public func list(_ typed: String, workingDirectory: String?) -> [CommandLineCompletion.Entry]? {
        guard let path = resolve(typed, workingDirectory: workingDirectory) else { return nil }
        let now = clock.now()
        lock.lock()
        if let l = listings[path], now - l.at < maxAge { lock.unlock(); return l.entries }
        lock.unlock()
        let entries = Self.read(directory: path, limit: maxEntries)
        lock.lock()
        if listings.count > 64 { listings.removeAll() }
        listings[path] = (now, entries)
        lock.unlock()
        return entries
    }

    func resolve(_ typed: String, workingDirectory: String?) -> String? {
        if typed == "~" || typed.hasPrefix("~/") {
            guard let home else { return nil }
            return home + typed.dropFirst()
        }
        if typed.hasPrefix("~") { return nil }   // another user's home: not looked up
        if typed.hasPrefix("/") { return typed }
        guard let cwd = workingDirectory else { return nil }
        return typed.isEmpty ? cwd : cwd + "/" + typed
    }

    /// Reads a directory's names and whether each is a directory (a symbolic link to one counts), at most
    /// `limit` of them.
    static func read(directory: String, limit: Int) -> [CommandLineCompletion.Entry]? {
        guard let d = opendir(directory) else { return nil }
        defer { closedir(d) }
        var out: [CommandLineCompletion.Entry] = []
        while out.count < limit, let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var isDir = e.pointee.d_type == UInt8(DT_DIR)
            if e.pointee.d_type == UInt8(DT_LNK) || e.pointee.d_type == UInt8(DT_UNKNOWN) {
                var st = stat()
                isDir = stat(directory + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            }
            out.append(CommandLineCompletion.Entry(name: name, isDirectory: isDir))
        }
        return out
    }
}
