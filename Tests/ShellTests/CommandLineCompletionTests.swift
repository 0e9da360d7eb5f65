import Shell
import Testing

/// Where the cursor is on a command line, and what completes it there.
@Suite struct CommandLineCompletionTests {
    typealias C = CommandLineCompletion

    @Test(arguments: [
        ("$ ", C.Slot.Kind.command, ""), ("$ gi", .command, "gi"), ("bash-5.2# gi", .command, "gi"),
        ("user@host:~/src$ ma", .command, "ma"), ("$ sudo ap", .command, "ap"), ("$ ls | gr", .command, "gr"),
        ("$ make && ./ru", .path, "ru"), ("$ (cd x; ls", .command, "ls"), ("$ time sudo mak", .command, "mak"),
        ("$ cd Do", .argument, "Do"), ("$ vim no", .argument, "no"), ("$ ls src/Sh", .path, "Sh"),
        ("$ cat ~/.bash", .path, ".bash"), ("$ ls .hid", .path, ".hid"), ("$ ls ~", .argument, "~"),
        ("$ echo hello wor", .argument, "wor"), ("> ec", .command, "ec"), ("$ ls > ou", .argument, "ou"),
    ])
    func theSlotIsReadFromTheLine(_ line: String, _ kind: C.Slot.Kind, _ partial: String) {
        let s = C.slot(line)
        #expect(s.kind == kind, "\(line)")
        #expect(s.partial == partial, "\(line)")
    }

    @Test func cdTakesOnlyDirectoriesAndAPathKeepsItsDirectory() {
        #expect(C.slot("$ cd ").directoriesOnly)
        #expect(C.slot("$ sudo cd ~/Do").directoriesOnly)
        #expect(!C.slot("$ cat Do").directoriesOnly)
        let s = C.slot("$ cat ~/src/Sh")
        #expect(s.directory == "~/src/" && s.partial == "Sh" && s.token == "~/src/Sh")
    }

    @Test func programsThatWereUsedComeFirstThenCommonOnesThenShortest() {
        let known = ["git", "gio", "git-shell", "gimp", "grep", "ls", "cat", "zstd"].sorted()
        func shown(_ line: String, learned: [String] = [], limit: Int = 4) -> [String] {
            C.commands(C.slot(line), known: known, learned: learned, limit: limit).map(\.shown)
        }
        #expect(shown("$ gi") == ["git", "gio", "gimp", "git-shell"])
        #expect(shown("$ gi", learned: ["gimp", "given"]) == ["gimp", "git", "gio", "git-shell"])
        // Nothing typed: the common programs this machine has, and builtins; not all of PATH.
        #expect(shown("$ ") == ["ls", "cd", "git", "cat"])
        #expect(shown("$ ", learned: ["zstd"]) == ["zstd", "ls", "cd", "git"])
        // A whole name typed is not offered again.
        #expect(!shown("$ git").contains("git"))
        let c = C.commands(C.slot("$ gi"), known: known, learned: [], limit: 1)
        #expect(c == [C.Completion(shown: "git", erase: 0, insert: "t ", learn: true)])
        // Without the runtime's list nothing is known to be a program.
        #expect(C.commands(C.slot("$ "), known: [], learned: ["ls"], limit: 3).isEmpty)
    }

