import Localization
import TrackingCore

/// Plain-language descriptions of gestures, generated from their definitions so help never drifts from
/// what the detectors really do. Written for the user and for a carer reading the help beside them: whole
/// words and seconds, never a gesture's name in the config.
public enum GestureText {
    /// The movement alone, without its timing: "open the jaw" of "open the jaw and hold for 0.3 seconds".
    public static func movement(_ d: GestureDefinition) -> String { movement(d, .english) }

    /// `movement` in `c`'s language.
    public static func movement(_ d: GestureDefinition, _ c: Catalog) -> String {
        switch d.kind {
        case .threshold(let t):
            if t.maxHold != nil, t.hold < 0.1, let w = wink(t, c) { return w }
            return what(t, c)
        case .blinkCount(let b):
            switch b.eye {
            case .both: return c.trn("blink both eyes {n} time", "blink both eyes {n} times", b.count)
            case .left: return c.trn("blink the left eye {n} time", "blink the left eye {n} times", b.count)
            case .right: return c.trn("blink the right eye {n} time", "blink the right eye {n} times", b.count)
            }
        case .dwell:
            return c.tr("rest the gaze on a target")
        }
    }

    /// E.g. "open the jaw and hold for 0.3 seconds" or "a quick wink of the left eye (shorter than 0.3
    /// seconds)": a held gesture and a short one on the same eye read clearly apart.
    public static func describe(_ d: GestureDefinition) -> String { describe(d, .english) }

    /// `describe` in `c`'s language; `letterKeys` false leaves out the shorter hold on a letter key (help on a
    /// screen that has none).
    public static func describe(_ d: GestureDefinition, _ c: Catalog, letterKeys: Bool = true) -> String {
        switch d.kind {
        case .threshold(let t):
            if let maxHold = t.maxHold {
                if t.hold < 0.1, let w = wink(t, c) {
                    return c.tr("{gesture} (shorter than {time})", ["gesture": w, "time": seconds(maxHold, c)])
                }
                // A minimum hold worth saying (the brow raise) gives a range: longer is another gesture.
                if t.hold >= 0.1 {
                    return c.tr("{gesture} for {from} to {time}", ["gesture": what(t, c), "from": number(t.hold, c), "time": seconds(maxHold, c)])
                }
                return c.tr("{gesture} briefly (shorter than {time})", ["gesture": what(t, c), "time": seconds(maxHold, c)])
            }
            guard t.hold >= 0.1 else { return what(t, c) }
            let key = t.hold(onKey: true)
            if letterKeys, key < t.hold {
                // The shorter hold on a text's letter keys (`key_hold_ms`), and whether it asks a still face first.
                let args = ["gesture": what(t, c), "time": seconds(t.hold, c), "key": number(key, c)]
                return t.keyCalm != nil
                    ? c.tr("{gesture} and hold for {time} ({key} on a letter key, from a still face)", args)
                    : c.tr("{gesture} and hold for {time} ({key} on a letter key)", args)
            }
            return c.tr("{gesture} and hold for {time}", ["gesture": what(t, c), "time": seconds(t.hold, c)])
        case .blinkCount(let b):
            return c.tr("{gesture} within {time}", ["gesture": movement(d, c), "time": seconds(b.window, c)])
        case .dwell(let w):
            return c.tr("rest the gaze on a target for {time}", ["time": seconds(w.dwell, c)])
        }
    }

    /// `describe` of the gesture named `name` in `defs`; a keymap checked against another config may name one
    /// that is not there, which is said in words rather than by its name.
    public static func describe(named name: String, in defs: [GestureDefinition], _ c: Catalog = .english,
                                letterKeys: Bool = true) -> String {
        defs.first { $0.name == name }.map { describe($0, c, letterKeys: letterKeys) } ?? c.tr("a gesture the gesture config does not define")
    }

    /// A few words for the status line while the gesture is under way: "jaw", "right eye", "left wink".
    public static func short(_ d: GestureDefinition) -> String { short(d, .english) }

