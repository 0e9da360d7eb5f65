import ArgumentParser
import Foundation
import Localization
import Runtime
import Shell

/// `handsfree controls [--json]`, `handsfree controls --press NAME|NUMBER`: the focused window's buttons,
/// links, menus and fields as the accessibility bus shows them, and acting on one by name, once, without the
/// shell (as `type` and `point` do for keys and the pointer).
struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: tr("List the focused window's controls, or press one by name or number, then exit."),
        discussion: tr("""
        Controls are read from the accessibility bus (AT-SPI), as screen readers read them: buttons, links, \
        menus and menu items, check boxes and radio buttons, tabs, combo boxes, list and tree items, text \
        fields. --press performs a control's own action (click, press, jump, ...), focuses a text field, or \
        clicks the centre of a control that has no action. A name that matches nothing, or several controls, \
        exits 1 with the reason. Example: handsfree controls --press "Send"
        """))

    @Flag(help: ArgumentHelp(tr("Print the list as JSON (role, name, states, actions, extents)."))) var json = false
    @Option(help: ArgumentHelp(tr("Press the control with this name or number in the list."), valueName: "name|number"))
    var press: String?
    @Option(help: ArgumentHelp(tr("Read the window whose application or title holds this text, not the focused one."),
                               valueName: "text"))
    var window: String?
    @Flag(help: .hidden) var serve = false
    @Option(help: .hidden) var firstGeneration = 0

    func validate() throws {
        if let press, press.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError(tr("--press needs a name or a number"))
        }
        if json && press != nil { throw ValidationError(tr("--json lists; --press acts: give one of them")) }
    }

    func run() throws {
        // The shell's worker process that reads the bus for the Controls view (`LiveControls`).
        if serve { throw ExitCode(LiveControls.serve(firstGeneration: firstGeneration)) }
        let client = AccessibilityClient()
        // A press needs no list's actions or extents: it asks the one element for its own, at once.
        let snapshot = client.read(window: window, details: press == nil)
        guard let press else {
            if json {
                FileHandle.standardOutput.write(Self.json(snapshot))
            } else {
                print(Self.text(snapshot), terminator: "")
            }
            if snapshot.controls.isEmpty, let problem = Self.problem(snapshot) { throw SetupError(problem) }
            return
        }
        if snapshot.controls.isEmpty, let problem = Self.problem(snapshot) { throw SetupError(problem) }
        let where_ = Self.place(snapshot)
        switch snapshot.match(press) {
        case .none:
            throw SetupError(tr("no control in {place} is called \"{name}\"", ["place": where_, "name": ControlNames.clean(press, limit: 60)]))
        case .several(let found):
            let listed = found.prefix(8).map { "\($0.index + 1) \(snapshot.label($0))" }.joined(separator: ", ")
            throw SetupError(trn("{n} control in {place} is called \"{name}\" ({list}): say which by number",
                                 "{n} controls in {place} are called \"{name}\" ({list}): say which by number", found.count,
                                 ["place": where_, "name": ControlNames.clean(press, limit: 60), "list": listed]))
        case .one(let control):
            let outcome: ControlOutcome
            do throws(ControlsError) {
                outcome = try client.perform(ControlTarget(generation: snapshot.generation, control: control))
            } catch {
                throw SetupError(error.message)
            }
            let label = snapshot.label(control)
            switch outcome {
            case .acted(let action): print("\(label): \(action)")
            case .focused: print(tr("{control}: focused", ["control": label]))
            case .needsPointer(let extents):
                try Self.click(extents, screen: client.screenSize())
                print(tr("{control}: clicked at its centre", ["control": label]))
            }
        }
    }

    /// Clicks the centre of `extents` through the desktop's own pointer sink.
    static func click(_ extents: ControlExtents, screen: (width: Int, height: Int)?) throws {
        guard let screen, screen.width > 0, screen.height > 0 else {
            throw SetupError(tr("the control has no action, and the screen's size is unknown, so it cannot be clicked"))
        }
        let choice: OutputChoice
        do throws(OutputSinkError) { choice = try OutputSinks.parse("auto") } catch { throw SetupError(error.message.shown) }
        let sink = choice.open(OutputSetup(command: []))
        let x = (Double(extents.x) + Double(extents.width) / 2) / Double(screen.width)
        let y = (Double(extents.y) + Double(extents.height) / 2) / Double(screen.height)
        do throws(OutputSinkError) {
            try sink.check()
            try sink.start(rows: 24, cols: 80)
            try sink.pointer().point(.moveTo(x: x, y: y))
            try sink.pointer().point(.click(.left, count: 1))
        } catch {
            throw SetupError(error.message.shown)
        }
    }

    static func place(_ snapshot: ControlsSnapshot) -> String {
        if snapshot.window.isEmpty { return snapshot.application.isEmpty ? tr("the window") : snapshot.application }
        return snapshot.application.isEmpty ? snapshot.window : "\(snapshot.application) \"\(snapshot.window)\""
    }

    /// Why the list is empty or partial, in the language of this run.
    static func problem(_ snapshot: ControlsSnapshot) -> UIMessage? {
        snapshot.problemMessage ?? snapshot.problem.map(UIMessage.verbatim)
    }

    /// The list as lines: a heading with the window, then one line a control.
    static func text(_ snapshot: ControlsSnapshot) -> String {
        var out = ""
        if snapshot.controls.isEmpty && snapshot.problem != nil { return "" }
        if !snapshot.application.isEmpty || !snapshot.window.isEmpty { out += place(snapshot) + "\n" }
        let width = String(snapshot.controls.count).count
        for control in snapshot.controls {
            let number = String(control.index + 1)
            var line = String(repeating: " ", count: width - number.count) + number + "  "
            line += control.role.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0) + " "
            line += snapshot.label(control)
            let states = control.states.words
            if !states.isEmpty { line += "  [" + states.joined(separator: ", ") + "]" }
            if !control.actions.isEmpty { line += "  (" + control.actions.joined(separator: ", ") + ")" }
            if let e = control.extents, e.isUsable { line += "  at \(e.x),\(e.y) \(e.width)x\(e.height)" }
            out += line + "\n"
        }
        if let problem = Self.problem(snapshot), !snapshot.controls.isEmpty { out += problem.shown + "\n" }
        return out
    }

    /// The list as one JSON object.
    static func json(_ snapshot: ControlsSnapshot) -> Data {
        let controls: [[String: Any]] = snapshot.controls.map { control in
            var item: [String: Any] = [
                "number": control.index + 1, "role": control.role.rawValue, "toolkitRole": control.roleName,
                "name": control.name, "label": snapshot.label(control), "states": control.states.words,
                "actions": control.actions,
            ]
            if let e = control.extents {
                item["extents"] = ["x": e.x, "y": e.y, "width": e.width, "height": e.height]
            }
            return item
        }
        var object: [String: Any] = [
            "application": snapshot.application, "window": snapshot.window, "controls": controls,
            "truncated": snapshot.truncated,
        ]
        if let problem = snapshot.problem { object["problem"] = problem }
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }
}
