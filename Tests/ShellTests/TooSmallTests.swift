import Config
import Shell
import Testing
import TrackingCore

/// While the window is too small only "enlarge the window" shows, so no input may act on what is hidden.
struct TooSmallWindowTests {
    @Test func keysTypedWhileTooSmallDoNotGoIntoTheNote() {
        var d = Driver(.keyboard, screen: "note-editor")
        d.type("kept")
        _ = d.session.send(.resized(Size(width: 60, height: 20)))
        #expect(d.text.contains("The window is too small"))
        d.type("lost")
        d.key(.backspace)
        d.key(.escape)
        _ = d.session.send(.speech("hello", isFinal: true))
        _ = d.session.send(.resized(Size(width: 100, height: 30)))
        #expect(d.screen == "note-editor", "Esc while too small did not leave the editor")
        #expect(d.text.contains("kept▏"), "the note is as it was before the window shrank")
        #expect(!d.text.contains("keptlos") && !d.text.contains("kep▏"))
        d.type("!")
        #expect(d.text.contains("kept!▏"), "keys work again once the window is large enough")
    }
}
