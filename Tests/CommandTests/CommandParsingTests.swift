import ArgumentParser
@testable import handsfree
import Runtime
import Shell
import Testing

/// The commands as parsed types: what a command line gives, and the mistakes refused before anything runs.
@Suite struct CommandParsingTests {
    func parse(_ args: [String]) throws -> ParsableCommand { try HandsFree.parseAsRoot(args) }

    func refusal(_ args: [String]) -> String? {
        do { _ = try parse(args); return nil } catch { return HandsFree.message(for: error) }
    }

    @Test func runTakesItsOptions() throws {
        let c = try #require(try parse(["run", "--replay", "take.ndjson", "--speed", "2", "--data-dir", "/d",
                                        "--no-speech", "--plain", "--theme", "high-contrast"]) as? RunCommand)
        #expect(c.replay == "take.ndjson")
        #expect(c.speed == 2)
        #expect(c.dataDir == "/d")
        #expect(c.noSpeech)
        #expect(c.access.plain)
        #expect(c.access.applied(to: ShellSettings()).theme == .highContrast)
    }

    @Test func runRefusesContradictionsBeforeTakingTheTerminal() {
        #expect(refusal(["run", "--replay", "a.ndjson", "--listen", "udp://127.0.0.1:11111"])?
            .contains("use --replay or --listen, not both") == true)
        #expect(refusal(["run", "--speed", "0"])?.contains("--speed must be above 0") == true)
        #expect(refusal(["run", "--theme", "sparkly"])?.contains("unknown theme sparkly") == true)
        #expect(refusal(["demo", "--speed=-1"])?.contains("--speed must be above 0") == true)
    }

    @Test func sizesAreWidthByHeight() throws {
        #expect(try Setup.size("80x24") == Size(width: 80, height: 24))
        #expect(throws: ValidationError.self) { try Setup.size("80") }
        let c = try #require(try parse(["layout", "--screen", "notes", "--size", "120x40"]) as? LayoutCommand)
        #expect(c.screen == "notes" && c.size == "120x40")
    }

    @Test func everyCommandFindsTheLearnedWordsWhereRunLearnsThem() throws {
        let run = try #require(try parse(["run", "--data-dir", "/d"]) as? RunCommand)
        let words = try #require(try parse(["words", "list", "--data-dir", "/d"]) as? Words)
        #expect(UserPaths.current(dataDir: run.dataDir).userWords.path == "/d/user-words.txt")
        #expect(UserWordsFile.url(userFile: words.userFile, paths: UserPaths.current(dataDir: words.dataDir)).path
                == "/d/user-words.txt")
    }
}
