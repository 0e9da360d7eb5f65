/// A value kept behind one reference and copied only when written while shared (copy on write), so a
/// struct made of many such parts (`ShellState`, `ScreenContext`) copies in a few reference counts.
///
/// The state and the context a screen is handed are copied at every key and frame; their keymap, data,
/// settings and listings, each a tree of strings and arrays, change far more rarely. Copying them field
/// by field was half of a key's reduction.
@propertyWrapper
public struct Shared<Value> {
    /// Holds the value. Written only through `Shared`, and only while `Shared` is its one owner.
    final class Box: @unchecked Sendable {
        // No run-time exclusivity check: `Shared` reads it, or writes it only while it is the box's one owner.
        @exclusivity(unchecked) var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    public var wrappedValue: Value {
        get { box.value }
        set {
            if isKnownUniquelyReferenced(&box) { box.value = newValue } else { box = Box(newValue) }
        }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// The wrapper itself, so another struct can hold the same box (`ScreenContext` from `ShellState`).
    public var projectedValue: Shared<Value> { self }
}

// Sendable like the value it holds: the box is only ever written while one `Shared` owns it, as Array's
// storage is.
extension Shared: Sendable where Value: Sendable {}
