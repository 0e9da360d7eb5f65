import Localization
/// A TOML 1.0 parser over bytes, producing `TOMLNode`s and the line each key was written on.
///
/// Our own, in pure Swift, because the C++ one we used (toml++ through TOMLKit) aborted the process on some
/// malformed headers and leaked about 19 KB per parse, which a settings screen that re-reads its file, and the
/// fuzzer, both notice. Every error is a `ConfigError` naming the line. Dates and times are kept as their text
/// (no setting of ours is a date). Integers become `Double`s, as every number in our files is read as one.
struct TOMLParser {
    /// How many levels deep a value may sit: each part of its key and of its table's name is a level, and so is
    /// each array around it. Real files use five or so; deeper input is refused, because building and freeing
    /// the nested tables recurses once per level and would exhaust the stack.
    static let maxDepth = 64
    /// The end of every message about the limit, so each one states it.

    private let b: [UInt8]
    private let file: String
    private var i = 0
    private var line = 1
    private let root = Table(kind: .explicit)
    /// The line on which each key path was first written.
    private(set) var lines = KeyLines()

    /// A table while it is being built: reference semantics let a header keep filling the table it names.
    private final class Table {
        enum Kind { case implicit, explicit, dotted }
        var kind: Kind
        var entries: [String: Entry] = [:]
        init(kind: Kind) { self.kind = kind }
    }

    /// An array of tables while it is being built: a reference, so that each `[[name]]` appends in place. As a
    /// plain array inside `Entry`, the copy taken out of the parent's entries shared storage with the one left
    /// there, so every append copied the whole list (n²/2 copies for n `[[name]]` headers).
    private final class TableArray {
        var tables: [Table]
        init(_ tables: [Table]) { self.tables = tables }
    }

    private enum Entry {
        /// A finished value: a string, number, array or inline table; none can be extended later.
        case value(TOMLNode)
        case table(Table)
        case tables(TableArray)
    }

    init(text: String, file: String) {
        b = Array(text.utf8)
        self.file = file
    }

    /// Parses the whole text into its root table.
    mutating func parse() throws(ConfigError) -> [String: TOMLNode] {
        var current = root
        var currentNode = KeyLines.root
        var currentLevel = 0
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while true {
            skipSpaces()
            guard let c = peek() else { break }
            switch c {
            case UInt8(ascii: "#"):
                try skipComment()
            case 0x0A, 0x0D:
                try newline()
                continue
            case UInt8(ascii: "["):
                (current, currentNode, currentLevel) = try header()
            default:
                try keyValue(into: current, node: currentNode, level: currentLevel)
            }
            try endOfLine()
        }
        return Self.convert(root)
    }

    // MARK: - Structure

    /// Reads `[a.b]` or `[[a.b]]` and returns the table that following keys fill, with its node in `lines` and
    /// its level.
    private mutating func header() throws(ConfigError) -> (Table, Int, Int) {
        let headerLine = line
        i += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { i += 1 }
        skipSpaces()
        guard let c = peek(), Self.isBareKey(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") else {
            throw error(UIMessage("expected a table name after '[' (a bare name or a quoted one)"))
        }
        let path = try key()
        guard peek() == UInt8(ascii: "]") else { throw error(UIMessage("expected ']' to close the table name")) }
        i += 1
        if isArray {
            guard peek() == UInt8(ascii: "]") else { throw error(UIMessage("expected ']]' to close the array of tables name")) }
            i += 1
        }
        guard path.count <= Self.maxDepth else {
            let (open, close) = isArray ? ("[[", "]]") : ("[", "]")
            throw error(.plural("the table {table} is {n} level deep, deeper than the {max} levels a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                "the table {table} is {n} levels deep, deeper than the {max} levels a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                path.count, ["table": open + Self.showStart(path) + close, "max": String(Self.maxDepth)]))
        }
        var node = KeyLines.root
        for k in path { node = lines.child(k, of: node, line: headerLine) }
        var t = root
        for (n, k) in path.dropLast().enumerated() {
            switch t.entries[k] {
            case nil:
                let sub = Table(kind: .implicit)
                t.entries[k] = .table(sub)
                t = sub
            case .table(let sub)?:
                t = sub
            case .tables(let list)?:
                // `[[fruit]]` then `[fruit.variety]` means the last fruit's variety.
                guard let last = list.tables.last else { throw error(.verbatim("internal: empty array of tables")) }
                t = last
            case .value?:
                throw error(UIMessage("{key} already holds a value and cannot also be a table", ["key": Self.show(path.prefix(n + 1))]))
            }
        }
        guard let last = path.last else { throw error(UIMessage("expected a table name after '['")) }
        if isArray {
            switch t.entries[last] {
            case nil:
                let sub = Table(kind: .explicit)
                t.entries[last] = .tables(TableArray([sub]))
                return (sub, node, path.count)
            case .tables(let list)?:
                let sub = Table(kind: .explicit)
                list.tables.append(sub)
                return (sub, node, path.count)
            case .table?:
                throw error(UIMessage("[[{table}]] names a table already defined as a plain table", ["table": Self.show(path)]))
            case .value?:
                throw error(UIMessage("[[{table}]] names a key that already holds a value", ["table": Self.show(path)]))
            }
        }
        switch t.entries[last] {
        case nil:
            let sub = Table(kind: .explicit)
            t.entries[last] = .table(sub)
            return (sub, node, path.count)
        case .table(let sub)?:
            guard sub.kind == .implicit else { throw error(UIMessage("table [{table}] is defined twice", ["table": Self.show(path)])) }
            sub.kind = .explicit
            return (sub, node, path.count)
        case .tables?:
            throw error(UIMessage("[{table}] names an array of tables", ["table": Self.show(path)]))
        case .value?:
            throw error(UIMessage("[{table}] names a key that already holds a value", ["table": Self.show(path)]))
        }
    }