    @Test func filesCompleteWhatIsTypedDirectoriesWithASlash() {
        let entries = [C.Entry(name: "Documents", isDirectory: true), C.Entry(name: "Downloads", isDirectory: true),
                       C.Entry(name: "doc.txt", isDirectory: false), C.Entry(name: "my file (1).md", isDirectory: false),
                       C.Entry(name: ".bashrc", isDirectory: false), C.Entry(name: "notes.txt", isDirectory: false)]
        func files(_ line: String, limit: Int = 4) -> [C.Completion] { C.files(C.slot(line), entries: entries, limit: limit) }
        #expect(files("$ cd Do").map(\.shown) == ["Documents/", "Downloads/"])
        // Case-sensitive matches first, then the rest, which replace what was typed.
        #expect(files("$ vim Do").map(\.shown) == ["Documents/", "Downloads/", "doc.txt"])
        #expect(files("$ vim Do")[2] == C.Completion(shown: "doc.txt", erase: 2, insert: "doc.txt ", learn: false))
        #expect(files("$ cd Do")[0] == C.Completion(shown: "Documents/", erase: 0, insert: "cuments/", learn: false))
        // Names the shell would split or act on are typed escaped.
        #expect(files("$ cat my")[0].insert == #"\ file\ \(1\).md "#)
        // Hidden files only once a dot is typed; cd only offers directories.
        #expect(!files("$ cat ").map(\.shown).contains(".bashrc"))
        #expect(files("$ cat .b").map(\.shown) == [".bashrc"])
        #expect(files("$ cd ").map(\.shown) == ["Documents/", "Downloads/"])
        // A file name typed whole has nothing left to complete; a directory still gets its slash.
        #expect(files("$ cat notes.txt").isEmpty)
        #expect(files("$ cd Documents").map(\.insert) == ["/"])
    }

    /// The line comes from whatever a program printed: any text gives a slot whose parts are the line's own
    /// end, and completions that never erase more than was typed.
    @Test func anyLineGivesASlotMadeOfItsOwnEnd() {
        let alphabet: [Character] = ["a", "b", "G", " ", " ", "/", "~", ".", "|", ";", "&", "$", "#", ">", "(", "`", "\\",
                                     "é", "e\u{301}", "界", "🙂", "\u{7}", "\t", "-", "_", "'"]
        let entries = [C.Entry(name: "ab", isDirectory: true), C.Entry(name: ".ab", isDirectory: false),
                       C.Entry(name: "A b", isDirectory: false), C.Entry(name: "é", isDirectory: false)]
        var rng = SplitMix(seed: 16)
        for _ in 0..<20_000 {
            let line = String((0..<Int(rng.next() % 24)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let s = C.slot(line)
            #expect(line.hasSuffix(s.token) && s.token.hasSuffix(s.partial) && s.directory + s.partial == s.token,
                    "\(line.debugDescription)")
            for c in C.files(s, entries: entries, limit: 4) + C.commands(s, known: ["ab", "abc", "b"], learned: ["ab"], limit: 4) {
                #expect(c.erase <= s.partial.count && !c.insert.isEmpty, "\(line.debugDescription) \(c)")
            }
        }
    }
}

/// The bar's program names for a typed prefix take the shortest matches without sorting them all: the same
/// names as sorting every match would give.
@Suite struct CommandLineCompletionShortestTests {
    @Test func commandsMatchWhatSortingEveryMatchGives() {
        var seed: UInt64 = 3
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        let letters = Array("abcdeé")
        var known = Set<String>()
        for _ in 0..<600 { known.insert(String((0..<(1 + next() % 6)).map { _ in letters[next() % letters.count] })) }
        known.formUnion(["echo", "exit", "export", "cd", "cat"])
        let sorted = known.sorted()
        for prefix in ["a", "b", "e", "ca", "é", "ab", "c", "ex", "d"] {
            for limit in [1, 4, 8] {
                for learned in [[], ["ab", "abc", "e"], [prefix + "a"]] {
                    let slot = CommandLineCompletion.slot("$ " + prefix)
                    let got = CommandLineCompletion.commands(slot, known: sorted, learned: learned, limit: limit).map(\.shown)
                    // The former way: every match sorted, shortest first.
                    var want: [String] = []
                    func isProgram(_ c: String) -> Bool { known.contains(c) || CommandLineCompletion.builtins.contains(c) }
                    func add(_ c: String) {
                        guard want.count < limit, c.hasPrefix(prefix), c != prefix, !want.contains(c), isProgram(c) else { return }
                        want.append(c)
                    }
                    learned.forEach(add)
                    CommandLineCompletion.commonCommands.forEach(add)
                    let matches = CommandLineCompletion.builtins.filter { $0.hasPrefix(prefix) } + sorted.filter { $0.hasPrefix(prefix) }
                    for c in matches.sorted(by: { ($0.count, $0) < ($1.count, $1) }) { add(c) }
                    #expect(got == want, "prefix \(prefix), limit \(limit), learned \(learned)")
                }
            }
        }
    }
}
