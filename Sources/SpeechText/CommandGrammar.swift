import Foundation

/// Builds a JSGF grammar of command phrases (keymap voice phrases, on-screen target labels).
///
/// A grammar search recognises a closed set of phrases far better than keyword spotting or the
/// dictation language model with this acoustic model.
public enum CommandGrammar {
    /// A phrase left out of the grammar, and why.
    public struct Dropped: Equatable, Sendable, CustomStringConvertible {
        public var phrase: String
        public var reason: String
        public var description: String { "\"\(phrase)\": \(reason)" }
    }

    /// A grammar and how its spoken forms map back to the phrases given.
    public struct Built: Equatable, Sendable {
        /// The JSGF text for `Recognizer.addGrammar(name:jsgf:)`.
        public var jsgf: String
        /// Spoken form (what the recogniser returns) → the phrase as given (e.g. "select Send!").
        public var phrases: [String: String]
        /// Phrases or words left out, each with its reason.
        public var dropped: [Dropped]
    }

    /// The JSGF text for `phrases`, with no dictionary check (every word must be in the dictionary, or
    /// PocketSphinx rejects the grammar).
    public static func jsgf(phrases: [String], name: String = "commands") -> String {
        build(phrases: phrases, name: name, isKnownWord: { _ in true }).jsgf
    }

    /// Normalises the phrases, drops words the dictionary lacks (and phrases left empty or clashing with
    /// another), and writes a grammar with one public rule of alternatives.
    ///
    /// - Parameter isKnownWord: whether the pronunciation dictionary has a word, e.g. `Recognizer.knowsWord`.
    public static func build(phrases: [String], name: String = "commands",
                             isKnownWord: (String) -> Bool) -> Built {
        var spokenToPhrase: [String: String] = [:]
        var order: [String] = []
        var dropped: [Dropped] = []
        for phrase in phrases {
            let words = normalise(phrase)
            var kept: [String] = []
            for w in words {
                if isKnownWord(w) {
                    kept.append(w)
                } else {
                    dropped.append(Dropped(phrase: phrase, reason: "word \"\(w)\" is not in the pronunciation dictionary; left out"))
                }
            }
            guard !kept.isEmpty else {
                dropped.append(Dropped(phrase: phrase, reason: words.isEmpty ? "no speakable words" : "no word left to say"))
                continue
            }
            let spoken = kept.joined(separator: " ")
            if let other = spokenToPhrase[spoken] {
                if other != phrase {
                    dropped.append(Dropped(phrase: phrase, reason: "sounds the same as \"\(other)\" (\"\(spoken)\")"))
                }
                continue
            }
            spokenToPhrase[spoken] = phrase
            order.append(spoken)
        }
        let ruleName = identifier(name)
        var out = "#JSGF V1.0;\n\ngrammar \(ruleName);\n\n"
        if order.isEmpty {
            // An empty alternative list does not parse; <VOID> is JSGF's rule that matches nothing.
            out += "public <\(ruleName)> = <VOID>;\n"
        } else {
            out += "public <\(ruleName)> = " + order.joined(separator: "\n    | ") + ";\n"
        }
        return Built(jsgf: out, phrases: spokenToPhrase, dropped: dropped)
    }

    /// Lower-case words of letters, digits spelled out, apostrophes kept inside words ("don't"); every
    /// other character separates words, so JSGF's special characters never reach the grammar.
    public static func normalise(_ phrase: String) -> [String] {
        var words: [String] = []
        var current = ""
        func end() {
            let w = current.trimmingCharacters(in: ["'"])
            if !w.isEmpty {
                if let n = Int(w) { words += spell(n) } else { words.append(w) }
            }
            current = ""
        }
        for ch in phrase.lowercased() {
            if ch.isASCII && (ch.isLetter || ch.isNumber || ch == "'") {
                // A letter after digits ("2nd") or digits after letters start a new word.
                if let last = current.last, last.isNumber != ch.isNumber, ch != "'" { end() }
                current.append(ch)
            } else {
                end()
            }
        }
        end()
        return words
    }

    /// English words for 0...999 (larger numbers digit by digit), as a speaker would say them.
    static func spell(_ n: Int) -> [String] {
        let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                    "nineteen"]
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        if n < 20 { return [ones[n]] }
        if n < 100 { return [tens[n / 10]] + (n % 10 == 0 ? [] : [ones[n % 10]]) }
        if n < 1000 { return [ones[n / 100], "hundred"] + (n % 100 == 0 ? [] : spell(n % 100)) }
        return String(n).compactMap { $0.wholeNumberValue }.map { ones[$0] }
    }

    /// A JSGF rule/grammar name: letters, digits and underscores.
    static func identifier(_ s: String) -> String {
        let id = String(s.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        return id.isEmpty ? "commands" : id
    }
}
