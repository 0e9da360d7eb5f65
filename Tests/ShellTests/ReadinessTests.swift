import Config
import Shell
import Testing
import TrackingCore

/// Safe start, tracker restarts and the hands-free pause, through the real pipeline and screens.
@Suite struct ReadinessTests {
    /// A session on the launcher with the shipped gestures and a keymap from the repository.
    struct Run {
        var session: Session
        var t = 0.0
        var records: [ActionRecord] = []

        init(_ keymap: String = "default") {
            let settings = GestureConfig.defaults()
            session = Session(state: ShellState(keymap: Fixture.keymap(keymap), gestures: settings.gestures),
                              settings: settings)
        }

        func gaze(at id: String) -> GazePoint { Fixture.gaze(at: id, in: session.state) }
        var statusLine: String { render(session.state, size: session.state.size).0.lines.last ?? "" }
        var lines: [String] { render(session.state, size: session.state.size).0.lines }
        var screen: String { session.state.top.name }

        /// Plays frames at 60 per second on the source's clock, which may be set back with `clock`.
        mutating func play(_ shapes: [BlendShape: Float] = [:], gaze: GazePoint? = nil, seconds: Double, face: Bool = true) {
            let g = gaze ?? GazePoint(x: 0.5, y: 0.02)
            for _ in 0..<Int((seconds * 60).rounded()) {
                let f = face ? TrackingFrame(t: t, blend: BlendShapes(shapes), gaze: g) : TrackingFrame.noFace(at: t)
                records += session.step(.frame(f, nil)).records
                t += 1.0 / 60
            }
        }

        mutating func say(_ phrase: String) { records += session.send(.speech(phrase, isFinal: true)).records }
        var actions: [String] { records.map { "\($0.action) \($0.target ?? "-")" } }
    }

