import Config
import FrameFormats
import Foundation
import Runtime
import Shell
import TrackingCore

/// `handsfree bench gestures [FILE…]`: how each gesture config tells deliberate gestures from talking,
/// blinking and looking around, on face streams whose truth is known, and what it makes of recordings.
///
/// The generated stream is a labelled script of what people do in front of a tracker: deliberate jaw
/// openings of several rhythms (a quick one, a wide open held 0.7 s, an "O" that rises slowly to 0.6 and holds,
/// a long hold), talking (the jaw moving 3–5 times a second, sometimes past 0.5 for 0.3–0.7 s, the lips
/// rounding for "oo"), full blinks, looking down (both eyelids half closed for a second) and deliberate
/// right-eye closures. Every segment runs through the real `Pipeline` of each config; an event is charged to
/// the segment it fired in (or within half a second after it, as a release-fired wink is). Recordings are
/// replayed as they are and their events counted, for what a person knows of them (a talking take must give
/// no activate).
public struct GestureBench {
    /// Gesture configs to compare, as `--config` takes them.
    public var configs = ["gestures", "webcam"]
    /// Recordings to replay besides the generated stream.
    public var files: [String] = []
    /// How many times the script repeats (with fresh noise and timing each time).
    public var rounds = 5
    public var seed: UInt64 = 7
    /// `--set` values applied to every config compared (an A/B of one value with the same binary).
    public var overrides: [String] = []
    /// Replays as with the focus on a letter key, where the gestures' `key_hold_ms` applies (what a user who
    /// talks while looking at a key gets).
    public var onKey = false

    public init() {}

    /// What a segment of the script is, and what must (or must not) come of it.
    enum Kind: String, CaseIterable {
        case quickOpen = "quick open 0.5 s", wideHold = "wide open held 0.7 s", slowO = "slow \"O\" to 0.6, 1.8 s"
        case longHold = "open held 1.2 s", rightClose = "right eye closed 0.6 s"
        case talking = "talking", blinking = "full blinks", lookingDown = "looking down", rest = "rest"

        /// The gesture this segment is meant to make; nil: none may fire.
        var wanted: String? {
            switch self {
            case .quickOpen, .wideHold, .slowO, .longHold: return "activate"
            case .rightClose: return "back"
            case .talking, .blinking, .lookingDown, .rest: return nil
            }
        }
    }

    struct Segment { var kind: Kind; var start: Double; var end: Double }

    struct Rng {
        var s: UInt64
        init(seed: UInt64) { s = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
    }

