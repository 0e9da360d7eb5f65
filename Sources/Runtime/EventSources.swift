#if canImport(Glibc)
import Glibc
#endif
import Config
import FrameFormats
import Foundation
import Localization
import Shell
import Speech
import Terminal
import TrackingCore
import Transport
import LiveServices

/// Something the loop learned from outside in one wake-up.
public enum LoopEvent: Sendable {
    /// For the reducer as is: a key, a resize, a tick, speech, a notice, a loaded keymap.
    case shell(ShellEvent)
    /// From the frame source: through the tracking pipeline, then the reducer.
    case item(DecodedItem)
    /// A signal asked the shell to end (or its terminal went away: SIGHUP).
    case signal(Int32)
    /// A replay or the demo delivered its last frame.
    case sourceEnded
    /// The demo's next frame is due: the session's scripted user makes it (`Session.stepDemo`).
    case demoFrame

    /// Whether the reducer must have every view of the Terminal pane before this event: false for what only
    /// tells the time or the face (a tick, a tracker's frame, the input's measures, a source's end), which
    /// act as well on the screen the user still sees.
    var needsLatestView: Bool {
        switch self {
        case .item(.frame), .demoFrame, .shell(.tick), .shell(.inputHealth), .sourceEnded: return false
        default: return true
        }
    }

    /// Whether this is a view of the Terminal pane (what may carry a key's echo).
    var isTerminalView: Bool {
        if case .shell(.terminal) = self { true } else { false }
    }

    /// Whether this may be handled before a key delivered ahead to the program is reduced: the pane's view
    /// (which carries the key's echo), the time and the input's measures, which neither act on a typed key
    /// nor change the screen it was typed on (the Terminal screen takes no ticks).
    var mayPassAPendingKey: Bool {
        switch self {
        case .shell(.terminal), .shell(.tick), .shell(.inputHealth): return true
        default: return false
        }
    }
}

/// What the loop knows when it asks its sources: the time, and which descriptors hung up.
public struct Wakeup: Sendable {
    /// Monotonic seconds.
    public var now: Double
    /// Descriptors `poll` reported as hung up, in error or invalid.
    public var hungUp: Set<Int32>
    /// Descriptors `poll` reported readable (nil: not known, so every source reads).
    public var readable: [Int32]?
    public init(now: Double, hungUp: Set<Int32> = [], readable: [Int32]? = nil) {
        self.now = now; self.hungUp = hungUp; self.readable = readable
    }
}

/// One source of events for the loop. A new kind of input (a PTY child, another tracker) is one more of
/// these, plus the reducer's handling of the events it gives.
public protocol EventSource {
    /// Descriptors whose readiness means this source may have something.
    var descriptors: [Int32] { get }
    /// The monotonic time at which to ask the source even if no descriptor is ready; nil: only then.
    func nextWake(now: Double) -> Double?
    /// What the source has now. A source never reads the state: what it learns becomes an event.
    mutating func events(_ wake: Wakeup) -> [LoopEvent]
    /// Whether to ask again at once, after the events just given were reduced (the demo's scripted user
    /// looks at the screen after each of its frames).
    func wantsAgain(now: Double) -> Bool
}

extension EventSource {
    public func nextWake(now: Double) -> Double? { nil }
    public func wantsAgain(now: Double) -> Bool { false }
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT, through the self-pipe the terminal layer installs.
public struct SignalSource: EventSource {
    let fd: Int32
    public init() { fd = Terminal.installSignalPipe() }
    public var descriptors: [Int32] { fd >= 0 ? [fd] : [] }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        // A read on every wake-up (sixty a second with a tracker) for a signal that almost never comes.
        if let ready = wake.readable, !ready.contains(fd) { return [] }
        return Terminal.pendingSignal().map { [.signal($0)] } ?? []
    }
}

/// Keys and resizes from the display; a terminal that went away (its window closed) ends the shell.
public struct KeyboardSource: EventSource {
    let display: ShellDisplay
    /// Keys read per wake-up at most, so a terminal that keeps returning input cannot starve frames.
    static let maxKeys = 256
    public init(_ display: ShellDisplay) { self.display = display }
    public var descriptors: [Int32] { display.inputFD >= 0 ? [display.inputFD] : [] }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        let fd = display.inputFD
        if fd >= 0, wake.hungUp.contains(fd), display.inputHungUp() { return [.signal(SIGHUP)] }
        var out: [LoopEvent] = []
        while out.count < Self.maxKeys, let input = display.readInput() {
            // Ctrl-C and Ctrl-\ too: the reducer decides whether they are the program's or end the shell.
            switch input {
            case .key(let k): out.append(.shell(.key(k)))
            case .resized(let s): out.append(.shell(.resized(s)))
            }
        }
        return out
    }
}

