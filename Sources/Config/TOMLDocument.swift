import TOMLKit
import TrackingCore

/// A problem in a config or keymap file, with the file and line it concerns.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, _ message: String) {
        // Messages quote keys and values from the file: their control characters must not reach a terminal.
        self.file = file; self.line = line; self.message = VisibleText.escaping(message)
    }

    /// `file:line: message`, the shape editors and terminals can jump to.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// A parsed TOML value as plain Swift values (TOMLKit's own types are reference types tied to C++ nodes).
public indirect enum TOMLNode: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([TOMLNode])
    case table([String: TOMLNode])

    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var number: Double? { if case .number(let d) = self { return d }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var array: [TOMLNode]? { if case .array(let a) = self { return a }; return nil }
    public var table: [String: TOMLNode]? { if case .table(let t) = self { return t }; return nil }

    var kindName: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "true or false"
        case .array: return "an array"
        case .table: return "a table"
        }
    }
}

/// A TOML file: its values plus where each key was written, so semantic errors can name a line.
public struct TOMLDocument: Sendable {
    public let file: String
    public let root: [String: TOMLNode]
    private let lines: [String: Int]

    /// Parses TOML text; a syntax error is reported with its line.
    public init(text: String, file: String) throws(ConfigError) {
        self.file = file
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, line: e.source.begin.line, e.description)
        } catch {
            throw ConfigError(file: file, line: nil, "cannot parse: \(error)")
        }
        root = Self.convert(table)
        lines = Self.indexLines(text)
    }

    /// The line on which `path` (e.g. `["gesture", "activate", "press"]`) was written, or its table's line.
    public func line(_ path: [String]) -> Int? {
        var p = path
        while !p.isEmpty {
            if let l = lines[p.joined(separator: "\u{1F}")] { return l }
            p.removeLast()
        }
        return nil
    }

    /// An error about the key at `path`.
    public func error(_ path: [String], _ message: String) -> ConfigError {
        ConfigError(file: file, line: line(path), message)
    }

    private static func convert(_ v: TOMLValueConvertible) -> TOMLNode? {
        switch v.type {
        case .string: return v.string.map(TOMLNode.string)
        case .int: return v.int.map { .number(Double($0)) }
        case .double: return v.double.map(TOMLNode.number)
        case .bool: return v.bool.map(TOMLNode.bool)
        case .array: return v.array.map { .array($0.compactMap { convert($0) }) }
        case .table: return v.table.map { .table(convert($0)) }
        default: return v.debugDescription.isEmpty ? nil : .string(v.debugDescription)
        }
    }

    private static func convert(_ t: TOMLTable) -> [String: TOMLNode] {
        var out: [String: TOMLNode] = [:]
        for k in t.keys { if let v = t[k], let n = convert(v) { out[k] = n } }
        return out
    }

    /// Maps each table header and key to its line by scanning the text; TOMLKit's values carry no positions.
    static func indexLines(_ text: String) -> [String: Int] {
        var out: [String: Int] = [:]
        var table: [String] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let inner = line.trimmingPrefix("[[").trimmingPrefix("[")
                guard let close = inner.firstIndex(of: "]") else { continue }
                table = splitKey(String(inner[..<close]))
                // `[screen.kitchen.gestures]` also places `screen.kitchen` on this line if nothing did before.
                for k in 1...max(1, table.count) {
                    let key = table.prefix(k).joined(separator: "\u{1F}")
                    if out[key] == nil { out[key] = n + 1 }
                }
                continue
            }
            guard let eq = keyEnd(line) else { continue }
            let key = table + splitKey(String(line[..<eq]))
            let joined = key.joined(separator: "\u{1F}")
            if out[joined] == nil { out[joined] = n + 1 }
        }
        return out
    }

    /// The index of the `=` that ends a key, skipping quoted parts.
    private static func keyEnd(_ line: String) -> String.Index? {
        var quote: Character?
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "=" {
                return i
            }
            i = line.index(after: i)
        }
        return nil
    }

    /// Splits a dotted key into parts, honouring quotes.
    static func splitKey(_ s: String) -> [String] {
        var parts: [String] = []
        var cur = ""
        var quote: Character?
        for c in s {
            if let q = quote {
                if c == q { quote = nil } else { cur.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "." {
                parts.append(cur.trimmingCharacters(in: " \t")); cur = ""
            } else {
                cur.append(c)
            }
        }
        parts.append(cur.trimmingCharacters(in: " \t"))
        return parts
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }

    func trimmingPrefix(_ p: String) -> SubSequence {
        hasPrefix(p) ? self[index(startIndex, offsetBy: p.count)...] : self[...]
    }
}
