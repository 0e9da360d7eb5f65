#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell

/// The user's data folder for notes and messages: `--data-dir`, else `$HANDSFREE_DATA_DIR`, else
/// `$XDG_DATA_HOME/handsfree`, else `~/.local/share/handsfree`.
enum DataDir {
    static func url(flag: String?) -> URL {
        let env = ProcessInfo.processInfo.environment
        if let flag, !flag.isEmpty { return URL(fileURLWithPath: flag) }
        if let d = env["HANDSFREE_DATA_DIR"], !d.isEmpty { return URL(fileURLWithPath: d) }
        if let x = env["XDG_DATA_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        return URL(fileURLWithPath: env["HOME"] ?? NSTemporaryDirectory()).appendingPathComponent(".local/share/handsfree")
    }
}

/// The user's config folder for `settings.toml`: `$HANDSFREE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/handsfree`,
/// else `~/.config/handsfree`.
enum ConfigDir {
    static var url: URL {
        let env = ProcessInfo.processInfo.environment
        if let d = env["HANDSFREE_CONFIG_DIR"], !d.isEmpty { return URL(fileURLWithPath: d) }
        if let x = env["XDG_CONFIG_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        return URL(fileURLWithPath: env["HOME"] ?? NSTemporaryDirectory()).appendingPathComponent(".config/handsfree")
    }
    static var settings: URL { url.appendingPathComponent("settings.toml") }
}

/// Files written so that a crash or SIGKILL at any moment leaves either the old or the new content, whole.
enum AtomicFile {
    /// Writes `text` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
    /// folder, creating the folder first. Returns an error message (with the system's reason) on failure.
    static func write(_ text: String, to path: String) -> String? {
        let dir = (path as NSString).deletingLastPathComponent
        if let e = makeDirectories(dir) { return "cannot create \(dir) (\(e))" }
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot write in \(dir) (\(String(cString: strerror(errno))))" }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let count = bytes.count
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + done }, count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = String(cString: strerror(errno))
                close(fd); unlink(tmp)
                return "cannot write \(path) (\(e))"
            }
            done += n
        }
        if fsync(fd) != 0 {
            let e = String(cString: strerror(errno))
            close(fd); unlink(tmp)
            return "cannot write \(path) (\(e))"
        }
        close(fd)
        if rename(tmp, path) != 0 {
            let e = String(cString: strerror(errno))
            unlink(tmp)
            return "cannot replace \(path) (\(e))"
        }
        // The rename is durable only once the folder entry is on disk too.
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { _ = fsync(dfd); close(dfd) }
        return nil
    }

    /// `mkdir -p` with the system's short reason on failure ("Read-only file system", "Not a directory").
    static func makeDirectories(_ dir: String) -> String? {
        var path = ""
        for part in dir.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var st = stat()
        if stat(dir, &st) != 0 { return String(cString: strerror(errno)) }
        return (st.st_mode & S_IFMT) == S_IFDIR ? nil : String(cString: strerror(ENOTDIR))
    }
}

extension StoreClient {
    /// Notes and messages as files in `dir`, replaced atomically on every save.
    static func files(in dir: URL) -> StoreClient {
        let base = dir.path
        return StoreClient(
            read: { name in
                let path = base + "/" + name
                guard FileManager.default.fileExists(atPath: path) else { return .missing }
                guard let data = FileManager.default.contents(atPath: path) else { return .failed("cannot read it") }
                guard let s = String(data: data, encoding: .utf8) else { return .failed("it is not UTF-8 text") }
                return .text(s)
            },
            write: { name, text in AtomicFile.write(text, to: base + "/" + name) },
            moveAside: { name in
                let path = base + "/" + name
                var n = 1
                while FileManager.default.fileExists(atPath: "\(path).corrupt-\(n)") { n += 1 }
                return rename(path, "\(path).corrupt-\(n)") == 0 ? "\(name).corrupt-\(n)" : nil
            })
    }
}

/// The Settings screen's values in `settings.toml`.
enum UserSettings {
    /// The saved settings over `base`, and problems to show (a broken file is reported, not fatal: the
    /// shell must start so the user can fix it from the Settings screen).
    static func load(base: ShellSettings) -> (ShellSettings, [String]) {
        let path = ConfigDir.settings.path
        guard FileManager.default.fileExists(atPath: path) else { return (base, []) }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return (base, ["\(path): cannot read the file"])
        }
        return ShellSettings.parse(text, file: path, base: base)
    }

    static var exists: Bool { FileManager.default.fileExists(atPath: ConfigDir.settings.path) }

    static func save(_ s: ShellSettings) -> String? { AtomicFile.write(s.toml, to: ConfigDir.settings.path) }

    /// The keymaps in the project's `keymaps/` folder.
    static var keymapNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
            .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
        return names.isEmpty ? ["default"] : names
    }
}
