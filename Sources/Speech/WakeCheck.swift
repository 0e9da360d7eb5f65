/// Whether a wake-phrase match is real: the wake grammar fits *any* speech to its closest phrase, so the
/// same audio decoded freely with the language model must sound like that phrase too.
///
/// Sound, not spelling: both transcripts become dictionary phones ("she'll" and "shell" differ by one
/// vowel). The whole phrase must be close (`maxPhoneErrorRate`), and so must the start of the free
/// transcript to the wake phrase (`maxWakeErrorRate`): "open notes" said without "shell" is close to
/// "shell open notes" as a whole, but does not start like it. Figures in docs/shell.md ("Wake phrase").
public enum WakeCheck {
    /// Highest phone error rate (errors ÷ the phrase's phones) at which the match is accepted.
    public static let maxPhoneErrorRate = 0.6
    /// Highest phone error rate of the wake phrase against the start of the free transcript.
    public static let maxWakeErrorRate = 0.67

    /// What the idle listener's grammar holds: the wake phrase alone, or followed by one of `phrases`.
    public static func grammarPhrases(wake: String, phrases: [String]) -> [String] {
        [wake] + phrases.map { wake + " " + $0 }
    }

    /// Phone errors between the grammar's phrase and the free transcript, over the phrase's phone count.
    ///
    /// `phones` gives a word's dictionary phones; an unknown word counts as one phone that matches nothing.
    public static func phoneErrorRate(phrase: String, freeTranscript: String, phones: (String) -> [String]?) -> Double {
        let ref = sequence(phrase, phones), hyp = sequence(freeTranscript, phones)
        guard !ref.isEmpty else { return 1 }
        return Double(WordErrors.align(reference: ref, hypothesis: hyp).errors) / Double(ref.count)
    }

    /// Phone errors between the wake phrase and the best-matching start of the free transcript (one phone
    /// shorter, as long, or one longer), over the wake phrase's phone count; 1 if the first phones differ.
    ///
    /// The first phone must be heard as said: a one-syllable wake word shares most of its phones with many
    /// words ("next" is two phones from "shell"), but its onset is the clearest cue it was meant.
    public static func wakeErrorRate(wake: String, freeTranscript: String, phones: (String) -> [String]?) -> Double {
        let ref = sequence(wake, phones), hyp = sequence(freeTranscript, phones)
        guard !ref.isEmpty, ref.first == hyp.first else { return 1 }
        let best = (max(0, ref.count - 1)...(ref.count + 1)).map { k in
            WordErrors.align(reference: ref, hypothesis: Array(hyp.prefix(k))).errors
        }.min() ?? ref.count
        return Double(best) / Double(ref.count)
    }

    private static func sequence(_ text: String, _ phones: (String) -> [String]?) -> [String] {
        text.split(separator: " ").flatMap { w -> [String] in phones(String(w)) ?? ["?" + w] }
    }
}

extension WakeCheck {
    /// What the check found for one utterance.
    public struct Verdict: Equatable, Sendable {
        /// The wake grammar's phrase.
        public var heard: String
        /// The language model's transcript of the same audio (nil: the audio was no longer kept).
        public var free: String?
        /// Phone errors over the phrase's phones (1 when there is no free transcript).
        public var phoneErrorRate: Double
        /// Phone errors of the wake phrase against the free transcript's start (1 when there is none).
        public var wakeErrorRate: Double
        public var accepted: Bool {
            free != nil && phoneErrorRate <= WakeCheck.maxPhoneErrorRate && wakeErrorRate <= WakeCheck.maxWakeErrorRate
        }
    }
}

extension Recognizer {
    /// Checks the utterance a wake grammar just ended with (`heard`, starting with `wake`) against the language model's reading of
    /// the same audio; needs `recentAudioLimit` set and a language model loaded.
    public func checkWake(_ heard: String, wake: String) -> WakeCheck.Verdict {
        guard let free = decodeLastUtterance(with: .dictation) else {
            return WakeCheck.Verdict(heard: heard, free: nil, phoneErrorRate: 1, wakeErrorRate: 1)
        }
        return WakeCheck.Verdict(heard: heard, free: free,
                                 phoneErrorRate: WakeCheck.phoneErrorRate(phrase: heard, freeTranscript: free, phones: phones(of:)),
                                 wakeErrorRate: WakeCheck.wakeErrorRate(wake: wake, freeTranscript: free, phones: phones(of:)))
    }
}
