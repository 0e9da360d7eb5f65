import Config
import Localization
import TerminalModel

/// Rows of the status line at the bottom of every screen.
public let statusRows = 2

/// Draws the whole shell for a terminal of `size`: title bar, the screen showing, focus, dwell, status line
/// and gaze cursor. Returns the grid and the targets. Pure.
public func render(_ s: ShellState, size: Size) -> (CellGrid, HitMap) {
    // One grid, owned by the canvas throughout: handing it between variables would copy every cell on the
    // next write (copy-on-write with two owners), which costs more than the drawing itself at 200×60.
    var canvas = Canvas(grid: CellGrid(size), bounds: Rect(x: 0, y: 1, w: size.width, h: size.height - 1 - statusRows))
    guard size.width >= Size.minimum.width, size.height >= Size.minimum.height else {
        drawTooSmall(&canvas.grid)
        return (canvas.grid, HitMap())
    }
    drawTitle(&canvas.grid, s)
    drawScreen(&canvas, s)
    let map = canvas.hitMap
    if let f = s.focus.focused, let t = map.target(id: f) {
        canvas.grid.restyle(t.rect) { $0 = ThemeKind.focused($0) }
    }
    // Progress fills on the target itself, where the eyes are: dwell on the dwelt target, and a held
    // activate gesture (the jaw) on the focused target it will act on. Along its edge, never over its label.
    if let (t, fraction) = progressFill(s, map: map) { drawFill(&canvas.grid, t, fraction: fraction) }
    drawStatus(&canvas.grid, s)
    drawPauseBanner(&canvas.grid, s)
    drawSettingsBanner(&canvas.grid, s)
    for cell in pursuitDots(s, map: map) { canvas.grid[cell.x, cell.y] = Cell("●", Theme.dwell) }
    if let p = gazeCursor(s) {
        var c = canvas.grid[p.x, p.y]
        if c.isContinuation || CellGrid.columns(of: c.ch) != 1 || c.ch == " " { c.ch = "◉" }
        c.style = Theme.cursor
        canvas.grid[p.x, p.y] = c
    }
    s.settings.theme.apply(to: &canvas.grid)
    return (canvas.grid, map)
}

/// The target whose progress fills on it, and how far: dwell on the dwelt target, else a held activate
/// gesture on the focused target it will act on.
func progressFill(_ s: ShellState, map: HitMap) -> (Target, Double)? {
    if let d = s.tracking.dwellTarget, let t = map.target(id: d), s.shownDwellProgress > 0 {
        return (t, s.shownDwellProgress)
    }
    guard s.readiness.acting, let f = s.focus.focused, let t = map.target(id: f) else { return nil }
    let activating = s.tracking.progress.filter { s.keymap.action(gesture: $0.name, screen: s.topName) == .activate }
    guard let p = activating.map(\.progress).max(), p > 0 else { return nil }
    return (t, p)
}

extension ShellState {
    /// The action a gesture performs on the screen showing, looked up as `reduce` does: the Terminal's and
    /// the Desktop's own sections first (nil where they send a key or work the pointer), then the keymap's.
    func boundAction(gesture name: String) -> Action? {
        var own = topIs(TerminalScreen.self) ? keymap.terminalBinding(gesture: name)
            : topIs(DesktopScreen.self) ? keymap.desktopBinding(gesture: name) : nil
        // A pointer command binding keeps the gesture's usual action while the Desktop screen types.
        if own?.pointsOnly == true, top(as: DesktopScreen.self)?.pointer == nil { own = nil }
        if let own {
            if case .action(let a) = own { return a }
            return nil
        }
        return keymap.action(gesture: name, screen: topName)
    }

    /// Dwell progress as the screen shows it: the dwell gesture's, where resting the gaze activates the
    /// target on this screen; else 0. The pipeline times a dwell whatever the keymap says, and a fill that
    /// ends in nothing (the default keymap binds no dwell) told the user to wait for what never came.
    var shownDwellProgress: Double {
        guard tracking.dwellProgress > 0 else { return 0 }
        return dwellGestures.contains { boundAction(gesture: $0) == .activate } ? tracking.dwellProgress : 0
    }
}

