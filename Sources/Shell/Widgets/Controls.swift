import Localization
import Config

// Controls for the apps. Each widget draws itself and declares its targets in one call; its behaviour lives
// in a small value type the screen keeps (e.g. `Slider.value(at:in:)`), so it can be tested on its own.

extension Canvas {
    /// A toggle switch: one target; activating it flips the value.
    public mutating func toggle(_ id: String, _ label: String, isOn: Bool, _ rect: Rect) {
        grid.box(rect, border: .rounded, style: Theme.tile)
        let y = rect.y + rect.h / 2
        grid.text(label, x: rect.x + 2, y: y, style: Theme.tileLabel, maxWidth: rect.w - 14)
        grid.text(isOn ? catalog.tr("[ ON ●]") : catalog.tr("[○ OFF]"), x: rect.maxX - 10, y: y,
                  style: isOn ? Style(fg: .green, attrs: .bold) : Theme.hint)
        target(id, label, rect)
    }

    /// A slider: a track to look at (activating moves the value one step towards where the gaze is) and
    /// − / + targets at its ends that move it one step (`Slider.activate`).
    public mutating func slider(_ id: String, _ label: String, _ s: Slider, value: Double, _ rect: Rect) {
        let l = s.layout(rect)
        // The language's decimal separator: "Verweildauer: 1,2 s", not "1.2 s".
        let point = catalog.decimalSeparator
        grid.box(l.track, border: .rounded, style: Theme.tile,
                 title: label + ": " + s.format(value, point: point))
        let inner = l.track.inset(dx: 1, dy: 0)
        let y = l.track.y + l.track.h / 2
        let f = s.fraction(value)
        grid.bar(x: inner.x, y: y, width: inner.w, fraction: f, style: Style(fg: .cyan), empty: "─")
        let knob = inner.x + min(inner.w - 1, Int((f * Double(inner.w - 1)).rounded()))
        grid[knob, y] = Cell("◆", Style(fg: .yellow, attrs: .bold))
        grid.text(s.format(s.range.lowerBound, point: point), x: inner.x, y: l.track.maxY - 1, style: Theme.hint)
        let hi = s.format(s.range.upperBound, point: point)
        grid.text(hi, x: inner.maxX - CellGrid.columns(of: hi), y: l.track.maxY - 1, style: Theme.hint)
        // Declared left to right, so Tab and next/previous go −, track, +.
        button(id + ".minus", "−", l.minus)
        target(id, label, l.track)
        button(id + ".plus", "+", l.plus)
    }

    /// A stepper: a value between separate − and + targets.
    public mutating func stepper(_ id: String, _ label: String, value: String, _ rect: Rect) {
        let bw = min(12, rect.w / 4)
        let minus = Rect(x: rect.x, y: rect.y, w: bw, h: rect.h)
        let plus = Rect(x: rect.maxX - bw, y: rect.y, w: bw, h: rect.h)
        let mid = Rect(x: minus.maxX + 1, y: rect.y, w: plus.x - minus.maxX - 2, h: rect.h)
        grid.box(mid, style: Theme.hint)
        grid.centered(label + ": " + value, in: mid.inset(1), y: mid.y + mid.h / 2, style: Theme.tileLabel)
        button(id + ".minus", catalog.tr("−  less"), minus)
        button(id + ".plus", catalog.tr("+  more"), plus)
    }

    /// A segmented control: one target per segment (`ID.KEY`); the selected one is marked.
    public mutating func segmented(_ id: String, _ options: [(key: String, label: String)], selected: String, _ rect: Rect) {
        for (o, r) in zip(options, rect.columns(options.count, gap: 1)) {
            let on = o.key == selected
            grid.box(r, border: on ? .heavy : .light, style: on ? Style(fg: .green, attrs: .bold) : Theme.tile)
            grid.centered((on ? "● " : "○ ") + o.label, in: r.inset(1), y: r.y + r.h / 2,
                          style: on ? Style(fg: .green, attrs: .bold) : .plain)
            target(id + "." + o.key, o.label, r)
        }
    }

    /// A tab bar: one target per tab (`ID.KEY`); the selected tab is open at the bottom, joined to its page.
    public mutating func tabBar(_ id: String, _ tabs: [(key: String, label: String)], selected: String, _ rect: Rect) {
        for (t, r) in zip(tabs, Self.tabColumns(tabs.map(\.label), rect)) {
            let on = t.key == selected
            grid.box(r, border: .rounded, style: on ? Theme.tileLabel : Theme.tile)
            if on {
                grid.fill(Rect(x: r.x + 1, y: r.maxY - 1, w: r.w - 2, h: 1), " ")
                grid[r.x, r.maxY - 1] = Cell("╯", Theme.tileLabel)
                grid[r.maxX - 1, r.maxY - 1] = Cell("╰", Theme.tileLabel)
            }
            // The markers go where they fit; the open bottom edge still says which tab is selected.
            let marked = on && CellGrid.columns(of: t.label) + 4 <= r.w - 2
            grid.centered(marked ? "▸ " + t.label + " ◂" : t.label, in: r.inset(1), y: r.y + r.h / 2,
                          style: on ? Theme.tileLabel : .plain)
            target(id + "." + t.key, t.label, r)
        }
    }

