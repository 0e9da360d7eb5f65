import TrackingCore

/// Something the user can look at and act on: a tile, a button, a list row.
public struct Target: Sendable, Equatable, Hashable {
    /// Stable id, `screen.thing`, e.g. `launcher.notes`; tests and tools aim at targets by id.
    public var id: String
    /// What the target says, for people and for voice ("open notes").
    public var label: String
    public var rect: Rect
    public init(id: String, label: String, rect: Rect) { self.id = id; self.label = label; self.rect = rect }
}

/// The targets of a rendered screen; gaze hit-testing is a lookup here.
public struct HitMap: Sendable, Equatable {
    public private(set) var targets: [Target] = []
    public init(_ targets: [Target] = []) { self.targets = targets }

    /// Adds a target; one drawn later lies on top of earlier ones where they overlap.
    public mutating func add(_ t: Target) {
        guard !t.rect.isEmpty else { return }
        targets.append(t)
    }

    /// The topmost target containing the cell.
    public func hit(_ p: CellPoint) -> Target? {
        for t in targets.reversed() where t.rect.contains(p) { return t }
        return nil
    }

    public func target(id: String) -> Target? { targets.first { $0.id == id } }

    /// The target the gaze picks, steadier than `hit` for a pointer that shakes or falls short: the target in
    /// use (`current`) holds while the gaze is on the gap beside it or a column into the next one (hysteresis,
    /// so a pointer shaking on the gap between two keys does not hop between them); else the target under
    /// the gaze; else the nearest one within `reach` cells (a row counts as two columns: cells are about twice as tall as wide), so a
    /// gaze that lands just outside a key still picks it.
    public func snapped(_ p: CellPoint, current: String?, reach: Int = 2, hold: Int = 2) -> Target? {
        let cur = current.flatMap { target(id: $0) }
        if let h = hit(p) {
            // A column or so into the neighbour beside it: the target in use stays. Not across rows (a key
            // row is one or two rows tall: a row into the next is on its key), and not where one is drawn on
            // top of it (a button on a pane).
            if let cur, h.id != cur.id, !cur.rect.contains(p) {
                let dx = max(0, cur.rect.x - p.x, p.x - (cur.rect.maxX - 1))
                let dy = max(0, cur.rect.y - p.y, p.y - (cur.rect.maxY - 1))
                if dy == 0 && dx <= hold { return cur }
            }
            return h
        }
        // On the gap: the target in use, else the nearest within reach.
        if let cur, Self.distance(p, cur.rect) <= hold { return cur }
        var best: (Target, Int)?
        for t in targets.reversed() {
            let d = Self.distance(p, t.rect)
            if d <= reach, d < (best?.1 ?? Int.max) { best = (t, d) }
        }
        return best?.0
    }

    /// Distance in cells from a cell to a rectangle (0 inside), a row counting as two columns.
    static func distance(_ p: CellPoint, _ r: Rect) -> Int {
        let dx = max(0, r.x - p.x, p.x - (r.maxX - 1))
        let dy = max(0, r.y - p.y, p.y - (r.maxY - 1))
        return max(dx, 2 * dy)
    }

    /// JSON as printed by `handsfree layout`: `[{"id": …, "label": …, "x": …, "y": …, "w": …, "h": …}, …]`.
    public var json: String {
        "[" + targets.map { t in
            "{\"id\": \(JSONText.quote(t.id)), \"label\": \(JSONText.quote(t.label)), \"x\": \(t.rect.x), "
                + "\"y\": \(t.rect.y), \"w\": \(t.rect.w), \"h\": \(t.rect.h)}"
        }.joined(separator: ",\n ") + "]"
    }
}

/// Tiny JSON writing helpers (the shell writes a few flat objects and needs no encoder).
public enum JSONText {
    /// A JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// A number with at most `digits` decimals and no trailing zeros, without locale effects.
    public static func number(_ v: Double, digits: Int = 3) -> String {
        guard v.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (abs(v) * scale).rounded()
        // Past 2^53 a Double has no fraction left to show, and Int(_:) traps past 2^63 (a frame stamped 1e19):
        // print such magnitudes in Swift's exponent form, which is valid JSON too.
        guard r < 9_007_199_254_740_992 else { return "\(v.rounded())" }
        let whole = Int(r / scale), frac = Int(r.truncatingRemainder(dividingBy: scale))
        var s = (v < 0 && r > 0 ? "-" : "") + String(whole)
        if frac > 0 {
            var f = String(frac)
            f = String(repeating: "0", count: digits - f.count) + f
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        return s
    }
}

extension CellPoint {
    /// The cell a normalised gaze point falls on in a screen of `size`, clamped to the screen.
    ///
    /// The one place gaze becomes cells: a point that is not finite (or is huge) must not reach `Int(_:)`,
    /// which traps, so NaN counts as the first cell and anything past the edge as the last.
    public init(gaze g: GazePoint, in size: Size) {
        func cell(_ v: Double, _ n: Int) -> Int {
            let c = v * Double(n)
            guard c >= 0 else { return 0 }
            guard c < Double(n) else { return max(0, n - 1) }
            return Int(c)
        }
        self.init(x: cell(g.x, size.width), y: cell(g.y, size.height))
    }
}
