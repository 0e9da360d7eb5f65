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

    /// A short phrase for help screens.
    public var summary: String {
        switch self {
        case .activate: return "activate the focused item"
        case .back: return "go back to the previous screen"
        case .home: return "go to the launcher"
        case .help: return "show this help"
        case .next: return "next item / card"
        case .previous: return "previous item / card"
        case .scroll: return "scroll the list the gaze is on (top or bottom quarter)"
        case .scrollUp: return "scroll up"
        case .scrollDown: return "scroll down"
        case .commitWord: return "commit the suggested word"
        case .deleteWord: return "delete the last word"
        case .addWord: return "add the word before the caret to the suggestions"
        case .removeWord: return "never suggest the word looked at (or the first) again"
        case .toggleDictation: return "start or stop dictation"
        case .startDictation: return "start dictation"
        case .stopDictation: return "stop dictation"
        case .pushToTalk: return "listen for a voice command"
        case .pause: return "pause: gestures and voice commands do nothing until resumed"
        case .resume: return "resume after a pause"
        case .togglePause: return "pause, or resume when paused"
        case .confirm: return "confirm a destructive action (hold)"
        case .quit: return "quit the shell"
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
        if let w = wakePhrase { s.insert(w) }
        return s.sorted()
    }

    /// Lower case, single spaces: how phrases are compared.
    public static func normalise(_ phrase: String) -> String {
        phrase.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Parses a keymap file, checking gesture names against `knownGestures` and screens against `knownScreens`.
    public static func parse(_ text: String, file: String, knownGestures: [String],
                             knownScreens: [String]) throws(ConfigError) -> Keymap {
        let doc = try TOMLDocument(text: text, file: file)
        let root = doc.root
        let topKeys = ["name", "description", "global", "screen", "options", "keyboard"]
        for k in root.keys.sorted() where !topKeys.contains(k) {
            throw doc.error([k], "unknown key \"\(k)\" (known: \(topKeys.joined(separator: ", ")))")
        }
        var km = Keymap(name: root["name"]?.string ?? file)
        km.description = root["description"]?.string ?? ""
        if let g = root["global"] {
            km.global = try section(g, path: ["global"], doc: doc, knownGestures: knownGestures)
        }
        if let s = root["screen"] {
            guard let t = s.table else { throw doc.error(["screen"], "\"screen\" must hold [screen.NAME] tables") }
            for (name, node) in t {
                guard knownScreens.contains(name) else {
                    throw doc.error(["screen", name], "unknown screen \"\(name)\" (known: \(knownScreens.joined(separator: ", ")))")
                }
                km.screens[name] = try section(node, path: ["screen", name], doc: doc, knownGestures: knownGestures)
            }
        }
        if let o = root["options"] {
            guard let t = o.table else { throw doc.error(["options"], "[options] must be a table") }
            for (k, v) in t {
                switch k {
                case "show_back_target":
                    guard let b = v.bool else { throw doc.error(["options", k], "show_back_target must be true or false") }
                    km.showBackTarget = b
                case "wake_phrase":
                    guard let s = v.string, !s.isEmpty else { throw doc.error(["options", k], "wake_phrase must be a phrase") }
                    km.wakePhrase = normalise(s)
                case "still_face_ms":
                    guard let ms = v.number, ms >= 0, ms <= 10_000 else {
                        throw doc.error(["options", k], "still_face_ms must be a number of milliseconds 0…10000")
                    }
                    km.stillFaceSeconds = ms / 1000
                default:
                    throw doc.error(["options", k], "unknown option \"\(k)\" (known: show_back_target, wake_phrase, still_face_ms)")
                }
            }
        }
        if let kb = root["keyboard"] {
            guard let t = kb.table else { throw doc.error(["keyboard"], "[keyboard] must be a table") }
            for (k, v) in t {
                guard k == "rows" else { throw doc.error(["keyboard", k], "unknown key \"\(k)\" in [keyboard] (known: rows)") }
                guard let rows = v.array?.compactMap(\.string), rows.count == v.array?.count, !rows.isEmpty,
                      rows.allSatisfy({ !$0.isEmpty && $0.count <= 16 }) else {
                    throw doc.error(["keyboard", k], "rows must be 1 or more strings of 1…16 keys each")
                }
                km.keyboardRows = rows
            }
        }
        return km
    }

    static func section(_ node: TOMLNode, path: [String], doc: TOMLDocument,
                        knownGestures: [String]) throws(ConfigError) -> KeymapSection {
        guard let t = node.table else { throw doc.error(path, "[\(path.joined(separator: "."))] must be a table") }
        var sec = KeymapSection()
        for (k, v) in t {
            switch k {
            case "gestures":
                guard let g = v.table else { throw doc.error(path + [k], "gestures must be a table") }
                for (gesture, a) in g {
                    guard knownGestures.contains(gesture) else {
                        throw doc.error(path + [k, gesture], "unknown gesture \"\(gesture)\" (known: \(knownGestures.joined(separator: ", ")))")
                    }
                    sec.gestures[gesture] = try action(a, path: path + [k, gesture], doc: doc)
                }
            case "voice":
                guard let g = v.table else { throw doc.error(path + [k], "voice must be a table") }
                for (phrase, a) in g {
                    let p = normalise(phrase)
                    guard !p.isEmpty, p.allSatisfy({ $0.isLetter || $0 == " " || $0 == "'" }) else {
                        throw doc.error(path + [k, phrase], "voice phrase \"\(phrase)\" must be words of letters")
                    }
                    sec.voice[p] = try action(a, path: path + [k, phrase], doc: doc)
                }
            default:
                throw doc.error(path + [k], "unknown key \"\(k)\" in [\(path.joined(separator: "."))] (known: gestures, voice)")
            }
        }
        return sec
    }

    static func action(_ v: TOMLNode, path: [String], doc: TOMLDocument) throws(ConfigError) -> Action {
        guard let s = v.string else { throw doc.error(path, "an action must be a string") }
        guard let a = Action(rawValue: s) else {
            throw doc.error(path, "unknown action \"\(s)\" (known: \(Action.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return a
    }
}
