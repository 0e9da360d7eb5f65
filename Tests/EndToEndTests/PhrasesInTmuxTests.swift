import Foundation
import Testing

/// The user's own sentences, in the built shell: a sentence finished in a note is kept in sentences.txt, and a
/// sentence kept there offers its next word first.
@Suite(.serialized) struct PhrasesInTmuxTests {
    typealias E = AppsE2E

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func aFinishedSentenceIsKeptAndTheUsersSentenceComesFirst() throws {
        let env = E.TempHome("phrases")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let history = env.data + "/sentences.txt"
        try "clock\t2\n2\t2\tHow are zebras sleeping today?\n".write(toFile: history, atomically: true, encoding: .utf8)
        let tmux = Tmux(name: "hf-phrases-\(getpid())")
        defer { tmux.kill() }
        try tmux.start("exec \(env.vars) \(E.binary) run --no-onboarding")
        #expect(tmux.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        tmux.keys("Right", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Home › Notes") == true })
        tmux.keys("Tab", "Enter")
        #expect(tmux.waitFor { $0.first?.contains("Notes › Note") == true }, "\(tmux.screen)")
        // The word lists load on a thread: the bar says so until they are there.
        #expect(tmux.waitFor(seconds: 60) { !$0.contains { $0.contains("loading words") } }, "\(tmux.screen)")
        tmux.literal("how are ")
        #expect(tmux.waitFor { $0.contains { $0.contains("★ zebras") } }, "the user's sentence first: \(tmux.screen)")
        tmux.literal("you. i am cold.")
        #expect(tmux.waitFor { _ in
            (try? String(contentsOfFile: history, encoding: .utf8))?.contains("\ti am cold.\n") == true
        }, "kept: \((try? String(contentsOfFile: history, encoding: .utf8)) ?? "no file")")
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        #expect(kept.contains("\thow are you.\n") && kept.contains("\tHow are zebras sleeping today?\n"))
    }
}
