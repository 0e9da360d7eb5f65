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
}
