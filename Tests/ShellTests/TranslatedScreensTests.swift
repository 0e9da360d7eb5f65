import Config
import Foundation
import Localization
import Shell
import Testing
import TrackingCore

/// Every screen drawn in every shipped language at 80×24 and 100×30 beside the same screen in English (the
/// golden screens per language): a message the English shows whole is shown whole in the language too (nothing
/// cut that fits in English), no row ends cut ("…") where the English row does not, and no message the
/// catalog translates is left in English on the screen.
@Suite(.serialized) struct TranslatedScreensTests {
    /// A screen to draw: its name in failures, and how the state gets there.
    struct Shown: CustomStringConvertible, Sendable {
        var description: String
        var show: @Sendable (inout ShellState) -> Void
    }

    static let sizes = [Size(width: 80, height: 24), Size(width: 100, height: 30)]

    /// Every screen of the registry, every Settings tab, the onboarding, each app's own help.
    static var screens: [Shown] {
        var out = ScreenRegistry.standard.names.map { name in
            Shown(description: name) { s in _ = s.show(screen: name) }
        }
        for (tab, _) in SettingsScreen.tabs {
            out.append(Shown(description: "settings › \(tab)") { s in
                _ = s.show(screen: "settings")
                s.stack[s.stack.count - 1] = SettingsScreen(tab: tab)
                s.relayout()
            })
        }
        for app in ["notes", "note-editor", "messages", "conversation", "settings", "phrases", "media", "terminal", "desktop",
                    "calibration", "setup", "gesture-calibration"] {
            // As each screen's help action opens it (a conversation's title holds the contact's name, so its help
            // names the app).
            let title = app == "conversation" ? "Practice conversation" : ScreenRegistry.standard.make(app)?.title ?? app
            out.append(Shown(description: "help for \(app)") { s in
                s.stack.append(AppHelpScreen(app: app, appTitle: title))
                s.relayout()
            })
        }
        out.append(Shown(description: "onboarding") { s in
            s.stack.append(HelpScreen(onboarding: true))
            s.relayout()
        })
        return out + setupScreens + otherScreens
    }

    /// What setup's survey finds on a machine here.
    static let survey = SetupSurvey(python: "/usr/bin/python3", installCommand: "/p/share/handsfree/scripts/python-env.sh",
                                    modelFolder: "/home/u/.local/share/handsfree/models", modelHost: "raw.githubusercontent.com",
                                    modelSize: 2_357_924, modelFiles: ["/media/usb/face_landmarker_with_blendshapes.task"],
                                    cameras: ["/dev/video0", "/dev/video2"], addresses: ["192.168.1.5"])

    /// Activates a target as a helper's Enter would.
    static func activate(_ s: inout ShellState, _ id: String) {
        s.focus.set(id, at: s.now)
        _ = reduce(&s, .key(.enter))
    }

    /// Setup opened and surveyed, then taken through `ids` with the runtime's `reports` after them.
    static func setup(_ name: String, _ ids: [String], _ reports: [SetupReport] = []) -> Shown {
        Shown(description: "setup › \(name)") { s in
            s.stack.append(SetupScreen())
            s.relayout()
            _ = reduce(&s, .setup(.surveyed(survey)))
            for id in ids { activate(&s, id) }
            for r in reports { _ = reduce(&s, .setup(r)) }
            s.relayout()
        }
    }

