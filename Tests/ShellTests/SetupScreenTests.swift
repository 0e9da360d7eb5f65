import Localization
import Config
import Foundation
import Shell
import Testing
import TrackingCore

/// The setup screen as the pure core sees it: each step asks for what it needs by `Effect.setup`, and shows
/// what the runtime reports back (`ShellEvent.setup`); a helper's keys and the user's gaze and jaw drive it.
@Suite struct SetupScreenTests {
    static func requests(_ effects: [Effect]) -> [SetupRequest] {
        effects.compactMap { if case .setup(let r) = $0 { return r } else { return nil } }
    }

    static let survey = SetupSurvey(python: "/usr/bin/python3", installCommand: "/p/share/handsfree/scripts/python-env.sh",
                                    modelFolder: "/home/u/.local/share/handsfree/models", modelHost: "raw.githubusercontent.com",
                                    modelSize: 2_357_924, modelFiles: ["/media/usb/face_landmarker_with_blendshapes.task"],
                                    cameras: ["/dev/video0"], addresses: ["192.168.1.5"])

    func driver(_ path: InputPath = .keyboard, firstRun: Bool = false, quits: Bool = false) -> Driver {
        var d = Driver(path, screen: "launcher")
        d.session.state.stack.append(SetupScreen(firstRun: firstRun, quitsWhenDone: quits))
        d.session.state.relayout()
        return d
    }

