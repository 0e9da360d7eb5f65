import Localization
import Config
import TrackingCore

/// Calibrating the gestures hands-free: a neutral face for 2 s, then each gesture the keymap binds, twice,
/// guided on screen; the thresholds are set from the user's own face and performances and used at once.
///
/// While the steps run, no gesture acts: performing "activate" must not press a button, and performing
/// "back" must not leave. The way out is to keep still: a step that sees no performance stops the run
/// after a few seconds, and the result offers Done and Redo as ordinary targets. The screen reads the
/// blend shapes of each new frame; it never reads a clock.
public struct GestureCalibrationScreen: Screen {
    public let name = "gesture-calibration"
    /// Drawn at every frame: the frame's time and face are on screen.
    public var drawsFrames: Bool { true }
    public var title: String { N_("Calibrate gestures") }

    enum Phase: Sendable {
        case intro
        case running(GestureCalibrationRun)
        case fitted([(gesture: GestureCalibrationRun.Gesture, now: GestureThreshold, peak: Float, neutral: Float)], skipped: [String])
        case failed(CalibrationRefusal)
    }
    var phase = Phase.intro
    /// The time of the last frame read, so a tick without a new frame reads nothing.
    var lastFrame: Double?
    /// Until when gestures still do nothing after the run: a gesture that fires as it is let go (a wink, the
    /// brow raise) ends with the last performance, and must not act on the result screen.
    var quietUntil: Double?

    public init() {}

    static let startID = "gestures.start", doneID = "gestures.done", redoID = "gestures.redo"

    /// The gestures to calibrate: the threshold gestures the keymap binds, in the config's order, except the
    /// pause gesture (performing it would pause the shell mid-calibration) and the escape (built in, never
    /// tuned: it must act whatever a calibration made of the rest).
    static func gestures(_ ctx: ScreenContext) -> [GestureCalibrationRun.Gesture] {
        let bound = ctx.keymap.boundGestures
        let pauses: Set<Action> = [.togglePause, .pause, .resume]
        let sections = [ctx.keymap.global] + Array(ctx.keymap.screens.values)
        let pausing = Set(sections.flatMap { $0.gestures.filter { pauses.contains($0.value) }.keys })
        return ctx.gestures.compactMap { g in
            guard bound.contains(g.name), !pausing.contains(g.name), g.name != EscapeGesture.name,
                  case .threshold(let t) = g.kind else { return nil }
            return .init(name: g.name, label: GestureText.movement(g, ctx.catalog), signal: t.signal, press: t.press, release: t.release, hold: t.hold, calm: t.calm)
        }
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let buttons = Rect(x: b.x + 2, y: b.maxY - 3, w: b.w - 4, h: 3).columns(2, gap: 2)
        switch phase {
        case .intro:
            let asked = Self.gestures(ctx)
            let lines = [ctx.tr("First relax and keep a neutral face for 3 seconds, then do each gesture twice when asked:"),
                         asked.map(\.label).joined(separator: ", ") + ".",
                         ctx.tr("Hold each as you would to use it, then relax. Nothing acts while you calibrate."),
                         ctx.tr("A gesture not seen in 6 s is skipped; to stop, keep still through two of them."),
                         ctx.tracking.gestureThresholds.isEmpty ? ctx.tr("This tracker's gestures use the config's values now.")
                            : ctx.tr("This tracker's gestures are calibrated now.")]
            // The gestures in words take several rows: each paragraph is wrapped, a blank row between them.
            var y = b.y + 1
            for (i, l) in lines.enumerated() {
                for row in Canvas.wrap(l, width: b.w - 4) where y < buttons[0].y - 1 {
                    c.grid.centered(row, in: b, y: y, style: i == 4 ? Theme.hint : .plain)
                    y += 1
                }
                y += 1
            }
            c.button(Self.startID, ctx.tr("▶ Start"), buttons[0])
            c.button(Self.doneID, ctx.tr("✓ Done"), buttons[1])
        case .running(let run):
            renderRun(&c, run, ctx)
        case .fitted(let rows, let skipped):
            func level<F: BinaryFloatingPoint>(_ v: F) -> String { SetupScreen.decimal(Double(v), 2, ctx.catalog) }
            c.grid.centered(ctx.tr("Calibrated: these thresholds are in use now, kept for this tracker."), in: b, y: b.y + 1,
                            style: Theme.tileLabel)
            for (i, r) in rows.enumerated() where b.y + 3 + i < buttons[0].y {
                let line = ctx.tr("{gesture}: press {press} → {pressNow}   release {release} → {releaseNow}   (neutral {neutral}, weaker of two {peak})",
                                  ["gesture": r.gesture.label, "press": level(r.gesture.press), "pressNow": level(r.now.press),
                                   "release": level(r.gesture.release), "releaseNow": level(r.now.release),
                                   "neutral": level(r.neutral), "peak": level(r.peak)])
                c.text(line, x: b.x + 2, y: b.y + 3 + i, maxWidth: b.w - 4)
            }
            // The rhythm learned: holds and rise windows made to fit this user's performances.
            let rhythm = rows.compactMap { r -> String? in
                var parts: [String] = []
                if let h = r.now.hold { parts.append(ctx.tr("hold {before} → {now} s", ["before": level(r.gesture.hold), "now": level(h)])) }
                if let c = r.now.calm { parts.append(ctx.tr("rise within {before} → {now} s", ["before": level(r.gesture.calm), "now": level(c)])) }
                return parts.isEmpty ? nil : ctx.tr("{gesture}: {changes}", ["gesture": r.gesture.label, "changes": parts.joined(separator: ", ")])
            }
            var y = b.y + 4 + rows.count
            if !rhythm.isEmpty, y < buttons[0].y {
                c.text(ctx.tr("Your rhythm: {list}", ["list": rhythm.joined(separator: " · ")]), x: b.x + 2, y: y, style: Theme.hint, maxWidth: b.w - 4)
                y += 1
            }
            if !skipped.isEmpty, y < buttons[0].y {
                c.text(ctx.tr("Not seen, so unchanged: {list}", ["list": skipped.joined(separator: ", ")]), x: b.x + 2, y: y,
                       style: Theme.hint, maxWidth: b.w - 4)
            }
            c.button(Self.doneID, ctx.tr("✓ Done"), buttons[0])
            c.button(Self.redoID, ctx.tr("↻ Redo"), buttons[1])
        case .failed(let why):
            c.calibrationRefused(why.text(ctx.catalog), kept: ctx.tr("The gestures keep the values they had."), done: Self.doneID, redo: Self.redoID, buttons)
        }
    }

