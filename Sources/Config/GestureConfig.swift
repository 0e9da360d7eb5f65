import Localization
import TrackingCore

/// The tracking settings of a config file: smoothing, gaze mapping and gesture definitions.
public enum GestureConfig {
    /// The keys a `[gesture.NAME]` table may hold.
    public static let gestureKeys = ["kind", "shape", "shapes", "combine", "press", "release", "hold_ms",
                                     "max_hold_ms", "refractory_ms", "guard", "lookback_ms", "calm_ms", "repeat_calm_ms", "key_hold_ms", "key_hold_share", "key_calm_ms", "eye", "count",
                                     "window_ms", "max_blink_ms", "other_eye_below", "dwell_ms", "grace_ms",
                                     "description"]
    public static let kinds = ["threshold", "blink-count", "dwell"]
    /// The sections a gesture config may hold at its top level (what tells it from a keymap).
    public static let sections = ["smoothing", "gaze", "gesture", "tolerance"]
    /// Keys every kind of gesture may hold.
    static let commonKeys = ["kind", "description", "refractory_ms", "lookback_ms"]
    /// The keys each kind reads besides `commonKeys`.
    static let kindKeys: [String: [String]] = [
        "threshold": ["shape", "shapes", "combine", "press", "release", "hold_ms", "max_hold_ms", "guard", "calm_ms",
                      "repeat_calm_ms", "key_hold_ms", "key_hold_share", "key_calm_ms"],
        "blink-count": ["eye", "count", "window_ms", "press", "release", "max_blink_ms", "other_eye_below"],
        "dwell": ["dwell_ms", "grace_ms"],
    ]

    /// Loads settings from TOML text; any mistake is an error naming its line.
    public static func parse(_ text: String, file: String, overrides: [String] = []) throws(ConfigError)
        -> PipelineSettings {
        var doc = try TOMLDocument(text: text, file: file)
        var root = doc.root
        for o in overrides {
            try apply(override: o, to: &root)
            // A bad value given with --set is blamed on the --set, not on the file's line it replaced.
            let key = o.split(separator: "=", maxSplits: 1).first.map(String.init) ?? o
            doc.overrides[TOMLDocument.splitKey(key)] = o
        }
        return try settings(from: root, doc: doc)
    }

    /// The built-in settings (the same text as `config/gestures.toml`).
    public static func defaults() -> PipelineSettings {
        // The built-in text is checked by a test, so this cannot fail at run time.
        (try? parse(defaultText, file: "built-in gestures.toml")) ?? PipelineSettings()
    }

