#if canImport(Glibc)
import Glibc
#endif
import Config
import FrameFormats
import Foundation
import Transport
import Shell
import Terminal
import TrackingCore

/// Where frames come from in a live shell.
public enum FrameFeed {
    /// No tracker: keyboard only.
    case none
    /// A recording, delivered at its own pace times `speed`.
    case replay(items: [DecodedItem], speed: Double, name: String)
    /// A live socket (UDP or TCP, NDJSON or Live Link Face).
    case live(LiveSource)
    /// The scripted demo user.
    case demo(DemoScript, speed: Double)
}

/// The user's state folder (`$XDG_STATE_HOME/handsfree` or `~/.local/state/handsfree`): first-start marker, log.
public enum StateDir {
    public static var url: URL {
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_STATE_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("handsfree") }
        let home = env["HOME"] ?? NSTemporaryDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/handsfree")
    }
    public static var onboardedMarker: URL { url.appendingPathComponent("onboarded") }
    public static var isFirstStart: Bool { !FileManager.default.fileExists(atPath: onboardedMarker.path) }
    public static func markOnboarded() {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try? Data("seen\n".utf8).write(to: onboardedMarker)
    }
}

/// Appends action lines to a log file in the state folder; never to the terminal curses owns.
public final class ActionLog {
    private let handle: FileHandle?
    public init() {
        let dir = StateDir.url
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("shell.log").path
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        handle = FileHandle(forWritingAtPath: path)
        _ = try? handle?.seekToEnd()
    }
    public func write(_ line: String) { handle?.write(Data((line + "\n").utf8)) }
    deinit { try? handle?.close() }
}

/// Reloads the keymap file when it changes; a broken edit keeps the last good keymap and says why.
public struct KeymapWatcher {
    public let path: String
    public let gestures: [GestureDefinition]
    private var stamp: Date?
    private var lastCheck = 0.0

    public init(path: String, gestures: [GestureDefinition]) {
        self.path = path; self.gestures = gestures
        stamp = KeymapWatcher.modified(path)
    }

    public static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Checks at most once a second; applies a good new keymap, or shows the error and keeps the old one.
    public mutating func check(now: Double, state: inout ShellState) -> Bool {
        guard now - lastCheck >= 1 else { return false }
        lastCheck = now
        let m = KeymapWatcher.modified(path)
        guard m != stamp else { return false }
        stamp = m
        do {
            state.keymap = try Setup.keymap(path, gestures: gestures)
            state.notice = "Keymap reloaded"
            state.relayout()
        } catch {
            state.notice = "Keymap not reloaded: \(error)"
        }
        return true
    }
}

/// The live loop: waits on the keyboard, the frame source and the signal pipe; feeds the session; draws.
public struct ShellRuntime {
    public var session: Session
    public var feed: FrameFeed
    /// Leave when a replay or demo has ended (after a short pause so the last screen can be seen).
    public var exitAtEnd: Bool
    /// Speech (dictation, voice commands), nil when the shell runs without it.
    public var speech: LiveSpeech?
    /// Word prediction for the suggestion bars, nil without it.
    public var prediction: LivePrediction?
    public var keymapWatcher: KeymapWatcher?
    /// Saves the session's usage record when the loop ends, however it ends (nil: not recorded).
    public var saveMetrics: ((SessionMetrics) -> Void)?
    /// The signal that ended the loop, if one did (the command then exits with 128 + signal).
    public private(set) var exitSignal: Int32?
    /// Opens what the shell is shown on: the full-screen terminal, or plain lines (`--plain`).
    public var display: () throws -> ShellDisplay = { try CursesDisplay(Terminal()) }
    /// One line for standard error once the terminal is given back: how the run ended and what the frame
    /// source delivered (frames used, dropped in floods, unrecognised).
    public private(set) var summary = ""

    public init(session: Session, feed: FrameFeed, exitAtEnd: Bool) {
        self.session = session; self.feed = feed; self.exitAtEnd = exitAtEnd
    }

