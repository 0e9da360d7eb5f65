import Config
import Localization
import Shell
import TerminalModel
import Testing

/// The Controls view on the Desktop screen, as the pure core sees it: the list comes as `.controlsRead`,
/// acting on an entry is `Effect.performControl`, and what the runtime reports back steers what follows.
@Suite struct DesktopControlsViewTests {
    static let form = ControlsSnapshot(generation: 7, application: "controls_app.py", window: "Form", controls: [
        DesktopControl(index: 0, role: .menu, roleName: "menu", name: "File"),
        DesktopControl(index: 1, role: .textField, roleName: "text", name: "Name"),
        DesktopControl(index: 2, role: .passwordField, roleName: "password text", name: "Password"),
        DesktopControl(index: 3, role: .checkBox, roleName: "check box", name: "Remember me", states: .checked),
        DesktopControl(index: 4, role: .button, roleName: "push button", name: "Submit"),
        DesktopControl(index: 5, role: .button, roleName: "push button", name: "Send"),
    ])

    static func performed(_ effects: [Effect]) -> [ControlTarget] {
        effects.compactMap { if case .performControl(let t) = $0 { return t } else { return nil } }
    }
    static func reads(_ effects: [Effect]) -> [Bool] {
        effects.compactMap { if case .readControls(let follow) = $0 { return follow } else { return nil } }
    }

    func shown() -> Driver {
        var d = Driver(.gesture, screen: "desktop")
        _ = d.send(.tick(at: 0.5))
        #expect(Self.reads(d.activate("desktop.controls")) == [true], "the list is read and followed")
        _ = d.send(.controlsRead(Self.form))
        return d
    }

    @Test func theListIsGroupedByRoleNumberedAndShowsStates() {
        let d = shown()
        let text = d.text
        #expect(text.contains("Controls of controls_app.py: Form"))
        for line in ["Menus", "Text fields", "Password fields", "Check boxes", "Buttons", "1  File", "2  Name",
                     "4  ☑ Remember me", "5  Submit", "6  Send"] {
            #expect(text.contains(line), "missing \(line):\n\(text)")
        }
        #expect(d.target("desktop.control.5").label == "Send", "an entry's target goes by the control's name")
    }

    @Test func activatingAButtonPerformsItAndTheListStays() {
        var d = shown()
        let targets = Self.performed(d.activate("desktop.control.5"))
        #expect(targets == [ControlTarget(generation: 7, control: Self.form.controls[5])])
        #expect(d.text.contains("Controls of"), "the list stays for the next action")
    }

    @Test func aPasswordFieldIsFocusedAndTheComposerTurnsPrivate() {
        var d = shown()
        let effects = d.activate("desktop.control.2")
        #expect(Self.performed(effects).map(\.name) == ["Password"])
        #expect(Self.reads(effects) == [false], "the window is no longer followed")
        #expect(d.text.contains("Desktop · private"), "\(d.text)")
        _ = d.send(.controlPerformed(.focused(name: "Password")))
        #expect(d.text.contains("Typing into Password"))
    }

    @Test func typedLettersFilterTheList() {
        var d = shown()
        d.type("se")
        #expect(d.text.contains("6  Send") && !d.text.contains("5  Submit") && !d.text.contains("1  File"), "\(d.text)")
        _ = d.send(.key(.backspace))
        #expect(d.text.contains("5  Submit") && d.text.contains("6  Send"))
        d.type("ub")
        #expect(d.text.contains("5  Submit") && !d.text.contains("6  Send"), "\(d.text)")
    }

    @Test func spokenCommandsNameAControlOrItsNumber() {
        var d = shown()
        let phrases = d.session.state.voicePhrases
        for p in ["click Send", "press Submit", "check Remember me", "open File", "focus Name", "click 6"] {
            #expect(phrases.contains(p), "missing \(p)")
        }
        #expect(Self.performed(d.send(.speech("click send", isFinal: true))).map(\.name) == ["Send"])
        #expect(Self.performed(d.send(.speech("press 4", isFinal: true))).map(\.name) == ["Remember me"])
    }

