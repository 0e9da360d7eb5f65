/// Numbers as a language writes them: the decimal separator of the UI language ("2,0" in German, "2.0" in
/// English), from the catalog (`msgctxt "decimal separator"`), so a language added as data brings its own.
///
/// Made with integer arithmetic, not `String(format:)` or a `NumberFormatter`: neither the process's C locale
/// (`LC_NUMERIC`) nor Foundation's current locale changes what is shown; only the UI language does.
public enum NumberText {
    /// The largest magnitude shown with decimals: past it a Double has no fraction left to show.
    static let exactLimit = 9_007_199_254_740_992.0

    /// `v` with exactly `digits` decimals (0–9), rounded half away from zero, with `point` between the whole
    /// and the fraction; "−" is written as "-". Not finite: "—" (a number that could not be computed).
    public static func fixed(_ v: Double, digits: Int, point: String) -> String {
        guard v.isFinite else { return "—" }
        let digits = max(0, min(9, digits))
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (abs(v) * scale).rounded()
        guard r < exactLimit else { return (v < 0 ? "-" : "") + whole(abs(v).rounded()) }
        let units = Int64(r), s = Int64(scale)
        var text = (v < 0 && r > 0 ? "-" : "") + String(units / s)
        if digits > 0 {
            let f = String(units % s)
            text += point + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }

    /// `v` with at most `digits` decimals and no trailing zeros ("0,3", "1", "0,15").
    public static func trimmed(_ v: Double, digits: Int, point: String) -> String {
        var text = fixed(v, digits: digits, point: point)
        guard digits > 0, v.isFinite, abs(v) < exactLimit else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(point) { text.removeLast(point.count) }
        return text
    }

    /// The digits of a whole number too large for `Int64` decimals (shown without separators).
    private static func whole(_ v: Double) -> String {
        v < 9.2e18 ? String(Int64(v)) : "\(v)"
    }
}

extension Catalog {
    /// The decimal separator of the catalog's language ("," in German), "." in English.
    public var decimalSeparator: String { tr(".", context: "decimal separator") }

    /// `v` with exactly `digits` decimals in the catalog's language: "2,0" in German for 2.
    public func decimal(_ v: Double, digits: Int) -> String {
        NumberText.fixed(v, digits: digits, point: decimalSeparator)
    }

    /// `v` with at most `digits` decimals and no trailing zeros in the catalog's language: "0,3", "1".
    public func number(_ v: Double, digits: Int) -> String {
        NumberText.trimmed(v, digits: digits, point: decimalSeparator)
    }
}
