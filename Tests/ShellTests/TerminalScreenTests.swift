import Config
import Localization
import Shell
import TerminalModel
import Testing
import TrackingCore

/// The Terminal screen as the pure core sees it: inputs become `TerminalRequest` effects for the runtime.
@Suite struct TerminalScreenTests {
    /// A view of a 10×40 screen whose cursor line holds `line`, the cursor after it.
    static func view(_ line: String, hidden: Bool = false, ended: String? = nil, scrollback: Int = 0) -> TerminalView {
        var v = TerminalView.blank(rows: 10, cols: 40, program: "bash")
        for (i, ch) in line.enumerated() { v.snapshot.cells[3 * 40 + i] = TerminalCell(text: String(ch)) }
        v.snapshot.cursor = TerminalPosition(row: 3, col: line.count)
        v.inputHidden = hidden
        v.ended = ended.map(UIMessage.verbatim)
        v.scrollback = scrollback
        return v
    }

    static func requests(_ effects: [Effect]) -> [TerminalRequest] {
        effects.compactMap { if case .terminal(let r) = $0 { return r } else { return nil } }
    }

    func driver(_ line: String = "$ ", hidden: Bool = false, path: InputPath = .gesture,
                learned: LearnLog = LearnLog()) -> Driver {
        var d = Driver(path, screen: "terminal", suggest: { text, n in
            text.hasSuffix("ech") ? ["echo", "eches"] : ["ls", "cd", "git"] },
                       learn: { w, before in learned.add(w + "|" + before) })
        d.send(.terminal(Self.view(line, hidden: hidden)))
        return d
    }

    final class LearnLog: @unchecked Sendable {
        var words: [String] = []
        func add(_ w: String) { words.append(w) }
    }

    @Test(arguments: [InputPath.gesture, .dwell, .keyboard])
    func keyboardKeysTypeIntoTheProgram(_ path: InputPath) {
        var d = driver(path: path)
        #expect(Self.requests(d.activate("terminal.keyboard.key.e")) == [.type("e")])
        #expect(Self.requests(d.activate("terminal.keyboard.space")) == [.type(" ")])
        #expect(Self.requests(d.activate("terminal.keyboard.enter")) == [.press(TerminalKeyPress(.enter))])
        #expect(Self.requests(d.activate("terminal.key.ctrl-c")) == [.press(TerminalKeyPress(.ctrl("c")))])
        #expect(Self.requests(d.activate("terminal.key.page-up")) == [.press(TerminalKeyPress(.pageUp))])
    }

    /// The runtime delivers `keyForProgram`'s request before the key is reduced and drops it from the key's
    /// effects: that is only right if the reduction makes that very request, once, in every state it is given.
    @Test func aKeyDeliveredAheadIsTheOneTheReductionMakes() {
        let keys: [Key] = [.char("a"), .char(" "), .char("?"), .char("q"), .char("é"), .backspace, .enter, .escape,
                           .ctrl("c"), .up, .tab]
        var states: [(String, Driver)] = [("plain", driver()), ("hidden", driver(hidden: true)),
                                          ("keyboard", driver(path: .keyboard)), ("typed", driver("$ ech"))]
        var latched = driver()
        latched.activate("terminal.key.ctrl-latch")
        states.append(("ctrl latched", latched))
        var dictating = driver()
        dictating.send(.speech("start dictation", isFinal: true))
        states.append(("dictating", dictating))
        var ended = driver()
        ended.send(.terminal(Self.view("$ ", ended: "sh exited with status 0")))
        states.append(("ended", ended))
        var elsewhere = driver()
        elsewhere.activate("terminal.leave")
        states.append(("left", elsewhere))
        var aheadCount = 0
        for (name, d) in states {
            for key in keys {
                var whole = d.session, ahead = d.session
                let effects = whole.send(.key(key))
                guard let early = d.state.keyForProgram(key) else { continue }
                aheadCount += 1
                let made = Self.requests(effects)
                #expect(made.filter { $0 == early }.count == 1, "\(name), \(key): \(made) for \(early)")
                var rest = effects
                rest.remove(at: rest.firstIndex(of: .terminal(early)) ?? rest.endIndex - 1)
                #expect(ahead.send(key: key, delivered: early) == rest, "\(name), \(key)")
                #expect(ahead.state.revision == whole.state.revision)
            }
        }
        // Characters and Backspace on the plain, hidden, keyboard, typed and ended states (an ended program's
        // keys are delivered and come back undelivered, kept); none latched, dictating or off the screen.
        #expect(aheadCount == 5 * 6)
        #expect(latched.state.keyForProgram(.char("r")) == nil)
        #expect(dictating.state.dictating && dictating.state.keyForProgram(.char("r")) == nil)
        #expect(elsewhere.state.keyForProgram(.char("r")) == nil)
    }