    @Test func spokenLettersFilterTheListAndANameOrANumberAloneActs() {
        var d = shown()
        let phrases = d.session.state.voicePhrases
        for p in ["a", "s", "z", "alpha", "sierra", "x-ray", "zulu", "clear letters", "Send", "6"] {
            #expect(phrases.contains(p), "missing \(p)")
        }
        // A letter by its spelling-alphabet word or its own name: the list narrows, nothing is pressed.
        #expect(Self.performed(d.send(.speech("sierra", isFinal: true))).isEmpty)
        #expect(d.text.contains("5  Submit") && d.text.contains("6  Send") && !d.text.contains("1  File"), "\(d.text)")
        #expect(Self.performed(d.send(.speech("e", isFinal: true))).isEmpty)
        #expect(d.text.contains("6  Send") && !d.text.contains("5  Submit"), "\(d.text)")
        // "delete letter" (the keymap's Backspace) takes a letter off the filter instead of typing into the window.
        let deleted = d.send(.speech("delete letter", isFinal: true))
        #expect(!deleted.contains { if case .desktop = $0 { return true } else { return false } }, "\(deleted)")
        #expect(d.text.contains("5  Submit") && d.text.contains("6  Send") && !d.text.contains("1  File"), "\(d.text)")
        _ = d.send(.speech("clear letters", isFinal: true))
        #expect(d.text.contains("1  File") && d.text.contains("5  Submit"), "\(d.text)")
        // A name or a number said alone acts on that control.
        #expect(Self.performed(d.send(.speech("send", isFinal: true))).map(\.name) == ["Send"])
        #expect(Self.performed(d.send(.speech("5", isFinal: true))).map(\.name) == ["Submit"])
        // Off the Controls view, letters are no commands.
        d.activate("desktop.controls.back")
        #expect(!d.session.state.voicePhrases.contains("bravo"))
    }

    @Test func aLetterSaidFiltersEvenWhenAControlHasItsName() {
        var d = Driver(.gesture, screen: "desktop")
        _ = d.send(.tick(at: 0.5))
        d.activate("desktop.controls")
        _ = d.send(.controlsRead(ControlsSnapshot(generation: 1, application: "app", window: "W", controls: [
            DesktopControl(index: 0, role: .button, roleName: "push button", name: "Echo"),
            DesktopControl(index: 1, role: .button, roleName: "push button", name: "Delta"),
        ])))
        #expect(Self.performed(d.send(.speech("echo", isFinal: true))).isEmpty, "a letter never acts")
        #expect(d.text.contains("1  Echo") && !d.text.contains("2  Delta"), "\(d.text)")
        #expect(Self.performed(d.send(.speech("click echo", isFinal: true))).map(\.name) == ["Echo"])
    }

    @Test func aStaleEntryIsSaidAndTheListReadAgainAndNoActionClicksWhereTheControlWas() {
        var d = shown()
        let again = d.send(.controlPerformed(.failed(reason: "\"Send\" is no longer there", stale: true)))
        #expect(Self.reads(again) == [true])
        #expect(d.text.contains("\"Send\" is no longer there"))
        let click = d.send(.controlPerformed(.pointer(x: 0.25, y: 0.5)))
        #expect(DesktopScreenTests.points(click) == [.moveTo(x: 0.25, y: 0.5), .click(.left, count: 1)])
    }

    @Test func anEmptyWindowSaysWhyAndOffersPointerMode() {
        var d = shown()
        _ = d.send(.controlsRead(ControlsSnapshot(generation: 8, application: "", window: "", controls: [],
                                                  problem: UIMessage("no window of an accessible application has the focus"))))
        #expect(d.text.contains("no window of an accessible application has the focus"))
        #expect(d.text.contains("Pointer mode clicks anything you look at"))
        d.activate("desktop.controls.pointer")
        #expect(d.text.contains("Pointer mode: the pointer goes where you look."), "\(d.text)")
    }

    @Test func pagesHoldWhatFitsAndAHeadingIsNeverLeftAlone() {
        let controls = (0..<30).map { DesktopControl(index: $0, role: $0 < 20 ? .button : .link, roleName: "", name: "c\($0)") }
        let pages = DesktopScreen.pagesForTests(controls, rows: 10, columns: 2, entryHeight: 1)
        #expect(pages.count == 2)
        for page in pages { for column in page { #expect(column.count <= 10) } }
        for page in pages {
            for column in page {
                if let last = column.last { #expect(!last.isHeading, "a heading left at the bottom of a column") }
            }
        }
    }
}
