import Foundation
import Runtime
import Shell

extension DoctorCommand {
    /// The tracker setup chose (`tracker.toml`), and for a webcam whether its camera is there; returns it.
    func checkTracker(_ r: inout DoctorReport) -> TrackerChoice? {
        let paths = UserPaths.current(dataDir: dataDir)
        let (choice, problem) = TrackerFile.load(paths.tracker)
        if let problem {
            r.warn(tr("tracker: {problem}", ["problem": problem.shown]), fix: tr("handsfree setup (chooses the tracker again and rewrites the file)"))
            return nil
        }
        guard let choice else {
            r.warn(tr("tracker: none chosen yet ({file} is not there): run listens to nothing unless given --listen", ["file": paths.tracker.path]),
                   fix: tr("handsfree setup (the tracker, the webcam's parts and model, microphone, gestures, pointer)"))
            return nil
        }
        switch choice.kind {
        case .none:
            r.ok(tr("tracker: none (keys and switches only), as setup was left; handsfree setup chooses one"))
        case .webcam:
            if FileManager.default.fileExists(atPath: choice.device) {
                r.ok(tr("tracker: a webcam, {device} ({file}); run starts its bridge", ["device": choice.device, "file": paths.tracker.path]))
            } else {
                r.warn(tr("tracker: a webcam, but there is no camera at {device}", ["device": choice.device]),
                       fix: tr("plug the camera in (ls /dev/video* lists cameras), or choose another in handsfree setup"))
            }
        case .liveLinkFace, .iFacialMocap, .openSeeFace:
            r.ok(tr("tracker: {tracker} ({file}); run listens for it", ["tracker": tr(choice.title), "file": paths.tracker.path]))
        }
        return choice
    }
}