    /// Every step of setup, for each tracker, with what the runtime reports at each.
    static var setupScreens: [Shown] {
        let webcam = TrackerChoice(kind: .webcam, device: "/dev/video0")
        let mic = SetupReport.microphone(device: "default", level: 0.4, problem: nil)
        return [
            setup("tracker", []),
            setup("python", ["setup.tracker.webcam"]),
            setup("python installing", ["setup.tracker.webcam"], [.progress(.python, done: 0, total: nil, line: nil)]),
            setup("python failed", ["setup.tracker.webcam"], [.finished(.python, problem: .verbatim("pip stopped"), detail: nil, offline: false)]),
            setup("model", ["setup.tracker.webcam", "setup.next"]),
            setup("model downloading", ["setup.tracker.webcam", "setup.next", "setup.model.download"],
                  [.progress(.model, done: 1_200_000, total: 2_357_924, line: nil)]),
            setup("model offline", ["setup.tracker.webcam", "setup.next"],
                  [.finished(.model, problem: .verbatim("no route"), detail: nil, offline: true)]),
            setup("webcam", ["setup.tracker.webcam", "setup.next", "setup.next"],
                  [.trackerStarted(webcam, listening: "udp://127.0.0.1:40000", problem: nil)]),
            setup("audio", ["setup.tracker.webcam", "setup.next", "setup.next", "setup.next"],
                  [mic, .speaker(device: "default", problem: nil)]),
            setup("audio heard", ["setup.tracker.webcam", "setup.next", "setup.next", "setup.next"],
                  [.microphone(device: "default", level: 0, problem: nil), .speaker(device: "default", problem: nil)]),
            setup("gestures", ["setup.tracker.webcam", "setup.next", "setup.next", "setup.next", "setup.next"]),
            setup("pointer", ["setup.tracker.webcam", "setup.next", "setup.next", "setup.next", "setup.next", "setup.next"]),
            setup("done", ["setup.tracker.webcam", "setup.next", "setup.next", "setup.next", "setup.next", "setup.next", "setup.next"],
                  [mic, .speaker(device: "default", problem: "no audio output")]),
            setup("Live Link Face", ["setup.tracker.livelink"]),
            setup("iFacialMocap", ["setup.tracker.ifacialmocap"]),
            setup("OpenSeeFace", ["setup.tracker.openseeface"]),
            setup("keys only", ["setup.tracker.none", "setup.next"]),
        ]
    }

    /// The Controls view with a window's controls, the note editor, and each of the demo's captions.
    static var otherScreens: [Shown] {
        let form = ControlsSnapshot(generation: 7, application: "zenity", window: "Form", controls: [
            DesktopControl(index: 0, role: .menu, roleName: "menu", name: "File"),
            DesktopControl(index: 1, role: .textField, roleName: "text", name: "Name"),
            DesktopControl(index: 2, role: .checkBox, roleName: "check box", name: "Remember me", states: .checked),
            DesktopControl(index: 3, role: .button, roleName: "push button", name: "Send", states: .disabled),
        ])
        var out = [
            Shown(description: "controls") { s in
                _ = s.show(screen: "desktop")
                activate(&s, "desktop.controls")
                _ = reduce(&s, .controlsRead(form))
            },
            Shown(description: "controls, none") { s in
                _ = s.show(screen: "desktop")
                activate(&s, "desktop.controls")
                _ = reduce(&s, .controlsRead(ControlsSnapshot(generation: 8, application: "", window: "", controls: [])))
            },
            // What the reader says when the list is empty, and when an action on a control could not be done.
            Shown(description: "controls, no window") { s in
                _ = s.show(screen: "desktop")
                activate(&s, "desktop.controls")
                _ = reduce(&s, .controlsRead(ControlsSnapshot(generation: 8, application: "", window: "", controls: [],
                                                              problem: UIMessage("no window of an accessible application has the focus"))))
            },
            Shown(description: "controls, greyed out") { s in
                _ = s.show(screen: "desktop")
                activate(&s, "desktop.controls")
                _ = reduce(&s, .controlsRead(form))
                _ = reduce(&s, .controlPerformed(.failed(UIMessage("{control} is greyed out", reasons: ["control": .verbatim("\"Send\"")]), stale: false)))
            },
            Shown(description: "note editor") { s in
                _ = s.show(screen: "notes")
                activate(&s, "notes.new")
            },
            // The suggestion bar while the words load, with the runtime's notices and the microphone's state.
            Shown(description: "note editor, words loading, speech off") { s in
                s.predictor = .loading
                _ = s.show(screen: "notes")
                activate(&s, "notes.new")
                _ = reduce(&s, .micStatus(UIMessage("no microphone \"{device}\" · speech off", ["device": "default"])))
                _ = reduce(&s, .speechUnavailable(UIMessage("Speech is off in this run")))
            },
        ]
        for case .say(let caption) in DemoScript.standard {
            out.append(Shown(description: "demo: \(caption.english)") { s in
                _ = s.show(screen: "notes")
                s.noticeMessage = caption
            })
        }
        return out
    }

