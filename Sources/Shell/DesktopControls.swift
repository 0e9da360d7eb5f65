import Foundation
import Localization

/// What kind of thing a control on the desktop is, as the Controls view groups it and as a spoken command
/// names it ("click", "check", "open", "focus").
///
/// The accessibility client maps the toolkit's many roles onto these; anything else is not listed.
public enum ControlRole: String, Hashable, Sendable, CaseIterable, Codable {
    case button, toggle, link, menu, menuItem = "menu item", checkBox = "check box", radioButton = "radio button"
    case tab, comboBox = "combo box", listItem = "list item", treeItem = "tree item"
    case textField = "text field", passwordField = "password field"

    /// The word a user sees for the role, plural, as a group's heading.
    /// The heading over the role's controls, in English (marked: `tr` gives it in the language).
    public var heading: String {
        switch self {
        case .button: N_("Buttons")
        case .toggle: N_("Toggle buttons")
        case .link: N_("Links")
        case .menu: N_("Menus")
        case .menuItem: N_("Menu items")
        case .checkBox: N_("Check boxes")
        case .radioButton: N_("Radio buttons")
        case .tab: N_("Tabs")
        case .comboBox: N_("Combo boxes")
        case .listItem: N_("List items")
        case .treeItem: N_("Tree items")
        case .textField: N_("Text fields")
        case .passwordField: N_("Password fields")
        }
    }

    /// Whether typing, not an action, is what the control is for: acting on it focuses it.
    public var takesText: Bool { self == .textField || self == .passwordField }
}

/// The states of a control that matter to a user acting on it.
public struct ControlStates: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let checked = ControlStates(rawValue: 1 << 0)
    public static let mixed = ControlStates(rawValue: 1 << 1)
    public static let selected = ControlStates(rawValue: 1 << 2)
    public static let expanded = ControlStates(rawValue: 1 << 3)
    public static let focused = ControlStates(rawValue: 1 << 4)
    /// Greyed out: it takes no action now.
    public static let disabled = ControlStates(rawValue: 1 << 5)
    public static let editable = ControlStates(rawValue: 1 << 6)
    public static let pressed = ControlStates(rawValue: 1 << 7)
    public static let checkable = ControlStates(rawValue: 1 << 8)

    /// The states as words, in a fixed order (`--json`, the list's state column).
    public var words: [String] {
        var out: [String] = []
        if contains(.checked) { out.append("checked") } else if contains(.checkable) { out.append("not checked") }
        if contains(.mixed) { out.append("mixed") }
        if contains(.pressed) { out.append("pressed") }
        if contains(.selected) { out.append("selected") }
        if contains(.expanded) { out.append("expanded") }
        if contains(.focused) { out.append("focused") }
        if contains(.disabled) { out.append("disabled") }
        return out
    }
}

/// A rectangle on the desktop, in pixels (the accessibility bus's screen coordinates).
public struct ControlExtents: Hashable, Sendable, Codable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// Whether it is somewhere a pointer can click (a size, not off at -1 or beyond any screen).
    public var isUsable: Bool { width > 0 && height > 0 && x >= 0 && y >= 0 && x < 1 << 16 && y < 1 << 16 }
}

/// One actionable element of a window, as read from the accessibility bus: a pure value that replays.
public struct DesktopControl: Hashable, Sendable, Codable {
    /// Its place in the walk (0-based, reading order): the client finds the element again by it.
    public var index: Int
    public var role: ControlRole
    /// The toolkit's own role name ("push button", "page tab"), for `--json` and logs.
    public var roleName: String
    /// Its accessible name, cleaned (`ControlNames.clean`); empty when the application gave none.
    public var name: String
    public var states: ControlStates
    /// The actions the element offers, by their toolkit names (`click`, `press`, `activate`, `jump`, …).
    public var actions: [String]
    public var extents: ControlExtents?

    public init(index: Int, role: ControlRole, roleName: String, name: String, states: ControlStates = [],
                actions: [String] = [], extents: ControlExtents? = nil) {
        self.index = index; self.role = role; self.roleName = roleName; self.name = name
        self.states = states; self.actions = actions; self.extents = extents
    }
}

