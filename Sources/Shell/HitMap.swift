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
