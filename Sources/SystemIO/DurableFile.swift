#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes files so that a crash or SIGKILL at any moment leaves either the old or the new content, whole.
public enum DurableFile {
    /// Why a write failed: the step and the system's short reason ("Permission denied").
    public enum Failure: Error, Equatable, Sendable {
        /// The folder could not be created.
        case folder(reason: String)
        /// No temporary file could be made in the folder.
        case temporary(reason: String)
        /// Writing or syncing the temporary file failed.
        case write(reason: String)
        /// The temporary file could not be renamed over the target.
        case replace(reason: String)

        public var reason: String {
            switch self {
            case .folder(let r), .temporary(let r), .write(let r), .replace(let r): return r
            }
        }
    }

    /// The temporary file `write` makes beside `path` (`NAME.tmp-PID`); a killed process leaves it behind.
    public static func temporaryPath(for path: String) -> String { path + ".tmp-\(getpid())" }

    /// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
    /// folder, creating the folder first; nil on success.
    public static func write(_ bytes: [UInt8], to path: String) -> Failure? {
        let dir = (path as NSString).deletingLastPathComponent
        if let e = makeDirectories(dir) { return .folder(reason: e) }
        let tmp = temporaryPath(for: path)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .temporary(reason: systemReason()) }
        if let e = writeAll(fd, bytes) {
            close(fd); unlink(tmp)
            return .write(reason: e)
        }
        if fsync(fd) != 0 {
            let e = systemReason()
            close(fd); unlink(tmp)
            return .write(reason: e)
        }
        close(fd)
        if rename(tmp, path) != 0 {
            let e = systemReason()
            unlink(tmp)
            return .replace(reason: e)
        }
        // The rename is durable only once the folder entry is on disk too.
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { _ = fsync(dfd); close(dfd) }
        return nil
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; returns the system's reason on failure.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var done = 0
        while done < bytes.count {
            #if canImport(Glibc)
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + done }, bytes.count - done) }
            #else
            let n = bytes.withUnsafeBytes { Darwin.write(fd, $0.baseAddress.map { $0 + done }, bytes.count - done) }
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                return systemReason()
            }
            done += n
        }
        return nil
    }

    /// `mkdir -p` with the system's short reason on failure ("Read-only file system", "Not a directory").
    public static func makeDirectories(_ dir: String) -> String? {
        var path = ""
        for part in dir.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST { return systemReason() }
        }
        var st = stat()
        if stat(dir, &st) != 0 { return systemReason() }
        return (st.st_mode & S_IFMT) == S_IFDIR ? nil : String(cString: strerror(ENOTDIR))
    }

    private static func systemReason() -> String { String(cString: strerror(errno)) }
}
