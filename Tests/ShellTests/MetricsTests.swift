import Config
import Shell
import Testing
import TrackingCore

/// `SessionMetrics` stepped by the real pipeline and screens, on takes whose true counts are known.
@Suite struct MetricsTests {
    static func frames(_ gaze: GazePoint, _ shapes: [BlendShape: Float], from t: Double, seconds: Double) -> [TrackingFrame] {
        (0..<Int(seconds * 60)).map { TrackingFrame(t: t + Double($0) / 60, blend: BlendShapes(shapes), gaze: gaze) }
    }

    /// Three jaw activations on the Notes tile: the first undone by the right eye within 2 s, the second left
    /// 3 s before going back, the third just before the face is lost.
    static func take(_ notes: GazePoint) -> [TrackingFrame] {
        var out: [TrackingFrame] = []
        var t = 0.0
        let jaw: [BlendShape: Float] = [.jawOpen: 0.8], eye: [BlendShape: Float] = [.eyeBlinkRight: 0.9]
        for (shapes, secs) in [([BlendShape: Float](), 1.5), (jaw, 0.5), ([:], 0.4), (eye, 0.6), ([:], 0.5),
                               (jaw, 0.5), ([:], 3.0), (eye, 0.6), ([:], 0.5),
                               (jaw, 0.5), ([:], 0.3)] {
            out += frames(notes, shapes, from: t, seconds: secs)
            t += secs
        }
        out += (0..<30).map { TrackingFrame.noFace(at: t + Double($0) / 60) }
        return out
    }

