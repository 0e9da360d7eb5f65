/// The timestamps decoders accept.
///
/// A frame's `t` counts seconds on the sender's clock. Anything beyond ±10¹² s (about 31,700 years) is not
/// a clock in seconds: most likely milliseconds or nanoseconds since 1970 (1.7·10¹², 1.7·10¹⁸), or
/// garbage. Such a frame is malformed, with a message saying so, rather than passed on to a pipeline whose
/// time arithmetic (durations, JSON output, cell positions) assumes a sane clock.
public enum FrameTime {
    /// The largest timestamp magnitude accepted, in seconds.
    public static let limit = 1e12

    /// Nil when `t` is a usable timestamp, else what is wrong with it.
    public static func problem(_ t: Double) -> String? {
        guard t.isFinite else { return "timestamp is not a finite number" }
        guard abs(t) <= limit else {
            return "timestamp \(t) s is out of range (at most 1e12 s; t counts seconds — a clock in milliseconds or nanoseconds?)"
        }
        return nil
    }
}
