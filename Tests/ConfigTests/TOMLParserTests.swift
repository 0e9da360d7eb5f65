import Config
import Testing

/// Our TOML parser: the TOML 1.0 a user may write, and a line-numbered error for anything else.
struct TOMLParserTests {
    func parse(_ text: String) throws -> [String: TOMLNode] { try TOMLDocument(text: text, file: "t.toml").root }

    func error(_ text: String) -> ConfigError? {
        do { _ = try TOMLDocument(text: text, file: "t.toml"); return nil } catch { return error }
    }

    @Test func valuesOfEveryKind() throws {
        let r = try parse("""
        # a comment
        s = "tab\\there \\u00e9 \\U0001F600 \\"q\\" \\\\"
        l = 'C:\\path'
        ml = \"\"\"
        one \\
           two
        three\"\"\"
        mll = '''
        raw \\n '''
        i = -1_000
        h = 0xff
        o = 0o17
        b = 0b101
        f = 6.626e-34
        g = +inf
        n = nan
        t = true
        d = 1979-05-27 07:32:00Z
        a = [ 1, "two", [3], { x = 4 }, ]   # trailing comma
        multi = [
          1,  # one
          2,
        ]
        inline = { a.b = 1, "quoted key" = 'v' }
        """)
        #expect(r["s"] == .string("tab\there é 😀 \"q\" \\"))
        #expect(r["l"] == .string("C:\\path"))
        #expect(r["ml"] == .string("one two\nthree"))
        #expect(r["mll"] == .string("raw \\n "))
        #expect(r["i"] == .number(-1000))
        #expect(r["h"] == .number(255) && r["o"] == .number(15) && r["b"] == .number(5))
        #expect(r["f"] == .number(6.626e-34))
        #expect(r["g"] == .number(.infinity))
        #expect(r["n"]?.number?.isNaN == true)
        #expect(r["t"] == .bool(true))
        #expect(r["d"] == .string("1979-05-27 07:32:00Z"))
        #expect(r["a"] == .array([.number(1), .string("two"), .array([.number(3)]), .table(["x": .number(4)])]))
        #expect(r["multi"] == .array([.number(1), .number(2)]))
        #expect(r["inline"] == .table(["a": .table(["b": .number(1)]), "quoted key": .string("v")]))
    }

    @Test func tablesDottedKeysAndArraysOfTables() throws {
        let r = try parse("""
        [screen.notes.gestures]
        activate = "open"
        [screen.notes]
        title = "Notes"
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true
        [fruit.apple.texture]
        smooth = true
        [[item]]
        name = "a"
        [[item]]
        name = "b"
        [item.part]
        n = 2
        """)
        #expect(r["screen"]?.table?["notes"]?.table?["gestures"]?.table?["activate"] == .string("open"))
        #expect(r["screen"]?.table?["notes"]?.table?["title"] == .string("Notes"))
        let apple = r["fruit"]?.table?["apple"]?.table
        #expect(apple?["color"] == .string("red"))
        #expect(apple?["taste"]?.table?["sweet"] == .bool(true))
        #expect(apple?["texture"]?.table?["smooth"] == .bool(true))
        #expect(r["item"]?.array?.count == 2)
        #expect(r["item"]?.array?.last?.table?["part"]?.table?["n"] == .number(2))
    }

    @Test func keysRememberTheirLines() throws {
        let doc = try TOMLDocument(text: "\n[gesture.a]\n\nshape = \"jawOpen\"\nx.y = 1\n", file: "t.toml")
        #expect(doc.line(["gesture"]) == 2)
        #expect(doc.line(["gesture", "a"]) == 2)
        #expect(doc.line(["gesture", "a", "shape"]) == 4)
        #expect(doc.line(["gesture", "a", "x", "y"]) == 5)
        #expect(doc.line(["gesture", "a", "missing"]) == 2)
    }

