/// One entry of a GNU gettext catalog, as a `.po` file writes it or a `.mo` file holds it.
public struct CatalogEntry: Sendable, Equatable {
    /// `msgctxt`: tells apart two uses of the same English text (nil: none).
    public var context: String?
    public var msgid: String
    /// `msgid_plural`: the English plural; nil for a message without plural forms.
    public var msgidPlural: String?
    /// `msgstr`, or `msgstr[0]`, `msgstr[1]`… for plural forms; empty strings are untranslated.
    public var translations: [String]
    /// Flags of the `#,` comment (`fuzzy`, `python-brace-format`).
    public var flags: [String]
    /// The line of its `msgid` keyword (a `.po` file), for messages; nil in a `.mo` file.
    public var line: Int?
    /// The line of each `msgstr` keyword (a `.po` file), where a problem with that translation is named.
    public var translationLines: [Int]

    public init(context: String? = nil, msgid: String, msgidPlural: String? = nil, translations: [String],
                flags: [String] = [], line: Int? = nil, translationLines: [Int] = []) {
        self.context = context; self.msgid = msgid; self.msgidPlural = msgidPlural
        self.translations = translations; self.flags = flags; self.line = line; self.translationLines = translationLines
    }

    /// The header: the entry with an empty msgid and no context, holding `Plural-Forms:` and the charset.
    public var isHeader: Bool { msgid.isEmpty && context == nil }
    public var isFuzzy: Bool { flags.contains("fuzzy") }
}

/// A problem with one place of a catalog file: `file:line: message` (or `file: message` for a `.mo` file).
public struct CatalogProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    public init(file: String, line: Int?, message: String) { self.file = file; self.line = line; self.message = message }
    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

/// A `.po` file read: its entries (obsolete `#~` ones left out) and what could not be read, by line.
///
/// The format of GNU gettext's PO files: `#` comments (`#,` flags kept, the others skipped), the keywords
/// `msgctxt`, `msgid`, `msgid_plural`, `msgstr` and `msgstr[N]`, each followed by one or more C string
/// literals on their own lines that join into one string (escapes `\n \t \r \" \\ \a \b \f \v \? \'`,
/// octal `\NNN` and hex `\xHH` bytes). A line that cannot be read is named, and the entry it belongs to is
/// dropped; the rest of the file is read.
public struct POFile: Sendable {
    public var entries: [CatalogEntry]
    public var problems: [CatalogProblem]

    /// Reads `text`, naming `file` in problems.
    public static func parse(_ text: String, file: String) -> POFile {
        var p = POParser(file: file)
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            p.line(raw.hasSuffix("\r") ? raw.dropLast() : raw, number: lineNumber)
        }
        p.finish()
        return POFile(entries: p.entries, problems: p.problems)
    }

    /// Reads the bytes of a `.po` file, which must be UTF-8 (the charset every catalog of this project
    /// declares); a file that is not is refused whole, naming the first line that is not.
    public static func parse(bytes: [UInt8], file: String) -> POFile {
        if let text = String(validating: bytes, as: UTF8.self) { return parse(text, file: file) }
        var line = 1
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            if String(validating: bytes[start..<i], as: UTF8.self) == nil { break }
            line += 1
            start = i + 1
        }
        return POFile(entries: [], problems: [CatalogProblem(file: file, line: line, message: "not UTF-8 text; the catalog is not used")])
    }
}

/// The line-by-line reader behind `POFile.parse`.
struct POParser {
    let file: String
    var entries: [CatalogEntry] = []
    var problems: [CatalogProblem] = []

    /// The entry being read.
    var context: String?
    var msgid: String?
    var msgidPlural: String?
    var msgstr: [Int: String] = [:]
    var msgstrLines: [Int: Int] = [:]
    var flags: [String] = []
    var msgidLine: Int?
    /// The field that a string line continues.
    enum Field { case context, msgid, msgidPlural, msgstr(Int) }
    var field: Field?
    /// The entry had a line that could not be read: it is dropped.
    var broken = false
    /// The entry is obsolete (`#~`): skipped.
    var obsolete = false

    init(file: String) { self.file = file }

    mutating func problem(_ line: Int, _ message: String) {
        problems.append(CatalogProblem(file: file, line: line, message: message))
    }

    /// Ends the entry read so far, keeping it if it is whole.
    mutating func flush() {
        defer {
            context = nil; msgid = nil; msgidPlural = nil; msgstr = [:]; msgstrLines = [:]; flags = []; msgidLine = nil
            field = nil; broken = false; obsolete = false
        }
        guard !broken, !obsolete, let msgid else {
            if !broken, !obsolete, (context != nil || !msgstr.isEmpty), let l = msgidLine {
                problem(l, "an entry without msgid")
            }
            return
        }
        let count = (msgstr.keys.max() ?? -1) + 1
        guard count > 0 else {
            problem(msgidLine ?? 0, "msgid without msgstr")
            return
        }
        guard msgstr.count == count else {
            problem(msgidLine ?? 0, "msgstr[N] forms are not numbered 0, 1, 2… without a gap")
            return
        }
        if msgidPlural == nil && count > 1 {
            problem(msgidLine ?? 0, "msgstr[N] forms without msgid_plural")
            return
        }
        entries.append(CatalogEntry(context: context, msgid: msgid, msgidPlural: msgidPlural,
                                    translations: (0..<count).map { msgstr[$0] ?? "" }, flags: flags, line: msgidLine,
                                    translationLines: (0..<count).map { msgstrLines[$0] ?? msgidLine ?? 0 }))
    }

