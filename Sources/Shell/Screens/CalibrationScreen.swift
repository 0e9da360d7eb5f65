import Localization
import Config
import TrackingCore

/// Calibrating the pointer hands-free: nine dots one after another, each filling once the user's gaze has
/// arrived at it, however late; then four check dots, which measure the error the user will really get; then
/// the fit, its accuracy in cells and a picture of where the gaze landed. "Centre only" is a one-dot drift
/// correction that shifts the calibration in use.
///
/// The screen samples the raw pointer (before calibration and smoothing) of each new frame; it never reads a
/// clock. Nothing is applied before the check dots pass: a fit farther off than `CalibrationCheck.limit`, or
/// no better than the pointer in use, is refused with the reason, and the previous calibration stays — so the
/// Try again button is where the pointer the user has can reach it.
public struct CalibrationScreen: Screen {
    public let name = "calibration"
    /// Drawn at every frame: the raw pointer and the dot's progress are on screen.
    public var drawsFrames: Bool { true }
    public var title: String { N_("Calibrate pointer") }

    enum Phase: Sendable {
        case intro
        case running(CalibrationRun, drift: Bool)
        /// The check dots, looked at with the candidate fit not yet applied.
        case checking(CalibrationRun, candidate: CalibrationResult, skipped: [Int])
        case fitted(CalibrationResult, landed: [(GazePoint, GazePoint)], check: CalibrationCheck.Verdict?)
        case corrected
        case failed(CalibrationRefusal)
    }
    var phase = Phase.intro
    /// The time of the last frame sampled, so a tick without a new frame samples nothing.
    var lastFrame: Double?

    public init() {}

