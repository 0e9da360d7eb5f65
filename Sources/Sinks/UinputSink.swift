#if canImport(Glibc)
import Glibc
#endif
import CPty
import CUinput
import Localization
import PtyHost
import SystemIO

/// The desktop through a keyboard and pointer the kernel makes (`--type-into uinput`): below X11 and
/// Wayland, so it reaches any desktop (GNOME and KDE included, which offer no virtual keyboard), but it
/// needs write access to /dev/uinput (`scripts/install.sh --uinput`).
///
/// The desktop reads the keys with its own layout, so each character is looked up on the user's layout
/// (`XKB_DEFAULT_LAYOUT` and the other `XKB_DEFAULT_*` variables, else /etc/default/keyboard's) and sent as
/// the key and modifier keys that give it there. A character the layout has no key for is pasted: copied
/// with `wl-copy` (Wayland) or `xclip` (X11) and sent as Ctrl+V, which most programs take as paste (a
/// terminal wants Ctrl+Shift+V: there such characters arrive as a literal-next V); without either tool it
/// is an error naming the character, and nothing of the text is sent.
///
/// Two devices are made, once, and kept until the sink goes: a keyboard that is also a mouse (keys,
/// buttons, relative moves, wheels) and an absolute pointer (`moveTo`), so no input stack has to choose
/// between relative and absolute axes on one device.
public final class UinputSink: TextSink, PointerSink {
    public static let kind = OutputSinkKind(
        scheme: "uinput", argument: nil, example: "uinput",
        summary: N_("any desktop, through a virtual keyboard and pointer made with /dev/uinput (scripts/install.sh --uinput gives access)")
    ) { _, _ in UinputSink() }

    /// The uinput device file.
    public let device: String
    private let environment: [String: String]
    private var layout: XKBKeymap?
    private var keyboard: Int32 = -1
    private var tablet: Int32 = -1
    /// What relative moves left over below a pixel, carried into the next.
    private var remainder = (x: 0.0, y: 0.0)
    /// Paces the keys, and waits for the devices to be taken up.
    private let clock: any ShellClock

    public init(device: String = "/dev/uinput", environment: [String: String] = PtyProcess.currentEnvironment(),
                clock: any ShellClock = LiveClock()) {
        self.device = device
        self.environment = environment
        self.clock = clock
    }

    deinit { disconnect() }

    public var name: String { "uinput" }
    public var traits: SinkTraits { [] }

    public func check() throws(OutputSinkError) {
        _ = try loadedLayout()
        try connect()
    }

    public func start(rows: Int, cols: Int) throws(OutputSinkError) { try connect() }

    public func type(_ text: String) throws(OutputSinkError) {
        let steps = try Self.plan(text, layout: try loadedLayout(), layoutName: layoutName,
                                  canPaste: Self.clipboard(environment: environment) != nil)
        try connect()
        for step in steps {
            switch step {
            case .keys(let strokes):
                for stroke in strokes { try tap(stroke) }
            case .paste(let text):
                try paste(text)
            }
        }
    }

    public func press(_ press: TerminalKeyPress) throws(OutputSinkError) {
        let layout = try loadedLayout()
        var chord: [UInt32] = []
        if press.modifiers.contains(.ctrl) { chord.append(Self.leftCtrl) }
        if press.modifiers.contains(.shift) { chord.append(Self.leftShift) }
        if press.modifiers.contains(.alt) { chord.append(Self.leftAlt) }
        if press.modifiers.contains(.logo) { chord.append(Self.leftMeta) }
        var stroke: Stroke
        switch press.key {
        case .char(let c) where chord.isEmpty:
            return try type(String(c))
        case .char(let c):
            stroke = try Self.chordStroke(c, layout: layout)
        case .ctrl(let c):
            stroke = try Self.chordStroke(c.lowercased().first ?? c, layout: layout)
            chord.append(Self.leftCtrl)
        case .alt(let c):
            stroke = try Self.chordStroke(c, layout: layout)
            chord.append(Self.leftAlt)
        default:
            guard let code = WaylandSink.evdevCode(press.key) else {
                throw .noKey(sink: name, key: TerminalKeyPress(press.key))
            }
            stroke = Stroke(key: code, modifiers: [])
        }
        for key in chord where !stroke.modifiers.contains(key) { stroke.modifiers.append(key) }
        try connect()
        try tap(stroke)
    }

