#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Shell
import SystemIO

/// Carries out `Effect.readControls` and `.performControl` and hands what it finds back to the loop as
/// `.controlsRead` and `.controlPerformed`, waking `poll` through a pipe. While the Controls view shows, it
/// follows the focused window: a reading after the bus's events say something changed (`ControlsFollower`),
/// and every second in any case; a reading equal to the last one is not sent. Nothing starts before the
/// first request, so a shell that never lists controls pays nothing.
///
/// The shell's own binary reads the bus in a worker process (`handsfree controls --serve`, JSON lines on its
/// standard input and output): libatspi keeps one connection per process and cannot make another, so when
/// the accessibility bus restarts (a session's at-spi-bus-launcher started again, the bus daemon killed) the
/// worker says so and ends, and a new one reads the new bus; the user is told (`.notice`). A worker that
/// dies otherwise (libatspi aborts the process on some failures) is started again the same way, the shell
/// running on. Elsewhere (tests, benches) the client runs on a thread of this process.
public final class LiveControls: @unchecked Sendable {
    /// What the worker process is asked, one JSON line each.
    public enum Request: Codable, Sendable { case read(follow: Bool), perform(ControlTarget), stop }
    /// What the worker process says, one JSON line each.
    public enum Message: Codable, Sendable {
        case read(ControlsSnapshot)
        case performed(ControlReport)
        /// The accessibility bus went away or was replaced: the worker ends, and a new one reads the new bus.
        case busRestarted
    }

    private let lock = NSLock()
    private var requests: [Request] = []
    private var outbox: [ShellEvent] = []
    private var thread: Thread?
    private let pipeFDs: [Int32]
    /// Times the follower's readings and the client's calls: the loop's own clock, fixed at creation so that
    /// reading it takes no lock (a getter taking this object's lock once deadlocked inside it).
    public let clock: any ShellClock
    /// The handsfree binary whose `controls --serve` reads the bus; nil reads it on a thread here.
    private let worker: String?
    /// The worker's environment; nil: this process's.
    private let environment: [String: String]?
    private let firstGeneration: Int
    /// The worker process, its input, and whether the Controls view follows the window (a new worker is
    /// asked to follow too).
    private var child: Process?
    private var childInput: FileHandle?
    private var following = false
    /// The newest reading's generation seen: a new worker numbers its readings past it.
    private var newestGeneration = 0
    private var lastStart = -Double.infinity
    /// The bus this thread's client reads has gone (in a worker process: it then ends).
    public private(set) var busGone = false

    /// `worker` is the handsfree binary to run as the worker process; by default the running program when it
    /// is handsfree, else none (the client then runs on a thread here).
    /// `environment` is the worker's (the session bus it finds the accessibility bus through), by default
    /// this process's.
    public init(worker: String? = LiveControls.ownBinary, environment: [String: String]? = nil, firstGeneration: Int = 0,
                clock: any ShellClock = LiveClock()) {
        self.clock = clock
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        pipeFDs = fds
        self.worker = worker
        self.environment = environment
        self.firstGeneration = firstGeneration
    }

    deinit {
        shutdown()
        for fd in pipeFDs where fd >= 0 { close(fd) }
    }

    /// The running program, when it is the handsfree binary (it has `controls --serve`).
    public static var ownBinary: String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              exe.hasSuffix("/handsfree") else { return nil }
        return exe
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

    /// Ends the thread or the worker (the shell is leaving); a call under way finishes within its timeout.
    public func shutdown() {
        if worker != nil {
            let (p, input): (Process?, FileHandle?) = lock.withLock {
                defer { child = nil; childInput = nil }
                return (child, childInput)
            }
            try? input?.close()
            if let p, p.isRunning {
                let deadline = clock.now() + 1
                while p.isRunning && clock.now() < deadline { usleep(10_000) }
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            }
            return
        }
        guard lock.withLock({ thread != nil }) else { return }
        enqueue(.stop)
    }

    private func enqueue(_ request: Request) {
        if worker != nil { return send(request) }
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
        lock.withLock {
            outbox.append(event)
            if case .controlsRead(let snapshot) = event { newestGeneration = max(newestGeneration, snapshot.generation) }
        }
        if pipeFDs[1] >= 0 { var b: UInt8 = 1; _ = write(pipeFDs[1], &b, 1) }
    }

    // MARK: the worker process

    /// Hands a request to the worker process, starting one first when none runs.
    private func send(_ request: Request) {
        if case .read(let follow) = request { lock.withLock { following = follow } }
        guard let input = lock.withLock({ childInput }) ?? startWorker() else {
            if case .perform = request {
                post(.controlPerformed(.failed(UIMessage("The controls cannot be read now: the reader did not start"), stale: false)))
            }
            return
        }
        guard var line = try? JSONEncoder().encode(request) else { return }
        line.append(0x0A)
        // A worker that died makes the write fail with EPIPE, not kill the shell; its end is reported by the
        // reader, which starts another.
        signal(SIGPIPE, SIG_IGN)
        try? input.write(contentsOf: line)
    }