    /// A helper's keys (or the user's gaze and jaw) through every step for a webcam, with what the runtime
    /// answers at each: the survey, the Python parts installed, a model refused then a file of the user's
    /// taken, the tracker, the devices, the calibrations, and the choice kept at the end.
    @Test func aWebcamFromTheFirstStepToTheLast() throws {
        var d = driver()
        #expect(Self.requests(d.tick(0.05)) == [.survey], "the screen looks at the machine first")
        #expect(Self.requests(d.tick(0.05)).isEmpty, "once")
        d.send(.setup(.surveyed(Self.survey)))
        #expect(d.text.contains("What follows your face?"))

        d.activate("setup.tracker.webcam")
        #expect(d.text.contains("Step 2 of 8: The webcam's Python parts"))
        #expect(d.text.contains("MediaPipe is not installed for /usr/bin/python3"))
        #expect(d.text.contains("/p/share/handsfree/scripts/python-env.sh webcam"), "the exact command, for a terminal")
        #expect(d.text.contains("HANDSFREE_PYTHON"))
        #expect(Self.requests(d.activate("setup.python.install")) == [.installPython(["webcam"])])
        d.send(.setup(.progress(.python, done: 0, total: nil, line: "Collecting mediapipe==1.2.2")))
        #expect(d.text.contains("Installing") && d.text.contains("Collecting mediapipe==1.2.2"))
        #expect(Self.requests(d.send(.setup(.finished(.python, problem: nil, detail: UIMessage("installed into {folder}", ["folder": "/v"]), offline: false)))) == [.survey])
        var found = Self.survey
        found.packages = ["mediapipe": "1.2.2"]
        d.send(.setup(.surveyed(found)))
        #expect(d.text.contains("Found: MediaPipe 1.2.2"))

        d.activate("setup.next")
        #expect(d.text.contains("Step 3 of 8: The face model") && d.text.contains("2.4 MB"))
        #expect(Self.requests(d.activate("setup.model.download")) == [.downloadModel])
        d.send(.setup(.progress(.model, done: 1_200_000, total: 2_357_924, line: nil)))
        #expect(d.text.contains("1.2 of 2.4 MB"))
        d.send(.setup(.finished(.model, problem: .verbatim("the file from 127.0.0.1 is not the face model: its SHA-256 is 00…"), detail: nil, offline: false)))
        #expect(d.text.contains("The model was not installed: the file from 127.0.0.1 is not the face model"))
        d.send(.setup(.finished(.model, problem: .verbatim("could not reach raw.githubusercontent.com (no route)"), detail: nil, offline: true)))
        #expect(d.text.contains("No network? Use a copy"), "offline, a file of the user's is offered")
        #expect(Self.requests(d.activate("setup.model.found.0")) == [.copyModel(path: "/media/usb/face_landmarker_with_blendshapes.task")])
        d.type("/tmp/face.task")
        d.key(.backspace)
        d.type("k")
        #expect(d.text.contains("File: /tmp/face.task"), "a helper types a path, and mends it")
        #expect(Self.requests(d.activate("setup.model.use-file")) == [.copyModel(path: "/tmp/face.task")])
        d.send(.setup(.finished(.model, problem: nil, detail: UIMessage("{file}, copied and checked", ["file": "/m/face_landmarker_with_blendshapes.task"]), offline: false)))
        #expect(d.text.contains("Ready: /m/face_landmarker_with_blendshapes.task, copied and checked."))

        let webcam = TrackerChoice(kind: .webcam, device: "/dev/video0")
        #expect(Self.requests(d.activate("setup.next")) == [.startTracker(webcam)], "the webcam is listened to as its step shows")
        d.send(.setup(.trackerStarted(webcam, listening: "udp://127.0.0.1:40000", problem: nil)))
        #expect(d.text.contains("Camera /dev/video0") && d.text.contains("Listening at udp://127.0.0.1:40000: no frames yet."))
        #expect(d.state.tracking.source == "webcam")

        #expect(Self.requests(d.activate("setup.next")) == [.testMicrophone, .testSpeaker])
        d.send(.setup(.microphone(device: "default", level: nil, problem: "microphone \"default\" not found: No such file or directory")))
        let spoken = d.send(.setup(.speaker(device: "default", problem: nil)))
        #expect(spoken.contains { if case .speak(let u) = $0 { u.text.contains("HandsFree") } else { false } }, "a sentence to hear")
        #expect(d.text.contains("Microphone: microphone \"default\" not found") && d.text.contains("Speech stays off"))
        #expect(d.text.contains("did you hear it?"))
        d.activate("setup.heard.yes")
        #expect(d.text.contains("Speaker \"default\" works ✓"))

        d.activate("setup.next")
        #expect(d.text.contains("Step 6 of 8: Check a gesture") && d.text.contains("Skip ▶"), "no face yet: skip, not \"it works\"")
        d.activate("setup.gestures.calibrate")
        #expect(d.state.top is GestureCalibrationScreen, "the gesture calibration screen takes over")
        d.send(.setup(.trackerStopped(UIMessage("The webcam bridge stopped: {reason}", ["reason": "cannot open /dev/video0"]))))
        #expect(d.state.notice == "The webcam bridge stopped: cannot open /dev/video0", "reports reach setup under another screen")
        d.key(.escape)
        #expect(d.state.top is SetupScreen)
        #expect(d.text.contains("The webcam bridge stopped: cannot open /dev/video0"))

        d.activate("setup.next")
        #expect(d.text.contains("Step 7 of 8: Point where you look"))
        d.activate("setup.pointer.calibrate")
        #expect(d.state.top is CalibrationScreen)
        d.key(.escape)
        d.activate("setup.next")
        #expect(d.text.contains("Step 8 of 8: Ready") && d.text.contains("Face model: ready ✓") && d.text.contains("Camera: /dev/video0 ✓"))
        let end = d.activate("setup.finish")
        #expect(Self.requests(end) == [.save(webcam)])
        #expect(!end.contains(.quit), "the first run goes on into the shell")
        #expect(d.state.top.name == "launcher")
    }

    /// Once frames come, the user drives setup alone: gaze on a button and the jaw.
    @Test func gazeAndJawMoveThroughTheSteps() {
        var d = driver(.gesture)
        d.activate("setup.tracker.livelink")
        #expect(d.text.contains("Step 2 of 6: Connect the tracker"))
        d.activate("setup.next")
        #expect(d.text.contains("Step 3 of 6: Microphone and speaker"))
        d.activate("setup.back")
        #expect(d.text.contains("Step 2 of 6"))
    }