/// The cells of a target the progress fill takes: its bottom border between the corners (a boxed target,
/// three rows or more), else its last row, which the fill underlines. Never the row its label is on: a fill
/// over the label hid the very word the eyes were resting on.
func fillRow(_ t: Target) -> Rect {
    guard t.rect.h >= 3 else { return Rect(x: t.rect.x, y: t.rect.maxY - 1, w: t.rect.w, h: 1) }
    return Rect(x: t.rect.x + 1, y: t.rect.maxY - 1, w: t.rect.w - 2, h: 1)
}

/// Draws a progress fill on a target (`fillRow`): on a border, a bar in eighths of a cell that takes the
/// border's place as it grows; on a row of text, an underline in the fill's colour under the characters,
/// which stay as they are.
func drawFill(_ g: inout CellGrid, _ t: Target, fraction: Double) {
    let r = fillRow(t)
    let eighths = CellGrid.eighths(fraction, of: r.w)
    guard t.rect.h >= 3 else {
        let cells = (eighths + 7) / 8
        g.restyle(Rect(x: r.x, y: r.y, w: cells, h: 1)) { $0 = Style(fg: Theme.dwell.fg, bg: $0.bg, attrs: [.bold, .underline]) }
        return
    }
    let partial: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    for i in 0..<r.w {
        let e = eighths - i * 8
        guard e > 0 else { break }
        g[r.x + i, r.y] = Cell(e >= 8 ? "█" : partial[e - 1], Theme.dwell)
    }
}

/// Smooth pursuit: each target's dot where its path is now.
func pursuitDots(_ s: ShellState, map: HitMap) -> [CellPoint] {
    pursuitTargets(s, map: map).map { s.cell($0.1.position(at: s.now)) }
}

/// The cell the gaze cursor is drawn on, nil when none is. Not while calibrating: a cursor where the
/// uncalibrated pointer lands would draw the eyes after it.
func gazeCursor(_ s: ShellState) -> CellPoint? {
    guard s.settings.showGazeCursor, !s.topIs(CalibrationScreen.self), let g = s.tracking.gaze else { return nil }
    return s.cell(g)
}

/// Everything a tracker frame can change on the screen, found without drawing it: equal looks before and after
/// a frame mean `render` draws the same grid, so the loop skips that drawing (a still face at 60 frames/s
/// then costs its decoding, not sixty drawings a second). Pure.
///
/// What events change (a key, speech, a reply, a screen's tick) moves `revision` or `layoutVersion`; what
/// frames change is here as it is drawn: the status rows themselves, the progress fill in eighths of a cell,
/// the focus, the pursuit dots and the gaze cursor's cell. A screen that draws the tracker itself (`Screen
/// .drawsFrames`) adds the frame's time, so each frame is drawn.
public struct FrameLook: Equatable {
    var revision: Int
    var layoutVersion: Int
    var size: Size
    var screen: String
    var depth: Int
    var focused: String?
    var notice: UIMessage?
    var dictating: Bool
    var paused: Bool
    var settings: ShellSettings
    var progress: [GestureProgress]
    var fill: String?
    var fillEighths: Int
    var status: StatusLook
    var dots: [CellPoint]
    var cursor: CellPoint?
    var frameTime: Double?

    /// Whether both looks have the same layout and the same marks the shell draws over its screens: focus,
    /// fills, pursuit dots, the gaze cursor, the pause banner, the settings, the screen and its size. A pane
    /// drawn alone over a drawing with another layout or other marks would keep them where it did not change.
    public func sameMarks(_ o: FrameLook) -> Bool {
        layoutVersion == o.layoutVersion && focused == o.focused && fill == o.fill && fillEighths == o.fillEighths
            && dots == o.dots && cursor == o.cursor && paused == o.paused && settings == o.settings && size == o.size
            && screen == o.screen && depth == o.depth
    }