    /// A catalog's plain messages (no placeholders, no plural) with their translations, from `po/LL.po`.
    static func messages(_ lang: String) throws -> [(msgid: String, translation: String)] {
        let path = Fixture.root + "/po/\(lang).po"
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        return po.entries.compactMap { e in
            guard !e.isHeader, e.msgidPlural == nil, e.context == nil, let t = e.translations.first, !t.isEmpty,
                  !e.msgid.contains("{"), e.msgid.count > 1 else { return nil }
            return (e.msgid, t)
        }
    }

    /// The catalog's messages with placeholders ("Look at a note and {how} to open it."), in `lang` (no plural
    /// forms, no context): their words around the placeholders are checked as `messages`' sentences are.
    static func placeheld(_ lang: String) throws -> [(msgid: String, translation: String)] {
        let path = Fixture.root + "/po/\(lang).po"
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        return po.entries.compactMap { e in
            guard !e.isHeader, e.msgidPlural == nil, e.context == nil, let t = e.translations.first, !t.isEmpty,
                  e.msgid.contains("{") else { return nil }
            return (e.msgid, t)
        }
    }

    /// Messages a screen shows only where they fit whole, a shorter one in their place elsewhere (the Phrases
    /// screen's tip about saving, which its help also gives): not shown in a longer language is no cut.
    static let leftOutWhereCut: Set<String> = [
        "Look at a phrase and {how} to say it. \"Save phrase\" in a note or message adds yours.",
    ]

    /// A message's words between its placeholders, each run of two words or more ("Look at a note and",
    /// "to open it."): a shorter run ("in", ".") is found anywhere on a screen.
    static func fragments(_ s: String) -> [String] {
        var out: [String] = [], run = "", depth = 0
        for ch in s {
            if ch == "{" {
                if depth == 0 { out.append(run); run = "" }
                depth += 1
            } else if ch == "}" {
                depth = max(0, depth - 1)
            } else if depth == 0 {
                run.append(ch)
            }
        }
        out.append(run)
        // A word of marks alone (", um sie zu öffnen.") ends the placeholder's word on the screen.
        return out.map { $0.split(separator: " ").filter { $0.contains(where: \.isLetter) }.joined(separator: " ") }
            .filter { $0.split(separator: " ").count >= 2 }
    }