    /// Reads `key = value` into `table` (whose node in `lines` is `tableNode`, `level` levels deep), creating the
    /// tables a dotted key names.
    private mutating func keyValue(into table: Table, node tableNode: Int, level: Int) throws(ConfigError) {
        let keyLine = line
        guard let c = peek(), Self.isBareKey(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") else {
            throw error(UIMessage("expected a key (letters, digits, '_' or '-', or a quoted name), found {found}", reasons: ["found": describeHere()]))
        }
        let keys = try key()
        guard peek() == UInt8(ascii: "=") else {
            throw error(UIMessage("expected '=' after the key {key}, found {found}", ["key": Self.show(keys)], reasons: ["found": describeHere()]))
        }
        guard level + keys.count <= Self.maxDepth else {
            throw ConfigError(file: file, line: keyLine,
                              .plural("the key {key} is {n} level deep, deeper than the {max} levels a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                      "the key {key} is {n} levels deep, deeper than the {max} levels a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                      level + keys.count, ["key": Self.showStart(keys), "max": String(Self.maxDepth)]))
        }
        i += 1
        skipSpaces()
        var node = tableNode
        for k in keys { node = lines.child(k, of: node, line: keyLine) }
        let value = try self.value(level: level + keys.count, node: node)
        var t = table
        for (n, k) in keys.dropLast().enumerated() {
            switch t.entries[k] {
            case nil:
                let sub = Table(kind: .dotted)
                t.entries[k] = .table(sub)
                t = sub
            case .table(let sub)? where sub.kind == .dotted:
                t = sub
            default:
                throw error(UIMessage("{key} is already defined, so a dotted key cannot add to it here", ["key": Self.show(keys.prefix(n + 1))]))
            }
        }
        guard let last = keys.last else { throw error(UIMessage("expected a key")) }
        guard t.entries[last] == nil else { throw error(UIMessage("key {key} is defined twice", ["key": Self.show(keys)])) }
        t.entries[last] = .value(value)
    }

