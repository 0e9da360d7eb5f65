#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `scripts/install.sh` and `uninstall.sh` with the debug binary (`--binary`, since a release build takes
/// minutes), and the installed binary run from another folder with a clean environment, as a new user would.
@Suite(.serialized) struct InstallTests {
    static let root = AppsE2E.root
    static let binary = AppsE2E.binary
    static let ready = FileManager.default.isExecutableFile(atPath: binary)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let reason: Comment = "needs .build/debug/handsfree (swift build --product handsfree) and python3"

    @Test(.enabled(if: ready, reason))
    func theInstalledBinaryWorksFromAnotherFolderAndUninstallLeavesThePrefixAsItWas() throws {
        let tmp = try TempDir("full")
        defer { tmp.remove() }
        let prefix = tmp.path + "/prefix", home = tmp.path + "/home", elsewhere = tmp.path + "/elsewhere"
        // The user already has something of their own in the prefix; it must survive both scripts.
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try "mine\n".write(toFile: prefix + "/bin/other-tool", atomically: true, encoding: .utf8)
        try "mine\n".write(toFile: prefix + "/share/man/man1/other-tool.1", atomically: true, encoding: .utf8)
        let before = try tree(prefix)

        let install = try Run.bash(Self.root + "/scripts/install.sh", "--prefix", prefix, "--binary", Self.binary)
        #expect(install.status == 0, "install failed: \(install.stderr)")
        for file in ["bin/handsfree", "share/handsfree/keymaps/default.toml", "share/handsfree/config/gestures.toml",
                     "share/handsfree/wordlists/words-en.txt", "share/handsfree/wordlists/words-en.bin",
                     "share/handsfree/languages/es/pack.toml", "share/handsfree/languages/es/words-es.bin",
                     "share/handsfree/languages/de/words-de.bin",
                     "share/handsfree/python/webcam_bridge.py", "share/man/man1/handsfree.1",
                     "share/bash-completion/completions/handsfree", "share/zsh/site-functions/_handsfree",
                     "share/fish/vendor_completions.d/handsfree.fish", "share/handsfree/install-manifest.txt"]
                + ["de", "es", "fr", "it", "nl", "pt"].map({ "share/locale/\($0)/LC_MESSAGES/handsfree.mo" }) {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) not installed")
        }
        let man = try String(contentsOfFile: prefix + "/share/man/man1/handsfree.1", encoding: .utf8)
        #expect(man.hasPrefix(".TH \"HANDSFREE\" \"1\""))
        #expect(man.contains("handsfree doctor") && man.contains("\\-\\-data\\-dir"), "the man page covers subcommands and options")
        #expect(man.contains(".SH SETTINGS\n") && man.contains("\\fBsuggestions\\fR = 4\n"),
                "the man page lists every setting from the schema (handsfree settings-reference --man)")
        let bashCompletion = try String(contentsOfFile: prefix + "/share/bash-completion/completions/handsfree", encoding: .utf8)
        #expect(bashCompletion.contains("doctor"))

        // What a new user does: the installed binary on PATH, run from elsewhere, nothing else set.
        let env = ["HOME": home, "PATH": prefix + "/bin:/usr/bin:/bin"]
        func hf(_ args: String..., input: String? = nil) throws -> Run.Result {
            try Run.process("/usr/bin/env", ["handsfree"] + args, environment: env, directory: elsewhere, input: input)
        }
        let check = try hf("check", prefix + "/share/handsfree/keymaps/dwell.toml")
        #expect(check.status == 0 && check.stdout.contains("ok, a keymap"), "check: \(check.stdout)\(check.stderr)")
        let predict = try hf("predict", "--stdin", "-n", "3", input: "open the win\n")
        #expect(predict.status == 0, "predict: \(predict.stderr)")
        #expect(predict.stdout.split(separator: "\t").first == "window", "the installed word list and n-grams: \(predict.stdout)")
        // The text as arguments, as a user tries it first; a trailing space asks for the next word.
        let asArguments = try hf("predict", "-n", "3", "open", "the win")
        #expect(asArguments.status == 0 && asArguments.stdout == predict.stdout, "\(asArguments.stdout)\(asArguments.stderr)")
        let nextWord = try hf("predict", "-n", "3", "thank ")
        #expect(nextWord.stdout.split(separator: "\t").contains("you"), "\(nextWord.stdout)")
        let neither = try hf("predict")
        #expect(neither.status != 0 && neither.stderr.contains("handsfree predict 'the quick bro'"), "\(neither.stderr)")
        let both = try hf("predict", "--stdin", "hello", input: "x\n")
        #expect(both.status != 0 && both.stderr.contains("not both"), "\(both.stderr)")
        // The lists compiled at install match the lists moved into place, so a first start reads them at once.
        let compiled = try hf("words", "compile")
        #expect(compiled.status == 0 && compiled.stdout.contains("wordlists/words-en.bin is up to date"),
                "\(compiled.stdout)\(compiled.stderr)")
        // Each language pack compiled at install too, and found by its code.
        let spanishWords = try hf("predict", "--language", "es", "-n", "3", "--user-file", "none", "la cancion")
        #expect(spanishWords.status == 0 && spanishWords.stdout.split(separator: "\t").first == "canción",
                "\(spanishWords.stdout)\(spanishWords.stderr)")
        let compiledSpanish = try hf("words", "compile", "--language", "es")
        #expect(compiledSpanish.status == 0 && compiledSpanish.stdout.contains("languages/es/words-es.bin is up to date"),
                "\(compiledSpanish.stdout)\(compiledSpanish.stderr)")
        let layout = try hf("layout", "--screen", "launcher", "--size", "100x30")
        #expect(layout.status == 0 && layout.stdout.contains("launcher.notes"), "layout: \(layout.stdout)\(layout.stderr)")
        let doctor = try hf("doctor", "--listen", "udp://127.0.0.1:\(try freeUDPPort())")
        #expect(doctor.status == 0, "doctor: \(doctor.stdout)")
        #expect(doctor.stdout.contains("ok    data: \(prefix)/share/handsfree (found by the binary's prefix"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("keymaps: default, dwell, no-wink"))
        #expect(doctor.stdout.contains("ok    languages: de (Deutsch), en (English), es (Español), fr (Français), it (Italiano), nl (Nederlands), pt (Português) installed (packs in \(prefix)/share/handsfree/languages);"),
                "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ok    compiled word lists: \(prefix)/share/handsfree/wordlists/words-en.bin, up to date"),
                "\(doctor.stdout)")
        // The translations msgfmt compiled, found beside the installed data and used for the command's own
        // messages in the user's language.
        #expect(doctor.stdout.split(separator: "\n").contains { $0.hasPrefix("ok    language es (Español): ")
                    && $0.hasSuffix("messages translated (\(prefix)/share/locale/es/LC_MESSAGES/handsfree.mo)") }, "\(doctor.stdout)")
        let spanish = try Run.process("/usr/bin/env", ["handsfree", "doctor", "--listen", "udp://127.0.0.1:\(try freeUDPPort())"],
                                      environment: env.merging(["LANG": "es_ES.UTF-8"]) { $1 }, directory: elsewhere, input: nil)
        #expect(spanish.stdout.contains("idiomas: de (Deutsch), en (English), es (Español), fr (Français), it (Italiano), nl (Nederlands), pt (Português) "
                                        + "instalados (paquetes en \(prefix)/share/handsfree/languages); idioma de la interfaz: es (LANG=es_ES.UTF-8)")
                && spanish.stdout.contains("doctor: está todo lo que necesita HandsFree Shell"), "\(spanish.stdout)")
        let demo = try hf("demo", "--plain", "--headless")
        #expect(demo.status == 0 && demo.stdout.contains("screen opened Notes") && !demo.stdout.contains("\u{1B}"),
                "demo: \(demo.stdout.suffix(400))\(demo.stderr)")

        let uninstall = try Run.bash(Self.root + "/scripts/uninstall.sh", "--prefix", prefix)
        #expect(uninstall.status == 0, "uninstall failed: \(uninstall.stderr)")
        #expect(try tree(prefix) == before, "uninstall leaves the prefix as it was")
    }

    @Test(.enabled(if: ready, reason))
    func aPrefixThatCannotBeCreatedIsRefusedAndNothingIsLeft() throws {
        let tmp = try TempDir("unwritable")
        defer { tmp.remove() }
        // Root may write anywhere, but nobody can make a folder inside a plain file.
        try "a file\n".write(toFile: tmp.path + "/file-not-dir", atomically: true, encoding: .utf8)
        let before = try tree(tmp.path)
        let r = try Run.bash(Self.root + "/scripts/install.sh", "--prefix", tmp.path + "/file-not-dir/prefix", "--binary", Self.binary)
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot install into \(tmp.path)/file-not-dir/prefix") && r.stderr.contains("Not a directory"), "\(r.stderr)")
        #expect(r.stderr.contains("nothing was installed"))
        #expect(try tree(tmp.path) == before)
    }

    @Test(.enabled(if: ready, reason))
    func aFailureHalfWayTakesBackWhatWasCopied() throws {
        let tmp = try TempDir("halfway")
        defer { tmp.remove() }
        // `bin/` is made first; `share` being a file stops the install after that.
        try FileManager.default.createDirectory(atPath: tmp.path + "/prefix", withIntermediateDirectories: true)
        try "in the way\n".write(toFile: tmp.path + "/prefix/share", atomically: true, encoding: .utf8)
        let before = try tree(tmp.path)
        let r = try Run.bash(Self.root + "/scripts/install.sh", "--prefix", tmp.path + "/prefix", "--binary", Self.binary)
        #expect(r.status == 1)
        #expect(r.stderr.contains("share exists and is not a folder") && r.stderr.contains("was removed"), "\(r.stderr)")
        #expect(try tree(tmp.path) == before)
    }

    /// Regression: `words` wrote to `$XDG_DATA_HOME/handsfree` while `run` learns into `$HANDSFREE_DATA_DIR`.
    @Test(.enabled(if: ready, reason))
    func wordsAndPredictUseTheDataFolderRunUses() throws {
        let tmp = try TempDir("datadir")
        defer { tmp.remove() }
        let data = tmp.path + "/data", flagged = tmp.path + "/flagged"
        let env = ["HOME": tmp.path + "/home", "PATH": "/usr/bin:/bin", "HANDSFREE_DATA_DIR": data,
                   "HANDSFREE_HOME": Self.root]
        let add = try Run.process(Self.binary, ["words", "add", "Zoë"], environment: env, directory: tmp.path)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try String(contentsOfFile: data + "/user-words.txt", encoding: .utf8).contains("Zoë"))
        let list = try Run.process(Self.binary, ["words", "list"], environment: env, directory: tmp.path)
        #expect(list.stdout.hasPrefix(data + "/user-words.txt: 1 word, 0 removed"), "\(list.stdout)")

        let add2 = try Run.process(Self.binary, ["words", "add", "Siobhán", "--data-dir", flagged], environment: env, directory: tmp.path)
        #expect(add2.status == 0, "\(add2.stderr)")
        #expect(try String(contentsOfFile: flagged + "/user-words.txt", encoding: .utf8).contains("Siobhán"))
        let predict = try Run.process(Self.binary, ["predict", "--stdin", "--data-dir", flagged, "--ngrams", "none"],
                                      environment: env, directory: tmp.path, input: "Sio\n")
        #expect(predict.stdout.contains("Siobhán"), "predict reads the user file of --data-dir: \(predict.stdout)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/home/.local/share/handsfree/user-words.txt"))
    }

    @Test(.enabled(if: ready, reason))
    func doctorNamesWhatIsMissingWithAFixAndABusyPort() throws {
        let tmp = try TempDir("doctor")
        defer { tmp.remove() }
        // The binary alone, as when copied by hand: no data beside it, none in $XDG_DATA_DIRS.
        try FileManager.default.createDirectory(atPath: tmp.path + "/bin", withIntermediateDirectories: true)
        try Self.copyBinary(to: tmp.path + "/bin/handsfree")
        let port = try freeUDPPort()
        let busy = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(busy) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(busy, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0)
        let env = ["HOME": tmp.path + "/home", "PATH": "/usr/bin:/bin", "XDG_DATA_DIRS": tmp.path + "/nothing"]
        let r = try Run.process(tmp.path + "/bin/handsfree", ["doctor", "--listen", "udp://127.0.0.1:\(port)"],
                                environment: env, directory: tmp.path)
        #expect(r.status == 1, "\(r.stdout)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let data = try #require(lines.firstIndex { $0.hasPrefix("FAIL  data: no folder with keymaps/ and config/") }, "\(r.stdout)")
        #expect(lines[data + 1].contains("fix: install with scripts/install.sh"))
        let port1 = try #require(lines.firstIndex { $0.contains("udp://127.0.0.1:\(port): in use by another program") }, "\(r.stdout)")
        #expect(lines[port1 + 1].contains("fix:"))
        // No sound card here: the microphone line gives ALSA's reason and a fix.
        if let mic = lines.firstIndex(where: { $0.hasPrefix("warn  no microphone: ") }) {
            #expect(lines[mic + 1].contains("fix:"))
        } else {
            #expect(lines.contains { $0.hasPrefix("ok    microphone: ") }, "a microphone line either way: \(r.stdout)")
        }
        for (i, line) in lines.enumerated() where line.hasPrefix("FAIL") || line.hasPrefix("warn") {
            #expect(i + 1 < lines.count && lines[i + 1].hasPrefix("      fix: "), "no fix after: \(line)")
        }
    }

    @Test(.enabled(if: ready, reason))
    func dataIsFoundInXDGDataDirsAndHandsfreeHomeWins() throws {
        let tmp = try TempDir("xdg")
        defer { tmp.remove() }
        try FileManager.default.createDirectory(atPath: tmp.path + "/bin", withIntermediateDirectories: true)
        try Self.copyBinary(to: tmp.path + "/bin/handsfree")
        for (name, base) in [("xdg", "/second/handsfree"), ("own", "")] {
            let dir = tmp.path + "/" + name + base
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for d in ["keymaps", "config", "wordlists"] {
                try FileManager.default.createSymbolicLink(atPath: dir + "/" + d, withDestinationPath: Self.root + "/" + d)
            }
        }
        var env = ["HOME": tmp.path + "/home", "PATH": "/usr/bin:/bin",
                   "XDG_DATA_DIRS": "\(tmp.path)/xdg/first:\(tmp.path)/xdg/second"]
        let viaXDG = try Run.process(tmp.path + "/bin/handsfree", ["doctor"], environment: env, directory: tmp.path)
        #expect(viaXDG.stdout.contains("ok    data: \(tmp.path)/xdg/second/handsfree (found by $XDG_DATA_DIRS (\(tmp.path)/xdg/second))"),
                "\(viaXDG.stdout)")
        env["HANDSFREE_HOME"] = tmp.path + "/own"
        let viaHome = try Run.process(tmp.path + "/bin/handsfree", ["doctor"], environment: env, directory: tmp.path)
        #expect(viaHome.stdout.contains("ok    data: \(tmp.path)/own (found by $HANDSFREE_HOME)"), "\(viaHome.stdout)")
    }

    /// Every path under `dir` (relative), with file contents' sizes, sorted.
    /// Copies the built binary with `cp`, in a process of its own. Written from this process, the copy's
    /// descriptor was inherited by a child another suite forked meanwhile, and running the copy then failed with
    /// "Text file busy" (ETXTBSY).
    static func copyBinary(to path: String) throws {
        let r = try Run.process("/bin/cp", [binary, path], environment: nil, directory: nil)
        try #require(r.status == 0, "cp \(binary) \(path): \(r.stderr)")
    }

    private func tree(_ dir: String) throws -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/" + rel)
            out.append("\(rel) \(attrs[.type] as? FileAttributeType == .typeDirectory ? "dir" : "\(attrs[.size] ?? 0)")")
        }
        return out.sorted()
    }
}

