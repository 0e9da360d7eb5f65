/// One of the 52 ARKit face blend shapes, named as ARKit names them.
public enum BlendShape: Int, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    case eyeBlinkLeft, eyeLookDownLeft, eyeLookInLeft, eyeLookOutLeft, eyeLookUpLeft, eyeSquintLeft, eyeWideLeft
    case eyeBlinkRight, eyeLookDownRight, eyeLookInRight, eyeLookOutRight, eyeLookUpRight, eyeSquintRight, eyeWideRight
    case jawForward, jawLeft, jawRight, jawOpen
    case mouthClose, mouthFunnel, mouthPucker, mouthLeft, mouthRight
    case mouthSmileLeft, mouthSmileRight, mouthFrownLeft, mouthFrownRight
    case mouthDimpleLeft, mouthDimpleRight, mouthStretchLeft, mouthStretchRight
    case mouthRollLower, mouthRollUpper, mouthShrugLower, mouthShrugUpper
    case mouthPressLeft, mouthPressRight, mouthLowerDownLeft, mouthLowerDownRight, mouthUpperUpLeft, mouthUpperUpRight
    case browDownLeft, browDownRight, browInnerUp, browOuterUpLeft, browOuterUpRight
    case cheekPuff, cheekSquintLeft, cheekSquintRight, noseSneerLeft, noseSneerRight, tongueOut

    /// The number of ARKit blend shapes.
    public static let count = 52

    /// The ARKit name, e.g. `jawOpen`.
    public var name: String { Self.names[rawValue] }

    public var description: String { name }

    /// Looks a shape up by its ARKit name; also accepts Live Link Face's capitalised spelling (`JawOpen`).
    public init?(name: String) {
        if let s = Self.byName[name] {
            self = s
        } else if let first = name.first, first.isUppercase,
                  let s = Self.byName[first.lowercased() + name.dropFirst()] {
            self = s
        } else {
            return nil
        }
    }

    private static let names: [String] = [
        "eyeBlinkLeft", "eyeLookDownLeft", "eyeLookInLeft", "eyeLookOutLeft", "eyeLookUpLeft", "eyeSquintLeft",
        "eyeWideLeft", "eyeBlinkRight", "eyeLookDownRight", "eyeLookInRight", "eyeLookOutRight", "eyeLookUpRight",
        "eyeSquintRight", "eyeWideRight", "jawForward", "jawLeft", "jawRight", "jawOpen", "mouthClose",
        "mouthFunnel", "mouthPucker", "mouthLeft", "mouthRight", "mouthSmileLeft", "mouthSmileRight",
        "mouthFrownLeft", "mouthFrownRight", "mouthDimpleLeft", "mouthDimpleRight", "mouthStretchLeft",
        "mouthStretchRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper",
        "mouthPressLeft", "mouthPressRight", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthUpperUpLeft",
        "mouthUpperUpRight", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
        "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "noseSneerLeft", "noseSneerRight", "tongueOut",
    ]

    private static let byName: [String: BlendShape] = {
        var d: [String: BlendShape] = [:]
        for s in BlendShape.allCases { d[names[s.rawValue]] = s }
        return d
    }()

    /// All ARKit names, in enum order; used in error messages.
    public static var allNames: [String] { names }
}

/// The 52 blend-shape coefficients of one frame, 0…1, indexed by ``BlendShape``.
public struct BlendShapes: Sendable, Equatable {
    public private(set) var values: [Float]

    /// All shapes at rest (0).
    public init() { values = Array(repeating: 0, count: BlendShape.count) }

    /// Builds from all 52 values in ``BlendShape`` order (for decoders that fill them in place); nil for
    /// another count.
    public init?(values: [Float]) {
        guard values.count == BlendShape.count else { return nil }
        self.values = values
    }

    /// Builds from a dictionary; shapes not named read as 0.
    public init(_ dict: [BlendShape: Float]) {
        self.init()
        for (k, v) in dict { values[k.rawValue] = v }
    }

    public subscript(_ shape: BlendShape) -> Float {
        get { values[shape.rawValue] }
        set { values[shape.rawValue] = newValue }
    }

    /// Sets a value by raw index (for loops over all shapes).
    public mutating func set(index i: Int, _ v: Float) { values[i] = v }

    /// True when every value is a finite number in 0…1: the common case, checked in one pass.
    var allInUnitRange: Bool {
        values.withUnsafeBufferPointer { b in
            for v in b where !(v >= 0 && v <= 1) { return false }
            return true
        }
    }

    /// The shapes whose value is not zero, for compact encoding.
    public var nonZero: [(BlendShape, Float)] {
        BlendShape.allCases.compactMap { values[$0.rawValue] != 0 ? ($0, values[$0.rawValue]) : nil }
    }
}