    /// Whether a keyword starts a new entry rather than continuing this one.
    func startsEntry(_ keyword: Field) -> Bool {
        switch keyword {
        case .context: return msgid != nil || context != nil
        case .msgid: return msgid != nil
        default: return false
        }
    }

    mutating func line(_ l: Substring, number: Int) {
        var s = l.drop { $0 == " " || $0 == "\t" }
        if s.isEmpty { if msgid != nil || context != nil || broken { flush() }; return }
        if s.hasPrefix("#~") {
            // An obsolete entry: its lines are skipped, and it ends the entry before it.
            if msgid != nil && !obsolete { flush() }
            obsolete = true
            return
        }
        if s.hasPrefix("#") {
            // A comment after an entry's strings begins the next entry.
            if msgid != nil, !msgstr.isEmpty { flush() }
            if s.hasPrefix("#,") {
                flags += s.dropFirst(2).split(separator: ",").map { String($0.drop { $0 == " " }).trimmingTrailingSpaces }
                    .filter { !$0.isEmpty }
            }
            return
        }
        if obsolete { flush() }
        if s.first == "\"" {
            guard let f = field else {
                problem(number, "a string that continues no keyword")
                broken = true
                return
            }
            guard let text = parseString(s, line: number) else { broken = true; return }
            append(text, to: f)
            return
        }
        let word = s.prefix { $0 != " " && $0 != "\t" && $0 != "\"" }
        s = s.dropFirst(word.count).drop { $0 == " " || $0 == "\t" }
        let keyword: Field
        switch word {
        case "msgctxt": keyword = .context
        case "msgid": keyword = .msgid
        case "msgid_plural": keyword = .msgidPlural
        case "msgstr": keyword = .msgstr(0)
        default:
            if word.hasPrefix("msgstr["), word.hasSuffix("]"), let n = Int(word.dropFirst(7).dropLast()), (0..<16).contains(n) {
                keyword = .msgstr(n)
            } else {
                problem(number, "unknown keyword \"\(word.prefix(20))\"")
                broken = true
                field = nil
                return
            }
        }
        if startsEntry(keyword) || (!msgstr.isEmpty && !isMsgstr(keyword)) { flush() }
        if case .msgid = keyword { msgidLine = number }
        if case .context = keyword { msgidLine = msgidLine ?? number }
        guard s.first == "\"", let text = parseString(s, line: number) else {
            if s.first != "\"" { problem(number, "\(word) needs a string in double quotes") }
            broken = true
            field = nil
            return
        }
        field = keyword
        set(text, keyword, line: number)
    }

    func isMsgstr(_ f: Field) -> Bool { if case .msgstr = f { true } else { false } }

    mutating func set(_ text: String, _ f: Field, line: Int) {
        switch f {
        case .context: context = text
        case .msgid: msgid = text
        case .msgidPlural: msgidPlural = text
        case .msgstr(let n):
            if msgstr[n] != nil { problem(line, "msgstr[\(n)] given twice"); broken = true }
            msgstr[n] = text
            msgstrLines[n] = line
        }
    }

    mutating func append(_ text: String, to f: Field) {
        switch f {
        case .context: context = (context ?? "") + text
        case .msgid: msgid = (msgid ?? "") + text
        case .msgidPlural: msgidPlural = (msgidPlural ?? "") + text
        case .msgstr(let n): msgstr[n] = (msgstr[n] ?? "") + text
        }
    }

    mutating func finish() { flush() }

    /// A C string literal that fills the rest of the line (a `#` comment may not follow it); nil, with the
    /// problem named, when it cannot be read.
    mutating func parseString(_ s: Substring, line: Int) -> String? {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 1
        var closed = false
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "\"") { closed = true; i += 1; break }
            guard c == UInt8(ascii: "\\") else { bytes.append(c); i += 1; continue }
            i += 1
            guard i < u.count else { break }
            let e = u[i]
            i += 1
            switch e {
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "a"): bytes.append(0x07)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "v"): bytes.append(0x0B)
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "?"): bytes.append(e)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = Int(e - 0x30)
                var k = 1
                while k < 3, i < u.count, (0x30...0x37).contains(u[i]) { v = v * 8 + Int(u[i] - 0x30); i += 1; k += 1 }
                guard v <= 255 else { problem(line, "octal escape past \\377"); return nil }
                bytes.append(UInt8(v))
            case UInt8(ascii: "x"):
                var v = 0
                var k = 0
                while i < u.count, let d = hexDigit(u[i]) { v = v * 16 + d; i += 1; k += 1; if v > 255 { break } }
                guard k > 0, v <= 255 else { problem(line, "\\x needs one or two hex digits"); return nil }
                bytes.append(UInt8(v))
            default:
                problem(line, "unknown escape \\\(Character(Unicode.Scalar(e)))")
                return nil
            }
        }
        guard closed else { problem(line, "a string without its closing quote"); return nil }
        let rest = u[i...].drop { $0 == 0x20 || $0 == 0x09 }
        guard rest.isEmpty else { problem(line, "text after the closing quote"); return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            problem(line, "an escape that makes the string other than UTF-8")
            return nil
        }
        return text
    }

    func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case 0x30...0x39: Int(c - 0x30)
        case 0x41...0x46: Int(c - 0x41 + 10)
        case 0x61...0x66: Int(c - 0x61 + 10)
        default: nil
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = self[...]
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
