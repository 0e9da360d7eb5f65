import Config
import Localization
import SpeechText

/// The word suggestions above the keyboard: one target per word (`ID.0`…), filled from `Services.suggest`
/// (word prediction plugs in there); empty until a predictor is supplied.
public enum SuggestionBar {
    public static func render(_ c: inout Canvas, _ id: String, _ words: [String], _ rect: Rect, _ ctx: ScreenContext) {
        guard !words.isEmpty else {
            c.grid.centered(emptyText(ctx), in: rect, y: rect.y + rect.h / 2, style: Theme.hint)
            return
        }
        for (i, (w, r)) in zip(words, rect.columns(words.count, gap: 1)).enumerated() {
            c.button("\(id).\(i)", i == 0 ? "★ " + w : w, r)
        }
    }

    /// The word a suggestion target stands for.
    public static func word(_ targetID: String, _ id: String, _ words: [String]) -> String? {
        guard targetID.hasPrefix(id + "."), let i = Int(targetID.dropFirst(id.count + 1)), i < words.count else { return nil }
        return words[i]
    }

    /// Dictated text with a space before it when it continues a word.
    public static func joinDictation(_ text: String, after before: String) -> String {
        let t = text.trimmingSpaces
        guard !t.isEmpty else { return "" }
        if let last = before.last, !last.isWhitespace { return " " + t }
        return t
    }
}