/// Reloads the keymap file when it changes; a broken edit keeps the last good keymap and says why.
public struct KeymapWatcher: EventSource {
    /// The keymap as the user chose it (a name in `keymaps/`, or a path): a reload is read, and named, by it.
    public let name: String
    public let path: String
    public let gestures: [GestureDefinition]
    private var stamp: Date?
    private var lastCheck = 0.0

    /// Watches the file of the keymap chosen as `name` (nil: the default).
    public init(keymap name: String?, gestures: [GestureDefinition]) {
        self.name = name ?? "default"; self.gestures = gestures
        path = Setup.keymapPath(name)
        stamp = KeymapWatcher.modified(path)
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    public var descriptors: [Int32] { [] }
    public func nextWake(now: Double) -> Double? { lastCheck + 1 }

    /// Checks at most once a second: a good new keymap, or the error while the old one stays.
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        guard wake.now - lastCheck >= 1 else { return [] }
        lastCheck = wake.now
        let m = KeymapWatcher.modified(path)
        guard m != stamp else { return [] }
        stamp = m
        do {
            return [.shell(.keymapLoaded(try Setup.keymap(name, gestures: gestures), notice: UIMessage("Keymap reloaded")))]
        } catch {
            return [.shell(.message(UIMessage("Keymap not reloaded: {error}", reasons: ["error": SetupError.message(of: error)])))]
        }
    }
}

/// What the speech thread recognised and reported (the microphone's use and the phrases reach it as the
/// reducer's effects).
public struct SpeechSource: EventSource {
    public let speech: LiveSpeech
    public init(_ speech: LiveSpeech) { self.speech = speech }
    public var descriptors: [Int32] { speech.descriptors }

    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        speech.drain().map { u in
            switch u {
            case .text(let text, let isFinal): return .shell(.speech(text, isFinal: isFinal))
            case .scoredCommand(let text, let scores): return .shell(.scoredCommand(text, scores))
            case .status(let s): return .shell(.micStatus(s))
            case .listening: return .shell(.wakePhraseHeard)
            case .notice(let message): return .shell(.message(message))
            case .silence(let seconds): return .shell(.dictationSilence(seconds: seconds))
            case .talking(let on): return .shell(.talking(on))
            }
        }
    }

}

/// The word lists finishing their load (the event carries the predictor), and a failed write of the learned
/// words or sentences retried every 10 s (its problem is shown); the reducer learns, and the runtime writes
/// the files its effects carry.
public struct PredictionSource: EventSource {
    public let prediction: LivePrediction
    private var lastSave: Double
    static let saveEvery = 10.0
    public init(_ prediction: LivePrediction, now: Double) { self.prediction = prediction; lastSave = now }
    public var descriptors: [Int32] { [] }
    public func nextWake(now: Double) -> Double? { lastSave + Self.saveEvery }

    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        var out: [LoopEvent] = []
        for l in prediction.takeLoaded() { out.append(.shell(.predictorLoaded(l.predictor, language: l.language, problem: l.problem))) }
        if wake.now - lastSave > Self.saveEvery {
            lastSave = wake.now
            if let problem = prediction.saveIfNeeded() { out.append(.shell(.message(problem))) }
        }
        return out
    }

}

/// A recording's items, taken one at a time as the replay reaches them: from a `FrameFileReader`, a long
/// take costs no more memory than a short one.
///
/// The two sources are held as themselves, not as an `AnyIterator`: through one, each item was copied by
/// unspecialised generic code, a sixth of the loop's time on a still face at 60 frames/s.
public final class ReplayItems {
    private enum Source {
        case memory([DecodedItem])
        case file(FrameFileReader)
        case other(AnyIterator<DecodedItem>)
    }
    private let source: Source
    private var index = 0
    private var peeked: DecodedItem?

    /// A recording already in memory.
    public init(_ items: [DecodedItem]) { source = .memory(items) }

    /// A recording read as the replay reaches it.
    public init(_ reader: FrameFileReader) { source = .file(reader) }

