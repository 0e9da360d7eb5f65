import Config
import Testing

/// `Keymap.normalise` reads ASCII byte by byte: it must give what the general form (lower case, words split on
/// spaces and tabs, joined by one space) gives, for any text.
@Suite struct KeymapNormaliseTests {
    static func general(_ s: String) -> String {
        s.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    @Test func asciiAndOtherTextNormaliseAsTheGeneralFormDoes() {
        var seed: UInt64 = 7
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        let alphabet: [Character] = ["a", "Z", "q", " ", " ", "\t", "\r", "\n", "1", "-", "É", "é", "ß", "İ", "\u{301}", "界"]
        for _ in 0..<5_000 {
            let s = String((0..<(next() % 14)).map { _ in alphabet[next() % (next() % 3 == 0 ? alphabet.count : 10)] })
            #expect(Keymap.normalise(s) == Self.general(s), "\(s.debugDescription)")
        }
        for s in ["open  Settings", "\tSELECT ⌫ key\t", "", "   ", "Open Q", "open\r\nthis"] {
            #expect(Keymap.normalise(s) == Self.general(s), "\(s.debugDescription)")
        }
    }
}
