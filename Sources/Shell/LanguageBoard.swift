import Config
import Localization

/// What a language pack gives the keyboard and the phrase board (`[keyboard]` and `[phrases]` in its
/// `pack.toml`): the letters the language uses often, added at the ends of the keyboard's rows so that no
/// second layer is needed for them; the accent cycles the accent key steps through; and the phrase board's
/// common phrases. English has none of these: its keyboard and phrases are the shell's own.
public struct LanguageBoard: Sendable, Equatable {
    /// The language's code as the catalog names it ("es").
    public var code: String
    /// Letters added at the end of each of the keyboard's rows, row by row ("ñ" on the second row).
    public var letters: [String]
    /// The accent cycles: each a base letter and its accented forms in the order the accent key steps through
    /// them ("eéèêë"). Empty: the keyboard has no accent key.
    public var accents: [String]
    /// The accent key's label: the marks it puts on ("´", "¨").
    public var accentLabel = "´"
    /// The phrase board's common phrases of the language, by group ("greetings", "needs", "answers").
    public var phrases: [(group: String, text: String)]

    public init(code: String, letters: [String] = [], accents: [String] = [], phrases: [(group: String, text: String)] = []) {
        self.code = code; self.letters = letters; self.accents = accents; self.phrases = phrases
    }

    /// English: the keymap's keyboard as it is, no accent key, the shell's own phrases.
    public static let english = LanguageBoard(code: "en")

    public static func == (a: LanguageBoard, b: LanguageBoard) -> Bool {
        a.code == b.code && a.letters == b.letters && a.accents == b.accents && a.accentLabel == b.accentLabel
            && a.phrases.map(\.group) == b.phrases.map(\.group) && a.phrases.map(\.text) == b.phrases.map(\.text)
    }

    /// The keyboard's rows with the language's letters at their ends: a letter the rows have already is not
    /// added again (a key's target is named after its character), and a row keeps at most
    /// `Keymap.maxKeysPerRow` keys, so the keys stay wide enough to look at.
    public func rows(_ base: [String], limit: Int) -> [String] {
        guard !letters.isEmpty else { return base }
        var seen = Set(base.joined())
        return base.enumerated().map { k, row in
            guard k < letters.count else { return row }
            var out = row
            for ch in letters[k] where out.count < limit && seen.insert(ch).inserted { out.append(ch) }
            return out
        }
    }

    /// Whether the keyboard shows the accent key.
    public var hasAccentKey: Bool { !accents.isEmpty }

    /// The letter the accent key makes of `ch`: the next form in its cycle (the last goes back to the plain
    /// letter), a capital staying a capital; nil for a letter no cycle has.
    public func accented(_ ch: Character) -> Character? {
        let folded = String(ch).lowercased()
        guard folded.count == 1, let lower = folded.first else { return nil }
        let upper = String(ch) != folded
        for cycle in accents {
            let forms = Array(cycle)
            guard let i = forms.firstIndex(of: lower) else { continue }
            // A form with no single capital (ß) is stepped over when the letter is a capital.
            var j = i
            for _ in forms.indices {
                j = (j + 1) % forms.count
                guard upper else { return forms[j] }
                let cap = String(forms[j]).uppercased()
                if cap.count == 1, let c = cap.first { return c }
            }
            return nil
        }
        return nil
    }

    /// The groups of the phrase board a pack may fill (the user's saved phrases are theirs, in every language).
    public static let phraseGroups = ["greetings", "needs", "answers"]

    /// `[keyboard]` and `[phrases]` of a pack (docs/language-packs.md); nil when it has neither. Every problem
    /// names the file and line.
    public static func parse(_ doc: TOMLDocument, code: String) throws(ConfigError) -> LanguageBoard? {
        guard doc.root["keyboard"] != nil || doc.root["phrases"] != nil else { return nil }
        func fail(_ path: [String], _ reason: UIMessage) -> ConfigError { doc.error(path, reason) }
        func strings(_ node: TOMLNode, _ path: [String]) throws(ConfigError) -> [String] {
            guard let a = node.array, case let s = a.compactMap(\.string), s.count == a.count else {
                throw fail(path, UIMessage("{key} must be a list of strings", ["key": path.joined(separator: ".")]))
            }
            return s
        }
        var board = LanguageBoard(code: code)
        if let node = doc.root["keyboard"] {
            guard let t = node.table else { throw fail(["keyboard"], UIMessage("{key} must be a table", ["key": "keyboard"])) }
            for key in t.keys.sorted() where !["letters", "accents", "accent_label"].contains(key) {
                throw fail(["keyboard", key], UIMessage("unknown key \"{key}\" in [{table}] (known: {known})",
                                                        ["key": key, "table": "keyboard", "known": "letters, accents, accent_label"]))
            }
            var seen: Set<Character> = []
            if let l = t["letters"] {
                board.letters = try strings(l, ["keyboard", "letters"])
                guard board.letters.count <= Keymap.maxKeyboardRows else {
                    throw fail(["keyboard", "letters"], .plural("letters has {n} rows; the keyboard has at most {rows}",
                                                                "letters has {n} rows; the keyboard has at most {rows}",
                                                                board.letters.count, ["rows": String(Keymap.maxKeyboardRows)]))
                }
                for (i, row) in board.letters.enumerated() {
                    for ch in row {
                        guard ch.isVisibleKey else {
                            throw fail(["keyboard", "letters"], UIMessage("row {row} holds an invisible or control character; keys must be visible characters",
                                                                      ["row": String(i + 1)]))
                        }
                        guard seen.insert(ch).inserted else { throw fail(["keyboard", "letters"], UIMessage("\"{key}\" is listed twice", ["key": String(ch)])) }
                    }
                }
            }
            if let a = t["accents"] {
                board.accents = try strings(a, ["keyboard", "accents"])
                var inCycle: Set<Character> = []
                for cycle in board.accents {
                    guard cycle.count >= 2, cycle.allSatisfy(\.isVisibleKey) else {
                        throw fail(["keyboard", "accents"], UIMessage("an accent cycle is a letter and its accented forms, like \"eéèêë\" (not \"{cycle}\")",
                                                                  ["cycle": String(cycle.prefix(20))]))
                    }
                    for ch in cycle where !inCycle.insert(ch).inserted {
                        throw fail(["keyboard", "accents"], UIMessage("\"{key}\" is in two accent cycles; the accent key could not tell which to follow",
                                                              ["key": String(ch)]))
                    }
                }
            }
            if let l = t["accent_label"] {
                guard let label = l.string, (1...3).contains(label.count), label.allSatisfy(\.isVisibleKey) else {
                    throw fail(["keyboard", "accent_label"], UIMessage("accent_label must be 1 to 3 visible characters, like \"´\""))
                }
                board.accentLabel = label
            }
        }
        if let node = doc.root["phrases"] {
            guard let t = node.table else { throw fail(["phrases"], UIMessage("{key} must be a table", ["key": "phrases"])) }
            for group in t.keys.sorted() {
                guard phraseGroups.contains(group) else {
                    throw fail(["phrases", group], UIMessage("unknown phrase group \"{group}\" (known: {known})",
                                                         ["group": group, "known": phraseGroups.joined(separator: ", ")]))
                }
            }
            for group in phraseGroups {
                guard let list = t[group] else { continue }
                for text in try strings(list, ["phrases", group]) {
                    guard !text.allSatisfy(\.isWhitespace), !text.contains(where: { $0 == "\t" || $0.isNewline }) else {
                        throw fail(["phrases", group], UIMessage("a phrase must be one line of text, not empty"))
                    }
                    board.phrases.append((group, text))
                }
            }
        }
        return board
    }
}