/// A temporary folder removed by `remove()`.
private struct TempDir {
    let path: String
    init(_ tag: String) throws {
        path = NSTemporaryDirectory() + "hf-install-\(tag)-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs a program and collects its output and exit status.
/// `install.sh --uinput`: the udev rule and module list, written under a stand-in root; without root it
/// only prints the sudo command.
@Suite struct InstallUinputTests {
    static let script = AppsE2E.root + "/scripts/install.sh"

    @Test func theRuleGivesTheSeatUserUinputAndTheModuleLoadsAtBoot() throws {
        let tmp = try TempDir("uinput")
        defer { tmp.remove() }
        let run = try Run.process("/bin/bash", [Self.script, "--uinput"],
                                  environment: ["PATH": "/usr/bin:/bin", "HOME": tmp.path, "HANDSFREE_SYSROOT": tmp.path], directory: nil)
        #expect(run.status == 0, "\(run.stderr)")
        let rule = try String(contentsOfFile: tmp.path + "/etc/udev/rules.d/70-handsfree-uinput.rules", encoding: .utf8)
        #expect(rule.hasSuffix("KERNEL==\"uinput\", SUBSYSTEM==\"misc\", TAG+=\"uaccess\", OPTIONS+=\"static_node=uinput\"\n"))
        #expect(!rule.contains("GROUP"), "no group: a group with access to input devices could read keyboards")
        let modules = try String(contentsOfFile: tmp.path + "/etc/modules-load.d/handsfree-uinput.conf", encoding: .utf8)
        #expect(modules.hasSuffix("\nuinput\n"))
        #expect(run.stdout.contains("handsfree doctor"))
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root and setpriv to run the script as another user"))
    func withoutRootItPrintsTheSudoCommandAndChangesNothing() throws {
        // nobody may not enter the checkout (a home folder is 0700, so is what `mktemp -d` makes): the script
        // is run from a copy in a world-readable folder of the test's own, as `scripts/install.sh` there.
        let tmp = try TempDir("uinput-nobody")
        defer { tmp.remove() }
        let fm = FileManager.default
        let script = tmp.path + "/scripts/install.sh"
        try fm.createDirectory(atPath: tmp.path + "/scripts", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Self.script, toPath: script)
        for (path, mode) in [(tmp.path, 0o755), (tmp.path + "/scripts", 0o755), (script, 0o755)] {
            try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
        let run = try Run.process("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/bash", script, "--uinput"],
                                  environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"], directory: "/")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("sudo \(script) --uinput"), "\(run.stdout)")
        #expect(!fm.fileExists(atPath: tmp.path + "/etc"), "nothing written")
    }
}

private enum Run {
    struct Result { var status: Int32; var stdout: String; var stderr: String }

    static func bash(_ script: String, _ args: String...) throws -> Result {
        try process("/bin/bash", [script] + args, environment: nil, directory: nil)
    }

    static func process(_ exe: String, _ args: [String], environment: [String: String]?, directory: String?,
                        input: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
        try inp.fileHandleForWriting.close()
        // Read both pipes at once, so neither fills while the other is waited on.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