    public mutating func run() throws {
        let term = try display()
        // Declared before the terminal's stop, so it runs after it: a problem saving can then be printed.
        defer { if session.state.settings.recordMetrics { saveMetrics?(session.metrics) } }
        defer { term.stop() }
        let signalFD = Terminal.installSignalPipe()
        let log = ActionLog()
        _ = session.send(.resized(term.size))
        // Shown before the first key, so plain mode can name what the first key acts on.
        term.show(session.state, performed: [])
        prediction?.suggestRudeWords(session.state.settings.suggestRudeWords)
        var frameIndex = 0
        let start = monotonicSeconds()
        var firstT: Double?
        var endedAt: Double?
        var dirty = true
        var lastSave = monotonicSeconds()
        var phrasesVersion = -1
        var performed: [ActionRecord] = []
        var meter = InputMeter(start: start)
        defer {
            speech?.shutdown()
            _ = prediction?.saveIfNeeded()
            summary = runSummary(meter)
        }
        loop: while true {
            // Wait for input, a datagram, a signal, or the next paced frame (at most 50 ms, for ticks).
            var wait = 0.05
            switch feed {
            case .replay(let items, let speed, _):
                if frameIndex < items.count, case .frame(let f, _) = items[frameIndex] {
                    let due = start + (f.t - (firstT ?? f.t)) / speed
                    wait = max(0, min(wait, due - monotonicSeconds()))
                } else if frameIndex < items.count { wait = 0 }
            case .demo(let script, let speed):
                if !script.isFinished { wait = max(0, min(wait, start + script.t / speed - monotonicSeconds())) }
            default: break
            }
            var fds = [pollfd(fd: term.inputFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            if case .live(let r) = feed { for fd in r.descriptors { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) } }
            for fd in speech?.descriptors ?? [] { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), Int32(wait * 1000))
            if let sig = Terminal.pendingSignal() { exitSignal = sig; break loop }
            // The terminal went away (its window was closed): leave instead of spinning on a dead descriptor.
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, term.inputHungUp() { exitSignal = SIGHUP; break loop }

            var effects: [Effect] = []
            let now0 = monotonicSeconds()
            let revision = session.state.revision
            var keysRead = 0
            // Bounded, so a terminal that keeps returning input cannot starve frames.
            while keysRead < 256, let input = term.readInput() {
                keysRead += 1
                switch input {
                case .key(let k): effects += session.send(.key(k))
                case .resized(let s): effects += session.send(.resized(s))
                }
                dirty = true
            }
            if var w = keymapWatcher {
                if w.check(now: monotonicSeconds(), state: &session.state) { dirty = true }
                keymapWatcher = w
            }
            if let e = speechUpdates() { effects += e; dirty = true }
            if prediction?.takeFinished() == true { session.state.relayout(); dirty = true }
            if now0 - lastSave > 10, let p = prediction {
                lastSave = now0
                if let problem = p.saveIfNeeded() { session.state.notice = problem; dirty = true }
            }
            let now = monotonicSeconds()
            switch feed {
            case .none:
                effects += session.send(.tick(at: now - start))
            case .live(let r):
                for item in r.drain() { meter.count(item, at: now); effects += session.step(item); dirty = true }
                meter.source = r
            case .replay(let items, let speed, _):
                while frameIndex < items.count {
                    let item = items[frameIndex]
                    if case .frame(let f, _) = item {
                        if firstT == nil { firstT = f.t }
                        if start + (f.t - (firstT ?? f.t)) / speed > now { break }
                    }
                    meter.count(item, at: now)
                    effects += session.step(item); frameIndex += 1; dirty = true
                }
                if frameIndex >= items.count, endedAt == nil { endedAt = now }
            case .demo(var script, let speed):
                while start + script.t / speed <= now, let f = script.next(session.state) {
                    meter.count(.frame(f, nil), at: now)
                    effects += session.step(.frame(f, nil))
                    session.state.notice = script.caption
                    dirty = true
                }
                if script.isFinished, endedAt == nil { endedAt = now }
                feed = .demo(script, speed: speed)
            }
            if case .none = feed {} else if let h = meter.health(at: now) {
                effects += session.send(.inputHealth(h))
                dirty = true
            }
            var effects2: [Effect] = []
            for e in effects {
                switch e {
                case .quit: break loop
                case .finishedOnboarding: StateDir.markOnboarded()
                case .performed(let r): log.write(r.json); performed.append(r)
                case .startDictation, .stopDictation, .listenForCommand: effects2 += speechEffect(e)
                case .settingsChanged(let settings): applied(settings)
                }
            }
            // Turning speech off when it is unavailable performs a stop; its record goes to the log.
            for case .performed(let r) in effects2 { log.write(r.json) }
            if !effects2.isEmpty { dirty = true }
            if let s = speech, session.state.layoutVersion != phrasesVersion {
                phrasesVersion = session.state.layoutVersion
                s.updatePhrases(session.state.voicePhrases)
            }
            // A tick a screen handled (a reply arrived, playback moved) changed what is shown.
            if session.state.revision != revision { dirty = true }
            if dirty {
                let size = term.size
                if size != session.state.size { _ = session.send(.resized(size)) }
                term.show(session.state, performed: performed)
                performed = []
                dirty = false
            }
            if exitAtEnd, let e = endedAt, now - e > 1.0 { break loop }
        }
    }
}

