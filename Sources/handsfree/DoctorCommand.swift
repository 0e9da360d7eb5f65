#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Localization
import Prediction
import Runtime
import Shell
import Speech
import TrackingCore
import Transport

/// `handsfree doctor`: what this installation found (data, keymaps, speech, microphone, folders, ports) and
/// how to fix what is missing, for a user or helper setting the shell up.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: tr("Check the installation: data files, speech model, microphone, voices and Python parts, the user's folders, tracker ports, desktop typing."),
        discussion: tr("""
        Prints one line per check ("ok", "warn" or "FAIL"); every problem is followed by a "fix:" line.
        Exits 0 when everything the shell needs is there (a missing microphone, speech model or busy port is \
        a warning: the shell runs without them), 1 otherwise.
        """))

    @Option(help: ArgumentHelp(tr("ALSA capture device to try."))) var mic = "default"
    @Option(help: ArgumentHelp(tr("ALSA playback device to try (where the shell speaks)."))) var speaker = "default"
    @Option(help: ArgumentHelp(tr("Tracker address to test for listening (repeatable; default: the tracker setup chose, else udp://127.0.0.1:11111).")))
    var listen: [String] = []
    @Option(help: ArgumentHelp(tr("The user's data folder, as for run (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?

    func run() throws {
        var report = DoctorReport()
        checkData(&report)
        checkSettings(&report)
        checkLanguages(&report)
        checkSpeech(&report)
        checkPython(&report)
        checkFolders(&report)
        let tracker = checkTracker(&report)
        checkPorts(&report, tracker: tracker)
        Self.checkDesktop(&report, environment: ProcessInfo.processInfo.environment)
        Self.checkControls(&report, Self.probeControls(environment: ProcessInfo.processInfo.environment))
        for line in report.lines { print(line) }
        print(report.failures == 0
              ? trn("doctor: everything the shell needs is there ({n} warning)", "doctor: everything the shell needs is there ({n} warnings)",
                    report.warnings)
              : trn("doctor: {n} problem to fix before the shell can run", "doctor: {n} problems to fix before the shell can run",
                    report.failures))
        if report.failures > 0 { throw ExitCode(1) }
    }

    private func checkData(_ r: inout DoctorReport) {
        guard let found = ProjectPaths.found else {
            r.fail(tr("data: no folder with keymaps/ and config/ found (looked in $HANDSFREE_HOME, <exe>/../share/handsfree, $XDG_DATA_DIRS/handsfree, the source tree and the current directory)"),
                   fix: tr("install with scripts/install.sh, or set HANDSFREE_HOME to the folder holding keymaps/ and config/"))
            return
        }
        r.ok(tr("data: {folder} (found by {rule})", ["folder": found.url.path, "rule": found.rule.shown]))

        let keymaps = UserSettings.keymapNames
        let settings: PipelineSettingsResult
        do { settings = .ok(try Setup.settings(config: nil)) } catch { settings = .failed(SetupError.message(of: error).shown) }
        switch settings {
        case .ok(let s):
            let file = ProjectPaths.dir("config").appendingPathComponent("gestures.toml").path
            if FileManager.default.fileExists(atPath: file) {
                r.ok(trn("config: {file} parses ({n} gesture)", "config: {file} parses ({n} gestures)", s.gestures.count, ["file": file]))
            } else {
                r.warn(tr("config: {file} missing; the built-in gestures are used", ["file": file]),
                       fix: tr("reinstall (scripts/install.sh) to get config/gestures.toml back"))
            }
            do {
                _ = try Setup.keymap("default", gestures: s.gestures)
                r.ok(tr("keymaps: {names} (default.toml parses)", ["names": keymaps.joined(separator: ", ")]))
            } catch {
                r.fail(tr("keymaps: {problem}", ["problem": SetupError.message(of: error).shown]), fix: tr("reinstall (scripts/install.sh), or check the file with: handsfree check FILE"))
            }
        case .failed(let message):
            r.fail(tr("config: {problem}", ["problem": message]), fix: tr("correct the line named, or reinstall (scripts/install.sh)"))
        }

        let lists: [(URL, Bool)] = [(WordLists.words, true), (WordLists.ngrams, false), (WordLists.nouns, false), (WordLists.held, false)]
        var present: [String] = []
        for (url, essential) in lists {
            if FileManager.default.isReadableFile(atPath: url.path) {
                present.append(url.lastPathComponent)
            } else if essential {
                r.fail(tr("word lists: {file} missing: no word suggestions", ["file": url.path]), fix: tr("reinstall (scripts/install.sh)"))
            } else {
                r.warn(tr("word lists: {file} missing: weaker suggestions", ["file": url.path]), fix: tr("reinstall (scripts/install.sh)"))
            }
        }
        if !present.isEmpty { r.ok(tr("word lists: {files} in {folder}", ["files": present.joined(separator: ", "), "folder": WordLists.folder.path])) }
        if present.contains(WordLists.words.lastPathComponent) {
            checkCompiledLists(&r)
            if let model = WordLists.languageModel {
                r.ok(tr("trigram model for phrases and next words: {file}", ["file": model.path]))
            } else {
                r.warn(tr("trigram model for phrases and next words: {file} is missing; the shipped n-grams are used alone",
                          ["file": WordLists.debianModel.path]),
                       fix: tr("apt-get install pocketsphinx-en-us, then handsfree words compile"))
            }
        }
        checkLanguagePacks(&r)
    }

    /// The user's settings file: each value the shell cannot use, by file and line, as a start would show it.
    private func checkSettings(_ r: inout DoctorReport) {
        let file = UserPaths.current(dataDir: dataDir).settings
        guard UserSettings.exists(file) else { return }
        let problems = UserSettings.read(base: ShellSettings(), from: file).1
        guard !problems.isEmpty else { return r.ok(tr("settings: {file} reads", ["file": file.path])) }
        for p in problems {
            r.warn(tr("settings: {problem}", ["problem": p.shown]),
                   fix: tr("correct the line named (on the Settings screen or in the file); until then a start uses the last settings you acted with, if there are any"))
        }
    }

    /// What each installed language pack (`languages/LL/pack.toml`) lacks for prediction; the packs themselves
    /// are named on the one "languages:" line (`checkLanguages`).
    private func checkLanguagePacks(_ r: inout DoctorReport) {
        let (packs, problems) = LanguagePacks.installed()
        for p in problems { r.warn(tr("language pack: {problem}", ["problem": p.shown]), fix: tr("mend the file, or reinstall (scripts/install.sh)")) }
        for pack in packs {
            for lack in pack.missing {
                r.warn(tr("language pack {code}: {problem}", ["code": pack.code, "problem": lack.shown]), fix: tr("reinstall (scripts/install.sh)"))
            }
        }
    }

    /// Whether a start finds the word lists compiled (beside them, as installed, or in the user's cache), so
    /// that suggestions come at once rather than about a second after the first start.
    private func checkCompiledLists(_ r: inout DoctorReport) {
        let state = WordLists.compiledState(of:)
        let installed = WordLists.compiled, cached = UserPaths.current(dataDir: dataDir).wordCache
        let fix = tr("handsfree words compile (or start the shell once: it builds them into {file})", ["file": cached.path])
        switch (state(installed), state(cached)) {
        case (.upToDate, _):
            r.ok(tr("compiled word lists: {file}, up to date: suggestions from the first start", ["file": installed.path]))
        case (_, .upToDate):
            r.ok(tr("compiled word lists: {file} (built at a start), up to date", ["file": cached.path]))
        case (let i, let c):
            let seen = [(installed, i), (cached, c)].compactMap { file, state -> String? in
                switch state {
                case .missing, .upToDate: nil
                case .otherLists: tr("{file} is of other lists", ["file": file.path])
                case .damaged(let why): tr("{file} is damaged ({reason})", ["file": file.path, "reason": why.shown])
                }
            }
            r.warn(seen.isEmpty ? tr("compiled word lists: none: the next start shows suggestions about a second later")
                                : tr("compiled word lists: {problems}: the next start shows suggestions about a second later",
                                     ["problems": seen.joined(separator: ", ")]), fix: fix)
        }
    }

    private func checkSpeech(_ r: inout DoctorReport) {
        let model = RecognizerConfiguration()
        do {
            try model.validate()
            r.ok(tr("speech model: {folder}", ["folder": RecognizerConfiguration.debianModelDirectory]))
        } catch {
            r.warn(tr("speech model: {problem}", ["problem": error.description]),
                   fix: tr("apt-get install {package} (the shell runs without speech meanwhile)", ["package": RecognizerError.modelPackage]))
        }
        do {
            let capture = try ALSACapture(device: mic)
            capture.stop()
            r.ok(tr("microphone: \"{device}\" opens for capture at 16 kHz mono", ["device": mic]))
        } catch {
            r.warn(tr("no microphone: {problem}", ["problem": error.message.shown]),
                   fix: tr("plug in a microphone, pick another with --mic NAME (arecord -l lists them), or dictate from a file with: handsfree run --audio FILE.wav"))
        }
    }

    private func checkFolders(_ r: inout DoctorReport) {
        let paths = UserPaths.current(dataDir: dataDir)
        // Each folder's lines whole, one message each, so that a language words them its own way.
        typealias Line = ([String: String]) -> String
        let folders: [(URL, String, ok: Line, new: Line, bad: Line)] = [
            (paths.data, tr("{first} or {second}", ["first": "--data-dir", "second": "HANDSFREE_DATA_DIR"]), { tr("data folder: {folder} (writable)", $0) },
             { tr("data folder: {folder} (not there yet; will be created)", $0) }, { tr("data folder: {folder} is not writable ({reason})", $0) }),
            (paths.config, tr("{first} or {second}", ["first": "HANDSFREE_CONFIG_DIR", "second": "XDG_CONFIG_HOME"]), { tr("config folder: {folder} (writable)", $0) },
             { tr("config folder: {folder} (not there yet; will be created)", $0) }, { tr("config folder: {folder} is not writable ({reason})", $0) }),
            (paths.state, "XDG_STATE_HOME", { tr("state folder: {folder} (writable)", $0) },
             { tr("state folder: {folder} (not there yet; will be created)", $0) }, { tr("state folder: {folder} is not writable ({reason})", $0) }),
        ]
        for (url, how, okLine, newLine, badLine) in folders {
            switch Self.writability(url.path) {
            case .none:
                let exists = FileManager.default.fileExists(atPath: url.path)
                r.ok((exists ? okLine : newLine)(["folder": url.path]))
            case .some(let reason):
                r.fail(badLine(["folder": url.path, "reason": reason]),
                       fix: tr("make it writable, or choose another with {how}", ["how": how]))
            }
        }
    }

    private func checkPorts(_ r: inout DoctorReport, tracker: TrackerChoice?) {
        // The tracker's own address when none is named; a webcam's port is any free one, so nothing to test.
        var addresses = listen
        if addresses.isEmpty {
            if let (host, port) = tracker?.address {
                if port != 0 { addresses = ["udp://\(host):\(port)"] }
            } else {
                addresses = ["udp://127.0.0.1:11111"]
            }
        }
        for text in addresses {
            let address: ListenAddress
            do { address = try ListenAddress(parsing: text) } catch {
                r.fail(tr("tracker port: {problem}", ["problem": error.description]), fix: tr("give --listen as udp://127.0.0.1:PORT or tcp://127.0.0.1:PORT"))
                continue
            }
            switch Self.tryBind(address) {
            case .none:
                r.ok(tr("tracker port {address}: free", ["address": "\(address)"]))
            case .some(EADDRINUSE):
                r.warn(tr("tracker port {address}: in use by another program", ["address": "\(address)"]),
                       fix: tr("close the other program (ss -lunp shows it), or listen on another port: handsfree run --listen {protocol}://127.0.0.1:PORT",
                               ["protocol": address.proto.rawValue]))
            case .some(let e):
                r.warn(tr("tracker port {address}: cannot listen ({reason})", ["address": "\(address)", "reason": systemError(e)]),
                       fix: tr("listen on another address: handsfree run --listen udp://127.0.0.1:PORT"))
            }
        }
    }

    /// The desktop sinks: /dev/uinput, the X display (XTest) and the Wayland compositor (its virtual keyboard).
    /// Only uinput is looked for outside a session; a display that is named but fails is a warning, since
    /// the shell runs without typing into the desktop.
    static func checkDesktop(_ r: inout DoctorReport, environment: [String: String], uinput: String = "/dev/uinput") {
        if !FileManager.default.fileExists(atPath: uinput) {
            r.warn(tr("uinput: {device} is missing (the uinput module is not loaded): --output uinput cannot work", ["device": uinput]),
                   fix: tr("sudo modprobe uinput, and scripts/install.sh --uinput to load it at boot and let you open it; or type into the desktop with --output wayland or x11 instead"))
        } else if access(uinput, W_OK) != 0 {
            r.warn(tr("uinput: {device} is not writable for you ({reason}): --output uinput cannot work", ["device": uinput, "reason": systemError(errno)]),
                   fix: tr("scripts/install.sh --uinput (a udev rule that lets the logged-in user open it; log in again after); or type into the desktop with --output wayland or x11 instead"))
        } else {
            r.ok(tr("uinput: {device} is writable (--output uinput)", ["device": uinput]))
        }
        if let display = environment["DISPLAY"], !display.isEmpty {
            do {
                try X11Sink(display: nil, environment: environment).check()
                r.ok(tr("X11: DISPLAY={display} answers and offers XTest (--output x11)", ["display": display]))
            } catch {
                r.warn(tr("X11: {problem}", ["problem": error.message.shown]), fix: tr("start the X session, or correct DISPLAY; the X server needs the XTEST extension"))
            }
        } else {
            r.ok(tr("X11: no DISPLAY (not in an X session; --output x11::0 names one)"))
        }
        if let socket = environment["WAYLAND_DISPLAY"], !socket.isEmpty {
            do {
                try WaylandSink(socket: nil, environment: environment).check()
                r.ok(tr("Wayland: {display} offers a virtual keyboard (--output wayland)", ["display": socket]))
            } catch {
                r.warn(tr("Wayland: {problem}", ["problem": error.message.shown]),
                       fix: tr("on GNOME or KDE, which offer no virtual keyboard, use --output uinput (scripts/install.sh --uinput); x11 through Xwayland would reach only X programs"))
            }
        } else {
            r.ok(tr("Wayland: no WAYLAND_DISPLAY (not in a Wayland session)"))
        }
    }

    /// What the Controls view's checks found: the bus's problem (nil: it answers), GNOME's
    /// toolkit-accessibility setting (nil: not GNOME), Qt's variable, and the applications showing empty trees.
    struct ControlsProbe {
        var bus: UIMessage?
        var gnomeAccessibility: String?
        var qtAlwaysOn: String?
        var empty: [(name: String, toolkit: String)] = []
    }

    /// Looks at the accessibility bus, GNOME's setting (through gsettings, when its schema is installed) and Qt.
    static func probeControls(environment: [String: String]) -> ControlsProbe {
        var probe = ControlsProbe(bus: AccessibilityClient.probe(), qtAlwaysOn: environment["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"])
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gsettings") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/gsettings")
            p.arguments = ["get", "org.gnome.desktop.interface", "toolkit-accessibility"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            if (try? p.run()) != nil {
                let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                if p.terminationStatus == 0 { probe.gnomeAccessibility = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
        }
        if probe.bus == nil { probe.empty = AccessibilityClient().emptyApplications() }
        return probe
    }

    /// The Controls view's lines: the accessibility bus, GNOME's and Qt's switches, and programs whose tree is
    /// empty (Chromium and Electron without --force-renderer-accessibility). All are warnings: the shell and
    /// pointer mode work without them.
    static func checkControls(_ r: inout DoctorReport, _ probe: ControlsProbe) {
        if let problem = probe.bus {
            r.warn(tr("Accessibility bus: {problem}: the Controls view cannot list windows' buttons (pointer mode still works)", ["problem": problem.shown]),
                   fix: tr("install at-spi2-core (scripts/install-deps.sh) and run the shell inside your desktop session, whose D-Bus starts the bus"))
        } else {
            r.ok(tr("Accessibility bus: answers (the Controls view lists windows' buttons, links and fields)"))
        }
        switch probe.gnomeAccessibility {
        case nil: r.ok(tr("GNOME accessibility: no GNOME settings here (nothing to switch on)"))
        case "true": r.ok(tr("GNOME accessibility: toolkit-accessibility is on"))
        case let value?:
            r.warn(tr("GNOME accessibility: toolkit-accessibility is {value}: some programs then show no controls", ["value": value]),
                   fix: tr("gsettings set org.gnome.desktop.interface toolkit-accessibility true"))
        }
        if probe.qtAlwaysOn == "1" {
            r.ok(tr("Qt accessibility: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (Qt programs show their controls)"))
        } else {
            r.warn(tr("Qt accessibility: QT_LINUX_ACCESSIBILITY_ALWAYS_ON is not 1: Qt programs (KDE's, VLC, …) may show no controls"),
                   fix: tr("add export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 to ~/.profile and log in again"))
        }
        for app in probe.empty {
            let name = app.name.isEmpty ? tr("A program") : app.name
            if app.toolkit.lowercased().contains("chrom") || app.toolkit.lowercased().contains("electron") {
                r.warn(tr("{program} ({toolkit}) shows an empty tree: the Controls view lists nothing in it", ["program": name, "toolkit": app.toolkit]),
                       fix: tr("start it with --force-renderer-accessibility (Chromium, Chrome, Electron programs such as VS Code)"))
            } else {
                r.warn(tr("{program} shows an empty tree: the Controls view lists nothing in it", ["program": name]),
                       fix: tr("use pointer mode for it; a Chromium or Electron program needs --force-renderer-accessibility"))
            }
        }
    }

    /// Nil when a file can be made in `path` (it exists as a writable folder, or its nearest existing parent
    /// is one, so it can be created); otherwise the reason. Nothing is created.
    static func writability(_ path: String) -> String? {
        var p = path
        while !p.isEmpty {
            var st = stat()
            if stat(p, &st) == 0 {
                if (st.st_mode & S_IFMT) != S_IFDIR { return tr("{path} is not a folder", ["path": p]) }
                return access(p, W_OK) == 0 ? nil : "\(p): \(systemError(errno))"
            }
            if errno != ENOENT { return "\(p): \(systemError(errno))" }
            p = (p as NSString).deletingLastPathComponent
            if p == "/" || p == "." { break }
        }
        return access(p.isEmpty ? "." : p, W_OK) == 0 ? nil : "\(p): \(systemError(errno))"
    }

    /// Binds `address` without SO_REUSEADDR (so a socket another program holds is found) and closes it;
    /// nil when that worked, else errno.
    static func tryBind(_ address: ListenAddress) -> Int32? {
        let v6 = address.host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, address.proto == .udp ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var rc: Int32
        if v6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = address.port.bigEndian
            guard inet_pton(AF_INET6, address.host, &sa.sin6_addr) == 1 else { return EINVAL }
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = address.port.bigEndian
            guard inet_pton(AF_INET, address.host, &sa.sin_addr) == 1 else { return EINVAL }
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        if rc == 0, address.proto == .tcp { rc = Glibc.listen(fd, 1) }
        return rc == 0 ? nil : errno
    }
}

/// The gesture config as loaded, or why not.
private enum PipelineSettingsResult {
    case ok(PipelineSettings)
    case failed(String)
}

/// The doctor's lines and counts: a failure stops the shell from running, a warning only disables a part.
struct DoctorReport {
    private(set) var lines: [String] = []
    private(set) var failures = 0
    private(set) var warnings = 0

    mutating func ok(_ text: String) { lines.append("ok    " + text) }
    mutating func warn(_ text: String, fix: String) {
        warnings += 1
        lines.append("warn  " + text)
        lines.append("      fix: " + fix)
    }
    mutating func fail(_ text: String, fix: String) {
        failures += 1
        lines.append("FAIL  " + text)
        lines.append("      fix: " + fix)
    }
}