    @Test func theCtrlLatchMakesTheNextLetterAChordAndReleases() {
        var d = driver()
        #expect(Self.requests(d.activate("terminal.key.ctrl-latch")).isEmpty)
        #expect(d.text.contains("Ctrl ●"))
        #expect(Self.requests(d.activate("terminal.keyboard.key.r")) == [.press(TerminalKeyPress(.ctrl("r")))])
        #expect(Self.requests(d.activate("terminal.keyboard.key.r")) == [.type("r")])
    }

    @Test func theSymbolLayerHasWhatAShellNeeds() {
        var d = driver()
        d.activate("terminal.layer")
        for ch in "-/.|><~$*&;:=_\"'0123456789" {
            #expect(d.state.hitMap.target(id: "terminal.keyboard.key.\(ch)") != nil, "no key for \(ch)")
        }
        #expect(Self.requests(d.activate("terminal.keyboard.key.|")) == [.type("|")])
    }

    @Test func aSuggestionCompletesTheWordBeforeTheCursorAndIsLearned() {
        let log = LearnLog()
        var d = driver("$ ech", learned: log)
        #expect(d.text.contains("★ echo"))
        #expect(Self.requests(d.gesture("commit")) == [.type("o ")])
        #expect(log.words == ["echo|$ "])
    }

    @Test func committingCompletesOnlyTheWordNotThePathBeforeIt() {
        var d = Driver(.gesture, screen: "terminal", suggest: { _, _ in ["Documents"] })
        d.send(.terminal(Self.view("$ cd ~/Doc")))
        #expect(Self.requests(d.gesture("commit")) == [.type("uments ")])
        d.send(.terminal(Self.view("$ cd ~/Dox")))
        #expect(Self.requests(d.gesture("commit")) == Array(repeating: .press(TerminalKeyPress(.backspace)), count: 3) + [.type("Documents ")])
    }

    @Test func programsAndFilesAreOfferedWhereTheyFitAndCommittedAsTheShellReadsThem() {
        let log = LearnLog()
        func bar(_ d: Driver) -> [String] {
            let line = d.text.split(separator: "\n").first { $0.contains("★") } ?? ""
            return line.replacingOccurrences(of: "★", with: "").split(separator: " ").map(String.init)
        }
        var d = Driver(.gesture, screen: "terminal", suggest: { _, _ in ["give", "given"] },
                       learn: { w, before in log.add(w + "|" + before) }, commands: ["git", "gio", "ls"],
                       directory: [.init(name: "Documents", isDirectory: true), .init(name: "doc.txt", isDirectory: false)])
        // Where a command begins: programs, then the dictionary's words to fill the bar.
        d.send(.terminal(Self.view("$ gi")))
        #expect(bar(d) == ["git", "gio", "give", "given"])
        #expect(Self.requests(d.gesture("commit")) == [.type("t ")])
        #expect(log.words == ["git|$ "])
        // After cd: directories only, and the path goes on after the slash; a file name is not learned.
        d.send(.terminal(Self.view("$ cd Do")))
        #expect(bar(d) == ["Documents/"])
        #expect(Self.requests(d.gesture("commit")) == [.type("cuments/")])
        d.send(.terminal(Self.view("$ vim do")))
        #expect(bar(d).prefix(2) == ["doc.txt", "Documents/"])
        #expect(Self.requests(d.gesture("commit")) == [.type("c.txt ")])
        #expect(log.words == ["git|$ "])
    }

