import Localization
import TrackingCore

/// A problem in a config or keymap file, with the file and line it concerns.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The problem in English (`reason` is what the user reads, in their language).
    public var message: String
    /// The problem worded for translation; a message not worded yet is its English, shown as it is.
    public var reason: UIMessage

    /// Control characters from the file (an escape sequence in a key or value) are shown as `<U+001B>`, so
    /// printing the error cannot drive the terminal; a key or value of the file that is too long to read (a
    /// 1 MB key) is cut to its start and end with its length (`ConfigError.cut`).
    public init(file: String, line: Int?, _ message: String) {
        self.file = file.printable; self.line = line; self.message = Self.cut(message.printable)
        reason = .verbatim(self.message)
    }

    /// A problem worded for translation: what it quotes from the file (its arguments) made printable and cut
    /// as above.
    public init(file: String, line: Int?, _ reason: UIMessage) {
        let safe = reason.mappingArguments { Self.cut($0.printable) }
        self.file = file.printable; self.line = line; self.reason = safe; message = Self.cut(safe.english)
    }

    /// `file:line: reason` in the language of `catalog`'s messages (the place is the same in every language).
    public var shown: UIMessage {
        .together([.verbatim(line.map { "\(file):\($0):" } ?? "\(file):"), reason], separator: " ")
    }

    /// `message` with each run of more than 200 characters without a space cut to its first 120 and last 20
    /// characters and its length, and the whole cut in the middle past 2,000 characters. Messages quote what
    /// the file says; what they say themselves (lists of known names) is words and commas.
    static func cut(_ message: String) -> String {
        guard message.utf8.count > 200 else { return message }
        var out = "", run = ""
        func flush() {
            let n = run.count
            out += n > 200 ? "\(run.prefix(120))…\(run.suffix(20)) (\(n) characters)" : run
            run = ""
        }
        for c in message {
            if c == " " { flush(); out.append(c) } else { run.append(c) }
        }
        flush()
        guard out.count > 2000 else { return out }
        return "\(out.prefix(1500))… (\(out.count - 1800) characters left out) …\(out.suffix(300))"
    }

    /// `file:line: message`, the shape editors and terminals can jump to.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// A parsed TOML value as plain Swift values; integers are numbers, dates and times keep their text.
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

    /// What kind of value it is, in words for translation ("a string").
    var kindMessage: UIMessage {
        switch self {
        case .string: UIMessage("a string")
        case .number: UIMessage("a number")
        case .bool: UIMessage("true or false")
        case .array: UIMessage("an array")
        case .table: UIMessage("a table")
        }
    }

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
    private let lines: KeyLines
    /// Values replaced from the command line (`--set KEY=VALUE`), by key path: errors about them name the
    /// `--set`, since the file's line no longer holds the value.
    public var overrides: [[String]: String] = [:]

    /// Parses TOML text; a syntax error is reported with its line.
    public init(text: String, file: String) throws(ConfigError) {
        self.file = file
        var parser = TOMLParser(text: text, file: file)
        root = try parser.parse()
        lines = parser.lines
    }

    /// The line on which `path` (e.g. `["gesture", "activate", "press"]`) was written, or its table's line.
    public func line(_ path: [String]) -> Int? { lines.line(path) }

    /// An error about the key at `path`.
    public func error(_ path: [String], _ message: String) -> ConfigError {
        if let o = overrides[path] { return ConfigError(file: "--set \(o)", line: nil, message) }
        return ConfigError(file: file, line: line(path), message)
    }

    /// An error about the key at `path`, worded for translation.
    public func error(_ path: [String], _ reason: UIMessage) -> ConfigError {
        if let o = overrides[path] { return ConfigError(file: "--set \(o)", line: nil, reason) }
        return ConfigError(file: file, line: line(path), reason)
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

/// Where each key path of a TOML file was first written, as a tree of key parts.
///
/// A tree, not a dictionary keyed by joined paths, so that noting an n-part key costs n lookups of one part:
/// joining every prefix built and hashed n²/2 parts, which made a deep dotted key or table name quadratic.
struct KeyLines: Sendable {
    private struct Node: Sendable {
        var line: Int
        var children: [String: Int] = [:]
    }

    /// The node above every first key part; it has no line of its own.
    static let root = 0
    /// Children are indices into this array, so a node is changed in place rather than copied with its subtree.
    private var nodes = [Node(line: 0)]

    /// The node for `part` under `node`, made with `line` if the part was not written there before (the first
    /// place a key or table is written is the one an error should name).
    mutating func child(_ part: String, of node: Int, line: Int) -> Int {
        if let c = nodes[node].children[part] { return c }
        nodes.append(Node(line: line))
        nodes[node].children[part] = nodes.count - 1
        return nodes.count - 1
    }

    /// The line of the longest prefix of `path` that was written, or nil if its first part was not.
    func line(_ path: [String]) -> Int? {
        var node = Self.root
        var line: Int?
        for part in path {
            guard let c = nodes[node].children[part] else { break }
            node = c
            line = nodes[c].line
        }
        return line
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