    public func point(_ event: PointerEvent) throws(OutputSinkError) {
        try connect()
        for report in Self.pointerReports(event, remainder: &remainder) {
            try write(report.events, to: report.absolute ? tablet : keyboard)
        }
    }

    // MARK: Events

    /// One input event as written to the device (the kernel stamps its time).
    struct InputEvent: Equatable {
        var type: UInt16
        var code: UInt16
        var value: Int32
    }

    /// The bytes of `events` as `struct input_event` records, followed by a SYN_REPORT.
    static func encode(_ events: [InputEvent]) -> [UInt8] {
        let raw = events.map { hf_ui_event(type: $0.type, code: $0.code, value: $0.value) }
        var bytes = [UInt8](repeating: 0, count: (raw.count + 1) * hf_ui_event_size())
        let written = bytes.withUnsafeMutableBufferPointer { out in
            hf_ui_encode(raw, raw.count, out.baseAddress, out.count)
        }
        return Array(bytes.prefix(written))
    }

    /// A key with the modifier keys held around it, all as evdev codes.
    struct Stroke: Equatable {
        var key: UInt32
        var modifiers: [UInt32]
    }

    /// The reports (each ends with a SYN_REPORT) that tap a stroke: modifiers down in order, the key down
    /// and up, the modifiers up in reverse. One change per report, as a real keyboard sends them.
    static func reports(_ stroke: Stroke) -> [[InputEvent]] {
        func key(_ code: UInt32, _ down: Bool) -> [InputEvent] {
            [InputEvent(type: UInt16(truncatingIfNeeded: HF_EV_KEY), code: UInt16(truncatingIfNeeded: code), value: down ? 1 : 0)]
        }
        return stroke.modifiers.map { key($0, true) } + [key(stroke.key, true), key(stroke.key, false)]
            + stroke.modifiers.reversed().map { key($0, false) }
    }

    /// Events for one SYN_REPORT, and whether they go to the absolute pointer (else the keyboard-and-mouse).
    typealias Report = (absolute: Bool, events: [InputEvent])

    /// A pointer event as reports, each for the absolute pointer or the keyboard-and-mouse. Positions are
    /// scaled to 0…65535; relative moves carry their fractions in `remainder`; a wheel step down is
    /// REL_WHEEL −1 (the kernel's wheel counts up as positive).
    static func pointerReports(_ event: PointerEvent, remainder: inout (x: Double, y: Double)) -> [Report] {
        func ev<T: BinaryInteger, C: BinaryInteger>(_ type: T, _ code: C, _ value: Int32) -> InputEvent {
            InputEvent(type: UInt16(truncatingIfNeeded: type), code: UInt16(truncatingIfNeeded: code), value: value)
        }
        func button(_ b: PointerButton) -> Int32 {
            switch b {
            case .left: return Int32(HF_BTN_LEFT)
            case .right: return Int32(HF_BTN_RIGHT)
            case .middle: return Int32(HF_BTN_MIDDLE)
            }
        }
        func scaled(_ v: Double) -> Int32 {
            Int32((min(max(v.isFinite ? v : 0, 0), 1) * Double(HF_ABS_MAX)).rounded())
        }
        switch event {
        case .moveTo(let x, let y):
            return [(true, [ev(HF_EV_ABS, HF_ABS_X, scaled(x)), ev(HF_EV_ABS, HF_ABS_Y, scaled(y))])]
        case .moveBy(let dx, let dy):
            let x = remainder.x + (dx.isFinite ? dx : 0), y = remainder.y + (dy.isFinite ? dy : 0)
            let wholeX = min(max(x.rounded(.towardZero), -10_000), 10_000)
            let wholeY = min(max(y.rounded(.towardZero), -10_000), 10_000)
            remainder = (x - wholeX, y - wholeY)
            var events: [InputEvent] = []
            if wholeX != 0 { events.append(ev(HF_EV_REL, HF_REL_X, Int32(wholeX))) }
            if wholeY != 0 { events.append(ev(HF_EV_REL, HF_REL_Y, Int32(wholeY))) }
            return events.isEmpty ? [] : [(false, events)]
        case .button(let b, let down):
            return [(false, [ev(HF_EV_KEY, button(b), down ? 1 : 0)])]
        case .click(let b, let count):
            return (0..<PointerEvent.bounded(clicks: count)).flatMap { _ -> [Report] in
                [(false, [ev(HF_EV_KEY, button(b), 1)]), (false, [ev(HF_EV_KEY, button(b), 0)])]
            }
        case .scroll(let dx, let dy):
            var events: [InputEvent] = []
            let dy = PointerEvent.bounded(notches: dy), dx = PointerEvent.bounded(notches: dx)
            if dy != 0 { events.append(ev(HF_EV_REL, HF_REL_WHEEL, Int32(-dy))) }
            if dx != 0 { events.append(ev(HF_EV_REL, HF_REL_HWHEEL, Int32(dx))) }
            return events.isEmpty ? [] : [(false, events)]
        }
    }

