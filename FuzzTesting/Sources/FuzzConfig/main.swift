import Config
import FuzzDriver

// Gesture config and keymap files, as `check` and `run --config/--keymap` read them. Any input must give
// settings or a `file:line:` error, never a crash.
enum Defaults {
    static let settings = GestureConfig.defaults()
    static let screens = ["launcher", "help", "notes", "note-editor", "messages", "conversation", "settings", "media"]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = FuzzDriver.text(data, size)
    let settings = (try? GestureConfig.parse(text, file: "fuzz.toml")) ?? Defaults.settings
    _ = try? Keymap.parse(text, file: "fuzz.toml", knownGestures: settings.gestures.map(\.name),
                          knownScreens: Defaults.screens)
    // A short one-line input is also a `--set KEY=VALUE` override (which re-reads the built-in config).
    if text.utf8.count < 200, !text.contains("\n") {
        _ = try? GestureConfig.parse(GestureConfig.defaultText, file: "fuzz.toml", overrides: [text])
    }
    return 0
}

runFuzzer(fuzzConfig)
