import Localization
import TerminalModel
/// What a gesture, phrase or key can make the shell do.
public enum Action: String, CaseIterable, Sendable, Hashable {
    case activate, back, home, help, next, previous
    case scroll, scrollUp = "scroll-up", scrollDown = "scroll-down"
    case commitWord = "commit-word", deleteWord = "delete-word"
    case addWord = "add-word", removeWord = "remove-word"
    case toggleDictation = "toggle-dictation", startDictation = "start-dictation", stopDictation = "stop-dictation"
    case pushToTalk = "push-to-talk"
    case pause = "pause-listening", resume = "resume-listening", togglePause = "toggle-pause"
    case confirm, quit
    case recentre
    case speak, stopSpeaking = "stop-speaking", savePhrase = "save-phrase"
    /// The escape from settings that stopped the user's gestures acting: the last settings the user acted
    /// with come back (`ShellState.restoreKnownGood`).
    case restoreSettings = "restore-settings"

    /// A short phrase for help screens.
    public var summary: String {
        switch self {
        case .activate: return N_("activate the focused item")
        case .back: return N_("go back to the previous screen")
        case .home: return N_("go to the launcher")
        case .help: return N_("show this help")
        case .next: return N_("next item / card")
        case .previous: return N_("previous item / card")
        case .scroll: return N_("scroll the list the gaze is on (top or bottom quarter)")
        case .scrollUp: return N_("scroll up")
        case .scrollDown: return N_("scroll down")
        case .commitWord: return N_("commit the suggested word")
        case .deleteWord: return N_("delete the last word")
        case .addWord: return N_("add the word before the caret to the suggestions")
        case .removeWord: return N_("never suggest the word looked at (or the first) again")
        case .toggleDictation: return N_("start or stop dictation")
        case .startDictation: return N_("start dictation")
        case .stopDictation: return N_("stop dictation")
        case .pushToTalk: return N_("listen for a voice command")
        case .pause: return N_("pause: gestures and voice commands do nothing until resumed")
        case .resume: return N_("resume after a pause")
        case .togglePause: return N_("pause, or resume when paused")
        case .confirm: return N_("confirm a destructive action (hold)")
        case .quit: return N_("quit the shell")
        case .recentre: return N_("take where the head points now as the middle of the screen")
        case .speak: return N_("speak the text, or the sentence before the caret, aloud")
        case .stopSpeaking: return N_("stop speaking")
        case .savePhrase: return N_("keep the sentence written (or the message) on the phrase board")
        case .restoreSettings: return N_("put back the last settings you acted with")
        }
    }
}

/// Bindings of one keymap section: gesture names and voice phrases to actions.
public struct KeymapSection: Sendable, Equatable {
    public var gestures: [String: Action] = [:]
    public var voice: [String: Action] = [:]
    public init(gestures: [String: Action] = [:], voice: [String: Action] = [:]) {
        self.gestures = gestures; self.voice = voice
    }

    /// This section with `o`'s bindings over it (an including keymap's over the included one's).
    func merged(with o: KeymapSection) -> KeymapSection {
        KeymapSection(gestures: gestures.merging(o.gestures) { $1 }, voice: voice.merging(o.voice) { $1 })
    }
}

/// Reads the keymap an `include = "…"` names, for `Keymap.load`: `name` as written, `from` the including
/// file. Success gives the included file's path (the same path each time it is named, so a cycle shows)
/// and its text; failure says why it cannot be read ("no such keymap (known: …)").
public typealias KeymapInclude = @Sendable (_ name: String, _ from: String) -> Result<(file: String, text: String), KeymapIncludeError>

/// Why an included keymap cannot be read.
public struct KeymapIncludeError: Error, Sendable, Equatable {
    /// The reason in English.
    public var message: String
    /// The reason as the user reads it, translated where it is shown.
    public var reason: UIMessage
    /// A reason not worded for translation (a program's own words), shown as it is.
    public init(_ message: String) { self.message = message; reason = .verbatim(message) }
    /// A reason worded for translation.
    public init(_ reason: UIMessage) { message = reason.english; self.reason = reason }
}

/// What a gesture or phrase does on the Terminal screen (a keymap's `[terminal]` section).
public enum TerminalBinding: Sendable, Equatable {
    /// Sends a key to the program in the pane, by its name (`"enter"`, `"ctrl-c"`, `"page-up"`), which
    /// `TerminalKeyPress(name:)` takes.
    case press(String)
    /// Leaves the Terminal screen (`"leave"`): the only way out by gesture or phrase, so that a stray back
    /// gesture cannot take a running editor away from the user.
    case leave
    /// A shell action, as in other sections (`"commit-word"`, `"scroll-up"`, `"push-to-talk"`).
    case action(Action)
    /// What only the Desktop screen does: the pointer, the private latch (`[desktop]` only).
    case desktop(DesktopCommand)

