import Config
import Localization
import Shell
import TerminalModel
import Testing
import TrackingCore

/// The Desktop screen as the pure core sees it: keys, text and pointer events become `Effect.desktop`
/// requests for the runtime's desktop sink; pointer mode follows frames by their own time.
@Suite struct DesktopScreenTests {
    static func requests(_ effects: [Effect]) -> [TerminalRequest] {
        effects.compactMap { if case .desktop(let r) = $0 { return r } else { return nil } }
    }
    static func points(_ effects: [Effect]) -> [PointerEvent] {
        requests(effects).compactMap { if case .point(let e) = $0 { return e } else { return nil } }
    }
    static func learned(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .learnWord(let w, let b) = $0 { return w + "|" + b } else { return nil } }
    }

    final class LearnLog: @unchecked Sendable {
        var words: [String] = []
        func add(_ w: String) { words.append(w) }
    }

    func driver(_ path: InputPath = .gesture, learned: LearnLog = LearnLog()) -> Driver {
        Driver(path, screen: "desktop", suggest: { text, _ in
            text.hasSuffix("wor") ? ["world", "work"] : ["the", "and"] },
               learn: { w, before in learned.add(w + "|" + before) })
    }

    @Test(arguments: [InputPath.gesture, .dwell, .keyboard])
    func keysGoToTheFocusedWindowAndTheFirstShowConnects(_ path: InputPath) {
        var d = driver(path)
        #expect(Self.requests(d.send(.tick(at: 0.5))) == [.start(rows: 1, cols: 1)], "connects when the screen first shows")
        #expect(Self.requests(d.send(.tick(at: 0.6))).isEmpty, "and once")
        #expect(Self.requests(d.activate("desktop.keyboard.key.h")) == [.type("h")])
        #expect(Self.requests(d.activate("desktop.keyboard.space")) == [.type(" ")])
        #expect(Self.requests(d.activate("desktop.keyboard.enter")) == [.press(TerminalKeyPress(.enter))])
        #expect(Self.requests(d.activate("desktop.key.alt-tab")) == [.press(TerminalKeyPress(.tab, modifiers: .alt))])
        #expect(Self.requests(d.activate("desktop.key.page-down")) == [.press(TerminalKeyPress(.pageDown))])
    }

    @Test func theDesktopScreenIsOnTheLauncherAndConnectsWhenOpened() {
        var d = Driver(.gesture, screen: "launcher")
        let effects = d.activate("launcher.desktop")
        #expect(d.screen == "desktop")
        #expect(Self.requests(effects) == [.start(rows: 1, cols: 1)])
    }

    @Test func latchesMakeChordsWithSuperToo() {
        var d = driver()
        d.activate("desktop.key.ctrl")
        d.activate("desktop.key.alt")
        #expect(d.text.contains("Ctrl Alt held"))
        #expect(Self.requests(d.activate("desktop.keyboard.key.t")) == [.press(TerminalKeyPress(.ctrl("t"), modifiers: .alt))])
        d.activate("desktop.key.super")
        #expect(Self.requests(d.activate("desktop.keyboard.key.d")) == [.press(TerminalKeyPress(.char("d"), modifiers: .logo))])
        #expect(Self.requests(d.activate("desktop.keyboard.key.d")) == [.type("d")], "the latch released")
    }

    @Test func aSuggestionCompletesWhatWasTypedHereAndIsLearned() {
        let log = LearnLog()
        var d = driver(learned: log)
        for ch in "hello" { d.activate("desktop.keyboard.key.\(ch)") }
        d.activate("desktop.keyboard.space")
        #expect(log.words == ["hello|"], "a word finished by space is learned")
        for ch in "wor" { d.activate("desktop.keyboard.key.\(ch)") }
        #expect(d.text.contains("★ world"))
        #expect(d.text.contains("› hello wor"))
        // The default commit (no services) adds the word and a space: only the missing letters are typed.
        #expect(Self.requests(d.gesture("commit")) == [.type("ld ")])
        #expect(log.words.last == "world|hello ")
        #expect(d.text.contains("› hello world "))
    }

    @Test func privateTypingLearnsNothingShowsNothingAndLogsNoKey() {
        let log = LearnLog()
        var d = driver(learned: log)
        d.activate("desktop.private")
        #expect(d.state.top.title == "Desktop · private")
        #expect(d.text.contains("Private: no suggestions, nothing learned or logged"))
        #expect(d.lines.last?.contains("private: not learned or logged") == true, "the status line says so")
        var records: [ActionRecord] = []
        for ch in "pw" {
            let e = d.activate("desktop.keyboard.key.\(ch)")
            records += e.compactMap { if case .performed(let r) = $0 { return r } else { return nil } }
            #expect(Self.requests(e) == [.type(String(ch))])
        }
        d.activate("desktop.keyboard.space")
        #expect(log.words.isEmpty)
        #expect(records.allSatisfy { $0.target == nil && $0.action == "type-hidden" })
        #expect(d.text.contains("› ••"), "the line is masked")
        #expect(!d.text.contains("› pw"))
        d.activate("desktop.private")
        #expect(d.state.top.title == "Desktop")
    }

    @Test func backspaceAndDeleteWordEraseExactlyWhatWasTyped() {
        var d = driver()
        for ch in "hi you" { d.activate(ch == " " ? "desktop.keyboard.space" : "desktop.keyboard.key.\(ch)") }
        #expect(Self.requests(d.activate("desktop.keyboard.delete-word"))
                == Array(repeating: .press(TerminalKeyPress(.backspace)), count: 3))
        #expect(d.text.contains("› hi "))
        // Nothing typed here since the caret moved: the desktop's own word erase.
        d.activate("desktop.key.left")
        #expect(Self.requests(d.activate("desktop.keyboard.delete-word")) == [.press(TerminalKeyPress(.backspace, modifiers: .ctrl))])
    }

    @Test func keymapPhrasesSendKeysAndDesktopCommands() {
        var d = driver()
        d.armWithAStillFace()
        #expect(Self.requests(d.send(.speech("alt tab", isFinal: true))) == [.press(TerminalKeyPress(.tab, modifiers: .alt))])
        #expect(Self.requests(d.send(.speech("control l", isFinal: true))) == [.press(TerminalKeyPress(.ctrl("l")))])
        #expect(Self.points(d.send(.speech("right click", isFinal: true))) == [.click(.right, count: 1)])
        _ = d.send(.speech("pointer mode", isFinal: true))
        #expect((d.state.top as? DesktopScreen)?.pointer != nil)
        _ = d.send(.speech("stop pointing", isFinal: true))
        #expect((d.state.top as? DesktopScreen)?.pointer == nil)
        _ = d.send(.speech("leave desktop", isFinal: true))
        #expect(d.screen == "launcher")
    }

    @Test func helpSaysHowToPointAndWhatThePhrasesDo() {
        var d = driver()
        d.armWithAStillFace()
        _ = d.send(.speech("help", isFinal: true))
        #expect(d.text.contains("How to use Desktop"))
        #expect(d.text.contains("Pointer mode"))
        #expect(d.text.contains("Private"))
    }

    @Test func dictationTypesTheDifferenceItMakes() {
        var d = driver()
        d.armWithAStillFace()
        d.activate("desktop.line")
        #expect(d.state.dictating)
        #expect(Self.requests(d.send(.speech("hello there", isFinal: true))) == [.type("hello there")])
        #expect(d.text.contains("› hello there"))
        // A second utterance goes on after a space, as the dictation editor says.
        let more = Self.requests(d.send(.speech("friend", isFinal: true)))
        #expect(more == [.type(" friend")])
    }

    @Test func speakSaysTheSentenceBeingTypedButNeverWhilePrivate() {
        var e = Driver(.gesture, screen: "desktop")
        e.armWithAStillFace()
        e.key(.char("h")); e.key(.char("i")); e.key(.char(".")); e.key(.char(" ")); e.key(.char("y")); e.key(.char("o"))
        let said = e.activate("desktop.speak").compactMap { if case .speak(let u) = $0 { return u.text } else { return nil } }
        #expect(said == ["yo"], "\(said)")
        e.send(.speaking(true))
        #expect(e.text.contains("■ Stop"))
        #expect(e.activate("desktop.speak").contains(.stopSpeaking))
        e.send(.speaking(false))
        e.activate("desktop.private")
        e.key(.char("x"))
        #expect(!e.activate("desktop.speak").contains { if case .speak = $0 { return true } else { return false } })
    }

    @Test func backDoesNotLeaveWhileTyping() {
        var d = driver()
        d.gesture("back")
        #expect(d.screen == "desktop")
    }

    // MARK: - Pointer mode

    /// The driver in pointer mode (gaze), armed.
    func pointing(_ path: InputPath = .gesture) -> Driver {
        var d = driver(path)
        d.activate("desktop.pointer")
        #expect((d.state.top as? DesktopScreen)?.pointer != nil)
        return d
    }


    @Test func theGazeMovesThePointerAndTheJawClicksWhereItWas() {
        var d = pointing()
        d.t += 1
        let moves = Self.points(d.send(.frame(TrackingSample(t: d.t, gaze: GazePoint(x: 0.75, y: 0.2)))))
        #expect(moves == [.moveTo(x: 0.75, y: 0.2)])
        // The same place again sends nothing; a new one moves.
        #expect(Self.points(d.send(.frame(TrackingSample(t: d.t + 0.02, gaze: GazePoint(x: 0.75, y: 0.2))))).isEmpty)
        // The jaw opening: the gaze dips with it, and the pointer holds still from the first frame the jaw
        // rises past its release level (before the gesture has any progress) until it is back below it.
        var jaw = BlendShapes()
        jaw[.jawOpen] = 0.35
        let rising = d.send(.frame(TrackingSample(t: d.t + 0.03, gaze: GazePoint(x: 0.75, y: 0.25), blend: jaw)))
        #expect(Self.points(rising).isEmpty)
        jaw[.jawOpen] = 0.8
        let held = d.send(.frame(TrackingSample(t: d.t + 0.04, gaze: GazePoint(x: 0.75, y: 0.3),
                                                 progress: [GestureProgress(name: "activate", progress: 0.4)], blend: jaw)))
        #expect(Self.points(held).isEmpty)
        let click = d.send(.gesture(GestureEvent(name: "activate", t: d.t + 0.3, onset: d.t + 0.03, gaze: GazePoint(x: 0.75, y: 0.3))))
        #expect(Self.points(click) == [.click(.left, count: 1)])
        #expect(d.text.contains("Pointer mode"))
        #expect(d.state.hitMap.targets.isEmpty, "the gaze is the desktop's: no shell target to hit")
    }

    @Test func nothingMovesWhileTheFaceIsLostPausedOrNotArmed() {
        var d = driver()
        // Not armed: pointer mode by phrase before any still face.
        _ = d.send(.speech("pointer mode", isFinal: true))
        #expect((d.state.top as? DesktopScreen)?.pointer != nil)
        d.t += 1
        #expect(Self.points(d.send(.frame(TrackingSample(t: d.t, gaze: GazePoint(x: 0.2, y: 0.2))))).isEmpty)
        d.armWithAStillFace()
        d.t += 1
        #expect(!Self.points(d.send(.frame(TrackingSample(t: d.t, gaze: GazePoint(x: 0.3, y: 0.3))))).isEmpty)
        // The face lost: its last gaze is not trusted.
        #expect(Self.points(d.send(.frame(TrackingSample(t: d.t + 0.1, face: false, gaze: GazePoint(x: 0.9, y: 0.9))))).isEmpty)
        // Paused: neither moves nor clicks.
        _ = d.send(.speech("pause listening", isFinal: true))
        #expect(d.state.readiness.paused)
        #expect(Self.points(d.send(.frame(TrackingSample(t: d.t + 0.2, gaze: GazePoint(x: 0.6, y: 0.6))))).isEmpty)
        #expect(Self.points(d.send(.gesture(GestureEvent(name: "activate", t: d.t + 0.5, onset: d.t + 0.3, gaze: nil)))).isEmpty)
        #expect(d.text.contains("Paused: the pointer holds still"))
    }

    @Test func winksRightClickAndDoubleClickOnlyWhilePointing() {
        var d = driver()
        // Typing: the wink keeps its usual binding (focus), nothing reaches the desktop.
        #expect(Self.points(d.gesture("wink_left")).isEmpty)
        d.activate("desktop.pointer")
        #expect(Self.points(d.gesture("wink_left")) == [.click(.right, count: 1)])
        #expect(Self.points(d.gesture("wink_right")) == [.click(.left, count: 2)])
    }

    @Test func dragHoldsTheButtonUntilClickOrStop() {
        var d = pointing()
        #expect(Self.points(d.gesture("commit")) == [.button(.left, down: true)])
        #expect(d.text.contains("Dragging"))
        #expect(Self.points(d.gesture("activate")) == [.button(.left, down: false)], "the jaw lets go")
        #expect(Self.points(d.gesture("commit")) == [.button(.left, down: true)])
        // Stopping pointing never leaves the button held.
        #expect(Self.points(d.gesture("back")) == [.button(.left, down: false)])
        #expect((d.state.top as? DesktopScreen)?.pointer == nil)
        #expect(d.screen == "desktop")
    }

    @Test func dwellClickFiresOncePerRest() {
        var d = driver()
        d.activate("desktop.dwell")
        #expect(d.state.settings.desktopDwellClick)
        d.activate("desktop.pointer")
        var clicks = 0
        var t = d.t + 1
        // Rest 2.5 s (the dwell is 1 s): one click; move away and rest again: a second.
        for k in 0..<150 {
            clicks += Self.points(d.send(.frame(TrackingSample(t: t, gaze: GazePoint(x: 0.5 + Double(k % 2) * 0.002, y: 0.5)))))
                .filter { $0 == .click(.left, count: 1) }.count
            t += 1.0 / 60
        }
        #expect(clicks == 1)
        for _ in 0..<90 {
            clicks += Self.points(d.send(.frame(TrackingSample(t: t, gaze: GazePoint(x: 0.2, y: 0.8)))))
                .filter { $0 == .click(.left, count: 1) }.count
            t += 1.0 / 60
        }
        #expect(clicks == 2)
    }

    @Test func theHeadSteersFasterFurtherFromTheMiddleAndRestsInTheDeadZone() {
        var p = DesktopPointer(mode: .head, speed: 600, deadZone: 0.06, curve: 1.6)
        func run(_ x: Double, seconds: Double) -> Double {
            var dx = 0.0
            var t = 100.0
            for _ in 0..<Int(seconds * 60) {
                for e in p.follow(TrackingSample(t: t, gaze: GazePoint(x: x, y: 0.5)), held: false) {
                    if case .moveBy(let x, _) = e { dx += x }
                }
                t += 1.0 / 60
            }
            return dx
        }
        #expect(run(0.53, seconds: 1) == 0, "inside the dead zone")
        let slow = run(0.7, seconds: 1), fast = run(1.0, seconds: 1)
        #expect(slow > 20 && slow < fast)
        #expect(abs(fast - 600) < 30, "full deflection is the speed: \(fast)")
        #expect(run(0.0, seconds: 0.5) < -250)
        // Held (a gesture), then free again: no jump for the time held.
        _ = p.follow(TrackingSample(t: 200, gaze: GazePoint(x: 1, y: 0.5)), held: true)
        let after = p.follow(TrackingSample(t: 210, gaze: GazePoint(x: 1, y: 0.5)), held: false)
        #expect(after.isEmpty)
    }

    @Test func aFailedDeliveryKeepsTheTextOnScreenAndNamesTheCause() {
        var d = driver()
        d.send(.desktopOutput(.failed(reason: .verbatim("cannot open X display :9"), unsent: "hello")))
        #expect(d.text.contains("not sent: hello"))
        #expect(d.text.contains("cannot open X display :9"))
        d.send(.desktopSink("X11 :0"))
        d.send(.desktopOutput(.delivered))
        #expect(d.text.contains("typing into the focused window (X11 :0)"))
    }
}