    // MARK: Characters

    /// A run of keys on the layout, or characters it has no key for, pasted.
    enum Step: Equatable {
        case keys([Stroke])
        case paste(String)
    }

    static let leftShift: UInt32 = 42, leftCtrl: UInt32 = 29, leftAlt: UInt32 = 56, leftMeta: UInt32 = 125
    static let enter: UInt32 = 28, tab: UInt32 = 15

    /// The key and modifier keys that type `sym` on the layout, or nil when it has none (or a level only a
    /// modifier no key holds reaches).
    static func stroke(forKeysym sym: UInt32, layout: XKBKeymap) -> Stroke? {
        guard let found = layout.strokes[sym] else { return nil }
        var modifiers: [UInt32] = []
        for bit in 0..<32 where found.modifiers & (1 << bit) != 0 {
            guard let key = layout.modifierKeys[1 << bit] else { return nil }
            modifiers.append(key)
        }
        return Stroke(key: found.key, modifiers: modifiers)
    }

    /// The strokes for a character on the layout, or nil (`TypedText` has made line ends and the other
    /// keys pieces of their own).
    static func stroke(for c: Character, layout: XKBKeymap) -> [Stroke]? {
        var strokes: [Stroke] = []
        for scalar in c.unicodeScalars {
            guard let sym = XKBKeymap.keysym(scalar), let stroke = stroke(forKeysym: sym, layout: layout) else { return nil }
            strokes.append(stroke)
        }
        return strokes
    }

    /// The steps that type `text`, by `TypedText`'s rule. A character without a key is pasted when
    /// `canPaste`, else the whole text is refused with an error naming it.
    static func plan(_ text: String, layout: XKBKeymap, layoutName: String,
                     canPaste: Bool) throws(OutputSinkError) -> [Step] {
        var steps: [Step] = []
        var strokes: [Stroke] = [], pasted = ""
        func keys(_ found: [Stroke]) {
            if !pasted.isEmpty { steps.append(.paste(pasted)); pasted = "" }
            strokes += found
        }
        for piece in try TypedText.pieces(text) {
            guard case .text(let range) = piece else {
                if case .key(let key, _) = piece, let code = WaylandSink.evdevCode(key) { keys([Stroke(key: code, modifiers: [])]) }
                continue
            }
            for c in String(text.unicodeScalars[range]) {
                if let found = stroke(for: c, layout: layout) {
                    keys(found)
                    continue
                }
                guard canPaste else {
                    throw OutputSinkError(UIMessage("cannot type {character}: the keyboard layout ({layout}) has no key for it, and there is no clipboard to paste it through (install wl-clipboard on Wayland or xclip on X11)",
                                                    ["character": WaylandSink.describe(c), "layout": layoutName]))
                }
                if !strokes.isEmpty { steps.append(.keys(strokes)); strokes = [] }
                pasted.append(c)
            }
        }
        if !strokes.isEmpty { steps.append(.keys(strokes)) }
        if !pasted.isEmpty { steps.append(.paste(pasted)) }
        return steps
    }

    /// The key of a character held with a chord: it must be on the layout, on one key.
    static func chordStroke(_ c: Character, layout: XKBKeymap) throws(OutputSinkError) -> Stroke {
        guard let strokes = stroke(for: c, layout: layout), strokes.count == 1, let stroke = strokes.first else {
            throw WaylandSink.noKeyWithModifiers(c)
        }
        return stroke
    }