    /// The keys a helper's keyboard has beyond the ones that drive the shell's focus (arrows, Tab, Enter, which a
    /// keyboard or switch user needs on every screen) are the program's on the Terminal screen.
    @Test func controlAndPagingKeysGoToTheProgram() {
        var d = driver("$ ls")
        let keys: [(Key, TerminalKeyPress)] = [
            (.pageUp, TerminalKeyPress(.pageUp)), (.pageDown, TerminalKeyPress(.pageDown)), (.home, TerminalKeyPress(.home)),
            (.end, TerminalKeyPress(.end)), (.delete, TerminalKeyPress(.delete)), (.ctrl("c"), TerminalKeyPress(.ctrl("c"))),
            (.ctrl("r"), TerminalKeyPress(.ctrl("r"))), (.ctrl("\\"), TerminalKeyPress(.ctrl("\\"))),
        ]
        for (key, press) in keys {
            #expect(Self.requests(d.send(.key(key))) == [.press(press)], "\(key)")
        }
        // The on-screen Ctrl latch applies to them as to the key row's keys.
        _ = d.activate("terminal.key.ctrl-latch")
        #expect(Self.requests(d.send(.key(.home))) == [.press(TerminalKeyPress(.home, modifiers: .ctrl))])
    }

    /// Off the Terminal screen a control key does nothing in the shell but Ctrl-C, which ends it as the
    /// interrupt did (the keyboard source gives it as a key; the reducer decides), and arrows still move the focus.
    @Test func offTheTerminalControlKeysDoNothingAndArrowsMoveFocus() {
        var d = Driver(.gesture, screen: "notes")
        #expect(d.send(.key(.ctrl("r"))).isEmpty)
        #expect(d.send(.key(.ctrl("c"))) == [.end(signal: ShellSignal.interrupt, unsaved: [:])])
        d.key(.down)
        #expect(d.state.focus.focused != nil)
    }

    @Test func aPasswordPromptShowsNoSuggestionsLearnsNothingAndLogsNoKeys() {
        let log = LearnLog()
        var d = driver("Password: ", hidden: true, learned: log)
        #expect(d.state.hitMap.target(id: "terminal.suggestion.0") == nil)
        #expect(d.text.contains("input is hidden"))
        let effects = d.activate("terminal.keyboard.key.s") + d.activate("terminal.keyboard.space")
            + d.activate("terminal.keyboard.enter")
        #expect(Self.requests(effects) == [.type("s"), .type(" "), .press(TerminalKeyPress(.enter))])
        #expect(effects.records.allSatisfy { $0.target == nil && $0.action == "type-hidden" }, "\(effects.records)")
        #expect(log.words.isEmpty)
    }

    @Test func backDoesNotLeaveLeaveDoes() {
        var d = driver()
        d.gesture("back")
        #expect(d.screen == "terminal")
        d.activate("terminal.leave")
        #expect(d.screen == "launcher")
    }

    @Test func terminalPhrasesSendKeysAndLeave() {
        var d = driver()
        #expect(Self.requests(d.send(.speech("control c", isFinal: true))) == [.press(TerminalKeyPress(.ctrl("c")))])
        #expect(Self.requests(d.send(.speech("press enter", isFinal: true))) == [.press(TerminalKeyPress(.enter))])
        d.send(.speech("leave terminal", isFinal: true))
        #expect(d.screen == "launcher")
    }

