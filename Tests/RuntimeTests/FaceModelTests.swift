#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Runtime
import Shell
import Testing

/// The face model setup fetches: from a real HTTP server on 127.0.0.1 (`python/model_server.py`) serving the
/// real model and the ways a download goes wrong, each refused and named, with nothing left where the shell
/// looks; and a file the user names, checked the same way.
@Suite(.serialized) struct FaceModelTests {
    static let root = CorePurityTests.root
    static let model = root + "/../shared/data/models/face_landmarker_with_blendshapes.task"
    static let other = root + "/../shared/data/models/face_landmarker_android.task"
    static let ready = FileManager.default.fileExists(atPath: model) && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let reason: Comment = "needs ../shared/data/models and python3"
    static let python = "/usr/bin/python3"

    /// The test server, running until released.
    final class Server {
        let process = Process()
        let port: Int
        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [FaceModelTests.root + "/python/model_server.py", FaceModelTests.model]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("port "), let p = Int(text.dropFirst(5)) else { throw CocoaError(.fileReadUnknown) }
            port = p
        }
        func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
        // SIGKILL: a child spawned from a test's thread inherits its blocked signals, SIGTERM among them.
        deinit { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    final class Folder {
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "hf-model-\(getpid())-\(UUID().uuidString.prefix(8))/models")
        var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
        deinit { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    }

    @Test func sha256OfKnownTexts() {
        #expect(SHA256.hex(of: Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(of: long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Fed in pieces of every size across the 64-byte blocks, the digest is the same.
        var pieces = SHA256()
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var i = 0, n = 1
        while i < million.count { let j = min(million.count, i + n); pieces.update(million[i..<j]); i = j; n = n % 97 + 1 }
        #expect(pieces.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(.enabled(if: ready, reason))
    func theSharedModelIsTheOneThePinnedAddressServes() {
        #expect(FaceModel.problem(with: Self.model) == nil)
        #expect(FaceModel.problem(with: Self.other)?.contains("is not the face model") == true)
        #expect(FaceModel.officialURL.contains("/daceab7bc30b617cd56dd2e528967bbb2d1fa209/"), "a full commit, not a branch")
    }

    @Test(.enabled(if: ready, reason))
    func aWholeRightDownloadIsPutInPlace() throws {
        let server = try Server(), folder = Folder()
        let seen = Progress()
        let path = try FaceModel.download(from: server.url("good"), into: folder.url, python: Self.python) { done, total in seen.add(done, total) }
        #expect(path == folder.url.appendingPathComponent(FaceModel.fileName).path)
        #expect(folder.entries == [FaceModel.fileName])
        #expect(FaceModel.problem(with: path) == nil)
        #expect(seen.last.map { $0 == (FaceModel.size, FaceModel.size) } == true)
    }

    /// Each way a download goes wrong, with what the user is told; the folder is left as it was: empty, or
    /// with the good model an earlier download put there.
    @Test(.enabled(if: ready, reason))
    func wrongCutBigAndMissingDownloadsAreRefusedAndLeaveNothing() throws {
        let server = try Server(), folder = Folder()
        func refusal(_ path: String) -> FaceModelError? {
            do throws(FaceModelError) { _ = try FaceModel.download(from: server.url(path), into: folder.url, python: Self.python) { _, _ in }; return nil } catch { return error }
        }
        let corrupt = try #require(refusal("corrupt"))
        #expect(corrupt.description.hasPrefix("the file from 127.0.0.1 is not the face model: its SHA-256 is "), "\(corrupt)")
        #expect(corrupt.description.hasSuffix(", the model's \(FaceModel.sha256)") && !corrupt.offline)
        #expect(folder.entries.isEmpty, "nothing half-written where the shell looks: \(folder.entries)")
        let cut = try #require(refusal("cut"))
        #expect(cut.description.hasPrefix("the download from 127.0.0.1 stopped after 1.2 MB of 2.4 MB ("), "\(cut)")
        #expect(folder.entries.isEmpty)
        let short = try #require(refusal("nolength"))
        #expect(short.description == "the download from 127.0.0.1 stopped after 1.2 MB of 2.4 MB (the connection closed early)", "\(short)")
        let big = try #require(refusal("big"))
        #expect(big.description == "127.0.0.1 sent more than the model's 2.4 MB: it is not the model", "\(big)")
        let missing = try #require(refusal("missing"))
        #expect(missing.description.hasPrefix("127.0.0.1 answered 404 "), "\(missing)")
        #expect(folder.entries.isEmpty)

        // A good model in place stays when a later download is refused.
        _ = try FaceModel.download(from: server.url("good"), into: folder.url, python: Self.python) { _, _ in }
        #expect(refusal("corrupt") != nil)
        #expect(folder.entries == [FaceModel.fileName])
        #expect(FaceModel.problem(with: folder.url.appendingPathComponent(FaceModel.fileName).path) == nil)
    }

    /// No network: the address cannot be reached, which setup answers with the offline path.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs python3"))
    func anUnreachableAddressIsOffline() throws {
        let folder = Folder()
        let port = try closedTCPPort()
        do throws(FaceModelError) {
            _ = try FaceModel.download(from: "http://127.0.0.1:\(port)/model", into: folder.url, python: Self.python) { _, _ in }
            Issue.record("a closed port downloaded something")
        } catch {
            #expect(error.offline && error.description.hasPrefix("could not reach 127.0.0.1 ("), "\(error)")
        }
        #expect(folder.entries.isEmpty)
    }

    /// A file the user names (a USB stick, for a machine without network): the model is copied in, checked;
    /// another file is refused by name.
    @Test(.enabled(if: ready, reason))
    func aFileTheUserNamesIsCheckedThenCopied() throws {
        let folder = Folder()
        do throws(FaceModelError) {
            _ = try FaceModel.install(copying: Self.other, into: folder.url)
            Issue.record("the Android model was taken for the blend-shape one")
        } catch {
            #expect(error.description.contains("face_landmarker_android.task is not the face model"), "\(error)")
        }
        do throws(FaceModelError) { _ = try FaceModel.install(copying: "/nonexistent/face.task", into: folder.url) } catch {
            #expect(error.description == "/nonexistent/face.task: no such file")
        }
        #expect(folder.entries.isEmpty)
        let placed = try FaceModel.install(copying: Self.model, into: folder.url)
        #expect(FaceModel.problem(with: placed) == nil && folder.entries == [FaceModel.fileName])
    }

    /// A TCP port nothing listens on: bound, then closed.
    func closedTCPPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    final class Progress: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (Int, Int)?
        func add(_ done: Int, _ total: Int) { lock.withLock { value = (done, total) } }
        var last: (Int, Int)? { lock.withLock { value } }
    }
}

/// `tracker.toml`: the choice written and read back; a wrong file is named with its line.
@Suite struct TrackerFileTests {
    @Test func aChoiceRoundTripsAndMistakesAreNamed() throws {
        for choice in [TrackerChoice(kind: .webcam, device: "/dev/video2"), TrackerChoice(kind: .iFacialMocap, phone: "10.0.0.7"),
                       TrackerChoice(kind: .liveLinkFace), TrackerChoice(kind: .none)] {
            #expect(try TrackerFile.parse(TrackerFile.text(choice), file: "t.toml") == choice)
        }
        func error(_ text: String) -> String? {
            do throws(ConfigErrorBox) { _ = try ConfigErrorBox.run { try TrackerFile.parse(text, file: "t.toml") }; return nil } catch { return error.text }
        }
        #expect(error("tracker = \"kinect\"\n") == "t.toml:1: unknown tracker \"kinect\" (known: livelink, ifacialmocap, webcam, openseeface, none)")
        #expect(error("tracker = \"webcam\"\ndevice = 3\n") == "t.toml:2: device must be a camera's path, e.g. \"/dev/video0\"")
        #expect(error("tracker = \"webcam\"\nport = 1\n") == "t.toml:2: unknown key \"port\" (known: tracker, device, phone)")
        #expect(error("# nothing\n")?.hasPrefix("t.toml: tracker must be one of") == true)
    }
}

/// Carries a `ConfigError`'s text out of a typed throw.
struct ConfigErrorBox: Error {
    let text: String
    static func run<T>(_ body: () throws -> T) throws(ConfigErrorBox) -> T {
        do { return try body() } catch { throw ConfigErrorBox(text: "\(error)") }
    }
}
