import ArgumentParser
import Foundation
import PtyHost
import Runtime
import Shell

/// `handsfree point --into SINK ACTION…`: moves the desktop pointer, clicks or scrolls through an output
/// sink once, without the shell, so a script, the bench or a test drives the pointer the way the Desktop
/// screen would.
struct PointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "point",
        abstract: tr("Move the desktop pointer, click or scroll through an output sink, then exit."),
        discussion: tr("""
        Actions, done in order: move X Y (fractions 0-1 of the desktop), by DX DY (pixels), click [BUTTON], \
        down [BUTTON], up [BUTTON], scroll DY [DX] (wheel notches, positive is down and right, at most 1000 \
        each way; --count is 1 to 10). BUTTON is \
        left (the default), right or middle. A sink without a pointer, or one that cannot be reached, exits 1 \
        with the reason. Example: handsfree point --into wayland move 0.75 0.5 click left
        """))

    @Option(name: .customLong("into"),
            help: ArgumentHelp(tr("The desktop sink: {sinks}.", ["sinks": OutputSinks.help(CommandLineText.catalog)]), valueName: "sink"),
            transform: { spec in
                do throws(OutputSinkError) { return try OutputSinks.parse(spec) } catch { throw ValidationError(error.message.shown) }
            })
    var into: OutputChoice
    @Option(help: ArgumentHelp(tr("How many times each click presses the button (2: a double click)."))) var count = 1
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("The actions."))) var actions: [String] = []

    func validate() throws {
        if into.kind.scheme == PtySink.kind.scheme {
            throw ValidationError(tr("pty has no pointer: point into a desktop sink (x11, wayland)"))
        }
        if !(1...PointerEvent.mostClicks).contains(count) {
            throw ValidationError(tr("--count must be 1 to {most} (presses of one click)", ["most": "\(PointerEvent.mostClicks)"]))
        }
        _ = try Self.events(actions, count: count)
    }

    func run() throws {
        let events = try Self.events(actions, count: count)
        let sink = into.open(OutputSetup(command: []))
        do throws(OutputSinkError) {
            try sink.check()
            try sink.start(rows: 24, cols: 80)
            for event in events { try sink.pointer().point(event) }
        } catch {
            throw SetupError(error.message.shown)
        }
    }

    /// The pointer events the action words ask for, in order.
    static func events(_ words: [String], count: Int) throws(ValidationError) -> [PointerEvent] {
        var events: [PointerEvent] = []
        var rest = words[...]
        func number(_ what: String) throws(ValidationError) -> Double {
            guard let word = rest.popFirst(), let value = Double(word), value.isFinite else {
                throw ValidationError(tr("{word} needs a number", ["word": what]))
            }
            return value
        }
        func button() -> PointerButton {
            guard let word = rest.first, let button = PointerButton(rawValue: word) else { return .left }
            rest.removeFirst()
            return button
        }
        while let action = rest.popFirst() {
            switch action {
            case "move":
                let x = try number("move X"), y = try number("move Y")
                events.append(.moveTo(x: x, y: y))
            case "by":
                let dx = try number("by DX"), dy = try number("by DY")
                events.append(.moveBy(dx: dx, dy: dy))
            case "click": events.append(.click(button(), count: count))
            case "down": events.append(.button(button(), down: true))
            case "up": events.append(.button(button(), down: false))
            case "scroll":
                let most = PointerEvent.mostNotches
                guard let word = rest.popFirst(), let dy = Int(word) else {
                    throw ValidationError("scroll DY needs a whole number of notches")
                }
                var dx = 0
                if let word = rest.first, let notches = Int(word) { dx = notches; rest.removeFirst() }
                guard abs(Double(dy)) <= Double(most), abs(Double(dx)) <= Double(most) else {
                    throw ValidationError("scroll turns at most \(most) notches each way, not \(dy)\(dx == 0 ? "" : " \(dx)")")
                }
                events.append(.scroll(dx: dx, dy: dy))
            default:
                throw ValidationError("unknown action \"\(action)\" (known: move X Y, by DX DY, click, down, up, scroll DY [DX])")
            }
        }
        if events.isEmpty { throw ValidationError("nothing to do: give an action such as move 0.5 0.5 or click") }
        return events
    }
}
