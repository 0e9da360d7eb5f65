/// Text in letters five rows high, drawn with blocks: a phrase that someone across the room can read off
/// the screen when it could not be said aloud (the phrase board's show mode).
///
/// Covers A–Z (lower case is drawn as upper case), 0–9, space and common punctuation; a text with any other
/// character has no big form (`lines` returns nil) and is shown as plain text instead.
public enum BigText {
    /// Rows of each letter.
    public static let height = 5

    /// The text's big lines, each `height` rows of text, wrapped at spaces to `width` columns; nil when a
    /// character has no glyph or a word is wider than `width`.
    public static func lines(_ text: String, width: Int) -> [[String]]? {
        var words: [[String]] = []
        for word in text.split(whereSeparator: \.isWhitespace) {
            var rows = Array(repeating: "", count: height)
            for (k, ch) in word.enumerated() {
                guard let g = glyph(ch) else { return nil }
                for r in 0..<height { rows[r] += (k == 0 ? "" : " ") + g[r] }
            }
            guard CellGrid.columns(of: rows[0]) <= width else { return nil }
            words.append(rows)
        }
        var out: [[String]] = []
        var line: [String]?
        for w in words {
            if let l = line, CellGrid.columns(of: l[0]) + 3 + CellGrid.columns(of: w[0]) <= width {
                line = (0..<height).map { l[$0] + "   " + w[$0] }
            } else {
                if let l = line { out.append(l) }
                line = w
            }
        }
        if let l = line { out.append(l) }
        return out
    }

    static func glyph(_ ch: Character) -> [String]? {
        guard let rows = font[Character(ch.uppercased())] else { return nil }
        return rows.map { String($0.map { $0 == "#" ? "█" : " " }) }
    }

    /// Five rows per glyph; `#` is a filled cell.
    static let font: [Character: [String]] = [
        "A": [" ### ", "#   #", "#####", "#   #", "#   #"],
        "B": ["#### ", "#   #", "#### ", "#   #", "#### "],
        "C": [" ####", "#    ", "#    ", "#    ", " ####"],
        "D": ["#### ", "#   #", "#   #", "#   #", "#### "],
        "E": ["#####", "#    ", "#### ", "#    ", "#####"],
        "F": ["#####", "#    ", "#### ", "#    ", "#    "],
        "G": [" ####", "#    ", "#  ##", "#   #", " ### "],
        "H": ["#   #", "#   #", "#####", "#   #", "#   #"],
        "I": ["###", " # ", " # ", " # ", "###"],
        "J": ["  ###", "   # ", "   # ", "#  # ", " ##  "],
        "K": ["#   #", "#  # ", "###  ", "#  # ", "#   #"],
        "L": ["#    ", "#    ", "#    ", "#    ", "#####"],
        "M": ["#   #", "## ##", "# # #", "#   #", "#   #"],
        "N": ["#   #", "##  #", "# # #", "#  ##", "#   #"],
        "O": [" ### ", "#   #", "#   #", "#   #", " ### "],
        "P": ["#### ", "#   #", "#### ", "#    ", "#    "],
        "Q": [" ### ", "#   #", "# # #", "#  # ", " ## #"],
        "R": ["#### ", "#   #", "#### ", "#  # ", "#   #"],
        "S": [" ####", "#    ", " ### ", "    #", "#### "],
        "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  "],
        "U": ["#   #", "#   #", "#   #", "#   #", " ### "],
        "V": ["#   #", "#   #", "#   #", " # # ", "  #  "],
        "W": ["#   #", "#   #", "# # #", "## ##", "#   #"],
        "X": ["#   #", " # # ", "  #  ", " # # ", "#   #"],
        "Y": ["#   #", " # # ", "  #  ", "  #  ", "  #  "],
        "Z": ["#####", "   # ", "  #  ", " #   ", "#####"],
        "0": [" ### ", "#  ##", "# # #", "##  #", " ### "],
        "1": [" # ", "## ", " # ", " # ", "###"],
        "2": [" ### ", "#   #", "  ## ", " #   ", "#####"],
        "3": ["#### ", "    #", " ### ", "    #", "#### "],
        "4": ["#   #", "#   #", "#####", "    #", "    #"],
        "5": ["#####", "#    ", "#### ", "    #", "#### "],
        "6": [" ### ", "#    ", "#### ", "#   #", " ### "],
        "7": ["#####", "    #", "   # ", "  #  ", "  #  "],
        "8": [" ### ", "#   #", " ### ", "#   #", " ### "],
        "9": [" ### ", "#   #", " ####", "    #", " ### "],
        ".": [" ", " ", " ", " ", "#"],
        ",": ["  ", "  ", "  ", " #", "# "],
        "!": ["#", "#", "#", " ", "#"],
        "?": [" ### ", "#   #", "  ## ", "     ", "  #  "],
        "'": ["#", "#", " ", " ", " "],
        "’": ["#", "#", " ", " ", " "],
        "-": ["   ", "   ", "###", "   ", "   "],
        ":": [" ", "#", " ", "#", " "],
    ]
}
