#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Issue 33's data-loss defects, tried on the built binary in tmux: a record with one damaged field, and text
/// that could not be saved when the shell is quit, terminated or hung up.
@Suite(.serialized) struct UnsavedTextInTmuxTests {
    typealias E = AppsE2E
    typealias S = StorageInTmuxTests

    /// The shell in tmux with its standard error kept in `ERR` (the pane stays after it ends).
    static func start(_ name: String, _ env: E.TempHome) throws -> S.Shell {
        try FileManager.default.createDirectory(atPath: env.base, withIntermediateDirectories: true)
        let shell = try S.Shell(name, env, extra: "")
        shell.tmux.tmux(["respawn-pane", "-k", "-t", shell.tmux.name,
                         "\(env.vars) \(E.binary) run --no-onboarding --no-speech 2>\(env.base)/stderr; echo EXIT=$? >>\(env.base)/stderr"])
        return shell
    }

    /// Opens a new note, types `text`, then takes the data folder away (a file stands in its place, as when a
    /// disk is unmounted) and types `more`, which cannot be saved.
    static func typeUnsaved(_ shell: S.Shell, _ env: E.TempHome, _ text: String, _ more: String) throws {
        try #require(shell.openNote(tabs: 1), "\(shell.tmux.screen)")
        shell.tmux.literal(text)
        try #require(shell.waitFor { S.fieldText($0) == text }, "\(shell.tmux.screen)")
        try FileManager.default.removeItem(atPath: env.data)
        try Data().write(to: URL(fileURLWithPath: env.data))
        shell.tmux.literal(more)
        try #require(shell.waitFor { $0.contains { $0.contains("Not saved, your text stays here") } }, "\(shell.tmux.screen)")
    }