    /// `sameMarks` against the look `s` would have, working out only the marks, cheapest first: asked for
    /// each key's echo, where the rest of a look (the status line) is not needed.
    public func sameMarks(as s: ShellState) -> Bool {
        guard layoutVersion == s.layoutVersion, size == s.size, depth == s.stack.count, paused == s.readiness.paused,
              focused == s.focus.focused, screen == s.topName, settings == s.settings else { return false }
        let (fill, fillEighths) = Self.fillMark(s)
        return fill == self.fill && fillEighths == self.fillEighths && cursor == gazeCursor(s)
            && dots == pursuitDots(s, map: s.hitMap)
    }

    /// The target the progress fill is drawn on, and the fill in eighths of a cell.
    static func fillMark(_ s: ShellState) -> (String?, Int) {
        let fill = progressFill(s, map: s.hitMap)
        return (fill?.0.id, fill.map { CellGrid.eighths($0.1, of: fillRow($0.0).w) } ?? 0)
    }

    public init(_ s: ShellState) {
        revision = s.revision
        layoutVersion = s.layoutVersion
        size = s.size
        screen = s.topName
        depth = s.stack.count
        focused = s.focus.focused
        notice = s.noticeMessage
        dictating = s.dictating
        paused = s.readiness.paused
        settings = s.settings
        // Widgets draw a gesture's countdown from these (hold to confirm); empty while no gesture is under way.
        progress = s.tracking.progress
        (fill, fillEighths) = Self.fillMark(s)
        status = StatusLook(s, width: s.size.width)
        dots = pursuitDots(s, map: s.hitMap)
        cursor = gazeCursor(s)
        frameTime = s.stack[s.stack.count - 1].drawsFrames ? s.now : nil
    }

    /// Whether `FrameLook(s)` equals this look, worked out part by part and given up at the first that
    /// differs, with nothing copied or allocated on the way: asked at each frame of a still face, where the
    /// answer is nearly always yes and a whole look cost more than the rest of the frame's turn.
    public func matches(_ s: ShellState) -> Bool {
        guard revision == s.revision, layoutVersion == s.layoutVersion, size == s.size, depth == s.stack.count,
              dictating == s.dictating, paused == s.readiness.paused, focused == s.focus.focused,
              notice == s.noticeMessage, progress == s.tracking.progress,
              frameTime == (s.stack[s.stack.count - 1].drawsFrames ? s.now : nil),
              screen == s.topName, status.matches(s, width: s.size.width), cursor == gazeCursor(s),
              settings == s.settings else { return false }
        let (fill, fillEighths) = Self.fillMark(s)
        return fill == self.fill && fillEighths == self.fillEighths && dots == pursuitDots(s, map: s.hitMap)
    }
}

/// The drawing `render` would make of `s` in the Terminal screen's pane, made from `last` (the last full
/// drawing) by drawing the pane alone: what a key's echo needs on the screen at once, before the suggestions
/// that follow from the new command line are worked out for the drawing after. Pure.
///
/// Nil when the pane's cells in a full drawing would carry anything but the program's screen (see
/// `panePatch`). Outside the pane, the result is `last` unchanged. `drawn`, the view `last` shows in its
/// pane, if known, limits the drawing to the rows that changed since.
public func renderPane(_ s: ShellState, over last: CellGrid, drawn: TerminalView? = nil) -> CellGrid? {
    guard last.size == s.size, let patch = panePatch(s, drawn: drawn) else { return nil }
    var g = last
    patch.apply(to: &g)
    return g
}

/// The rows of the Terminal screen's pane a drawing of `s` changes, and how to draw them over the last
/// drawing (`renderPane`); a display changes those rows in place.
///
/// Nil when the pane's cells in a full drawing would carry anything but the program's screen: focus or a
/// fill on the pane, the gaze cursor or a pursuit dot over it, the pause or settings banner, or a pane that is not the
/// program's screen (starting, a sink that shows nothing, the program ended).
public func panePatch(_ s: ShellState, drawn: TerminalView?) -> PanePatch? {
    panePatch(s, view: s.terminal, drawn: drawn)
}

