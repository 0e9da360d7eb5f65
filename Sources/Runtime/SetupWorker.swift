#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import Speech
import UserFiles
import LiveServices

/// Carries out the setup screen's requests that take time or touch devices (`Effect.setup`), each on a thread
/// of its own, and hands what happened back to the loop as `ShellEvent.setup`, waking `poll` through a pipe
/// (the shape of `LiveSpeaker`). Listening to the tracker and saving the choice are the runtime's own
/// (`ShellRuntime.setupEffect`), since they change its sources and files.
public final class SetupWorker: @unchecked Sendable {
    /// Where things are and which devices to try.
    public struct Configuration: Sendable {
        public var paths: UserPaths
        /// The address the face model is fetched from (its checksum must still be the model's).
        public var modelURL: String
        public var microphone: AudioInput
        public var speaker: LiveSpeaker.Output
        public init(paths: UserPaths, modelURL: String = FaceModel.officialURL, microphone: AudioInput = .mic("default"),
                    speaker: LiveSpeaker.Output = .device("default")) {
            self.paths = paths; self.modelURL = modelURL; self.microphone = microphone; self.speaker = speaker
        }
    }

    public let configuration: Configuration
    private let lock = NSLock()
    private let outbox = WakingOutbox<ShellEvent>()
    private var installer: Process?
    /// The long tasks under way, so a second press does not start another.
    private var running: Set<String> = []

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    deinit { shutdown() }

    /// Descriptors for the loop's `poll`: readable when reports are waiting.
    public var descriptors: [Int32] { outbox.descriptors }

    /// Reports since the last call.
    public func drain() -> [ShellEvent] { outbox.drain() }

    /// Stops an installer still running (the shell is leaving).
    public func shutdown() {
        let p = lock.withLock { () -> Process? in defer { installer = nil }; return installer }
        if let p, p.isRunning { p.terminate() }
    }

    private func post(_ r: SetupReport) { outbox.post(.setup(r)) }

    /// Runs `work` on a thread of its own unless a task of the same name is under way.
    private func background(_ name: String, _ work: @escaping @Sendable () -> Void) {
        guard lock.withLock({ running.insert(name).inserted }) else { return }
        Thread.detachNewThread { [weak self] in
            work()
            _ = self?.lock.withLock { self?.running.remove(name) }
        }
    }

    /// Carries out a request; what it comes to is posted.
    public func perform(_ request: SetupRequest) {
        switch request {
        case .survey:
            background("survey") { [self] in post(.surveyed(survey())) }
        case .installPython(let groups):
            background("python") { [self] in installPython(groups) }
        case .downloadModel:
            background("model") { [self] in
                let url = configuration.modelURL, folder = configuration.paths.models
                do throws(FaceModelError) {
                    let path = try FaceModel.download(from: url, into: folder, python: PythonEnv.python()) { [weak self] done, total in
                        self?.progress(done, total)
                    }
                    post(.finished(.model, problem: nil, detail: UIMessage("{file}, checked", ["file": Self.shown(path)]), offline: false))
                } catch {
                    post(.finished(.model, problem: .verbatim(error.description), detail: nil, offline: error.offline))
                }
            }
        case .copyModel(let path):
            background("model") { [self] in
                do throws(FaceModelError) {
                    let placed = try FaceModel.install(copying: Self.expandingHome(path), into: configuration.paths.models)
                    post(.finished(.model, problem: nil, detail: UIMessage("{file}, copied and checked", ["file": Self.shown(placed)]), offline: false))
                } catch {
                    post(.finished(.model, problem: .verbatim(error.description), detail: nil, offline: true))
                }
            }
        case .testMicrophone:
            background("microphone") { [self] in testMicrophone() }
        case .testSpeaker:
            background("speaker") { [self] in testSpeaker() }
        case .startTracker, .save:
            break   // the runtime's own
        }
    }

    /// Download progress, posted at most every 64 KB so the loop is not woken for each packet.
    private var lastProgress = 0
    private func progress(_ done: Int, _ total: Int) {
        let due = lock.withLock { () -> Bool in
            // A new download starts below the last one's count.
            guard done < lastProgress || done - lastProgress >= 1 << 16 || done == total else { return false }
            lastProgress = done
            return true
        }
        if due { post(.progress(.model, done: done, total: total, line: nil)) }
    }

    static func expandingHome(_ path: String) -> String {
        path.hasPrefix("~/") ? home + path.dropFirst() : path
    }

    static var home: String { ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() }

    /// A path as the screen shows it: the home folder as `~`, so it fits on a line.
    static func shown(_ path: String) -> String {
        let h = home.hasSuffix("/") ? String(home.dropLast()) : home
        return !h.isEmpty && path.hasPrefix(h + "/") ? "~" + path.dropFirst(h.count) : path
    }

    // MARK: The survey

    /// What this machine has: Python parts, the face model, cameras, network addresses, model files about.
    func survey() -> SetupSurvey {
        let env = ProcessInfo.processInfo.environment
        let python = PythonEnv.python()
        let packages = python.flatMap(PythonEnv.probe) ?? [:]
        let found = FaceModel.find(paths: configuration.paths)
        let problem = found.flatMap(FaceModel.problem(with:))
        let host = URL(string: configuration.modelURL)?.host ?? configuration.modelURL
        return SetupSurvey(python: python, packages: packages.filter { !$0.key.hasSuffix("-model") },
                           installCommand: PythonEnv.installScript, installProblem: PythonEnv.installProblem(),
                           model: problem == nil ? found.map(Self.shown) : nil, modelProblem: problem,
                           modelFolder: Self.shown(configuration.paths.models.path), modelHost: host, modelSize: FaceModel.size,
                           modelFiles: Self.modelFiles(home: env["HOME"] ?? NSHomeDirectory(), except: found),
                           cameras: Self.cameras(), addresses: Self.addresses())
    }

