import Foundation
import Testing
@testable import Localization

/// Plural rules as catalogs write them (the `Plural-Forms:` headers of GNU gettext's own table of languages).
@Suite struct PluralRuleTests {
    static let headers: [String: String] = [
        "en": "nplurals=2; plural=(n != 1);",
        "fr": "nplurals=2; plural=(n > 1);",
        "pl": "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
        "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
        "ar": "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;",
    ]

    func rule(_ lang: String) throws -> PluralRule { try PluralRule(header: try #require(Self.headers[lang])) }

    @Test func english() throws {
        let r = try rule("en")
        #expect(r.count == 2)
        #expect([0, 1, 2, 5, 11, 21].map(r.form) == [1, 0, 1, 1, 1, 1])
    }

    @Test func french() throws {
        let r = try rule("fr")
        #expect([0, 1, 2, 5, 100].map(r.form) == [0, 0, 1, 1, 1])
    }

    @Test func polish() throws {
        let r = try rule("pl")
        #expect(r.count == 3)
        // 1 plik, 2-4 pliki, 5 plików, 12-14 plików, 22-24 pliki, 112 plików.
        #expect([1, 2, 4, 5, 11, 12, 14, 21, 22, 24, 25, 101, 102, 112, 122, 0].map(r.form)
                == [0, 1, 1, 2, 2, 2, 2, 2, 1, 1, 2, 2, 1, 2, 1, 2])
    }

    @Test func russian() throws {
        let r = try rule("ru")
        // 1 файл, 21 файл, 11 файлов, 2 файла, 12 файлов, 22 файла, 5 файлов.
        #expect([1, 21, 101, 11, 111, 2, 3, 4, 12, 22, 5, 0, 20].map(r.form) == [0, 0, 0, 2, 2, 1, 1, 1, 2, 1, 2, 2, 2])
    }

    @Test func arabic() throws {
        let r = try rule("ar")
        #expect(r.count == 6)
        #expect([0, 1, 2, 3, 10, 11, 99, 100, 101, 102, 103, 111].map(r.form) == [0, 1, 2, 3, 3, 4, 4, 5, 5, 5, 3, 4])
    }

    @Test func everyOperatorWithCPrecedence() throws {
        func eval(_ e: String, _ n: Int) throws -> Int { try PluralRule(header: "nplurals=16; plural=\(e);").form(n) }
        #expect(try eval("1 + 2 * 3", 0) == 7)
        #expect(try eval("(1 + 2) * 3", 0) == 9)
        #expect(try eval("10 - 4 - 3", 0) == 3)
        #expect(try eval("n / 2 % 3", 9) == 1)
        #expect(try eval("!n", 0) == 1)
        #expect(try eval("!!n", 7) == 1)
        #expect(try eval("n < 3 == 1", 2) == 1)
        #expect(try eval("n <= 3 && n >= 3", 3) == 1)
        #expect(try eval("n != 3 || 0", 3) == 0)
        #expect(try eval("n ? 4 : 5", 0) == 5)
        #expect(try eval("n ? n > 5 ? 2 : 3 : 4", 9) == 2)
        #expect(try eval("n / 0", 5) == 0)
        #expect(try eval("n % 0", 5) == 0)
        // A form past nplurals falls back to the first.
        #expect(try PluralRule(header: "nplurals=2; plural=n;").form(7) == 0)
    }

    @Test func badHeadersAreRefusedWithTheirReason() {
        for (header, reason) in [
            ("nplurals=2;", "no plural="),
            ("plural=n;", "no nplurals="),
            ("nplurals=0; plural=0;", "nplurals must be a number 1…16, not \"0\""),
            ("nplurals=2; plural=n +;", "plural expression ends too soon"),
            ("nplurals=2; plural=(n == 1;", "plural expression ends too soon"),
            ("nplurals=2; plural=n == 1 ? 0;", "plural expression ends too soon"),
            ("nplurals=2; plural=x;", "expected n, a number or \"(\" at \"x\" at column 1 of the plural expression"),
            ("nplurals=2; plural=n == 1 garbage;", "unexpected \"garbage\" at column 8 of the plural expression"),
            ("nplurals=2; plural=99999999999999999999;", "a number too large in the plural expression"),
        ] {
            #expect(throws: PluralRuleError(reason), "\(header)") { try PluralRule(header: header) }
        }
        let deep = String(repeating: "(", count: 500) + "n" + String(repeating: ")", count: 500)
        #expect(throws: PluralRuleError("plural expression nested too deeply")) { try PluralRule(header: "nplurals=2; plural=\(deep);") }
    }

    /// Each rule against Python's gettext (`gettext.c2py`, which compiles the same C expression), for every
    /// count up to 1,000.
    @Test(.enabled(if: Support.havePython, "python3 is not installed"))
    func agreesWithPythonsGettext() throws {
        let counts = Array(0...1000)
        for (lang, header) in Self.headers.sorted(by: { $0.key < $1.key }) {
            let expr = try #require(header.split(separator: "plural=", maxSplits: 1).last).trimmingCharacters(in: CharacterSet(charactersIn: " ;"))
            let script = "import gettext,sys\nf=gettext.c2py(sys.argv[1])\nprint(' '.join(str(f(n)) for n in range(1001)))"
            let r = try Support.run(Support.python, ["-c", script, expr])
            #expect(r.status == 0, "\(r.output)")
            let python = r.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            let ours = try counts.map(rule(lang).form)
            #expect(ours == python, "\(lang)")
        }
    }
}
