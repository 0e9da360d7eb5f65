/// Which plural form a number takes in a language: the `Plural-Forms:` header of its catalog
/// (`nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);`), evaluated
/// as GNU gettext does, so a language's rule is data, not code.
///
/// The expression is C's: `n`, unsigned integers, `! * / % + - < > <= >= == != && || ?:` and parentheses,
/// with C's precedence; arithmetic is on unsigned 64-bit numbers as in gettext (`n` is the count, a
/// division by zero gives 0).
public struct PluralRule: Sendable, Equatable, CustomStringConvertible {
    /// How many forms the language has (`nplurals`).
    public let count: Int
    let expression: Expr
    /// The expression as written in the header, for messages.
    public let source: String

    /// English's (and the rule of a catalog without the header): one form for 1, another for the rest.
    public static let english = PluralRule(count: 2, expression: .binary(.ne, .n, .number(1)), source: "n != 1")

    init(count: Int, expression: Expr, source: String) {
        self.count = count; self.expression = expression; self.source = source
    }

    /// The rule of a `Plural-Forms:` header value; throws with the reason when it cannot be read.
    public init(header value: String) throws(PluralRuleError) {
        var count: Int?
        var plural: String?
        for part in value.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let key = kv[0].trimmingCharacters(" \t\n")
            let v = kv[1].trimmingCharacters(" \t\n")
            if key == "nplurals" {
                guard let c = Int(v), (1...16).contains(c) else { throw PluralRuleError("nplurals must be a number 1…16, not \"\(v)\"") }
                count = c
            } else if key == "plural" {
                plural = v
            }
        }
        guard let count else { throw PluralRuleError("no nplurals=") }
        guard let plural else { throw PluralRuleError("no plural=") }
        self.init(count: count, expression: try Expr.parse(plural), source: plural)
    }

    /// The form index for `n` (0 ..< count); an expression that gives a number past the last form gives 0,
    /// as gettext falls back to the first.
    public func form(_ n: Int) -> Int {
        let v = expression.evaluate(UInt64(clamping: max(0, n)))
        return v < UInt64(count) ? Int(v) : 0
    }

    public var description: String { "nplurals=\(count); plural=\(source);" }
}

