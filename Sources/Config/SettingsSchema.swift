import Localization

/// A setting's value as a flat TOML file holds it: what the parser reads and the writer writes.
public enum SettingValue: Sendable, Equatable {
    case bool(Bool)
    case number(Double)
    case string(String)
    case strings([String])
}

/// What a setting holds and which values it accepts: its one range (issue 48: one range per setting).
public enum SettingKind: Sendable {
    /// `true` or `false`.
    case bool
    /// A number within `range`, in the file's unit; `whole` ones take no fraction.
    case number(ClosedRange<Double>, whole: Bool = false)
    /// One of these words.
    case choice([String])
    /// A string that `accepts` takes; `rule` says which ones, after "KEY must be".
    case text(rule: String, accepts: @Sendable (String) -> Bool)
    /// A list of strings (or one string, taken as a list of one) that `accepts` takes; `rule` as for `text`.
    case strings(rule: String, accepts: @Sendable ([String]) -> Bool)

    /// "`key` must be …" for a value this kind does not accept, `unit` the file value's unit (marked with `N_`
    /// where the setting is declared, translated here), worded for translation.
    public func mustBe(_ key: String, unit: String) -> UIMessage {
        switch self {
        case .bool:
            return UIMessage("{key} must be true or false", ["key": key])
        case .number(let r, let whole):
            let arguments = ["key": key, "from": SettingValue.format(r.lowerBound), "to": SettingValue.format(r.upperBound)]
            let units = ["unit": UIMessage(unit)]
            return switch (whole, unit.isEmpty) {
            case (false, true): UIMessage("{key} must be a number {from}…{to}", arguments)
            case (true, true): UIMessage("{key} must be a whole number {from}…{to}", arguments)
            case (false, false): UIMessage("{key} must be a number {from}…{to} ({unit})", arguments, reasons: units)
            case (true, false): UIMessage("{key} must be a whole number {from}…{to} ({unit})", arguments, reasons: units)
            }
        case .choice(let words):
            let quoted = words.map { "\"\($0)\"" }
            guard let last = quoted.last, quoted.count > 1 else { return UIMessage("{key} must be {value}", ["key": key, "value": quoted.first ?? ""]) }
            return UIMessage("{key} must be {values} or {last}", ["key": key, "values": quoted.dropLast().joined(separator: ", "), "last": last])
        case .text(let rule, _), .strings(let rule, _):
            // The rule is a whole description of the value ("a keymap name"), marked with N_ where it is declared.
            return UIMessage("{key} must be {rule}", ["key": key], reasons: ["rule": UIMessage(rule)])
        }
    }

    /// What the kind accepts, in the words of a message or a reference: `a number 200…60000`,
    /// `"normal" or "slow"`.
    public var rule: String {
        switch self {
        case .bool: return "true or false"
        case .number(let r, let whole):
            return "\(whole ? "a whole number" : "a number") \(SettingValue.format(r.lowerBound))…\(SettingValue.format(r.upperBound))"
        case .choice(let words): return SettingValue.alternatives(words)
        case .text(let rule, _), .strings(let rule, _): return rule
        }
    }
}

/// One setting, declared once: its key in the file, the Settings tab it belongs to, its kind and range, unit and
/// one-line description, and how to read and write it in the settings value. The parser, the writer and the
/// reference (docs/settings.md, the man page) all walk these.
public struct SettingEntry<Root: Sendable>: Sendable {
    public let key: String
    /// The Settings screen's tab that shows it (its key: `tracking`, `pointer`…), or `file` for a setting made
    /// only in the file.
    public let section: String
    public let kind: SettingKind
    /// The file value's unit in words (`milliseconds`), empty for none.
    public let unit: String
    /// What the setting does, in one line.
    public let summary: String
    /// The value as the file holds it (in `unit`); nil for one not set (an override left to the gesture config),
    /// which the writer leaves out.
    public let get: @Sendable (Root) -> SettingValue?
    /// Takes a value the kind accepts (in `unit`) into the settings.
    public let set: @Sendable (inout Root, SettingValue) -> Void

    public init(_ key: String, section: String, _ kind: SettingKind, unit: String = "", _ summary: String,
                get: @escaping @Sendable (Root) -> SettingValue?, set: @escaping @Sendable (inout Root, SettingValue) -> Void) {
        self.key = key; self.section = section; self.kind = kind; self.unit = unit; self.summary = summary
        self.get = get; self.set = set
    }

    /// A true-or-false setting at `path`.
    public static func bool(_ key: String, section: String, _ path: WritableKeyPath<Root, Bool> & Sendable,
                            _ summary: String) -> Self {
        Self(key, section: section, .bool, summary, get: { .bool($0[keyPath: path]) },
             set: { r, v in if case .bool(let b) = v { r[keyPath: path] = b } })
    }

