import CFlite
import Foundation
import Localization

/// flite in the process, with its slt voice (US English, 16 kHz): the default voice and the fallback,
/// since it needs no worker and starts in milliseconds.
public final class FliteVoice: Synthesizer {
    public let name = VoiceName.flite

    /// Registers the voice once per process (flite's lexicon and voice are process-wide).
    public init() throws(VoiceError) {
        guard FliteEngine.shared.voice != nil else { throw VoiceError(UIMessage("flite's slt voice did not load: install flite1-dev (scripts/install-deps.sh)")) }
    }

    public func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        try FliteEngine.shared.synthesize(text, rate: rate)
    }
}

/// The process's one flite voice, behind a lock: flite keeps global state and is not thread-safe.
final class FliteEngine: @unchecked Sendable {
    static let shared = FliteEngine()
    let voice: UnsafeMutablePointer<cst_voice>?
    private let lock = NSLock()

    private init() {
        flite_init()
        voice = register_cmu_us_slt(nil)
    }

    func synthesize(_ text: String, rate: Double) throws(VoiceError) -> SpokenAudio {
        guard let voice else { throw VoiceError(UIMessage("flite's slt voice did not load")) }
        // flite reads a few punctuation-only strings as nothing and returns no wave: that is silence, not an error.
        let clean = Self.sayable(text)
        guard !clean.isEmpty else { return SpokenAudio(samples: [], sampleRate: 16_000) }
        lock.lock()
        defer { lock.unlock() }
        handsfree_flite_set_duration_stretch(voice, Float(1 / max(0.3, min(3, rate))))
        guard let wave = clean.withCString({ flite_text_to_wave($0, voice) }) else {
            throw VoiceError(UIMessage("flite could not say \"{text}\"", ["text": String(text.prefix(40))]))
        }
        defer { delete_wave(wave) }
        let n = Int(handsfree_flite_sample_count(wave))
        let rate = Int(handsfree_flite_sample_rate(wave))
        guard n > 0, let p = handsfree_flite_samples(wave) else { return SpokenAudio(samples: [], sampleRate: rate) }
        return SpokenAudio(samples: Array(UnsafeBufferPointer(start: p, count: n)), sampleRate: rate)
    }

    /// The duration stretch the voice holds now, read by the name flite looks up while it synthesises.
    var durationStretch: Float {
        guard let voice else { return 1 }
        lock.lock()
        defer { lock.unlock() }
        return handsfree_flite_duration_stretch(voice)
    }

    /// The text without control characters, which flite's tokeniser can trip over; other characters it
    /// cannot say (emoji, other scripts) it skips by itself.
    static func sayable(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init))
            .trimmingCharacters(in: .whitespaces)
    }
}
