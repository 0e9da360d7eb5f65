import ArgumentParser
@testable import handsfree
import Runtime
import Testing

/// `run --type-into`, parsed once when the command line is: a known sink, or a refusal that names the value
/// and lists the sinks there are.
@Suite struct OutputOptionTests {
    func refusal(_ args: [String]) -> String? {
        do { _ = try HandsFree.parseAsRoot(args); return nil } catch { return HandsFree.message(for: error) }
    }

    @Test func typeIntoIsParsedIntoASink() throws {
        let c = try #require(try HandsFree.parseAsRoot(["run", "--type-into", "tmux:work:1.0"]) as? RunCommand)
        #expect(c.typeInto?.kind.scheme == "tmux")
        #expect(c.typeInto?.argument == "work:1.0")
        let pty = try #require(try HandsFree.parseAsRoot(["run", "--type-into", "pty", "--", "vim", "notes.txt"]) as? RunCommand)
        #expect(pty.typeInto?.kind.scheme == "pty")
        #expect(pty.command == ["vim", "notes.txt"])
    }

    @Test func aBadSinkIsRefusedWithTheKnownOnes() {
        let message = refusal(["run", "--type-into", "screen:1"])
        #expect(message?.contains("The value 'screen:1' is invalid for '--type-into <sink>': unknown sink \"screen\" (known: pty, tmux:TARGET, x11[:DISPLAY], wayland[:SOCKET], uinput, auto)") == true,
                "\(message ?? "accepted")")
        #expect(refusal(["run", "--type-into", "tmux:"])?.contains("tmux needs a TARGET after the colon") == true)
        // A tmux pane runs its own program: naming one too is a contradiction; the pty runs it.
        #expect(refusal(["run", "--type-into", "tmux:w", "--", "vim"])?.contains("use --type-into tmux:TARGET or -- COMMAND, not both") == true)
    }
}