    /// Starts a worker process and the thread that reads what it says; its input, or nil when it could not
    /// start.
    private func startWorker() -> FileHandle? {
        guard let worker else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: worker)
        let first = lock.withLock { max(newestGeneration, firstGeneration) + 1 }
        p.arguments = ["controls", "--serve", "--first-generation", String(first)]
        if let environment { p.environment = environment }
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        // libatspi and GLib warn on standard error; the shell's screen must not get that.
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let handle = input.fileHandleForWriting
        lock.withLock {
            child = p
            childInput = handle
            lastStart = clock.now()
        }
        let reader = Thread { [self] in listen(p, output.fileHandleForReading) }
        reader.name = "controls-worker"
        reader.start()
        return handle
    }

    /// Reads the worker's lines until it ends, then starts another if the view still follows the window.
    private func listen(_ p: Process, _ output: FileHandle) {
        var restarted = false
        Self.lines(output) { line in
            switch try? JSONDecoder().decode(Message.self, from: line) {
            case .read(let snapshot)?: post(.controlsRead(snapshot))
            case .performed(let report)?: post(.controlPerformed(report))
            case .busRestarted?: restarted = true
            case nil: break
            }
        }
        p.waitUntilExit()
        let (mine, follow, since): (Bool, Bool, Double) = lock.withLock {
            let mine = child === p
            if mine { child = nil; childInput = nil }
            return (mine, following, clock.now() - lastStart)
        }
        // Ended by `shutdown`, or replaced: nothing more to do.
        guard mine else { return }
        post(.message(restarted ? UIMessage("The accessibility bus restarted: the controls are read from the new one")
                                : UIMessage("The controls reader stopped: it is started again")))
        guard follow else { return }
        // A worker that ends at once, again and again, is started at most once a second.
        if since < 1 { usleep(UInt32((1 - since) * 1_000_000)) }
        send(.read(follow: true))
    }

    /// `handsfree controls --serve`: reads requests from standard input and writes what the client finds to
    /// standard output, one JSON line each, until its input ends or the bus it reads goes away (it says so,
    /// and the shell starts another worker). Returns the exit status.
    public static func serve(firstGeneration: Int) -> Int32 {
        let controls = LiveControls(worker: nil, firstGeneration: firstGeneration)
        let ended = EndFlag()
        let reader = Thread {
            lines(FileHandle.standardInput) { line in
                switch try? JSONDecoder().decode(Request.self, from: line) {
                case .read(let follow)?: controls.perform(.readControls(follow: follow))
                case .perform(let target)?: controls.perform(.performControl(target))
                case .stop?, nil: break
                }
            }
            ended.set()
        }
        reader.start()
        signal(SIGPIPE, SIG_IGN)
        while !ended.value {
            var fds = controls.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 200)
            for event in controls.drain() {
                let message: Message
                switch event {
                case .controlsRead(let snapshot): message = .read(snapshot)
                case .controlPerformed(let report): message = .performed(report)
                default: continue
                }
                guard var line = try? JSONEncoder().encode(message) else { continue }
                line.append(0x0A)
                do { try FileHandle.standardOutput.write(contentsOf: line) } catch { return 0 }
            }
            if controls.busGone {
                if var line = try? JSONEncoder().encode(Message.busRestarted) {
                    line.append(0x0A)
                    try? FileHandle.standardOutput.write(contentsOf: line)
                }
                return 75
            }
        }
        controls.shutdown()
        return 0
    }

    /// Calls `body` with each line `handle` gives (without its line end) until it ends.
    private static func lines(_ handle: FileHandle, _ body: (Data) -> Void) {
        var buffer = Data()
        while true {
            let data = handle.availableData
            if data.isEmpty { return }
            buffer.append(data)
            while let end = buffer.firstIndex(of: 0x0A) {
                body(Data(buffer[buffer.startIndex..<end]))
                buffer.removeSubrange(buffer.startIndex...end)
            }
        }
    }

    // MARK: the client on a thread

    /// The worker: requests first, then, while following, readings when the follower says so; every second
    /// it asks whether the bus it reads still stands (libatspi cannot connect to a new one).
    private func work() {
        let clock = self.clock
        let client = AccessibilityClient(firstGeneration: firstGeneration, clock: clock)
        var following = false
        var watching = false
        var follower = ControlsFollower()
        var last: ControlsSnapshot?
        var lastCheck = clock.now()
        // The newest reading's generation: a list equal to the one posted is not posted again, and an action
        // chosen from the posted list acts on the newest reading's elements (the same list).
        var newest = -1
        func reading() {
            let snapshot = client.read(details: false)
            follower.read(at: clock.now())
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
        func gone() -> Bool {
            guard client.busRestarted() else { return false }
            lock.withLock { busGone = true; thread = nil }
            if pipeFDs[1] >= 0 { var b: UInt8 = 1; _ = write(pipeFDs[1], &b, 1) }
            return true
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
                    if gone() { return }
                    if target.generation == last?.generation { target.generation = newest }
                    post(.controlPerformed(Self.report(client, target)))
                }
            }
            if clock.now() - lastCheck >= 1 {
                lastCheck = clock.now()
                if gone() { return }
            }
            if following, follower.due(now: clock.now(), changes: watching ? client.takeChanges() : 0) {
                reading()
            } else if !following, watching {
                _ = client.takeChanges()
            }
            // Real time whatever the clock: the requests and the bus's events come from other threads and
            // processes, which this thread polls.
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
                    return .failed(UIMessage("This control has no action, and the screen's size is unknown: use pointer mode"), stale: false)
                }
                return .pointer(x: (Double(e.x) + Double(e.width) / 2) / Double(screen.width),
                                y: (Double(e.y) + Double(e.height) / 2) / Double(screen.height))
            }
        } catch {
            return .failed(error.message, stale: error.stale)
        }
    }
}

/// A flag one thread sets and another reads.
private final class EndFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}
