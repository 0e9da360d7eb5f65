import Synchronization
import Config
import Shell
import Testing
import TrackingCore

/// Every control, operated by gaze + gesture, by dwell and by the keyboard.
@Suite struct WidgetTests {
    static let paths = InputPath.allCases

    @Test(arguments: paths) func toggleFlips(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.tab.display")
        #expect(d.state.settings.showGazeCursor)
        #expect(d.text.contains("[ ON ●]"))
        d.activate("settings.cursor")
        #expect(!d.state.settings.showGazeCursor)
        #expect(d.text.contains("[○ OFF]"))
        d.activate("settings.cursor")
        #expect(d.state.settings.showGazeCursor)
    }

    /// An activation on the track moves the value one step towards the gaze (issue 47: a jump to the gaze
    /// took the jaw threshold out of the user's reach in one action); the live activate gesture takes it.
    @Test(arguments: [InputPath.gesture, .dwell]) func sliderStepsTowardsTheGaze(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        let track = Slider.layoutTrack(d.target("settings.jaw").rect)
        // Three quarters along 0.2…0.9 is 0.725: above 0.5, so one step up.
        let cell = CellPoint(x: track.x + (track.w - 1) * 3 / 4, y: track.y + 1)
        d.activate("settings.jaw", at: cell)
        #expect(d.state.trackingInEffect.jawThreshold == 0.55)
        let press = d.session.pipeline.settings.gestures.first { $0.name == "activate" }.flatMap { g -> Float? in
            if case .threshold(let t) = g.kind { return t.press } else { return nil }
        }
        #expect(press.map(Double.init).map { abs($0 - d.state.trackingInEffect.jawThreshold) < 1e-6 } == true)
        #expect(d.text.contains("Jaw threshold: \(JSONText.number(d.state.trackingInEffect.jawThreshold))"))
        // The far left end: one step down at a time.
        d.activate("settings.jaw", at: CellPoint(x: track.x, y: track.y + 1))
        d.activate("settings.jaw", at: CellPoint(x: track.x, y: track.y + 1))
        #expect(d.state.trackingInEffect.jawThreshold == 0.45)
    }

    /// A slider's value and its ends with the language's decimal separator: "Kieferschwelle: 0,5", "0,2" … "0,9".
    @Test func aSliderShowsTheLanguagesDecimalSeparator() throws {
        var d = Driver(.gesture, screen: "settings")
        #expect(d.text.contains("Jaw threshold: 0.5"), "\(d.text)")
        d.send(.languageLoaded(try LanguageTests.catalog("de")))
        #expect(d.text.contains("Kieferschwelle: 0,5"), "\(d.text)")
        #expect(d.text.contains("0,2") && d.text.contains("0,9") && !d.text.contains("0.2"), "the track's ends too:\n\(d.text)")
        #expect(Slider(range: 0.5...2, step: 0.1, digits: 1, unit: "×").format(1.5, point: ",") == "1,5×")
    }

    @Test func aKeyPressOnASliderTrackKeepsTheValue() {
        var d = Driver(.keyboard, screen: "settings")
        let before = d.state.trackingInEffect.jawThreshold
        d.activate("settings.jaw")
        #expect(d.state.trackingInEffect.jawThreshold == before, "a key has no place on the track; − and + move it")
    }

    @Test(arguments: paths) func sliderNudgeTargets(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.dwell.plus")
        #expect(abs(d.state.trackingInEffect.dwellTime - 1.1) < 1e-9)
        d.activate("settings.dwell.minus"); d.activate("settings.dwell.minus")
        #expect(abs(d.state.trackingInEffect.dwellTime - 0.9) < 1e-9)
        let dwell = d.session.pipeline.settings.gestures.first { $0.name == "dwell" }.flatMap { g -> Double? in
            if case .dwell(let s) = g.kind { return s.dwell } else { return nil }
        }
        #expect(dwell.map { abs($0 - 0.9) < 1e-9 } == true)
    }

    @Test(arguments: paths) func stepperHasSeparateTargets(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.tab.display")
        d.activate("settings.suggestions.plus")
        #expect(d.state.settings.suggestions == 5)
        d.activate("settings.suggestions.minus"); d.activate("settings.suggestions.minus")
        #expect(d.state.settings.suggestions == 3)
        #expect(d.text.contains("Suggestions: 3"))
    }

    @Test(arguments: paths) func dictationSilenceIsASliderOnTheDisplayTab(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.tab.display")
        d.activate("settings.silence.plus"); d.activate("settings.silence.plus")
        #expect(d.state.settings.dictationSilence == 12)
        #expect(d.text.contains("Dictation stops after: 12 s"))
        // The value is saved with the other settings.
        #expect(d.state.settings.toml.contains("dictation_silence_s = 12"))
    }

