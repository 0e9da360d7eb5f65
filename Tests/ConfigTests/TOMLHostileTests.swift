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