    /// Any other sequence of items, taken as the replay reaches them.
    public init(_ items: some Sequence<DecodedItem>) { source = .other(AnyIterator(items.makeIterator())) }

    /// The next item, left in place; nil at the end.
    func peek() -> DecodedItem? {
        if peeked == nil {
            switch source {
            case .memory(let items):
                guard index < items.count else { return nil }
                peeked = items[index]
                index += 1
            case .file(let reader):
                peeked = reader.next()
            case .other(let iterator):
                peeked = iterator.next()
            }
        }
        return peeked
    }

    /// Takes the next item.
    func removeFirst() { peeked = nil }
}

/// Where frames come from in a live shell.
public enum FrameFeed {
    /// No tracker: keyboard only.
    case none
    /// A recording, delivered at its own pace times `speed`.
    case replay(ReplayItems, speed: Double, name: String)
    /// A live socket (UDP or TCP, NDJSON or Live Link Face).
    case live(LiveSource)
    /// The scripted demo user (`Session.demo`), making `fps` frames a second of its time, paced at `speed`.
    case demo(fps: Double, speed: Double)

    /// A recording already in memory.
    public static func replay(items: [DecodedItem], speed: Double, name: String) -> FrameFeed {
        .replay(ReplayItems(items), speed: speed, name: name)
    }
}

/// Frames from the feed, paced; without a tracker, ticks. Measures the source with the monotonic clock for
/// the status line (arrival rate, silence, drops), which the core cannot.
public struct FrameSource: EventSource {
    public private(set) var feed: FrameFeed
    public private(set) var meter: InputMeter
    private var pacer: Pacer
    private let start: Double
    /// When the next replay frame is due (computed once per frame, when it is first waited for).
    private var nextDue: Double?
    private var ended = false
    /// The demo's frames asked for so far.
    private var demoFrames = 0
    /// Ticks while there is no tracker, so screens with time in them (a reply arriving) move on.
    static let tickEvery = 0.05
    /// Says which bound gestures a live source cannot make, once its format is recognised.
    public var watch: SourceWatch?

    public init(_ feed: FrameFeed, start: Double) {
        self.feed = feed; self.start = start
        meter = InputMeter(start: start)
        switch feed {
        case .replay(_, let speed, _), .demo(_, let speed): pacer = Pacer(speed: speed)
        default: pacer = Pacer(speed: nil)
        }
    }

    public var descriptors: [Int32] {
        if case .live(let r) = feed { return r.descriptors }
        return []
    }

    public func nextWake(now: Double) -> Double? {
        switch feed {
        case .none: return now + Self.tickEvery
        case .live: return now + Self.tickEvery   // the status line's rate and silence move with time
        case .replay(let items, _, _):
            guard items.peek() != nil else { return now + Self.tickEvery }
            return nextDue ?? now
        case .demo:
            return ended ? now + Self.tickEvery : demoDue
        }
    }

    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        let now = wake.now
        var out: [LoopEvent] = []
        switch feed {
        case .none:
            return [.shell(.tick(at: now - start))]
        case .live(let r):
            for item in r.drain() { meter.count(item, at: now); out.append(.item(item)) }
            meter.source = r
            if var w = watch, let f = r.formatSeen, let caps = SourceCapabilities.of(f) {
                if let message = w.check(caps) { out.append(.shell(.message(message))) }
                watch = w
            }
        case .replay(let items, _, _):
            while let item = items.peek() {
                if case .frame(let f, _) = item {
                    if nextDue == nil { nextDue = pacer.due(f.t, now: now) }
                    if let due = nextDue, due > now { break }
                    nextDue = nil
                }
                meter.count(item, at: now)
                out.append(.item(item))
                items.removeFirst()
            }
            if items.peek() == nil, !ended { ended = true; out.append(.sourceEnded) }
        case .demo:
            // The scripted user looks at the screen as it is after each frame, so frames go one at a time.
            if !ended, demoDue <= now {
                demoFrames += 1
                meter.countFrame(at: now)
                out.append(.demoFrame)
            }
        }
        if let h = meter.health(at: now) { out.append(.shell(.inputHealth(h))) }
        return out
    }

    /// The demo yields one frame per call, since each depends on the screen: more may be due.
    public func wantsAgain(now: Double) -> Bool {
        if case .demo = feed { return !ended && demoDue <= now }
        return false
    }

    /// When the demo's next frame is due: its frames are `1/fps` apart in its own time.
    private var demoDue: Double {
        guard case .demo(let fps, let speed) = feed else { return .infinity }
        return start + Double(demoFrames) / fps / speed
    }

    /// The demo's scripted user has ended (the session made no frame): no more are asked for.
    public mutating func demoEnded() { ended = true }
}