    @Test func helpExplainsTheScreenAndItsPhrases() {
        var d = driver()
        d.send(.speech("help", isFinal: true))
        #expect(d.state.top.title == "Help" && (d.state.top as? AppHelpScreen)?.app == "terminal")
        #expect(d.text.contains("Leave: ◀ Leave or say \"leave terminal\""), "\(d.text)")
        #expect(d.text.contains("\"control c\" → press Ctrl+C"), "\(d.text)")
        #expect(d.text.contains("Suggestions: programs where a command begins"), "\(d.text)")
    }

    @Test func dictationIsTypedAsKeyed() {
        var d = driver("$ ")
        d.activate("terminal.pane")
        #expect(d.state.dictating)
        #expect(Self.requests(d.send(.speech("git status", isFinal: true))) == [.type("git status")])
    }

    /// An utterance Whisper could not read ends with an empty preview: the words PocketSphinx guessed go away
    /// (before, "hearing: what ah" stayed beside the notice that nothing was typed).
    @Test func anEmptyPreviewTakesTheHeardWordsAway() {
        var d = driver("$ ")
        d.activate("terminal.pane")
        #expect(Self.requests(d.send(.speech("what ah", isFinal: false))).isEmpty)
        #expect(d.text.contains("what ah"), "\(d.text)")
        #expect(Self.requests(d.send(.speech("", isFinal: false))).isEmpty)
        #expect(!d.text.contains("what ah") && !d.text.contains("hearing:"), "\(d.text)")
    }

    @Test func scrollByGazeAtThePaneEdge() {
        var d = driver()
        d.send(.terminal(Self.view("$ ", scrollback: 500)))
        let pane = d.target("terminal.pane").rect
        let top = d.gesture("scroll", gazeAt: CellPoint(x: pane.x + 5, y: pane.y))
        guard case .scroll(let to)? = Self.requests(top).first else { Issue.record("no scroll: \(top)"); return }
        #expect(to > 0)
        d.send(.terminal({ var v = Self.view("$ ", scrollback: 500); v.scrolledBack = to; return v }()))
        let bottom = d.gesture("scroll", gazeAt: CellPoint(x: pane.x + 5, y: pane.maxY - 1))
        #expect(Self.requests(bottom) == [.scroll(to: 0)])
    }

    @Test func anEndedProgramOffersRestartAndLeave() throws {
        var d = driver()
        d.send(.terminal(Self.view("$ ", ended: "bash exited with status 0")))
        #expect(d.text.contains("bash exited with status 0"))
        let pane = try #require(d.state.hitMap.target(id: TerminalScreen.paneID)?.rect)
        #expect(Self.requests(d.activate("terminal.restart")) == [.restart(rows: pane.h, cols: pane.w)], "at the pane's size, the state's")
        #expect(d.state.terminalPane.size == Size(width: pane.w, height: pane.h))
        #expect(d.state.hitMap.target(id: "terminal.keyboard.key.q") == nil)
    }

    /// A program that could not start leaves a blank pane of many rows (each an empty line): Restart is offered.
    @Test func aProgramThatDidNotStartOffersRestartOnABlankPane() throws {
        var d = driver()
        var v = TerminalView.blank(rows: 10, cols: 40, program: "nosuchshell")
        v.problem = .verbatim("cannot start nosuchshell: No such file or directory")
        d.send(.terminal(v))
        #expect(d.state.hitMap.target(id: "terminal.restart") != nil, "\(d.text)")
        let pane = try #require(d.state.hitMap.target(id: TerminalScreen.paneID)?.rect)
        #expect(Self.requests(d.activate("terminal.restart")) == [.restart(rows: pane.h, cols: pane.w)])
    }

