#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Runtime
import Terminal

/// `handsfree webcam`: starts and supervises the MediaPipe bridge (`python/webcam_bridge.py`).
struct WebcamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webcam",
        abstract: tr("Track a face from a webcam or a video with MediaPipe and send it as frames."),
        discussion: tr("""
        Live: `handsfree webcam --device /dev/video0 --send udp://127.0.0.1:11111`, then `handsfree run --listen \
        udp://127.0.0.1:11111`. A video: `handsfree webcam --video FILE --out FILE.ndjson` processes every frame \
        as fast as it can, stamped with the video's own time (replay it with `handsfree replay`).
        Needs the bridge's Python packages (`handsfree doctor` names the command that installs them) and the \
        model file face_landmarker_with_blendshapes.task (Apache-2.0), which `handsfree setup` fetches and checks. \
        `handsfree run` starts the bridge by itself for a webcam chosen in setup.
        """))

    @Option(help: ArgumentHelp(tr("Camera device (e.g. /dev/video0)."))) var device: String?
    @Option(help: ArgumentHelp(tr("A video file instead of a camera."))) var video: String?
    @Option(help: ArgumentHelp(tr("Send frames to udp://127.0.0.1:PORT."))) var send: String?
    @Option(help: ArgumentHelp(tr("Write frames to an NDJSON file ('-': standard output)."))) var out: String?
    @Option(help: ArgumentHelp(tr("The Face Landmarker model (default: $HANDSFREE_FACE_MODEL, then models/ beside the shipped data, then models/ in the data folder, where setup puts it).")))
    var model: String?
    @Option(help: ArgumentHelp(tr("The Python with mediapipe (default: $HANDSFREE_PYTHON, then the project's .venv).")))
    var python: String?
    @Option(help: ArgumentHelp(tr("Stop after this many frames."))) var maxFrames: Int?
    @Option(help: ArgumentHelp(tr("Restarts of a camera bridge that dies, before giving up."))) var restarts = 5

    func validate() throws {
        if (device == nil) == (video == nil) { throw ValidationError(tr("give --device or --video (one of them)")) }
        if (send == nil) == (out == nil) { throw ValidationError(tr("give --send or --out (one of them)")) }
        if let send, !send.hasPrefix("udp://") { throw ValidationError(tr("--send {address}: expected udp://HOST:PORT", ["address": send])) }
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let fm = FileManager.default
        let models = FaceModel.candidates(model, environment: env, paths: UserPaths.current())
        guard let modelPath = models.first(where: { fm.fileExists(atPath: $0) }) else {
            throw SetupError(tr("no MediaPipe face model; looked for {files}. handsfree setup fetches {file} (Apache-2.0) and checks it; or pass --model PATH",
                                ["files": models.joined(separator: ", "), "file": FaceModel.fileName]))
        }
        let pythons = PythonEnv.candidates(python, environment: env)
        guard let py = PythonEnv.python(python, environment: env) else {
            throw SetupError(tr("no Python found (looked for {pythons}); run {command}", ["pythons": pythons.joined(separator: ", "), "command": pythonHint("webcam", package: "mediapipe")]))
        }
        let bridge = PythonEnv.script("webcam_bridge.py")
        guard fm.fileExists(atPath: bridge) else { throw SetupError(tr("{file}: the webcam bridge is missing", ["file": bridge])) }
        if let video, !fm.fileExists(atPath: video) { throw SetupError(tr("{file}: no such file", ["file": video])) }

        var args = [bridge, "--model", modelPath]
        if let device { args += ["--device", device] }
        if let video { args += ["--video", video] }
        if let send { args += ["--send", send] }
        if let out { args += ["--out", out] }
        if let maxFrames { args += ["--max-frames", String(maxFrames)] }

        let signals = Terminal.installSignalPipe()
        var started: [Date] = []
        while true {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: py)
            p.arguments = args
            do { try p.run() } catch { throw SetupError(tr("{program}: cannot start: {reason}", ["program": py, "reason": error.localizedDescription])) }
            started.append(Date())
            var signalled = false
            while p.isRunning {
                var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 1, 200) > 0 {
                    var b = [UInt8](repeating: 0, count: 16)
                    _ = read(signals, &b, b.count)
                    signalled = true
                    p.terminate()
                }
            }
            p.waitUntilExit()
            let status = p.terminationStatus
            if signalled || status == 0 { return }
            // 2: bad input, 3: a package is missing: starting again cannot help.
            if status == 2 || status == 3 || video != nil || p.terminationReason == .uncaughtSignal && status == SIGINT {
                throw ExitCode(status == 0 ? 1 : status)
            }
            started = started.filter { Date().timeIntervalSince($0) < 60 }
            if started.count > restarts {
                throw SetupError(trn("the webcam bridge died {n} time within a minute (last status {status}); giving up",
                                     "the webcam bridge died {n} times within a minute (last status {status}); giving up", started.count, ["status": "\(status)"]))
            }
            FileHandle.standardError.write(Data(("handsfree: " + tr("the webcam bridge exited with status {status}; restarting it", ["status": "\(status)"]) + "\n").utf8))
            Thread.sleep(forTimeInterval: 1)
        }
    }
}