    /// `short` in `c`'s language.
    public static func short(_ d: GestureDefinition, _ c: Catalog) -> String {
        switch d.kind {
        case .threshold(let t):
            let names = Set(t.signal.shapes.map(\.name))
            let main = t.signal.shapes.first?.name ?? ""
            if t.maxHold != nil, t.hold < 0.1, main == "eyeBlinkLeft" { return c.tr("left wink") }
            if t.maxHold != nil, t.hold < 0.1, main == "eyeBlinkRight" { return c.tr("right wink") }
            if names == ["mouthSmileLeft", "mouthSmileRight"] { return c.tr("smile", context: "noun") }
            if names == ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"] { return c.tr("both eyebrows") }
            if names == ["eyeBlinkLeft", "eyeBlinkRight"], t.signal.combine != .difference { return c.tr("both eyes") }
            let known: [String: String] = [
                "jawOpen": N_("jaw"), "eyeBlinkRight": N_("right eye"), "eyeBlinkLeft": N_("left eye"), "tongueOut": N_("tongue"),
                "mouthSmileLeft": N_("left smile"), "mouthSmileRight": N_("right smile"), "browInnerUp": N_("eyebrows"),
                "cheekPuff": N_("cheeks"), "mouthPucker": N_("lips"),
            ]
            return c.tr(known[main] ?? N_("face"))
        case .blinkCount: return c.tr("blinks")
        case .dwell: return c.tr("dwell")
        }
    }

    /// The movement of a threshold gesture, with which eye stays open where that tells a wink from a blink.
    static func what(_ t: ThresholdSpec, _ c: Catalog = .english) -> String {
        let what = phrase(t.signal, c)
        let eyes: Set<String> = ["eyeBlinkLeft", "eyeBlinkRight"]
        let main = t.signal.shapes.first?.name ?? ""
        let comparesEyes = t.signal.combine == .difference && Set(t.signal.shapes.map(\.name)) == eyes
        if eyes.contains(main), t.signal.shapes.count == 1 || comparesEyes,
           comparesEyes || t.guards.contains(where: { g in g.signal.shapes.contains { eyes.contains($0.name) } }) {
            return main == "eyeBlinkLeft" ? c.tr("{gesture} (right eye open)", ["gesture": what])
                : c.tr("{gesture} (left eye open)", ["gesture": what])
        }
        return what
    }

    /// "a quick wink of the left eye" for a short closure of one eye; nil for other shapes.
    static func wink(_ t: ThresholdSpec, _ c: Catalog = .english) -> String? {
        switch t.signal.shapes.first?.name {
        case "eyeBlinkLeft": return c.tr("a quick wink of the left eye")
        case "eyeBlinkRight": return c.tr("a quick wink of the right eye")
        default: return nil
        }
    }

    static func phrase(_ s: ShapeSignal, _ c: Catalog = .english) -> String {
        let names = Set(s.shapes.map(\.name))
        if names == ["mouthSmileLeft", "mouthSmileRight"] { return c.tr("smile", context: "verb") }
        if names == ["eyeBlinkLeft", "eyeBlinkRight"], s.combine != .difference { return c.tr("close both eyes") }
        if names == ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"] { return c.tr("raise both eyebrows") }
        let known: [String: String] = [
            "jawOpen": N_("open the jaw"), "eyeBlinkRight": N_("close the right eye"), "eyeBlinkLeft": N_("close the left eye"),
            "tongueOut": N_("stick the tongue out"), "mouthSmileLeft": N_("smile on the left side"),
            "mouthSmileRight": N_("smile on the right side"), "browInnerUp": N_("raise the eyebrows"),
            "cheekPuff": N_("puff the cheeks"), "mouthPucker": N_("purse the lips"),
        ]
        // A difference reads the first shape against the rest: the movement is the first one's.
        let shapes = s.combine == .difference ? Array(s.shapes.prefix(1)) : s.shapes
        let each = shapes.map { c.tr(known[$0.name] ?? N_("move the face")) }
        return each.dropFirst().reduce(each.first ?? "") { c.tr("{first} and {second}", ["first": $0, "second": $1]) }
    }

    /// "1 second", "0.3 seconds" (with the language's decimal separator).
    static func seconds(_ v: Double, _ c: Catalog = .english) -> String {
        v == 1 ? c.tr("1 second") : c.tr("{n} seconds", ["n": number(v, c)])
    }

    static func number(_ v: Double, _ c: Catalog = .english) -> String {
        c.number(v, digits: 2)
    }
}

extension ShellState {
    /// A gesture in a few words for the status line, from its definition.
    func gestureLabel(_ name: String) -> String {
        gestures.first { $0.name == name }.map { GestureText.short($0, catalog) } ?? catalog.tr("gesture")
    }
}