    /// A number at `path`, held in the file as it is in the settings.
    public static func number(_ key: String, section: String, _ path: WritableKeyPath<Root, Double> & Sendable,
                              _ range: ClosedRange<Double>, unit: String, _ summary: String) -> Self {
        Self(key, section: section, .number(range), unit: unit, summary, get: { .number($0[keyPath: path]) },
             set: { r, v in if case .number(let d) = v { r[keyPath: path] = d } })
    }

    /// A number at `path` that may be left unset (nil: not written, the gesture config's value stands).
    public static func number(_ key: String, section: String, _ path: WritableKeyPath<Root, Double?> & Sendable,
                              _ range: ClosedRange<Double>, unit: String, _ summary: String) -> Self {
        Self(key, section: section, .number(range), unit: unit, summary, get: { $0[keyPath: path].map(SettingValue.number) },
             set: { r, v in if case .number(let d) = v { r[keyPath: path] = d } })
    }

    /// One of an enumeration's raw values at `path`, which may be left unset (nil: not written).
    public static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, section: String, _ path: WritableKeyPath<Root, E?> & Sendable, _ summary: String) -> Self
        where E.RawValue == String {
        Self(key, section: section, .choice(E.allCases.map(\.rawValue)), summary, get: { $0[keyPath: path].map { .string($0.rawValue) } },
             set: { r, v in if case .string(let s) = v, let e = E(rawValue: s) { r[keyPath: path] = e } })
    }

    /// One of an enumeration's raw values at `path`.
    public static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, section: String, _ path: WritableKeyPath<Root, E> & Sendable, _ summary: String) -> Self
        where E.RawValue == String {
        Self(key, section: section, .choice(E.allCases.map(\.rawValue)), summary, get: { .string($0[keyPath: path].rawValue) },
             set: { r, v in if case .string(let s) = v, let e = E(rawValue: s) { r[keyPath: path] = e } })
    }

    /// One of `words`, held as a string at `path`.
    public static func choice(_ key: String, section: String, _ path: WritableKeyPath<Root, String> & Sendable,
                              _ words: [String], _ summary: String) -> Self {
        Self(key, section: section, .choice(words), summary, get: { .string($0[keyPath: path]) },
             set: { r, v in if case .string(let s) = v { r[keyPath: path] = s } })
    }
}

/// Every setting of a settings value, in the order the file lists them, with the value's defaults.
public struct SettingsSchema<Root: Sendable>: Sendable {
    public let entries: [SettingEntry<Root>]
    /// The built-in values: what a setting the file does not name keeps, and what the reference gives as default.
    public let defaults: Root
    /// The first line of a file the writer writes, a comment.
    public let header: String

    public init(_ entries: [SettingEntry<Root>], defaults: Root, header: String) {
        self.entries = entries; self.defaults = defaults; self.header = header
    }

    public func entry(_ key: String) -> SettingEntry<Root>? { entries.first { $0.key == key } }

    /// The settings as TOML text: one `key = value` line per setting that is set, after the header.
    public func toml(_ settings: Root) -> String {
        "# " + header + "\n" + entries.compactMap { e in e.get(settings).map { "\(e.key) = \($0.toml)\n" } }.joined() + "\n"
    }

    /// What the reference says of a setting's default: its value, or, for one left unset by default, where the
    /// value comes from.
    static var unsetDefault: String { "the gesture config's" }

    /// Reads a settings file over `base`. A key the schema does not know, a value of the wrong type or out of its
    /// range is reported with `file:line` and what the setting takes, and that setting keeps its value from
    /// `base`; every other setting loads. A file that is not TOML gives `base` and the syntax error.
    public func parse(_ text: String, file: String, base: Root) -> (Root, [String]) {
        let (out, problems) = read(text, file: file, base: base)
        return (out, problems.map(\.description))
    }