    @Test func coloursKeepThePaletteAndRGBFindsItsNearestEntry() {
        var v = Self.view("x")
        v.snapshot.cells[0] = TerminalCell(text: "R", attributes: [.bold, .underline],
                                           foreground: .rgb(250, 10, 10), background: .indexed(21))
        v.snapshot.cells[1] = TerminalCell(text: "界", width: 2, foreground: .indexed(2))
        v.snapshot.cells[2] = TerminalCell(text: "", width: 0)
        var d = driver()
        d.send(.terminal(v))
        let pane = d.target("terminal.pane").rect
        let grid = render(d.state, size: d.state.size).0
        // RGB goes to the nearest palette entry; palette numbers pass through, and show as the nearest
        // basic colour where the terminal has only eight.
        #expect(grid[pane.x, pane.y].style == Style(fg: .indexed(196), bg: .indexed(21), attrs: [.bold, .underline]))
        #expect(Color.indexed(196).basic == .red && Color.indexed(21).basic == .blue)
        #expect(grid[pane.x + 1, pane.y].ch == "界")
        #expect(grid[pane.x + 2, pane.y].isContinuation)
        #expect(grid[pane.x + 1, pane.y].style.fg == .indexed(2))
        #expect(Color.indexed(2).basic == .green && Color.indexed(10).basic == .green && Color.indexed(250).basic == .white)
        #expect(Color.nearest(r: 128, g: 128, b: 128) == .indexed(244))
    }

