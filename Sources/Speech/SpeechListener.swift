import Foundation
import Logging

/// Live speech: an `ALSACapture` feeding a `Recognizer` on the capture thread, reporting `SpeechEvent`s.
///
/// Owns both. Events arrive on the capture thread; hop to the UI's queue or actor. Mode changes from any
/// thread are serialised with decoding by a lock, so the UI can switch dictation/commands at any time.
/// The capture thread keeps the listener alive until `stop()`, so always stop it.
public final class SpeechListener: @unchecked Sendable {
    private let lock = NSLock()
    private let recognizer: Recognizer
    private let capture: ALSACapture

    /// Takes over `recognizer` (do not use it elsewhere afterwards) and an opened `capture`.
    public init(recognizer: Recognizer, capture: ALSACapture) {
        self.recognizer = recognizer
        self.capture = capture
    }

    /// Starts capture. `onEvent` gets each speech event; `onEnd` gets nil when the source ran dry, or the
    /// capture error (show it in the status line; the shell goes on without speech).
    public func start(onEvent: @escaping @Sendable (SpeechEvent) -> Void,
                      onEnd: @escaping @Sendable (AudioError?) -> Void = { _ in }) {
        // Captures self (which is Sendable because every recogniser call goes through the lock).
        capture.start { [self] event in
            switch event {
            case let .audio(samples):
                let events = lock.withLock { recognizer.process(samples) }
                events.forEach(onEvent)
            case .ended:
                lock.withLock { recognizer.finish() }.forEach(onEvent)
                onEnd(nil)
            case let .failed(error):
                lock.withLock { recognizer.finish() }.forEach(onEvent)
                onEnd(error)
            }
        }
    }

    /// Stops capture and returns the final result of an utterance in progress, if any.
    @discardableResult
    public func stop() -> [SpeechEvent] {
        capture.stop()
        return lock.withLock { recognizer.finish() }
    }

    /// Switches between dictation and a grammar (an utterance in progress is dropped).
    public func setMode(_ mode: RecognitionMode) throws(RecognizerError) {
        lock.lock()
        defer { lock.unlock() }
        try recognizer.setMode(mode)
    }

    /// Registers or replaces a grammar, e.g. when the screen's targets change.
    public func addGrammar(name: String, jsgf: String) throws(RecognizerError) {
        lock.lock()
        defer { lock.unlock() }
        try recognizer.addGrammar(name: name, jsgf: jsgf)
    }

    /// Whether the dictionary knows a word (for `CommandGrammar.build`).
    public func knowsWord(_ word: String) -> Bool {
        lock.withLock { recognizer.knowsWord(word) }
    }
}
