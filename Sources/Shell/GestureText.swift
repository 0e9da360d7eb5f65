import TrackingCore

/// Plain-language descriptions of gestures, generated from their definitions so help never drifts from
/// what the detectors really do. Written for the user and for a carer reading the help beside them: whole
/// words and seconds, never a gesture's name in the config.
public enum GestureText {
    /// The movement alone, without its timing: "open the jaw" of "open the jaw and hold for 0.3 seconds".
    public static func movement(_ d: GestureDefinition) -> String {
        switch d.kind {
        case .threshold(let t):
            if t.maxHold != nil, t.hold < 0.1, let w = wink(t) { return w }
            return what(t)
        case .blinkCount(let b):
            return "blink \(b.eye == .both ? "both eyes" : "the \(b.eye.rawValue) eye") \(b.count) times"
        case .dwell:
            return "rest the gaze on a target"
        }
    }

    /// E.g. "open the jaw and hold for 0.3 seconds" or "a quick wink of the left eye (shorter than 0.3
    /// seconds)": a held gesture and a short one on the same eye read clearly apart.
    public static func describe(_ d: GestureDefinition) -> String {
        switch d.kind {
        case .threshold(let t):
            if let maxHold = t.maxHold {
                if t.hold < 0.1, let w = wink(t) { return "\(w) (shorter than \(seconds(maxHold)))" }
                // A minimum hold worth saying (the brow raise) gives a range: longer is another gesture.
                if t.hold >= 0.1 { return "\(what(t)) for \(number(t.hold)) to \(seconds(maxHold))" }
                return "\(what(t)) briefly (shorter than \(seconds(maxHold)))"
            }
            return t.hold >= 0.1 ? "\(what(t)) and hold for \(seconds(t.hold))" : what(t)
        case .blinkCount(let b):
            return "\(movement(d)) within \(seconds(b.window))"
        case .dwell(let w):
            return "rest the gaze on a target for \(seconds(w.dwell))"
        }
    }

    /// `describe` of the gesture named `name` in `defs`; a keymap checked against another config may name one
    /// that is not there, which is said in words rather than by its name.
    public static func describe(named name: String, in defs: [GestureDefinition]) -> String {
        defs.first { $0.name == name }.map(describe) ?? "a gesture the gesture config does not define"
    }

    /// A few words for the status line while the gesture is under way: "jaw", "right eye", "left wink".
    public static func short(_ d: GestureDefinition) -> String {
        switch d.kind {
        case .threshold(let t):
            let names = Set(t.signal.shapes.map(\.name))
            let main = t.signal.shapes.first?.name ?? ""
            if t.maxHold != nil, t.hold < 0.1, main == "eyeBlinkLeft" { return "left wink" }
            if t.maxHold != nil, t.hold < 0.1, main == "eyeBlinkRight" { return "right wink" }
            if names == ["mouthSmileLeft", "mouthSmileRight"] { return "smile" }
            if names == ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"] { return "both eyebrows" }
            if names == ["eyeBlinkLeft", "eyeBlinkRight"], t.signal.combine != .difference { return "both eyes" }
            let known: [String: String] = [
                "jawOpen": "jaw", "eyeBlinkRight": "right eye", "eyeBlinkLeft": "left eye", "tongueOut": "tongue",
                "mouthSmileLeft": "left smile", "mouthSmileRight": "right smile", "browInnerUp": "eyebrows",
                "cheekPuff": "cheeks", "mouthPucker": "lips",
            ]
            return known[main] ?? "face"
        case .blinkCount: return "blinks"
        case .dwell: return "dwell"
        }
    }

    /// The movement of a threshold gesture, with which eye stays open where that tells a wink from a blink.
    static func what(_ t: ThresholdSpec) -> String {
        var what = phrase(t.signal)
        let eyes: Set<String> = ["eyeBlinkLeft", "eyeBlinkRight"]
        let main = t.signal.shapes.first?.name ?? ""
        let comparesEyes = t.signal.combine == .difference && Set(t.signal.shapes.map(\.name)) == eyes
        if eyes.contains(main), t.signal.shapes.count == 1 || comparesEyes,
           comparesEyes || t.guards.contains(where: { g in g.signal.shapes.contains { eyes.contains($0.name) } }) {
            what += main == "eyeBlinkLeft" ? " (right eye open)" : " (left eye open)"
        }
        return what
    }

    /// "a quick wink of the left eye" for a short closure of one eye; nil for other shapes.
    static func wink(_ t: ThresholdSpec) -> String? {
        switch t.signal.shapes.first?.name {
        case "eyeBlinkLeft": return "a quick wink of the left eye"
        case "eyeBlinkRight": return "a quick wink of the right eye"
        default: return nil
        }
    }

    static func phrase(_ s: ShapeSignal) -> String {
        let names = Set(s.shapes.map(\.name))
        if names == ["mouthSmileLeft", "mouthSmileRight"] { return "smile" }
        if names == ["eyeBlinkLeft", "eyeBlinkRight"], s.combine != .difference { return "close both eyes" }
        if names == ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"] { return "raise both eyebrows" }
        let known: [String: String] = [
            "jawOpen": "open the jaw", "eyeBlinkRight": "close the right eye", "eyeBlinkLeft": "close the left eye",
            "tongueOut": "stick the tongue out", "mouthSmileLeft": "smile on the left side",
            "mouthSmileRight": "smile on the right side", "browInnerUp": "raise the eyebrows",
            "cheekPuff": "puff the cheeks", "mouthPucker": "purse the lips",
        ]
        // A difference reads the first shape against the rest: the movement is the first one's.
        let shapes = s.combine == .difference ? Array(s.shapes.prefix(1)) : s.shapes
        return shapes.map { known[$0.name] ?? "move the face" }.joined(separator: " and ")
    }

    /// "1 second", "0.3 seconds".
    static func seconds(_ v: Double) -> String { v == 1 ? "1 second" : number(v) + " seconds" }

    static func number(_ v: Double) -> String { JSONText.number(v, digits: 2) }
}

extension ShellState {
    /// A gesture in a few words for the status line, from its definition.
    func gestureLabel(_ name: String) -> String {
        gestures.first { $0.name == name }.map(GestureText.short) ?? "gesture"
    }
}