    /// The tool that puts text on the clipboard of the session the environment names: `wl-copy` under
    /// Wayland, `xclip` under X11, if it is on PATH.
    static func clipboard(environment: [String: String]) -> [String]? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        func find(_ tool: String) -> String? {
            path.split(separator: ":").map { "\($0)/\(tool)" }.first { access($0, X_OK) == 0 }
        }
        if environment["WAYLAND_DISPLAY"]?.isEmpty == false, let tool = find("wl-copy") { return [tool] }
        if environment["DISPLAY"]?.isEmpty == false, let tool = find("xclip") { return [tool, "-selection", "clipboard"] }
        return nil
    }

    /// The layout's name for messages.
    private var layoutName: String {
        let names = layoutEnvironment
        let layout = names["XKB_DEFAULT_LAYOUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "us"
        return names["XKB_DEFAULT_VARIANT"].flatMap { $0.isEmpty ? nil : "\(layout) \($0)" } ?? layout
    }

    /// The environment's `XKB_DEFAULT_*`, else the system's keyboard (Debian's /etc/default/keyboard): the
    /// desktop, not the sink, turns the keys into characters, and libxkbcommon's own default is US.
    private var layoutEnvironment: [String: String] {
        if environment["XKB_DEFAULT_LAYOUT"]?.isEmpty == false { return environment }
        return environment.merging(Self.systemLayout(Self.readFile(Self.systemKeyboardFile) ?? "")) { $1 }
    }

    static let systemKeyboardFile = "/etc/default/keyboard"

    /// The `XKB_DEFAULT_*` names a keyboard file (`XKBLAYOUT="de"`, …) gives.
    static func systemLayout(_ text: String) -> [String: String] {
        let names = ["XKBMODEL": "XKB_DEFAULT_MODEL", "XKBLAYOUT": "XKB_DEFAULT_LAYOUT",
                     "XKBVARIANT": "XKB_DEFAULT_VARIANT", "XKBOPTIONS": "XKB_DEFAULT_OPTIONS"]
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let name = names[parts[0].trimmingPrefix(" ").description] else { continue }
            var value = Substring(parts[1])
            while value.last == " " { value.removeLast() }
            if value.count >= 2, value.first == value.last, value.first == "\"" || value.first == "'" {
                value = value.dropFirst().dropLast()
            }
            // A list of layouts: the first is the one the desktop starts in.
            let first = name == "XKB_DEFAULT_OPTIONS" ? value : value.prefix { $0 != "," }
            if !first.isEmpty { found[name] = String(first) }
        }
        return found
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536, case let n = fread(&buffer, 1, buffer.count, file), n > 0 { bytes += buffer.prefix(n) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func loadedLayout() throws(OutputSinkError) -> XKBKeymap {
        if let layout { return layout }
        let made = try XKBKeymap(environment: layoutEnvironment)
        layout = made
        return made
    }

    // MARK: The devices

    /// How long a new device is left before its first event. The desktop opens a device only after udev
    /// announces it, and events sent before are lost; the figure is a margin, not measured here (the
    /// development machine has no uinput).
    static let settle = 0.3
    /// The pause after each key. The kernel keeps a few dozen events for each reader of a device and drops
    /// the rest when the reader falls behind, so keys go at most at 1,000 a second.
    static let keyInterval = 0.001

    private func connect() throws(OutputSinkError) {
        guard keyboard < 0 || tablet < 0 else { return }
        disconnect()
        var error: Int32 = 0
        keyboard = hf_ui_create(device, "HandsFree Shell keyboard", Int32(HF_UI_KEYBOARD | HF_UI_RELATIVE), &error)
        guard keyboard >= 0 else { throw Self.openFailure(error, device: device) }
        tablet = hf_ui_create(device, "HandsFree Shell pointer", Int32(HF_UI_ABSOLUTE), &error)
        guard tablet >= 0 else {
            disconnect()
            throw Self.openFailure(error, device: device)
        }
        clock.sleep(for: Self.settle)
    }

    private func disconnect() {
        if keyboard >= 0 { hf_ui_destroy(keyboard); keyboard = -1 }
        if tablet >= 0 { hf_ui_destroy(tablet); tablet = -1 }
    }

    /// The device nodes (/dev/input/eventN) of the keyboard and of the pointer, once made; for tests.
    func eventNodes() -> [String] {
        [keyboard, tablet].compactMap { fd -> String? in
            guard fd >= 0 else { return nil }
            var buffer = [CChar](repeating: 0, count: 64)
            guard hf_ui_sysname(fd, &buffer, buffer.count) == 0 else { return nil }
            let folder = "/sys/devices/virtual/input/" + String(cString: buffer)
            guard let dir = opendir(folder) else { return nil }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix("event") { return "/dev/input/" + name }
            }
            return nil
        }
    }

    static func openFailure(_ code: Int32, device: String) -> OutputSinkError {
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return OutputSinkError(UIMessage("{device} is missing: the kernel's uinput module is not loaded (sudo modprobe uinput; scripts/install.sh --uinput loads it at every boot and lets you open it), or choose wayland or x11 (--output, --type-into)",
                                             ["device": device]))
        case EACCES, EPERM, EROFS:
            return OutputSinkError(UIMessage("cannot open {device}: permission denied (scripts/install.sh --uinput installs a udev rule that lets the logged-in user open it), or choose wayland or x11 (--output, --type-into)",
                                             ["device": device]))
        default:
            return OutputSinkError(UIMessage("cannot make a virtual keyboard with {device}: {reason}", ["device": device],
                                             reasons: ["reason": .system(String(cString: strerror(code)))]))
        }
    }

    private func write(_ events: [InputEvent], to fd: Int32) throws(OutputSinkError) {
        let raw = events.map { hf_ui_event(type: $0.type, code: $0.code, value: $0.value) }
        let code = hf_ui_write(fd, raw, raw.count)
        guard code != 0 else { return }
        // A device the kernel took away is made again by the next call.
        disconnect()
        throw OutputSinkError(UIMessage("the virtual keyboard stopped taking events: {reason}", reasons: ["reason": .system(String(cString: strerror(code)))]))
    }

    private func tap(_ stroke: Stroke) throws(OutputSinkError) {
        for report in Self.reports(stroke) { try write(report, to: keyboard) }
        clock.sleep(for: Self.keyInterval)
    }

    /// Copies `text` to the clipboard, then sends Ctrl+V.
    private func paste(_ text: String) throws(OutputSinkError) {
        let layout = try loadedLayout()
        guard let tool = Self.clipboard(environment: environment) else {
            throw OutputSinkError(UIMessage("no clipboard tool (wl-copy or xclip) to paste {text} with", ["text": text.debugDescription]))
        }
        try Self.copy(text, with: tool, environment: environment)
        guard let v = Self.stroke(forKeysym: 0x76, layout: layout) else {
            throw OutputSinkError(UIMessage("cannot paste: the keyboard layout has no V key"))
        }
        try tap(Stroke(key: v.key, modifiers: [Self.leftCtrl] + v.modifiers))
    }

    /// Runs the clipboard tool with the text on its standard input and waits for it (both tools leave a
    /// process of their own behind to serve the clipboard).
    ///
    /// posix_spawn, not Foundation's Process: Process would also reap children it did not start.
    static func copy(_ text: String, with tool: [String], environment: [String: String]) throws(OutputSinkError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard cpty_pipe_cloexec(&pipeEnds) == 0 else {
            throw OutputSinkError(UIMessage("cannot make a pipe for {program}: {reason}", ["program": tool[0]], reasons: ["reason": .system(String(cString: strerror(errno)))]))
        }
        let argv = tool.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for a in argv { free(a) }; for e in envp { free(e) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, tool[0], &actions, nil, argv, envp)
        close(pipeEnds[0])
        guard rc == 0 else {
            close(pipeEnds[1])
            throw OutputSinkError(UIMessage("cannot run {program}: {reason}", ["program": tool[0]], reasons: ["reason": .system(String(cString: strerror(rc)))]))
        }
        // A tool that died makes the write fail with EPIPE, not kill the shell.
        signal(SIGPIPE, SIG_IGN)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(pipeEnds[1], $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            bytes = bytes.dropFirst(n)
        }
        close(pipeEnds[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw OutputSinkError(UIMessage("{program} could not put {text} on the clipboard (wait status {status})", ["program": tool[0], "text": text.debugDescription, "status": "\(status)"]))
        }
    }
}
