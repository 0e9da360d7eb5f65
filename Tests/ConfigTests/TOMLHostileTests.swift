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

/// A megabyte (what `handsfree check` and `run` read at most) of each shape that once made, or could make, the
/// parser slower than linear: each gives its error or its values.
///
/// Nothing here is timed, since timed tests flake; a quadratic shape instead makes this suite take minutes (a
/// 1 MB dotted key did, and 1 MB of `[[arrays.of.tables]]` took 17 s). Speeds are measured with `handsfree check`.
struct TOMLMegabyteTests {
    enum Shape: String, CaseIterable, Sendable {
        case dottedKey, tableName, inlineTables, arrays
        case arraysOfTables, deepArraysOfTables, deepDottedKeys, deepTableNames
        case manyKeys, inlineTableKeys, longLine, longString, longMultilineString
    }

    static let rule = TOMLDepthTests.rule

    func dotted(_ n: Int) -> String { Array(repeating: "a", count: n).joined(separator: ".") }

    /// The table `n` tables down a chain of `a`s.
    func dig(_ root: [String: TOMLNode], _ n: Int) -> [String: TOMLNode]? {
        var t = root
        for _ in 0..<n {
            guard let next = t["a"]?.table else { return nil }
            t = next
        }
        return t
    }

    /// `count` lines made by `line`, as one text.
    func lines(_ count: Int, _ line: (Int) -> String) -> String {
        var s = ""
        for n in 0..<count { s += line(n) }
        return s
    }

    func parse(_ text: String) throws(ConfigError) -> TOMLDocument {
        #expect((900_000...1_100_000).contains(text.utf8.count), "\(text.utf8.count) bytes")
        return try TOMLDocument(text: text, file: "big.toml")
    }

    func error(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch { return error.description }
    }

    @Test(arguments: Shape.allCases)
    func aMegabyteParsesOrFails(_ shape: Shape) throws {
        switch shape {
        case .dottedKey:
            #expect(error(dotted(500_000) + " = 1\n") == "big.toml:1: the key a.a.a.a.… is 500000 levels deep, " + Self.rule)
        case .tableName:
            #expect(error("# deep\n[\(dotted(500_000))]\n") == "big.toml:2: the table [a.a.a.a.…] is 500000 levels deep, " + Self.rule)
        case .inlineTables:
            #expect(error("t = " + String(repeating: "{ a = ", count: 170_000)) == "big.toml:1: the key a is 65 levels deep, " + Self.rule)
        case .arrays:
            #expect(error("x = " + String(repeating: "[", count: 1_000_000)) == "big.toml:1: arrays and inline tables nest " + Self.rule)
        case .arraysOfTables:
            let doc = try parse(lines(33_000) { "[[arrays.of.tables]]\nn = \($0)\n" })
            let list = doc.root["arrays"]?.table?["of"]?.table?["tables"]?.array
            #expect(list?.count == 33_000)
            #expect(list?.last == .table(["n": .number(32_999)]))
            #expect(doc.line(["arrays", "of", "tables", "n"]) == 2)
        case .deepArraysOfTables:
            let doc = try parse(lines(7_800) { "[[\(dotted(63))]]\nn = \($0)\n" })
            #expect(dig(doc.root, 62)?["a"]?.array?.count == 7_800)
        case .deepDottedKeys:
            let doc = try parse(lines(7_900) { "\(dotted(60)).k\($0) = \($0)\n" })
            let t = dig(doc.root, 60)
            #expect(t?.count == 7_900 && t?["k7899"] == .number(7_899))
            #expect(doc.line(Array(repeating: "a", count: 60) + ["k7899"]) == 7_900)
        case .deepTableNames:
            let doc = try parse(lines(7_500) { "[\(dotted(60)).k\($0)]\nv = \($0)\n" })
            let t = dig(doc.root, 60)
            #expect(t?.count == 7_500 && t?["k7499"] == .table(["v": .number(7_499)]))
        case .manyKeys:
            let doc = try parse(lines(66_000) { "k\($0) = \($0)\n" })
            #expect(doc.root.count == 66_000 && doc.root["k65999"] == .number(65_999))
            #expect(doc.line(["k65999"]) == 66_000)
        case .inlineTableKeys:
            let doc = try parse("x = { " + (0..<60_000).map { "k\($0) = \($0)" }.joined(separator: ", ") + " }\n")
            #expect(doc.root["x"]?.table?.count == 60_000)
        case .longLine:
            let doc = try parse("x = [" + String(repeating: "1, ", count: 333_000) + "]\n")
            #expect(doc.root["x"]?.array?.count == 333_000)
        case .longString:
            let doc = try parse("s = \"" + String(repeating: "x", count: 1_000_000) + "\"\n")
            #expect(doc.root["s"]?.string?.utf8.count == 1_000_000)
        case .longMultilineString:
            let doc = try parse("s = \"\"\"\n" + String(repeating: String(repeating: "x", count: 70) + "\n", count: 14_000) + "\"\"\"\n")
            #expect(doc.root["s"]?.string?.utf8.count == 71 * 14_000)
        }
    }

    /// Issue 49: a 1 MB key was printed whole in the error; it is cut to its start and end, with its length,
    /// and what the message says itself (the known names) is kept. The key is cut as the message's argument
    /// (so every language shows it cut): the length is the key's own, its quotes are the message's.
    @Test func aHugeKeyIsCutInTheMessage() {
        let key = String(repeating: "k", count: 1 << 20)
        #expect { try GestureConfig.parse("[smoothing]\n\(key) = 1\n", file: "huge.toml") } throws: { error in
            let d = (error as? ConfigError)?.description ?? ""
            return d.count < 400 && d.hasPrefix("huge.toml:2: unknown key \"kkkk") && d.contains("…kkkk")
                && d.contains("(\(key.count) characters)\" in [smoothing] (known: filter, window, alpha")
        }
        let spaced = String(repeating: "a ", count: 3_000)
        let long = ConfigError(file: "f.toml", line: 1, "voice phrase \"\(spaced)\" is not known")
        #expect(long.message.count < 2_100 && long.message.hasSuffix("is not known"), "\(long.message.suffix(80))")
    }
}

