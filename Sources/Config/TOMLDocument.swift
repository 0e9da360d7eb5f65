import TOMLKit
import TrackingCore

/// A problem in a config or keymap file, with the file and line it concerns.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    /// Control characters from the file (an escape sequence in a key or value) are shown as `<U+001B>`, so
    /// printing the error cannot drive the terminal.
    public init(file: String, line: Int?, _ message: String) {
        self.file = file.printable; self.line = line; self.message = message.printable
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
    /// Values replaced from the command line (`--set KEY=VALUE`), by key path: errors about them name the
    /// `--set`, since the file's line no longer holds the value.
    public var overrides: [[String]: String] = [:]

    /// The line (from 1) of a table header whose name starts with a character no key can start with.
    ///
    /// toml++ (inside TOMLKit) asserts on such a header (`[#`, `[=`, `[.a]`, `[` at the end of a line) and
    /// aborts the process instead of reporting an error, so it must not see one; found by FuzzConfig.
    /// Only headers count: a `[` inside a value (arrays, which may span lines), a string or a comment does not.
    static func brokenTableHeader(_ text: String) -> Int? {
        let b = Array(text.utf8)
        var i = 0, line = 1, depth = 0
        var lineStart = true
        func at(_ k: Int) -> UInt8? { k < b.count ? b[k] : nil }
        func isKeyStart(_ c: UInt8?) -> Bool {
            guard let c else { return false }
            return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: "\"")
                || c == UInt8(ascii: "'") || c == UInt8(ascii: "]")
        }
        /// Skips a string starting at `i` (its opening quote), counting the newlines inside it.
        func skipString() {
            let q = b[i]
            let triple = at(i + 1) == q && at(i + 2) == q
            i += triple ? 3 : 1
            while i < b.count {
                let c = b[i]
                if c == 0x0A { line += 1; if !triple { return } }
                if c == UInt8(ascii: "\\"), q == UInt8(ascii: "\"") { i += 2; continue }
                if c == q {
                    if !triple { i += 1; return }
                    if at(i + 1) == q, at(i + 2) == q { i += 3; while at(i) == q { i += 1 }; return }
                }
                i += 1
            }
        }
        while i < b.count {
            let c = b[i]
            if c == 0x0A { line += 1; i += 1; lineStart = true; continue }
            if c == 0x20 || c == 0x09 || c == 0x0D { i += 1; continue }
            let startsLine = lineStart
            lineStart = false
            switch c {
            case UInt8(ascii: "#"):
                while i < b.count, b[i] != 0x0A { i += 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                skipString()
            case UInt8(ascii: "["):
                if depth == 0 && startsLine {
                    var k = i + 1
                    if at(k) == UInt8(ascii: "[") { k += 1 }
                    while at(k) == 0x20 || at(k) == 0x09 { k += 1 }
                    if !isKeyStart(at(k)) { return line }
                    // The rest of the header line holds no value, only the name and perhaps a comment.
                    while i < b.count, b[i] != 0x0A, b[i] != UInt8(ascii: "#") {
                        if b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") { skipString() } else { i += 1 }
                    }
                } else {
                    depth += 1; i += 1
                }
            case UInt8(ascii: "{"):
                depth += 1; i += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1); i += 1
            default:
                i += 1
            }
        }
        return nil
    }

    /// Parses TOML text; a syntax error is reported with its line.
    public init(text: String, file: String) throws(ConfigError) {
        self.file = file
        if let line = Self.brokenTableHeader(text) {
            throw ConfigError(file: file, line: line, "expected a table name after '[' (a bare name or a quoted one)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, line: e.source.begin.line, e.description)
        } catch {
            throw ConfigError(file: file, line: nil, "cannot parse: \(error)")
        }
        // TOMLKit hands strings over as C strings, so a NUL would silently cut a value short.
        if let n = Self.nulEscapeLine(text) {
            throw ConfigError(file: file, line: n, "a NUL character (\\u0000) cannot be used in a string here")
        }
        root = Self.convert(table)
        lines = Self.indexLines(text)
    }

    /// The first line (1-based) outside a comment that writes NUL as an escape, or nil.
    static func nulEscapeLine(_ text: String) -> Int? {
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("#") { continue }
            if line.range(of: "\\u0000") != nil || line.range(of: "\\U00000000") != nil { return n + 1 }
        }
        return nil
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
        if let o = overrides[path] { return ConfigError(file: "--set \(o)", line: nil, message) }
        return ConfigError(file: file, line: line(path), message)
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