/// `panePatch` of `s` with `view` in its pane: for a view that has not reached the state yet (a key's echo),
/// without a copy of the state to put it there.
public func panePatch(_ s: ShellState, view: TerminalView?, drawn: TerminalView?) -> PanePatch? {
    guard s.topIs(TerminalScreen.self), !s.tooSmall, !s.readiness.paused, s.trial == nil, s.settingsWarning.isEmpty,
          let view, view.sink.contains(.showsPane), view.ended == nil,
          let pane = s.hitMap.target(id: TerminalScreen.paneID) else { return nil }
    let r = pane.rect
    guard s.focus.focused != pane.id, progressFill(s, map: s.hitMap)?.0.id != pane.id,
          !(gazeCursor(s).map(r.contains) ?? false), !pursuitDots(s, map: s.hitMap).contains(where: r.contains)
    else { return nil }
    var paneRows: [Int]?
    if let old = drawn, old.sink == view.sink, let changed = TerminalScreen.changedPaneRows(from: old, to: view, r) {
        paneRows = sortedUnique(changed.filter { $0 >= 0 && $0 < r.h })
    }
    return PanePatch(view: view, rect: r, paneRows: paneRows, theme: s.settings.theme)
}

/// Rows of the Terminal screen's pane to draw again, from `panePatch`.
public struct PanePatch: Sendable {
    let view: TerminalView
    let rect: Rect
    /// Rows of the pane (0 at its top) to draw; nil: all of them.
    let paneRows: [Int]?
    let theme: ThemeKind

    /// The grid's rows the patch draws.
    public var rows: [Int] { (paneRows ?? Array(0..<rect.h)).map { rect.y + $0 } }

    /// Draws the rows into `g`, as `render` draws them.
    public func apply(to g: inout CellGrid) {
        guard let only = paneRows else {
            g.fill(rect, " ")
            TerminalScreen.drawPane(&g, view, rect)
            theme.apply(to: &g, in: rect)
            return
        }
        for row in only { g.fill(Rect(x: rect.x, y: rect.y + row, w: rect.w, h: 1), " ") }
        TerminalScreen.drawPane(&g, view, rect, rows: only)
        for row in only { theme.apply(to: &g, in: Rect(x: rect.x, y: rect.y + row, w: rect.w, h: 1)) }
    }
}

/// The targets `render` declares for `s` at `size`, without drawing what declares none (the title, the status
/// line, a terminal pane's cells): what a changed layout needs, for a fraction of a drawing. Pure.
public func layout(_ s: ShellState, size: Size) -> HitMap {
    guard size.width >= Size.minimum.width, size.height >= Size.minimum.height else { return HitMap() }
    var canvas = Canvas(grid: .discarding(size), bounds: Rect(x: 0, y: 1, w: size.width, h: size.height - 1 - statusRows))
    canvas.layoutOnly = true
    drawScreen(&canvas, s)
    return canvas.hitMap
}

/// The back target, if the keymap shows one, and the screen showing: everything that declares targets.
private func drawScreen(_ canvas: inout Canvas, _ s: ShellState) {
    if s.keymap.showBackTarget && s.stack.count > 1 {
        // The back target goes first, so screens lay out below it and cannot cover it.
        canvas.button(backTargetID, "◀ Back", Rect(x: 1, y: 1, w: 14, h: 3))
        canvas.bounds = Rect(x: 0, y: 4, w: canvas.grid.width, h: canvas.grid.height - 4 - statusRows)
    }
    var ctx = s.context
    ctx.focus = s.focus.focused
    ctx.bounds = canvas.bounds
    s.top.render(&canvas, ctx)
}

func drawTooSmall(_ g: inout CellGrid) {
    let lines = ["The window is too small: \(g.width)×\(g.height).",
                 "HandsFree Shell needs at least \(Size.minimum.width)×\(Size.minimum.height).",
                 "Please enlarge the window."]
    let top = max(0, g.height / 2 - 1)
    for (i, l) in lines.enumerated() {
        let t = CellGrid.truncate(l, to: g.width)
        g.text(t, x: max(0, (g.width - CellGrid.columns(of: t)) / 2), y: top + i, style: i == 0 ? Theme.warning : .plain)
    }
}

