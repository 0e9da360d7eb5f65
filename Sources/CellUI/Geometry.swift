/// A terminal size in cells.
public struct Size: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }

    /// The smallest size the shell lays screens out for; below it a message is shown instead.
    public static let minimum = Size(width: 80, height: 24)

    public var description: String { "\(width)x\(height)" }

    /// Parses `100x30`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 1000, h <= 1000
        else { return nil }
        self.init(width: w, height: h)
    }
}

/// A cell position, origin top-left.
public struct CellPoint: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// A rectangle of cells.
public struct Rect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int, y: Int, w: Int, h: Int
    public init(x: Int, y: Int, w: Int, h: Int) { self.x = x; self.y = y; self.w = w; self.h = h }

    public var maxX: Int { x + w }
    public var maxY: Int { y + h }
    public var isEmpty: Bool { w <= 0 || h <= 0 }
    public var center: CellPoint { CellPoint(x: x + w / 2, y: y + h / 2) }

    public func contains(_ p: CellPoint) -> Bool { p.x >= x && p.x < maxX && p.y >= y && p.y < maxY }

    /// The rectangle shrunk by `d` cells on every side (by `dx`/`dy` when given).
    public func inset(_ d: Int) -> Rect { inset(dx: d, dy: d) }
    public func inset(dx: Int, dy: Int) -> Rect { Rect(x: x + dx, y: y + dy, w: max(0, w - 2 * dx), h: max(0, h - 2 * dy)) }

    /// The overlap of two rectangles (empty when they do not meet).
    public func intersection(_ o: Rect) -> Rect {
        let x0 = max(x, o.x), y0 = max(y, o.y), x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        return Rect(x: x0, y: y0, w: max(0, x1 - x0), h: max(0, y1 - y0))
    }

    /// Splits into `count` columns separated by `gap` cells, sharing out the remainder from the left.
    public func columns(_ count: Int, gap: Int = 1) -> [Rect] {
        guard count > 0 else { return [] }
        let free = max(0, w - gap * (count - 1))
        var out: [Rect] = [], cx = x
        for i in 0..<count {
            let cw = free / count + (i < free % count ? 1 : 0)
            out.append(Rect(x: cx, y: y, w: cw, h: h)); cx += cw + gap
        }
        return out
    }

    /// Splits into `count` rows separated by `gap` cells.
    public func rows(_ count: Int, gap: Int = 0) -> [Rect] {
        guard count > 0 else { return [] }
        let free = max(0, h - gap * (count - 1))
        var out: [Rect] = [], cy = y
        for i in 0..<count {
            let ch = free / count + (i < free % count ? 1 : 0)
            out.append(Rect(x: x, y: cy, w: w, h: ch)); cy += ch + gap
        }
        return out
    }

    public var description: String { "(\(x),\(y) \(w)x\(h))" }
}
