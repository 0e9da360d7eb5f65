#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import UserFiles

/// The MediaPipe bridge (`python/webcam_bridge.py`) as `run` and setup start it for a webcam tracker: a child
/// sending frames to the shell's loopback port, its messages kept (never written over the screen), started
/// again when it dies unless it said it cannot work (a missing package or camera).
public final class WebcamBridge: @unchecked Sendable {
    /// How the bridge is started.
    public struct Launch: Sendable, Equatable {
        public var python: String
        public var script: String
        public var model: String
        public var device: String
        public var send: String
        public init(python: String, script: String, model: String, device: String, send: String) {
            self.python = python; self.script = script; self.model = model; self.device = device; self.send = send
        }
        var arguments: [String] { [script, "--model", model, "--device", device, "--send", send] }
    }

    public let launch: Launch
    private let lock = NSLock()
    private var process: Process?
    private var lastLine: String?
    private var starts: [Double] = []
    /// Set once the bridge has said it cannot work, or has died too often: it is not started again.
    public private(set) var gaveUp: UIMessage?

    /// How often it may die within a minute before the shell stops starting it.
    static let restarts = 5

    public init(_ launch: Launch) { self.launch = launch }

    /// What a webcam needs that is missing here (no Python, no model), in words; nil when it can start. A
    /// missing camera or package is the bridge's own to say, precisely, as it stops.
    public static func missing(python: String?, model: String?) -> UIMessage? {
        guard python != nil else {
            return UIMessage("the webcam cannot track: no Python with MediaPipe ({hint})",
                             ["hint": PythonEnv.installHint("webcam", package: "mediapipe")])
        }
        guard model != nil else { return UIMessage("the webcam cannot track: no face model (handsfree setup fetches it)") }
        return nil
    }

    /// Starts the bridge; a failure to start is returned as a problem.
    @discardableResult
    public func start(now: Double) -> UIMessage? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: launch.python)
        p.arguments = launch.arguments
        var env = ProcessInfo.processInfo.environment
        env[PythonEnv.installScriptVariable] = PythonEnv.installScript
        p.environment = env
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        do { try p.run() } catch {
            return UIMessage("{python}: cannot start the webcam bridge ({reason})", ["python": launch.python, "reason": error.localizedDescription])
        }
        lock.withLock { process = p; starts.append(now); lastLine = nil }
        // Its messages are read on a thread of their own, the last kept for the user.
        let handle = err.fileHandleForReading
        Thread.detachNewThread { [weak self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...nl)
                    if !line.trimmingCharacters(in: .whitespaces).isEmpty { self?.keep(line) }
                }
            }
        }
        return nil
    }

    private func keep(_ line: String) { lock.withLock { lastLine = line } }

    /// Checks on the bridge: nil while it runs; when it has ended, what to tell the user (and it is started
    /// again unless it cannot work).
    public func check(now: Double) -> UIMessage? {
        let ended: (Int32, String?)? = lock.withLock {
            guard let p = process, !p.isRunning else { return nil }
            process = nil
            return (p.terminationStatus, lastLine)
        }
        guard let (status, line) = ended, gaveUp == nil else { return nil }
        let said = line.map { $0.hasPrefix("webcam bridge: ") ? String($0.dropFirst(15)) : $0 } ?? "no message"
        // 2: bad input (no camera), 3: a package missing: starting again cannot help.
        if status == 2 || status == 3 {
            gaveUp = UIMessage("The webcam bridge stopped: {reason}", ["reason": said])
            return gaveUp
        }
        let recent = lock.withLock { starts.filter { now - $0 < 60 } }
        if recent.count > Self.restarts {
            gaveUp = .plural("The webcam bridge died {n} time within a minute ({reason}); it is not started again",
                             "The webcam bridge died {n} times within a minute ({reason}); it is not started again",
                             recent.count, ["reason": said])
            return gaveUp
        }
        if let problem = start(now: now) { gaveUp = problem; return problem }
        return UIMessage("The webcam bridge stopped ({reason}) and was started again", ["reason": said])
    }

    /// Ends the bridge (the shell is leaving, or another tracker replaces it).
    public func stop() {
        let p = lock.withLock { () -> Process? in defer { process = nil }; return process }
        guard let p, p.isRunning else { return }
        p.terminate()
        let deadline = Date().addingTimeInterval(2)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    deinit { stop() }
}

/// Looks after the webcam bridge once a second: a bridge that died is started again, and what happened is said
/// in the title bar (and on the setup screen).
public struct WebcamBridgeSource: EventSource {
    public let bridge: WebcamBridge
    private var lastCheck = 0.0
    public init(_ bridge: WebcamBridge) { self.bridge = bridge }
    public var descriptors: [Int32] { [] }
    public func nextWake(now: Double) -> Double? { lastCheck + 1 }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        guard wake.now - lastCheck >= 1 else { return [] }
        lastCheck = wake.now
        return bridge.check(now: wake.now).map { [.shell(.setup(.trackerStopped($0)))] } ?? []
    }
}