    /// The labelled script at 60 frames/s.
    static func script(_ rng: inout Rng, rounds: Int) -> (frames: [TrackingFrame], segments: [Segment]) {
        var frames: [TrackingFrame] = [], segments: [Segment] = []
        var t = 0.0
        func emit(_ seconds: Double, _ kind: Kind, _ shape: (Double) -> [BlendShape: Double]) {
            let start = t
            let n = Int(seconds * 60)
            for k in 0..<n {
                var b = BlendShapes()
                // A resting face is never quite still.
                b[.jawOpen] = Float(max(0, 0.04 + 0.015 * (rng.unit() - 0.5)))
                b[.eyeBlinkLeft] = Float(0.05 + 0.02 * rng.unit()); b[.eyeBlinkRight] = Float(0.05 + 0.02 * rng.unit())
                for (s, v) in shape(Double(k) / 60) { b[s] = Float(min(1, max(0, v + 0.01 * (rng.unit() - 0.5)))) }
                frames.append(TrackingFrame(t: t, blend: b, gaze: GazePoint(x: 0.5, y: 0.5)))
                t += 1.0 / 60
            }
            if kind != .rest { segments.append(Segment(kind: kind, start: start, end: t)) }
        }
        func rest() { emit(rng.uniform(1.2, 2.0), .rest) { _ in [:] } }
        /// A jaw opening: rises in `rise` s to `peak`, holds `hold` s, falls in 0.15 s.
        func open(_ kind: Kind, rise: Double, peak: Double, hold: Double) {
            emit(rise + hold + 0.15, kind) { s in
                let v = s < rise ? peak * s / rise : s < rise + hold ? peak : peak * (1 - (s - rise - hold) / 0.15)
                return [.jawOpen: v]
            }
        }
        rest()
        for _ in 0..<rounds {
            open(.quickOpen, rise: 0.1, peak: rng.uniform(0.7, 0.9), hold: 0.5); rest()
            open(.wideHold, rise: 0.15, peak: rng.uniform(0.8, 0.95), hold: 0.7); rest()
            open(.slowO, rise: 0.6, peak: 0.6, hold: 1.2); rest()
            open(.longHold, rise: 0.12, peak: rng.uniform(0.65, 0.85), hold: 1.2); rest()
            let rate = rng.uniform(3, 5), phase = rng.uniform(0, 6)
            emit(rng.uniform(4, 6), .talking) { s in
                // Syllables 3–5 a second; every second and a half a stressed one holds past 0.5 for a while;
                // "oo" rounds the lips now and then.
                var jaw = 0.3 + 0.22 * sin(2 * .pi * rate * s + phase)
                let stress = s.truncatingRemainder(dividingBy: 1.5)
                if stress < 0.5 { jaw = max(jaw, 0.58) }
                let oo = s.truncatingRemainder(dividingBy: 1.1) < 0.18 ? 0.6 : 0.05
                return [.jawOpen: jaw, .mouthPucker: oo]
            }
            rest()
            for _ in 0..<3 {
                let d = rng.uniform(0.12, 0.3)
                emit(d, .blinking) { _ in [.eyeBlinkLeft: 0.95, .eyeBlinkRight: 0.93] }
                emit(rng.uniform(0.4, 0.9), .rest) { _ in [:] }
            }
            emit(rng.uniform(0.8, 1.4), .lookingDown) { _ in [.eyeBlinkLeft: 0.58, .eyeBlinkRight: 0.6] }
            rest()
            emit(0.6, .rightClose) { _ in [.eyeBlinkRight: 0.9, .eyeBlinkLeft: 0.08] }
            rest()
        }
        return (frames, segments)
    }

    public func run(out: BenchReport) throws {
        var rng = Rng(seed: seed)
        let (frames, segments) = Self.script(&rng, rounds: rounds)
        out("gestures: a generated face, \(rounds) rounds of each (\(String(format: "%.0f", frames.last?.t ?? 0)) s at 60 frames/s), through each config's real pipeline\(onKey ? " with the focus on a letter key" : ""); an event counts for the segment it fired in (or within 0.5 s after)")
        for config in configs {
            let settings = try Setup.settings(config: config, overrides: overrides)
            var pipeline = Pipeline(settings)
            pipeline.onKey = onKey
            var events: [GestureEvent] = []
            for f in frames { events += pipeline.track(.frame(f, nil)) }
            out("  config \(config):")
            for kind in Kind.allCases where kind != .rest {
                let mine = segments.filter { $0.kind == kind }
                guard !mine.isEmpty else { continue }
                var caught = 0
                var falseByGesture: [String: Int] = [:]
                for seg in mine {
                    let fired = events.filter { $0.t >= seg.start && $0.t < seg.end + 0.5 }
                    if let w = kind.wanted, fired.contains(where: { $0.name == w }) { caught += 1 }
                    for e in fired where e.name != kind.wanted { falseByGesture[e.name, default: 0] += 1 }
                }
                let falses = falseByGesture.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                let seconds = mine.map { $0.end - $0.start }.reduce(0, +)
                let label = kind.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0)
                if let w = kind.wanted {
                    out("    \(label)\(w) caught \(caught) of \(mine.count)" + (falses.isEmpty ? "" : "; also fired: \(falses)"))
                } else {
                    out("    \(label)" + String(format: "%.0f s", seconds) + ": false actions " + (falses.isEmpty ? "none" : falses))
                }
            }
            try fatigue(config: config, out: out)
        }
        for file in files {
            for config in configs {
                let settings = try Setup.settings(config: config, overrides: overrides)
                var pipeline = Pipeline(settings)
                pipeline.onKey = onKey
                var counts: [String: Int] = [:]
                var first = 0.0, last = 0.0
                for item in try FrameFileReader(path: file) {
                    if case .frame(let f, _) = item { if first == 0 { first = f.t }; last = f.t }
                    for e in pipeline.track(item) { counts[e.name, default: 0] += 1 }
                }
                let list = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                out(String(format: "  %@ (%.0f s), config %@: %@", (file as NSString).lastPathComponent, last - first, config,
                           list.isEmpty ? "no gesture" : list))
            }
        }
    }