    /// The tabs' rectangles: each as wide as its label needs when all fit (a long label, "Accessibility" or a
    /// longer language's, is not cut for the short ones' sake), the room left shared out; else equal columns.
    static func tabColumns(_ labels: [String], _ rect: Rect) -> [Rect] {
        guard !labels.isEmpty else { return [] }
        // The label with "▸ " and " ◂" around it inside the box's edges; short of room, the widest give up
        // their markers' room first, never the label's own.
        let least = labels.map { CellGrid.columns(of: $0) + 2 }
        var widths = least.map { $0 + 4 }
        var deficit = widths.reduce(0, +) - rect.w
        while deficit > 0 {
            guard let i = widths.indices.filter({ widths[$0] > least[$0] }).max(by: { widths[$0] < widths[$1] }),
                  widths[i] > least[i] else { return rect.columns(labels.count, gap: 0) }
            widths[i] -= 1
            deficit -= 1
        }
        let extra = -deficit
        var x = rect.x
        return widths.enumerated().map { i, w in
            let width = w + extra / labels.count + (i < extra % labels.count ? 1 : 0)
            defer { x += width }
            return Rect(x: x, y: rect.y, w: width, h: rect.h)
        }
    }

    /// A progress bar with a caption (not a target).
    public mutating func progressBar(_ caption: String, fraction: Double, _ rect: Rect) {
        let cw = CellGrid.columns(of: caption)
        grid.text(caption, x: rect.x, y: rect.y, style: Theme.hint)
        grid.bar(x: rect.x + cw + 1, y: rect.y, width: max(0, rect.w - cw - 1), fraction: fraction,
                 style: Style(fg: .cyan), empty: "░")
    }
}

/// A slider's range and layout. The value where the gaze falls along the track is taken in one action.
public struct Slider: Sendable, Equatable {
    public var range: ClosedRange<Double>
    public var step: Double
    /// Digits after the point in the value shown, and a unit.
    public var digits: Int
    public var unit: String

    public init(range: ClosedRange<Double>, step: Double, digits: Int = 2, unit: String = "") {
        self.range = range; self.step = step; self.digits = digits; self.unit = unit
    }

    /// The track and the two nudge buttons in a slider's rectangle.
    public func layout(_ rect: Rect) -> (track: Rect, minus: Rect, plus: Rect) {
        let bw = 7
        return (Rect(x: rect.x + bw + 1, y: rect.y, w: rect.w - 2 * bw - 2, h: rect.h),
                Rect(x: rect.x, y: rect.y, w: bw, h: rect.h),
                Rect(x: rect.maxX - bw, y: rect.y, w: bw, h: rect.h))
    }

    public func fraction(_ v: Double) -> Double {
        let span = range.upperBound - range.lowerBound
        return span > 0 ? min(1, max(0, (v - range.lowerBound) / span)) : 0
    }

    /// Rounds to the step and keeps the value in range.
    public func snap(_ v: Double) -> Double {
        let s = step > 0 ? ((v - range.lowerBound) / step).rounded() * step + range.lowerBound : v
        let r = min(range.upperBound, max(range.lowerBound, s))
        return (r * 1_000_000).rounded() / 1_000_000
    }

    /// The value at a gaze cell on the slider laid out in `rect` (the track's ends are the range's ends).
    public func value(at p: CellPoint, in rect: Rect) -> Double {
        let inner = layout(rect).track.inset(dx: 1, dy: 0)
        let f = inner.w > 1 ? Double(p.x - inner.x) / Double(inner.w - 1) : 0
        return snap(range.lowerBound + min(1, max(0, f)) * (range.upperBound - range.lowerBound))
    }

    /// What activating one of the slider's targets (`ID`, `ID.minus`, `ID.plus`) at `gaze` sets the value to:
    /// one step at a time, whichever is activated. On the track the step goes towards where the gaze is (none
    /// without a gaze, or with the gaze on the value's own step): a jump to the gaze took a jaw threshold from
    /// 0.5 to 0.85 in one activation, out of the user's reach.
    public func activate(_ targetID: String, id: String, gaze: CellPoint?, value: Double, in rect: Rect) -> Double? {
        switch targetID {
        case id + ".minus": return stepped(value, by: -1)
        case id + ".plus": return stepped(value, by: 1)
        case id:
            guard let gaze else { return nil }
            let aimed = self.value(at: gaze, in: rect)
            if aimed > value && aimed > snap(value) { return stepped(value, by: 1) }
            if aimed < value && aimed < snap(value) { return stepped(value, by: -1) }
            return value
        default: return nil
        }
    }

    /// The next step of the range above (`by` 1) or below (-1) `value`: a value between two steps (one the
    /// config or a calibration set) goes to the nearer of them in that direction, never further.
    public func stepped(_ value: Double, by direction: Int) -> Double {
        guard step > 0 else { return value }
        let k = (value - range.lowerBound) / step
        let index = direction > 0 ? (k + 1e-6).rounded(.down) + 1 : (k - 1e-6).rounded(.up) - 1
        return snap(range.lowerBound + index * step)
    }

    /// The value as shown, with `point` as the decimal separator (the language's: "," in German).
    public func format(_ v: Double, point: String = ".") -> String {
        NumberText.trimmed(v, digits: digits, point: point) + unit
    }
}

/// A stepper's limits: what − and + do.
public struct Stepper: Sendable, Equatable {
    public var range: ClosedRange<Int>
    public var step: Int
    public init(range: ClosedRange<Int>, step: Int = 1) { self.range = range; self.step = step }

    /// The new value after activating `ID.minus` or `ID.plus`, nil for other targets.
    public func activate(_ targetID: String, id: String, value: Int) -> Int? {
        switch targetID {
        case id + ".minus": return max(range.lowerBound, value - step)
        case id + ".plus": return min(range.upperBound, value + step)
        default: return nil
        }
    }
}

/// The key of the segment or tab a target id names (`ID.KEY`), if it belongs to `id`.
public func choice(_ targetID: String, of id: String, in keys: [String]) -> String? {
    guard targetID.hasPrefix(id + ".") else { return nil }
    let k = String(targetID.dropFirst(id.count + 1))
    return keys.contains(k) ? k : nil
}
