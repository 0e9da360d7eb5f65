import Foundation
import Testing

/// `handsfree webcam`: the real MediaPipe model on a real video (a public-domain face photo moved as a seated
/// user might), through the built binary, the bridge it supervises and the project's venv.
struct WebcamBridgeTests {
    static let root = ShellInTmuxTests.root
    static let binary = ShellInTmuxTests.binary
    static let model = root + "/../shared/data/models/face_landmarker_with_blendshapes.task"
    static let python = root + "/.venv/bin/python"
    static let ready = FileManager.default.isExecutableFile(atPath: binary) && FileManager.default.fileExists(atPath: model)
        && venvImports("mediapipe, cv2, skimage")
    static let reason: Comment = "needs .build/debug/handsfree, ../shared/data/models and .venv with mediapipe and scikit-image (scripts/python-env.sh webcam-test)"

    static func run(_ exe: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    final class Dir: @unchecked Sendable {
        let path = NSTemporaryDirectory() + "webcam-\(UUID().uuidString)"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Makes the 3 s, 30 fps test video: roll +8° at frame 22, −8° at frame 67.
    static func video(in dir: Dir) throws -> String {
        let v = dir.path + "/face.avi"
        let r = try run(python, [root + "/python/make_face_video.py", v])
        #expect(r.status == 0, "\(r.err)")
        return v
    }

    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(3)))
    func aVideoBecomesDeterministicFramesThatReplay() throws {
        let dir = try Dir()
        let v = try Self.video(in: dir)
        let out = dir.path + "/face.ndjson"
        let r = try Self.run(Self.binary, ["webcam", "--video", v, "--out", out])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("90 frames") && r.err.contains("frames/s"), "\(r.err)")
        let frames = try Self.lines(out)
        #expect(frames.count == 90)
        // Stamped with the video's own time: frame k at k/30 s.
        #expect((frames[45]["t"] as? Double).map { abs($0 - 1.5) < 1e-6 } == true)
        let faces = frames.filter { $0["face"] as? Bool == true }
        #expect(faces.count >= 85, "\(faces.count) of 90 with a face")
        let blend = try #require(faces.first?["blend"] as? [String: Double])
        #expect(blend.count == 51 && blend["tongueOut"] == nil && blend["jawOpen"] != nil)
        func roll(_ k: Int) -> Double { ((frames[k]["head"] as? [String: Double])?["roll"]) ?? .nan }
        // The image turns counter-clockwise first (head toward the subject's right shoulder: roll > 0).
        #expect(roll(22) - roll(67) > 0.15, "roll \(roll(22)) at +8°, \(roll(67)) at −8°")
        // The same video gives the same frames.
        let again = dir.path + "/again.ndjson"
        #expect(try Self.run(Self.binary, ["webcam", "--video", v, "--out", again]).status == 0)
        #expect(try String(contentsOfFile: again, encoding: .utf8) == String(contentsOfFile: out, encoding: .utf8))
        // And the shell reads them as its own format.
        let replay = try Self.run(Self.binary, ["replay", out, "--fast", "--events"])
        #expect(replay.status == 0 && replay.out.contains("\"frames\": 90, \"faceLost\": 0, \"malformed\": 0"), "\(replay.out)")
    }

    @Test(.enabled(if: ready, reason), .timeLimit(.minutes(3)))
    func framesSentOverUDPAreRecordedByTheShell() throws {
        let dir = try Dir()
        let v = try Self.video(in: dir)
        let port = 20000 + Int.random(in: 0..<20000)
        let recorded = dir.path + "/live.ndjson"
        let rec = Process()
        rec.executableURL = URL(fileURLWithPath: Self.binary)
        rec.arguments = ["record", "--listen", "udp://127.0.0.1:\(port)", "--out", recorded, "--frames", "60", "--duration", "60"]
        let said = dir.path + "/record.err"
        _ = FileManager.default.createFile(atPath: said, contents: nil)
        rec.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: said))
        try rec.run()
        // `record` says so once its socket is bound: frames sent before would be lost.
        let end = Date().addingTimeInterval(20)
        while Date() < end, !((try? String(contentsOfFile: said, encoding: .utf8)) ?? "").contains("recording") { usleep(20_000) }
        #expect(((try? String(contentsOfFile: said, encoding: .utf8)) ?? "").contains("recording"), "record never listened")
        let r = try Self.run(Self.binary, ["webcam", "--video", v, "--send", "udp://127.0.0.1:\(port)"])
        #expect(r.status == 0, "\(r.err)")
        rec.waitUntilExit()
        let frames = try Self.lines(recorded)
        #expect(frames.count == 60)
        #expect(frames.filter { $0["face"] as? Bool == true }.count >= 55)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary), "needs .build/debug/handsfree"))
    func missingPiecesSayWhatToDo() throws {
        let noModel = try Self.run(Self.binary, ["webcam", "--video", "/dev/null", "--out", "/dev/null", "--model", "/nonexistent.task"])
        #expect(noModel.status == 1 && noModel.err.contains("no MediaPipe face model") && noModel.err.contains("--model PATH"), "\(noModel.err)")
        let noVideo = try Self.run(Self.binary, ["webcam", "--video", "/nonexistent.avi", "--out", "/dev/null", "--model", "/dev/null"])
        #expect(noVideo.status == 1 && noVideo.err.contains("/nonexistent.avi: no such file"), "\(noVideo.err)")
        let both = try Self.run(Self.binary, ["webcam", "--out", "/dev/null"])
        #expect(both.status != 0 && both.err.contains("--device or --video"), "\(both.err)")
    }
}
