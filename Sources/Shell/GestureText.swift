import TrackingCore

/// Plain-language descriptions of gestures, generated from their definitions so help never drifts from
/// what the detectors really do.
public enum GestureText {
    /// The movement alone, without its timing: "open the jaw" of "open the jaw, hold 0.3 s".
    public static func movement(_ d: GestureDefinition) -> String {
        let s = describe(d)
        return s.firstIndex(of: ",").map { String(s[..<$0]) } ?? s
    }

    /// E.g. "open the jaw, hold 0.3 s" or "wink the left eye (under 0.35 s)".
    public static func describe(_ d: GestureDefinition) -> String {
        switch d.kind {
        case .threshold(let t):
            var what = phrase(t.signal)
            // Say when the other eye must stay open: that is what tells a wink from a blink.
            let eyes: Set<String> = ["eyeBlinkLeft", "eyeBlinkRight"]
            if t.signal.shapes.count == 1, eyes.contains(t.signal.shapes[0].name),
               t.guards.contains(where: { g in g.signal.shapes.contains { eyes.contains($0.name) } }) {
                what += t.signal.shapes[0].name == "eyeBlinkLeft" ? " (right open)" : " (left open)"
            }
            if let maxHold = t.maxHold {
                let wink = ["eyeBlinkLeft": "wink the left eye", "eyeBlinkRight": "wink the right eye"]
                if t.signal.shapes.count == 1, let w = wink[t.signal.shapes[0].name] {
                    return "\(w) (under \(seconds(maxHold)))"
                }
                // A minimum hold worth saying (the brow raise) gives a range: longer is another gesture.
                if t.hold >= 0.1 { return "\(what), hold \(seconds(t.hold)) to \(seconds(maxHold))" }
                return "\(what) briefly (under \(seconds(maxHold)))"
            }
            return t.hold >= 0.1 ? "\(what), hold \(seconds(t.hold))" : what
        case .blinkCount(let b):
            let eye = b.eye == .both ? "both eyes" : "the \(b.eye.rawValue) eye"
            return "blink \(eye) \(b.count) times within \(seconds(b.window))"
        case .dwell(let w):
            return "rest the gaze on a target for \(seconds(w.dwell))"
        }
    }

    static func phrase(_ s: ShapeSignal) -> String {
        let names = Set(s.shapes.map(\.name))
        if names == ["mouthSmileLeft", "mouthSmileRight"] { return "smile" }
        if names == ["eyeBlinkLeft", "eyeBlinkRight"] { return "close both eyes" }
        if names == ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"] { return "raise both eyebrows" }
        let known: [String: String] = [
            "jawOpen": "open the jaw", "eyeBlinkRight": "close the right eye", "eyeBlinkLeft": "close the left eye",
            "tongueOut": "stick the tongue out", "mouthSmileLeft": "smile on the left side",
            "mouthSmileRight": "smile on the right side", "browInnerUp": "raise the eyebrows",
            "cheekPuff": "puff the cheeks", "mouthPucker": "pucker the lips",
        ]
        return s.shapes.map { known[$0.name] ?? $0.name }.joined(separator: " and ")
    }

    static func seconds(_ v: Double) -> String { JSONText.number(v, digits: 2) + " s" }
}