/// The controls of the focused window at one moment, or why there are none: what `.controlsRead` carries.
public struct ControlsSnapshot: Hashable, Sendable, Codable {
    /// Counts the readings of one client, so an action names the reading it was chosen from.
    public var generation: Int
    /// The application's name ("zenity", "Firefox"), cleaned.
    public var application: String
    /// The window's title, cleaned.
    public var window: String
    /// The controls in reading order; `DesktopControl.index` is the position here.
    public var controls: [DesktopControl]
    /// More elements were there than the walk reads (`ControlsLimits.nodes`): the list is the first part.
    public var truncated: Bool
    /// Why the list is empty or partial, in plain English ("no window has the focus", an application that
    /// did not answer), for logs and `controls --json`; nil when the walk was whole.
    public var problem: String?
    /// `problem` as the user reads it, in the language.
    public var problemMessage: UIMessage?

    public init(generation: Int, application: String, window: String, controls: [DesktopControl],
                truncated: Bool = false, problem: UIMessage? = nil) {
        self.generation = generation; self.application = application; self.window = window
        self.controls = controls; self.truncated = truncated; self.problem = problem?.english; problemMessage = problem
    }

    /// The label each control is shown and matched by: its name, or for one without a name its role and its
    /// number among the controls of that role ("button 2").
    public func label(_ control: DesktopControl) -> String {
        if !control.name.isEmpty { return control.name }
        let ordinal = controls.prefix(while: { $0.index != control.index }).filter { $0.role == control.role }.count + 1
        return "\(control.role.rawValue) \(ordinal)"
    }
}

/// Which control an action is for, chosen from one reading: what `.performControl` carries.
///
/// The client checks that the element at `index` of reading `generation` still has this role and name before
/// it acts, so nothing fires on an element that changed or went away since the list was drawn.
public struct ControlTarget: Hashable, Sendable, Codable {
    public var generation: Int
    public var index: Int
    public var role: ControlRole
    public var name: String
    /// Where a pointer click would go when the element has no action (its extents' centre), in pixels.
    public var extents: ControlExtents?

    public init(generation: Int, control: DesktopControl) {
        self.generation = generation; index = control.index; role = control.role; name = control.name
        extents = control.extents
    }
}

/// Limits on what is read from another program, so a huge, cyclic or hostile tree is cut, never followed.
public enum ControlsLimits {
    /// Elements visited in one walk.
    public static let nodes = 20_000
    /// Children read of one element (a window of 2,000 buttons in one grid is read whole; a container of
    /// 100,000 gives its first ones).
    public static let children = 5_000
    /// Children read of a table or tree that makes its rows on demand (each costs the application a new
    /// object and several calls): about the rows a screen shows.
    public static let managedChildren = 64
    /// How deep a walk goes below the window.
    public static let depth = 64
    /// Characters of a name kept; a longer one is cut with an ellipsis.
    public static let nameLength = 120
}

/// Cleaning and comparing the names other programs give their controls.
public enum ControlNames {
    /// Makes an untrusted name safe to show and log: escape sequences and control characters removed (they
    /// must never reach the terminal), runs of white space made one space, cut to `limit` characters.
    public static func clean(_ raw: String, limit: Int = ControlsLimits.nameLength) -> String {
        // Most names are printable ASCII with one space between words ("Button 12"): already clean, and a
        // list of thousands of controls is not rebuilt character by character.
        if raw.utf8.count <= limit, isPlain(raw) { return raw }
        var out = String.UnicodeScalarView()
        var scalars = raw.unicodeScalars.makeIterator()
        var lastWasSpace = true
        var kept = 0
        func space() {
            if !lastWasSpace { out.append(" "); lastWasSpace = true }
        }
        while let s = scalars.next() {
            if kept > limit + 1 { break }
            switch s.value {
            case 0x1B:
                // ESC: drop the whole sequence. CSI runs to a final byte 0x40–0x7E; OSC, DCS, APC, PM and SOS
                // to BEL or ESC \; anything else is ESC plus one character.
                guard let next = scalars.next() else { break }
                switch next {
                case "[":
                    while let c = scalars.next(), !(0x40...0x7E).contains(c.value) {}
                case "]", "P", "_", "^", "X":
                    while let c = scalars.next() {
                        if c.value == 0x07 || c.value == 0x9C { break }
                        if c.value == 0x1B { _ = scalars.next(); break }
                    }
                default: break
                }
            case 0x9B:
                while let c = scalars.next(), !(0x40...0x7E).contains(c.value) {}
            case 0x9D, 0x90, 0x9E, 0x9F, 0x98:
                while let c = scalars.next() {
                    if c.value == 0x07 || c.value == 0x9C { break }
                }
            case 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                space()
            case 0..<0x20, 0x7F..<0xA0, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF:
                // Other controls, and the direction marks and overrides that make text read other than it is.
                break
            default:
                if s.properties.generalCategory == .spaceSeparator { space(); continue }
                out.append(s)
                lastWasSpace = false
                kept += 1
            }
        }
        var text = String(out)
        while text.last == " " { text.removeLast() }
        if text.count > limit { text = String(text.prefix(limit - 1)) + "…" }
        return text
    }