    @Test func noGestureActsBeforeAStillFaceThenGazeAndJawOpen() {
        var r = Run()
        let notes = r.gaze(at: "launcher.notes")
        // The jaw is open from the first frame: not a still face, nothing happens however long it is held.
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 1.5)
        #expect(r.records.isEmpty)
        #expect(r.statusLine.contains("waiting for a still face"))
        r.play(gaze: notes, seconds: 0.9)
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.5)
        #expect(r.records.isEmpty, "0.9 s of a still face is not enough")
        r.play(gaze: notes, seconds: 1.1)
        #expect(!r.statusLine.contains("waiting for a still face"))
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.5)
        #expect(r.actions == ["open launcher.notes"])
    }

    @Test func faceLossDisarmsUntilAStillFaceIsSeenAgain() {
        var r = Run()
        let notes = r.gaze(at: "launcher.notes")
        r.play(gaze: notes, seconds: 1.2)
        #expect(r.session.state.readiness.armed)
        r.play(seconds: 0.5, face: false)
        #expect(!r.session.state.readiness.armed)
        // The face comes back with the jaw already open: nothing.
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.6)
        r.play(gaze: notes, seconds: 0.3)
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.6)
        #expect(r.records.isEmpty)
        r.play(gaze: notes, seconds: 1.1)
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.5)
        #expect(r.actions == ["open launcher.notes"])
    }

    @Test func afterATrackerRestartGazeAndJawOpenATileOnceArmed() {
        var r = Run()
        let notes = r.gaze(at: "launcher.notes"), help = r.gaze(at: "launcher.help")
        r.t = 3600
        r.play(gaze: help, seconds: 1.5)
        #expect(r.session.state.readiness.armed)
        // The tracker app restarts: its clock begins again at zero.
        r.t = 0
        r.play(gaze: notes, seconds: 0.2)
        #expect(r.statusLine.contains("tracker restarted, hold still"))
        #expect(r.statusLine.contains("face ●"))
        r.play(gaze: notes, seconds: 0.9)
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.5)
        #expect(r.screen == "notes", "gaze + jaw after a restart must open the tile: \(r.statusLine)")
        #expect(r.actions == ["open launcher.notes"])
        #expect(r.session.state.readiness.epoch == 1)
        // The notice goes after a few seconds of frame time.
        r.play(gaze: notes, seconds: 4)
        #expect(!r.statusLine.contains("tracker restarted"))
    }

    @Test func changedSettingsAreNotATrackerRestart() {
        var r = Run()
        r.t = 500
        r.play(seconds: 1.2)
        r.t = 3
        r.play(seconds: 1.2)
        #expect(r.session.state.readiness.epoch == 1)
        let before = r.session.pipeline.time ?? 0
        var settings = r.session.state.settings
        settings.tracking.jawThreshold = 0.7
        r.session.apply(settings)
        r.play(seconds: 5)
        #expect(r.session.state.readiness.epoch == 1)
        #expect(r.session.state.readiness.armed)
        #expect(!r.statusLine.contains("tracker restarted"))
        #expect((r.session.pipeline.time ?? 0) > before, "the continuous clock carries on")
    }

    @Test func lateFramesShowAsDroppedOnTheStatusLine() {
        var r = Run()
        r.play(seconds: 1.2)
        r.t -= 0.2
        r.play(seconds: 1.0 / 60)
        #expect(r.statusLine.contains("1 late dropped"))
        #expect(r.session.state.readiness.epoch == 0)
    }

    @Test func pauseGestureSuspendsGesturesAndVoiceUntilTheSameGestureAgain() {
        var r = Run()
        let notes = r.gaze(at: "launcher.notes")
        let brows: [BlendShape: Float] = [.browInnerUp: 0.8, .browOuterUpLeft: 0.8, .browOuterUpRight: 0.8]
        r.play(gaze: notes, seconds: 1.2)
        r.play(brows, gaze: notes, seconds: 2.2)
        r.play(gaze: notes, seconds: 0.3)
        #expect(r.actions == ["pause -"], "a 2 s brow raise pauses and is not push-to-talk")
        #expect(r.session.state.readiness.paused)
        #expect(r.statusLine.contains("PAUSED"))
        #expect(r.lines[1].contains("PAUSED: only resume works"))
        #expect((r.lines[1] + " " + r.lines[2]).split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("resume listening"), "the banner wraps, never cut")
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.6)
        r.play(gaze: notes, seconds: 0.3)
        r.say("open notes")
        r.say("home")
        #expect(r.actions == ["pause -"])
        #expect(r.screen == "launcher")
        r.play(brows, gaze: notes, seconds: 2.2)
        r.play(gaze: notes, seconds: 0.3)
        #expect(r.actions == ["pause -", "resume -"])
        #expect(!r.lines[1].contains("PAUSED"))
        r.play([.jawOpen: 0.8], gaze: notes, seconds: 0.5)
        #expect(r.screen == "notes")
    }

    @Test func pausePhraseAndResumePhrase() {
        var r = Run()
        r.play(seconds: 1.2)
        r.say("pause listening")
        #expect(r.session.state.readiness.paused)
        r.say("open practice chat")
        r.say("pause listening")
        #expect(r.screen == "launcher")
        r.say("resume listening")
        #expect(!r.session.state.readiness.paused)
        r.say("open practice chat")
        #expect(r.actions == ["pause -", "resume -", "open launcher.messages"])
    }

    @Test func pausingStopsDictation() {
        var s = Fixture.state()
        s.dictating = true
        let e = perform(&s, .pause, target: nil, gaze: nil)
        #expect(e.contains(.stopDictation))
        #expect(!s.dictating)
    }

    @Test func dwellIsFrozenWhilePausedAndBeforeArming() {
        var r = Run("dwell")
        let media = r.gaze(at: "launcher.media")
        r.play(gaze: media, seconds: 1.1)
        #expect(r.records.isEmpty, "dwell does not progress before a still face was seen")
        r.say("pause listening")
        r.play(gaze: media, seconds: 2.5)
        #expect(r.session.state.tracking.dwellProgress == 0)
        #expect(r.screen == "launcher")
        r.say("resume listening")
        r.play(gaze: media, seconds: 0.5)
        #expect(r.screen == "launcher")
        #expect(r.session.state.tracking.dwellProgress > 0.3)
        r.play(gaze: media, seconds: 0.7)
        #expect(r.screen == "media")
    }

    @Test func stillFaceTimeComesFromTheKeymap() throws {
        let text = """
        name = "quick"
        [options]
        still_face_ms = 250
        [global.gestures]
        activate = "activate"
        pause = "toggle-pause"
        [global.voice]
        "resume listening" = "resume-listening"
        """
        let km = try Keymap.parse(text, file: "quick.toml", knownGestures: GestureDefaults.definitions.map(\.name),
                                  knownScreens: ScreenRegistry.standard.names)
        #expect(km.stillFaceSeconds == 0.25)
        #expect(km.action(gesture: "pause", screen: "launcher") == .togglePause)
        #expect(throws: ConfigError.self) {
            try Keymap.parse("[options]\nstill_face_ms = -1", file: "bad.toml", knownGestures: [], knownScreens: [])
        }
    }
}
