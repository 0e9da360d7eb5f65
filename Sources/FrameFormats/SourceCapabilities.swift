import TrackingCore

/// What a face source can deliver: which blend shapes it produces, which of them it reports unreliably, and
/// whether it sends eye angles and head pose. A keymap that binds a gesture the source cannot make is told so.
public struct SourceCapabilities: Sendable, Equatable {
    public var name: String
    public var shapes: Set<BlendShape>
    public var unreliable: Set<BlendShape>
    public var eyes: Bool
    public var head: Bool

    static let arkit = Set(BlendShape.allCases)

    /// Every source the shell knows, by the name `--source` takes.
    public static let all: [SourceCapabilities] = [
        SourceCapabilities(name: "livelink", shapes: arkit, unreliable: [], eyes: true, head: true),
        SourceCapabilities(name: "ifacialmocap", shapes: arkit, unreliable: [], eyes: true, head: true),
        SourceCapabilities(name: "mediapipe", shapes: arkit.subtracting([.tongueOut]), unreliable: [], eyes: false, head: true),
        // Models 0 and 1 are "too rigid for expression and blink detection" in OpenSeeFace's own words.
        SourceCapabilities(name: "openseeface", shapes: OpenSeeFace.shapes,
                           unreliable: [.eyeBlinkLeft, .eyeBlinkRight], eyes: false, head: true),
        // VMC carries whatever the sender's avatar has; a sender with ARKit shapes has them all.
        SourceCapabilities(name: "vmc", shapes: arkit, unreliable: [], eyes: false, head: true),
    ]

    public static func named(_ name: String) -> SourceCapabilities? { all.first { $0.name == name } }

    /// The source behind a live format, when the format alone says it (NDJSON may come from anything).
    public static func of(_ format: FrameFormat) -> SourceCapabilities? {
        switch format {
        case .livelinkUDP, .livelinkCSV: return named("livelink")
        case .openseeface: return named("openseeface")
        case .vmc: return named("vmc")
        case .ifacialmocap: return named("ifacialmocap")
        case .ndjson, .auto: return nil
        }
    }

    /// The blend shapes a gesture reads (its signal and guards; a blink count reads the eyes).
    public static func shapes(of g: GestureDefinition) -> [BlendShape] {
        switch g.kind {
        case .threshold(let s): return s.signal.shapes + s.guards.flatMap(\.signal.shapes)
        case .blinkCount(let s):
            switch s.eye {
            case .left: return [.eyeBlinkLeft]
            case .right: return [.eyeBlinkRight]
            case .both: return [.eyeBlinkLeft, .eyeBlinkRight]
            }
        case .dwell: return []
        }
    }

    /// Each bound gesture that reads a shape this source lacks or reports unreliably, with those shapes
    /// (each once, in the order the gesture reads them), in the config's order.
    public func shortfalls(gestures: [GestureDefinition], bound: Set<String>)
        -> [(gesture: String, missing: [BlendShape], shaky: [BlendShape])] {
        gestures.filter { bound.contains($0.name) }.compactMap { g in
            var seen = Set<BlendShape>()
            let used = Self.shapes(of: g).filter { seen.insert($0).inserted }
            let missing = used.filter { !shapes.contains($0) }
            let shaky = used.filter { unreliable.contains($0) }
            return missing.isEmpty && shaky.isEmpty ? nil : (g.name, missing, shaky)
        }
    }

    /// One line per bound gesture this source cannot make, or makes unreliably, e.g.
    /// `commit needs tongueOut, which mediapipe does not produce`.
    public func problems(gestures: [GestureDefinition], bound: Set<String>) -> [String] {
        shortfalls(gestures: gestures, bound: bound).map { f in
            f.missing.isEmpty
                ? "\(f.gesture) reads \(f.shaky.map(\.name).joined(separator: ", ")), which \(name) reports unreliably"
                : "\(f.gesture) needs \(f.missing.map(\.name).joined(separator: ", ")), which \(name) does not produce"
        }
    }
}