public extension ShellRuntime {
    /// Settings the Settings screen changed (the session has applied them already): save them to the user's
    /// config, and switch keymap when asked. Problems show in the title bar; the shell keeps running.
    public mutating func applied(_ settings: ShellSettings) {
        prediction?.suggestRudeWords(settings.suggestRudeWords)
        var problems: [String] = []
        if let e = UserSettings.save(settings) { problems.append("Settings not saved: \(e)") }
        if settings.keymap != session.state.keymap.name {
            do {
                session.state.keymap = try Setup.keymap(settings.keymap, gestures: session.pipeline.settings.gestures)
                session.state.relayout()
                keymapWatcher = KeymapWatcher(path: Setup.keymapPath(settings.keymap), gestures: session.pipeline.settings.gestures)
            } catch {
                problems.append("Keymap \(settings.keymap) not loaded: \(error)")
            }
        }
        session.state.notice = problems.isEmpty ? nil : problems.joined(separator: " · ")
    }
}

public extension ShellRuntime {
    /// Feeds what the speech thread recognised into the session; returns the effects, nil if nothing came.
    public mutating func speechUpdates() -> [Effect]? {
        guard let speech else { return nil }
        let updates = speech.drain()
        guard !updates.isEmpty else { return nil }
        var effects: [Effect] = []
        for u in updates {
            switch u {
            case .text(let text, let isFinal):
                effects += session.send(.speech(text, isFinal: isFinal))
            case .status(let s):
                session.state.micStatus = s
            case .listening:
                session.state.listening = true
            case .notice(let text):
                session.state.notice = text
            case .silence(let seconds):
                effects += perform(&session.state, .stopDictation, target: nil, gaze: nil)
                session.state.notice = "Dictation stopped after \(Int(seconds)) s of silence"
            }
        }
        return effects
    }

    /// Opens or closes the microphone for a dictation/command effect. Without speech, dictation is turned
    /// straight off again with the reason, so jaw gestures keep working and the user knows why.
    public mutating func speechEffect(_ e: Effect) -> [Effect] {
        guard let speech, speech.failed == nil else {
            guard e != .stopDictation else { return [] }
            session.state.listening = false
            session.state.notice = speech?.failed ?? "Speech is off in this run"
            return session.state.dictating ? perform(&session.state, .stopDictation, target: nil, gaze: nil) : []
        }
        switch e {
        case .startDictation: speech.startDictation(silence: session.state.settings.dictationSilence)
        case .stopDictation: speech.stop()
        case .listenForCommand: speech.listenForCommand(session.state.voicePhrases)
        default: break
        }
        return []
    }
}

public extension ShellRuntime {
    /// `handsfree: ended by signal 15 · frames: 1200 used, 0 dropped, 0 unrecognised, 1200 packets received`.
    public func runSummary(_ m: InputMeter) -> String {
        let end = exitSignal.map { "ended by signal \($0)" } ?? "ended"
        var s = "handsfree: \(end)"
        if case .none = feed { return s }
        s += " · frames: \(m.used) used"
        let h = m.lastHealth
        s += ", \(h?.dropped ?? 0) dropped, \(h?.unrecognised ?? 0) unrecognised"
        if let r = m.source { s += ", \(r.received) packets received" }
        return s
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

    /// Notes one item handed to the session at `now`.
    public mutating func count(_ item: DecodedItem, at now: Double) {
        switch item {
        case .frame: arrivals.add(at: now); lastArrival = now; used += 1
        case .malformed: malformed += 1
        }
    }

    /// The measures at `now`, or nil when the status line would not change.
    /// The latest measures (for the summary at the end).
    public var lastHealth: InputHealth? { last }

    public mutating func health(at now: Double) -> InputHealth? {
        arrivals.advance(to: now)
        let bad = source?.lastUnrecognised
        let h = InputHealth(arrivalRate: arrivals.perSecond, quietSeconds: Int(max(0, now - lastArrival)),
                            dropped: source?.dropped ?? 0, unrecognised: source?.unrecognised ?? malformed,
                            unrecognisedFrom: bad?.from, unrecognisedPacket: bad?.issue.position?.index)
        guard h != last else { return nil }
        last = h
        return h
    }
}
