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