    /// `parse`, with each problem's reason worded for translation (`ConfigError.shown` says it in the user's
    /// language, its `file:line` the same).
    public func read(_ text: String, file: String, base: Root) -> (Root, [ConfigError]) {
        let doc: TOMLDocument
        do { doc = try TOMLDocument(text: text, file: file) } catch { return (base, [error]) }
        var out = base
        var problems: [(line: Int, error: ConfigError)] = []
        func problem(_ key: String, _ reason: UIMessage) {
            problems.append((doc.line([key]) ?? 0, doc.error([key], reason)))
        }
        for key in doc.root.keys where entry(key) == nil {
            problem(key, UIMessage("unknown setting {key} (a typing mistake, or one this version does not have)", ["key": key]))
        }
        for e in entries {
            guard let node = doc.root[e.key] else { continue }
            if let v = Self.value(node, for: e.kind) { e.set(&out, v) } else { problem(e.key, e.kind.mustBe(e.key, unit: e.unit)) }
        }
        // In the file's order, as a reader fixes them top to bottom (the root's keys come in no order).
        return (out, problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element.error))
    }

    /// `node` as a value `kind` accepts, nil if it accepts none.
    static func value(_ node: TOMLNode, for kind: SettingKind) -> SettingValue? {
        switch kind {
        case .bool:
            return node.bool.map(SettingValue.bool)
        case .number(let range, let whole):
            guard let d = node.number, range.contains(d), !whole || d.rounded() == d else { return nil }
            return .number(d)
        case .choice(let words):
            guard let s = node.string, words.contains(s) else { return nil }
            return .string(s)
        case .text(_, let accepts):
            guard let s = node.string, accepts(s) else { return nil }
            return .string(s)
        case .strings(_, let accepts):
            let list = node.string.map { [$0] } ?? node.array?.compactMap(\.string)
            guard let list, list.count == (node.array?.count ?? 1), accepts(list) else { return nil }
            return .strings(list)
        }
    }
}

extension SettingValue {
    /// The value as TOML writes it.
    public var toml: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return Self.format(d)
        case .string(let s): return Self.quote(s)
        case .strings(let list): return "[" + list.map(Self.quote).joined(separator: ", ") + "]"
        }
    }

    /// A number with no trailing zeros and at most six decimals (`200`, `0.05`), without locale effects.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        let r = (abs(d) * 1_000_000).rounded()
        guard r < 9_007_199_254_740_992 else { return "\(d)" }
        let whole = Int(r / 1_000_000), frac = Int(r.truncatingRemainder(dividingBy: 1_000_000))
        var s = (d < 0 && r > 0 ? "-" : "") + String(whole)
        if frac > 0 {
            var f = String(frac)
            f = String(repeating: "0", count: 6 - f.count) + f
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        return s
    }

    /// `"a", "b" or "c"`.
    static func alternatives(_ words: [String]) -> String {
        let quoted = words.map { "\"\($0)\"" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
    }

    /// A TOML basic string.
    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}

extension SettingsSchema {
    /// The reference of every setting as Markdown (docs/settings.md): a table per section, in `sections`' order,
    /// each with its title.
    public func markdown(title: String, intro: String, sections: [(key: String, title: String)]) -> String {
        var out = "# \(title)\n\n<!-- Generated from the settings schema by `handsfree settings-reference --update docs/settings.md`;"
            + " edit the schema (Sources/Shell/Apps/SettingsApply.swift), not this file. -->\n\n\(intro)\n"
        for (key, name) in sections {
            let rows = entries.filter { $0.section == key }
            guard !rows.isEmpty else { continue }
            out += "\n## \(name)\n\n| Key | Takes | Default | What it does |\n|---|---|---|---|\n"
            for e in rows {
                let takes = e.kind.rule + (e.unit.isEmpty ? "" : " (\(e.unit))")
                let value = e.get(defaults).map { "`" + Self.cell($0.toml) + "`" } ?? Self.unsetDefault
                out += "| `\(e.key)` | \(Self.cell(takes)) | \(value) | \(Self.cell(e.summary)) |\n"
            }
        }
        return out
    }

    /// The same reference as a man page section (`.SH SETTINGS`), for scripts/make-man.py.
    public func manSection(intro: String, sections: [(key: String, title: String)]) -> String {
        var out = [".SH SETTINGS", Self.roff(intro)]
        for (key, name) in sections {
            let rows = entries.filter { $0.section == key }
            guard !rows.isEmpty else { continue }
            out.append(".SS " + Self.roff(name))
            for e in rows {
                out += [".TP", "\\fB" + Self.roff(e.key) + "\\fR = " + Self.roff(e.get(defaults)?.toml ?? Self.unsetDefault),
                        Self.roff(e.summary + " Takes " + e.kind.rule + (e.unit.isEmpty ? "" : " (\(e.unit))") + ".")]
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func cell(_ s: String) -> String { s.replacingAll("|", with: "\\|") }

    /// Text roff prints as it is: backslashes and hyphens escaped, and no line starting with a control character.
    static func roff(_ s: String) -> String {
        let t = s.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        return t.hasPrefix(".") || t.hasPrefix("'") ? "\\&" + t : t
    }
}

extension String {
    /// The string with every `target` replaced (Config does without Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
