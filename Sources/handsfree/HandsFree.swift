import Foundation
import Runtime
import ArgumentParser

@main
struct HandsFree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handsfree",
        abstract: tr("A hands-free shell driven by face gestures, gaze and voice."),
        subcommands: [
            RunCommand.self, SetupCommand.self, DemoCommand.self, LayoutCommand.self,
            Replay.self, Watch.self, Record.self, Check.self, Transcribe.self, Listen.self,
            Predict.self, Expand.self, KSR.self, Words.self, Bench.self, DoctorCommand.self, StatsCommand.self, WebcamCommand.self,
            TypeCommand.self, PointCommand.self, ControlsCommand.self, SayCommand.self, SettingsReferenceCommand.self,
        ]
    )

    /// Sends logs to a file before any command runs, so nothing is ever written over the UI.
    ///
    /// A problem with an input file (`SetupError`, already `path: reason` or `file:line: reason`) exits 1
    /// with that line alone; usage text and status 64 are kept for mistakes in the command line itself.
    static func main() {
        LogSetup.bootstrap()
        // The Python helpers and voice workers this process starts name the command that installs what they
        // miss: the one of this installation (or source tree), found from the binary.
        setenv(PythonEnv.installScriptVariable, PythonEnv.installScript, 0)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let e as SetupError {
            FileHandle.standardError.write(Data("handsfree: \(e.message.shown)\n".utf8))
            Foundation.exit(1)
        } catch let e as SpeechCommandError {
            FileHandle.standardError.write(Data("handsfree: \(e.description)\n".utf8))
            Foundation.exit(1)
        } catch {
            // ArgumentParser's own output (help, usage, its errors), in the user's language.
            let text = ArgumentText.translate(fullMessage(for: error))
            let code = exitCode(for: error)
            if !text.isEmpty {
                if code.isSuccess { print(text) } else { FileHandle.standardError.write(Data((text + "\n").utf8)) }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
