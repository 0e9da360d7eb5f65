import Config
import Shell
import Testing
import TrackingCore

@Suite struct AppTests {
    /// Every app opens from its launcher tile and back leaves it, by each input path.
    @Test(arguments: InputPath.allCases) func everyAppFromTheLauncherAndBack(_ p: InputPath) {
        for app in ["notes", "messages", "settings", "media"] {
            var d = Driver(p, screen: "launcher")
            d.activate("launcher." + app)
            #expect(d.screen == app)
            switch p {
            case .gesture: d.gesture("back")
            case .dwell: d.activate(backTargetID)
            case .keyboard: d.key(.escape)
            }
            #expect(d.screen == "launcher", "back leaves \(app)")
        }
    }

    @Test func subScreensAndBack() {
        var d = Driver(.gesture, screen: "messages")
        d.activate("messages.contact.ben")
        #expect(d.screen == "conversation")
        #expect(d.text.contains("Home › Practice chat › Ben (practice)"))
        d.gesture("back")
        #expect(d.screen == "messages")
        d = Driver(.gesture, screen: "notes")
        d.activate("notes.new")
        #expect(d.screen == "note-editor")
        d.activate("note-editor.done")
        #expect(d.screen == "notes")
    }

    @Test func notesListShowsWhatTheEditorWrote() {
        var d = Driver(.keyboard, screen: "notes")
        d.activate("notes.new")
        d.type("buy milk")
        d.key(.escape)
        #expect(d.text.contains("buy milk"))
        #expect(d.text.contains("2 words"))
        d.activate("notes.note.1")
        d.type(" and eggs")
        d.key(.escape)
        #expect(d.text.contains("buy milk and eggs"))
    }

    @Test func sendingAppendsAndAReplyArrivesLater() {
        let files = MemoryFiles([:])
        var d = Driver(.keyboard, screen: "messages", files: .memory(files))
        d.activate("messages.contact.ana")
        d.type("hello ana")
        d.activate("conversation.send")
        #expect(d.text.contains("You: hello ana"))
        #expect(d.text.contains("Ana is typing…"))
        _ = d.tick(1)
        #expect(!d.text.contains("Ana: Got it"), "the reply takes \(AppData.replyDelay) s of source time")
        _ = d.tick(1.5)
        #expect(d.text.contains("Ana: Got it, thanks!"))
        let saved = files.files.withLock { $0[AppData.messagesFile] } ?? ""
        #expect(saved.contains("msg\tana\tme\thello ana\n"))
        #expect(saved.contains("msg\tana\tthem\tGot it, thanks!\n"))
    }

    @Test func clearingAConversationNeedsTheHeldSmile() {
        var d = Driver(.gesture, screen: "messages")
        d.activate("messages.contact.dev")
        #expect(d.data.messages(with: "dev").count == 1)
        d.activate("conversation.clear")
        #expect(d.text.contains("Smile 2 s to clear conversation"))
        d.gesture("confirm")
        #expect(d.data.messages(with: "dev").isEmpty)
        #expect(d.text.contains("No messages yet."))
    }

    @Test func enterKeySendsAndDictationInserts() {
        var d = Driver(.gesture, screen: "conversation")
        d.session.state.dictating = true
        _ = d.session.send(.speech("see you", isFinal: false))
        #expect(d.text.contains("see you"))
        _ = d.session.send(.speech("see you soon", isFinal: true))
        // While dictating the jaw does nothing; the right eye ends dictation first.
        d.gesture("back")
        #expect(!d.state.dictating)
        #expect(d.screen == "conversation", "back ends dictation and stays")
        d.activate("conversation.keyboard.enter")
        #expect(d.text.contains("You: see you soon"))
    }

    @Test func suggestionsComeFromTheServiceAndTongueCommits() {
        var d = Driver(.gesture, screen: "note-editor", suggest: { text, limit in
            Array((text.hasSuffix("he") ? ["hello", "help", "here", "head"] : []).prefix(limit))
        })
        d.type("he")
        #expect(d.text.contains("★ hello"))
        #expect(d.state.hitMap.target(id: "note-editor.suggestion.3") != nil)
        #expect(d.state.hitMap.target(id: "note-editor.suggestion.4") == nil, "4 suggestions by default")
        d.gesture("commit")
        #expect(d.text.contains("hello ▏"))
    }

    // MARK: files

