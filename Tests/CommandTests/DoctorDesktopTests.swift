#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import handsfree
import Testing

/// `handsfree doctor`'s desktop lines: uinput missing, forbidden or usable, and an X or Wayland display
/// that is named but does not answer, each with its fix in the doctor's format.
@Suite struct DoctorDesktopTests {
    static func lines(environment: [String: String], uinput: String) -> [String] {
        var report = DoctorReport()
        DoctorCommand.checkDesktop(&report, environment: environment, uinput: uinput)
        return report.lines
    }

    @Test func outsideASessionOnlyAMissingUinputIsAWarningWithItsFix() {
        let lines = Self.lines(environment: [:], uinput: "/nonexistent/uinput")
        #expect(lines == [
            "warn  uinput: /nonexistent/uinput is missing (the uinput module is not loaded): --output uinput cannot work",
            "      fix: sudo modprobe uinput, and scripts/install.sh --uinput to load it at boot and let you open it; or type into the desktop with --output wayland or x11 instead",
            "ok    X11: no DISPLAY (not in an X session; --output x11::0 names one)",
            "ok    Wayland: no WAYLAND_DISPLAY (not in a Wayland session)",
        ])
    }

    @Test func aWritableDeviceIsOkAndAForbiddenOneNamesTheUdevRule() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-uinput-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600])
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(Self.lines(environment: [:], uinput: file).first == "ok    uinput: \(file) is writable (--output uinput)")
        // Root may write any file: the forbidden case is only seen as another user.
        if getuid() != 0 {
            chmod(file, 0o400)
            let lines = Self.lines(environment: [:], uinput: file)
            #expect(lines[0].hasPrefix("warn  uinput: \(file) is not writable for you"))
            #expect(lines[1].contains("scripts/install.sh --uinput (a udev rule"))
        }
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X99"), "something serves display :99"))
    func displaysThatDoNotAnswerAreWarningsNamingThem() {
        let lines = Self.lines(environment: ["DISPLAY": ":99", "WAYLAND_DISPLAY": "/nonexistent/wayland-9"], uinput: "/nonexistent/uinput")
        #expect(lines.count == 6)
        #expect(lines[2].hasPrefix("warn  X11: cannot open X display :99"))
        #expect(lines[3] == "      fix: start the X session, or correct DISPLAY; the X server needs the XTEST extension")
        #expect(lines[4].hasPrefix("warn  Wayland: cannot connect to the Wayland display /nonexistent/wayland-9"))
        #expect(lines[5].hasPrefix("      fix: on GNOME or KDE"))
    }
}
