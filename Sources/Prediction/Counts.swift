import Localization
/// The counts the user's files keep (times a word, a word pair or a phrase was used, numbers in a session's
/// record): read with a range check, and grown without overflow.
///
/// A count past `limit` in a file is a damaged line (its caller names it with file and line and keeps the
/// file aside); a count that grows stops at `limit`, so what is saved can always be read back. Sums of counts
/// (totals) add with `sum`, which stops at `Int.max` instead of trapping.
public enum Counts {
    /// The largest count a file may hold: a trillion uses is far beyond a lifetime's typing, and millions of
    /// such counts still sum without nearing `Int.max`.
    public static let limit = 1_000_000_000_000

    /// What a count field holds.
    public enum Parsed: Sendable, Equatable {
        case value(Int)
        /// Not a whole number ≥ 0 (a sign, a letter, a fraction, nothing).
        case notANumber
        /// Digits only, but more than `limit`.
        case outOfRange
    }

    /// Reads a count: ASCII digits only, 0…`limit`.
    public static func parse(_ s: some StringProtocol) -> Parsed {
        let u = s.utf8
        guard !u.isEmpty, u.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return .notANumber }
        // Leading zeros say nothing: "000…0042" is 42 however many there are.
        let digits = u.drop { $0 == UInt8(ascii: "0") }
        guard digits.count <= 13 else { return .outOfRange }
        var v = 0
        for d in digits { v = v * 10 + Int(d &- UInt8(ascii: "0")) }
        return v <= limit ? .value(v) : .outOfRange
    }

    /// Why `s` is not a count, for a message; nil when it is one. `what` names the field (`Counts.field`).
    public static func problem(_ s: some StringProtocol, what: UIMessage) -> UIMessage? {
        let values = ["value": Shown.cut(String(s)), "limit": "\(limit)"]
        switch parse(s) {
        case .value: return nil
        case .notANumber: return UIMessage("{field} '{value}' is not a whole number ≥ 0", values, reasons: ["field": what])
        case .outOfRange: return UIMessage("{field} {value} is out of range (at most {limit})", values, reasons: ["field": what])
        }
    }

    /// The names of the counted fields of the files, for `problem`.
    public enum Field {
        public static var count: UIMessage { UIMessage("count", context: "a field of a file") }
        public static var noteNumber: UIMessage { UIMessage("note number", context: "a field of a file") }
        public static var uses: UIMessage { UIMessage("uses", context: "a field of a file") }
    }

    /// `count + n` for a count that grows, stopping at `limit` (and at 0 going down).
    public static func adding(_ count: Int, _ n: Int) -> Int { min(limit, max(0, sum(count, n))) }

    /// `a + b`, stopping at `Int.max` or `Int.min` instead of trapping: for totals of counts.
    public static func sum(_ a: Int, _ b: Int) -> Int {
        let (r, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : r
    }
}

/// Text from a file or the command line as a message shows it: cut to a readable length.
public enum Shown {
    /// `s` when it is short; else its start, "…", its end and its length ("kkkk…kkk (1048376 characters)"),
    /// so a 50 MB word in a file is named, not printed.
    public static func cut(_ s: String, limit: Int = 60) -> String {
        // Counting characters of a huge string costs a pass; its UTF-8 length bounds them from above.
        guard s.utf8.count > limit, s.count > limit else { return s }
        return "\(s.prefix(limit * 2 / 3))…\(s.suffix(limit / 6)) (\(s.count) characters)"
    }
}
