import Testing
@testable import Shell

/// The pure half of the Controls view: names from other programs cleaned, compared and matched.
@Suite struct DesktopControlsTests {
    @Test func escapeSequencesAndControlCharactersNeverSurviveCleaning() {
        #expect(ControlNames.clean("Red\u{1B}[31m alert\u{1B}]0;owned\u{07} now") == "Red alert now")
        #expect(ControlNames.clean("a\u{1B}Pdcs\u{1B}\\b\u{9B}2Jc\u{07}d\u{7F}e\u{85}f") == "abcde f")
        #expect(ControlNames.clean("tab\there\nnew  line ") == "tab here new line")
        #expect(ControlNames.clean("\u{202E}evil\u{200F}") == "evil")
        #expect(ControlNames.clean("\u{1B}") == "")
    }

    @Test func plainNamesPassAsTheyAreAndNearlyPlainOnesAreStillCleaned() {
        #expect(ControlNames.clean("Button 12") == "Button 12")
        #expect(ControlNames.clean(" Send") == "Send")
        #expect(ControlNames.clean("Send ") == "Send")
        #expect(ControlNames.clean("Se  nd") == "Se nd")
        #expect(ControlNames.clean("Send\u{7F}") == "Send")
        #expect(ControlNames.clean("") == "")
        let longest = String(repeating: "L", count: ControlsLimits.nameLength)
        #expect(ControlNames.clean(longest) == longest)
        #expect(ControlNames.clean(longest + "L") == String(repeating: "L", count: ControlsLimits.nameLength - 1) + "…")
    }

    @Test func aLongNameIsCutWithAnEllipsis() {
        let cut = ControlNames.clean(String(repeating: "L", count: 10_000))
        #expect(cut.count == ControlsLimits.nameLength)
        #expect(cut.hasSuffix("L…"))
    }

    @Test func namesCompareWithoutAcceleratorsEllipsesCaseOrEdgePunctuation() {
        #expect(ControlNames.normalise("_Save As…") == "save as")
        #expect(ControlNames.normalise("Open...") == "open")
        #expect(ControlNames.normalise("  Remember   ME! ") == "remember me")
    }

    static let reading = ControlsSnapshot(generation: 3, application: "zenity", window: "Question", controls: [
        DesktopControl(index: 0, role: .button, roleName: "push button", name: "OK"),
        DesktopControl(index: 1, role: .button, roleName: "push button", name: "_Send…"),
        DesktopControl(index: 2, role: .checkBox, roleName: "check box", name: "Remember me"),
        DesktopControl(index: 3, role: .button, roleName: "push button", name: "OK"),
        DesktopControl(index: 4, role: .button, roleName: "push button", name: ""),
        DesktopControl(index: 5, role: .link, roleName: "link", name: "Read the manual"),
    ])

    @Test func aNameANumberOrWordsInOrderPickOneControl() {
        let r = Self.reading
        #expect(r.match("send") == .one(r.controls[1]))
        #expect(r.match("Remember me") == .one(r.controls[2]))
        #expect(r.match("3") == .one(r.controls[2]))
        #expect(r.match("manual") == .one(r.controls[5]))
        #expect(r.match("button 4") == .one(r.controls[4]), "an unnamed control goes by its role and place among its role")
        #expect(r.label(r.controls[4]) == "button 4")
    }

    @Test func duplicatesNothingAndOutOfRangeNumbersPickNone() {
        let r = Self.reading
        #expect(r.match("ok") == .several([r.controls[0], r.controls[3]]))
        #expect(r.match("Cancel") == .none)
        #expect(r.match("0") == .none)
        #expect(r.match("7") == .none)
        #expect(r.match("  ") == .none)
    }

    @Test func aTargetCarriesItsReadingAndWhatItWas() {
        let t = ControlTarget(generation: 3, control: Self.reading.controls[1])
        #expect(t.generation == 3 && t.index == 1 && t.name == "_Send…" && t.role == .button)
    }
}