    /// Reads a possibly dotted key; stops before `=`, `]` or whatever follows it.
    private mutating func key() throws(ConfigError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let c = peek() else { throw error(UIMessage("the file ends inside a key")) }
            if c == UInt8(ascii: "\"") {
                if peek(1) == c, peek(2) == c { throw error(UIMessage("a key cannot be a multi-line string")) }
                parts.append(try basicString())
            } else if c == UInt8(ascii: "'") {
                if peek(1) == c, peek(2) == c { throw error(UIMessage("a key cannot be a multi-line string")) }
                parts.append(try literalString())
            } else if Self.isBareKey(c) {
                let s = i
                while let d = peek(), Self.isBareKey(d) { i += 1 }
                parts.append(String(decoding: b[s..<i], as: UTF8.self))
            } else {
                throw error(UIMessage("expected a key part after '.', found {found}", reasons: ["found": describeHere()]))
            }
            skipSpaces()
            if peek() == UInt8(ascii: ".") { i += 1; continue }
            return parts
        }
    }

    // MARK: - Values

    /// Reads a value `level` levels deep whose key path has the node `node` in `lines` (where the keys of inline
    /// tables go).
    private mutating func value(level: Int, node: Int) throws(ConfigError) -> TOMLNode {
        guard level <= Self.maxDepth else { throw error(.plural("arrays and inline tables nest deeper than the {n} level a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                                                     "arrays and inline tables nest deeper than the {n} levels a config or keymap file may use (each part of a key or [table] name, and each array, is a level)",
                                                                     Self.maxDepth)) }
        guard let c = peek() else { throw error(UIMessage("expected a value after '=', but the file ends")) }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == c, peek(2) == c { return .string(try multilineBasicString()) }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == c, peek(2) == c { return .string(try multilineLiteralString()) }
            return .string(try literalString())
        case UInt8(ascii: "["):
            return try array(level: level, node: node)
        case UInt8(ascii: "{"):
            return try inlineTable(level: level, node: node)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if matches("true") { i += 4; return .bool(true) }
            if matches("false") { i += 5; return .bool(false) }
            throw error(UIMessage("expected a value, found {found} (strings need quotes)", reasons: ["found": describeHere()]))
        case 0x0A, 0x0D, UInt8(ascii: "#"):
            throw error(UIMessage("expected a value after '='"))
        default:
            return try numberOrDate()
        }
    }

    private mutating func array(level: Int, node: Int) throws(ConfigError) -> TOMLNode {
        let start = line
        i += 1
        var items: [TOMLNode] = []
        while true {
            try skipBlank()
            guard let c = peek() else { throw ConfigError(file: file, line: start, UIMessage("the array opened here is never closed with ']'")) }
            if c == UInt8(ascii: "]") { i += 1; return .array(items) }
            items.append(try value(level: level + 1, node: node))
            try skipBlank()
            guard let d = peek() else { throw ConfigError(file: file, line: start, UIMessage("the array opened here is never closed with ']'")) }
            if d == UInt8(ascii: ",") { i += 1; continue }
            if d == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error(UIMessage("expected ',' or ']' in the array, found {found}", reasons: ["found": describeHere()]))
        }
    }

    private mutating func inlineTable(level: Int, node: Int) throws(ConfigError) -> TOMLNode {
        i += 1
        let table = Table(kind: .explicit)
        skipSpaces()
        if peek() == UInt8(ascii: "}") { i += 1; return .table([:]) }
        while true {
            skipSpaces()
            if let c = peek(), c == 0x0A || c == 0x0D {
                throw error(UIMessage("an inline table {{ … }} must be written on one line"))
            }
            try keyValue(into: table, node: node, level: level)
            skipSpaces()
            guard let c = peek() else { throw error(UIMessage("the inline table is never closed with '}}'")) }
            if c == UInt8(ascii: "}") { i += 1; return .table(Self.convert(table)) }
            if c == UInt8(ascii: ",") {
                i += 1
                skipSpaces()
                if peek() == UInt8(ascii: "}") { throw error(UIMessage("an inline table cannot end with ','")) }
                continue
            }
            if c == 0x0A || c == 0x0D { throw error(UIMessage("an inline table {{ … }} must be written on one line")) }
            throw error(UIMessage("expected ',' or '}}' in the inline table, found {found}", reasons: ["found": describeHere()]))
        }
    }

    private mutating func basicString() throws(ConfigError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek() else { throw error(UIMessage("the string is never closed with '\"'")) }
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c == 0x0A || c == 0x0D { throw error(UIMessage("the string is never closed with '\"' on its line")) }
            if c == UInt8(ascii: "\\") { try escape(into: &out); continue }
            try checkStringByte(c)
            out.append(c)
            i += 1
        }
    }

    private mutating func multilineBasicString() throws(ConfigError) -> String {
        let start = line
        i += 3
        try skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let c = peek() else { throw ConfigError(file: file, line: start, UIMessage("the string opened here is never closed with '\"\"\"'")) }
            if c == UInt8(ascii: "\""), closesMultiline(into: &out) { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                // A backslash at the end of a line joins it to the next non-blank text.
                var k = i + 1
                while let d = peek(k - i), d == 0x20 || d == 0x09 { k += 1 }
                if let d = peek(k - i), d == 0x0A || (d == 0x0D && peek(k - i + 1) == 0x0A) {
                    i = k
                    while let e = peek() {
                        if e == 0x20 || e == 0x09 { i += 1 } else if e == 0x0A || e == 0x0D { try newline() } else { break }
                    }
                    continue
                }
                try escape(into: &out)
                continue
            }
            if c == 0x0A || c == 0x0D { try newline(); out.append(0x0A); continue }
            try checkStringByte(c)
            out.append(c)
            i += 1
        }
    }

    private mutating func literalString() throws(ConfigError) -> String {
        i += 1
        let s = i
        while true {
            guard let c = peek() else { throw error(UIMessage("the string is never closed with \"'\"")) }
            if c == UInt8(ascii: "'") { i += 1; return String(decoding: b[s..<(i - 1)], as: UTF8.self) }
            if c == 0x0A || c == 0x0D { throw error(UIMessage("the string is never closed with \"'\" on its line")) }
            try checkStringByte(c)
            i += 1
        }
    }

    private mutating func multilineLiteralString() throws(ConfigError) -> String {
        let start = line
        i += 3
        try skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let c = peek() else { throw ConfigError(file: file, line: start, UIMessage("the string opened here is never closed with \"'''\"")) }
            if c == UInt8(ascii: "'"), closesMultiline(into: &out) { return String(decoding: out, as: UTF8.self) }
            if c == 0x0A || c == 0x0D { try newline(); out.append(0x0A); continue }
            try checkStringByte(c)
            out.append(c)
            i += 1
        }
    }

    /// At three of the quote at `i`, the end of a multi-line string: moves past it and returns true. Up to two
    /// more quotes belong to the string (`""""` is a quote, then the end) and are appended to `out`.
    private mutating func closesMultiline(into out: inout [UInt8]) -> Bool {
        guard let q = peek(), peek(1) == q, peek(2) == q else { return false }
        var extra = 0
        while extra < 2, peek(3 + extra) == q { extra += 1 }
        out.append(contentsOf: repeatElement(q, count: extra))
        i += 3 + extra
        return true
    }

    private mutating func skipFirstNewline() throws(ConfigError) {
        if let c = peek(), c == 0x0A || c == 0x0D { try newline() }
    }

    /// Decodes the escape at `i` (a backslash) into UTF-8.
    private mutating func escape(into out: inout [UInt8]) throws(ConfigError) {
        guard let c = peek(1) else { throw error(UIMessage("the file ends inside an escape")) }
        i += 2
        switch c {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(c)
        case UInt8(ascii: "\\"): out.append(c)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let n = c == UInt8(ascii: "u") ? 4 : 8
            var v: UInt32 = 0
            for _ in 0..<n {
                guard let d = peek(), let h = Self.hexValue(d) else {
                    throw error(.plural("{escape} needs {n} hex digit", "{escape} needs {n} hex digits", n, ["escape": "\\" + String(Character(Unicode.Scalar(c)))]))
                }
                v = v << 4 | UInt32(h)
                i += 1
            }
            guard let scalar = Unicode.Scalar(v) else {
                throw error(UIMessage("{escape} escape names no character ({code})", ["escape": "\\" + String(Character(Unicode.Scalar(c))), "code": "U+" + String(v, radix: 16, uppercase: true)]))
            }
            if v == 0 { throw error(UIMessage("a NUL character (\\u0000) cannot be used in a string here")) }
            out.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error(UIMessage("unknown escape {escape} in a string (known: {known})", ["escape": "\\" + Self.describe(c), "known": #"\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX"#]))
        }
    }

    private func checkStringByte(_ c: UInt8) throws(ConfigError) {
        if (c < 0x20 && c != 0x09) || c == 0x7F {
            throw error(c == 0 ? UIMessage("a NUL character cannot be used in a string here")
                        : UIMessage("control character {character} in a string (write it as an escape)", ["character": Self.describe(c)]))
        }
    }

    /// Reads an integer, float, `inf`/`nan`, or a date or time (kept as its text).
    private mutating func numberOrDate() throws(ConfigError) -> TOMLNode {
        let s = i
        while let c = peek(), Self.isValueChar(c) { i += 1 }
        // `1979-05-27 07:32:00`: a date, a space, then a time is one value.
        if i - s == 10, peek() == 0x20, let d = peek(1), let e = peek(2), Self.isDigit(d), Self.isDigit(e),
           peek(3) == UInt8(ascii: ":"), b[s + 4] == UInt8(ascii: "-") {
            i += 1
            while let c = peek(), Self.isValueChar(c) { i += 1 }
        }
        let token = Array(b[s..<i])
        guard !token.isEmpty else { throw error(UIMessage("expected a value, found {found}", reasons: ["found": describeHere()])) }
        if let n = Self.number(token) { return .number(n) }
        if Self.isDateTime(token) { return .string(String(decoding: token, as: UTF8.self)) }
        throw error(UIMessage("\"{value}\" is not a number, true/false, a date or a quoted string", ["value": String(decoding: token.prefix(40), as: UTF8.self)]))
    }

    // MARK: - Lexing

    private func peek(_ k: Int = 0) -> UInt8? { i + k < b.count ? b[i + k] : nil }

    private func matches(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { return false }
        if let next = peek(w.count), Self.isBareKey(next) { return false }
        return true
    }

    private mutating func skipSpaces() {
        while let c = peek(), c == 0x20 || c == 0x09 { i += 1 }
    }

    private mutating func skipComment() throws(ConfigError) {
        i += 1
        while let c = peek(), c != 0x0A {
            if c == 0x0D, peek(1) == 0x0A { break }
            if (c < 0x20 && c != 0x09) || c == 0x7F {
                throw error(UIMessage("control character {character} in a comment", ["character": Self.describe(c)]))
            }
            i += 1
        }
    }

    private mutating func newline() throws(ConfigError) {
        if peek() == 0x0D {
            guard peek(1) == 0x0A else { throw error(UIMessage("a carriage return must be followed by a line feed")) }
            i += 1
        }
        i += 1
        line += 1
    }

    /// Skips spaces, newlines and comments (inside an array).
    private mutating func skipBlank() throws(ConfigError) {
        while let c = peek() {
            if c == 0x20 || c == 0x09 { i += 1 }
            else if c == 0x0A || c == 0x0D { try newline() }
            else if c == UInt8(ascii: "#") { try skipComment() }
            else { return }
        }
    }

    /// After a key/value pair or a header only a comment may follow on the line.
    private mutating func endOfLine() throws(ConfigError) {
        skipSpaces()
        guard let c = peek() else { return }
        if c == UInt8(ascii: "#") { try skipComment() }
        guard let d = peek() else { return }
        guard d == 0x0A || d == 0x0D else {
            throw error(UIMessage("expected the end of the line, found {found} (one key = value per line)", reasons: ["found": describeHere()]))
        }
        try newline()
    }

    private func error(_ reason: UIMessage) -> ConfigError { ConfigError(file: file, line: line, reason) }

    private func describeHere() -> UIMessage {
        guard let c = peek() else { return UIMessage("the end of the file") }
        if c == 0x0A || c == 0x0D { return UIMessage("the end of the line") }
        if c >= 0x80, let ch = String(decoding: b[i..<min(i + 4, b.count)], as: UTF8.self).first, ch != "\u{FFFD}" {
            return .verbatim("'\(ch)'")
        }
        return .verbatim(Self.describe(c))
    }

    private static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        let hex = String(c, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The first parts of a key, so a message about a very long one stays readable.
    private static func showStart(_ path: [String]) -> String {
        path.count > 4 ? show(path.prefix(4)) + ".…" : show(path)
    }

    private static func show<C: Collection>(_ path: C) -> String where C.Element == String {
        path.map { p in p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } && !p.isEmpty ? p : "\"\(p)\"" }
            .joined(separator: ".")
    }

    private static func isBareKey(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private static func isValueChar(_ c: UInt8) -> Bool {
        isBareKey(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    // MARK: - Numbers and dates

    /// A TOML integer or float, or nil if `t` is neither.
    static func number(_ t: [UInt8]) -> Double? {
        var k = 0
        var negative = false
        if t.first == UInt8(ascii: "+") || t.first == UInt8(ascii: "-") { negative = t[0] == UInt8(ascii: "-"); k = 1 }
        let body = Array(t[k...])
        if body == Array("inf".utf8) { return negative ? -.infinity : .infinity }
        if body == Array("nan".utf8) { return .nan }
        if body.count > 2, body[0] == 0x30, k == 0 {
            let radix: Int
            switch body[1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = 0
            }
            if radix != 0 {
                guard let digits = underscored(Array(body[2...]), valid: { hexValue($0).map { Int($0) < radix } ?? false }),
                      let v = Int64(String(decoding: digits, as: UTF8.self), radix: radix) else { return nil }
                return Double(v)
            }
        }
        // Split into integer part, fraction and exponent, each checked for TOML's digit and underscore rules.
        var intEnd = 0
        while intEnd < body.count, body[intEnd] != UInt8(ascii: "."), body[intEnd] != UInt8(ascii: "e"),
              body[intEnd] != UInt8(ascii: "E") { intEnd += 1 }
        guard let intDigits = underscored(Array(body[..<intEnd]), valid: isDigit) else { return nil }
        if intDigits.count > 1, intDigits[0] == 0x30 { return nil }
        var text = negative ? "-" : ""
        text += String(decoding: intDigits, as: UTF8.self)
        var rest = body[intEnd...]
        var isFloat = false
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            var e = rest.startIndex
            while e < rest.endIndex, rest[e] != UInt8(ascii: "e"), rest[e] != UInt8(ascii: "E") { e += 1 }
            guard let frac = underscored(Array(rest[..<e]), valid: isDigit) else { return nil }
            text += "." + String(decoding: frac, as: UTF8.self)
            rest = rest[e...]
            isFloat = true
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var exp = Array(rest.dropFirst())
            var sign = ""
            if let s = exp.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
                sign = s == UInt8(ascii: "-") ? "-" : ""; exp.removeFirst()
            }
            guard let digits = underscored(exp, valid: isDigit) else { return nil }
            text += "e" + sign + String(decoding: digits, as: UTF8.self)
            rest = []
            isFloat = true
        }
        guard rest.isEmpty else { return nil }
        if isFloat { return Double(text) }
        guard let v = Int64(text) else { return nil }
        return Double(v)
    }

    /// `digits` without its underscores, if every underscore sits between two valid digits and there is one.
    private static func underscored(_ d: [UInt8], valid: (UInt8) -> Bool) -> [UInt8]? {
        guard let first = d.first, let last = d.last, valid(first), valid(last) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(d.count)
        var previousUnderscore = false
        for c in d {
            if c == UInt8(ascii: "_") {
                if previousUnderscore { return nil }
                previousUnderscore = true
                continue
            }
            guard valid(c) else { return nil }
            previousUnderscore = false
            out.append(c)
        }
        return out
    }

    /// Whether `t` is a TOML offset or local date-time, local date, or local time.
    static func isDateTime(_ t: [UInt8]) -> Bool {
        var k = 0
        func digits(_ n: Int) -> Int? {
            guard k + n <= t.count else { return nil }
            var v = 0
            for j in k..<(k + n) { guard isDigit(t[j]) else { return nil }; v = v * 10 + Int(t[j] - 0x30) }
            k += n
            return v
        }
        func take(_ c: Character) -> Bool {
            guard k < t.count, t[k] == c.asciiValue else { return false }
            k += 1
            return true
        }
        func time() -> Bool {
            guard let h = digits(2), h < 24, take(":"), let m = digits(2), m < 60, take(":"), let s = digits(2), s <= 60
            else { return false }
            if take(".") {
                let start = k
                while k < t.count, isDigit(t[k]) { k += 1 }
                if k == start { return false }
            }
            return true
        }
        if t.count >= 3, t[2] == UInt8(ascii: ":") { return time() && k == t.count }
        guard let y = digits(4), take("-"), let mo = digits(2), (1...12).contains(mo), take("-"), let d = digits(2) else {
            return false
        }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
        guard (1...days).contains(d) else { return false }
        if k == t.count { return true }
        guard take("T") || take("t") || take(" ") else { return false }
        guard time() else { return false }
        if k == t.count { return true }
        if take("Z") || take("z") { return k == t.count }
        guard take("+") || take("-"), let oh = digits(2), oh < 24, take(":"), let om = digits(2), om < 60 else { return false }
        return k == t.count
    }

    // MARK: - Result

    private static func convert(_ t: Table) -> [String: TOMLNode] {
        var out: [String: TOMLNode] = [:]
        out.reserveCapacity(t.entries.count)
        for (k, e) in t.entries {
            switch e {
            case .value(let v): out[k] = v
            case .table(let sub): out[k] = .table(convert(sub))
            case .tables(let list): out[k] = .array(list.tables.map { .table(convert($0)) })
            }
        }
        return out
    }
}
