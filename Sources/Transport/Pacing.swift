#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TrackingCore

/// How a recording is replayed: at its own pace, faster or slower, or as fast as possible.
public enum ReplayPace: Sendable, Equatable {
    case realTime
    case speed(Double)
    case fast

    /// Seconds of wall time between the first frame and a frame `dt` seconds later, or nil when not paced.
    public func wallDelay(_ dt: Double) -> Double? {
        switch self {
        case .realTime: return dt
        case .speed(let s): return s > 0 ? dt / s : nil
        case .fast: return nil
        }
    }
}

/// Monotonic time in seconds; only the edges (pacing, benchmarks) read a clock.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds used by the calling thread: benchmarks report rates per CPU second, so figures taken on a
/// busy machine are not diluted by other processes' time slices.
public func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Calls `body` with each item, sleeping so frames are delivered at their timestamps' pace.
public func replay(_ items: [DecodedItem], pace: ReplayPace, _ body: (DecodedItem) -> Bool) {
    let start = monotonicSeconds()
    var t0: Double?
    for item in items {
        if case .frame(let f, _) = item, f.t.isFinite {
            if t0 == nil { t0 = f.t }
            if let base = t0, let delay = pace.wallDelay(max(0, f.t - base)) {
                let wait = start + delay - monotonicSeconds()
                // Cap each wait so a timestamp jump in a recording cannot stall the replay for hours.
                if wait > 0 { usleep(UInt32(min(wait, 5) * 1_000_000)) }
            }
        }
        if !body(item) { return }
    }
}