    /// Every pane cell as worked out on its own, so the pane's shortcuts (a look kept while neighbours share
    /// it, single bytes taken without grapheme breaking) can never draw anything else.
    @Test func everyPaneCellIsDrawnAsItsOwnLookAndCharacter() {
        var v = Self.view("")
        var rng = SplitMix(seed: 26)
        let colours: [TerminalColor] = [.default, .default, .indexed(1), .indexed(202), .rgb(250, 10, 10), .rgb(0, 0, 0)]
        let texts = [" ", "a", "~", "\u{7}", "\u{7f}", "é", "e\u{301}", "\u{85}", "\u{1}\u{301}"]
        var i = 0
        while i < v.snapshot.cells.count {
            // Runs of one look, as a program's output has, broken at random.
            let look = TerminalCell(attributes: TerminalAttributes(rawValue: UInt8(truncatingIfNeeded: rng.next() % 16)),
                                    foreground: colours[Int(rng.next() % 6)], background: colours[Int(rng.next() % 6)])
            for _ in 0..<Int(rng.next() % 12) where i < v.snapshot.cells.count {
                var cell = look
                if rng.next() % 9 == 0 && (i + 1) % 40 != 0 {
                    cell.text = "界"; cell.width = 2
                    v.snapshot.cells[i] = cell
                    v.snapshot.cells[i + 1] = TerminalCell(text: "", width: 0)
                    i += 2
                    continue
                }
                cell.text = texts[Int(rng.next() % UInt64(texts.count))]
                v.snapshot.cells[i] = cell
                i += 1
            }
        }
        v.snapshot.cursor = TerminalPosition(row: 5, col: 17)
        var d = driver()
        d.send(.terminal(v))
        let pane = d.target("terminal.pane").rect
        let grid = render(d.state, size: d.state.size).0
        func colour(_ c: TerminalColor) -> Color {
            switch c {
            case .default: return .default
            case .indexed(let n): return .indexed(n)
            case .rgb(let r, let g, let b): return Color.nearest(r: r, g: g, b: b)
            }
        }
        var checked = 0
        for row in 0..<min(pane.h, 10) {
            for col in 0..<min(pane.w, 40) {
                let cell = v.snapshot.cells[row * 40 + col]
                var attrs: Attributes = []
                if cell.attributes.contains(.bold) { attrs.insert(.bold) }
                if cell.attributes.contains(.underline) { attrs.insert(.underline) }
                if cell.attributes.contains(.reverse) { attrs.insert(.reverse) }
                if row == 5 && col == 17 { attrs.formSymmetricDifference(.reverse) }
                let first = cell.text.unicodeScalars.first?.value ?? 0x20
                let shown: Character = cell.width == 0 ? Cell.continuation
                    : first < 0x20 || (0x7f..<0xa0).contains(first) ? " " : cell.text.first ?? " "
                let got = grid[pane.x + col, pane.y + row]
                #expect(got.ch == shown, "row \(row) col \(col): \(cell.text.debugDescription)")
                if cell.width != 0 {
                    #expect(got.style == Style(fg: colour(cell.foreground), bg: colour(cell.background), attrs: attrs),
                            "row \(row) col \(col)")
                }
                checked += 1
            }
        }
        #expect(checked == 400)
    }

    @Test func settingsNameTheTerminalCommand() {
        let (s, problems) = ShellSettings.parse("terminal_command = [\"htop\", \"-d\", \"20\"]\n", file: "settings.toml")
        #expect(problems.isEmpty)
        #expect(s.terminalCommand == ["htop", "-d", "20"])
        #expect(ShellSettings.parse(s.toml, file: "again").0.terminalCommand == ["htop", "-d", "20"])
        #expect(ShellSettings.parse("terminal_command = \"mc\"\n", file: "f").0.terminalCommand == ["mc"])
        var head = ShellSettings()
        head.tracking.headReachDegrees = 20; head.tracking.headDeadZoneDegrees = 1.5
        let back = ShellSettings.parse(head.toml, file: "again").0
        #expect(back.tracking.headReachDegrees == 20 && back.tracking.headDeadZoneDegrees == 1.5)
        #expect(ShellSettings.parse("head_reach_deg = 90\n", file: "f").1.first?.hasPrefix("f:1: head_reach_deg must be a number 2…45 (degrees)") == true)
        var speech = ShellSettings()
        speech.dictationNumbers = "words"; speech.dictationEngine = "pocketsphinx"
        let again = ShellSettings.parse(speech.toml, file: "s").0
        #expect(again.dictationNumbers == "words" && again.dictationEngine == "pocketsphinx")
        #expect(ShellSettings.parse("dictation_engine = \"dragon\"\n", file: "f").1.first?.hasPrefix("f:1: dictation_engine must be") == true)
        let (kept, bad) = ShellSettings.parse("\nterminal_command = [\"vim\", 3]\n", file: "settings.toml")
        #expect(kept.terminalCommand.isEmpty)
        #expect(bad.first?.hasPrefix("settings.toml:2: terminal_command must be a program") == true, "\(bad)")
    }

    @Test func keymapTerminalSectionIsChecked() throws {
        let known = GestureDefaults.definitions.map(\.name)
        let good = try Keymap.parse("[terminal.gestures]\nwink_left = \"escape\"\n[terminal.voice]\n\"control c\" = \"ctrl-c\"\n",
                                    file: "k.toml", knownGestures: known, knownScreens: ScreenRegistry.standard.names)
        #expect(good.terminalBinding(gesture: "wink_left") == .press("escape"))
        #expect(good.terminalBinding(phrase: "Control  C") == .press("ctrl-c"))
        #expect(good.allPhrases.contains("control c"))
        for (text, message) in [("[terminal.gestures]\nback = \"back\"\n", "k.toml:2: \"back\" is not bound"),
                                ("[terminal.voice]\n\"press\" = \"ctrl-\"\n", "k.toml:2: unknown terminal binding"),
                                ("[terminal]\nkeys = 1\n", "k.toml:2: unknown key \"keys\" in [terminal]")] {
            #expect(throws: ConfigError.self) {
                try Keymap.parse(text, file: "k.toml", knownGestures: known, knownScreens: ScreenRegistry.standard.names)
            }
            do {
                _ = try Keymap.parse(text, file: "k.toml", knownGestures: known, knownScreens: ScreenRegistry.standard.names)
            } catch {
                #expect("\(error)".hasPrefix(message), "\(error)")
            }
        }
    }
}