    /// Whether `text` is printable ASCII, not empty, with single spaces only between words.
    static func isPlain(_ text: String) -> Bool {
        var previous: UInt8 = 0x20
        for byte in text.utf8 {
            guard (0x20...0x7E).contains(byte), !(byte == 0x20 && previous == 0x20) else { return false }
            previous = byte
        }
        return previous != 0x20
    }

    /// The form two names are compared in: accelerator underscores and trailing ellipses gone, letters in
    /// lower case, punctuation at the edges of words dropped, one space between words.
    public static func normalise(_ name: String) -> String {
        var text = name.replacingOccurrences(of: "…", with: " ").replacingOccurrences(of: "...", with: " ")
        text = text.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "&", with: " and ")
        text = text.lowercased()
        let words = text.split(whereSeparator: { $0.isWhitespace }).map { word in
            String(word).trimmingCharacters(in: .punctuationCharacters.union(.symbols))
        }.filter { !$0.isEmpty }
        return words.joined(separator: " ")
    }
}

/// What a name or number given by the user picks among a reading's controls.
public enum ControlMatch: Hashable, Sendable {
    case one(DesktopControl)
    case none
    case several([DesktopControl])
}

extension ControlsSnapshot {
    /// The control `query` names: a number is the control's place in the list (1-based); a name matches a
    /// control's label when both normalise to the same words, else when the label holds the query's words
    /// in order. Several controls with the same name are told apart by number.
    public func match(_ query: String) -> ControlMatch {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        if let number = Int(trimmed) {
            guard number >= 1, number <= controls.count else { return .none }
            return .one(controls[number - 1])
        }
        let wanted = ControlNames.normalise(trimmed)
        if wanted.isEmpty { return .none }
        let labelled = controls.map { (control: $0, words: ControlNames.normalise(label($0))) }
        let exact = labelled.filter { $0.words == wanted }.map(\.control)
        if exact.count == 1 { return .one(exact[0]) }
        if exact.count > 1 { return .several(exact) }
        let padded = " " + wanted + " "
        let partial = labelled.filter { (" " + $0.words + " ").contains(padded) }.map(\.control)
        if partial.count == 1 { return .one(partial[0]) }
        if partial.count > 1 { return .several(partial) }
        return .none
    }
}

/// What acting on a control came to, as the runtime reports it (`.controlPerformed`).
public enum ControlReport: Hashable, Sendable, Codable {
    /// The control's own action ran.
    case acted(name: String, action: String)
    /// A text field has the focus: what is typed next goes there.
    case focused(name: String)
    /// The control has no action: the pointer clicks here (fractions of the desktop).
    case pointer(x: Double, y: Double)
    /// It could not be done, and why (in English; `message` in the language); `stale` when the element is
    /// gone or changed (the list is read again).
    case failed(reason: String, stale: Bool, message: UIMessage? = nil)

    /// A failure worded for translation (`reason` is its English).
    public static func failed(_ message: UIMessage, stale: Bool) -> ControlReport {
        .failed(reason: message.english, stale: stale, message: message)
    }
}