    /// Applies `gesture.activate.press=0.55` to a parsed tree (numbers, booleans, or strings).
    static func apply(override: String, to root: inout [String: TOMLNode]) throws(ConfigError) {
        let parts = override.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw ConfigError(file: "--set", line: nil, UIMessage("\"{value}\" is not KEY=VALUE (e.g. gesture.activate.press=0.55)", ["value": override]))
        }
        let path = TOMLDocument.splitKey(parts[0])
        let raw = parts[1].trimmingCharacters(in: " ")
        let value: TOMLNode
        if let d = Double(raw) { value = .number(d) }
        else if raw == "true" || raw == "false" { value = .bool(raw == "true") }
        else { value = .string(raw.trimmingCharacters(in: "\"")) }
        func set(_ t: inout [String: TOMLNode], _ p: ArraySlice<String>) throws(ConfigError) {
            guard let k = p.first else { return }
            if p.count == 1 { t[k] = value; return }
            guard case .table(var sub)? = t[k] else {
                throw ConfigError(file: "--set", line: nil,
                                  UIMessage("\"{key}\": no table \"{table}\" (known: {known})",
                                            ["key": parts[0], "table": k, "known": t.keys.sorted().joined(separator: ", ")]))
            }
            try set(&sub, p.dropFirst())
            t[k] = .table(sub)
        }
        try set(&root, path[...])
    }

    static func settings(from root: [String: TOMLNode], doc: TOMLDocument) throws(ConfigError) -> PipelineSettings {
        var s = PipelineSettings()
        for key in root.keys.sorted() where !sections.contains(key) {
            throw doc.error([key], UIMessage("unknown section \"{section}\" (known: {known})", ["section": key, "known": sections.joined(separator: ", ")]))
        }
        if let t = root["tolerance"] {
            guard let d = t.number, d >= 0, d <= 1 else { throw doc.error(["tolerance"], UIMessage("tolerance must be a number 0…1")) }
            s.rangeTolerance = Float(d)
        }
        if let sm = root["smoothing"] {
            let r = Reader(doc: doc, path: ["smoothing"], node: sm)
            try r.only(["filter", "window", "alpha", "min_cutoff", "beta", "d_cutoff"])
            if let f = try r.string("filter") {
                guard let k = SmoothingKind(rawValue: f) else {
                    throw r.error("filter", UIMessage("unknown filter \"{filter}\" (known: {known})",
                                                      ["filter": f, "known": SmoothingKind.allCases.map(\.rawValue).joined(separator: ", ")]))
                }
                s.smoothing.kind = k
            }
            if let w = try r.integer("window", 1...600) { s.smoothing.window = w }
            if let a = try r.number("alpha", 0...1) { s.smoothing.alpha = a }
            if let v = try r.number("min_cutoff", 0.0001...1000) { s.smoothing.minCutoff = v }
            if let v = try r.number("beta", 0...1000) { s.smoothing.beta = v }
            if let v = try r.number("d_cutoff", 0.0001...1000) { s.smoothing.dCutoff = v }
        }
        var lookbackDefault = 0.1
        if let g = root["gaze"] {
            let r = Reader(doc: doc, path: ["gaze"], node: g)
            try r.only(["yaw_range", "pitch_range", "head_yaw_gain", "head_pitch_gain", "lookback_ms",
                        "head_yaw_range", "head_pitch_range", "head_dead_zone"])
            if let v = try r.angleRange("yaw_range", increasing: true) { s.mapping.yawRange = .init(v.0, v.1) }
            if let v = try r.angleRange("pitch_range", increasing: false) { s.mapping.pitchRange = .init(v.0, v.1) }
            if let v = try r.number("head_yaw_gain", -100...100) { s.mapping.headYawGain = v }
            if let v = try r.number("head_pitch_gain", -100...100) { s.mapping.headPitchGain = v }
            if let v = try r.number("lookback_ms", 0...5000) { lookbackDefault = v / 1000 }
            // Head-only pointing: either order, since trackers disagree on the signs of head angles.
            if let v = try r.angleRange("head_yaw_range", increasing: nil) { s.mapping.headYawRange = .init(v.0, v.1) }
            if let v = try r.angleRange("head_pitch_range", increasing: nil) { s.mapping.headPitchRange = .init(v.0, v.1) }
            if let v = try r.number("head_dead_zone", 0...0.2) { s.mapping.headDeadZone = v }
        }
        if let gs = root["gesture"] {
            guard let table = gs.table else { throw doc.error(["gesture"], UIMessage("\"gesture\" must be a table of [gesture.NAME] tables")) }
            for name in table.keys.sorted(by: { (doc.line(["gesture", $0]) ?? 0) < (doc.line(["gesture", $1]) ?? 0) }) {
                guard let node = table[name] else { continue }
                s.gestures.append(try gesture(name, node, doc: doc, lookback: lookbackDefault))
            }
        }
        // Gestures are not merged with the built-in ones, and keymaps bind gestures by name: a file without
        // any would leave every keymap binding unknown.
        if s.gestures.isEmpty {
            throw ConfigError(file: doc.file, line: nil,
                              UIMessage("defines no gestures: a gesture config needs [gesture.NAME] tables (copy config/gestures.toml and change what you need)"))
        }
        if root["gesture"]?.table?[EscapeGesture.name] != nil {
            throw doc.error(["gesture", EscapeGesture.name],
                            UIMessage("[gesture.{name}] is the shell's built-in escape (hold the jaw open 3 s): it cannot be changed, so that no file can take it away",
                                      ["name": EscapeGesture.name]))
        }
        s.gestures.append(EscapeGesture.definition)
        return s
    }

    static func gesture(_ name: String, _ node: TOMLNode, doc: TOMLDocument, lookback: Double) throws(ConfigError)
        -> GestureDefinition {
        let r = Reader(doc: doc, path: ["gesture", name], node: node)
        // Names are bound in keymaps and shown on the status line: plain words only.
        guard !name.isEmpty, name.count <= 40,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") })
        else {
            throw doc.error(["gesture", name], UIMessage("gesture name \"{name}\" must be 1…40 letters, digits, _ or - (e.g. [gesture.brow_raise])", ["name": name]))
        }
        guard node.table != nil else { throw doc.error(["gesture", name], UIMessage("gesture \"{name}\" must be a table", ["name": name])) }
        try r.only(gestureKeys)
        let kindName = try r.string("kind") ?? "threshold"
        // Only people read the description, but it is checked like any string (no control characters).
        _ = try r.string("description")
        // A key of another kind would be ignored without a word, so the user would tune nothing.
        if let own = kindKeys[kindName] {
            for k in r.table.keys.sorted() where !own.contains(k) && !commonKeys.contains(k) {
                throw r.error(k, UIMessage("{key} does nothing in a {kind} gesture (its keys: {known})",
                                            ["key": k, "kind": kindName, "known": (commonKeys + own).joined(separator: ", ")]))
            }
        }
        let look = try r.number("lookback_ms", 0...5000).map { $0 / 1000 } ?? lookback
        let refractory = try r.number("refractory_ms", 0...60000).map { $0 / 1000 }
        switch kindName {
        case "threshold":
            let signal = try r.signal()
            guard let press = try r.number("press", 0...1) else { throw r.error("press", UIMessage("gesture \"{name}\" needs press = 0…1", ["name": name])) }
            let release = try r.number("release", 0...1) ?? max(0, press - 0.2)
            guard release < press else {
                throw r.error("release", UIMessage("release ({release}) must be lower than press ({press}) so the gesture cannot chatter",
                                                     ["release": "\(release)", "press": "\(press)"]))
            }
            let hold = (try r.number("hold_ms", 0...60000) ?? 0) / 1000
            let maxHold = try r.number("max_hold_ms", 0...60000).map { $0 / 1000 }
            if let m = maxHold, m < hold { throw r.error("max_hold_ms", UIMessage("max_hold_ms must not be below hold_ms")) }
            let guards = try r.guards()
            let calm = (try r.number("calm_ms", 0...5000) ?? 0) / 1000
            let repeatCalm = (try r.number("repeat_calm_ms", 0...5000) ?? 0) / 1000
            // Above hold_ms it changes nothing (the key hold only ever shortens the hold). Set, it wins over the
            // share; the share is what the shipped file sets, so a longer hold_ms lengthens the key hold with it.
            let keyHold = try r.number("key_hold_ms", 0...60000).map { $0 / 1000 }
            let keyHoldShare = try r.number("key_hold_share", 0...1)
            // 0 turns the still-face condition off (an A/B of the key hold alone).
            let keyCalm = try r.number("key_calm_ms", 0...10000).flatMap { $0 > 0 ? $0 / 1000 : nil }
            let spec = ThresholdSpec(signal: signal, press: Float(press), release: Float(release), hold: hold,
                                     maxHold: maxHold, refractory: refractory ?? 0.3, guards: guards, calm: calm,
                                     repeatCalm: repeatCalm, keyHold: keyHold, keyCalm: keyCalm,
                                     keyHoldShare: keyHoldShare)
            return GestureDefinition(name: name, kind: .threshold(spec), lookback: look)
        case "blink-count":
            let eyeName = try r.string("eye") ?? "both"
            guard let eye = BlinkEye(rawValue: eyeName) else {
                throw r.error("eye", UIMessage("unknown eye \"{eye}\" (known: left, right, both)", ["eye": eyeName]))
            }
            guard let count = try r.integer("count", 1...10) else { throw r.error("count", UIMessage("blink-count needs count = 1…10")) }
            let window = (try r.number("window_ms", 50...10000) ?? 1000) / 1000
            var spec = BlinkCountSpec(eye: eye, count: count, window: window)
            if let p = try r.number("press", 0...1) { spec.press = Float(p) }
            if let p = try r.number("release", 0...1) { spec.release = Float(p) }
            guard spec.release < spec.press else { throw r.error("release", UIMessage("release must be lower than press")) }
            if let m = try r.number("max_blink_ms", 10...5000) { spec.maxBlink = m / 1000 }
            if let o = try r.number("other_eye_below", 0...1) { spec.otherEyeOpenBelow = Float(o) }
            if let refractory { spec.refractory = refractory }
            return GestureDefinition(name: name, kind: .blinkCount(spec), lookback: look)
        case "dwell":
            var spec = DwellSpec()
            // Below 200 ms a glance across a target would open it (the Settings screen's lower bound too).
            if let d = try r.number("dwell_ms", SettingRanges.dwellMilliseconds) { spec.dwell = d / 1000 }
            if let g = try r.number("grace_ms", 0...5000) { spec.grace = g / 1000 }
            if let refractory { spec.refractory = refractory }
            return GestureDefinition(name: name, kind: .dwell(spec), lookback: look)
        default:
            throw r.error("kind", UIMessage("unknown kind \"{kind}\" (known: {known})", ["kind": kindName, "known": kinds.joined(separator: ", ")]))
        }
    }

    /// Typed access to one table with errors that name the key's line.
    struct Reader {
        let doc: TOMLDocument
        let path: [String]
        let node: TOMLNode

        var table: [String: TOMLNode] { node.table ?? [:] }

        func error(_ key: String, _ m: UIMessage) -> ConfigError { doc.error(path + [key], m) }

        func only(_ allowed: [String]) throws(ConfigError) {
            for k in table.keys.sorted() where !allowed.contains(k) {
                throw error(k, UIMessage("unknown key \"{key}\" in [{table}] (known: {known})", ["key": k, "table": path.joined(separator: "."), "known": allowed.joined(separator: ", ")]))
            }
        }

        func string(_ k: String) throws(ConfigError) -> String? {
            guard let v = table[k] else { return nil }
            guard let s = v.string else { throw error(k, UIMessage("{key} must be a string, not {kind}", ["key": k], reasons: ["kind": v.kindMessage])) }
            // Descriptions reach the help screen: a control character would be sent to the terminal as it is.
            if s.contains(where: { !$0.isVisibleKey && $0 != " " }) {
                throw error(k, UIMessage("{key} holds an invisible or control character; use visible characters and spaces", ["key": k]))
            }
            return s
        }

        func number(_ k: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double? {
            guard let v = table[k] else { return nil }
            guard let d = v.number else { throw error(k, UIMessage("{key} must be a number, not {kind}", ["key": k], reasons: ["kind": v.kindMessage])) }
            guard range.contains(d) else {
                throw error(k, UIMessage("{key} = {value} is out of range ({low}…{high})", ["key": k, "value": "\(d)", "low": "\(range.lowerBound)", "high": "\(range.upperBound)"]))
            }
            return d
        }

        /// A whole number in `range`; 2.5 blinks or frames is a mistake, not something to round.
        func integer(_ k: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
            guard let d = try number(k, Double(range.lowerBound)...Double(range.upperBound)) else { return nil }
            guard d.rounded() == d else { throw error(k, UIMessage("{key} = {value} must be a whole number", ["key": k, "value": "\(d)"])) }
            return Int(d)
        }

        /// An angle range `[from, to]` in radians: finite, within half a turn, at least `minSpan` wide, and in
        /// the axis's direction (yaw left to right grows; pitch top to bottom shrinks), since a reversed range
        /// mirrors the gaze and every look lands on the wrong side.
        /// `increasing` nil: either order (the range may flip the axis on purpose).
        func angleRange(_ k: String, increasing: Bool?) throws(ConfigError) -> (Double, Double)? {
            guard let v = table[k] else { return nil }
            let example = increasing == false ? "[0.25, -0.25]" : "[-0.35, 0.35]"
            guard let a = v.array, a.count == 2, let x = a[0].number, let y = a[1].number else {
                throw error(k, UIMessage("{key} must be [from, to], two numbers in radians, e.g. {example}", ["key": k, "example": example]))
            }
            guard x.isFinite, y.isFinite, abs(x) <= Double.pi, abs(y) <= Double.pi else {
                throw error(k, UIMessage("{key} = [{from}, {to}]: both ends must be finite angles within ±π radians", ["key": k, "from": "\(x)", "to": "\(y)"]))
            }
            guard abs(y - x) >= Self.minSpan else {
                throw error(k, UIMessage("{key} = [{from}, {to}]: the ends must be at least {span} radians apart",
                                         ["key": k, "from": "\(x)", "to": "\(y)", "span": "\(Self.minSpan)"]))
            }
            guard increasing == nil || (y > x) == increasing else {
                let values = ["key": k, "from": "\(x)", "to": "\(y)", "example": example]
                throw error(k, increasing == true
                    ? UIMessage("{key} = [{from}, {to}] is reversed and would mirror the gaze; from (left) must be below to (right), e.g. {example}", values)
                    : UIMessage("{key} = [{from}, {to}] is reversed and would mirror the gaze; from (top) must be above to (bottom), e.g. {example}", values))
            }
            return (x, y)
        }

        /// About one degree: a narrower range makes the gaze jump across the screen at every tremor.
        static let minSpan = 0.02

        func shape(_ name: String, key: String) throws(ConfigError) -> BlendShape {
            guard let s = BlendShape(name: name) else {
                throw error(key, UIMessage("unknown blend shape \"{shape}\" (known: {known})", ["shape": name, "known": BlendShape.allNames.joined(separator: ", ")]))
            }
            return s
        }

        func signal() throws(ConfigError) -> ShapeSignal {
            let combineName = try string("combine") ?? "min"
            guard let combine = Combine(rawValue: combineName) else {
                throw error("combine", UIMessage("unknown combine \"{combine}\" (known: min, max, mean, difference)", ["combine": combineName]))
            }
            if let one = try string("shape") {
                if combine == .difference {
                    throw error("combine", UIMessage("combine = \"difference\" needs shapes = [first, other…], not one shape"))
                }
                return ShapeSignal([try shape(one, key: "shape")], combine: combine)
            }
            if let many = table["shapes"] {
                guard let arr = many.array, !arr.isEmpty else { throw error("shapes", UIMessage("shapes must be a non-empty array of names")) }
                var shapes: [BlendShape] = []
                for a in arr {
                    guard let n = a.string else { throw error("shapes", UIMessage("shapes must hold names")) }
                    shapes.append(try shape(n, key: "shapes"))
                }
                if combine == .difference, shapes.count < 2 {
                    throw error("combine", UIMessage("combine = \"difference\" needs two or more shapes: the first minus the largest of the rest"))
                }
                return ShapeSignal(shapes, combine: combine)
            }
            throw error("shape", UIMessage("gesture \"{name}\" needs shape = \"jawOpen\" or shapes = [...]", ["name": path.last ?? ""]))
        }

        /// Parses `guard = ["eyeBlinkLeft <= 0.3", ...]`.
        func guards() throws(ConfigError) -> [GuardCondition] {
            guard let g = table["guard"] else { return [] }
            let items: [TOMLNode] = g.array ?? [g]
            var out: [GuardCondition] = []
            for item in items {
                guard let text = item.string else { throw error("guard", UIMessage("guard must be a string like \"eyeBlinkLeft <= 0.3\"")) }
                out.append(try GestureConfig.guardCondition(text, onError: { m in error("guard", m) }))
            }
            return out
        }
    }

    /// Parses `shape[+shape…] OP value`, e.g. `eyeBlinkLeft <= 0.3`.
    static func guardCondition(_ text: String, onError: (UIMessage) -> ConfigError) throws(ConfigError) -> GuardCondition {
        for op in [Comparison.ge, .le, .gt, .lt] {
            guard let r = text.range(of: op.rawValue) else { continue }
            let lhs = text[..<r.lowerBound].trimmingCharacters(in: " ")
            let rhs = text[r.upperBound...].trimmingCharacters(in: " ")
            guard let v = Float(rhs), v >= 0, v <= 1 else { throw onError(UIMessage("guard \"{guard}\": {value} is not a number 0…1", ["guard": text, "value": rhs])) }
            var shapes: [BlendShape] = []
            for name in lhs.split(separator: "+") {
                let n = name.trimmingCharacters(in: " ")
                guard let s = BlendShape(name: n) else {
                    throw onError(UIMessage("guard \"{guard}\": unknown blend shape \"{shape}\" (known: {known})",
                                            ["guard": text, "shape": n, "known": BlendShape.allNames.joined(separator: ", ")]))
                }
                shapes.append(s)
            }
            return GuardCondition(ShapeSignal(shapes, combine: .mean), op, v)
        }
        throw onError(UIMessage("guard \"{guard}\" needs a comparison (>=, <=, >, <)", ["guard": text]))
    }
}

extension String {
    func range(of needle: String) -> Range<String.Index>? {
        guard !needle.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