    /// A tiring user: for 30 minutes, every 20 s, the gaze rests on a key of the note editor and the jaw opens
    /// and holds (0.3 s longer than the config's hold), each open weaker than the last (peak 0.85 at the start, 0.40 at the end), through the
    /// real session. Prints how many opens acted in each 10 minutes and when the shell said the opens fall
    /// short of the thresholds (it suggests calibrating; it never lowers them by itself).
    func fatigue(config: String, out: BenchReport) throws {
        let settings = try Setup.settings(config: config, overrides: overrides)
        let keymap = try Setup.keymap(config == "webcam" ? "webcam" : "default", gestures: settings.gestures)
        var state = ShellState(keymap: keymap, gestures: settings.gestures)
        _ = state.show(screen: "note-editor")
        guard let key = state.hitMap.target(id: "note-editor.keyboard.key.g") else { return }
        let gaze = GazePoint(x: (Double(key.rect.x) + Double(key.rect.w) / 2) / Double(state.size.width),
                             y: (Double(key.rect.y) + Double(key.rect.h) / 2) / Double(state.size.height))
        var session = Session(state: state, settings: settings)
        var rng = Rng(seed: seed)
        var t = 0.0
        var acted = [0, 0, 0], opens = [0, 0, 0]
        var prompts: [Double] = []
        var shown = false
        func frame(_ jaw: Double) {
            var b = BlendShapes()
            b[.jawOpen] = Float(max(0, jaw + 0.01 * (rng.unit() - 0.5)))
            let effects = session.step(.frame(TrackingFrame(t: t, blend: b, gaze: gaze), nil))
            let block = min(2, Int(t / 600))
            acted[block] += effects.filter { if case .performed(let r) = $0 { r.action == "type" } else { false } }.count
            let prompt = session.state.notice?.contains("Calibrate gestures") == true
            if prompt && !shown { prompts.append(t) }
            shown = prompt
            t += 1.0 / 60
        }
        while t < 2 { frame(0.04) }
        let hold = TypingBench.hold(settings) + 0.3
        let total = 90
        for k in 0..<total {
            let peak = 0.85 - 0.45 * Double(k) / Double(total - 1)
            opens[min(2, Int(t / 600))] += 1
            let start = t
            // Rises in 0.2 s, holds, falls in 0.15 s; then rests until the next 20 s mark.
            while t < start + 0.35 + hold {
                let s = t - start
                frame(s < 0.2 ? peak * s / 0.2 : s < 0.2 + hold ? peak : peak * (1 - (s - 0.2 - hold) / 0.15))
            }
            while t < Double(k + 1) * 20 + 2 { frame(0.04) }
        }
        let blocks = (0..<3).map { "\(acted[$0]) of \(opens[$0])" }.joined(separator: ", ")
        let asked = prompts.isEmpty ? "never" : prompts.map { String(format: "minute %.0f", $0 / 60) }.joined(separator: ", ")
        out("    fatigue, 30 min             opens weakening 0.85 → 0.40 on a key: acted \(blocks) per 10 min; asked to calibrate at \(asked)")
    }
}
