import Config
import Foundation
import FrameFormats
import Prediction
import Shell
import Testing
import TerminalModel
import TrackingCore

/// The core is pure in fact: the same recorded session gives the same screens and effects byte for byte, with
/// word prediction learning as it goes, and drawing a screen makes no system call that reads or writes.
@Suite struct CorePurityTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let take: String? = {
        let p = root + "/../shared/data/face/alex_rom_4.csv"
        return FileManager.default.fileExists(atPath: p) ? p : nil
    }()

    static func keymap() throws -> Keymap {
        let path = root + "/keymaps/default.toml"
        return try Keymap.parse(String(contentsOfFile: path, encoding: .utf8), file: path,
                                knownGestures: GestureDefaults.definitions.map(\.name), knownScreens: ScreenRegistry.standard.names)
    }

    /// The pure helpers the screens use (dictation as a live run edits it).
    static let services: Services = {
        var s = Services()
        s.dictate = Services.sessionDictation
        return s
    }()

    /// A real word predictor, loaded: what the runtime's loader hands the session in `.predictorLoaded`. It has
    /// places for the learned words and sentences, so learning asks for them to be written (never done here).
    static let predictor: Predictor = {
        var words = WordPredictor(words: [("the", 100), ("hello", 50), ("help", 40), ("here", 30), ("now", 25),
                                          ("there", 20), ("world", 15), ("hi", 12), ("notes", 10)])
        words.userFile = URL(fileURLWithPath: "/nonexistent/handsfree/user-words.txt")
        return Predictor(words: words, historyFile: "/nonexistent/handsfree/sentences.txt")
    }()

    /// A pane showing `line` with the cursor after it, its program in `folder`.
    static func view(_ line: String, in folder: String) -> TerminalView {
        var v = TerminalView.blank(rows: 10, cols: 40, program: "bash")
        for (i, ch) in line.enumerated() { v.snapshot.cells[i] = TerminalCell(text: String(ch)) }
        v.snapshot.cursor = TerminalPosition(row: 0, col: line.count)
        v.workingDirectory = folder
        return v
    }

    /// What one run of a recorded session gave: each step's screen as text and its effects.
    struct Trace: Equatable {
        var screens: [String] = []
        var effects: [[Effect]] = []
    }

    /// Frames of the real take with a helper's keys and speech results at fixed frames, and the event that
    /// carried the loaded predictor, answering the effects that come back as events the way the runtime would
    /// (saves written, listings); the session learns the words typed into its predictor as it goes.
    static func replay(_ items: [DecodedItem]) throws -> Trace {
        let settings = GestureConfig.defaults()
        let state = ShellState(keymap: try keymap(), gestures: settings.gestures, services: services,
                               data: AppData.load(.memory()), predictor: .loading)
        var session = Session(state: state, settings: settings)
        let script: [Int: [ShellEvent]] = [
            30: [.key(.right), .key(.enter)],                       // Notes
            60: [.key(.tab), .key(.enter)],                         // a new note
            75: [.predictorLoaded(predictor, language: nil, problem: nil)],        // the word lists, loaded in the background
            90: "hi there".map { .key(.char($0)) },
            120: [.speech("start dictation", isFinal: true)],
            150: [.speech("hello world comma", isFinal: false), .speech("hello world comma", isFinal: true)],
            180: [.speech("stop dictation", isFinal: true), .key(.escape), .key(.escape)],
            240: [.speech("open practice chat", isFinal: true)],
            300: [.key(.escape), .speech("open terminal", isFinal: true)],
            330: [.terminal(view("$ ec", in: "/home/u"))],
            345: [.key(.char(" "))],                                // a word finished on the command line is learned
            360: [.terminal(view("$ vim no", in: "/home/u"))],
        ]
        var trace = Trace()
        func record(_ effects: [Effect], _ session: Session) -> [ShellEvent] {
            trace.screens.append(render(session.state, size: session.state.size).0.text)
            trace.effects.append(effects)
            var replies: [ShellEvent] = []
            for e in effects {
                switch e {
                case .save(let name, _): replies.append(.saved(name: name, error: nil))
                case .listCommands: replies.append(.commandsListed(["echo", "ed", "env"]))
                case .listDirectory(let d): replies.append(.directoryListed(d, [.init(name: "notes.txt", isDirectory: false)]))
                default: break
                }
            }
            return replies
        }
        _ = record(session.send(.resized(Size(width: 100, height: 30))), session)
        for (k, item) in items.enumerated() {
            var pending = record(session.step(item), session)
            for e in script[k] ?? [] { pending += record(session.send(e), session) }
            while !pending.isEmpty { pending = record(session.send(pending.removeFirst()), session) + pending }
        }
        return trace
    }

    @Test(.enabled(if: take != nil, "needs ../shared/data/face/alex_rom_4.csv"))
    func aRecordedSessionReplaysToTheSameScreensAndEffectsByteForByte() throws {
        // The first ten seconds: every scripted event falls in them, and each step is drawn in full.
        let items = Array(try FrameFile.read(path: try #require(Self.take)).prefix(600))
        let first = try Self.replay(items)
        let second = try Self.replay(items)
        #expect(first.screens.count == second.screens.count)
        #expect(first.screens.count > items.count, "every frame and every scripted event was drawn")
        let differing = zip(first.screens, second.screens).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(differing == nil, "screens differ from step \(differing ?? -1)")
        #expect(first.effects == second.effects)
        // The script reached what it drives, so the comparison covers them.
        #expect(first.screens.contains { $0.contains("hi there hello world,") }, "the note and its dictation")
        #expect(first.screens.contains { $0.contains("Home › Practice chat") })
        #expect(first.effects.joined().contains(.listCommands), "the Terminal screen asked for programs")
        #expect(first.effects.joined().contains { if case .save = $0 { true } else { false } })
        // Learning was on: the words typed were learned into the predictor the screens consult, and the files
        // to write came as effects carrying their text.
        let learned = first.effects.joined().compactMap { if case .saveLearnedWords(let w) = $0 { w.text } else { nil } }
        #expect(learned.last?.contains("word\tec\t1") == true, "the command line's word: \(learned.last ?? "nothing learned")")
        #expect(first.screens.contains { $0.contains("loading words…") }, "drawn before the words came")
        #expect(first.screens.contains { $0.contains("Hello") }, "and with their suggestions after")
    }

    /// The same session without the predictor's event draws other screens: what the screens suggest comes
    /// from the state, so the replay above covers it.
    @Test func whatTheScreensSuggestComesFromTheEventThatCarriedThePredictor() throws {
        let settings = GestureConfig.defaults()
        func screen(_ predictor: Predictor) throws -> String {
            var state = ShellState(keymap: try Self.keymap(), gestures: settings.gestures, services: Self.services,
                                   data: AppData.load(.memory()), predictor: .loading)
            state.show(screen: "note-editor")
            var session = Session(state: state, settings: settings)
            _ = session.send(.predictorLoaded(predictor, language: nil, problem: nil))
            for c in "he" { _ = session.send(.key(.char(c))) }
            return render(session.state, size: session.state.size).0.text
        }
        let with = try screen(Self.predictor)
        let without = try screen(.none)
        #expect(with.contains("Hello") && !without.contains("Hello"), "\(with)")
    }

    /// Read and write system calls this thread has made (`/proc/thread-self/io`), so a screen that touched a
    /// file, a pipe or a socket while drawing shows.
    static func ioCalls() -> (reads: Int, writes: Int) {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8) else { return (-1, -1) }
        func value(_ key: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        return (value("syscr"), value("syscw"))
    }

    /// The states worth drawing: every registered screen, the quit question with unsaved text, the Terminal
    /// screen with a command line whose suggestions would once have read PATH and the working directory.
    static func states() throws -> [(String, ShellState)] {
        var out: [(String, ShellState)] = []
        for name in ScreenRegistry.standard.names {
            var s = ShellState(keymap: try keymap(), services: services, predictor: predictor)
            s.show(screen: name)
            out.append((name, s))
        }
        var terminal = ShellState(keymap: try keymap(), services: services, predictor: predictor)
        terminal.show(screen: "terminal")
        for line in ["$ ec", "$ cd /us", "$ vim no"] {
            terminal.terminal = view(line, in: "/")
            out.append(("terminal \(line)", terminal))
        }
        return out
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/thread-self/io"), "needs /proc/thread-self/io (Linux)"))
    func drawingAnyScreenMakesNoReadOrWriteSystemCall() throws {
        let states = try Self.states()
        // Reading the counters costs read calls of its own: measured with nothing between, they are the baseline.
        let a = Self.ioCalls(), b = Self.ioCalls()
        let baseline = (b.reads - a.reads, b.writes - a.writes)
        #expect(a.reads >= 0, "the counters are readable")
        // And they see a read when there is one.
        let c = Self.ioCalls()
        _ = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let d = Self.ioCalls()
        #expect(d.reads - c.reads > baseline.0, "a file read shows in the counters")
        for (name, state) in states {
            var s = state
            let before = Self.ioCalls()
            for _ in 0..<3 {
                _ = render(s, size: s.size)
                s.relayout()
                _ = layout(s, size: Size(width: 80, height: 24))
            }
            let after = Self.ioCalls()
            #expect(after.reads - before.reads == baseline.0, "\(name): \(after.reads - before.reads - baseline.0) reads while drawing")
            #expect(after.writes - before.writes == baseline.1, "\(name): \(after.writes - before.writes - baseline.1) writes while drawing")
        }
    }

    /// The modules a module's files import, from the sources (`import X`, with any attribute before it); nil
    /// when the module has no Swift file.
    static func imports(of module: String) throws -> Set<String>? {
        let folder = root + "/Sources/" + module
        let files = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        guard !files.isEmpty else { return nil }
        var out: Set<String> = []
        for file in files {
            for line in try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
                if words.first == "import", let name = words.dropFirst().first { out.insert(String(name)) }
            }
        }
        return out
    }

    /// Modules stay in their layer: the pure core imports no edge, the curses backend draws cells without the
    /// Shell, the cell UI knows nothing of the apps, and the sinks type and point without the shell or its loop. The package graph alone does not prove it: a module
    /// built earlier can be imported by one that does not declare it.
    @Test func eachModuleImportsNothingAboveItsLayer() throws {
        let edges: Set<String> = ["Runtime", "Transport", "Speech", "PtyHost", "Terminal", "Benchmarks", "handsfree",
                                  "UserFiles", "LiveServices", "Controls"]
        // What the loop's own module holds: the live services, the user's files and the desktop's controls sit
        // below it and beside the sinks, so none of them reaches up into the loop, a screen backend or the frames'
        // transport; only Controls speaks to the accessibility bus.
        let loop: Set<String> = ["Runtime", "Benchmarks", "handsfree", "Terminal", "Transport", "Sinks", "PtyHost"]
        let forbidden: [String: Set<String>] = [
            "TrackingCore": edges, "FrameFormats": edges, "Config": edges, "Prediction": edges,
            "SpeechText": edges, "TerminalModel": edges, "Localization": edges,
            "Shell": edges,
            "CellUI": edges.union(["Shell", "Config", "Prediction"]),
            "Terminal": ["Shell", "Runtime", "Config", "Prediction", "UserFiles", "LiveServices", "Controls"],
            "Sinks": ["Shell", "CellUI", "Runtime", "Config", "Prediction", "Transport", "UserFiles", "LiveServices",
                      "Controls"],
            // The user's files know nothing of the services that read them.
            "UserFiles": loop.union(["LiveServices", "Controls", "CAtspi"]),
            "LiveServices": loop.union(["Controls", "CAtspi"]),
            "Controls": loop.union(["UserFiles", "LiveServices", "Speech"]),
        ]
        for (module, banned) in forbidden.sorted(by: { $0.key < $1.key }) {
            let found = try #require(try Self.imports(of: module), "Sources/\(module) has no Swift file: moved?")
            #expect(found.isDisjoint(with: banned), "Sources/\(module) imports \(found.intersection(banned).sorted())")
        }
    }
}