/// Why a `Plural-Forms:` header could not be read.
public struct PluralRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// A plural expression's syntax tree.
indirect enum Expr: Sendable, Equatable {
    case n
    case number(UInt64)
    case not(Expr)
    case binary(Op, Expr, Expr)
    case conditional(Expr, Expr, Expr)

    enum Op: String, Sendable, Equatable {
        case mul = "*", div = "/", mod = "%", add = "+", sub = "-"
        case lt = "<", gt = ">", le = "<=", ge = ">=", eq = "==", ne = "!="
        case and = "&&", or = "||"
    }

    func evaluate(_ n: UInt64) -> UInt64 {
        switch self {
        case .n: return n
        case .number(let v): return v
        case .not(let e): return e.evaluate(n) == 0 ? 1 : 0
        case .conditional(let c, let a, let b): return c.evaluate(n) != 0 ? a.evaluate(n) : b.evaluate(n)
        case .binary(let op, let l, let r):
            // && and || do not evaluate their right side when the left decides, as in C.
            if op == .and { return l.evaluate(n) != 0 && r.evaluate(n) != 0 ? 1 : 0 }
            if op == .or { return l.evaluate(n) != 0 || r.evaluate(n) != 0 ? 1 : 0 }
            let a = l.evaluate(n), b = r.evaluate(n)
            switch op {
            case .mul: return a &* b
            case .div: return b == 0 ? 0 : a / b
            case .mod: return b == 0 ? 0 : a % b
            case .add: return a &+ b
            case .sub: return a &- b
            case .lt: return a < b ? 1 : 0
            case .gt: return a > b ? 1 : 0
            case .le: return a <= b ? 1 : 0
            case .ge: return a >= b ? 1 : 0
            case .eq: return a == b ? 1 : 0
            case .ne: return a != b ? 1 : 0
            case .and, .or: return 0
            }
        }
    }

    /// Parses a whole expression (a trailing `;` is allowed); throws naming what was found where.
    static func parse(_ text: String) throws(PluralRuleError) -> Expr {
        var p = Parser(Array(text.utf8))
        let e = try p.conditional(depth: 0)
        p.skipSpace()
        if p.peek == UInt8(ascii: ";") { p.i += 1; p.skipSpace() }
        guard p.i == p.bytes.count else { throw p.error("unexpected") }
        return e
    }

    /// Recursive descent over C's precedence levels, from ?: down to the primary expressions.
    struct Parser {
        let bytes: [UInt8]
        var i = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// Deep enough for any real rule (Arabic's nests five conditionals), and a bound on the recursion for
        /// a hostile header.
        static let maxDepth = 64

        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpace() {
            while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 }
        }

        func error(_ what: String) -> PluralRuleError {
            let rest = String(decoding: bytes[min(i, bytes.count)...].prefix(12), as: UTF8.self)
            return PluralRuleError(rest.isEmpty ? "plural expression ends too soon" : "\(what) \"\(rest)\" at column \(i + 1) of the plural expression")
        }

        /// Takes `token` if it comes next (after spaces), and not as the start of a longer operator.
        mutating func take(_ token: String, unless longer: String? = nil) -> Bool {
            skipSpace()
            let t = Array(token.utf8)
            guard i + t.count <= bytes.count, Array(bytes[i..<i + t.count]) == t else { return false }
            if let longer, i + longer.utf8.count <= bytes.count, Array(bytes[i..<i + longer.utf8.count]) == Array(longer.utf8) { return false }
            i += t.count
            return true
        }

        mutating func conditional(depth: Int) throws(PluralRuleError) -> Expr {
            guard depth < Self.maxDepth else { throw PluralRuleError("plural expression nested too deeply") }
            let c = try binary(level: 0, depth: depth)
            guard take("?") else { return c }
            let a = try conditional(depth: depth + 1)
            guard take(":") else { throw error("expected \":\" before") }
            let b = try conditional(depth: depth + 1)
            return .conditional(c, a, b)
        }

        /// The binary operators, loosest first; each level is left-associative.
        static let levels: [[(String, Op, String?)]] = [
            [("||", .or, nil)],
            [("&&", .and, nil)],
            [("==", .eq, nil), ("!=", .ne, nil)],
            [("<=", .le, nil), (">=", .ge, nil), ("<", .lt, "<="), (">", .gt, ">=")],
            [("+", .add, nil), ("-", .sub, nil)],
            [("*", .mul, nil), ("/", .div, nil), ("%", .mod, nil)],
        ]

        mutating func binary(level: Int, depth: Int) throws(PluralRuleError) -> Expr {
            guard level < Self.levels.count else { return try unary(depth: depth) }
            var left = try binary(level: level + 1, depth: depth)
            outer: while true {
                for (token, op, longer) in Self.levels[level] where take(token, unless: longer) {
                    left = .binary(op, left, try binary(level: level + 1, depth: depth))
                    continue outer
                }
                return left
            }
        }

        mutating func unary(depth: Int) throws(PluralRuleError) -> Expr {
            guard depth < Self.maxDepth else { throw PluralRuleError("plural expression nested too deeply") }
            if take("!", unless: "!=") { return .not(try unary(depth: depth + 1)) }
            skipSpace()
            if take("(") {
                let e = try conditional(depth: depth + 1)
                guard take(")") else { throw error("expected \")\" before") }
                return e
            }
            if peek == UInt8(ascii: "n") {
                i += 1
                return .n
            }
            var v: UInt64 = 0
            var digits = 0
            while let c = peek, c >= 0x30, c <= 0x39 {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(UInt64(c - 0x30))
                guard !o1, !o2 else { throw PluralRuleError("a number too large in the plural expression") }
                v = s; digits += 1; i += 1
            }
            guard digits > 0 else { throw error("expected n, a number or \"(\" at") }
            return .number(v)
        }
    }
}

extension Substring {
    func trimmingCharacters(_ set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