    /// Camera devices (`/dev/video*`), in order.
    static func cameras(in dev: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dev)) ?? []
        return names.filter { $0.hasPrefix("video") && $0.dropFirst(5).allSatisfy(\.isNumber) && $0.count > 5 }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { dev + "/" + $0 }
    }

    /// This machine's IPv4 addresses other than loopback, where a phone on the same network can send.
    static func addresses() -> [String] {
        var out: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let a = p {
            defer { p = a.pointee.ifa_next }
            guard let sa = a.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(sa, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let s = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !s.hasPrefix("127."), !out.contains(s) { out.append(s) }
        }
        return out
    }

    /// Files that may be the face model, in the places a user puts a download or a stick: the home folder and
    /// its Downloads, and removable media (two levels down).
    static func modelFiles(home: String, except found: String?) -> [String] {
        let fm = FileManager.default
        var folders = [home, home + "/Downloads", home + "/Desktop"]
        for media in ["/media", "/mnt", "/run/media"] {
            for sub in (try? fm.contentsOfDirectory(atPath: media)) ?? [] {
                let d = media + "/" + sub
                folders.append(d)
                for sub2 in (try? fm.contentsOfDirectory(atPath: d)) ?? [] { folders.append(d + "/" + sub2) }
            }
        }
        var out: [String] = []
        for f in folders {
            for name in ((try? fm.contentsOfDirectory(atPath: f)) ?? []).sorted()
            where name.hasSuffix(".task") && name.hasPrefix("face_landmarker") {
                let path = f + "/" + name
                if path != found, !out.contains(path) { out.append(path) }
            }
        }
        return Array(out.prefix(6))
    }

    // MARK: Python parts

    private func installPython(_ groups: [String]) {
        if let problem = PythonEnv.installProblem() {
            post(.finished(.python, problem: .verbatim(problem), detail: nil, offline: false))
            return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: PythonEnv.installScript)
        p.arguments = groups
        p.standardInput = FileHandle.nullDevice
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        do { try p.run() } catch {
            post(.finished(.python, problem: UIMessage("{script} did not start ({reason})", ["script": PythonEnv.installScript, "reason": error.localizedDescription]),
                           detail: nil, offline: false))
            return
        }
        lock.withLock { installer = p }
        var last: String?
        var pending = Data()
        let handle = out.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                pending.removeSubrange(pending.startIndex...nl)
                guard !line.isEmpty else { continue }
                last = line
                post(.progress(.python, done: 0, total: nil, line: String(line.prefix(160))))
            }
        }
        p.waitUntilExit()
        lock.withLock { installer = nil }
        if p.terminationStatus == 0 {
            post(.finished(.python, problem: nil, detail: UIMessage("installed into {folder}", ["folder": PythonEnv.venv.path]), offline: false))
        } else {
            // pip's last line names what failed (no network: "Could not find a version…").
            let said = last ?? "–"
            post(.finished(.python, problem: UIMessage("the installer stopped with status {status}: {line}", ["status": String(p.terminationStatus), "line": said]),
                           detail: nil, offline: false))
        }
    }

    // MARK: Devices

    private func testMicrophone() {
        let capture: ALSACapture
        let name: String
        do throws(AudioError) {
            switch configuration.microphone {
            case .mic(let device):
                name = device
                capture = try ALSACapture(device: device)
            case .file(let raw, let given):
                name = given
                capture = try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: raw))
            }
        } catch {
            post(.microphone(device: Self.deviceName(configuration.microphone), level: nil, problem: error.description))
            return
        }
        // A second and a half of sound, its loudest sample as the level.
        let peak = Peak()
        let done = DispatchSemaphore(value: 0)
        capture.start { event in
            switch event {
            case .audio(let samples): if peak.add(samples, upTo: 24_000) { done.signal() }
            case .ended, .failed: done.signal()
            }
        }
        _ = done.wait(timeout: .now() + 3)
        capture.stop()
        post(.microphone(device: name, level: peak.level, problem: nil))
    }

    static func deviceName(_ input: AudioInput) -> String {
        switch input {
        case .mic(let d): return d
        case .file(_, let name): return name
        }
    }

    private func testSpeaker() {
        let out: ALSAPlayback, name: String
        switch configuration.speaker {
        case .device(let d): out = ALSAPlayback(device: d); name = d
        case .file(let path): out = ALSAPlayback.toFile(path); name = path
        }
        do throws(VoiceError) {
            _ = try out.prepare(sampleRate: 16_000)
            out.close()
            post(.speaker(device: name, problem: nil))
        } catch {
            post(.speaker(device: name, problem: error.description))
        }
    }
}

/// The loudest sample of a stretch of capture, shared with the capture thread.
private final class Peak: @unchecked Sendable {
    private let lock = NSLock()
    private var peak: Int = 0
    private var count = 0
    /// Adds samples; true once `limit` samples have been heard.
    func add(_ samples: [Int16], upTo limit: Int) -> Bool {
        lock.withLock {
            for s in samples { peak = max(peak, abs(Int(s))) }
            count += samples.count
            return count >= limit
        }
    }
    var level: Double { lock.withLock { Double(peak) / 32_768 } }
}

/// What setup's worker reported: a survey, a task's progress or end, a device's test.
public struct SetupSource: EventSource {
    public let worker: SetupWorker
    public init(_ worker: SetupWorker) { self.worker = worker }
    public var descriptors: [Int32] { worker.descriptors }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        worker.drain().map { .shell($0) }
    }
}
