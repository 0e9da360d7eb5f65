import Foundation
import Testing

/// Locates `../shared/data/speech/pocketsphinx-test` beside the package root, if present.
enum TestData {
    /// The package root, found from this file's path (Tests/SpeechTests/TestData.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The CMU speech test data folder, or nil when `../shared/data` is absent (CI without data).
    static let speechDir: URL? = {
        let u = packageRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/data/speech/pocketsphinx-test")
        return FileManager.default.fileExists(atPath: u.path) ? u : nil
    }()

    /// Why a data-reading test is skipped.
    static let missingMessage = "skipped: ../shared/data/speech/pocketsphinx-test is absent beside the package"

    /// Whether Debian's en-us model is installed.
    static let modelInstalled = FileManager.default.fileExists(
        atPath: "/usr/share/pocketsphinx/model/en-us/en-us/mdef")

    static var haveSpeechData: Bool { speechDir != nil && modelInstalled }

    /// The project venv's Python (`.venv`, made by scripts/python-env.sh).
    static let venvPython = packageRoot.appendingPathComponent(".venv/bin/python").path

    /// Whether the project's venv can import `modules` ("a, b").
    static func venvImports(_ modules: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: venvPython) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: venvPython)
        p.arguments = ["-c", "import " + modules]
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Waits until process `pid`, killed, has exited (a zombie its parent has not reaped yet, or gone), at
    /// most `seconds`: a request written to it now finds it dead, not dying.
    static func waitUntilGone(_ pid: pid_t, seconds: Double = 5) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        repeat {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            // The state follows the command's name, which is in parentheses and may hold any character.
            if let name = stat.lastIndex(of: ")"), stat[stat.index(after: name)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z") {
                return true
            }
            usleep(5_000)
        } while Date() < end
        return false
    }
}