/// Tells the user, once per source, which gestures the keymap binds that the source cannot make (or makes
/// unreliably): MediaPipe and OpenSeeFace have no tongue, OpenSeeFace's eyes barely move.
public struct SourceWatch: Sendable {
    public let gestures: [GestureDefinition]
    public let bound: Set<String>
    private var announced: String?

    public init(gestures: [GestureDefinition], bound: Set<String>) { self.gestures = gestures; self.bound = bound }

    /// The notice for `caps`, the first time this source is seen; nil after, or if all is well: what cannot work
    /// first, as `SourceCapabilities.summary` says it (`openseeface: commit needs tongueOut; unreliable: back
    /// (eyeBlinkRight)`), each clause a message of its own.
    public mutating func check(_ caps: SourceCapabilities) -> UIMessage? {
        guard caps.name != announced else { return nil }
        announced = caps.name
        let found = caps.shortfalls(gestures: gestures, bound: bound)
        guard !found.isEmpty else { return nil }
        // The source's name begins the first clause.
        var parts: [UIMessage] = []
        for f in found {
            guard let shape = f.missing.first else { continue }
            let words = ["source": caps.name, "gesture": f.gesture, "shape": shape.name]
            parts.append(parts.isEmpty ? UIMessage("{source}: {gesture} needs {shape}", words) : UIMessage("{gesture} needs {shape}", words))
        }
        let shaky = found.filter { $0.missing.isEmpty }
        if !shaky.isEmpty {
            var shapes: [BlendShape] = []
            for f in shaky { for s in f.shaky where !shapes.contains(s) { shapes.append(s) } }
            let words = ["source": caps.name, "gestures": shaky.map(\.gesture).joined(separator: ", "),
                         "shapes": shapes.map(\.name).joined(separator: ", ")]
            parts.append(parts.isEmpty ? UIMessage("{source}: unreliable: {gestures} ({shapes})", words)
                                       : UIMessage("unreliable: {gestures} ({shapes})", words))
        }
        return .together(parts, separator: "; ")
    }
}

/// Measures the frame source with the runtime's monotonic clock for the status line: frames arriving per
/// second, seconds since the last one, and what the source dropped or could not read.
public struct InputMeter {
    private var arrivals = RateWindow()
    private var lastArrival: Double
    private var malformed = 0
    private var last: InputHealth?
    /// Frames handed to the session.
    public private(set) var used = 0
    /// A live source's own counts (drops during a flood, unrecognised packets with their sender).
    public var source: LiveSource?

    public init(start: Double) { lastArrival = start }

    /// Notes one frame handed to the session at `now` (the demo's, made by the session).
    public mutating func countFrame(at now: Double) { arrivals.add(at: now); lastArrival = now; used += 1 }

    /// Notes one item handed to the session at `now`.
    public mutating func count(_ item: DecodedItem, at now: Double) {
        switch item {
        case .frame: arrivals.add(at: now); lastArrival = now; used += 1
        case .malformed: malformed += 1
        }
    }

    /// The latest measures (for the summary at the end).
    public var lastHealth: InputHealth? { last }

    /// The measures at `now`, or nil when the status line would not change.
    public mutating func health(at now: Double) -> InputHealth? {
        arrivals.advance(to: now)
        let bad = source?.lastUnrecognised
        var rate = arrivals.perSecond
        // One frame either side of the last rate shown is the window's own jitter (a frame falls either side
        // of a bucket's edge), not news: showing it redrew a still face four times a second.
        if let l = last, rate > 0, abs(rate - l.arrivalRate) <= 1 { rate = l.arrivalRate }
        let h = InputHealth(arrivalRate: rate, quietSeconds: Int(max(0, now - lastArrival)),
                            dropped: source?.dropped ?? 0, unrecognised: source?.unrecognised ?? malformed,
                            unrecognisedFrom: bad?.from, unrecognisedPacket: bad?.issue.position?.index)
        guard h != last else { return nil }
        last = h
        return h
    }
}