    @Test func jawActivationsBackWithinTwoSecondsAndFaceLossAreCounted() {
        var h = HeadlessSession(keymap: Fixture.keymap("default"), settings: GestureConfig.defaults())
        let notes = Fixture.gaze(at: "launcher.notes", in: h.session.state)
        var opens = 0
        for f in Self.take(notes) { opens += h.step(.frame(f, nil)).filter { $0.contains(#""action": "open""#) }.count }
        let m = h.session.metrics
        #expect(opens == 3)
        #expect(m.gestures["activate"]?.count == 3)
        #expect(m.gestures["back"]?.count == 2)
        #expect(m.activations == 3)
        #expect(m.undoneActivations == 1, "only the back 1 s after the first open undoes it")
        #expect(m.faceLosses == 1)
        #expect(m.actionsNearFaceLoss == 1, "the third open came 0.3 s before the face was lost")
        #expect(m.errors == 1)
        // The hold is onset → fire: the jaw's configured hold, well under the half second it was open.
        let hold = m.gestures["activate"]?.meanHold ?? 0
        #expect(hold > 0 && hold < 0.5)
        #expect(abs(m.duration - (Self.take(notes).last?.t ?? 0)) < 1e-9)
    }

    @Test func replayingTheSameTakeGivesTheSameFigures() {
        var a = HeadlessSession(keymap: Fixture.keymap("default"), settings: GestureConfig.defaults())
        var b = HeadlessSession(keymap: Fixture.keymap("default"), settings: GestureConfig.defaults())
        let take = Self.take(Fixture.gaze(at: "launcher.notes", in: a.session.state))
        for f in take { _ = a.step(.frame(f, nil)) }
        for f in take { _ = b.step(.frame(f, nil)) }
        #expect(a.session.metrics == b.session.metrics)
        #expect(a.session.metrics.actions == 5, "three opens and two backs")
    }

    @Test func typingDictationAndCorrectionsInANote() {
        var state = Fixture.state()
        state.stack.append(NoteEditorScreen())
        state.relayout()
        var session = Session(state: state, settings: GestureConfig.defaults())
        _ = session.send(.tick(at: 0))
        _ = session.send(.key(.char("h")))
        _ = session.send(.key(.char("i")))
        _ = session.send(.tick(at: 6))
        session.state.dictating = true
        _ = session.send(.speech("see you soon", isFinal: true))
        _ = session.send(.key(.backspace))
        _ = session.send(.tick(at: 12))
        let m = session.metrics
        let text = (session.state.top as? NoteEditorScreen)?.field.text ?? ""
        #expect(text.hasPrefix("hi") && text.contains("see you soo"))
        #expect(m.keystrokes == 3, "two letters and a backspace")
        #expect(m.charactersTyped == 2)
        #expect(m.dictatedWords == 3)
        #expect(m.charactersEntered == text.count + 1, "the backspace removed one of them")
        #expect(m.corrections == 1)
        #expect(m.correctionsAfterDictation == 1)
        #expect(m.duration == 12)
        #expect(abs(m.wordsPerMinute - Double(m.charactersEntered) / 5 / (12.0 / 60)) < 1e-9)
        let r = m.record(kind: "run", source: "keyboard", date: "2026-01-01T00:00:00Z")
        #expect(r.keystrokes == 3 && r.corrections == 1 && r.kind == "run")
    }

    /// The one definition of speed and errors (`TextEntryRate`) on a session whose figures are known: "hellx",
    /// ⌫, "o" over six seconds is six characters entered (one deleted) for "hello".
    @Test func wordsPerMinuteAndErrorRatesOfAKnownSession() {
        var state = Fixture.state()
        state.stack.append(NoteEditorScreen())
        state.relayout()
        var session = Session(state: state, settings: GestureConfig.defaults())
        _ = session.send(.tick(at: 0))
        for c in "hellx" { _ = session.send(.key(.char(c))) }
        _ = session.send(.key(.backspace))
        _ = session.send(.key(.char("o")))
        _ = session.send(.tick(at: 6))
        let m = session.metrics
        #expect((session.state.top as? NoteEditorScreen)?.field.text == "hello")
        #expect(m.charactersEntered == 6 && m.charactersDeleted == 1)
        // 6 characters / 5 per word in 0.1 minute.
        #expect(m.wordsPerMinute == 12)
        #expect(m.errorRates == TextEntryRate.errors(presented: "hello", transcribed: "hello", fixed: 1))
        #expect(m.errorRates.correctedRate == 1.0 / 6 && m.errorRates.uncorrectedRate == 0)
        #expect(m.record(kind: "run", source: "keyboard", date: "2026-01-01T00:00:00Z").correctedErrorRate == 16.667)
        // Soukoreff & MacKenzie's shape: "the quick brown fox" typed as "the quixk brwn fox" with 3 letters fixed
        // on the way has MSD 2 (a substitution, an omission): C = 19 − 2 = 17, INF = 2, IF = 3.
        let e = TextEntryRate.errors(presented: "the quick brown fox", transcribed: "the quixk brwn fox", fixed: 3)
        #expect(e == TextEntryRate.errors(correct: 17, uncorrected: 2, fixed: 3))
        #expect(e.uncorrectedRate == 2.0 / 22 && e.correctedRate == 3.0 / 22 && e.totalRate == 5.0 / 22)
        #expect(TextEntryRate.minimumStringDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(TextEntryRate.minimumStringDistance([], Array("abc")) == 3)
        #expect(TextEntryRate.wordsPerMinute(characters: 18, seconds: 6) == 36)
        #expect(TextEntryRate.wordsPerMinute(characters: 5, seconds: 0.0001) == 0)
    }

    @Test func writingOverASubnormalTimeHasNoRateRatherThanNaN() {
        var state = Fixture.state()
        state.stack.append(NoteEditorScreen())
        state.relayout()
        var session = Session(state: state, settings: GestureConfig.defaults())
        _ = session.send(.tick(at: 0))
        _ = session.send(.key(.char("h")))
        _ = session.send(.tick(at: Double.leastNonzeroMagnitude))
        let m = session.metrics
        #expect(m.charactersEntered == 1)
        #expect(m.duration == Double.leastNonzeroMagnitude)
        // 1 / 5 / (5e-324 / 60) is infinite, and with no characters 0 / 0 was NaN.
        #expect(m.wordsPerMinute == 0)
        let r = m.record(kind: "run", source: "keyboard", date: "2026-01-01T00:00:00Z")
        #expect(r.duration == 0 && r.wpm == 0)
        #expect(SessionMetrics().wordsPerMinute == 0)
    }

    /// Face loss is what the tracker says (frames without a face) or frames further apart than a source may
    /// pause; a tracker's uneven pace is not a loss, and an action just before such a pause is not suspect.
    @Test func faceLossIsTheTrackersWordOrALongSilenceNotAShortGap() {
        var h = HeadlessSession(keymap: Fixture.keymap("default"), settings: GestureConfig.defaults())
        let notes = Fixture.gaze(at: "launcher.notes", in: h.session.state)
        var take: [TrackingFrame] = []
        var t = 0.0
        func face(_ shapes: [BlendShape: Float], _ secs: Double) { take += Self.frames(notes, shapes, from: t, seconds: secs); t += secs }
        face([:], 1.5); face([.jawOpen: 0.8], 0.5); face([:], 0.3)
        t += 0.8                 // the tracker's pace stumbles for 0.8 s, just after the open: no loss
        face([:], 1)
        t += 1.5                 // nothing for 1.5 s: lost
        face([:], 1)
        take += (0..<30).map { TrackingFrame.noFace(at: t + Double($0) / 60) }   // the tracker's own word
        t += 0.5
        face([:], 1)
        var opens = 0
        for f in take { opens += h.step(.frame(f, nil)).filter { $0.contains(#""action": "open""#) }.count }
        let m = h.session.metrics
        #expect(opens == 1)
        #expect(m.faceLosses == 2, "the 1.5 s silence and the frames without a face")
        #expect(m.actionsNearFaceLoss == 0, "the open came 0.3 s before a stumble, not a loss")
    }

    /// KSR is the share of key presses suggestions saved: none taken reads nil (shown "—"), however many
    /// corrections, where 1 − keys / characters went below zero.
    @Test func keystrokeSavingsAreNilWithoutSuggestionsAndNeverNegative() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { _, _ in ["hello"] })
        _ = d.tick(0)
        d.type("hellx")
        d.key(.backspace)
        d.key(.char("o"))
        var m = d.session.metrics
        #expect(m.keystrokes == 7 && m.selections == 0)
        #expect(m.keystrokeSavingsRate == nil, "no prediction used")
        #expect(m.record(kind: "run", source: "keyboard", date: "2026-01-01T00:00:00Z").ksr == nil)
        for _ in 0..<5 { d.key(.backspace) }
        d.type("helx")
        d.key(.backspace)
        d.gesture("commit")
        m = d.session.metrics
        #expect((d.state.top as? NoteEditorScreen)?.field.text == "hello ")
        #expect(m.selections == 1 && m.charactersSelected == 3, "\"lo \" after \"hel\"")
        // Without the suggestion, 3 more keys; with it, 1 action: 2 saved of 17 + 3.
        #expect(m.keystrokes == 17, "7 keys, 5 ⌫, 4 keys and a ⌫")
        #expect(abs((m.keystrokeSavingsRate ?? -1) - 2.0 / 20 * 100) < 1e-9)
        #expect(TextEntryRate.savings(keystrokes: 10, selections: 4, charactersSelected: 2) == 0, "never negative")
    }

    /// A gesture the keymap binds to nothing did nothing: dwell on the default keymap is not the user's use of
    /// the shell, while the gaze-only keymap's dwell is.
    @Test func dwellCountsOnlyWhereTheKeymapBindsIt() {
        for (keymap, bound) in [("default", false), ("dwell", true)] {
            var session = Session(state: Fixture.state(keymap), settings: GestureConfig.defaults())
            let notes = Fixture.gaze(at: "launcher.notes", in: session.state)
            var dwelt = 0
            for f in Self.frames(notes, [:], from: 0, seconds: 4) {
                dwelt += session.stepDetailed(.frame(f, nil)).gestures.filter { $0.name == "dwell" }.count
            }
            let m = session.metrics
            #expect(dwelt >= 1, "\(keymap): the pipeline recognised a dwell")
            #expect((m.dwell.count > 0) == bound, "\(keymap)")
            #expect((m.gestures["dwell"] != nil) == bound, "\(keymap)")
        }
    }

    /// What the Terminal and Desktop screens send to programs is writing too; a password prompt and private
    /// typing are not counted.
    @Test func terminalAndDesktopTypingCountButNotHiddenInput() {
        for screen in ["terminal", "desktop"] {
            var d = Driver(.gesture, screen: screen)
            d.send(.terminal(TerminalScreenTests.view("$ ")))
            for ch in "ls" { d.activate("\(screen).keyboard.key.\(ch)") }
            d.activate("\(screen).keyboard.space")
            d.activate("\(screen).keyboard.backspace")
            var m = d.session.metrics
            #expect(m.charactersEntered == 3 && m.charactersTyped == 3, "\(screen)")
            #expect(m.keystrokes == 4 && m.corrections == 1 && m.charactersDeleted == 1, "\(screen)")
            if screen == "terminal" {
                d.send(.terminal(TerminalScreenTests.view("Password: ", hidden: true)))
            } else {
                d.activate("desktop.private")
            }
            for ch in "pw" { d.activate("\(screen).keyboard.key.\(ch)") }
            m = d.session.metrics
            #expect(m.charactersEntered == 3 && m.keystrokes == 4, "\(screen): hidden input is not counted")
        }
    }

    @Test func sparklineScalesFromMinimumToMaximum() {
        #expect(Sparkline.render([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█")
        #expect(Sparkline.render([5, 5, 5]) == "▁▁▁")
        #expect(Sparkline.render([]) == "")
        #expect(Sparkline.render([10, 0]) == "█▁")
    }

    @Test func recordMetricsSettingRoundTrips() {
        var s = ShellSettings()
        #expect(s.recordMetrics)
        s.recordMetrics = false
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(problems.isEmpty)
        #expect(back.recordMetrics == false)
        let (_, bad) = ShellSettings.parse("record_metrics = 1\n", file: "settings.toml")
        #expect(bad.first?.contains("settings.toml:1") == true)
    }
}
