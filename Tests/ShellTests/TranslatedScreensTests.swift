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
            out.append(Shown(description: "help for \(app)") { s in
                s.stack.append(AppHelpScreen(app: app, appTitle: ScreenRegistry.standard.make(app)?.title ?? app))
                s.relayout()
            })
        }
        out.append(Shown(description: "onboarding") { s in
            s.stack.append(HelpScreen(onboarding: true))
            s.relayout()
        })
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
                if !Self.pages(shown) {
                    for (msgid, translation) in sentences where Self.holds(e.text, Self.normalise(msgid)) {
                        checked += 1
                        #expect(Self.wrappedHolds(t.text, Self.normalise(translation)), "\(place): “\(translation)” is cut or missing")
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

    /// Settings › Language lists English and every installed language by its own name, whatever the language
    /// on the screen, and picking one asks for it at once (no trial: it does not change how gestures act).
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
