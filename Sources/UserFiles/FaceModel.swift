#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// Why a face model was not installed: named for the user, and whether the network could not be reached at
/// all (then a file the user has is the way on).
public struct FaceModelError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public var offline: Bool
    public init(_ description: String, offline: Bool = false) { self.description = description; self.offline = offline }
}

/// The MediaPipe Face Landmarker model the webcam bridge needs: where the shell looks for it, what it must be,
/// and how setup fetches it.
///
/// The file is the one the project measured (`../shared/data/models`): google/project-gameface,
/// `Windows/assets/task/`, at commit daceab7 (Apache-2.0). Its address pins that full commit, so the bytes
/// behind it never change and the checksum below, worked out from that commit's blob, always holds.
public enum FaceModel {
    public static let fileName = "face_landmarker_with_blendshapes.task"
    public static let officialURL = "https://raw.githubusercontent.com/google/project-gameface/"
        + "daceab7bc30b617cd56dd2e528967bbb2d1fa209/Windows/assets/task/face_landmarker_with_blendshapes.task"
    public static let sha256 = "b261925d4aad812b47a0e8d58c1baa1223270a5d1f663d78338bc881c003879d"
    public static let size = 2_357_924

    /// Where the model may be, in order: `--model`, `$HANDSFREE_FACE_MODEL`, `models/` beside the shipped data,
    /// the shared test data beside a source checkout, and `models/` in the user's data folder (where setup
    /// puts it).
    public static func candidates(_ explicit: String?, environment env: [String: String], paths: UserPaths) -> [String] {
        if let explicit { return [explicit] }
        var c: [String] = []
        if let e = env["HANDSFREE_FACE_MODEL"], !e.isEmpty { c.append(e) }
        c.append(ProjectPaths.dir("models").appendingPathComponent(fileName).path)
        if let root = ProjectPaths.root, ProjectPaths.isSourceTree(root) {
            c.append(root.deletingLastPathComponent().appendingPathComponent("shared/data/models/\(fileName)").path)
        }
        c.append(paths.models.appendingPathComponent(fileName).path)
        return c
    }

