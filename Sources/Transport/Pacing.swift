import FrameFormats
import SystemIO
import TrackingCore

/// How a recording is replayed: at its own pace, faster or slower, or as fast as possible.
public enum ReplayPace: Sendable, Equatable {
    case realTime
    case speed(Double)
    case fast

    /// The `Pacer` speed: source seconds per wall second, nil when not paced.
    public var speed: Double? {
        switch self {
        case .realTime: return 1
        case .speed(let s): return s > 0 ? s : nil
        case .fast: return nil
        }
    }
}

/// Calls `body` with each item, sleeping on `clock` so frames are delivered at their timestamps' pace (see
/// `Pacer`). Items are taken as they are due, so a `FrameFileReader` reads the recording no faster than that.
public func replay(_ items: some Sequence<DecodedItem>, pace: ReplayPace, clock: any ShellClock = LiveClock(),
                   _ body: (DecodedItem) -> Bool) {
    var pacer = Pacer(speed: pace.speed)
    for item in items {
        if case .frame(let f, _) = item {
            let now = clock.now()
            let wait = pacer.due(f.t, now: now) - now
            if wait > 0 { clock.sleep(until: now + min(wait, Pacer.maxWait)) }
        }
        if !body(item) { return }
    }
}