    @Test(arguments: paths) func suggestRudeWordsIsAToggleOnTheDisplayTab(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.tab.display")
        #expect(d.text.contains("Suggest rude words"))
        #expect(!d.state.settings.suggestRudeWords, "off by default")
        let e = d.activate("settings.rude")
        #expect(d.state.settings.suggestRudeWords)
        #expect(e.contains { if case .settingsChanged(let s) = $0 { return s.suggestRudeWords } else { return false } })
        #expect(d.state.settings.toml.contains("suggest_rude_words = true"))
    }

    @Test(arguments: paths) func segmentedPicksTheSegmentLookedAt(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        let e = d.activate("settings.smoothing.low-pass")
        #expect(d.state.trackingInEffect.smoothing == .lowPass)
        #expect(d.session.pipeline.settings.smoothing.kind == .lowPass)
        #expect(e.contains { if case .settingsChanged(let s) = $0 { return s.tracking.smoothing == .lowPass } else { return false } })
        #expect(d.text.contains("● Low-pass"))
    }

    @Test(arguments: paths) func tabBarAndKeymapList(_ p: InputPath) {
        var d = Driver(p, screen: "settings")
        d.activate("settings.tab.keymap")
        #expect(d.text.contains("▸ Keymap ◂"))
        let e = d.activate("settings.keymap.no-wink")
        #expect(e.contains { if case .settingsChanged(let s) = $0 { return s.keymap == "no-wink" } else { return false } })
    }

    @Test func scrollGestureUsesTopAndBottomQuarters() {
        var d = Driver(.gesture, screen: "media")
        let first = d.target("media.track.0").rect
        let list = Rect(x: first.x, y: first.y, w: first.w, h: 27 - 1)
        #expect(d.state.hitMap.target(id: "media.track.8") == nil)
        // Bottom quarter: down a quarter page (8 rows show, so 2).
        d.gesture("scroll", gazeAt: CellPoint(x: list.x + 3, y: list.maxY - 2))
        #expect(d.state.hitMap.target(id: "media.track.0") == nil)
        #expect(d.state.hitMap.target(id: "media.track.9") != nil)
        // Middle: nothing.
        d.gesture("scroll", gazeAt: CellPoint(x: list.x + 3, y: list.y + list.h / 2))
        #expect(d.state.hitMap.target(id: "media.track.2") != nil)
        // Top quarter: back up.
        d.gesture("scroll", gazeAt: CellPoint(x: list.x + 3, y: list.y + 1))
        #expect(d.state.hitMap.target(id: "media.track.0") != nil)
        // scroll-down by voice acts on the list the gaze is on.
        _ = d.session.send(.gaze(d.gaze(CellPoint(x: list.x + 3, y: list.y + 5)), at: 50))
        _ = d.session.send(.speech("scroll down", isFinal: true))
        #expect(d.state.hitMap.target(id: "media.track.0") == nil)
    }

    @Test(arguments: paths) func scrollButtonsAndBar(_ p: InputPath) {
        var d = Driver(p, screen: "media")
        let barColumn = d.target("media.tracks.up").rect.center.x
        func thumbTop(_ d: Driver) -> Int? { d.lines.firstIndex { l in Array(l)[barColumn] == "█" } }
        let before = thumbTop(d)
        d.activate("media.tracks.down")
        #expect(d.state.hitMap.target(id: "media.track.0") == nil)
        #expect((thumbTop(d) ?? 0) > (before ?? 0), "the scroll bar thumb moves down")
        d.activate("media.tracks.up")
        #expect(d.state.hitMap.target(id: "media.track.0") != nil)
    }

    @Test func carouselWinksMoveOneCardAndWrap() {
        var d = Driver(.gesture, screen: "media")
        let card = d.target("media.albums").rect.center
        d.gesture("wink_right", gazeAt: card)
        #expect(d.text.contains("Night Drive"))
        d.gesture("wink_left", gazeAt: card); d.gesture("wink_left", gazeAt: card)
        #expect(d.text.contains("Kitchen Radio"), "previous from the first card wraps to the last")
        #expect(d.text.contains("○ ○ ○ ○ ●"))
        d.gesture("wink_right", gazeAt: card)
        #expect(d.text.contains("Morning Light"))
    }

    @Test(arguments: paths) func carouselArrows(_ p: InputPath) {
        var d = Driver(p, screen: "media")
        d.activate("media.albums.next")
        #expect(d.text.contains("Tracks of Night Drive"))
        d.activate("media.albums.prev"); d.activate("media.albums.prev")
        #expect(d.text.contains("Tracks of Kitchen Radio"))
    }

