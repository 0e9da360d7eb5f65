import Foundation
import Testing

/// The built binary's suggestion bar in the user's language: `run --language LL` suggests from that language's
/// pack, accents and capitals as the language writes them, read back with `tmux capture-pane`.
@Suite(.serialized) struct PredictionLanguageInTmuxTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"),
          arguments: [("es", "me gusta la cancion", "★ canción"), ("de", "in der strasse", "★ Straße"),
                      ("fr", "je vais à l'ecole", "★ l'école")])
    func theNotesBarSuggestsInTheLanguage(language: String, typed: String, suggested: String) throws {
        let home = LanguageInTmuxTests.Home()
        let session = Tmux(name: "hf-e2e-words-\(language)-\(getpid())")
        defer { session.kill() }
        try session.start("env \(home.env) \(Self.binary) run --no-onboarding --no-speech --language \(language)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │") == true }, "\(session.screen)")
        // Notes, then a new note (as PhrasesInTmuxTests opens one); the titles are in the language.
        session.keys("Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("›") == true }, "\(session.screen)")
        session.keys("Tab", "Enter")
        #expect(session.waitFor { ($0.first?.components(separatedBy: "›").count ?? 0) == 3 }, "\(session.screen)")
        // The words load on a thread, a second or two in a debug build.
        session.literal(typed)
        #expect(session.waitFor(seconds: 60) { $0.contains { $0.contains(suggested) } },
                "\(language): no \(suggested) for \(typed):\n\(session.screen)")
    }
}
