@testable import handsfree
import Runtime
import Testing

/// `handsfree doctor`'s Controls lines: the accessibility bus, GNOME's and Qt's switches and empty trees,
/// each problem with its fix in the doctor's format.
@Suite struct DoctorControlsTests {
    static func lines(_ probe: DoctorCommand.ControlsProbe) -> [String] {
        var report = DoctorReport()
        DoctorCommand.checkControls(&report, probe)
        return report.lines
    }

    @Test func everythingOnIsOk() {
        #expect(Self.lines(.init(bus: nil, gnomeAccessibility: "true", qtAlwaysOn: "1")) == [
            "ok    Accessibility bus: answers (the Controls view lists windows' buttons, links and fields)",
            "ok    GNOME accessibility: toolkit-accessibility is on",
            "ok    Qt accessibility: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (Qt programs show their controls)",
        ])
    }

    @Test func eachProblemSaysWhatItCostsAndHowToFixIt() {
        let lines = Self.lines(.init(bus: AccessibilityClient.busProblem(status: 3, said: ""),
                                     gnomeAccessibility: "false", qtAlwaysOn: nil,
                                     empty: [(name: "Chromium", toolkit: "Chromium"), (name: "", toolkit: "")]))
        #expect(lines == [
            "warn  Accessibility bus: the accessibility bus is not running (org.a11y.Bus gives no address): the Controls view cannot list windows' buttons (pointer mode still works)",
            "      fix: install at-spi2-core (scripts/install-deps.sh) and run the shell inside your desktop session, whose D-Bus starts the bus",
            "warn  GNOME accessibility: toolkit-accessibility is false: some programs then show no controls",
            "      fix: gsettings set org.gnome.desktop.interface toolkit-accessibility true",
            "warn  Qt accessibility: QT_LINUX_ACCESSIBILITY_ALWAYS_ON is not 1: Qt programs (KDE's, VLC, …) may show no controls",
            "      fix: add export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 to ~/.profile and log in again",
            "warn  Chromium (Chromium) shows an empty tree: the Controls view lists nothing in it",
            "      fix: start it with --force-renderer-accessibility (Chromium, Chrome, Electron programs such as VS Code)",
            "warn  A program shows an empty tree: the Controls view lists nothing in it",
            "      fix: use pointer mode for it; a Chromium or Electron program needs --force-renderer-accessibility",
        ])
    }
}
