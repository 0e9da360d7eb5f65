import Config
import Testing

/// Table headers that made our former parser (toml++, inside TOMLKit) abort the process (found by FuzzConfig).
struct TOMLHostileTests {
    @Test(arguments: ["[#", "[=]", "[.a]", "[[#]]", "[", "k = \"\"\n[#", "a = 1\n\n  [ =x]\n"])
    func brokenTableHeadersAreErrorsWithTheirLine(_ text: String) {
        #expect(throws: ConfigError.self) { try TOMLDocument(text: text, file: "bad.toml") }
        do {
            _ = try TOMLDocument(text: text, file: "bad.toml")
        } catch {
            #expect(error.line == text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("[") }.map { $0 + 1 })
            #expect(error.message.contains("table name"))
        }
    }

    @Test func bracketsInsideValuesStringsAndCommentsAreNotHeaders() throws {
        let text = """
        x = [
          [
            1
          ],
          [#comment
          2],
        ]
        s = \"\"\"
        [#
        \"\"\"
        t = '[='  # [.a]
        [table]
        k = { a = [ ] }
        [[list]]
        n = 1
        """
        let doc = try TOMLDocument(text: text, file: "ok.toml")
        #expect(doc.root["table"] != nil)
    }
}

/// How deep keys, tables and arrays may nest (64 levels), and inputs of 1 MB in every hostile shape.
struct TOMLDepthTests {
    static let rule = "deeper than the 64 levels a config or keymap file may use "
        + "(each part of a key or [table] name, and each array, is a level)"

    func error(_ text: String) -> ConfigError? {
        do { _ = try TOMLDocument(text: text, file: "deep.toml"); return nil } catch { return error }
    }

    /// `n` parts of `part` joined by dots.
    func dotted(_ n: Int, _ part: String = "a") -> String { Array(repeating: part, count: n).joined(separator: ".") }

    /// The value `n` tables down a chain of `part`s, then `rest`.
    func dig(_ root: [String: TOMLNode], _ n: Int, _ part: String = "a", then rest: [String] = []) -> TOMLNode? {
        var node = TOMLNode.table(root)
        for k in Array(repeating: part, count: n) + rest {
            guard let next = node.table?[k] else { return nil }
            node = next
        }
        return node
    }

    @Test(arguments: [
        ("x = 1\n\n\(String(repeating: "a.", count: 64))a = 1\n", "deep.toml:3: the key a.a.a.a.… is 65 levels deep, "),
        ("x = 1\n[\(String(repeating: "a.", count: 64))a]\n", "deep.toml:2: the table [a.a.a.a.…] is 65 levels deep, "),
        ("[[\(String(repeating: "a.", count: 64))a]]\n", "deep.toml:1: the table [[a.a.a.a.…]] is 65 levels deep, "),
        // The table's depth counts towards its keys', and an inline table's towards the keys inside it.
        ("[\(String(repeating: "a.", count: 59))a]\nok = 1\nb.c.d.e.f = 1\n", "deep.toml:3: the key b.c.d.e.… is 65 levels deep, "),
        ("t = " + String(repeating: "{ a = ", count: 64) + "1" + String(repeating: " }", count: 64) + "\n",
         "deep.toml:1: the key a is 65 levels deep, "),
        ("[\(String(repeating: "a.", count: 39))a]\n\nk = " + String(repeating: "[", count: 24) + "1" + String(repeating: "]", count: 24),
         "deep.toml:3: arrays and inline tables nest "),
    ])
    func oneLevelPastTheCapIsAnErrorWithItsLine(_ text: String, _ start: String) {
        #expect(error(text)?.description == start + Self.rule)
    }

    /// Far past the cap (a 1 MB key or table name) is the same error, not a stack overflow.
    @Test func farPastTheCapIsTheSameError() {
        let parts = 500_000
        #expect(error("\(dotted(parts)) = 1\n")?.description == "deep.toml:1: the key a.a.a.a.… is \(parts) levels deep, " + Self.rule)
        #expect(error("# deep\n[\(dotted(parts))]\n")?.description
                == "deep.toml:2: the table [a.a.a.a.…] is \(parts) levels deep, " + Self.rule)
        #expect(error("x = " + String(repeating: "[", count: 500_000))?.message == "arrays and inline tables nest " + Self.rule)
    }

    @Test func atTheCapEverythingParses() throws {
        var doc = try TOMLDocument(text: "\n\(dotted(64)) = 1\n", file: "deep.toml")
        #expect(dig(doc.root, 64) == .number(1))
        #expect(doc.line(Array(repeating: "a", count: 64)) == 2)

        doc = try TOMLDocument(text: "[\(dotted(64))]\n", file: "deep.toml")
        #expect(dig(doc.root, 64) == .table([:]))

        doc = try TOMLDocument(text: "[\(dotted(63))]\nk = \"v\"\n[\(dotted(32))]\n\(dotted(32, "b")) = true\n", file: "deep.toml")
        #expect(dig(doc.root, 63, then: ["k"]) == .string("v"))
        #expect(dig(doc.root, 32, then: Array(repeating: "b", count: 32)) == .bool(true))
        #expect(doc.line(Array(repeating: "a", count: 63) + ["k"]) == 2)

        doc = try TOMLDocument(text: "[[\(dotted(63))]]\nk = 1\n[[\(dotted(63))]]\nk = 2\n", file: "deep.toml")
        #expect(dig(doc.root, 63) == .array([.table(["k": .number(1)]), .table(["k": .number(2)])]))

        let arrays = "x = " + String(repeating: "[", count: 63) + "1" + String(repeating: "]", count: 63) + "\n"
        var expected = TOMLNode.number(1)
        for _ in 0..<63 { expected = .array([expected]) }
        #expect(try TOMLDocument(text: arrays, file: "deep.toml").root["x"] == expected)

        let inline = "t = " + String(repeating: "{ a = ", count: 63) + "1" + String(repeating: " }", count: 63) + "\n"
        doc = try TOMLDocument(text: inline, file: "deep.toml")
        #expect(doc.root["t"]?.table.flatMap { dig($0, 63) } == .number(1))
    }
}
