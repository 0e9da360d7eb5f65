#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import Synchronization
import SystemIO

/// Files written so that a crash or SIGKILL at any moment leaves either the old or the new content, whole.
public enum AtomicFile {
    /// Writes `text` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
    /// folder, creating the folder first (`DurableFile.write`). Returns an error message (with the system's
    /// reason) on failure.
    public static func write(_ text: String, to path: String) -> String? {
        writing(text, to: path)?.english
    }

    /// `write`, its failure worded for translation (the system's reason in the system's words).
    public static func writing(_ text: String, to path: String) -> UIMessage? {
        let dir = (path as NSString).deletingLastPathComponent
        return switch DurableFile.write(Array(text.utf8), to: path) {
        case nil: nil
        case .folder(let e): UIMessage("cannot create {folder} ({reason})", ["folder": dir], reasons: ["reason": .system(e)])
        case .temporary(let e): UIMessage("cannot write in {folder} ({reason})", ["folder": dir], reasons: ["reason": .system(e)])
        case .write(let e): UIMessage("cannot write {file} ({reason})", ["file": path], reasons: ["reason": .system(e)])
        case .replace(let e): UIMessage("cannot replace {file} ({reason})", ["file": path], reasons: ["reason": .system(e)])
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; returns the system's reason on failure.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? { DurableFile.writeAll(fd, bytes) }

    /// `mkdir -p` with the system's short reason on failure ("Read-only file system", "Not a directory").
    public static func makeDirectories(_ dir: String) -> String? { DurableFile.makeDirectories(dir) }
}

public extension AtomicFile {
    /// Reads a whole file: `.missing`, its text (invalid UTF-8 shown as U+FFFD and reported as `.damaged`),
    /// or `.failed` with the system's reason.
    static func read(_ path: String) -> FileRead {
        var st = stat()
        if lstat(path, &st) != 0 { return errno == ENOENT ? .missing : .failed(String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failed(String(cString: strerror(EISDIR))) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failed(String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes += buf[0..<n]
        }
        return FileRead.decoding(bytes)
    }

    /// Renames `path` to `path.corrupt-<n>` (the first free n), so a file that could not be read is kept
    /// and never overwritten; returns the new file name, nil if it could not be moved.
    static func moveAside(_ path: String) -> String? {
        var n = 1
        while access("\(path).corrupt-\(n)", F_OK) == 0 { n += 1 }
        guard rename(path, "\(path).corrupt-\(n)") == 0 else { return nil }
        return ((path as NSString).lastPathComponent) + ".corrupt-\(n)"
    }

    /// Deletes the temporary files (`NAME.tmp-PID`) that `write` leaves when the process is killed between
    /// creating and renaming one: only in `dir`, only names of that pattern, only if no process `PID` lives.
    static func removeStaleTemporaries(in dir: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names {
            guard let pid = stalePID(name) else { continue }
            // EPERM means the process exists (another user's): only ESRCH proves it gone.
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(dir + "/" + name) }
        }
    }

    /// The PID in a temporary file's name (`NAME.tmp-PID`), unless it is this process's.
    static func stalePID(_ name: String) -> pid_t? {
        guard let r = name.range(of: ".tmp-", options: .backwards), r.lowerBound > name.startIndex else { return nil }
        let digits = name[r.upperBound...]
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let pid = pid_t(digits), pid > 0, pid != getpid() else { return nil }
        return pid
    }
}

public extension StoreClient {
    /// Notes and messages as files in `dir`, replaced atomically on every save. Temporary files left by a
    /// killed process are removed first.
    static func files(in dir: URL) -> StoreClient {
        let base = dir.path
        AtomicFile.removeStaleTemporaries(in: base)
        return StoreClient(
            read: { name in AtomicFile.read(base + "/" + name) },
            write: { name, text in AtomicFile.writing(text, to: base + "/" + name) },
            moveAside: { name in AtomicFile.moveAside(base + "/" + name) })
    }
}

/// The Settings screen's values in `settings.toml`.
public enum UserSettings {
    /// The saved settings over `base`, and problems to show (a broken file is reported, not fatal: the
    /// shell must start so the user can fix it from the Settings screen).
    ///
    /// A file that could not be read whole is never overwritten: the first save moves it aside first.
    public static func load(base: ShellSettings, from file: URL) -> (ShellSettings, [UIMessage]) {
        AtomicFile.removeStaleTemporaries(in: file.deletingLastPathComponent().path)
        let (s, problems, kept) = read(base: base, from: file)
        if kept { damaged.withLock { $0 = true } }
        return (s, problems)
    }

    /// What `load` reads, changing nothing (for `doctor`): the settings over `base`, the problems, each with its
    /// file and line, and whether the file is to be kept aside before the next save.
    public static func read(base: ShellSettings, from file: URL) -> (ShellSettings, [UIMessage], kept: Bool) {
        let path = file.path
        switch AtomicFile.read(path) {
        case .missing:
            return (base, [], false)
        case .failed(let e):
            return (base, [UIMessage("{file}: cannot read the file ({reason}); it is kept as a copy when settings are next saved",
                                     ["file": path], reasons: ["reason": .system(e)])], true)
        case .damaged(let text, _):
            let (s, problems) = ShellSettings.read(text, file: path, base: base)
            let n = text.unicodeScalars.reduce(0) { $0 + ($1 == "\u{FFFD}" ? 1 : 0) }
            return (s, [.plural("{file}: {n} place is not UTF-8 text (shown as �); it is kept as a copy when settings are next saved",
                                "{file}: {n} places are not UTF-8 text (shown as �); it is kept as a copy when settings are next saved",
                                n, ["file": path])] + problems.map(\.shown), true)
        case .text(let text):
            let (s, problems) = ShellSettings.read(text, file: path, base: base)
            return (s, problems.map(\.shown), !problems.isEmpty)
        }
    }

    /// Set when `settings.toml` held something `load` could not read; `save` then keeps it aside first.
    private static let damaged = Mutex(false)

    public static func exists(_ file: URL) -> Bool { FileManager.default.fileExists(atPath: file.path) }

    public static func save(_ s: ShellSettings, to file: URL) -> UIMessage? {
        let path = file.path
        let blocked: UIMessage? = damaged.withLock { d in
            guard d else { return nil }
            if access(path, F_OK) != 0 && errno == ENOENT { d = false; return nil }
            guard AtomicFile.moveAside(path) != nil else {
                return UIMessage("{file} could not be read nor moved aside ({reason}), so nothing is saved over it", ["file": path],
                                 reasons: ["reason": .system(String(cString: strerror(errno)))])
            }
            d = false
            return nil
        }
        if let blocked { return blocked }
        return AtomicFile.writing(s.toml, to: path)
    }

    /// The keymaps in the project's `keymaps/` folder.
    public static var keymapNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
            .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
        return names.isEmpty ? ["default"] : names
    }
}

/// Text that could not be saved where it belongs, written somewhere else before the shell ends.
public enum UnsavedText {
    /// What standard error says when no place took the text (a file system gone read-only under the data,
    /// state and temporary folders): the text itself, each file as it would have been saved, so it can be
    /// copied back. The caller prints it after the terminal is restored, so it is the last thing left on it.
    public static func lastResort(_ files: [String: String], reasons: String) -> String {
        var out = "handsfree: text that could not be saved (\(files.keys.sorted().joined(separator: ", "))) could not be written anywhere (\(reasons)). It follows here, each file as it would have been saved:"
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            out += "\n----- \(name) -----\n" + text
            if !text.hasSuffix("\n") { out += "\n" }
            out += "----- end of \(name) -----"
        }
        return out
    }

    /// The places to try, in order: the state folder, then the temporary folder.
    public static func places(_ paths: UserPaths) -> [String] {
        let tmp = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return [paths.state.path, tmp]
    }

    /// Writes each file into a new folder `handsfree-unsaved-<date>-XXXXXX` (readable by the user alone) in the
    /// first place that takes them all; returns that folder, or every place's reason when none did.
    public static func write(_ files: [String: String], places: [String], date: Date = Date()) -> (place: String?, error: String?) {
        let stamp = date.formatted(.iso8601.year().month().day().dateSeparator(.omitted).time(includingFractionalSeconds: false)
            .timeSeparator(.omitted).timeZone(separator: .omitted)).replacingOccurrences(of: "T", with: "-")
        var reasons: [String] = []
        for place in places {
            if let e = AtomicFile.makeDirectories(place) { reasons.append("\(place): \(e)"); continue }
            var template = Array("\(place)/handsfree-unsaved-\(stamp)-XXXXXX".utf8CString)
            // mkdtemp makes the folder 0700 and never reuses one, which matters in a shared /tmp.
            guard template.withUnsafeMutableBufferPointer({ buf in buf.baseAddress.map { mkdtemp($0) != nil } ?? false }) else {
                reasons.append("\(place): \(String(cString: strerror(errno)))")
                continue
            }
            // mkdtemp filled in the X's of the template itself.
            let dir = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var failed: String?
            for (name, text) in files.sorted(by: { $0.key < $1.key }) {
                if let e = AtomicFile.write(text, to: dir + "/" + name) { failed = e; break }
            }
            if let failed {
                for name in files.keys { unlink(dir + "/" + name) }
                rmdir(dir)
                reasons.append(failed)
                continue
            }
            return (dir, nil)
        }
        return (nil, reasons.joined(separator: "; "))
    }
}