    /// The first candidate that exists.
    public static func find(_ explicit: String? = nil, environment env: [String: String] = ProcessInfo.processInfo.environment,
                            paths: UserPaths) -> String? {
        candidates(explicit, environment: env, paths: paths).first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Nil when `path` is the model (its size and SHA-256); else what it is instead.
    public static func problem(with path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "\(path) cannot be read (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var digest = SHA256()
        var count = 0
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buf, buf.count)
            if n < 0 { return "\(path) cannot be read (\(String(cString: strerror(errno))))" }
            if n == 0 { break }
            count += n
            // A file much bigger than the model is not it; no need to read it all.
            if count > size { return "\(path) is not the face model: it is larger than the model's \(Self.megabytes(size))" }
            digest.update(buf[0..<n])
        }
        if count != size { return "\(path) is not the face model: it has \(count) bytes, the model \(size)" }
        let got = digest.hex()
        return got == sha256 ? nil : "\(path) is not the face model: its SHA-256 is \(got), the model's \(sha256)"
    }

    /// The temporary name of a file on its way into `folder`: hidden and distinct, so nothing that looks for
    /// the model by name ever sees it half-written.
    static func partial(in folder: URL) -> String { folder.appendingPathComponent(".\(fileName).part-\(getpid())").path }

    /// Removes what an earlier, interrupted download of this model left in `folder`.
    static func removeStalePartials(in folder: URL) {
        let prefix = ".\(fileName).part-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    /// Copies a model file the user named into `folder`, checked first: the copy is written beside its final
    /// name, checked again, and renamed into place, so a failure leaves nothing where the shell looks.
    public static func install(copying source: String, into folder: URL) throws(FaceModelError) -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDir) else { throw FaceModelError("\(source): no such file") }
        if isDir.boolValue { throw FaceModelError("\(source) is a folder; name the .task file inside it") }
        if let p = problem(with: source) { throw FaceModelError(p) }
        guard let data = FileManager.default.contents(atPath: source) else { throw FaceModelError("\(source) cannot be read") }
        return try place([UInt8](data), into: folder, from: source)
    }

    /// Writes bytes already checked to a temporary file in `folder`, checks that file, and renames it into place.
    static func place(_ bytes: [UInt8], into folder: URL, from: String) throws(FaceModelError) -> String {
        if let e = DurableFile.makeDirectories(folder.path) { throw FaceModelError("cannot make \(folder.path) (\(e))") }
        removeStalePartials(in: folder)
        let temp = partial(in: folder), final = folder.appendingPathComponent(fileName).path
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FaceModelError("cannot write in \(folder.path) (\(String(cString: strerror(errno))))") }
        if let e = DurableFile.writeAll(fd, bytes) { close(fd); unlink(temp); throw FaceModelError("cannot write in \(folder.path) (\(e))") }
        fsync(fd)
        close(fd)
        return try commit(temp, to: final, from: from)
    }

    /// Checks the finished temporary file and renames it over the final name; removes it on any failure.
    static func commit(_ temp: String, to final: String, from: String) throws(FaceModelError) -> String {
        if let p = problem(with: temp) {
            unlink(temp)
            throw FaceModelError(p.replacingOccurrences(of: temp, with: "the file from \(from)"))
        }
        guard rename(temp, final) == 0 else {
            let e = String(cString: strerror(errno))
            unlink(temp)
            throw FaceModelError("cannot put the model at \(final) (\(e))")
        }
        return final
    }

    /// Downloads the model from `url` into `folder`: the bytes go to a temporary file in the same folder as
    /// they arrive (never more than the model's size), which is checked and renamed into place only whole and
    /// right; a download cut off, refused, too big or with another checksum leaves nothing behind. `progress`
    /// hears the bytes so far and the size expected. Blocks the calling thread (setup's worker).
    ///
    /// The transfer is `python/fetch.py` run by `python`: the binary links no HTTP client, since every command
    /// would load one (and the TLS libraries under it) at each start for a download done once; the webcam the
    /// model is for needs that Python anyway.
    public static func download(from url: String, into folder: URL, python: String?, timeout: Double = 30,
                                progress: @escaping @Sendable (Int, Int) -> Void) throws(FaceModelError) -> String {
        guard let u = URL(string: url), let scheme = u.scheme, ["http", "https"].contains(scheme), let host = u.host else {
            throw FaceModelError("\(url) is not an http or https address")
        }
        guard let python else {
            throw FaceModelError("no Python to download with (python3 is not installed)", offline: true)
        }
        if let e = DurableFile.makeDirectories(folder.path) { throw FaceModelError("cannot make \(folder.path) (\(e))") }
        removeStalePartials(in: folder)
        let temp = partial(in: folder), final = folder.appendingPathComponent(fileName).path
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FaceModelError("cannot write in \(folder.path) (\(String(cString: strerror(errno))))") }
        let failure = fetch(url, python: python, timeout: timeout, into: fd, progress: progress)
        fsync(fd)
        close(fd)
        if let (failure, received) = failure {
            unlink(temp)
            throw FaceModelError(describe(failure, host: host, received: received), offline: failure.isUnreachable)
        }
        return try commit(temp, to: final, from: host)
    }

    /// How a transfer failed.
    enum Failure: Equatable {
        case unreachable(String), status(String), tooBig, cut(String), write(String)
        var isUnreachable: Bool { if case .unreachable = self { true } else { false } }
    }

    /// Runs the fetcher, writing what it sends to `fd` up to the model's size; nil when the whole body came.
    static func fetch(_ url: String, python: String, timeout: Double, into fd: Int32,
                      progress: @Sendable (Int, Int) -> Void) -> (Failure, Int)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [PythonEnv.script("fetch.py"), url, "--timeout", String(timeout)]
        p.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { return (.unreachable("\(python) did not start: \(error.localizedDescription)"), 0) }
        var received = 0
        var failure: Failure?
        let reader = out.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            if received + chunk.count > size { failure = .tooBig; kill(p.processIdentifier, SIGKILL); break }
            if let e = DurableFile.writeAll(fd, [UInt8](chunk)) { failure = .write(e); kill(p.processIdentifier, SIGKILL); break }
            received += chunk.count
            progress(received, size)
        }
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        if let failure { return (failure, received) }
        switch p.terminationStatus {
        case 0:
            // A server that sends no length and closes early ends the transfer as if it were whole.
            return received < size ? (.cut("the connection closed early"), received) : nil
        case 3: return (.unreachable(said.isEmpty ? "no answer" : said), received)
        case 4: return (.status(said.hasPrefix("status ") ? String(said.dropFirst(7)) : said), received)
        default: return (.cut(said.isEmpty ? "the transfer broke off" : said), received)
        }
    }

    static func megabytes(_ n: Int) -> String { String(format: "%.1f MB", Double(n) / 1_000_000) }

    /// What went wrong with a download, for the user.
    static func describe(_ failure: Failure, host: String, received: Int) -> String {
        let mb = megabytes
        switch failure {
        case .unreachable(let why): return "could not reach \(host) (\(why))"
        case .status(let answer): return "\(host) answered \(answer) instead of the model"
        case .tooBig: return "\(host) sent more than the model's \(mb(size)): it is not the model"
        case .cut(let why): return "the download from \(host) stopped after \(mb(received)) of \(mb(size)) (\(why))"
        case .write(let why): return "cannot write the download (\(why))"
        }
    }
}
