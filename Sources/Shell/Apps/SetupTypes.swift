import Config
import Localization
import TrackingCore

/// What follows the user's face: the trackers the shell knows how to listen to, as setup offers them.
public enum TrackerKind: String, Sendable, Equatable, CaseIterable {
    case liveLinkFace = "livelink"
    case iFacialMocap = "ifacialmocap"
    case webcam
    case openSeeFace = "openseeface"
    /// No tracker: the keyboard, switches and speech.
    case none
}

/// The tracker setup chose, with what `run` needs to listen to it. Kept in `tracker.toml` in the config folder.
public struct TrackerChoice: Sendable, Equatable {
    public var kind: TrackerKind
    /// iFacialMocap: the phone's address, where the start handshake goes.
    public var phone: String?
    /// Webcam: the camera device.
    public var device: String

    public static let defaultCamera = "/dev/video0"

    public init(kind: TrackerKind, phone: String? = nil, device: String = TrackerChoice.defaultCamera) {
        self.kind = kind; self.phone = phone; self.device = device
    }

    /// Where the shell listens for it (UDP): the phone apps send over the network, so on every address of
    /// this machine; OpenSeeFace runs here, so loopback only. The webcam bridge is the shell's own child,
    /// told where to send, so it gets whichever loopback port is free (port 0).
    public var address: (host: String, port: UInt16)? {
        switch kind {
        case .liveLinkFace: return ("0.0.0.0", 11111)
        case .iFacialMocap: return ("0.0.0.0", 49983)
        case .webcam: return ("127.0.0.1", 0)
        case .openSeeFace: return ("127.0.0.1", 11573)
        case .none: return nil
        }
    }

    /// The source name `run --source` takes (what the tracker can and cannot see; calibrations are kept per
    /// source).
    public var source: String? {
        switch kind {
        case .liveLinkFace: return "livelink"
        case .iFacialMocap: return "ifacialmocap"
        case .webcam: return "mediapipe"
        case .openSeeFace: return "openseeface"
        case .none: return nil
        }
    }

    /// The keymap written for this tracker, when the default one does not fit (MediaPipe sees no tongue).
    public var keymap: String? { kind == .webcam ? "webcam" : nil }

    /// A short name for the status line.
    public var shortName: String {
        switch kind {
        case .liveLinkFace: return "Live Link Face"
        case .iFacialMocap: return "iFacialMocap"
        case .webcam: return N_("webcam")
        case .openSeeFace: return "OpenSeeFace"
        case .none: return N_("keyboard")
        }
    }

    /// The tracker's name as the user knows it, in English (marked: `tr` gives it in the language).
    public var title: String {
        switch kind {
        case .liveLinkFace: return N_("Live Link Face on an iPhone")
        case .iFacialMocap: return N_("iFacialMocap on an iPhone")
        case .webcam: return N_("a webcam")
        case .openSeeFace: return "OpenSeeFace"
        case .none: return N_("no tracker (keyboard, switches and speech)")
        }
    }
}

/// What setup asks the runtime to do (`Effect.setup`); the answers come back as `ShellEvent.setup`.
public enum SetupRequest: Sendable, Equatable {
    /// Look at this machine: the Python parts, the face model, cameras, its network addresses, model files
    /// lying about (answered by `.surveyed`).
    case survey
    /// Install the Python parts of these groups into the venv beside the data (answered by `.progress` and
    /// `.finished(.python…)`).
    case installPython([String])
    /// Fetch the face model from its official address, checked against its checksum.
    case downloadModel
    /// Copy a model file the user named, checked the same way.
    case copyModel(path: String)
    /// Open the microphone for a moment and measure its level (`.microphone`).
    case testMicrophone
    /// Whether the speaker opens (`.speaker`); the words are then said with `Effect.speak`.
    case testSpeaker
    /// Listen to this tracker from now on, replacing any source (and start the webcam bridge for a webcam).
    case startTracker(TrackerChoice)
    /// Keep the choice for the next `run` (`tracker.toml`; `.saved`).
    case save(TrackerChoice)
}

/// The long tasks of setup.
public enum SetupTask: String, Sendable, Equatable {
    case python, model
}

/// What this machine has, as setup needs to know it (`SetupRequest.survey`).
public struct SetupSurvey: Sendable, Equatable {
    /// The Python the shell would use, and the packages of the project's Python parts found for it, by name
    /// (`mediapipe`, `faster-whisper`, `piper-tts`) with their versions.
    public var python: String?
    public var packages: [String: String] = [:]
    /// The command that installs the Python parts (a group name follows it), and why setup cannot run it
    /// itself (nil: it can).
    public var installCommand: String
    public var installProblem: String?
    /// A face model found and checked, or why the one found is not the model.
    public var model: String?
    public var modelProblem: String?
    /// Where a downloaded or copied model goes, the host it comes from and its size in bytes.
    public var modelFolder: String
    public var modelHost: String
    public var modelSize: Int
    /// Files that may be the model, found in the usual places (Downloads, removable media).
    public var modelFiles: [String] = []
    /// Camera devices, and this machine's network addresses (for a phone to send to).
    public var cameras: [String] = []
    public var addresses: [String] = []

    public init(python: String? = nil, packages: [String: String] = [:], installCommand: String, installProblem: String? = nil,
                model: String? = nil, modelProblem: String? = nil, modelFolder: String, modelHost: String, modelSize: Int,
                modelFiles: [String] = [], cameras: [String] = [], addresses: [String] = []) {
        self.python = python; self.packages = packages; self.installCommand = installCommand
        self.installProblem = installProblem; self.model = model; self.modelProblem = modelProblem
        self.modelFolder = modelFolder; self.modelHost = modelHost; self.modelSize = modelSize
        self.modelFiles = modelFiles; self.cameras = cameras; self.addresses = addresses
    }
}

/// What the runtime reports to setup.
public enum SetupReport: Sendable {
    case surveyed(SetupSurvey)
    /// A long task moved on: bytes of the model so far (of `total`), or the installer's latest line.
    case progress(SetupTask, done: Int, total: Int?, line: String?)
    /// A long task ended: `problem` nil is success and `detail` says what was done (where the model is);
    /// `offline` means the network could not be reached, so a file the user has is the way on. Both are
    /// messages (a library's or the system's own words as `UIMessage.verbatim`).
    case finished(SetupTask, problem: UIMessage?, detail: UIMessage?, offline: Bool)
    /// The microphone opened and heard this level (0…1), or why it did not open.
    case microphone(device: String, level: Double?, problem: String?)
    /// The speaker opened, or why it did not.
    case speaker(device: String, problem: String?)
    /// The tracker is listened to at `listening` (nil: it could not be), with a problem to show (no camera).
    case trackerStarted(TrackerChoice, listening: String?, problem: UIMessage?)
    /// The keymap and gesture config the tracker is used with, to use at once (the webcam's).
    case trackerKeymap(Keymap, PipelineSettings)
    /// The calibrations saved for the tracker's source (nil, []: none), used from now on; the pointer's only at
    /// the size it was made at.
    case trackerCalibrations(pointer: SavedCalibration?, gestures: [GestureThreshold])
    /// The tracker stopped (the webcam bridge died), and why.
    case trackerStopped(UIMessage)
    /// The choice was written for the next `run`, or why not.
    case saved(problem: String?)
}