    static let startID = "calibration.start", driftID = "calibration.drift", doneID = "calibration.done"
    static let redoID = "calibration.redo"

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let buttons = Rect(x: b.x + 2, y: b.maxY - 3, w: b.w - 4, h: 3).columns(2, gap: 2)
        switch phase {
        case .intro:
            let lines = [ctx.tr("Nine dots appear one after another. Look at each until it fills; keep your head still."),
                         ctx.tr("The pointer then goes where you look, with your tracker and your seating."),
                         ctx.tr("Centre only: one dot in the middle, to correct a pointer that has drifted."),
                         (ctx.calibration != nil) ? ctx.tr("A calibration is in use now.") : ctx.tr("No calibration is in use now.")]
            for (i, l) in lines.enumerated() {
                c.grid.centered(l, in: b, y: b.y + 2 + i * 2, style: i == 3 ? Theme.hint : .plain)
            }
            c.button(Self.startID, ctx.tr("▶ Start (9 dots)"), buttons[0])
            c.button(Self.driftID, ctx.tr("◎ Centre only"), buttons[1])
        case .running(let run, _), .checking(let run, _, _):
            guard let t = run.target else { return }
            let p = screenCell(t, b)
            let bar = Int((run.progress * 9).rounded())
            // The bar below the dot (above it on the last row), the words on the half of the screen away from it.
            let barY = p.y + 1 < b.maxY ? p.y + 1 : p.y - 1
            c.text(String(repeating: "█", count: bar) + String(repeating: "░", count: 9 - bar),
                   x: max(b.x, min(b.maxX - 9, p.x - 4)), y: barY, style: Theme.dwell)
            let step = ["n": String(run.index + 1), "count": String(run.targets.count)]
            var what = ctx.tr("Look at the dot until it fills ({n} of {count})", step)
            if case .checking = phase { what = ctx.tr("Checking: look at the dot ({n} of {count})", step) }
            if !run.hasArrived { what = ctx.tr("{step}, in your own time", ["step": what]) }
            if ctx.tracking.rawPointer == nil { what = ctx.tr("{step} · no pointer: is the face seen?", ["step": what]) }
            c.grid.centered(what,
                            in: b, y: t.y > 0.5 ? b.y : b.maxY - 1, style: Theme.hint)
            c.text("◉", x: p.x, y: p.y, style: Theme.focus)
        case .fitted(let r, let landed, let check):
            let cells = { (v: Double) in SetupScreen.decimal(v, 1, ctx.catalog) }
            let line = check.map { ctx.tr("Calibrated: {after} cells off on the check dots ({before} with the pointer before). Kept for this source.",
                                          ["after": cells($0.error), "before": cells($0.inUse)]) }
                ?? ctx.tr("Calibrated: {after} cells off where you looked ({before} before). Kept for this source.",
                          ["after": cells(r.errorAfter), "before": cells(r.errorBefore)])
            c.grid.centered(line, in: b, y: b.y + 1, style: Theme.tileLabel)
            let area = Rect(x: b.x + 2, y: b.y + 3, w: b.w - 4, h: b.h - 8)
            for (target, hit) in landed {
                let t = cell(target, area), h = cell(hit, area)
                c.text("+", x: t.x, y: t.y, style: Theme.hint)
                c.text("•", x: h.x, y: h.y, style: Theme.dwell)
            }
            c.grid.centered(ctx.tr("+ a check dot, • where your gaze landed there with the calibration"), in: b, y: area.maxY, style: Theme.hint)
            c.button(Self.doneID, ctx.tr("✓ Done"), buttons[0])
            c.button(Self.redoID, ctx.tr("↻ Redo"), buttons[1])
        case .corrected:
            c.grid.centered(ctx.tr("Drift corrected: the pointer is shifted to where you looked."), in: b, y: b.y + 3, style: Theme.tileLabel)
            c.button(Self.doneID, ctx.tr("✓ Done"), buttons[0])
            c.button(Self.redoID, ctx.tr("↻ Again"), buttons[1])
        case .failed(let why):
            c.calibrationRefused(why.text(ctx.catalog), kept: ctx.tr("The previous calibration is still in use."), done: Self.doneID, redo: Self.redoID, buttons)
        }
    }

    /// The cell of the whole screen a normalised point falls on: the pointer spans the whole screen, and the
    /// body lies between one title row and two status rows, so the dots (10 %…90 %) fall inside it.
    func screenCell(_ p: GazePoint, _ body: Rect) -> CellPoint {
        let c = CellPoint(gaze: p, in: Size(width: body.maxX, height: body.maxY + 2))
        return CellPoint(x: c.x, y: min(body.maxY - 1, max(body.y, c.y)))
    }

    /// The cell a normalised point falls on inside `r`.
    func cell(_ p: GazePoint, _ r: Rect) -> CellPoint {
        let c = CellPoint(gaze: p, in: Size(width: r.w, height: r.h))
        return CellPoint(x: r.x + c.x, y: r.y + c.y)
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch (input, phase) {
        case (.tick, .running(var run, let drift)):
            guard let t = ctx.tracking.frameTime, t != lastFrame else { return .unhandled }
            lastFrame = t
            let before = (run.index, Int(run.progress * 9))
            run.step(t: t, raw: ctx.tracking.rawPointer)
            phase = .running(run, drift: drift)
            guard run.isDone else {
                // Redraw only when the dot moved or its bar grew.
                return before == (run.index, Int(run.progress * 9)) ? .unhandled : Reply(record: nil)
            }
            return finish(run, drift: drift, ctx)
        case (.tick, .checking(var run, let candidate, let skipped)):
            guard let t = ctx.tracking.frameTime, t != lastFrame else { return .unhandled }
            lastFrame = t
            let before = (run.index, Int(run.progress * 9))
            run.step(t: t, raw: ctx.tracking.rawPointer)
            phase = .checking(run, candidate: candidate, skipped: skipped)
            guard run.isDone else {
                return before == (run.index, Int(run.progress * 9)) ? .unhandled : Reply(record: nil)
            }
            return judge(run, candidate, skipped: skipped, ctx)
        case (.action(.activate, let target?, _), _):
            switch target.id {
            case Self.startID, Self.redoID:
                phase = .running(CalibrationRun(), drift: false)
                return Reply(record: "calibrate")
            case Self.driftID:
                var run = CalibrationRun(targets: [GazePoint(x: 0.5, y: 0.5)])
                run.perTarget = 30
                phase = .running(run, drift: true)
                return Reply(record: "drift-correct")
            case Self.doneID:
                return Reply(navigation: .back, record: "back")
            default:
                return .unhandled
            }
        case (.action(.back, _, _), .running), (.action(.back, _, _), .checking):
            // Cancelling a run keeps the calibration in use.
            phase = .intro
            return Reply(record: "cancel")
        case (.action, .running), (.action, .checking):
            // While the dots show, a gesture must not act on a target the user is not looking at.
            return Reply(record: nil)
        case (.action(.help, _, _), _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    private mutating func finish(_ run: CalibrationRun, drift: Bool, _ ctx: ScreenContext) -> Reply {
        if let p = run.problem {
            phase = .failed(.fit(p.reason, skipped: []))
            return Reply(record: "calibration-refused")
        }
        if drift {
            guard run.samples.count >= CalibrationFit.minSamplesPerTarget else {
                phase = .failed(.centre)
                return Reply(record: "calibration-refused")
            }
            let xs = run.samples.map(\.raw.x).sorted(), ys = run.samples.map(\.raw.y).sorted()
            phase = .corrected
            return Reply(effects: [.driftCorrect(raw: GazePoint(x: xs[xs.count / 2], y: ys[ys.count / 2]))], record: "drift-corrected")
        }
        switch CalibrationFit.fit(run.samples, cells: Self.cells(ctx)) {
        case .success(let r):
            // Nothing is applied yet: the check dots say whether the fit is worth using.
            phase = .checking(CalibrationRun(targets: CalibrationCheck.targets), candidate: r, skipped: run.skipped)
            return Reply(record: "calibration-check")
        case .failure(let p):
            phase = .failed(.fit(p.reason, skipped: run.skipped))
            return Reply(record: "calibration-refused")
        }
    }

    /// The check dots are done: the fit is kept and applied if they pass, else refused with their figures.
    private mutating func judge(_ run: CalibrationRun, _ r: CalibrationResult, skipped: [Int], _ ctx: ScreenContext) -> Reply {
        if let p = run.problem {
            phase = .failed(.fit(p.reason, skipped: []))
            return Reply(record: "calibration-refused")
        }
        let verdict = CalibrationCheck.judge(run.samples, candidate: r.calibration, inUse: ctx.calibration,
                                             cells: Self.cells(ctx))
        guard verdict.keep else {
            phase = .failed(.check(verdict.why, skipped: skipped))
            return Reply(record: "calibration-refused")
        }
        // Where the gaze landed at each dot, with the calibration: the median of its samples.
        var landed: [(GazePoint, GazePoint)] = []
        for t in run.targets {
            let mine = run.samples.filter { $0.target == t }.map { r.calibration.apply($0.raw) }
            guard !mine.isEmpty else { continue }
            let xs = mine.map(\.x).sorted(), ys = mine.map(\.y).sorted()
            landed.append((t, GazePoint(x: xs[xs.count / 2], y: ys[ys.count / 2])))
        }
        phase = .fitted(r, landed: landed, check: verdict)
        return Reply(effects: [.calibrated(r.calibration)], record: "calibrated")
    }

    /// Errors are in cells of the whole screen (the body plus the title and the two status rows).
    static func cells(_ ctx: ScreenContext) -> (w: Int, h: Int) {
        (max(1, ctx.bounds.maxX), max(1, ctx.bounds.maxY + 2))
    }

}

extension Canvas {
    /// A calibration refused: the reason, what stays in use, and Done and Try again buttons.
    mutating func calibrationRefused(_ why: String, kept: String, done: String, redo: String, _ buttons: [Rect]) {
        let b = bounds
        let used = paragraph(catalog.tr("Not calibrated: {reason}.", ["reason": why]), Rect(x: b.x + 4, y: b.y + 3, w: b.w - 8, h: 3), style: Theme.error)
        grid.centered(kept, in: b, y: b.y + 4 + used, style: Theme.hint)
        button(done, catalog.tr("✓ Done"), buttons[0])
        button(redo, catalog.tr("↻ Try again"), buttons[1])
    }
}
