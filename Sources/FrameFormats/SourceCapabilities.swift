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

    /// A short summary for the status line, what cannot work first: `openseeface: commit needs tongueOut;
    /// unreliable: back, wink_left (eyeBlinkRight, eyeBlinkLeft)`; nil when every bound gesture works.
    public func summary(gestures: [GestureDefinition], bound: Set<String>) -> String? {
        var missing: [String] = [], shaky: [String] = []
        var shakyShapes: [BlendShape] = []
        for g in gestures where bound.contains(g.name) {
            let used = Self.shapes(of: g)
            let lacks = used.filter { !shapes.contains($0) }
            if let first = lacks.first { missing.append("\(g.name) needs \(first.name)"); continue }
            let weak = used.filter { unreliable.contains($0) }
            if !weak.isEmpty {
                shaky.append(g.name)
                for w in weak where !shakyShapes.contains(w) { shakyShapes.append(w) }
            }
        }
        guard !missing.isEmpty || !shaky.isEmpty else { return nil }
        var parts = missing
        if !shaky.isEmpty {
            parts.append("unreliable: \(shaky.joined(separator: ", ")) (\(shakyShapes.map(\.name).joined(separator: ", ")))")
        }
        return "\(name): " + parts.joined(separator: "; ")
    }

    /// One line per bound gesture this source cannot make, or makes unreliably, e.g.
    /// `commit needs tongueOut, which mediapipe does not produce`.
    public func problems(gestures: [GestureDefinition], bound: Set<String>) -> [String] {
        var out: [String] = []
        for g in gestures where bound.contains(g.name) {
            let used = Self.shapes(of: g)
            var seen = Set<BlendShape>()
            let uniq = used.filter { seen.insert($0).inserted }
            let missing = uniq.filter { !shapes.contains($0) }
            if !missing.isEmpty {
                out.append("\(g.name) needs \(missing.map(\.name).joined(separator: ", ")), which \(name) does not produce")
                continue
            }
            let shaky = uniq.filter { unreliable.contains($0) }
            if !shaky.isEmpty {
                out.append("\(g.name) reads \(shaky.map(\.name).joined(separator: ", ")), which \(name) reports unreliably")
            }
        }
        return out
    }
}