@Suite struct DesktopKeymapTests {
    @Test func keyNamesTakeModifierPrefixes() {
        #expect(TerminalKeyPress(name: "alt-tab") == TerminalKeyPress(.tab, modifiers: .alt))
        #expect(TerminalKeyPress(name: "ctrl-alt-t") == TerminalKeyPress(.ctrl("t"), modifiers: .alt))
        #expect(TerminalKeyPress(name: "super-d") == TerminalKeyPress(.char("d"), modifiers: .logo))
        #expect(TerminalKeyPress(name: "shift-tab") == TerminalKeyPress(.tab, modifiers: .shift))
        #expect(TerminalKeyPress(name: "ctrl-C") == TerminalKeyPress(.ctrl("c")))
        #expect(TerminalKeyPress(name: "alt-x") == TerminalKeyPress(.alt("x")))
        #expect(TerminalKeyPress(name: "ctrl-ctrl-c") == nil)
        #expect(TerminalKeyPress(name: "ctrl-") == nil)
        #expect(TerminalKeyPress(name: "super-") == nil)
        #expect(TerminalKeyPress(name: "d") == nil, "a bare character is typed, not named")
    }

    @Test func theDesktopSectionTakesPointerCommandsAndRefusesBack() throws {
        let gestures = GestureDefaults.definitions.map(\.name)
        let ok = """
        name = "t"
        [desktop.voice]
        "right click" = "right-click"
        "alt tab" = "alt-tab"
        [desktop.gestures]
        wink_left = "drag"
        """
        let km = try Keymap.parse(ok, file: "t.toml", knownGestures: gestures, knownScreens: ScreenRegistry.standard.names)
        #expect(km.desktopBinding(phrase: "Right  click") == .desktop(.rightClick))
        #expect(km.desktopBinding(gesture: "wink_left") == .desktop(.drag))
        #expect(km.allPhrases.contains("alt tab"))
        let back = "name = \"t\"\n[desktop.gestures]\nback = \"back\"\n"
        #expect(throws: ConfigError.self) {
            try Keymap.parse(back, file: "t.toml", knownGestures: gestures, knownScreens: ScreenRegistry.standard.names)
        }
        // A pointer command belongs to [desktop], not [terminal]: the message lists what [terminal] takes.
        let wrong = "name = \"t\"\n[terminal.voice]\n\"click\" = \"click\"\n"
        do {
            _ = try Keymap.parse(wrong, file: "t.toml", knownGestures: gestures, knownScreens: ScreenRegistry.standard.names)
            Issue.record("click was taken in [terminal]")
        } catch {
            #expect(error.description.contains("t.toml:3"))
            #expect(error.description.contains("unknown terminal binding"))
        }
    }
}
