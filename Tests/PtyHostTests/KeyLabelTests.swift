import Foundation
@testable import Localization
import Testing
@testable import PtyHost

/// The project's catalog of a shipped language, read from `po/LL.po` as a source tree's run reads it.
enum ShippedCatalog {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let languages = ["de", "es", "fr", "it", "nl", "pt"]

    static func load(_ lang: String) throws -> Catalog {
        let path = root.appendingPathComponent("po/\(lang).po").path
        let po = POFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        return Catalog(language: lang, entries: po.entries, file: path, problems: po.problems)
    }
}

/// A key named in a message ("has no key for …") is named as the desktop labels it in the user's language
/// (GTK's keyboard labels, the keycaps' words), never by the program's own name for it (`pageUp`).
@Suite struct KeyLabelTests {
    static let named: [TerminalKey] = [.enter, .tab, .escape, .backspace, .up, .down, .left, .right, .insert, .delete,
                                       .home, .end, .pageUp, .pageDown]

    @Test func keysAndChordsReadAsTheDesktopLabelsThem() throws {
        #expect(TerminalKey.pageUp.label.english == "Page Up")
        #expect(TerminalKeyPress(.delete, modifiers: [.ctrl, .alt]).label.english == "Ctrl+Alt+Delete")
        #expect(TerminalKey.ctrl("c").label.english == "Ctrl+C")
        #expect(TerminalKey.function(13).label.english == "F13")
        let de = try ShippedCatalog.load("de")
        #expect(TerminalKeyPress(.delete, modifiers: [.ctrl, .alt]).label.text(de) == "Strg+Alt+Entf")
        #expect(TerminalKey.pageUp.label.text(de) == "Bild auf")
        #expect(TerminalKey.ctrl("c").label.text(de) == "Strg+C")
        #expect(TerminalKey.pageDown.label.text(try ShippedCatalog.load("es")) == "Av Pág")
        #expect(TerminalKey.escape.label.text(try ShippedCatalog.load("fr")) == "Échap")
    }

    /// Every named key has a label in every shipped catalog: where the language's word differs from the
    /// English one, it is the catalog's (Dutch and Portuguese keep several English keycap words, as GTK does).
    @Test(arguments: ShippedCatalog.languages)
    func everyNamedKeyHasItsLabelInTheLanguage(_ lang: String) throws {
        let catalog = try ShippedCatalog.load(lang)
        for key in Self.named {
            guard case .text(let id) = key.label.kind else { Issue.record("\(key) has no msgid"); continue }
            #expect(catalog.translation(id, context: KeyLabel.context) != nil, "\(lang): \(key)")
        }
    }

    /// tmux's own failure for a key it cannot name says the key's label, not the enum case.
    @Test func tmuxNamesTheKeyByItsLabel() {
        let e = TmuxSinkError(target: "w:1", .noKeyName(TerminalKeyPress(.pageUp, modifiers: [.logo])))
        #expect(e.description == "tmux target w:1: Super+Page Up has no tmux key name")
    }
}
