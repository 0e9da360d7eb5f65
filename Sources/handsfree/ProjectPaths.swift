import Foundation

/// Finds the project's data folders (`wordlists/`, `keymaps/`, `config/`) for the running binary.
///
/// Order: `$HANDSFREE_HOME`, then the folders above the executable (a `swift build` puts it in
/// `.build/<config>/`), then the current directory and its parents.
enum ProjectPaths {
    /// The folder that holds `keymaps/`, `config/` and `wordlists/`, if one is found.
    static let root: URL? = {
        let fm = FileManager.default
        func isRoot(_ u: URL) -> Bool {
            fm.fileExists(atPath: u.appendingPathComponent("keymaps").path)
                && fm.fileExists(atPath: u.appendingPathComponent("config").path)
        }
        if let env = ProcessInfo.processInfo.environment["HANDSFREE_HOME"] {
            let u = URL(fileURLWithPath: env)
            if isRoot(u) { return u }
        }
        var starts: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() { starts.append(exe.deletingLastPathComponent()) }
        starts.append(URL(fileURLWithPath: fm.currentDirectoryPath))
        for start in starts {
            var u = start
            for _ in 0..<8 {
                if isRoot(u) { return u }
                let up = u.deletingLastPathComponent()
                if up.path == u.path { break }
                u = up
            }
        }
        return nil
    }()

    /// A path inside the project folder, e.g. `dir("wordlists")`; falls back to the current directory.
    static func dir(_ name: String) -> URL {
        (root ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent(name)
    }
}

/// The word lists shipped in `wordlists/` (sources and licences in its README).
enum WordLists {
    static var folder: URL { ProjectPaths.dir("wordlists") }
    /// Word frequencies (`word count`).
    static var words: URL { folder.appendingPathComponent("words-en.txt") }
    /// Bigrams and trigrams.
    static var ngrams: URL { folder.appendingPathComponent("ngrams-en.txt") }
    /// The words that get a generated possessive ("mother's").
    static var nouns: URL { folder.appendingPathComponent("nouns-en.txt") }
    /// Swear words and slurs held back until the user has typed them.
    static var held: URL { folder.appendingPathComponent("offensive-en.txt") }
}
