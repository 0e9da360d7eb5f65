#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The time the edges read (the loop, pacing, timeouts, speech, transport): live in the shell, driven by hand
/// in tests, so a test advances time instead of sleeping. The pure core reads none: its frames carry their
/// own timestamps.
///
/// Named apart from the standard library's `Clock`, which measures `Duration`s; this one is plain seconds,
/// as every deadline at the edge is.
public protocol ShellClock: Sendable {
    /// Monotonic seconds (an arbitrary start; only differences mean anything).
    func now() -> Double
    /// Waits until `deadline` (monotonic seconds); returns at once if it has passed.
    func sleep(until deadline: Double)
    /// Waits in `poll(2)` for `fds` until one is ready or `deadline` comes; poll's answer (0: the deadline).
    func poll(_ fds: inout [pollfd], until deadline: Double) -> Int32
}

extension ShellClock {
    /// Waits `seconds` from now.
    public func sleep(for seconds: Double) { sleep(until: now() + seconds) }
}

/// The monotonic clock of the machine: the only place the shell reads it.
public struct LiveClock: ShellClock {
    public init() {}

    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func sleep(until deadline: Double) {
        // A day at most at a time: an infinite deadline would not fit a timespec.
        let seconds = min(deadline - now(), 86_400)
        guard seconds > 0 else { return }
        var asked = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var rest = timespec()
        while nanosleep(&asked, &rest) != 0 && errno == EINTR { asked = rest }
    }

    public func poll(_ fds: inout [pollfd], until deadline: Double) -> Int32 {
        let left = deadline - now()
        // Rounded up: rounded down, a deadline under a millisecond away was a zero timeout, and a loop waiting
        // for it spun until it came. A deadline of +infinity waits for a descriptor alone; one in the past (even
        // -infinity, "never waited for yet") does not wait.
        let timeout = left == .infinity ? -1 : Int32(min(max(0, left) * 1000, Double(Int32.max)).rounded(.up))
        return systemPoll(&fds, timeout)
    }
}

/// `poll(2)` on `fds` with a timeout in milliseconds (-1: none).
private func systemPoll(_ fds: inout [pollfd], _ timeoutMs: Int32) -> Int32 {
    fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
}

/// A clock a test drives: it stands still until the test moves it (`advance`) or something waits on it, and
/// a wait moves it to its deadline at once, so a loop run on it goes through seconds of its own time in
/// microseconds, the same every run. Descriptors are still really polled (without waiting): what is ready
/// comes first, as it would live.
///
/// A poll with nothing ready ends a microsecond past its deadline, as no real wait ends exactly on one: code
/// that waits until `last + interval` and then asks whether `now - last >= interval` must find it so, which
/// at the deadline itself rounding can deny.
public final class TestClock: ShellClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time: Double
    private var stillWaits = 0
    /// Waits that found their deadline passed and nothing ready, one after another, before the clock is
    /// nudged on by a millisecond each: a loop that keeps asking to be woken at once still ends (and its
    /// wake-ups show it) instead of spinning forever at one instant.
    public static let mostStillWaits = 1_000
    /// How far past its deadline a poll ends.
    public static let lateness = 1e-6

    /// Starts at `now` seconds (not 0, so a "never" of 0 or -infinity in the code under test is in the past).
    public init(now: Double = 1_000) { time = now }

    public func now() -> Double { lock.withLock { time } }

    /// Moves time on by `seconds`.
    public func advance(by seconds: Double) { lock.withLock { time += max(0, seconds) } }

    /// Moves time on to `t` (never back).
    public func advance(to t: Double) { lock.withLock { time = max(time, t) } }

    public func sleep(until deadline: Double) { advance(to: deadline) }

    public func poll(_ fds: inout [pollfd], until deadline: Double) -> Int32 {
        let ready = systemPoll(&fds, 0)
        if ready != 0 { return ready }
        lock.withLock {
            if deadline > time, deadline.isFinite {
                time = deadline + Self.lateness
                stillWaits = 0
            } else {
                stillWaits += 1
                if stillWaits >= Self.mostStillWaits { time += 0.001 }
            }
        }
        return 0
    }
}

/// CPU seconds used by the calling thread: benchmarks report rates per CPU second, so figures taken on a
/// busy machine are not diluted by other processes' time slices.
public func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
