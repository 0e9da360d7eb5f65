import Foundation

/// Every folder the shell reads or writes, found once per command from the environment and `--data-dir`.
///
/// - data (notes, messages, drafts, learned words, metrics): `--data-dir`, else `$HANDSFREE_DATA_DIR`, else
///   `$XDG_DATA_HOME/handsfree`, else `~/.local/share/handsfree`;
/// - config (`settings.toml`): `$HANDSFREE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/handsfree`, else
///   `~/.config/handsfree`;
/// - state (first-start marker, action log, debug log): `$XDG_STATE_HOME/handsfree`, else
///   `~/.local/state/handsfree`;
/// - cache (the word lists compiled for a quick start): `$XDG_CACHE_HOME/handsfree`, else `~/.cache/handsfree`;
/// - shipped (keymaps, gesture config, word lists): see `ProjectPaths`.
public struct UserPaths: Sendable {
    public var data: URL
    public var config: URL
    public var state: URL
    /// Files rebuilt from others when missing; deleting the folder loses nothing.
    public var cache: URL
    /// The folder of shipped keymaps, config and word lists, and the rule that found it (nil: none found).
    public var shipped: ProjectPaths.Found?

    /// The paths for an environment (pure: for tests) and the `--data-dir` flag.
    public init(environment env: [String: String], dataDir: String?, shipped: ProjectPaths.Found? = nil) {
        func set(_ key: String) -> String? { env[key].flatMap { $0.isEmpty ? nil : $0 } }
        let home = URL(fileURLWithPath: set("HOME") ?? NSTemporaryDirectory())
        if let flag = dataDir, !flag.isEmpty { data = URL(fileURLWithPath: flag) }
        else if let d = set("HANDSFREE_DATA_DIR") { data = URL(fileURLWithPath: d) }
        else if let x = set("XDG_DATA_HOME") { data = URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        else { data = home.appendingPathComponent(".local/share/handsfree") }
        if let d = set("HANDSFREE_CONFIG_DIR") { config = URL(fileURLWithPath: d) }
        else if let x = set("XDG_CONFIG_HOME") { config = URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        else { config = home.appendingPathComponent(".config/handsfree") }
        if let x = set("XDG_STATE_HOME") { state = URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        else { state = home.appendingPathComponent(".local/state/handsfree") }
        if let x = set("XDG_CACHE_HOME") { cache = URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        else { cache = home.appendingPathComponent(".cache/handsfree") }
        self.shipped = shipped
    }

    /// The paths of this process: its environment, `--data-dir`, and the shipped data found for its binary.
    public static func current(dataDir: String? = nil) -> UserPaths {
        UserPaths(environment: ProcessInfo.processInfo.environment, dataDir: dataDir, shipped: ProjectPaths.found)
    }

    /// `settings.toml`, the Settings screen's values.
    public var settings: URL { config.appendingPathComponent("settings.toml") }
    /// The last settings the user acted with, beside `settings.toml` (`LastGoodSettings`).
    public var lastGoodSettings: URL { config.appendingPathComponent("settings.last-good.toml") }
    /// Pointer calibrations, one per tracker source.
    public var calibration: URL { config.appendingPathComponent("calibration.toml") }
    /// Gesture thresholds from the gesture calibration, one table per tracker source.
    public var gestureCalibration: URL { config.appendingPathComponent("gesture-calibration.toml") }
    /// Where `handsfree setup` keeps the webcam's face model (`FaceModel`).
    public var models: URL { data.appendingPathComponent("models") }
    /// The face tracker setup chose (`TrackerFile`).
    public var tracker: URL { config.appendingPathComponent(TrackerFile.name) }
    /// Whether anything of the user's is set up: settings saved (or a last good copy of them), or a tracker
    /// chosen. The first `run` without any opens setup.
    public var isSetUp: Bool {
        [settings, lastGoodSettings, tracker].contains { FileManager.default.fileExists(atPath: $0.path) }
    }
    /// The learned words, the same file for `run`, `words` and `predict`.
    public var userWords: URL { data.appendingPathComponent("user-words.txt") }
    /// The sentences the user committed (`SentenceHistory`), beside the learned words.
    public var sentenceHistory: URL { data.appendingPathComponent("sentences.txt") }
    /// The shipped word lists as built in memory (`WordPredictor.load(cache:)`), rebuilt when they change.
    public var wordCache: URL { cache.appendingPathComponent("words-en.bin") }
    /// One JSON line per session (`handsfree stats`).
    public var metrics: URL { data.appendingPathComponent(MetricsFile.name) }
    /// The actions performed, one JSON line each.
    public var actionLog: URL { state.appendingPathComponent("shell.log") }
    /// The cepstral mean PocketSphinx settled on for this user with a capture device (or `--audio` files).
    public func cepstralMean(device: String) -> URL {
        let safe = String(device.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(60))
        return state.appendingPathComponent("cmn-\(safe.isEmpty ? "default" : safe).txt")
    }
    /// swift-log's output (`$HANDSFREE_LOG` overrides it).
    public var debugLog: URL { state.appendingPathComponent("handsfree.log") }
    /// Present once the user has seen the onboarding help.
    public var onboardedMarker: URL { state.appendingPathComponent("onboarded") }

    public var isFirstStart: Bool { !FileManager.default.fileExists(atPath: onboardedMarker.path) }

    public func markOnboarded() {
        try? FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try? Data("seen\n".utf8).write(to: onboardedMarker)
    }
}
