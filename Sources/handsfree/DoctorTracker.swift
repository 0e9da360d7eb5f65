import Foundation
import Runtime
import Shell

extension DoctorCommand {
    /// The tracker setup chose (`tracker.toml`), and for a webcam whether its camera is there; returns it.
    func checkTracker(_ r: inout DoctorReport) -> TrackerChoice? {
        let paths = UserPaths.current(dataDir: dataDir)
        let (choice, problem) = TrackerFile.load(paths.tracker)
        if let problem {
            r.warn("tracker: \(problem.shown)", fix: "handsfree setup (chooses the tracker again and rewrites the file)")
            return nil
        }
        guard let choice else {
            r.warn("tracker: none chosen yet (\(paths.tracker.path) is not there): run listens to nothing unless given --listen",
                   fix: "handsfree setup (the tracker, the webcam's parts and model, microphone, gestures, pointer)")
            return nil
        }
        switch choice.kind {
        case .none:
            r.ok("tracker: none (keys and switches only), as setup was left; handsfree setup chooses one")
        case .webcam:
            if FileManager.default.fileExists(atPath: choice.device) {
                r.ok("tracker: a webcam, \(choice.device) (\(paths.tracker.path)); run starts its bridge")
            } else {
                r.warn("tracker: a webcam, but there is no camera at \(choice.device)",
                       fix: "plug the camera in (ls /dev/video* lists cameras), or choose another in handsfree setup")
            }
        case .liveLinkFace, .iFacialMocap, .openSeeFace:
            r.ok("tracker: \(choice.title) (\(paths.tracker.path)); run listens for it")
        }
        return choice
    }
}
