import Testing
@testable import PtyHost

/// The emulator fed directly, and the pure parts: key mapping, status decoding, the child's environment.
@Suite struct VTermScreenTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func keysFollowTheChildsCursorKeyMode() {
        let s = VTermScreen(rows: 5, cols: 20)
        #expect(s.press(.up) == Self.bytes("\u{1b}[A"))
        #expect(s.feed(Self.bytes("\u{1b}[?1h")).isEmpty)
        #expect(s.press(.up) == Self.bytes("\u{1b}OA"))
        #expect(s.press(.enter) == [0x0d])
        #expect(s.press(.tab) == [0x09])
        #expect(s.press(.backspace) == [0x7f])
        #expect(s.press(.escape) == [0x1b])
        #expect(s.press(.pageUp) == Self.bytes("\u{1b}[5~"))
        #expect(s.press(.ctrl("c")) == [0x03])
        #expect(s.press(.ctrl("D")) == [0x04])
        #expect(s.press(.ctrl("m")) == [0x0d])
        #expect(s.press(.alt("b")) == Self.bytes("\u{1b}b"))
        #expect(s.press(.char("\u{4F60}")) == Self.bytes("\u{4F60}"))
        #expect(s.press(.left, modifiers: .ctrl) == Self.bytes("\u{1b}[1;5D"))
        #expect(s.type("ls -l") == Self.bytes("ls -l"))
    }

    @Test func pasteIsBracketedOnlyWhenTheChildAsks() {
        let s = VTermScreen(rows: 5, cols: 20)
        #expect(s.paste("a\nb") == Self.bytes("a\nb"))
        _ = s.feed(Self.bytes("\u{1b}[?2004h"))
        #expect(s.paste("a\nb") == Self.bytes("\u{1b}[200~a\nb\u{1b}[201~"))
    }

    @Test func queriesGetReplies() {
        let s = VTermScreen(rows: 5, cols: 20)
        #expect(s.feed(Self.bytes("ab\u{1b}[6n")) == Self.bytes("\u{1b}[1;3R"))
    }

    @Test func titleCursorAndAltScreen() {
        let s = VTermScreen(rows: 5, cols: 20)
        _ = s.feed(Self.bytes("\u{1b}]2;my title\u{07}\u{1b}[3;4H\u{1b}[?25l"))
        var snap = s.snapshot()
        #expect(snap.title == "my title")
        #expect(snap.cursor == TerminalPosition(row: 2, col: 3))
        #expect(snap.cursorVisible == false)
        _ = s.feed(Self.bytes("\u{1b}[?1049hALT"))
        snap = s.snapshot()
        #expect(snap.isAltScreen)
        #expect(snap.lineText(2) == "   ALT")
        _ = s.feed(Self.bytes("\u{1b}[?1049l"))
        #expect(s.snapshot().isAltScreen == false)
        #expect(s.snapshot().lineText(2) == "")
    }

    @Test func snapshotsFollowScrollingAfterEarlierSnapshots() {
        let s = VTermScreen(rows: 3, cols: 10)
        _ = s.feed(Self.bytes("a\r\nb\r\nc"))
        #expect(s.snapshot().text == "a\nb\nc")
        #expect(s.hasChanges == false)
        _ = s.feed(Self.bytes("\r\nd\r\ne"))
        #expect(s.hasChanges)
        #expect(s.snapshot().text == "c\nd\ne")
        #expect(s.scrollbackCount == 2)
        #expect(s.scrollbackText(0) == "b")
        #expect(s.scrollbackText(1) == "a")
    }

    @Test func scrollbackRingKeepsTheNewestLinesAndGivesThemBackWhenTheScreenGrows() {
        let s = VTermScreen(rows: 2, cols: 10, scrollbackLimit: 3)
        for i in 1...7 { _ = s.feed(Self.bytes("\(i)\r\n")) }
        // Lines 1–6 scrolled off; the ring keeps 4, 5, 6. The screen shows 7 and an empty line.
        #expect(s.scrollbackCount == 3)
        #expect((0..<3).map(s.scrollbackText) == ["6", "5", "4"])
        s.resize(rows: 4, cols: 10)
        #expect(s.scrollbackCount == 1)
        #expect(s.snapshot().text == "5\n6\n7\n")
        #expect(s.scrollbackText(0) == "4")
    }

    @Test func viewScrolledBackShowsHistoryAboveTheScreen() {
        let s = VTermScreen(rows: 3, cols: 6, scrollbackLimit: 100)
        _ = s.feed(Self.bytes("1\r\n2\r\n3\r\n4\r\nlonger line\r\n6\r\n7"))
        // "longer line" wrapped into "longer" and " line"; the screen shows " line", "6", "7".
        #expect(s.view(scrolledBack: 0).text == " line\n6\n7")
        #expect(s.view(scrolledBack: 0).cursorVisible)
        #expect(s.view(scrolledBack: 1).text == "longer\n line\n6")
        #expect(s.view(scrolledBack: 1).cursorVisible == false)
        #expect(s.view(scrolledBack: 4).text == "2\n3\n4")
        // Clamped to what is kept.
        #expect(s.view(scrolledBack: 99).text == "1\n2\n3")
        #expect(s.view(scrolledBack: -3).text == " line\n6\n7")
        #expect(s.view(scrolledBack: 2).cells.count == 18)
        #expect(s.scrollbackWindow(back: 0, count: 2).map { TerminalSnapshot.text(of: $0) } == ["4", "longer"])
        #expect(s.scrollbackWindow(back: 3, count: 10).map { TerminalSnapshot.text(of: $0) } == ["1", "2"])
        #expect(s.scrollbackWindow(back: 5, count: 1).isEmpty)
        // A line kept from a wider screen is cut to the pane's width.
        s.resize(rows: 3, cols: 3)
        #expect(s.view(scrolledBack: 1).lineText(0) == "lon")
    }

    @Test func resizeKeepsContent() {
        let s = VTermScreen(rows: 3, cols: 10)
        _ = s.feed(Self.bytes("hello"))
        s.resize(rows: 4, cols: 20)
        let snap = s.snapshot()
        #expect(snap.rows == 4 && snap.cols == 20 && snap.cells.count == 80)
        #expect(snap.lineText(0) == "hello")
    }

    @Test func invalidUTF8ShowsReplacementAndTheScreenCarriesOn() {
        let s = VTermScreen(rows: 3, cols: 10)
        _ = s.feed([0xff, 0xfe, 0x41, 0xed, 0xa0, 0x80, 0x42])
        let line = s.snapshot().lineText(0)
        #expect(line.contains("A") && line.contains("B"))
    }

    @Test func exitStatusDecodesByHand() {
        #expect(ExitStatus(waitStatus: 3 << 8) == .exited(3))
        #expect(ExitStatus(waitStatus: 0) == .exited(0))
        #expect(ExitStatus(waitStatus: 9) == .signaled(9, coreDumped: false))
        #expect(ExitStatus(waitStatus: 0x80 | 11) == .signaled(11, coreDumped: true))
    }

    @Test func childEnvironmentSetsTerminalAndUTF8Locale() {
        let env = PtyProcess.childEnvironment(base: ["LANG": "C", "LC_ALL": "POSIX", "COLUMNS": "80", "HOME": "/h"])
        #expect(env["TERM"] == "xterm-256color")
        #expect(env["LANG"] == "C.UTF-8")
        #expect(env["LC_ALL"] == nil)
        #expect(env["COLUMNS"] == nil)
        #expect(env["HOME"] == "/h")
        let kept = PtyProcess.childEnvironment(base: ["LANG": "de_DE.UTF-8"], overrides: ["PS1": "$ "])
        #expect(kept["LANG"] == "de_DE.UTF-8")
        #expect(kept["PS1"] == "$ ")
    }

    @Test func ctrlChordsMapToControlCodesOrTheirKeys() {
        #expect(TerminalKey.ctrl("i").calls() == [.key(TerminalKey.Named.tab.rawValue, [])])
        #expect(TerminalKey.ctrl("j").calls() == [.unichar(0x0a, [])])
        #expect(TerminalKey.ctrl("Z").calls() == [.unichar(0x7a, .ctrl)])
        #expect(TerminalKey.function(5).calls() == [.key(261, [])])
        #expect(TerminalKey.function(99).calls().isEmpty)
        #expect(TerminalKey.char("e\u{0301}").calls() == [.unichar(0x65, []), .unichar(0x301, [])])
    }

    @Test func spawnRejectsBadArguments() {
        #expect(throws: PtyError.self) { try PtyProcess(argv: [], rows: 24, cols: 80) }
        #expect(throws: PtyError.self) { try PtyProcess(argv: ["true"], rows: 0, cols: 80) }
        #expect(throws: PtyError.self) { try PtyProcess(argv: ["echo", "a\u{0}b"], rows: 24, cols: 80) }
    }
}