    /// The name a keymap file uses for it.
    public var name: String {
        switch self {
        case .press(let name): return name
        case .leave: return "leave"
        case .action(let a): return a.rawValue
        case .desktop(let c): return c.rawValue
        }
    }

    /// A short phrase for help screens: "press Ctrl+C", "leave this screen", or what the action or command does.
    public var summary: String {
        switch self {
        case .press(let name): return "press " + Self.keyWords(name, .english)
        case .leave: return N_("leave this screen")
        case .action(let a): return a.summary
        case .desktop(let c): return c.summary
        }
    }

    /// `summary` in `catalog`'s language.
    public func summary(in catalog: Catalog) -> String {
        if case .press(let name) = self { return catalog.tr("press {key}", ["key": Self.keyWords(name, catalog)]) }
        return catalog.tr(summary)
    }

    /// A key name of a keymap as the desktop labels the key in `catalog`'s language (`KeyLabel`, GTK's
    /// keyboard labels): `ctrl-c` is "Ctrl+C" ("Strg+C" in German), `page-up` "Page Up" ("Bild auf"). A name
    /// `TerminalKeyPress` does not know is shown in capitals, as the keymap wrote it.
    static func keyWords(_ name: String, _ catalog: Catalog) -> String {
        let lower = name.lowercased()
        let modifiers: [(String, UIMessage)] = [("ctrl-", KeyLabel.ctrl), ("alt-", KeyLabel.alt), ("shift-", KeyLabel.shift),
                                                ("super-", KeyLabel.superKey)]
        var rest = Substring(lower)
        var words: [String] = []
        while let (prefix, label) = modifiers.first(where: { rest.hasPrefix($0.0) }), rest.count > prefix.count {
            words.append(label.text(catalog))
            rest = rest.dropFirst(prefix.count)
        }
        let key: String
        if rest == "space" {
            key = KeyLabel.space.text(catalog)
        } else if let press = TerminalKeyPress(name: String(rest)), press.modifiers.isEmpty {
            key = press.key.label.text(catalog)
        } else {
            key = rest.uppercased()
        }
        return (words + [key]).joined(separator: "+")
    }
}

/// What a `[desktop]` binding may do besides keys and actions: the desktop pointer and the private latch.
public enum DesktopCommand: String, CaseIterable, Sendable, Hashable {
    /// Pointer mode on or off: the gaze (or the head) moves the desktop's pointer.
    case pointerMode = "pointer-mode"
    /// Pointer mode off, back to typing.
    case stopPointing = "stop-pointing"
    case click, rightClick = "right-click", middleClick = "middle-click", doubleClick = "double-click"
    /// The left button held down, or let go when it is held.
    case drag
    case wheelUp = "wheel-up", wheelDown = "wheel-down", wheelLeft = "wheel-left", wheelRight = "wheel-right"
    /// Clicking by resting the pointer, on or off.
    case dwellClick = "dwell-click"
    /// Private typing on or off: nothing learned or logged (passwords).
    case privateTyping = "private"
    /// The Controls view on or off: the focused window's buttons, links, menus and fields, by name.
    case controls

    /// A short phrase for help screens.
    public var summary: String {
        switch self {
        case .pointerMode: return N_("pointer mode on or off")
        case .stopPointing: return N_("stop pointing, type again")
        case .click: return N_("click")
        case .rightClick: return N_("right click")
        case .middleClick: return N_("middle click")
        case .doubleClick: return N_("double click")
        case .drag: return N_("hold the button down to drag, or let it go")
        case .wheelUp: return N_("scroll up")
        case .wheelDown: return N_("scroll down")
        case .wheelLeft: return N_("scroll left")
        case .wheelRight: return N_("scroll right")
        case .dwellClick: return N_("click by resting the pointer, on or off")
        case .privateTyping: return N_("private typing on or off: nothing learned or logged")
        case .controls: return N_("the focused window's controls, to act on by name")
        }
    }
}

/// The `[terminal]` section: gestures and phrases that act on the Terminal screen before `[global]`.
public struct TerminalKeymap: Sendable, Equatable {
    public var gestures: [String: TerminalBinding] = [:]
    public var voice: [String: TerminalBinding] = [:]
    public init(gestures: [String: TerminalBinding] = [:], voice: [String: TerminalBinding] = [:]) {
        self.gestures = gestures; self.voice = voice
    }

    /// This section with `o`'s bindings over it.
    func merged(with o: TerminalKeymap) -> TerminalKeymap {
        TerminalKeymap(gestures: gestures.merging(o.gestures) { $1 }, voice: voice.merging(o.voice) { $1 })
    }
}

