import ArgumentParser

@main
struct HandsFree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handsfree",
        abstract: "A hands-free shell driven by face gestures, gaze and voice.",
        subcommands: [
            RunCommand.self, DemoCommand.self, LayoutCommand.self,
            Replay.self, Watch.self, Record.self, Check.self, Transcribe.self, Listen.self,
            Predict.self, KSR.self, Words.self, Bench.self,
        ]
    )

    /// Sends logs to a file before any command runs, so nothing is ever written over the UI.
    static func main() {
        LogSetup.bootstrap()
        Self.main(nil)
    }
}
