import Testing
@testable import PtyHost

/// The key row and symbol layer as data, the latches, and the bytes each key sends to a child in default modes.
@Suite struct TerminalKeyRowTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Bytes of one press in a fresh screen (the modes a child starts with).
    static func sent(_ press: TerminalKeyPress?) -> [UInt8]? {
        press.map { $0.bytes(in: VTermScreen(rows: 5, cols: 20)) }
    }

    @Test func keyRowHasWhatTerminalProgramsNeedWithTheirBytes() {
        let expected: [(String, String?)] = [
            ("enter", "\r"), ("tab", "\t"), ("escape", "\u{1b}"), ("backspace", "\u{7f}"),
            ("up", "\u{1b}[A"), ("down", "\u{1b}[B"), ("left", "\u{1b}[D"), ("right", "\u{1b}[C"),
            ("page-up", "\u{1b}[5~"), ("page-down", "\u{1b}[6~"), ("home", "\u{1b}[H"), ("end", "\u{1b}[F"),
            ("ctrl-c", "\u{3}"), ("ctrl-d", "\u{4}"), ("ctrl-z", "\u{1a}"), ("ctrl-latch", nil), ("alt-latch", nil),
        ]
        #expect(TerminalKeyRow.keys.map(\.id) == expected.map(\.0))
        for (id, want) in expected {
            var latches = TerminalLatches()
            guard let key = TerminalKeyRow.key(id: id) else {
                Issue.record("no key \(id)")
                continue
            }
            #expect(Self.sent(latches.press(key)) == want.map(Self.bytes), "\(id)")
        }
        #expect(Set(TerminalKeyRow.keys.map(\.label)).count == TerminalKeyRow.keys.count)
    }

    @Test func symbolLayerHasTheShellsSymbolsAndDigits() {
        let labels = TerminalKeyRow.symbols.map(\.label).joined()
        #expect(labels == "-/.|><~$*&;:=_\"'0123456789")
        for key in TerminalKeyRow.symbols {
            var latches = TerminalLatches()
            #expect(Self.sent(latches.press(key)) == Self.bytes(key.label), "\(key.id)")
        }
        let ids = TerminalKeyRow.symbols.map(\.id) + TerminalKeyRow.keys.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(TerminalKeyRow.key(id: "pipe")?.label == "|")
        #expect(TerminalKeyRow.key(id: "digit-7")?.label == "7")
        #expect(TerminalKeyRow.key(id: "nothing") == nil)
    }

    @Test func ctrlLatchMakesTheNextKeyAControlChordThenReleases() throws {
        var l = TerminalLatches()
        let ctrl = try #require(TerminalKeyRow.key(id: "ctrl-latch"))
        #expect(l.press(ctrl) == nil)
        #expect(l.held == .ctrl)
        #expect(Self.sent(l.press(.char("a"))) == [0x01])
        #expect(l.held.isEmpty)
        #expect(Self.sent(l.press(.char("a"))) == Self.bytes("a"))
        _ = l.press(ctrl)
        #expect(Self.sent(l.press(.char("R"))) == [0x12])
        _ = l.press(ctrl)
        #expect(Self.sent(l.press(.left)) == Self.bytes("\u{1b}[1;5D"))
        // Pressed twice, the latch is off again.
        _ = l.press(ctrl)
        _ = l.press(ctrl)
        #expect(l.held.isEmpty)
        #expect(Self.sent(l.press(.char("x"))) == Self.bytes("x"))
    }

    @Test func altLatchAndBothLatches() throws {
        var l = TerminalLatches()
        let ctrl = try #require(TerminalKeyRow.key(id: "ctrl-latch"))
        let alt = try #require(TerminalKeyRow.key(id: "alt-latch"))
        _ = l.press(alt)
        #expect(Self.sent(l.press(.char("b"))) == Self.bytes("\u{1b}b"))
        _ = l.press(alt)
        #expect(Self.sent(l.press(.up)) == Self.bytes("\u{1b}[1;3A"))
        _ = l.press(alt)
        _ = l.press(ctrl)
        #expect(l.held == [.ctrl, .alt])
        #expect(Self.sent(l.press(.char("x"))) == Self.bytes("\u{1b}\u{18}"))
        // Alt with the Ctrl-C key of the row.
        _ = l.press(alt)
        #expect(Self.sent(l.press(try #require(TerminalKeyRow.key(id: "ctrl-c")))) == Self.bytes("\u{1b}\u{3}"))
        #expect(l.held.isEmpty)
    }

    @Test func latchModifiesOnlyTheFirstCharacterOfTypedText() {
        var l = TerminalLatches(held: .ctrl)
        let presses = l.type("ls")
        #expect(presses == [TerminalKeyPress(.ctrl("l")), TerminalKeyPress(.char("s"))])
        #expect(presses.compactMap(Self.sent).flatMap { $0 } == [0x0c, 0x73])
        #expect(l.type("ab") == [TerminalKeyPress(.char("a")), TerminalKeyPress(.char("b"))])
    }

    @Test func latchedPressReachesBashAsTheInterrupt() throws {
        let t = try HostedTerminal(argv: ["bash", "--norc", "--noprofile"],
                                   environment: PtyProcess.childEnvironment(overrides: ["PS1": "$ ", "HISTFILE": "/dev/null"]),
                                   rows: 10, cols: 40)
        #expect(t.run(until: { $0.screen.snapshot().lineText(0) == "$" }, timeout: 10))
        t.type("sleep 30")
        t.send(.enter)
        #expect(t.run(until: { $0.process.foregroundProgram == "sleep" }, timeout: 10))
        var l = TerminalLatches(held: .ctrl)
        t.send(l.press(.char("c")))
        #expect(t.run(until: { $0.process.foregroundProgram == "bash" }, timeout: 10))
    }
}
