import Config
import Foundation
import FrameFormats
import Shell
import TrackingCore

/// Fixed settings every decoder target drives: the built-in gestures and the shipped default keymap.
let settings = GestureConfig.defaults()
let keymap: Keymap = {
    // FuzzTesting/Sources/FuzzSupport/ → the main package's keymaps/default.toml.
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("keymaps/default.toml")
    guard let data = FileManager.default.contents(atPath: file.path) else { return Keymap(name: "empty") }
    let km = try? Keymap.parse(String(decoding: data, as: UTF8.self), file: file.path,
                               knownGestures: settings.gestures.map(\.name), knownScreens: ScreenRegistry.standard.names)
    return km ?? Keymap(name: "empty")
}()

/// Items beyond this many per input only cost time: the pipeline and screens have seen every kind by then.
let maxItems = 200

/// Built once and copied per input: building the screens and pipeline dominates a run otherwise.
let freshSession = HeadlessSession(keymap: keymap, settings: settings, size: Size(width: 100, height: 30))
let freshPipeline = Pipeline(settings)

/// Drives decoded items through everything that consumes frames, as `replay`, `run` and `record` do:
/// the tracking pipeline, the real screens headless (gaze → cells, JSON action lines), and the NDJSON
/// encoder, whose output must be accepted or rejected exactly as the frame it came from.
public func exercise(_ items: [DecodedItem]) {
    var headless = freshSession
    for item in items.prefix(maxItems) {
        let lines = headless.step(item)
        precondition(lines.allSatisfy { !$0.isEmpty })
        guard case .frame(let f, _) = item else { continue }
        checkRecording(f)
    }
    _ = headless.session.pipeline.stats
}

/// A recording must never turn a rejected frame into a valid one, nor the reverse.
func checkRecording(_ f: TrackingFrame) {
    let line = NDJSONEncoder.encode(f)
    let again = NDJSONDecoder.decode(Array(line.utf8), position: nil)
    let before = accepted(.frame(f, nil)), after = accepted(again)
    if before != after {
        fatalError("recording changes the frame's fate: \(before) → \(after) for \(f) written as \(line)")
    }
}

func accepted(_ item: DecodedItem) -> Bool {
    var p = freshPipeline
    _ = p.step(item)
    return p.stats.malformed == 0
}
