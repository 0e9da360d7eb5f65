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