    @Test func aCorruptNotesFileIsReportedMovedAsideAndWhatCouldBeReadKept() {
        let files = MemoryFiles([AppData.notesFile: "handsfree-notes 1\nnote\t1\tfirst\ngarbage line\nnote\t2\tsec\\qond\nnote\t3\tthird\n"])
        var d = Driver(.gesture, screen: "notes", files: .memory(files))
        #expect(d.data.notes.map(\.text) == ["first", "third"])
        #expect(d.text.contains("Damaged file notes.txt kept as notes.txt.corrupt-1: 2 lines could not be read, 2 entries kept."))
        let (aside, current) = files.files.withLock { ($0["notes.txt.corrupt-1"], $0[AppData.notesFile]) }
        #expect(aside?.contains("garbage line") == true, "the damaged file is kept whole")
        #expect(current == "handsfree-notes 1\nnote\t1\tfirst\nnote\t3\tthird\n",
                "the readable part is saved under the usual name, so the next start shows it too")
        d.activate("notes.note.3")
        d.type("!")
        #expect(files.files.withLock { $0[AppData.notesFile] }?.contains("third!") == true)
    }

    @Test func aCorruptMessagesFileIsReported() {
        let files = MemoryFiles([AppData.messagesFile: "not a messages file\nmsg\tana\tme\thi\n"])
        let d = Driver(.gesture, screen: "messages", files: .memory(files))
        #expect(d.text.contains("Damaged file messages.txt kept as messages.txt.corrupt-1: 1 line could not be read, 1 entry kept"))
        #expect(files.files.withLock { $0["messages.txt.corrupt-1"] } != nil)
        #expect(d.data.messages(with: "ana").map(\.text) == ["hi"])
        #expect(d.text.contains("Ana  typing…"), "the kept message still gets its reply")
    }

    /// A reply still on its way when the shell stopped arrives after the next start, as it would have.
    @Test func aReplyOwedBeforeARestartArrivesAfterIt() {
        let files = MemoryFiles([AppData.messagesFile:
            "handsfree-messages 1\nmsg\tana\tthem\tHi\nmsg\tana\tme\tone\nmsg\tana\tthem\tGot it, thanks!\nmsg\tana\tme\ttwo\nmsg\tana\tme\tthree\nmsg\tben\tthem\tSat?\n"])
        var data = AppData.load(.memory(files))
        #expect(data.messages(with: "ana").count == 5)
        #expect(data.isTyping("ana"), "two messages wait for replies")
        #expect(!data.isTyping("ben"), "Ben wrote last")
        #expect(!data.repliesDue(at: 50), "the delay starts at the first tick")
        data.apply(.deliverReplies(at: 50))
        #expect(data.repliesDue(at: 50 + AppData.replyDelay))
        data.apply(.deliverReplies(at: 50 + AppData.replyDelay))
        data.save(with: .memory(files))
        #expect(data.messages(with: "ana").suffix(2).map(\.text) == ["Sounds good to me.", "Ha, nice one."],
                "the replies the 2nd and 3rd sent messages get")
        #expect(!data.isTyping("ana"))
        let again = AppData.load(.memory(files))
        #expect(!again.repliesWaiting(at: 0) && !again.isTyping("ana"), "nothing owed after they arrived")
    }

    @Test func aReadOnlyDataFolderShowsAnErrorAndTheTextStays() {
        var d = Driver(.keyboard, screen: "note-editor",
                       files: .memory(failWrites: "cannot write in /data (Read-only file system)"))
        d.type("do not lose me")
        #expect(d.text.contains("Not saved, your text stays here: cannot write in /data (Read-only file system)."))
        #expect(d.text.contains("do not lose me▏"))
    }

    @Test func recordFileEscapesRoundTrip() {
        let records = [["note", "1", "tab\there\nnew line \\ backslash"]]
        let text = RecordFile.encode(header: "handsfree-notes 1", records)
        #expect(text.split(separator: "\n").count == 2)
        let (back, bad) = RecordFile.decode(text, fields: 3)
        #expect(back == records)
        #expect(bad == 0)
    }

    // MARK: settings

    @Test func settingsFileRoundTripsAndReportsBadValues() {
        var s = ShellSettings()
        s.tracking.jawThreshold = 0.65; s.tracking.dwellTime = 1.4; s.tracking.smoothing = .movingAverage; s.suggestions = 5
        s.showGazeCursor = false; s.keymap = "dwell"; s.suggestRudeWords = true
        let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
        #expect(back == s)
        #expect(problems.isEmpty)
        let (kept, bad) = ShellSettings.parse("jaw_threshold = 3\nsmoothing = \"kalman\"\nsuggest_rude_words = 1\n",
                                              file: "settings.toml")
        #expect(kept == ShellSettings())
        #expect(bad.count == 3)
        #expect(bad.contains("settings.toml:3: suggest_rude_words must be true or false"))
        #expect(bad.contains { $0.hasPrefix("settings.toml:1: jaw_threshold") })
    }

    /// A raised jaw threshold is in effect at once: an opening between the old and new thresholds no longer
    /// activates, a wider one does; the jaw still open from the slider does not fire again.
    @Test func jawThresholdChangesTheLivePipeline() {
        var d = Driver(.gesture, screen: "launcher")
        var s = d.state.settings
        s.tracking.jawThreshold = 0.8
        _ = d.session.send(.key(.char("?")))   // any screen: settings apply from wherever they come
        d.session.apply(s)
        _ = d.session.send(.key(.escape))
        let notes = Fixture.gaze(at: "launcher.notes", in: d.state)
        var t = 100.0
        func feed(_ jaw: Float, _ secs: Double) -> [Effect] {
            var out: [Effect] = []
            for _ in 0..<Int(secs * 60) {
                out += d.session.step(.frame(TrackingFrame(t: t, blend: BlendShapes([.jawOpen: jaw]), gaze: notes), nil))
                t += 1.0 / 60
            }
            return out
        }
        _ = feed(0, 1.2)   // a still face first: safe start
        #expect(feed(0.65, 0.8).records.isEmpty, "0.65 is below the new threshold")
        _ = feed(0, 0.5)
        #expect(d.screen == "launcher")
        #expect(feed(0.9, 0.6).records.map(\.action) == ["open"])
        #expect(d.screen == "notes")
    }

    @Test func rebuiltPipelineDoesNotFireForAJawStillOpen() {
        var d = Driver(.gesture, screen: "launcher")
        let notes = Fixture.gaze(at: "launcher.notes", in: d.state)
        var t = 10.0
        for _ in 0..<30 { _ = d.session.step(.frame(TrackingFrame(t: t, blend: BlendShapes([.jawOpen: 0.7]), gaze: notes), nil)); t += 1.0 / 60 }
        var s = d.state.settings; s.tracking.jawThreshold = 0.3
        d.session.apply(s)
        var opened = false
        for _ in 0..<60 {
            if !d.session.step(.frame(TrackingFrame(t: t, blend: BlendShapes([.jawOpen: 0.7]), gaze: notes), nil)).records.isEmpty { opened = true }
            t += 1.0 / 60
        }
        #expect(!opened, "a jaw held open through the change must be released first")
    }

    // MARK: media

    @Test func playbackFollowsSourceTime() {
        var d = Driver(.gesture, screen: "media")
        d.activate("media.track.2")
        #expect(d.text.contains("Playing: First bus"))
        _ = d.tick(0)
        for _ in 0..<10 { _ = d.tick(0.5) }
        #expect(d.text.contains("0:05 / 4:02"))
        d.activate("media.play")
        for _ in 0..<10 { _ = d.tick(0.5) }
        #expect(d.text.contains("Paused: First bus"))
        d.activate("media.next")
        #expect(d.text.contains("Open windows"))
    }

    // MARK: help

    @Test(arguments: ["notes", "note-editor", "messages", "conversation", "settings", "media"])
    func appHelpIsGeneratedFromTheKeymap(_ app: String) {
        var d = Driver(.gesture, screen: app)
        _ = d.session.send(.speech("help", isFinal: true))
        #expect(d.screen == "help")
        let text = d.text
        // Tips wrap: a phrase is looked for with the rows joined.
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("How to use"))
        #expect(text.contains("open the jaw"))
        if app == "media" { #expect(flat.contains("a quick wink of the right eye (shorter than 0.3 seconds) for the next")) }
        if app == "note-editor" { #expect(flat.contains("smile and hold for 2 seconds")) }
        d.activate("help.close")
        #expect(d.screen == app)
    }

    @Test func dwellHelpSaysHowWithoutGestures() {
        var d = Driver(.dwell, screen: "media")
        _ = d.session.send(.speech("help", isFinal: true))
        #expect(d.text.contains("look at ◀ or ▶ and rest the gaze on a target"))
    }
}
