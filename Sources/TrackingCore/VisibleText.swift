/// Text from untrusted input made safe to print: control characters are shown as escapes.
///
/// A message that quotes input (a datagram, a file line, a config value) would otherwise pass the
/// input's escape sequences to the terminal, which can move the cursor, hide text or set the window title.
/// C0 controls, DEL and C1 controls (U+0080…U+009F, which some terminals read as ESC + letter) become
/// `\n`, `\t`, `\r`, `\e` or `\u{XX}`; a backslash stays a backslash.
public enum VisibleText {
    /// `s` with every control character written as an escape.
    public static func escaping(_ s: some StringProtocol) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return String(s) }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for u in s.unicodeScalars {
            guard isControl(u) else { out.unicodeScalars.append(u); continue }
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            default: out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// True for C0 controls, DEL and C1 controls.
    public static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F)
    }
}

extension String {
    /// This text with control characters shown as escapes (see `VisibleText`).
    public var visible: String { VisibleText.escaping(self) }
}
