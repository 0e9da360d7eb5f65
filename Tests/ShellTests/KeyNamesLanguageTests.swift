import Config
import Foundation
import Localization
import Shell
import TerminalModel
import Testing
import TrackingCore

/// Keys named in the language on every screen that names them: the Terminal and Desktop screens' key caps
/// (the desktop's labels, as the messages use them: "Strg", "Entf", "Pos1" in German), help's "press {key}",
/// and help's key-hold note only where there are letter keys.
@Suite struct KeyNamesLanguageTests {
    static let keyed: [TerminalKey] = [.escape, .tab, .enter, .home, .end, .pageUp, .pageDown, .insert, .delete]

    /// The rows of a screen drawn in `lang` at `size` that hold the key rows (the two above the letters).
    static func screen(_ name: String, _ lang: String, _ size: Size) throws -> String {
        var s = ShellState(keymap: Fixture.keymap("default"), size: size, catalog: try LanguageTests.catalog(lang))
        _ = s.show(screen: name)
        return LanguageTests.screen(s)
    }

    /// The German key rows at both golden sizes: GTK's German labels where they fit a key, the keycaps' short
    /// forms where they do not, each whole; none of the English names is left.
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 100, height: 30)])
    func theKeyRowsReadInGerman(_ size: Size) throws {
        let terminal = try Self.screen("terminal", "de", size)
        for cap in ["Esc", "Tab", "Pos1", "Ende", "Bild↑", "Bild↓", "Eingabe", "Strg+C", "Strg+D", "Strg+Z", "Strg", "Alt"] {
            #expect(TranslatedScreensTests.holds(terminal, cap), "no “\(cap)” on the Terminal screen:\n\(terminal)")
        }
        let desktop = try Self.screen("desktop", "de", size)
        for cap in ["Entf", "Strg", "Super", "Alt+Tab", "Pos1", "Bild↓"] {
            #expect(TranslatedScreensTests.holds(desktop, cap), "no “\(cap)” on the Desktop screen:\n\(desktop)")
        }
        for text in [terminal, desktop] {
            for english in ["Ctrl", "PgUp", "PgDn", "Home", "End", "Del", "Enter"] {
                #expect(!TranslatedScreensTests.holds(text, english), "“\(english)” is left in English:\n\(text)")
            }
            let keyRows = text.split(separator: "\n").filter { $0.contains("Esc") || $0.contains("Strg") }
            #expect(keyRows.count == 2 && !keyRows.contains { $0.contains("…") }, "a key is cut:\n\(text)")
        }
    }

    /// A key's cap is the label the desktop gives it in the language (the messages' name for it) wherever that
    /// label is short enough for any key; only a longer one takes a short form, which fits a key at 80 columns.
    @Test(arguments: LanguageTests.languages)
    func aCapIsTheDesktopsLabelWhereThatFits(_ lang: String) throws {
        let catalog = try LanguageTests.catalog(lang)
        for key in Self.keyed {
            let label = key.label.text(catalog), cap = KeyCap.text(key, catalog)
            if CellGrid.columns(of: label) <= 5 { #expect(cap == label, "\(lang): \(key) is “\(cap)” on its key but “\(label)” in messages") }
            #expect(CellGrid.columns(of: cap) <= 7, "\(lang): “\(cap)” does not fit a key at 80 columns")
        }
        #expect(KeyCap.text(.ctrl("c"), catalog) == TerminalKey.ctrl("c").label.text(catalog), "\(lang): Ctrl-C's cap is not its label")
    }

    /// Help's "press {key}" names the key as the desktop does in the language, modifiers and all.
    @Test func helpNamesAPressedKeyInTheLanguage() throws {
        let de = try LanguageTests.catalog("de"), fr = try LanguageTests.catalog("fr")
        #expect(TerminalBinding.press("ctrl-c").summary(in: de).contains("Strg+C"))
        #expect(TerminalBinding.press("page-up").summary(in: de).contains("Bild auf"))
        #expect(TerminalBinding.press("ctrl-alt-delete").summary(in: de).contains("Strg+Alt+Entf"))
        #expect(TerminalBinding.press("space").summary(in: fr).contains("Espace"))
        #expect(TerminalBinding.press("escape").summary(in: fr).contains("Échap"))
        #expect(TerminalBinding.press("super-d").summary(in: fr).contains("Super+D"))
        #expect(TerminalBinding.press("f5").summary(in: de).contains("F5"))
        #expect(TerminalBinding.press("ctrl-c").summary == "press Ctrl+C")
        #expect(TerminalBinding.press("up").summary == "press Up")
        // (German keyboards and GTK call Esc "Esc" too.)
        for english in ["Ctrl", "Page", "Space", "Escape", "arrow"] {
            for name in ["ctrl-c", "page-up", "space", "escape", "up"] {
                #expect(!TranslatedScreensTests.holds(TerminalBinding.press(name).summary(in: de), english),
                        "\(name): \(TerminalBinding.press(name).summary(in: de))")
            }
        }
    }

    /// The shorter hold on a letter key is said in the help of a screen that has letter keys, and only there.
    @Test func theLetterKeyHoldIsSaidOnlyWhereThereAreLetterKeys() throws {
        for (app, said) in [("note-editor", true), ("conversation", true), ("media", false), ("notes", false), ("settings", false),
                            ("terminal", false), ("desktop", false)] {
            var s = ShellState(keymap: Fixture.keymap("default"), size: Size(width: 100, height: 30))
            s.stack.append(AppHelpScreen(app: app, appTitle: app))
            s.relayout()
            let text = TranslatedScreensTests.draw(s).text
            #expect(text.contains("letter key") == said, "\(app): \(text)")
            #expect(text.contains("hold for"), "\(app): no gesture's hold is said:\n\(text)")
        }
    }

    /// The practice chat in German: the made-up people and what they write, greetings and replies, are in the
    /// language (as a German chat reads); what the user wrote stays as written.
    @Test func thePracticeChatReadsInTheLanguage() throws {
        var s = ShellState(keymap: Fixture.keymap("default"), size: Size(width: 100, height: 30), catalog: try LanguageTests.catalog("de"))
        _ = s.show(screen: "messages")
        let list = TranslatedScreensTests.draw(s).text
        for german in ["Mama", "Carla (Pflegerin)", "Pflegeteam", "Hallo! Wie geht's dir heute?", "Bleibt es bei Samstag?"] {
            #expect(list.contains(german), "no “\(german)” on Messages:\n\(list)")
        }
        for english in ["Mum", "nurse", "Care team", "How are you", "Saturday"] {
            #expect(!list.contains(english), "“\(english)” is left in English on Messages:\n\(list)")
        }
        s.data.apply(.send("Call you later", to: "mum", at: 0))
        s.data.apply(.deliverReplies(at: 10))
        s.stack.append(ConversationScreen(contact: "mum"))
        s.relayout()
        let chat = TranslatedScreensTests.draw(s).text
        for shown in ["Mama (Übung)", "Mama: Ruf mich an, wenn du kannst, mein Schatz.", "Call you later", "Mama: Alles klar, danke!"] {
            #expect(TranslatedScreensTests.wrappedHolds(chat, shown), "no “\(shown)” in the conversation:\n\(chat)")
        }
    }
}