    @Test(arguments: paths) func letterKeyboardTypesIntoTheTextField(_ p: InputPath) {
        let files = MemoryFiles([:])
        var d = Driver(p, screen: "note-editor", files: .memory(files))
        for id in ["key.h", "key.i", "space", "key.y", "key.o", "backspace", "key.u"] { d.activate("note-editor.keyboard." + id) }
        #expect(d.text.contains("hi yu▏"))
        d.activate("note-editor.keyboard.delete-word")
        #expect(d.text.contains("│ hi ▏"))
        d.activate("note-editor.keyboard.enter"); d.activate("note-editor.keyboard.key.x")
        let saved = files.files.withLock { $0[AppData.notesFile] }
        #expect(saved == "handsfree-notes 1\nnote\t1\thi \\nx\n", "saved after every change")
    }

    @Test(arguments: paths) func wordsTypedLetterByLetterAreLearned(_ p: InputPath) {
        let learned = Mutex<[String]>([])
        let learn: @Sendable (String, String) -> Void = { w, before in learned.withLock { $0.append(before + "|" + w) } }
        var d = Driver(p, screen: "note-editor", learn: learn)
        for id in ["key.z", "key.o", "key.e", "space", "key.i", "enter", "space"] { d.activate("note-editor.keyboard." + id) }
        // A space after a space (or a new line) finishes no word.
        #expect(learned.withLock { $0 } == ["|zoe", "zoe |i"])
        // Leaving the editor finishes the last word.
        for id in ["key.x", "key.y"] { d.activate("note-editor.keyboard." + id) }
        d.activate("note-editor.done")
        #expect(learned.withLock { $0 }.last == "zoe i\n |xy")

        learned.withLock { $0 = [] }
        var m = Driver(p, screen: "conversation", learn: learn)
        for id in ["key.h", "key.i", "space", "key.y", "key.o"] { m.activate("conversation.keyboard." + id) }
        m.activate("conversation.send")
        #expect(learned.withLock { $0 } == ["|hi", "hi |yo"])
    }

    @Test func textFieldCaretFollowsTheGaze() {
        var d = Driver(.gesture, screen: "note-editor")
        d.type("hello world")
        let field = d.target("note-editor.text").rect
        d.activate("note-editor.text", at: CellPoint(x: field.x + 2 + 5, y: field.y + 1))
        d.type(",")
        #expect(d.text.contains("hello, world"))
        #expect(d.state.hitMap.target(id: "note-editor.text") != nil)
    }

    @Test func textModelWrapsAndDeletes() {
        var m = TextFieldModel("one two three")
        #expect(m.lines(width: 8).map(\.text) == ["one two ", "three"])
        #expect(m.caretPosition(width: 8) == (1, 5))
        m.deleteWord()
        #expect(m.text == "one two ")
        m.insert("x\ny")
        #expect(m.lines(width: 20).map(\.text) == ["one two x", "y"])
        m.moveCaret(to: 0); m.backspace()
        #expect(m.text == "one two x\ny")
    }

    @Test func holdToConfirmCountsDownAndResetsWhenTheSmileStops() {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "shopping list"))
        var d = Driver(.gesture, screen: "notes", data: data)
        d.activate("notes.note.1")
        #expect(d.screen == "note-editor")
        d.activate("note-editor.delete")
        #expect(d.text.contains("Smile 2 s to delete note"))
        d.progress([GestureProgress(name: "confirm", progress: 0.5)])
        #expect(d.text.contains("Smile 1 s to delete note"))
        d.progress([])
        #expect(d.text.contains("Smile 2 s to delete note"), "the countdown resets when the smile stops")
        // A second jaw opening is not a confirmation in a keymap that has a confirm gesture.
        d.activate("note-editor.delete")
        #expect(d.data.note(id: 1) != nil)
        d.gesture("confirm", gazeAt: d.target("note-editor.delete").rect.center)
        #expect(d.data.note(id: 1) == nil)
        #expect(d.screen == "notes")
        #expect(d.text.contains("No notes yet"))
    }

    @Test(arguments: [InputPath.dwell, .keyboard]) func holdToConfirmWithoutAConfirmGesture(_ p: InputPath) {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "draft"))
        var d = Driver(p, screen: "notes", data: data)
        d.activate("notes.note.1")
        d.activate("note-editor.delete")
        #expect(d.data.note(id: 1) != nil, "arming alone deletes nothing")
        d.activate("note-editor.delete.cancel")
        d.activate("note-editor.delete")
        if p == .dwell { d.activate("note-editor.delete") } else { d.key(.char("y")) }
        #expect(d.data.note(id: 1) == nil)
        #expect(d.screen == "notes")
    }

    @Test func holdToConfirmLapses() {
        var d = Driver(.gesture, screen: "note-editor")
        d.activate("note-editor.delete")
        #expect(d.state.hitMap.target(id: "note-editor.delete.cancel") != nil)
        _ = d.tick(13)
        #expect(d.state.hitMap.target(id: "note-editor.delete.cancel") == nil)
    }
}

extension Slider {
    /// The track of the jaw slider laid out in `rect`, inside its border.
    static func layoutTrack(_ trackTarget: Rect) -> Rect { trackTarget.inset(dx: 1, dy: 0) }
}
