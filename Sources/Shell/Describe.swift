import Foundation
import Localization

/// A text field's contents as plain mode reports them.
public struct PlainField: Sendable, Equatable {
    public var id: String
    public var label: String
    public var text: String
    public init(id: String, label: String, text: String) { self.id = id; self.label = label; self.text = text }
}

/// A screen with text fields whose contents plain mode reports as they change.
public protocol PlainFields {
    /// The fields, labelled in `catalog`'s language.
    func plainFields(_ catalog: Catalog) -> [PlainField]
}

extension NoteEditorScreen: PlainFields {
    public func plainFields(_ catalog: Catalog) -> [PlainField] {
        [PlainField(id: "note-editor.text", label: catalog.tr("Note"), text: field.text)]
    }
}

extension ConversationScreen: PlainFields {
    public func plainFields(_ catalog: Catalog) -> [PlainField] {
        [PlainField(id: "conversation.compose", label: catalog.tr("Message"), text: compose.text)]
    }
}

/// What a screen-reader user needs to know about the shell at one moment, for `describeChanges`.
public struct PlainView: Sendable, Equatable {
    /// Titles of the open screens, the launcher first.
    public var screens: [String]
    /// The focused target's label.
    public var focus: String?
    /// Labels of the targets shown, by id (activations name the target by its label).
    public var labels: [String: String]
    public var fields: [PlainField]
    public var dictating: Bool
    public var notice: String?
    /// The settings banner: a change being tried, settings wrong at start, what became of a change.
    public var settings: String?
    /// What was performed since the last view (activations, back, suggestions…).
    public var performed: [ActionRecord]
    /// Ring the bell on an activation.
    public var bell: Bool

    public init(screens: [String] = [], focus: String? = nil, labels: [String: String] = [:], fields: [PlainField] = [],
                dictating: Bool = false, notice: String? = nil, performed: [ActionRecord] = [], bell: Bool = false) {
        self.screens = screens; self.focus = focus; self.labels = labels; self.fields = fields
        self.dictating = dictating; self.notice = notice; self.performed = performed; self.bell = bell
    }

    /// The view of `state`, with the records performed since the last view.
    public init(_ state: ShellState, performed: [ActionRecord] = []) {
        var labels: [String: String] = [:]
        for t in state.hitMap.targets { labels[t.id] = t.label }
        self.init(screens: state.stack.map { $0.title(in: state.catalog) },
                  focus: state.focus.focused.flatMap { labels[$0] },
                  labels: labels,
                  fields: (state.top as? PlainFields)?.plainFields(state.catalog) ?? [],
                  dictating: state.dictating, notice: state.shownNotice, performed: performed,
                  bell: state.settings.bellOnActivate)
        settings = state.settingsBanner
    }
}

extension ActionRecord {
    /// Whether this fired a target (as opposed to moving, scrolling or leaving): plain mode says "activated"
    /// and the bell setting rings for it.
    public var isActivation: Bool {
        target != nil && !["back", "home", "scroll", "next", "previous", "quit", "help"].contains(action)
    }
}

/// One line per change between two views, in the order a listener needs them: what was done, where the user
/// now is, what the text now says, then dictation and notices. `old` nil describes the first view. Pure.
///
/// Lines never contain escape sequences; an activation with the bell setting on ends with BEL (U+0007).
public func describeChanges(_ old: PlainView?, _ new: PlainView) -> [String] {
    var out: [String] = []
    let oldLabels = old?.labels ?? [:]
    for r in new.performed {
        guard r.isActivation, let id = r.target else { continue }
        let label = oldLabels[id] ?? new.labels[id] ?? id
        let bell = new.bell ? "\u{07}" : ""
        if id.contains(".suggestion.") || r.action == "commit-word" {
            // Committing by gesture (the tongue) takes the first suggestion, whatever is focused.
            let word = id.contains(".suggestion.") ? label : oldLabels.first { $0.key.hasSuffix(".suggestion.0") }?.value
            out.append("suggestion committed" + (word.map { ": " + $0.replacingOccurrences(of: "★ ", with: "") } ?? "") + bell)
        } else {
            out.append("activated \(label)\(bell)")
        }
    }
    let before = old?.screens ?? []
    if new.screens != before, let title = new.screens.last {
        if new.screens.count < before.count, Array(before.prefix(new.screens.count)) == new.screens {
            out.append("back to \(title)")
        } else {
            out.append("screen opened \(title)")
        }
    }
    if new.focus != old?.focus || new.screens != before {
        if let f = new.focus { out.append("focus on \(f)") } else if old?.focus != nil, new.screens == before { out.append("no focus") }
    }
    let oldFields = Dictionary((old?.fields ?? []).map { ($0.id, $0.text) }, uniquingKeysWith: { a, _ in a })
    for f in new.fields {
        let was = oldFields[f.id]
        guard was != f.text else { continue }
        if let was, f.text.hasPrefix(was) {
            out.append("typed \(quoted(String(f.text.dropFirst(was.count)))), \(f.label): \(quoted(f.text))")
        } else if let was, was.hasPrefix(f.text) {
            out.append("deleted \(quoted(String(was.dropFirst(f.text.count)))), \(f.label): \(quoted(f.text))")
        } else if was != nil || !f.text.isEmpty {
            out.append("changed, \(f.label): \(quoted(f.text))")
        }
    }
    if new.dictating != (old?.dictating ?? false) { out.append(new.dictating ? "dictation on" : "dictation off") }
    if new.notice != old?.notice, let n = new.notice { out.append("notice: \(n)") }
    if new.settings != old?.settings, let n = new.settings { out.append("settings: \(n)") }
    return out.map(plainSafe)
}

/// Text in double quotes, with new lines shown as `\n` so one change stays one line.
func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\n", with: "\\n") + "\"" }

/// A line with every control character but BEL removed, so a braille display shows it as it is.
func plainSafe(_ line: String) -> String {
    String(String.UnicodeScalarView(line.unicodeScalars.filter {
        $0 == "\u{07}" || $0.properties.generalCategory != .control
    }))
}
