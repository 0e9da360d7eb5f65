import Localization
import TerminalModel

/// The one rule every sink types text by: which characters stand for keys, which are refused.
///
/// A line end is one Enter whatever its form (LF, CR LF, a lone CR: a file from Windows gives one Enter per
/// line, not two); a tab is Tab and ESC is Escape; BS and DEL are both Backspace (DEL is what a terminal's
/// Backspace key sends, so it means the same key everywhere). Every other control character (C0, C1) has no
/// key on any sink: the whole text is refused before anything is sent, naming the character and its byte
/// offset. The pty, tmux, X11, Wayland and uinput sinks all type through `pieces`.
public enum TypedText {
    /// A run of characters typed as themselves, or one key some characters stand for; each with where it is
    /// in the text, so a sink that fails part way can name what was not sent.
    public enum Piece: Equatable {
        case text(Range<String.Index>)
        case key(TerminalKey, Range<String.Index>)

        /// Where the piece starts in the text.
        public var start: String.Index {
            switch self {
            case .text(let range), .key(_, let range): return range.lowerBound
            }
        }
    }

    /// The pieces of `text`, in order. Throws for a control character no key types.
    public static func pieces(_ text: String) throws(OutputSinkError) -> [Piece] {
        var pieces: [Piece] = []
        let scalars = text.unicodeScalars
        var runStart: String.Index?
        var i = scalars.startIndex
        while i < scalars.endIndex {
            let scalar = scalars[i]
            let next = scalars.index(after: i)
            var key: TerminalKey?
            var end = next
            switch scalar {
            case "\r":
                key = .enter
                if next < scalars.endIndex, scalars[next] == "\n" { end = scalars.index(after: next) }
            case "\n": key = .enter
            case "\t": key = .tab
            case "\u{1B}": key = .escape
            case "\u{08}", "\u{7F}": key = .backspace
            default:
                if isControl(scalar) {
                    throw OutputSinkError(UIMessage("cannot type {character} at byte {byte}: no key types that control character, so nothing was sent",
                                                    ["character": describe(scalar), "byte": "\(text.utf8.distance(from: text.startIndex, to: i))"]))
                }
            }
            if let key {
                if let start = runStart { pieces.append(.text(start..<i)); runStart = nil }
                pieces.append(.key(key, i..<end))
            } else if runStart == nil {
                runStart = i
            }
            i = end
        }
        if let start = runStart { pieces.append(.text(start..<scalars.endIndex)) }
        return pieces
    }

    /// C0 and C1 control characters, DEL included.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A character for messages: `"€" (U+20AC)`, or `U+0007` alone for one that shows nothing.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        return isControl(scalar) ? code : "\"\(Character(scalar))\" (\(code))"
    }

    /// What of `text` is left from `index` on, for a failure's `unsent`.
    public static func rest(_ text: String, from index: String.Index) -> String {
        String(text.unicodeScalars[index...])
    }

    /// Cuts `text` for a message: its first `limit` characters, then how many more there were.
    public static func shortened(_ text: String, limit: Int = 200) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count - limit) more characters)"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