/// A keymap: global bindings, per-screen bindings that override them, and a few options.
public struct Keymap: Sendable, Equatable {
    public var name: String
    public var description: String
    public var global: KeymapSection
    public var screens: [String: KeymapSection]
    /// Show a Back target on every screen (for gaze-only use).
    public var showBackTarget: Bool
    /// A phrase that starts listening for a voice command, if any.
    public var wakePhrase: String?
    /// Rows of the on-screen letter keyboard.
    public var keyboardRows: [String]
    /// How long a still face must be seen before gestures act, after start, face loss or a tracker restart
    /// (seconds; `still_face_ms` in [options]).
    public var stillFaceSeconds: Double = 1.0
    /// The gesture config this keymap is written for (`config` in [options]): a name in config/ or a path.
    public var config: String?
    /// Bindings on the Terminal screen, looked up before the screen's and the global ones.
    public var terminal = TerminalKeymap()
    /// Bindings on the Desktop screen (`[desktop]`): keys for the focused window, the pointer, the private
    /// latch; looked up before the screen's and the global ones.
    public var desktop = TerminalKeymap()
    /// Screens whose targets are picked by smooth pursuit too (`pursuit` in [options]): each target shows
    /// a dot circling on its own path, and following one with the eyes or the head activates it.
    public var pursuitScreens: Set<String> = []

    /// Every gesture name bound anywhere in the keymap.
    public var boundGestures: Set<String> {
        screens.values.reduce(into: Set(global.gestures.keys).union(terminal.gestures.keys).union(desktop.gestures.keys)) {
            $0.formUnion($1.gestures.keys)
        }
    }

    /// What a gesture does on the Terminal screen by the `[terminal]` section; nil: the usual bindings apply.
    public func terminalBinding(gesture: String) -> TerminalBinding? { terminal.gestures[gesture] }

    /// What a phrase does on the Terminal screen by the `[terminal]` section.
    public func terminalBinding(phrase: String) -> TerminalBinding? { terminal.voice[Self.normalise(phrase)] }

    /// What a gesture does on the Desktop screen by the `[desktop]` section; nil: the usual bindings apply.
    public func desktopBinding(gesture: String) -> TerminalBinding? { desktop.gestures[gesture] }

    /// What a phrase does on the Desktop screen by the `[desktop]` section.
    public func desktopBinding(phrase: String) -> TerminalBinding? { desktop.voice[Self.normalise(phrase)] }

    public static let defaultKeyboardRows = ["qwertyuiop", "asdfghjkl'", "zxcvbnm,.?"]

    public init(name: String, description: String = "", global: KeymapSection = .init(),
                screens: [String: KeymapSection] = [:], showBackTarget: Bool = false, wakePhrase: String? = nil,
                keyboardRows: [String] = Keymap.defaultKeyboardRows) {
        self.name = name; self.description = description; self.global = global; self.screens = screens
        self.showBackTarget = showBackTarget; self.wakePhrase = wakePhrase; self.keyboardRows = keyboardRows
    }

    /// The action a gesture performs on a screen (the screen's section first, then the global one).
    public func action(gesture: String, screen: String) -> Action? {
        screens[screen]?.gestures[gesture] ?? global.gestures[gesture]
    }

    /// The action a spoken phrase performs on a screen.
    public func action(phrase: String, screen: String) -> Action? {
        let p = Self.normalise(phrase)
        return screens[screen]?.voice[p] ?? global.voice[p]
    }

