import Config
import Shell
import Testing
import TrackingCore

/// App screens in states the registry's goldens do not show, at 100×30.
@Suite struct AppGoldenTests {
    @Test func settingsTabs() throws {
        for tab in ["pointer", "display", "access", "keymap"] {
            var d = Driver(.gesture, screen: "settings")
            d.activate("settings.tab." + tab)
            try GoldenTests().check("settings-" + tab, render(d.state, size: d.state.size).0)
        }
    }

    @Test func editorWithTextAndArmedDelete() throws {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Call the pharmacy about the refill.\nAsk Ben about Saturday"))
        var d = Driver(.gesture, screen: "notes", data: data)
        try GoldenTests().check("notes-with-note", render(d.state, size: d.state.size).0)
        d.activate("notes.note.1")
        d.activate("note-editor.delete")
        d.progress([GestureProgress(name: "confirm", progress: 0.25)])
        try GoldenTests().check("note-editor-confirm", render(d.state, size: d.state.size).0)
    }

    @Test func conversationAfterAReply() throws {
        var d = Driver(.keyboard, screen: "messages")
        d.activate("messages.contact.mum")
        d.type("on my way")
        d.activate("conversation.send")
        _ = d.tick(3)
        try GoldenTests().check("conversation-reply", render(d.state, size: d.state.size).0)
    }

    @Test func mediaPlaying() throws {
        var d = Driver(.gesture, screen: "media")
        d.gesture("wink_right", gazeAt: d.target("media.albums").rect.center)
        d.activate("media.track.1")
        _ = d.tick(0)
        _ = d.tick(61)
        try GoldenTests().check("media-playing", render(d.state, size: d.state.size).0)
    }

    /// Dwell under way in the dwell keymap on a note in the list, a letter key and a launcher tile: the fill
    /// runs along the target's bottom border, and the label it sits on stays whole.
    @Test(arguments: [("notes", "notes.note.1", "Call the pharmacy"), ("note-editor", "note-editor.keyboard.key.g", "g"),
                      ("launcher", "launcher.notes", "write and dictate")])
    func dwellInProgress(_ screen: String, _ id: String, _ label: String) throws {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Call the pharmacy about the refill."))
        var d = Driver(.dwell, screen: screen, data: data)
        d.armWithAStillFace()
        let t = d.target(id)
        _ = d.send(.frame(TrackingSample(t: d.t + 0.5, gaze: d.gaze(t.rect.center),
                                         progress: [GestureProgress(name: "dwell", progress: 0.6)],
                                         dwellTarget: id, target: id)))
        let grid = render(d.state, size: d.state.size).0
        let edge = grid.lines[t.rect.maxY - 1]
        let fill = String(edge.dropFirst(t.rect.x + 1).prefix(t.rect.w - 2))
        #expect(fill.hasPrefix(String(repeating: "█", count: (t.rect.w - 2) * 6 / 10)), "\(edge)")
        let inside = grid.lines[t.rect.y + 1 ..< t.rect.maxY - 1].joined(separator: "\n")
        #expect(inside.contains(label), "the label under the dwell is whole:\n\(inside)")
        #expect(!inside.contains("█"), "nothing drawn over the label:\n\(inside)")
        try GoldenTests().check("dwell-fill-" + screen, grid)
    }

    /// The default keymap binds no dwell: resting the gaze does nothing, so nothing fills.
    @Test func noDwellFillWhereDwellDoesNothing() {
        var data = AppData.firstStart
        data.apply(.setNote(id: 1, text: "Call the pharmacy about the refill."))
        var d = Driver(.gesture, screen: "notes", data: data)
        d.armWithAStillFace()
        let t = d.target("notes.note.1")
        _ = d.send(.frame(TrackingSample(t: d.t + 0.5, gaze: d.gaze(t.rect.center),
                                         progress: [GestureProgress(name: "dwell", progress: 0.6)],
                                         dwellTarget: t.id, target: t.id)))
        let grid = render(d.state, size: d.state.size).0
        let row = grid.lines[t.rect.y ..< t.rect.maxY].map { String($0.dropFirst(t.rect.x).prefix(t.rect.w)) }
        #expect(!row.joined().contains("█") && !grid.text.contains("│ dwell"), "\(grid.text)")
        #expect(row[1].contains("Call the pharmacy about the refill."))
    }

    @Test(arguments: ["note-editor", "conversation", "settings", "media", "messages"])
    func dwellKeymapApps(_ name: String) throws {
        let d = Driver(.dwell, screen: name)
        try GoldenTests().check("dwell-" + name, render(d.state, size: d.state.size).0)
    }

    @Test(arguments: ["note-editor", "media"]) func appHelp(_ app: String) throws {
        var d = Driver(.gesture, screen: app)
        _ = d.session.send(.speech("help", isFinal: true))
        try GoldenTests().check("help-" + app, render(d.state, size: d.state.size).0)
    }
}