    /// The screen's rows, and its text with rows joined and runs of spaces made one (a message wrapped over
    /// two rows reads whole in it).
    static func draw(_ s: ShellState) -> (rows: [String], text: String) {
        let rows = render(s, size: s.size).0.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Box edges are not words: a label wrapped inside a box reads on without them.
        let edges = Set("│┃")
        let joined = rows.map { String($0.map { edges.contains($0) ? " " : $0 }).trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return (rows, joined.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
    }

    /// Whether `text` holds `word` with no letter right before or after it (so "click" is not found in "clicks").
    static func holds(_ text: String, _ word: String) -> Bool {
        var from = text.startIndex
        while let r = text.range(of: word, range: from..<text.endIndex) {
            let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
            if !(before?.isLetter ?? false), !(after?.isLetter ?? false) { return true }
            from = text.index(after: r.lowerBound)
        }
        return false
    }

    /// Whether `text` holds `word` as a word of its own, not inside a path or a file name (`face` is not in
    /// `face_landmarker.task`, `keymap` not in `keymaps/default.toml`).
    static func holdsWord(_ text: String, _ word: String) -> Bool {
        let joins = Set("_/.-")
        var from = text.startIndex
        while let r = text.range(of: word, range: from..<text.endIndex) {
            let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
            let joined = { (c: Character?) in c.map { $0.isLetter || joins.contains($0) } ?? false }
            if !joined(before), !joined(after) { return true }
            from = text.index(after: r.lowerBound)
        }
        return false
    }

    /// Whether `text` holds `phrase` whole, or its words in order close together: a sentence wrapped in a tile
    /// or a column beside another reads with the neighbour's words between its own.
    static func wrappedHolds(_ text: String, _ phrase: String) -> Bool {
        if text.contains(phrase) { return true }
        let words = phrase.split(separator: " "), tokens = text.split(separator: " ")
        guard let first = words.first else { return true }
        for start in tokens.indices where tokens[start] == first {
            var k = 1, i = start + 1
            while k < words.count, i < tokens.count, i - start <= words.count * 4 + 16 {
                if tokens[i] == words[k] { k += 1 }
                i += 1
            }
            if k == words.count { return true }
        }
        return false
    }

    static func normalise(_ s: String) -> String {
        s.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Whether a screen pages or says "… all gestures in Home › Help" by design when its text runs long: a
    /// sentence there may move to the next page in a longer language, which is not a cut.
    static func pages(_ shown: Shown) -> Bool {
        ["help", "onboarding"].contains(shown.description) || shown.description.hasPrefix("help for")
    }

    @Test(arguments: LanguageTests.languages)
    func everyScreenFitsAndIsTranslated(_ lang: String) throws {
        let catalog = try LanguageTests.catalog(lang)
        let sentences = try Self.messages(lang).filter { $0.msgid.split(separator: " ").count >= 3 }
        let placeheld = try Self.placeheld(lang)
        var checked = 0
        for size in Self.sizes {
            for shown in Self.screens {
                var english = ShellState(keymap: Fixture.keymap("default"), size: size)
                shown.show(&english)
                var translated = ShellState(keymap: Fixture.keymap("default"), size: size, catalog: catalog)
                shown.show(&translated)
                let e = Self.draw(english), t = Self.draw(translated)
                let place = "\(lang) \(shown) at \(size.width)×\(size.height)"
                // Every target (button, tab, key, tile, switch) whose label the English shows whole shows whole.
                for target in english.hitMap.targets where Self.holds(e.text, Self.normalise(target.label)) {
                    guard let label = translated.hitMap.target(id: target.id)?.label else {
                        Issue.record("\(place): no target \(target.id)")
                        continue
                    }
                    checked += 1
                    let rows = t.rows[max(0, target.rect.y)..<min(t.rows.count, target.rect.maxY)].joined(separator: "\n")
                    #expect(t.text.contains(Self.normalise(label)), "\(place): \(target.id) “\(label)” is cut:\n\(rows)")
                }
                // Every sentence the English shows whole shows whole (screens that page are left to the rows).
                // A notice short enough for the title bar takes the room of its hint ("? help · Esc back"), by design:
                // a shorter translation of the notice shows there where the English went to the notice line.
                let noticeInTitle = translated.shownNotice.map { t.rows.first?.contains($0) ?? false } ?? false
                if !Self.pages(shown) {
                    for (msgid, translation) in sentences where Self.holds(e.text, Self.normalise(msgid))
                        && !(noticeInTitle && e.rows.first.map { Self.holds(Self.normalise($0), Self.normalise(msgid)) } ?? false) {
                        checked += 1
                        #expect(Self.wrappedHolds(t.text, Self.normalise(translation)), "\(place): “\(translation)” is cut or missing")
                    }
                }
                // The same for a message with placeholders: where the English shows all its words, the
                // translation's words show too (a hint beside a button once ended cut short in German).
                if !Self.pages(shown) {
                    for (msgid, translation) in placeheld where !Self.leftOutWhereCut.contains(msgid) {
                        let parts = Self.fragments(msgid)
                        guard parts.reduce(0, { $0 + $1.split(separator: " ").count }) >= 4,
                              parts.allSatisfy({ Self.holds(e.text, $0) }) else { continue }
                        checked += 1
                        for part in Self.fragments(translation) where !Self.wrappedHolds(t.text, part) {
                            Issue.record("\(place): “\(translation)” is cut or missing (“\(part)”)")
                        }
                    }
                }
                // No sentence of the catalog left in English (an unmarked string, or one not drawn through it).
                for (msgid, translation) in sentences where msgid != translation && Self.holds(t.text, Self.normalise(msgid)) {
                    Issue.record("\(place): “\(msgid)” is shown in English")
                }
                for (i, row) in t.rows.enumerated() where !Self.pages(shown) && row.contains("…") && i < e.rows.count && !e.rows[i].contains("…") {
                    Issue.record("\(place): row \(i + 1) is cut where the English is not:\n\(row)\n\(e.rows[i])")
                }
            }
        }
        #expect(checked > 800, "only \(checked) labels and sentences were found on the screens")
    }

    /// A complete catalog in a made-up language: every message of the template (`po/handsfree.pot`) with each
    /// letter outside its `{placeholders}` accented ("Notes" → "Ñótéš"), the same width as the English, so a
    /// message shown without its translation is the only plain English on a screen.
    static func pseudoCatalog() throws -> Catalog {
        let path = Fixture.root + "/po/handsfree.pot"
        let pot = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let from = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let to = Array("áƀçďéƒĝĥíĵķĺḿñóṕʠŕšťúṽŵẋýžÁƁÇĎÉƑĜĤÍĴĶĹḾÑÓṔQŔŠŤÚṼŴẊÝŽ")
        let map = Dictionary(uniqueKeysWithValues: zip(from, to))
        func pseudo(_ text: String) -> String {
            var depth = 0
            return String(text.map { c -> Character in
                if c == "{" { depth += 1 } else if c == "}" { depth = max(0, depth - 1) }
                return depth > 0 ? c : map[c] ?? c
            })
        }
        var entries = pot.entries.filter { !$0.isHeader }
        for i in entries.indices {
            let e = entries[i]
            entries[i].flags = []
            entries[i].translations = e.msgidPlural.map { [pseudo(e.msgid), pseudo($0)] } ?? [e.context == "decimal separator" ? "." : pseudo(e.msgid)]
        }
        let header = CatalogEntry(msgid: "", translations: ["Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=(n != 1);\n"])
        return Catalog(language: "en_XA", entries: [header] + entries, file: path)
    }

    /// Plain English words (three letters or more) on a screen drawn in the made-up language: text no catalog
    /// message gave, less what is the user's or the machine's (paths, names, the note's words) and names of
    /// products, which no language translates.
    static func englishWords(_ text: String) -> Set<String> {
        let kept: Set<String> = [
            // Names of products and programs, written the same in every language.
            "HandsFree", "Shell", "iPhone", "Live", "Link", "Face", "iFacialMocap", "OpenSeeFace", "MediaPipe", "Python",
            // What the test's machine and window report: paths, devices, addresses, the window's controls.
            "usr", "bin", "python3", "share", "handsfree", "scripts", "python", "env", "home", "local", "models", "raw",
            "githubusercontent", "com", "media", "usb", "face_landmarker_with_blendshapes", "task", "dev", "video0", "video2",
            "udp", "default", "pip", "stopped", "route", "output", "audio", "zenity", "Form", "File", "Name", "Remember", "Send",
        ]
        var out = Set<String>()
        var word = ""
        for c in text + " " {
            if c.isASCII, c.isLetter || c == "_" || c.isNumber { word.append(c); continue }
            if word.filter(\.isLetter).count >= 3, !kept.contains(word), word.contains(where: \.isLetter) { out.insert(word) }
            word = ""
        }
        return out
    }

    /// With a complete catalog, no message is shown in English on any screen (every screen of the registry,
    /// Settings' tabs, the helps, setup's every step, the Controls view, the note editor, the demo's captions),
    /// at 80×24 and 100×30; on the screens whose every string is marked (setup, Controls, the note editor, the
    /// demo, the practice chat), no English word is shown at all but the user's data and names of products.
    @Test func noMessageIsShownWithoutItsTranslation() throws {
        let catalog = try Self.pseudoCatalog()
        let path = Fixture.root + "/po/handsfree.pot"
        let pot = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let msgids = pot.entries.compactMap { e -> String? in
            // Key caps and keys' labels ("Esc", "Home", "Ctrl") count too: the Terminal and Desktop screens print
            // the language's names on their keys, as the messages name the keys.
            guard !e.isHeader, !e.msgid.contains("{"), e.msgid.filter(\.isLetter).count >= 3 else { return nil }
            return Self.normalise(e.msgid)
        }
        // Keymaps are named by their files (Settings › Keymap lists "default", "dwell", "no-wink").
        let keyCaps: Set<String> = ["dwell"]
        let keymap = Fixture.keymap("default")
        var drawn = 0
        for size in Self.sizes {
            for shown in Self.screens {
                var s = ShellState(keymap: keymap, size: size, catalog: catalog)
                shown.show(&s)
                let t = Self.draw(s)
                let place = "\(shown) at \(size.width)×\(size.height)"
                drawn += 1
                // What the keymap's own file says (its description, its "phrases" in quotes) is the keymap's
                // language, not the catalog's: a language's keymap gives its own.
                var ours = t.text.replacingOccurrences(of: Self.normalise(keymap.description), with: " ")
                ours = ours.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }
                    .map(\.element).joined(separator: " ")
                for msgid in msgids where !keyCaps.contains(msgid) && Self.holdsWord(ours, msgid) {
                    Issue.record("\(place): “\(msgid)” is shown without its translation:\n\(t.rows.joined(separator: "\n"))")
                }
                let strict = ["setup", "controls", "note editor", "demo", "messages", "conversation"].contains { shown.description.hasPrefix($0) }
                if strict {
                    let words = Self.englishWords(t.text)
                    #expect(words.isEmpty, "\(place): English words no catalog message gave: \(words.sorted())\n\(t.rows.joined(separator: "\n"))")
                }
            }
        }
        #expect(drawn > 100)
    }

    /// Settings › Language lists English and every installed language by its own name, whatever the language
    /// on the screen, and picking one asks for it at once (no trial: it does not change how gestures act).
    /// A conversation's title holds the contact's name, so it is a message with a placeholder, not a catalog
    /// lookup of the whole title (which found nothing and stayed English, as did its Send button).
    @Test func aConversationsTitleAndSendButtonAreInTheLanguage() throws {
        var s = ShellState(keymap: Fixture.keymap("default"), size: Size(width: 80, height: 24), catalog: try LanguageTests.catalog("es"))
        s.stack.append(ConversationScreen())
        s.relayout()
        let text = Self.draw(s).text
        #expect(text.contains("(práctica)") && !text.contains("(practice)"), "\(text)")
        #expect(text.contains("➤ Enviar") && !text.contains("➤ Send"), "\(text)")
    }

    @Test func theLanguageRowNamesEachLanguageInItselfAndSwitchesAtOnce() throws {
        var services = Services()
        services.languages = [("de", "Deutsch"), ("es", "Español"), ("fr", "Français"), ("it", "Italiano"), ("pt", "Português")]
        var session = Session(state: ShellState(keymap: Fixture.keymap("default"), services: services, catalog: try LanguageTests.catalog("de")),
                              settings: PipelineSettings(gestures: GestureDefaults.definitions))
        _ = session.state.show(screen: "settings")
        session.state.stack[session.state.stack.count - 1] = SettingsScreen(tab: "language")
        session.state.relayout()
        let text = LanguageTests.screen(session.state)
        for name in ["English", "Deutsch", "Español", "Français", "Italiano", "Português", "▸ Sprache ◂", "Automatisch"] {
            #expect(text.contains(name), "\(name) is not on Settings › Language:\n\(text)")
        }
        // Chosen by the target, as a gaze or a helper's Enter would.
        session.state.focus.set("settings.language.fr", at: session.state.now)
        let effects = session.send(.key(.enter))
        #expect(effects.contains(.loadLanguage("fr")), "\(effects)")
        #expect(session.state.settings.language == "fr")
        #expect(session.state.trial == nil, "a language is not tried like a gesture setting")
        _ = session.send(.languageLoaded(try LanguageTests.catalog("fr")))
        let french = LanguageTests.screen(session.state)
        #expect(french.contains("▸ Langue ◂") && french.contains("● Français") && french.contains("English"), "\(french)")
        // The way back is where it was, named in English.
        session.state.focus.set("settings.language.en", at: session.state.now)
        #expect(session.send(.key(.enter)).contains(.loadLanguage("en")))
        _ = session.send(.languageLoaded(.english))
        #expect(LanguageTests.screen(session.state).contains("▸ Language"))
    }
}