    /// All bindings in effect on a screen, sorted, for help screens.
    public func bindings(screen: String) -> (gestures: [(String, Action)], voice: [(String, Action)]) {
        var g = global.gestures, v = global.voice
        if let s = screens[screen] {
            g.merge(s.gestures) { $1 }
            v.merge(s.voice) { $1 }
        }
        return (g.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                v.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Every voice phrase in the keymap, for building a command grammar.
    public var allPhrases: [String] {
        var s = Set(global.voice.keys)
        for sec in screens.values { s.formUnion(sec.voice.keys) }
        s.formUnion(terminal.voice.keys)
        s.formUnion(desktop.voice.keys)
        if let w = wakePhrase { s.insert(w) }
        return s.sorted()
    }

    /// The first section (global, then screens by name) binding `phrase`, and its action.
    func sectionsBinding(phrase: String) -> (String, String)? {
        if let a = global.voice[phrase] { return ("[global.voice]", a.rawValue) }
        for name in screens.keys.sorted() { if let a = screens[name]?.voice[phrase] { return ("[screen.\(name).voice]", a.rawValue) } }
        if let b = terminal.voice[phrase] { return ("[terminal.voice]", b.name) }
        if let b = desktop.voice[phrase] { return ("[desktop.voice]", b.name) }
        return nil
    }

    /// Lower case, single spaces: how phrases are compared.
    public static func normalise(_ phrase: String) -> String {
        // ASCII, most phrases and every key's label, is done byte by byte: the voice phrases are made again
        // for each target whenever the targets change (a suggestion after every echoed key).
        var out: [UInt8] = []
        out.reserveCapacity(phrase.utf8.count)
        var space = false
        for b in phrase.utf8 {
            guard b < 0x80 else {
                return phrase.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            }
            if b == 0x20 || b == 0x09 { space = !out.isEmpty; continue }
            if space { out.append(0x20); space = false }
            out.append(b >= 0x41 && b <= 0x5a ? b + 0x20 : b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The keys and tables a keymap file may hold at its top level (what tells a keymap from a gesture config).
    public static let topLevelKeys = ["name", "description", "include", "global", "screen", "terminal", "desktop", "options", "keyboard"]

    /// How deep includes may nest: deeper is a mistake, not a keymap.
    public static let maxIncludeDepth = 8

    /// The most letter rows the on-screen keyboard may have: more do not fit the minimum 80×24 window
    /// beside the text and the suggestion row.
    public static let maxKeyboardRows = 4
    /// The most keys in one keyboard row that still leave each key wide enough to look at.
    public static let maxKeysPerRow = 16

    /// Parses a keymap file, checking gesture names against `knownGestures` and screens against `knownScreens`.
    ///
    /// This accepts fragments (a keymap that binds only a few gestures); `load` adds the checks a keymap the
    /// shell runs with must pass.
    public static func parse(_ text: String, file: String, knownGestures: [String],
                             knownScreens: [String], include: KeymapInclude? = nil) throws(ConfigError) -> Keymap {
        try parse(TOMLDocument(text: text, file: file), knownGestures: knownGestures, knownScreens: knownScreens,
                  isKnownWord: nil, include: include)
    }

    /// Parses a keymap the shell will run with: besides `parse`'s checks, every screen must have a gesture
    /// that activates and a way back (a back gesture or the Back target), and every word of the wake phrase
    /// and the voice phrases must be one the recogniser can hear.
    /// - Parameter isKnownWord: whether the pronunciation dictionary has a word; nil when it cannot be read.
    /// - Parameter include: reads the keymap an `include` names; nil: a keymap may not include another.
    public static func load(_ text: String, file: String, knownGestures: [String], knownScreens: [String],
                            isKnownWord: (@Sendable (String) -> Bool)? = nil,
                            include: KeymapInclude? = nil) throws(ConfigError) -> Keymap {
        let doc = try TOMLDocument(text: text, file: file)
        let km = try parse(doc, knownGestures: knownGestures, knownScreens: knownScreens, isKnownWord: isKnownWord,
                           include: include)
        try km.checkReachable(doc: doc, knownGestures: knownGestures, knownScreens: knownScreens)
        return km
    }

    /// Refuses a keymap with which some screen cannot be driven: no gesture activates there, or nothing goes
    /// back. Voice does not count: speech may be off, or the room too loud.
    func checkReachable(doc: TOMLDocument, knownGestures: [String], knownScreens: [String]) throws(ConfigError) {
        for screen in knownScreens {
            let bound = Set(knownGestures.compactMap { action(gesture: $0, screen: screen) })
            // A screen's own section is where a binding was lost, if it has one.
            let place: [String] = screens[screen] != nil ? ["screen", screen] : ["global", "gestures"]
            let own = screens[screen] != nil
            if !bound.contains(.activate) {
                throw doc.error(place, own
                    ? UIMessage("no gesture is bound to \"activate\" on screen \"{screen}\", so nothing could be opened hands-free (e.g. activate = \"activate\", or dwell = \"activate\" for gaze only)", ["screen": screen])
                    : UIMessage("no gesture is bound to \"activate\" in [global.gestures], so nothing could be opened hands-free (e.g. activate = \"activate\", or dwell = \"activate\" for gaze only)"))
            }
            if !bound.contains(.back) && !showBackTarget {
                throw doc.error(place, own
                    ? UIMessage("no gesture is bound to \"back\" on screen \"{screen}\" and show_back_target is off, so there is no way back hands-free (e.g. back = \"back\", or [options] show_back_target = true)", ["screen": screen])
                    : UIMessage("no gesture is bound to \"back\" in [global.gestures] and show_back_target is off, so there is no way back hands-free (e.g. back = \"back\", or [options] show_back_target = true)"))
            }
        }
    }

    /// The keymap `doc` includes (`include = "…"`), parsed with its own includes, or nil when it includes none.
    /// A missing file and a cycle are named at the `include` line.
    static func included(by doc: TOMLDocument, knownGestures: [String], knownScreens: [String],
                         isKnownWord: (@Sendable (String) -> Bool)?, include: KeymapInclude?,
                         chain: [String]) throws(ConfigError) -> Keymap? {
        guard let node = doc.root["include"] else { return nil }
        guard let name = node.string, !name.isEmpty, name.count <= 200, name.allSatisfy({ $0.isVisibleKey }) else {
            throw doc.error(["include"], UIMessage("include must name a keymap: \"default\" (keymaps/default.toml) or a path"))
        }
        guard let include else {
            throw doc.error(["include"], UIMessage("include \"{name}\": a keymap given as text cannot include another", ["name": name]))
        }
        switch include(name, doc.file) {
        case .failure(let e):
            throw doc.error(["include"], UIMessage("include \"{name}\": {reason}", ["name": name], reasons: ["reason": e.reason]))
        case .success(let found):
            let files = chain + [doc.file]
            if files.contains(found.file) {
                throw doc.error(["include"], UIMessage("include \"{name}\" makes a cycle: {files}",
                                                       ["name": name, "files": (files.drop { $0 != found.file } + [found.file]).joined(separator: " → ")]))
            }
            guard files.count < maxIncludeDepth else {
                throw doc.error(["include"], UIMessage("include \"{name}\": includes nest more than {depth} deep", ["name": name, "depth": String(maxIncludeDepth)]))
            }
            let sub = try TOMLDocument(text: found.text, file: found.file)
            return try parse(sub, knownGestures: knownGestures, knownScreens: knownScreens, isKnownWord: isKnownWord,
                             include: include, chain: files)
        }
    }

    static func parse(_ doc: TOMLDocument, knownGestures: [String], knownScreens: [String],
                      isKnownWord: (@Sendable (String) -> Bool)?, include: KeymapInclude? = nil,
                      chain: [String] = []) throws(ConfigError) -> Keymap {
        let root = doc.root
        let file = doc.file
        let topKeys = Self.topLevelKeys
        for k in root.keys.sorted() where !topKeys.contains(k) {
            throw doc.error([k], UIMessage("unknown key \"{key}\" (known: {known})", ["key": k, "known": topKeys.joined(separator: ", ")]))
        }
        for k in ["name", "description"] {
            guard let v = root[k] else { continue }
            guard let text = v.string else { throw doc.error([k], UIMessage("{key} must be a string, not {kind}", ["key": k], reasons: ["kind": v.kindMessage])) }
            // Both are shown on screen: a control character would be sent to the terminal as it is.
            if text.contains(where: { !$0.isVisibleKey && $0 != " " }) {
                throw doc.error([k], UIMessage("{key} holds an invisible or control character; use visible characters and spaces", ["key": k]))
            }
        }
        if let name = root["name"]?.string, name.allSatisfy({ $0 == " " }) {
            throw doc.error(["name"], UIMessage("name must not be empty"))
        }
        // An included keymap is the base: this file's bindings and options go over it, key by key.
        let base = try included(by: doc, knownGestures: knownGestures, knownScreens: knownScreens, isKnownWord: isKnownWord,
                                include: include, chain: chain)
        var km = base ?? Keymap(name: file)
        km.name = root["name"]?.string ?? file
        km.description = root["description"]?.string ?? base?.description ?? ""
        if let g = root["global"] {
            km.global = km.global.merged(with: try section(g, path: ["global"], doc: doc, knownGestures: knownGestures,
                                                            isKnownWord: isKnownWord))
        }
        if let s = root["screen"] {
            guard let t = s.table else { throw doc.error(["screen"], UIMessage("\"screen\" must hold [screen.NAME] tables")) }
            for (name, node) in t {
                guard knownScreens.contains(name) else {
                    throw doc.error(["screen", name], UIMessage("unknown screen \"{screen}\" (known: {known})", ["screen": name, "known": knownScreens.joined(separator: ", ")]))
                }
                km.screens[name] = (km.screens[name] ?? KeymapSection()).merged(
                    with: try section(node, path: ["screen", name], doc: doc, knownGestures: knownGestures, isKnownWord: isKnownWord))
            }
        }
        if let t = root["terminal"] {
            km.terminal = km.terminal.merged(with: try terminalSection(t, doc: doc, knownGestures: knownGestures, isKnownWord: isKnownWord))
        }
        if let t = root["desktop"] {
            km.desktop = km.desktop.merged(with: try terminalSection(t, section: "desktop", doc: doc, knownGestures: knownGestures,
                                                                     isKnownWord: isKnownWord))
        }
        if let o = root["options"] {
            guard let t = o.table else { throw doc.error(["options"], UIMessage("[options] must be a table")) }
            for (k, v) in t {
                switch k {
                case "show_back_target":
                    guard let b = v.bool else { throw doc.error(["options", k], UIMessage("show_back_target must be true or false")) }
                    km.showBackTarget = b
                case "wake_phrase":
                    guard let s = v.string else { throw doc.error(["options", k], UIMessage("wake_phrase must be a phrase")) }
                    if let problem = phraseProblem(s, isKnownWord: isKnownWord) {
                        throw doc.error(["options", k], problem.wakePhrase(s))
                    }
                    km.wakePhrase = normalise(s)
                case "config":
                    // Checked where the file is read (Setup): here it only has to be a plain name or path.
                    guard let c = v.string, !c.isEmpty, c.count <= 200, c.allSatisfy({ $0.isVisibleKey }) else {
                        throw doc.error(["options", k], UIMessage("config must name a gesture config: \"webcam\" (config/webcam.toml) or a path"))
                    }
                    km.config = c
                case "still_face_ms":
                    guard let ms = v.number, ms >= 0, ms <= 10_000 else {
                        throw doc.error(["options", k], UIMessage("still_face_ms must be a number of milliseconds 0…10000"))
                    }
                    km.stillFaceSeconds = ms / 1000
                case "pursuit":
                    guard let a = v.array, a.allSatisfy({ $0.string != nil }) else {
                        throw doc.error(["options", k], UIMessage("pursuit must be a list of screen names, e.g. [\"launcher\"]"))
                    }
                    for name in a.compactMap(\.string) where !knownScreens.contains(name) {
                        throw doc.error(["options", k], UIMessage("pursuit: unknown screen \"{screen}\" (known: {known})", ["screen": name, "known": knownScreens.joined(separator: ", ")]))
                    }
                    km.pursuitScreens = Set(a.compactMap(\.string))
                default:
                    throw doc.error(["options", k], UIMessage("unknown option \"{option}\" (known: config, show_back_target, wake_phrase, still_face_ms, pursuit)", ["option": k]))
                }
            }
        }
        if let w = km.wakePhrase, let (section, action) = km.sectionsBinding(phrase: w) {
            // The wake listener takes the phrase first, so the binding could never act.
            throw doc.error(["options", "wake_phrase"],
                            UIMessage("wake_phrase \"{phrase}\" is also a voice phrase in {section} (bound to {action}); a phrase cannot both wake the shell and act",
                                      ["phrase": w, "section": section, "action": "\(action)"]))
        }
        if let kb = root["keyboard"] {
            guard let t = kb.table else { throw doc.error(["keyboard"], UIMessage("[keyboard] must be a table")) }
            for (k, v) in t {
                guard k == "rows" else { throw doc.error(["keyboard", k], UIMessage("unknown key \"{key}\" in [keyboard] (known: rows)", ["key": k])) }
                km.keyboardRows = try keyboardRows(v, doc: doc, path: ["keyboard", k])
            }
        }
        return km
    }

    /// Checks the rows of the letter keyboard: they must fit the minimum window, and every key must be one
    /// visible character that appears once (a key's target is named after its character).
    static func keyboardRows(_ v: TOMLNode, doc: TOMLDocument, path: [String]) throws(ConfigError) -> [String] {
        let shape = UIMessage("rows must be 1…{rows} strings of 1…{keys} keys each", ["rows": String(maxKeyboardRows), "keys": String(maxKeysPerRow)])
        guard let arr = v.array, !arr.isEmpty else { throw doc.error(path, shape) }
        guard arr.count <= maxKeyboardRows else {
            throw doc.error(path, .plural("{n} keyboard row does not fit the minimum 80×24 window; {shape}",
                                          "{n} keyboard rows do not fit the minimum 80×24 window; {shape}", arr.count, reasons: ["shape": shape]))
        }
        var rows: [String] = [], seen: Set<Character> = []
        for (i, item) in arr.enumerated() {
            guard let row = item.string else {
                throw doc.error(path, UIMessage("row {row} is {kind}; {shape}", ["row": String(i + 1)], reasons: ["kind": item.kindMessage, "shape": shape]))
            }
            guard !row.isEmpty, row.count <= maxKeysPerRow else {
                throw doc.error(path, .plural("row {row} has {n} key; {shape}", "row {row} has {n} keys; {shape}", row.count,
                                              ["row": String(i + 1)], reasons: ["shape": shape]))
            }
            for ch in row {
                if !ch.isVisibleKey {
                    throw doc.error(path, UIMessage("row {row} holds an invisible or control character {character}; keys must be visible characters (space, new line and delete have their own keys)",
                                                    ["row": String(i + 1), "character": ch.codePoints]))
                }
                if !seen.insert(ch).inserted {
                    throw doc.error(path, UIMessage("row {row}: key \"{key}\" appears twice; each key may appear once", ["row": String(i + 1), "key": String(ch)]))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// What is wrong with a phrase a keymap binds or wakes with, said whole where it is found (`voicePhrase`,
    /// `wakePhrase`).
    enum PhraseProblem {
        case notWords
        case unknownWords(String)

        /// The problem of the voice phrase `phrase`.
        func voicePhrase(_ phrase: String) -> UIMessage {
            switch self {
            case .notWords: UIMessage("voice phrase \"{phrase}\" must be words of letters (and apostrophes) that can be spoken", ["phrase": phrase])
            case .unknownWords(let words):
                UIMessage("voice phrase \"{phrase}\" uses {words}, not in the recogniser's pronunciation dictionary, so it could never be heard",
                          ["phrase": phrase, "words": words])
            }
        }

        /// The problem of the wake phrase `phrase`.
        func wakePhrase(_ phrase: String) -> UIMessage {
            switch self {
            case .notWords: UIMessage("wake_phrase \"{phrase}\" must be words of letters (and apostrophes) that can be spoken", ["phrase": phrase])
            case .unknownWords(let words):
                UIMessage("wake_phrase \"{phrase}\" uses {words}, not in the recogniser's pronunciation dictionary, so it could never be heard",
                          ["phrase": phrase, "words": words])
            }
        }
    }

    /// Why a spoken phrase cannot be recognised, or nil: it must be words of letters (and apostrophes), each
    /// in the pronunciation dictionary when one is given.
    static func phraseProblem(_ phrase: String, isKnownWord: (@Sendable (String) -> Bool)?) -> PhraseProblem? {
        let p = normalise(phrase)
        guard !p.isEmpty, p.allSatisfy({ ($0.isLetter && $0.isVisibleKey) || $0 == " " || $0 == "'" }),
              p.split(separator: " ").allSatisfy({ $0.contains(where: \.isLetter) }) else {
            return .notWords
        }
        if let isKnownWord {
            let unknown = p.split(separator: " ").map(String.init).filter { !isKnownWord($0) }
            if !unknown.isEmpty { return .unknownWords(unknown.map { "\"\($0)\"" }.joined(separator: ", ")) }
        }
        return nil
    }

    static func section(_ node: TOMLNode, path: [String], doc: TOMLDocument, knownGestures: [String],
                        isKnownWord: (@Sendable (String) -> Bool)?) throws(ConfigError) -> KeymapSection {
        guard let t = node.table else { throw doc.error(path, UIMessage("[{table}] must be a table", ["table": path.joined(separator: ".")])) }
        var sec = KeymapSection()
        for (k, v) in t {
            switch k {
            case "gestures":
                sec.gestures = try gestureBindings(v, path: path + [k], doc: doc, knownGestures: knownGestures) {
                    (node, at) throws(ConfigError) -> Action in try action(node, path: at, doc: doc)
                }
            case "voice":
                sec.voice = try phraseBindings(v, path: path + [k], doc: doc, isKnownWord: isKnownWord) {
                    (node, at) throws(ConfigError) -> Action in try action(node, path: at, doc: doc)
                }
            default:
                throw doc.error(path + [k], UIMessage("unknown key \"{key}\" in [{table}] (known: gestures, voice)", ["key": k, "table": path.joined(separator: ".")]))
            }
        }
        return sec
    }

    /// The `[terminal]` (or `[desktop]`) section: `gestures` and `voice` tables whose values are key names,
    /// `leave`, or actions; `[desktop]` also takes the pointer's and the private latch's commands.
    static func terminalSection(_ node: TOMLNode, section: String = "terminal", doc: TOMLDocument, knownGestures: [String],
                                isKnownWord: (@Sendable (String) -> Bool)?) throws(ConfigError) -> TerminalKeymap {
        let path = [section]
        let desktop = section == "desktop"
        guard let t = node.table else { throw doc.error(path, UIMessage("[{table}] must be a table", ["table": section])) }
        var out = TerminalKeymap()
        for (k, v) in t {
            switch k {
            case "gestures":
                out.gestures = try gestureBindings(v, path: path + [k], doc: doc, knownGestures: knownGestures) {
                    (node, at) throws(ConfigError) -> TerminalBinding in try terminalBinding(node, path: at, doc: doc, desktop: desktop)
                }
            case "voice":
                out.voice = try phraseBindings(v, path: path + [k], doc: doc, isKnownWord: isKnownWord) {
                    (node, at) throws(ConfigError) -> TerminalBinding in try terminalBinding(node, path: at, doc: doc, desktop: desktop)
                }
            default:
                throw doc.error(path + [k], UIMessage("unknown key \"{key}\" in [{table}] (known: gestures, voice)", ["key": k, "table": section]))
            }
        }
        return out
    }

    /// A `gestures` table: each gesture name, which must be a known gesture, to what `value` reads of its entry.
    static func gestureBindings<T>(_ node: TOMLNode, path: [String], doc: TOMLDocument, knownGestures: [String],
                                   value: (TOMLNode, [String]) throws(ConfigError) -> T) throws(ConfigError) -> [String: T] {
        guard let g = node.table else { throw doc.error(path, UIMessage("gestures must be a table")) }
        var out: [String: T] = [:]
        for (gesture, v) in g {
            guard knownGestures.contains(gesture) else {
                throw doc.error(path + [gesture], UIMessage("unknown gesture \"{gesture}\" (known: {known})", ["gesture": gesture, "known": knownGestures.joined(separator: ", ")]))
            }
            out[gesture] = try value(v, path + [gesture])
        }
        return out
    }

    /// A `voice` table: each phrase, normalised, to what `value` reads of its entry. A phrase must be one the
    /// recogniser can hear, and bound once (phrases ignore case and spacing).
    static func phraseBindings<T>(_ node: TOMLNode, path: [String], doc: TOMLDocument,
                                  isKnownWord: (@Sendable (String) -> Bool)?,
                                  value: (TOMLNode, [String]) throws(ConfigError) -> T) throws(ConfigError) -> [String: T] {
        guard let g = node.table else { throw doc.error(path, UIMessage("voice must be a table")) }
        var out: [String: T] = [:]
        for (phrase, v) in g {
            let p = normalise(phrase)
            if let problem = phraseProblem(phrase, isKnownWord: isKnownWord) {
                throw doc.error(path + [phrase], problem.voicePhrase(phrase))
            }
            if out[p] != nil {
                // Dictionary order would decide which binding wins; both were meant.
                let lines = g.keys.filter { normalise($0) == p }.compactMap { doc.line(path + [$0]) }.sorted()
                throw ConfigError(file: doc.file, line: lines.last,
                                  UIMessage("voice phrase \"{phrase}\" is bound twice (as written on lines {lines}); phrases ignore case and spacing",
                                            ["phrase": phrase, "lines": lines.map(String.init).joined(separator: ", ")]))
            }
            out[p] = try value(v, path + [phrase])
        }
        return out
    }

    static func terminalBinding(_ v: TOMLNode, path: [String], doc: TOMLDocument,
                                desktop: Bool = false) throws(ConfigError) -> TerminalBinding {
        guard let s = v.string else {
            throw doc.error(path, desktop ? UIMessage("a desktop binding must be a string") : UIMessage("a terminal binding must be a string"))
        }
        if s == "leave" { return .leave }
        if desktop, let c = DesktopCommand(rawValue: s) { return .desktop(c) }
        if TerminalKeyPress(name: s) != nil { return .press(s.lowercased()) }
        if let a = Action(rawValue: s) {
            // Back would take a running editor away from the user on one stray gesture; "leave" is deliberate.
            guard a != .back else {
                throw doc.error(path, desktop
                    ? UIMessage("\"back\" is not bound on the Desktop screen; use \"leave\" to leave it, or \"escape\" to send Esc")
                    : UIMessage("\"back\" is not bound on the Terminal screen; use \"leave\" to leave it, or \"escape\" to send Esc"))
            }
            return .action(a)
        }
        let values = ["binding": s, "actions": Action.allCases.map(\.rawValue).joined(separator: ", "),
                      "commands": DesktopCommand.allCases.map(\.rawValue).joined(separator: ", ")]
        throw doc.error(path, desktop
            ? UIMessage("unknown desktop binding \"{binding}\" (a key: {keys}; \"leave\"; an action: {actions}; or a desktop command: {commands})",
                        values, reasons: ["keys": TerminalKeyPress.nameMessage])
            : UIMessage("unknown terminal binding \"{binding}\" (a key: {keys}; \"leave\"; or an action: {actions})",
                        values, reasons: ["keys": TerminalKeyPress.nameMessage]))
    }

    static func action(_ v: TOMLNode, path: [String], doc: TOMLDocument) throws(ConfigError) -> Action {
        guard let s = v.string else { throw doc.error(path, UIMessage("an action must be a string")) }
        guard let a = Action(rawValue: s) else {
            throw doc.error(path, UIMessage("unknown action \"{action}\" (known: {known})", ["action": s, "known": Action.allCases.map(\.rawValue).joined(separator: ", ")]))
        }
        return a
    }
}

extension Character {
    /// Whether the character shows as something on screen: not a control, format or separator character,
    /// and not white space.
    public var isVisibleKey: Bool {
        !isWhitespace && !unicodeScalars.contains { sc in
            switch sc.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return true
            default:
                return false
            }
        }
    }

    /// `U+0000` style code points, for naming an invisible character.
    var codePoints: String {
        unicodeScalars.map { sc in
            let hex = String(sc.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }
}

extension String {
    /// The text with control and invisible characters shown as `U+XXXX`, safe to print to a terminal.
    var printable: String {
        map { $0.isVisibleKey || $0 == " " ? String($0) : "<\($0.codePoints)>" }.joined()
    }
}

extension TerminalKeyPress {
    /// The key names a binding or `type --press` takes and how they combine, for translation.
    public static var nameMessage: UIMessage {
        UIMessage("{names}, and those after ctrl-, alt-, shift-, super- (alt-tab)", ["names": names])
    }
}