func drawTitle(_ g: inout CellGrid, _ s: ShellState) {
    g.fill(Rect(x: 0, y: 0, w: g.width, h: 1), " ", style: Theme.title)
    let crumbs = s.crumbs
    // A notice that does not fit here whole goes to the notice line (`StatusLook`), never cut.
    let notice = s.titleNotice(width: g.width)
    let right = notice ?? (s.dictating ? s.catalog.tr("● dictating") : (s.stack.count == 1 ? s.catalog.tr("? help · q quit")
        : s.typesIntoPrograms ? s.catalog.tr("◀ Leave to go back") : s.catalog.tr("? help · Esc back")))
    let r = CellGrid.truncate(right, to: s.titleRoom(width: g.width))
    let rx = g.width - CellGrid.columns(of: r) - 1
    g.text(crumbs, x: 0, y: 0, style: Theme.title, maxWidth: rx - 1)
    g.text(r, x: rx, y: 0, style: notice != nil ? Style(fg: .yellow, bg: .blue, attrs: .bold) : Theme.title)
}

/// Two rows: meters for the face (or the notice line), then source, face, gesture under way, dwell and keymap.
func drawStatus(_ g: inout CellGrid, _ s: ShellState) {
    drawStatus(&g, StatusLook(s, width: g.width))
}

/// What the status line shows, bars in eighths of a cell as drawn: equal looks draw equal rows, so a frame
/// that moves a meter by less than an eighth is not a reason to draw (`FrameLook`).
struct StatusLook: Equatable {
    var meterWidth: Int
    /// The face's meters, each in eighths of its bar.
    var meters: [Int]
    /// What the input part is made from; its text is made only for a drawing (`inputStatus`).
    var input: InputLook
    /// The readiness text and the speech text as the second row shows them: nil when there is nothing to
    /// say, or when it does not fit there whole and the notice line says it instead.
    var readiness: String?
    var readinessWarning = false
    var speaking: Bool
    /// The gesture under way, in words ("jaw", "right eye"), with its progress in eighths of a 10-cell bar.
    var gesture: String?
    var gestureEighths = 0
    /// Dwell progress in eighths of an 8-cell bar; nil while none is under way.
    var dwellEighths: Int?
    var privateDesktop: Bool
    var mic: String?
    var micOpen = false
    var keymap: String
    /// What the first row says instead of the meters: the part of the notice line showing now.
    var noticeLine: String?

    static let meterLabels = ["L eye", "R eye", "jaw", "tongue", "smile"]

    init(_ s: ShellState, width: Int) {
        let t = s.tracking
        meterWidth = width >= 120 ? 12 : 8
        meters = [t.meters.leftEye, t.meters.rightEye, t.meters.jaw, t.meters.tongue, t.meters.smile]
            .map { [meterWidth] in CellGrid.eighths(Double($0), of: meterWidth) }
        input = InputLook(t, calibrated: s.calibration != nil)
        if let r = s.readinessLabel { readiness = r.text; readinessWarning = r.warn }
        speaking = s.speaking
        if let p = t.progress.max(by: { $0.progress < $1.progress }) {
            gesture = s.gestureLabel(p.name)
            gestureEighths = CellGrid.eighths(p.progress, of: 10)
        }
        let dwell = s.shownDwellProgress
        dwellEighths = dwell > 0 ? CellGrid.eighths(dwell, of: 8) : nil
        privateDesktop = s.top(as: DesktopScreen.self)?.isPrivate ?? false
        if let m = s.micLabel { mic = m.text; micOpen = m.open }
        keymap = s.keymap.name
        placeMessages(s, width: width)
    }

