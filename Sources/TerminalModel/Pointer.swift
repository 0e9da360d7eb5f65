/// A pointer button as the desktop sinks press it.
public enum PointerButton: String, Hashable, Sendable, CaseIterable {
    case left, right, middle
}

/// One thing the desktop pointer does, as the Desktop screen's pointer mode asks for it.
///
/// Positions are fractions of the whole desktop (0…1 on each axis, the sink scales them to its screen), so
/// the core never needs to know the desktop's size; relative moves are in the desktop's pixels.
public enum PointerEvent: Hashable, Sendable {
    /// Move to a point of the desktop, `x` and `y` in 0…1 (clamped by the sink).
    case moveTo(x: Double, y: Double)
    /// Move by this many pixels (a head pointer used as a joystick).
    case moveBy(dx: Double, dy: Double)
    /// Press (`down`) or release a button: a drag is a press, moves, and a release.
    case button(PointerButton, down: Bool)
    /// Press and release a button `count` times (2: a double click).
    case click(PointerButton, count: Int)
    /// Turn the wheel by whole steps: positive `dy` scrolls down, positive `dx` right.
    case scroll(dx: Int, dy: Int)
}

extension PointerEvent {
    /// The most presses one click makes (a triple click is the most any program reads) and the most wheel
    /// notches one scroll turns: past these a count is a mistake, and every sink takes no more.
    public static let mostClicks = 10
    public static let mostNotches = 1000

    /// A click's count as a sink carries it out: 0 to `mostClicks`.
    public static func bounded(clicks: Int) -> Int { min(max(clicks, 0), mostClicks) }

    /// A scroll's notches as a sink carries them out: within ±`mostNotches` (`Int.min` included).
    public static func bounded(notches: Int) -> Int { min(max(notches, -mostNotches), mostNotches) }
}
