#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell
import SystemIO

/// Carries out `Effect.readControls` and `.performControl` on a thread of its own, which owns the
/// accessibility client (libatspi blocks for up to a second on a slow application, and is not thread-safe),
/// and hands what it finds back to the loop as `.controlsRead` and `.controlPerformed`, waking `poll` through
/// a pipe. While the Controls view shows, it follows the focused window: a reading after the bus's events
/// say something changed (`ControlsFollower`), and every second in any case; a reading equal to the last one
/// is not sent. The thread starts at the first request, so a shell that never lists controls pays nothing.
public final class LiveControls: @unchecked Sendable {
    private enum Request { case read(follow: Bool), perform(ControlTarget), stop }

    private let lock = NSLock()
    private var requests: [Request] = []
    private var outbox: [ShellEvent] = []
    private var thread: Thread?
    private let pipeFDs: [Int32]

    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        pipeFDs = fds
    }

    deinit {
        shutdown()
        for fd in pipeFDs where fd >= 0 { close(fd) }
    }

    /// Descriptors for the shell loop's `poll`: readable when events are waiting.
    public var descriptors: [Int32] { pipeFDs[0] >= 0 ? [pipeFDs[0]] : [] }

    /// Takes a controls effect; others are ignored.
    public func perform(_ effect: Effect) {
        switch effect {
        case .readControls(let follow): enqueue(.read(follow: follow))
        case .performControl(let target): enqueue(.perform(target))
        default: break
        }
    }

    /// Events since the last call (empties the wake pipe).
    public func drain() -> [ShellEvent] {
        var buf = [UInt8](repeating: 0, count: 64)
        while pipeFDs[0] >= 0, read(pipeFDs[0], &buf, buf.count) > 0 {}
        return lock.withLock { defer { outbox = [] }; return outbox }
    }

    /// Ends the thread (the shell is leaving); a call under way finishes within its timeout.
    public func shutdown() {
        guard lock.withLock({ thread != nil }) else { return }
        enqueue(.stop)
    }

    private func enqueue(_ request: Request) {
        let start: Bool = lock.withLock {
            // A stop with no thread running is nothing to do (and must not end the next one at its start).
            if thread == nil, case .stop = request { return false }
            requests.append(request)
            return thread == nil
        }
        guard start else { return }
        let t = Thread { [self] in work() }
        t.name = "controls"
        lock.withLock { thread = t }
        t.start()
    }

    private func post(_ event: ShellEvent) {
        lock.withLock { outbox.append(event) }
        if pipeFDs[1] >= 0 { var b: UInt8 = 1; _ = write(pipeFDs[1], &b, 1) }
    }

    /// The worker: requests first, then, while following, readings when the follower says so.
    private func work() {
        let client = AccessibilityClient()
        var following = false
        var watching = false
        var follower = ControlsFollower()
        var last: ControlsSnapshot?
        // The newest reading's generation: a list equal to the one posted is not posted again, and an action
        // chosen from the posted list acts on the newest reading's elements (the same list).
        var newest = -1
        func reading() {
            let snapshot = client.read(details: false)
            follower.read(at: monotonicSeconds())
            newest = snapshot.generation
            var unchanged = false
            if let last {
                var a = last, b = snapshot
                a.generation = 0; b.generation = 0
                unchanged = a == b
            }
            if !unchanged {
                last = snapshot
                post(.controlsRead(snapshot))
            }
        }
        while true {
            let pending: [Request] = lock.withLock { defer { requests = [] }; return requests }
            for request in pending {
                switch request {
                case .stop:
                    lock.withLock { thread = nil }
                    return
                case .read(let follow):
                    following = follow
                    if follow {
                        if !watching { watching = (try? client.watch()) != nil }
                        reading()
                    }
                case .perform(var target):
                    if target.generation == last?.generation { target.generation = newest }
                    post(.controlPerformed(Self.report(client, target)))
                }
            }
            if following, follower.due(now: monotonicSeconds(), changes: watching ? client.takeChanges() : 0) {
                reading()
            } else if !following, watching {
                _ = client.takeChanges()
            }
            usleep(following ? 5_000 : 20_000)
        }
    }

    /// Acts on `target` and says what came of it; a control without an action is clicked through the
    /// desktop's pointer, as a fraction of the desktop's size.
    static func report(_ client: AccessibilityClient, _ target: ControlTarget) -> ControlReport {
        do throws(ControlsError) {
            switch try client.perform(target) {
            case .acted(let action): return .acted(name: target.name, action: action)
            case .focused: return .focused(name: target.name)
            case .needsPointer(let e):
                guard let screen = client.screenSize() else {
                    return .failed(reason: "This control has no action, and the screen's size is unknown: use pointer mode", stale: false)
                }
                return .pointer(x: (Double(e.x) + Double(e.width) / 2) / Double(screen.width),
                                y: (Double(e.y) + Double(e.height) / 2) / Double(screen.height))
            }
        } catch {
            return .failed(reason: error.description, stale: error.stale)
        }
    }
}

/// What the controls thread read and did, for the loop.
public struct ControlsSource: EventSource {
    public let controls: LiveControls
    public init(_ controls: LiveControls) { self.controls = controls }
    public var descriptors: [Int32] { controls.descriptors }
    public mutating func events(_ wake: Wakeup, state: ShellState) -> [LoopEvent] {
        controls.drain().map { .shell($0) }
    }
}