    /// Moves the readiness and speech texts to the notice line when the second row has no room for them
    /// whole (readiness keeps the row first), and picks what the notice line shows now: the messages' parts in
    /// turn, readiness first (it says why gestures do not act, and a restart is said for four seconds from the
    /// restart: the turns count from it), then a notice too long for the title bar (from when it came), then
    /// speech.
    mutating func placeMessages(_ s: ShellState, width: Int) {
        let rest = 1 + CellGrid.columns(of: inputStatus(input).parts.joined(separator: " │ ") + " │ ")
            + (speaking ? 13 : 0) + (gesture.map { CellGrid.columns(of: $0) + 12 } ?? 11) + (dwellEighths == nil ? 0 : 17)
            + (privateDesktop ? 33 : 0) + CellGrid.columns(of: "│ keymap " + keymap) + 3
        let readinessW = readiness.map { CellGrid.columns(of: $0) + 3 } ?? 0
        let micW = mic.map { CellGrid.columns(of: $0) + 3 } ?? 0
        var micBelow: String?, readinessBelow: String?
        if rest + readinessW + micW > width, let m = mic { micBelow = m; mic = nil }
        if rest + readinessW > width, let r = readiness { readinessBelow = r; readiness = nil }
        let notice = s.shownNotice.flatMap { s.titleNotice(width: width) == nil ? $0 : nil }
        let since = readinessBelow != nil ? s.readiness.restartedAt ?? 0 : notice != nil ? s.noticeAt : 0
        noticeLine = NoticeLine.part([readinessBelow, notice, micBelow].compactMap { $0 }, width: width - 2, since: since, now: s.now)
    }

    /// Whether `StatusLook(s, width: width)` equals this look, part by part, cheapest first (see
    /// `FrameLook.matches`).
    func matches(_ s: ShellState, width: Int) -> Bool {
        let t = s.tracking
        guard meterWidth == (width >= 120 ? 12 : 8), meters.count == 5,
              meters[0] == CellGrid.eighths(Double(t.meters.leftEye), of: meterWidth),
              meters[1] == CellGrid.eighths(Double(t.meters.rightEye), of: meterWidth),
              meters[2] == CellGrid.eighths(Double(t.meters.jaw), of: meterWidth),
              meters[3] == CellGrid.eighths(Double(t.meters.tongue), of: meterWidth),
              meters[4] == CellGrid.eighths(Double(t.meters.smile), of: meterWidth),
              speaking == s.speaking,
              dwellEighths == (s.shownDwellProgress > 0 ? CellGrid.eighths(s.shownDwellProgress, of: 8) : nil),
              input.matches(t, calibrated: s.calibration != nil) else { return false }
        if let p = t.progress.max(by: { $0.progress < $1.progress }) {
            guard gesture == s.gestureLabel(p.name), gestureEighths == CellGrid.eighths(p.progress, of: 10) else { return false }
        } else if gesture != nil || gestureEighths != 0 {
            return false
        }
        guard privateDesktop == (s.top(as: DesktopScreen.self)?.isPrivate ?? false), keymap == s.keymap.name
        else { return false }
        // With nothing on the notice line and no notice, the row's parts compared equal place the same way;
        // otherwise the look is made again (the line's part moves with time).
        guard noticeLine == nil, s.noticeMessage == nil else { return self == StatusLook(s, width: width) }
        let r = s.readinessLabel, m = s.micLabel
        return readiness == r?.text && readinessWarning == (r?.warn ?? false)
            && mic == m?.text && micOpen == (m?.open ?? false)
    }
}

