import Config
import Foundation
import Localization
import Shell
import Speech
import SystemIO
import UserFiles

/// Speech on recordings rather than a microphone, as `transcribe` and `bench speech` run it.
public enum OfflineSpeech {
    /// The Whisper worker set up as the shell sets it up: the project's Python and worker script.
    public static func whisperWorker(model: String, minWindow: Double = 10, language: String = "en", beam: Int = 1,
                                     temperatureFallback: Bool = true) throws -> WhisperWorker {
        guard let python = PythonEnv.python() else {
            throw SetupError(UIMessage("no Python found: run {command}", ["command": PythonEnv.installHint("whisper", package: "faster-whisper")]))
        }
        var configuration = WhisperWorker.Configuration(python: python, script: PythonEnv.script("whisper_worker.py"), model: model)
        configuration.minWindow = minWindow
        configuration.language = language
        configuration.beam = beam
        configuration.temperatureFallback = temperatureFallback
        let w = WhisperWorker(configuration)
        // The worker's own words (Python's, the model loader's) are quoted as they came.
        do { try w.start() } catch { throw SetupError(UIMessage("Whisper did not start: {reason}", ["reason": error.description])) }
        return w
    }

    /// Feeds a recording as the idle shell would and checks each utterance's wake match as it ends (the
    /// audio kept for the check is forgotten when the stream finishes).
    /// `timed` gets the time of each check on `clock` (for `bench speech`).
    public static func wakeVerdicts(_ r: Recognizer, _ samples: [Int16], wake: String, clock: any ShellClock = LiveClock(),
                                    timed: (Double) -> Void = { _ in }) -> [(String, WakeCheck.Verdict)] {
        var out: [(String, WakeCheck.Verdict)] = []
        func take(_ events: [SpeechEvent]) {
            for case let .final(text, _, _) in events where !text.isEmpty {
                let t0 = clock.now()
                out.append((text, r.checkWake(text, wake: wake)))
                timed(clock.now() - t0)
            }
        }
        // 50 ms chunks as the microphone delivers them, then a second of silence to end an utterance still
        // open: an utterance's place in the audio is known to within one chunk, so larger ones would cut
        // the start off the audio read again.
        let audio = samples + [Int16](repeating: 0, count: SpeechAudio.sampleRate)
        var i = 0
        while i < audio.count {
            let j = min(audio.count, i + 800)
            take(r.process(Array(audio[i..<j])))
            i = j
        }
        _ = r.finish()
        return out
    }
}

/// The voice phrases of a keymap file, read with the real keymap parser so a broken line is refused with
/// `file:line: …`.
public enum KeymapVoicePhrases {
    /// A screen name the shell does not know.
    public struct UnknownScreen: Error, CustomStringConvertible {
        /// The problem, worded for translation.
        public var message: UIMessage
        public var description: String { message.english }
    }

    /// Every phrase the keymap binds.
    public static func read(path: String) throws -> [String] {
        try parse(path).allPhrases
    }

    /// The phrases the shell listens for on `screen`: the keymap's (but its wake phrase) and the on-screen
    /// "open …" and "select …" of each target there.
    public static func onScreen(path: String, screen: String) throws -> [String] {
        try onScreen(try parse(path), screen: screen)
    }

    /// The keymap's wake phrase and the phrases the idle shell listens for on `screen`, as `LiveSpeech`
    /// builds them (`WakeCheck.grammarPhrases`) from the keymap's and the screen's phrases.
    public static func wakeGrammar(path: String, screen: String) throws -> (wake: String, phrases: [String]) {
        let km = try parse(path)
        guard let w = km.wakePhrase else { throw SetupError(UIMessage("{file}: no wake_phrase in [options]", ["file": path])) }
        return (w, WakeCheck.grammarPhrases(wake: w, phrases: try onScreen(km, screen: screen)))
    }

    private static func onScreen(_ km: Keymap, screen: String) throws -> [String] {
        var state = ShellState(keymap: km, gestures: try Setup.settings(config: nil).gestures)
        guard state.show(screen: screen) else { throw UnknownScreen(message: UIMessage("unknown screen \"{screen}\" (known: {known})", ["screen": screen, "known": state.registry.names.joined(separator: ", ")])) }
        return state.voicePhrases
    }

    private static func parse(_ path: String) throws -> Keymap {
        let text = try Setup.readText(path)
        // A shipped keymap with a config of the same name (webcam) binds that config's gestures.
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let paired = FileManager.default.fileExists(atPath: ProjectPaths.dir("config").appendingPathComponent(name + ".toml").path)
        let gestures = try Setup.settings(config: paired ? name : nil).gestures
        do { return try Setup.parseKeymap(text, file: path, gestures: gestures) } catch { throw SetupError(error) }
    }
}
