import ArgumentParser

@main
struct HandsFree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handsfree",
        abstract: "A hands-free shell driven by face gestures, gaze and voice.",
        subcommands: [RunCommand.self, DemoCommand.self, LayoutCommand.self, BenchUIParent.self]
    )
}
