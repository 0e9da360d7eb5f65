/// How dictated numbers are written: as digits ("23") or as words ("twenty three"), whichever engine heard
/// them (PocketSphinx writes words, Whisper digits).
public enum NumberStyle: String, Sendable, CaseIterable {
    case digits, words
}

/// Turns number words into digits and back, word by word, for dictation.
public enum SpokenNumbers {
    static let units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                        "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let scales: [(String, Int)] = [("thousand", 1_000), ("million", 1_000_000)]

    /// Words with runs of number words ("twenty three", "one hundred and five") as digits. A single number
    /// word below ten stays a word ("the one I like"), as style guides write small numbers.
    public static func digits(_ words: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < words.count {
            if let (value, used) = number(at: i, in: words), !(used == 1 && value < 10) {
                out.append(String(value))
                i += used
            } else {
                out.append(words[i])
                i += 1
            }
        }
        return out
    }

    /// The number a run of words starting at `start` says, and how many words it took; nil if none starts there.
    static func number(at start: Int, in words: [String]) -> (Int, Int)? {
        var total = 0, group = 0, used = 0, any = false
        var i = start
        while i < words.count {
            let w = words[i].lowercased()
            if let u = units.firstIndex(of: w) {
                // "twenty three" adds; "three twenty" is two numbers.
                guard group % 10 == 0 || group >= 100 && group % 100 == 0 || !any else { break }
                if any && group % 100 != 0 && group >= 20 && u >= 10 { break }
                group += u
            } else if let t = tens.firstIndex(of: w), t >= 2 {
                guard group % 100 == 0 else { break }
                group += t * 10
            } else if w == "hundred", any, group > 0, group < 10 {
                group *= 100
            } else if let (_, scale) = scales.first(where: { $0.0 == w }), any, group > 0, total % (scale * 1000) == 0 || total == 0 {
                total += group * scale
                group = 0
            } else if w == "and", any, i + 1 < words.count, group % 100 == 0,
                      units.contains(words[i + 1].lowercased()) || tens.contains(words[i + 1].lowercased()) {
                // "one hundred and five": the "and" belongs to the number.
            } else {
                break
            }
            any = true
            i += 1
            used = i - start
        }
        guard any, used > 0 else { return nil }
        // A trailing "and" is not part of the number.
        while used > 0, words[start + used - 1].lowercased() == "and" { used -= 1 }
        return (total + group, used)
    }

    /// Words with whole numbers written in digits ("23", "1,500") as words; other words as they are.
    public static func words(_ words: [String]) -> [String] {
        words.flatMap { w -> [String] in
            // Digits, with commas only between groups of three ("1,500"); what follows ("23," "10.") stays on
            // the last word.
            let chars = Array(w)
            var k = 0
            while k < chars.count {
                if chars[k].isASCII, chars[k].isNumber { k += 1; continue }
                if chars[k] == ",", k > 0, k + 3 < chars.count + 1, chars.count >= k + 4,
                   chars[(k + 1)...(k + 3)].allSatisfy({ $0.isASCII && $0.isNumber }),
                   k + 4 == chars.count || !(chars[k + 4].isNumber) { k += 1; continue }
                break
            }
            let rest = String(chars[k...])
            let plain = String(chars[..<k]).filter { $0 != "," }
            guard !plain.isEmpty, plain.count <= 9, rest.allSatisfy({ !$0.isNumber && !$0.isLetter }), let n = Int(plain) else { return [w] }
            var said = spell(n)
            said[said.count - 1] += rest
            return said
        }
    }

    /// `n` (0…999,999,999) in words.
    static func spell(_ n: Int) -> [String] {
        if n < 20 { return [units[n]] }
        if n < 100 { return [tens[n / 10]] + (n % 10 == 0 ? [] : [units[n % 10]]) }
        if n < 1000 { return [units[n / 100], "hundred"] + (n % 100 == 0 ? [] : spell(n % 100)) }
        for (name, scale) in scales.reversed() where n >= scale {
            return spell(n / scale) + [name] + (n % scale == 0 ? [] : spell(n % scale))
        }
        return [String(n)]
    }
}