    /// The rescued notes file named on standard error, once the shell has ended.
    static func rescued(_ env: E.TempHome) -> (stderr: String, notes: String?) {
        var err = ""
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            err = (try? String(contentsOfFile: env.base + "/stderr", encoding: .utf8)) ?? ""
            if err.contains("EXIT=") { break }
            usleep(100_000)
        }
        guard let r = err.range(of: "was written to ") else { return (err, nil) }
        let dir = err[r.upperBound...].prefix { $0 != "\n" }
        return (err, try? String(contentsOfFile: dir + "/notes.txt", encoding: .utf8))
    }

    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func quittingWithUnsavedTextAsksAndWritesACopy() throws {
        let env = E.TempHome("quit-unsaved")
        defer { env.remove() }
        let shell = try Self.start("quit", env)
        defer { shell.tmux.kill() }
        try Self.typeUnsaved(shell, env, "before", "after")
        shell.tmux.keys("Escape")
        shell.tmux.keys("Escape")
        #expect(shell.waitFor { $0.first?.contains("HandsFree │ Home") == true && !$0.first!.contains("Notes") }, "\(shell.tmux.screen)")
        shell.tmux.keys("q")
        #expect(shell.waitFor { $0.contains { $0.contains("Not saved: your note") } }, "\(shell.tmux.screen)")
        #expect(shell.tmux.exists && shell.pid.map { kill($0, 0) == 0 } == true, "still running, asking")
        shell.tmux.keys("Tab")
        shell.tmux.keys("Enter")
        let (err, notes) = Self.rescued(env)
        #expect(err.contains("text that could not be saved (notes.txt) was written to \(env.base)/state/handsfree/handsfree-unsaved-"), "\(err)")
        #expect(err.contains("EXIT=0"), "\(err)")
        #expect(notes == "handsfree-notes 1\nnote\t1\tbeforeafter\n", "\(notes ?? "no copy")")
    }

    /// SIGTERM (a logout, `kill`) and SIGHUP (the terminal closed) write the text that could not be saved too.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"), arguments: [SIGTERM, SIGHUP])
    func aSignalWritesTheUnsavedTextElsewhere(_ sig: Int32) throws {
        let env = E.TempHome("signal-\(sig)")
        defer { env.remove() }
        let shell = try Self.start("signal\(sig)", env)
        defer { shell.tmux.kill() }
        try Self.typeUnsaved(shell, env, "kept", "bysignal")
        // The pane's first process is the shell running the command line: signal the binary itself.
        let pids = (try? String(contentsOfFile: "/proc/\(shell.pid ?? 0)/task/\(shell.pid ?? 0)/children", encoding: .utf8)) ?? ""
        let child = try #require(pids.split(separator: " ").first.flatMap { pid_t($0) }, "no child of the pane")
        kill(child, sig)
        let (err, notes) = Self.rescued(env)
        #expect(err.contains("ended by signal \(sig)"), "\(err)")
        #expect(err.contains("was written to \(env.base)/state/handsfree/handsfree-unsaved-"), "\(err)")
        #expect(notes == "handsfree-notes 1\nnote\t1\tkeptbysignal\n", "\(notes ?? "no copy")")
    }

    /// Issue 49: SIGTERM with the data, state and temporary folders all unwritable (a file system remounted
    /// read-only; here each folder is a path under a file, which even root cannot create) said the text was
    /// lost without printing it. It is printed to standard error as the last resort: into a file, and onto
    /// the terminal, after curses has given it back.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"), arguments: [false, true])
    func withNowhereToWriteASignalPrintsTheText(_ toTerminal: Bool) throws {
        let env = E.TempHome("nowhere-\(toTerminal)")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.base, withIntermediateDirectories: true)
        let vars = "env LANG=C.UTF-8 XDG_STATE_HOME=/dev/null/state XDG_CONFIG_HOME=\(env.config) "
            + "HANDSFREE_DATA_DIR=/dev/null/data TMPDIR=/dev/null/tmp"
        let shell = try S.Shell("nowhere\(toTerminal)", env, extra: "")
        defer { shell.tmux.kill() }
        let err = toTerminal ? "" : "2>\(env.base)/stderr"
        shell.tmux.tmux(["respawn-pane", "-k", "-t", shell.tmux.name,
                         "\(vars) \(E.binary) run --no-onboarding --no-speech \(err); echo EXIT=$? \(err.isEmpty ? "" : ">>\(env.base)/stderr")"])
        try #require(shell.openNote(tabs: 1), "\(shell.tmux.screen)")
        shell.tmux.literal("only-copy-here")
        try #require(shell.waitFor { $0.contains { $0.contains("Not saved, your text stays here") } && S.fieldText($0) == "only-copy-here" },
                     "\(shell.tmux.screen)")
        let pids = (try? String(contentsOfFile: "/proc/\(shell.pid ?? 0)/task/\(shell.pid ?? 0)/children", encoding: .utf8)) ?? ""
        let child = try #require(pids.split(separator: " ").first.flatMap { pid_t($0) }, "no child of the pane")
        kill(child, SIGTERM)
        let printed: String
        if toTerminal {
            #expect(shell.waitFor { $0.contains { $0.hasPrefix("EXIT=") } }, "\(shell.tmux.screen)")
            // The whole pane with its history: the text is the last thing the shell left on the terminal.
            printed = shell.tmux.tmux(["capture-pane", "-p", "-J", "-S", "-100", "-t", shell.tmux.name])
            #expect(!printed.contains("HandsFree │"), "the shell's screen is gone, the terminal restored:\n\(printed)")
        } else {
            printed = Self.rescued(env).stderr
        }
        #expect(printed.contains("ended by signal 15"), "\(printed)")
        #expect(printed.contains("handsfree: text that could not be saved (notes.txt) could not be written anywhere "
                                 + "(/dev/null/state/handsfree: Not a directory; /dev/null/tmp: Not a directory)"), "\(printed)")
        #expect(printed.contains("----- notes.txt -----\nhandsfree-notes 1\nnote\t1\tonly-copy-here\n----- end of notes.txt -----")
                || printed.contains("----- notes.txt -----\nhandsfree-notes 1\nnote    1       only-copy-here\n----- end of notes.txt -----"),
                "\(printed)")
        #expect(printed.contains("EXIT=143"), "\(printed)")
    }

    /// A note whose id is not a number used to vanish at load, and from the file at the next save.
    @Test(.enabled(if: E.ready, "needs .build/debug/handsfree and tmux"))
    func aNoteWithADamagedIdIsKeptAsideWithExactCounts() throws {
        let env = E.TempHome("bad-id")
        defer { env.remove() }
        try FileManager.default.createDirectory(atPath: env.data, withIntermediateDirectories: true)
        let original = Data("handsfree-notes 1\nnote\t1\tfirst\nnote\tX\tbad id\nnote\t99999999999999999999\ttoo big\nNote\t4\tcapital\nnote\t5\tfifth\n".utf8)
        try original.write(to: URL(fileURLWithPath: env.data + "/notes.txt"))
        let shell = try S.Shell("badid", env)
        defer { shell.tmux.kill() }
        #expect(shell.openNote(tabs: 1), "\(shell.tmux.screen)")
        // The banner names the first line whose number could not be read (issue 49); the counts follow it.
        #expect(shell.tmux.screen.contains("Damaged file notes.txt kept as notes.txt.corrupt-1: 3 lines could not be read (notes.txt:3:"),
                "\(shell.tmux.screen)")
        shell.tmux.literal("new")
        #expect(shell.waitFor { S.fieldText($0) == "new" })
        #expect(FileManager.default.contents(atPath: env.data + "/notes.txt.corrupt-1") == original, "kept byte for byte")
        #expect(try S.parseNotes(env.data + "/notes.txt").get().sorted() == ["fifth", "first", "new"])
    }
}