func drawStatus(_ g: inout CellGrid, _ look: StatusLook) {
    let y0 = g.height - statusRows, y1 = g.height - 1
    g.fill(Rect(x: 0, y: y0, w: g.width, h: statusRows), " ", style: Theme.status)
    var x = 1
    let meterW = look.meterWidth
    if let line = look.noticeLine {
        g.text(line, x: 1, y: y0, style: Style(fg: .yellow, bg: .black, attrs: .bold), maxWidth: g.width - 2)
    } else {
        for (label, v) in zip(StatusLook.meterLabels, look.meters) {
            x += g.text(label + " ", x: x, y: y0, style: Theme.status)
            g.bar(x: x, y: y0, width: meterW, eighths: v, style: Theme.meter, empty: "·")
            x += meterW + 2
            if x >= g.width - meterW { break }
        }
    }
    x = 1
    let (input, inputWarning) = inputStatus(look.input)
    x += g.text(input.joined(separator: " │ ") + " │ ", x: x, y: y1,
                style: inputWarning ? Style(fg: .yellow, bg: .black, attrs: .bold) : Theme.status)
    x = drawReadiness(&g, look.readiness.map { ($0, look.readinessWarning) }, x: x, y: y1)
    if look.speaking { x += g.text("♪ speaking │ ", x: x, y: y1, style: Style(fg: .green, bg: .black, attrs: .bold)) }
    if let name = look.gesture {
        x += g.text(name + " ", x: x, y: y1, style: Style(fg: .white, bg: .black, attrs: .bold))
        g.bar(x: x, y: y1, width: 10, eighths: look.gestureEighths, style: Style(fg: .cyan, bg: .black))
        x += 11
    } else {
        x += g.text("no gesture", x: x, y: y1, style: Style(fg: .white, bg: .black, attrs: .dim)) + 1
    }
    if let dwell = look.dwellEighths {
        x += g.text("│ dwell ", x: x, y: y1, style: Theme.status)
        g.bar(x: x, y: y1, width: 8, eighths: dwell, style: Style(fg: .green, bg: .black))
        x += 9
    }
    // Private typing on the Desktop screen is said where the user's eyes check the shell's state.
    if look.privateDesktop {
        x += g.text("│ private: not learned or logged ", x: x, y: y1, style: Style(fg: .yellow, bg: .black, attrs: .bold))
    }
    let km = "keymap " + look.keymap
    x = drawMic(&g, look.mic.map { ($0, look.micOpen) }, x: x, y: y1)
    let kx = max(x, g.width - CellGrid.columns(of: km) - 4)
    if kx + CellGrid.columns(of: km) + 2 <= g.width { g.text("│ " + km, x: kx, y: y1, style: Theme.status) }
}

/// The source with its frame rate, the face, and what the source dropped or could not read; `warning` when
/// the face is lost or unknown. With the runtime's measures the rate is the real arrival rate and a silent
/// source shows as such; without them (headless) the rate is counted in source time.
func inputStatus(_ t: InputLook) -> (parts: [String], warning: Bool) {
    // A calibrated pointer says so: it goes where the user looks, not where the tracker says.
    let face = t.calibrated ? "face ● ◎" : "face ●"
    guard let h = t.health else {
        return (["\(t.source) \(t.fps) fps", t.face ? face : (t.framesSeen ? "face LOST" : "no tracker")],
                !(t.face || !t.framesSeen))
    }
    var parts = ["\(t.source) \(h.arrivalRate) fps"]
    var warning = false
    if !t.framesSeen {
        parts.append(h.stale ? "no frames for \(h.quietSeconds) s" : "no frames yet")
    } else if h.stale {
        parts.append("face ? no frames for \(h.quietSeconds) s")
        warning = true
    } else {
        parts.append(t.face ? face : "face LOST")
        warning = !t.face
    }
    if h.dropped > 0 { parts.append("\(compactCount(h.dropped)) dropped") }
    if h.unrecognised > 0 { parts.append("\(compactCount(h.unrecognised)) unrecognised") }
    return (parts, warning)
}

/// What the status line's input part shows, as the values it is made of: equal looks, equal text. Compared
/// at every tracker frame (`FrameLook`), where making the text itself was a sixth of the look's cost.
struct InputLook: Equatable {
    var source: String
    /// The rate counted in source time, shown only without the runtime's measures (0 with them).
    var fps: Int
    var health: InputHealth?
    var face: Bool
    var calibrated: Bool
    /// Frames have come (the count itself is not shown).
    var framesSeen: Bool

    init(_ t: TrackingStatus, calibrated: Bool) {
        source = t.source
        health = t.health
        fps = t.health == nil ? t.fps : 0
        face = t.face
        self.calibrated = calibrated
        framesSeen = t.framesSeen > 0
    }

    /// Whether `InputLook(t, calibrated:)` equals this look, without copying the source's name.
    func matches(_ t: TrackingStatus, calibrated: Bool) -> Bool {
        face == t.face && self.calibrated == calibrated && framesSeen == (t.framesSeen > 0) && health == t.health
            && fps == (t.health == nil ? t.fps : 0) && source == t.source
    }
}

/// A count in at most five columns: 9999, 12k, 3.4M.
func compactCount(_ n: Int) -> String {
    if n < 10_000 { return "\(n)" }
    if n < 1_000_000 { return "\(n / 1000)k" }
    return "\(n / 1_000_000).\(n / 100_000 % 10)M"
}