    /// Keys inside inline tables, arrays spread over lines, and later tables of an array of tables: each
    /// path keeps the line it was first written on.
    @Test func nestedKeysRememberTheLineTheyWereFirstWrittenOn() throws {
        let doc = try TOMLDocument(text: """
        x = [
          { a = 1 },
          { b.c = 2 },
        ]
        [[item]]
        name = "a"
        [[item]]
        name = "b"
        part.n = 3
        "q\\u001Fr" = 4
        """, file: "t.toml")
        #expect(doc.line(["x"]) == 1)
        #expect(doc.line(["x", "a"]) == 2)
        #expect(doc.line(["x", "b", "c"]) == 3)
        #expect(doc.line(["item"]) == 5)
        #expect(doc.line(["item", "name"]) == 6)
        #expect(doc.line(["item", "part", "n"]) == 9)
        #expect(doc.line(["item", "q\u{1F}r"]) == 10)
        #expect(doc.line(["item", "q", "r"]) == 5, "a key holding U+001F is one part, not two")
        #expect(doc.line([]) == nil && doc.line(["nothing"]) == nil)
    }

    @Test(arguments: [
        ("a = 1\na = 2\n", 2, "defined twice"),
        ("[t]\n[t]\n", 2, "defined twice"),
        ("[a]\nb = 1\n[a.b]\n", 3, "already holds a value"),
        ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, "cannot add to it"),
        ("[fruit]\napple.color = \"red\"\n[fruit.apple]\n", 3, "defined twice"),
        ("a = [1]\n[[a]]\n", 2, "already holds a value"),
        ("t = {x = 1}\n[t]\n", 2, "already holds a value"),
        ("\n\nkey = \"never closed\n", 3, "never closed"),
        ("x = \"\"\"\nopen\n", 1, "never closed"),
        ("x = [1,\n2\n", 1, "never closed"),
        ("x = [1 2]\n", 1, "expected ',' or ']'"),
        ("x = {a = 1,}\n", 1, "cannot end with ','"),
        ("x = {a = 1,\nb = 2}\n", 1, "one line"),
        ("x = 01\n", 1, "not a number"),
        ("x = 1__0\n", 1, "not a number"),
        ("x = 9223372036854775808\n", 1, "not a number"),
        ("x = 1979-02-30\n", 1, "not a number"),
        ("x = yes\n", 1, "not a number"),
        ("x = tru\n", 1, "strings need quotes"),
        ("x = \"\\q\"\n", 1, "unknown escape"),
        ("x = \"\\uD800\"\n", 1, "names no character"),
        ("x = \"a\u{1}b\"\n", 1, "control character U+0001"),
        ("# bell \u{7}\n", 1, "control character U+0007 in a comment"),
        ("x = 1 y = 2\n", 1, "end of the line"),
        ("x\n", 1, "expected '='"),
        ("= 1\n", 1, "expected a key"),
        ("x = \n", 1, "expected a value"),
        ("x = 1\r\ny = 2\r\r\n", 2, "carriage return"),
        ("[a]b\n", 1, "end of the line"),
        ("[[a] ]\n", 1, "']]'"),
        ("ü = 1\n", 1, "'ü'"),
    ])
    func mistakesNameTheirLine(_ text: String, _ line: Int, _ message: String) {
        let e = error(text)
        #expect(e?.line == line, "\(String(describing: e))")
        #expect(e?.message.contains(message) == true, "\(String(describing: e))")
        #expect(e?.file == "t.toml")
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = "x = " + String(repeating: "[", count: 100_000) + "\n"
        #expect(error(deep)?.message.contains("nest deeper than") == true)
        let tables = "x = " + String(repeating: "{a = ", count: 10_000) + "\n"
        #expect(error(tables)?.message.contains("the key a is 65 levels deep, deeper than the 64 levels") == true)
    }

    @Test func crlfLineEndingsAndAByteOrderMarkAreFine() throws {
        let r = try parse("\u{FEFF}[t]\r\nk = \"\"\"\r\nx\r\n\"\"\"\r\n")
        #expect(r["t"]?.table?["k"] == .string("x\n"))
    }

    /// Every prefix of a real file either parses or gives a line-numbered error (never a crash or a hang).
    @Test func everyPrefixOfTheBuiltInConfigParsesOrFails() {
        let text = GestureConfig.defaultText
        var errors = 0
        for n in stride(from: 0, through: text.utf8.count, by: 7) {
            let prefix = String(decoding: Array(text.utf8.prefix(n)), as: UTF8.self)
            if let e = error(prefix) { errors += 1; #expect(e.line != nil) }
        }
        #expect(errors > 0)
    }
}