    private func renderRun(_ c: inout Canvas, _ run: GestureCalibrationRun, _ ctx: ScreenContext) {
        let b = c.bounds
        let t = ctx.tracking.frameTime ?? 0
        let face = ctx.tracking.blend == nil ? "   · no face: is it in view?" : ""
        let step: String, meterFor: Int
        switch run.stage {
        case .neutral:
            step = ctx.tr("Keep a neutral face: relax and look at the screen.")
            meterFor = 0
        case .perform(let k, let attempt):
            let g = run.gestures[k]
            let how = ctx.gestures.first { $0.name == g.name }.map { GestureText.describe($0, ctx.catalog, letterKeys: false) } ?? ctx.tr(g.label)
            step = ctx.tr("Now: {how}, then relax ({n} of 2).", ["how": how, "n": "\(attempt + 1)"])
            meterFor = k
        case .done:
            return
        }
        for (i, row) in Canvas.wrap(step + face, width: b.w - 4).prefix(2).enumerated() {
            c.grid.centered(row, in: b, y: b.y + 2 + i, style: Theme.tileLabel)
        }
        let done = run.stage == .neutral ? 0 : run.peaks.reduce(0) { $0 + $1.count }
        c.grid.centered(ctx.tr("Performance {n} of {total}", ["n": "\(done + 1)", "total": "\(run.gestures.count * 2 + 1)"]), in: b, y: b.y + 4, style: Theme.hint)
        // The signal as a bar, with the neutral face's level and the threshold in use marked on it.
        let w = max(10, min(60, b.w - 20))
        let x = b.x + (b.w - w) / 2
        func at(_ v: Float) -> Int { x + min(w - 1, max(0, Int((Double(v) * Double(w)).rounded()))) }
        let filled = min(w, max(0, Int((Double(run.current) * Double(w)).rounded())))
        c.text(String(repeating: "█", count: filled) + String(repeating: "░", count: w - filled), x: x, y: b.y + 7, style: Theme.dwell)
        if run.stage != .neutral {
            c.text("│", x: at(run.baseline(meterFor)), y: b.y + 8, style: Theme.hint)
            c.text("▲", x: at(run.gestures[meterFor].press), y: b.y + 8, style: Theme.hint)
            c.grid.centered("│ your neutral face   ▲ the threshold now", in: b, y: b.y + 9, style: Theme.hint)
        }
        let p = Int((run.progress(at: t) * 20).rounded())
        c.grid.centered(String(repeating: "▪", count: p) + String(repeating: "·", count: 20 - p), in: b, y: b.y + 11, style: Theme.hint)
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch (input, phase) {
        case (.tick, .running(var run)):
            guard let t = ctx.tracking.frameTime, t != lastFrame else { return .unhandled }
            lastFrame = t
            run.step(t: t, face: ctx.tracking.blend != nil, blend: ctx.tracking.blend ?? BlendShapes())
            phase = .running(run)
            guard run.isDone else { return Reply(record: nil) }
            quietUntil = t + 1
            return finish(run)
        case (.action, .running):
            // While the steps run, performing a gesture must not act (activate would press, back would leave).
            return Reply(record: nil)
        case (.action, _) where quietUntil.map { ctx.now < $0 } ?? false:
            return Reply(record: nil)
        case (.action(.activate, let target?, _), _):
            switch target.id {
            case Self.startID, Self.redoID:
                let asked = Self.gestures(ctx)
                phase = .running(GestureCalibrationRun(gestures: asked))
                lastFrame = ctx.tracking.frameTime
                if asked.isEmpty { return finish(GestureCalibrationRun(gestures: [])) }
                return Reply(record: "calibrate-gestures")
            case Self.doneID:
                return Reply(navigation: .back, record: "back")
            default:
                return .unhandled
            }
        case (.action(.help, _, _), _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    private mutating func finish(_ run: GestureCalibrationRun) -> Reply {
        switch run.fit() {
        case .success(let thresholds):
            let rows = run.gestures.indices.compactMap { k -> (GestureCalibrationRun.Gesture, GestureThreshold, Float, Float)? in
                guard let now = thresholds.first(where: { $0.name == run.gestures[k].name }) else { return nil }
                return (run.gestures[k], now, run.peaks[k].min() ?? 0, run.baseline(k))
            }
            phase = .fitted(rows.map { (gesture: $0.0, now: $0.1, peak: $0.2, neutral: $0.3) },
                            skipped: run.skipped.map { run.gestures[$0].label })
            return Reply(effects: [.gesturesCalibrated(thresholds)], record: "gestures-calibrated")
        case .failure(let p):
            phase = .failed(.gestures(p.reason))
            return Reply(record: "gesture-calibration-refused")
        }
    }
}
