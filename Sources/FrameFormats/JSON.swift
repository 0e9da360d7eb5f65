/// A small JSON value, enough for frames and events; parsed without Foundation so errors carry a column.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var double: Double? { if case .number(let d) = self { return d }; return nil }
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
}

/// A JSON syntax error at a byte offset (0-based) of the input.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "column \(offset + 1): \(message)" }
}

/// Parses one JSON document from bytes.
public struct JSONParser {
    private let b: [UInt8]
    private var i: Int
    private let end: Int
    private var depth = 0
    private static let maxDepth = 64

    public static func parse<C: Collection<UInt8>>(_ bytes: C) throws(JSONSyntaxError) -> JSONValue {
        try parse(array: Array(bytes))
    }

    /// The non-generic body, so parsing is specialised for arrays.
    static func parse(array: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var p = JSONParser(array)
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        guard p.i == p.end else { throw p.error("unexpected text after the value") }
        return v
    }

    private init(_ bytes: [UInt8]) { b = bytes; i = 0; end = bytes.count }

    private func error(_ m: String) -> JSONSyntaxError { JSONSyntaxError(offset: i, message: m) }

    private mutating func skipSpace() {
        while i < end, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard i < end else { throw error("unexpected end of input") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character '\(Character(Unicode.Scalar(b[i])))'")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let w = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            guard i < end, b[i] == w[k] else { throw error("expected \(word)") }
            i += 1
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = i
        if b[i] == UInt8(ascii: "-") { i += 1 }
        while i < end, (b[i] >= 0x30 && b[i] <= 0x39) || b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e")
                || b[i] == UInt8(ascii: "E") || b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        guard let d = FastFloat.parse(b, start, i) else {
            i = start
            throw error("malformed number")
        }
        return d
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        // Fast path: most strings (keys, names) have no escapes.
        var j = i
        while j < end, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\"), b[j] >= 0x20 { j += 1 }
        if j < end, b[j] == UInt8(ascii: "\"") {
            let s = String(decoding: b[i..<j], as: UTF8.self)
            i = j + 1
            return s
        }
        var out: [UInt8] = []
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw error("control character in string") }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < end else { break }
                switch b[i] {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard i + 4 < end, let code = UInt32(String(decoding: b[(i + 1)...(i + 4)], as: UTF8.self), radix: 16)
                    else { throw error("bad \\u escape") }
                    i += 4
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(b[i])
                }
                i += 1
                continue
            }
            out.append(c)
            i += 1
        }
        throw error("unterminated string")
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested too deeply") }
        defer { depth -= 1 }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < end, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < end else { throw error("unterminated array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested too deeply") }
        defer { depth -= 1 }
        i += 1
        var members: [(String, JSONValue)] = []
        skipSpace()
        if i < end, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard i < end, b[i] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let k = try string()
            skipSpace()
            guard i < end, b[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipSpace()
            members.append((k, try value()))
            skipSpace()
            guard i < end else { throw error("unterminated object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }
}

/// Fast decimal parsing of ASCII bytes, falling back to the C library for unusual spellings.
enum FastFloat {
    private static let pow10: [Double] = (0...22).map { k in
        var p = 1.0
        for _ in 0..<k { p *= 10 }
        return p
    }

    /// Parses `b[start..<end]` as a decimal number; nil if it is not one.
    static func parse(_ b: [UInt8], _ start: Int, _ end: Int) -> Double? {
        b.withUnsafeBufferPointer { parse($0, start, end) }
    }

    /// Parses `b[start..<end]` as a decimal number; nil if it is not one.
    @inline(__always)
    static func parse(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        if let d = exact(b, start, end) { return d }
        return slow(b, start, end)
    }

    /// The value of a decimal (`-12.345`, `1.5e-05`) whose digits fit a Double's 53-bit significand exactly
    /// and whose power of ten is at most 22 either way, or of up to nineteen digits and nineteen decimals;
    /// nil for anything else, which `slow` then reads.
    ///
    /// Both the significand and the power of ten are exact Doubles, so one division or multiplication rounds
    /// correctly: the same Double as the C library's correctly rounded conversion (Clinger's fast path).
    /// Longer digits are divided in integers by `quotient`.
    @inline(__always)
    static func exact(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        guard i < end else { return nil }
        var negative = false
        if b[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if b[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fracDigits = 0
        var sawDot = false
        var sawDigit = false
        var exponent = 0
        while i < end {
            let c = b[i]
            if c &- 0x30 < 10 {
                sawDigit = true
                // 19 digits always fit in 64 bits; more are left to the C library.
                guard digits < 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                if mantissa != 0 { digits += 1 }
                if sawDot { fracDigits += 1 }
                i += 1
            } else if c == UInt8(ascii: "."), !sawDot {
                sawDot = true; i += 1
            } else if c | 0x20 == UInt8(ascii: "e"), sawDigit {
                // An exponent of one to three digits ends the number.
                i += 1
                var negativeExponent = false
                if i < end, b[i] == UInt8(ascii: "-") { negativeExponent = true; i += 1 } else if i < end, b[i] == UInt8(ascii: "+") { i += 1 }
                guard i < end, end - i <= 3 else { return nil }
                while i < end {
                    let d = b[i] &- 0x30
                    guard d < 10 else { return nil }
                    exponent = exponent * 10 + Int(d)
                    i += 1
                }
                if negativeExponent { exponent = -exponent }
            } else {
                return nil
            }
        }
        guard sawDigit else { return nil }
        let power = exponent - fracDigits
        if mantissa > 1 << 53 {
            // Seventeen to nineteen digits, as a Double's shortest description often has (timestamps, angles).
            guard power <= 0, let v = quotient(mantissa, -power) else { return nil }
            return negative ? -v : v
        }
        guard power > -pow10.count, power < pow10.count else { return nil }
        let v = power < 0 ? Double(mantissa) / pow10[-power] : Double(mantissa) * pow10[power]
        return negative ? -v : v
    }

    /// 10^k for k in 0…19, as integers.
    private static let integerPowers: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { p, _ in p * 10 } }

    /// The correctly rounded Double of `m / 10^frac` (ties to even), by one 128-by-64-bit division; nil when
    /// `m` is 0, the quotient is 2^54 or over, or `frac` is over 19, which `slow` then reads.
    ///
    /// The division gives the quotient's top 55 bits and whether anything is left over: the 53 kept, the
    /// rounding bit and the sticky bits beneath it, which is all that rounding needs. The dividend m·2^s is
    /// below d·2^55 and so fits 128 bits whatever the quotient's size.
    static func quotient(_ m: UInt64, _ frac: Int) -> Double? {
        guard m > 0, frac >= 0, frac < integerPowers.count else { return nil }
        let d = integerPowers.withUnsafeBufferPointer { $0[frac] }
        // m / d lies in (2^(l-1), 2^(l+1)), so m·2^s / d lies in (2^53, 2^55).
        let l = d.leadingZeroBitCount - m.leadingZeroBitCount
        var s = 54 - l
        guard s >= 0 else { return nil }
        let high = s == 0 ? 0 : s < 64 ? m >> UInt64(64 - s) : m << UInt64(s - 64)
        let low = s < 64 ? m << UInt64(s) : 0
        var (q, r) = d.dividingFullWidth((high, low))
        if q < 1 << 54 {
            // One more bit of the quotient.
            let (twice, carry) = r.addingReportingOverflow(r)
            let bit = carry || twice >= d
            q = q << 1 | (bit ? 1 : 0)
            r = bit ? twice &- d : twice
            s += 1
        }
        var significand = q >> 2
        let below = q & 3
        if below > 2 || (below == 2 && (r != 0 || significand & 1 == 1)) { significand += 1 }
        // significand · 2^(2 − s), both factors exact and the product a normal Double (the quotient lies
        // between 10^-19 and 2^64), so exact too. `Double(sign:exponent:significand:)` was a call into the
        // standard library that cost a third as much as the division.
        let scale = Double(bitPattern: UInt64(truncatingIfNeeded: 1023 + 2 - s) << 52)
        return Double(significand) * scale
    }

    static func slow(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
        return Double(s)
    }
}

/// The digits of a plain decimal read eight at a time, shared by the NDJSON and CSV fast paths.
enum PlainDecimal {
    /// Reads digits and at most one dot from `j`, moving `j` to the first other byte: the digits as one
    /// integer (wrapped past 19 digits, so check `count`), how many digits, and how many after the dot.
    ///
    /// Each run of digits is read eight at a time while eight are there, then one at a time; a word is tried
    /// again only after the dot. Tried at every byte, as it was, a word that failed (`60951.64`, a timestamp's
    /// whole seconds) was loaded and tested again at each of the next bytes.
    @inline(__always)
    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ j: inout Int) -> (mantissa: UInt64, count: Int, frac: Int) {
        let n = b.count
        var m: UInt64 = 0, count = 0, frac = 0
        var dot = false
        guard let base = b.baseAddress else { return (0, 0, 0) }
        let raw = UnsafeRawPointer(base)
        while true {
            let first = count
            while n &- j >= 8 {
                let v = raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                guard isEightDigits(v) else { break }
                m = m &* 100_000_000 &+ eightDigits(v)
                count &+= 8
                j &+= 8
            }
            while j < n {
                let d = b[j] &- 0x30
                guard d < 10 else { break }
                m = m &* 10 &+ UInt64(d)
                count &+= 1
                j &+= 1
            }
            if dot { frac &+= count &- first }
            guard j < n, b[j] == UInt8(ascii: "."), !dot else { break }
            dot = true
            j &+= 1
        }
        return (m, count, frac)
    }

    /// The value of `d.dddddddddd` (one digit, a dot, ten decimals: how the Live Link Face app writes every
    /// value) at `j`, ended by a comma or the end, moving `j` past it; nil, with `j` unmoved, for anything else.
    ///
    /// The same Double `digits` and `value` give for these bytes, read with two word loads instead of a loop
    /// over the bytes.
    @inline(__always)
    static func tenDecimals(_ b: UnsafeBufferPointer<UInt8>, _ j: inout Int, negative: Bool) -> Double? {
        let n = b.count
        guard n - j >= 12, let base = b.baseAddress else { return nil }
        let d0 = b[j] &- 0x30, d9 = b[j + 10] &- 0x30, d10 = b[j + 11] &- 0x30
        guard d0 < 10, b[j + 1] == UInt8(ascii: "."), d9 < 10, d10 < 10, n - j == 12 || b[j + 12] == UInt8(ascii: ",") else {
            return nil
        }
        let v = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: j + 2, as: UInt64.self))
        guard isEightDigits(v) else { return nil }
        let m = UInt64(d0) &* 10_000_000_000 &+ eightDigits(v) &* 100 &+ UInt64(d9) &* 10 &+ UInt64(d10)
        j += 12
        let x = Double(m) / 1e10
        return negative ? -x : x
    }

    /// The value of `0.` and one to sixteen decimals at `j` (what a Float's description writes for most
    /// blend values), moving `j` past it; nil, with `j` unmoved, when the bytes are anything else, more digits
    /// follow, or the decimals do not fit a significand. The same Double `digits` and `value` give.
    @inline(__always)
    static func zeroPoint(_ b: UnsafeBufferPointer<UInt8>, _ j: inout Int, negative: Bool) -> Double? {
        guard b.count &- j >= 19, let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        // "0." as one 16-bit word.
        guard UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt16.self)) == 0x2E30,
              let (x, k) = decimals(raw + (j &+ 2)) else { return nil }
        j &+= 2 &+ k
        return negative ? -x : x
    }

    /// The value of the one to sixteen decimals after a `0.` at `p`, and how many there are; nil when there
    /// are none, more digits follow, the decimals do not fit a significand, or an exponent, sign or second
    /// dot follows. Reads seventeen bytes from `p`.
    ///
    /// Two word loads and no branch on how many decimals there are: the count varies from value to value
    /// (7 to 12 for Float descriptions), so a branch on it is mispredicted often. The decimals are read as
    /// sixteen, the missing ones as zeros, and divided by 10^16: that integer is exact in a Double (below
    /// 2^53, or even), so the one division rounds as dividing the decimals by their own power of ten does,
    /// without looking that power up or scaling by it.
    @inline(__always)
    static func decimals(_ p: UnsafeRawPointer) -> (Double, Int)? {
        let v1 = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        let v2 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let k1 = leadingDigits(v1), k2 = leadingDigits(v2)
        // The second word counts only when the first is all digits: chosen with a mask, since the compiler
        // made a branch of `k1 == 8 ? … : …`, and whether a value has eight decimals or fewer changes from
        // value to value.
        let all = 0 &- UInt64(truncatingIfNeeded: k1 >> 3)
        let k = k1 &+ (k2 & Int(truncatingIfNeeded: all))
        let scaled = eightDigits(keepDigits(v1, k1)) &* 100_000_000 &+ (eightDigits(keepDigits(v2, k2)) & all)
        // An exponent, a sign, a second dot or a seventeenth digit after the decimals: leave the number to
        // the general reader. So is a sixteen-decimal number from 2^52 up, which `digits` does not read exactly.
        let after = p.load(fromByteOffset: k, as: UInt8.self)
        // A comma, which ends most values, is none of those bytes.
        guard k > 0, k < 16 || scaled < 1 << 52, after == UInt8(ascii: ",")
                || after &- 0x30 >= 10 && after != UInt8(ascii: ".") && after | 0x20 != UInt8(ascii: "e")
                    && after != UInt8(ascii: "+") && after != UInt8(ascii: "-") else { return nil }
        return (Double(Int64(bitPattern: scaled)) / 1e16, k)
    }

    /// The first `k` (0…8) bytes of `v` (little-endian, from the first), the others replaced by ASCII zeros,
    /// for `eightDigits`: the value of those `k` digits times 10^(8 − k).
    ///
    /// The mask's shift is made in two halves of at most 32 bits: a shift by 64 must give 0, which Swift's
    /// `<<` gives with a compare and a select, the masking `&<<` not at all.
    @inline(__always)
    static func keepDigits(_ v: UInt64, _ k: Int) -> UInt64 {
        let half = UInt64(truncatingIfNeeded: k * 4)
        let dropped = (UInt64.max &<< half) &<< half
        return v & ~dropped | 0x3030_3030_3030_3030 & dropped
    }

    /// `Double(m)` for `m` below 2^52, without the integer conversion instruction.
    ///
    /// `cvtsi2sd` writes only the low half of its register and so waits for the register's last value: here
    /// the last division, which chained every value of a line into one long dependency. Placing `m` in the
    /// significand of 2^52 and subtracting 2^52 is exact for these `m` and depends on nothing before.
    @inline(__always)
    static func exactDouble(_ m: UInt64) -> Double {
        Double(bitPattern: m | 0x4330_0000_0000_0000) - 4_503_599_627_370_496.0
    }

    /// How many of the eight bytes (little-endian, from the first) are ASCII digits before the first other
    /// byte.
    ///
    /// A byte is a digit when it is below 10 after `^ 0x30`; with its top bit set first, subtracting 10
    /// borrows from no other byte, so every byte is classified exactly, in five operations.
    @inline(__always)
    static func leadingDigits(_ v: UInt64) -> Int {
        let high: UInt64 = 0x8080_8080_8080_8080
        let x = v ^ 0x3030_3030_3030_3030
        // The top bit of each byte: set when x is 10 or more in its low seven bits, or has its top bit set.
        let other = (((x | high) &- 0x0A0A_0A0A_0A0A_0A0A) | x) & high
        return other.trailingZeroBitCount / 8
    }

    /// The correctly rounded Double for `mantissa / 10^frac` when `digits` gave it exactly; nil when
    /// `FastFloat.parse` must read the text instead. Equal to what `FastFloat.exact` gives.
    @inline(__always)
    static func value(_ r: (mantissa: UInt64, count: Int, frac: Int), negative: Bool) -> Double? {
        guard r.count > 0, r.count <= 19, r.frac <= 22 else { return nil }
        let v: Double
        if r.mantissa <= 1 << 53 {
            v = Double(r.mantissa) / pow10(r.frac)
        } else {
            guard let q = FastFloat.quotient(r.mantissa, r.frac) else { return nil }
            v = q
        }
        return negative ? -v : v
    }

    /// 10^k for k in 0…22, each exact.
    ///
    /// A table load, not a switch: a switch compiled to a jump per distinct count of decimals, which a
    /// mix of 8, 9 and 10 decimals mispredicts.
    private static let powers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                           1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    @inline(__always)
    static func pow10(_ k: Int) -> Double {
        powers.withUnsafeBufferPointer { $0[min(max(k, 0), 22)] }
    }

    /// True if all eight bytes (little-endian) are ASCII digits.
    @inline(__always)
    private static func isEightDigits(_ v: UInt64) -> Bool {
        ((v & 0xF0F0_F0F0_F0F0_F0F0) | (((v &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)) == 0x3333_3333_3333_3333
    }

    /// The value of eight ASCII digits loaded little-endian (first digit in the lowest byte).
    @inline(__always)
    static func eightDigits(_ v: UInt64) -> UInt64 {
        var x = v & 0x0F0F_0F0F_0F0F_0F0F
        x = (x &* 2561) >> 8
        x = ((x & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((x & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }
}