    /// Back goes a step back and keeps what was done; at the first step it leaves. Leaving on the first start
    /// keeps "no tracker", so the next start is not caught again; `handsfree setup` ends instead.
    @Test func backAndLeaving() {
        var d = driver(firstRun: true)
        d.activate("setup.tracker.openseeface")
        #expect(d.text.contains("Step 2 of 6: Connect the tracker") && d.text.contains("facetracker"))
        d.key(.escape)
        #expect(d.text.contains("Step 1 of 6"))
        let left = d.send(.key(.escape))
        #expect(Self.requests(left) == [.save(TrackerChoice(kind: .openSeeFace))], "a tracker chosen is kept")
        #expect(d.state.top.name == "launcher")

        var fresh = driver(firstRun: true)
        #expect(Self.requests(fresh.activate("setup.not-now")) == [.save(TrackerChoice(kind: .none))])
        var asked = driver(quits: true)
        let e = asked.send(.key(.escape))
        #expect(Self.requests(e).isEmpty && e.contains(.quit), "handsfree setup leaves nothing behind and ends")
    }

    /// Choosing another tracker lets the one listened to go; iFacialMocap waits for the phone's address.
    @Test func anotherTrackerLetsTheFirstGo() {
        var d = driver()
        let live = TrackerChoice(kind: .liveLinkFace)
        #expect(Self.requests(d.activate("setup.tracker.livelink")) == [.startTracker(live)])
        d.send(.setup(.surveyed(Self.survey)))
        d.send(.setup(.trackerStarted(live, listening: "udp://0.0.0.0:11111", problem: nil)))
        #expect(d.text.contains("address 192.168.1.5, port"))
        d.key(.escape)
        #expect(Self.requests(d.activate("setup.tracker.ifacialmocap")) == [.startTracker(TrackerChoice(kind: .none))])
        d.type("10.0.0.7")
        #expect(Self.requests(d.activate("setup.connect")) == [.startTracker(TrackerChoice(kind: .iFacialMocap, phone: "10.0.0.7"))])
    }

    /// The webcam's keymap and gesture config are used as soon as the runtime loads them, keeping the pointer's
    /// calibration; the calibrations saved for the tracker's source follow.
    @Test func theTrackersKeymapAndCalibrationsAreUsedAtOnce() throws {
        var d = driver()
        let config = try String(contentsOfFile: Fixture.root + "/config/webcam.toml", encoding: .utf8)
        let settings = try GestureConfig.parse(config, file: "webcam.toml")
        let text = try String(contentsOfFile: Fixture.root + "/keymaps/webcam.toml", encoding: .utf8)
        let keymap = try Keymap.parse(text, file: "webcam.toml", knownGestures: settings.gestures.map(\.name),
                                      knownScreens: ScreenRegistry.standard.names)
        let calibration = PointerCalibration(cx: [0.1, 1, 0, 0, 0, 0], cy: [0, 0, 1, 0, 0, 0])
        d.send(.setup(.trackerKeymap(keymap, settings)))
        #expect(d.state.keymap.name == "webcam" && d.state.gestures.contains { $0.name == "pucker" })
        #expect(d.state.settings.keymap == "webcam")
        d.send(.setup(.trackerCalibrations(pointer: SavedCalibration(calibration: calibration, size: Size(width: 120, height: 40)),
                                           gestures: [])))
        #expect(d.state.pipelineSettings.mapping.calibration == nil, "made at another size: not used")
        d.send(.setup(.trackerCalibrations(pointer: SavedCalibration(calibration: calibration, size: d.state.size), gestures: [])))
        #expect((d.state.calibration != nil) && d.state.pipelineSettings.mapping.calibration == calibration)
    }

    /// The live check: the jaw's meter and, once the user has opened and relaxed it, the threshold it suggests.
    @Test func theJawMeterSuggestsAThreshold() {
        var d = driver()
        d.activate("setup.tracker.livelink")
        d.activate("setup.next")
        d.activate("setup.next")
        #expect(d.text.contains("Check a gesture"))
        for (t, jaw) in [(1.0, 0.05), (1.1, 0.3), (1.2, 0.75), (1.3, 0.1)] {
            _ = d.send(.frame(TrackingSample(t: t, meters: Meters(BlendShapes([.jawOpen: Float(jaw)])),
                                             blend: BlendShapes([.jawOpen: Float(jaw)]))))
        }
        #expect(d.text.contains("Widest so far 0.75, at rest 0.05: a threshold near 0.40 suits you (now 0.50)"), "\(d.text)")
        #expect(d.text.contains("✓ It works: next"), "a face is seen: the jaw can press it")
    }
}
