import Config
import Foundation
import Localization
import Shell
import SpeechText
import Synchronization
import UserFiles

/// The shell's translations on disk, read into `Catalog` values: the state holds one and hands it to the
/// screens, so nothing reads a file while drawing and a language switch is an event.
///
/// A language's translations are its GNU gettext catalog (domain `handsfree`): `po/LL.po` in a source tree,
/// read as it is (no build step: an edit shows at the next start, and parsing a few hundred messages takes
/// well under a millisecond), else `share/locale/LL/LC_MESSAGES/handsfree.mo` beside an installed
/// `share/handsfree`, which `scripts/install.sh` compiled with `msgfmt --check`. A language is installed
/// when it has translations or a language pack folder (`languages/LL/pack.toml`: its word data and the rest);
/// English is built in.
public enum Translations {
    /// The gettext domain: `po/handsfree.pot`, `handsfree.mo`.
    public static let domain = "handsfree"

    /// A language on offer and where its parts are.
    public struct Language: Sendable, Equatable {
        /// Its code as packs and catalogs name it (`es`, `pt_BR`).
        public var code: String
        /// Its name in the language itself, from its pack (`Español`), when the pack says.
        public var name: String?
        /// Its catalog (`.po` or `.mo`), nil when the screens have no translations for it.
        public var catalog: URL?
        /// Its pack's `pack.toml`, nil when it has no pack folder.
        public var pack: URL?

        /// "es (Español)", or the code alone.
        public var label: String { name.map { "\(code) (\($0))" } ?? code }
    }

    /// The catalog of each language under the data folder `root`: `po/LL.po` for the languages `po/LINGUAS`
    /// lists, else each `../locale/LL/LC_MESSAGES/handsfree.mo`.
    public static func catalogs(root: URL?) -> [String: URL] {
        guard let root else { return [:] }
        let fm = FileManager.default
        var out: [String: URL] = [:]
        let po = root.appendingPathComponent("po")
        if let text = try? String(contentsOf: po.appendingPathComponent("LINGUAS"), encoding: .utf8) {
            for line in text.split(separator: "\n") {
                for word in (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").split(separator: " ") {
                    guard let code = LanguageChoice.normalise(String(word)) else { continue }
                    let file = po.appendingPathComponent("\(word).po")
                    if fm.fileExists(atPath: file.path) { out[code] = file }
                }
            }
            if !out.isEmpty { return out }
        }
        let locale = root.deletingLastPathComponent().appendingPathComponent("locale")
        for name in (try? fm.contentsOfDirectory(atPath: locale.path)) ?? [] {
            guard let code = LanguageChoice.normalise(name), code.replacingOccurrences(of: "_", with: "") == name.replacingOccurrences(of: "_", with: "") else { continue }
            let file = locale.appendingPathComponent("\(name)/LC_MESSAGES/\(domain).mo")
            if fm.fileExists(atPath: file.path) { out[code] = file }
        }
        return out
    }

    /// The pack folders under `root` (`languages/LL/pack.toml`), by code.
    public static func packs(root: URL?) -> [String: URL] {
        guard let root else { return [:] }
        let folder = root.appendingPathComponent("languages")
        var out: [String: URL] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let file = folder.appendingPathComponent(name).appendingPathComponent("pack.toml")
            if let code = LanguageChoice.normalise(name), FileManager.default.fileExists(atPath: file.path) { out[code] = file }
        }
        return out
    }

    /// The languages installed under `root` besides English, by code: those with translations or a pack.
    public static func installed(root: URL? = ProjectPaths.root) -> [Language] {
        let catalogs = catalogs(root: root), packs = packs(root: root)
        return Set(catalogs.keys).union(packs.keys).filter { !LanguageChoice.isEnglish($0) }.sorted().map { code in
            Language(code: code, name: packs[code].flatMap(packName), catalog: catalogs[code], pack: packs[code])
        }
    }

    /// The pack's own name for its language (`name = "Español"` in `pack.toml`); nil when it has none or the
    /// file does not read (the pack's own checks say why).
    static func packName(_ file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let doc = try? TOMLDocument(text: text, file: file.path) else { return nil }
        return doc.root["name"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads a catalog file (`.mo` by its name, else `.po`) as the translations of `language`; what could not
    /// be read is in the catalog's `problems` with the file and line, and shows in English.
    public static func read(_ file: URL, language: String) -> Catalog {
        let path = file.path
        guard let data = FileManager.default.contents(atPath: path) else {
            return Catalog(language: language, entries: [], file: path,
                           problems: [CatalogProblem(file: path, line: nil, message: "cannot be read; the screens stay in English")])
        }
        if file.pathExtension == "mo" {
            do throws(MOFile.Damaged) {
                let mo = try MOFile.parse(Array(data))
                return Catalog(language: language, entries: mo.entries, file: path,
                               problems: mo.skipped.map { CatalogProblem(file: path, line: nil, message: $0) })
            } catch {
                return Catalog(language: language, entries: [], file: path,
                               problems: [CatalogProblem(file: path, line: nil, message: "\(error.reason); the screens stay in English")])
            }
        }
        let po = POFile.parse(bytes: Array(data), file: path)
        return Catalog(language: language, entries: po.entries, file: path, problems: po.problems)
    }

    /// The catalog of `language` under `root` (English's, or a language without translations: the empty one).
    /// The system's messages (`strerror`'s) come with it, from glibc's own catalog for the language.
    public static func catalog(_ language: String, root: URL? = ProjectPaths.root) -> Catalog {
        guard !LanguageChoice.isEnglish(language), let file = catalogs(root: root)[language] else {
            return LanguageChoice.isEnglish(language) ? .english
                : Catalog(language: language, entries: [], file: "").withSystemMessages(systemMessages(language))
        }
        return read(file, language: language).withSystemMessages(systemMessages(language))
    }

    /// glibc's catalog of the system's messages for `language` (`pt_BR` tries `pt_BR`, then `pt`), as Debian's
    /// `libc-l10n` installs it; read directly, not through `setlocale`, since the user's locale need not be
    /// generated. None when it is not installed: those texts then show in English.
    public static func systemMessages(_ language: String, folder: String = "/usr/share/locale") -> [CatalogEntry] {
        let whole = language.replacingOccurrences(of: "-", with: "_")
        let base = String(whole.prefix { $0 != "_" })
        for code in [whole, base] {
            let path = "\(folder)/\(code)/LC_MESSAGES/libc.mo"
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            return (try? MOFile.parse(Array(data)))?.entries ?? []
        }
        return []
    }

    /// The user's `language` setting, read from `settings.toml` without changing anything (`auto` when the
    /// file is missing or says nothing): for the messages of commands that do not load the settings.
    public static func setting(_ paths: UserPaths) -> String {
        guard let text = try? String(contentsOf: paths.settings, encoding: .utf8) else { return LanguageChoice.automatic }
        return ShellSettings.parse(text, file: paths.settings.path).0.language
    }

    /// What a run starts with: the language chosen and its catalog, and what to say once about it (a
    /// language asked for without a pack, a translation refused).
    public struct Start: Sendable {
        public var choice: LanguageChoice
        public var catalog: Catalog
        public var notice: UIMessage?
    }

    /// The language for `--language` (nil: not given), the `language` setting and the environment, and its
    /// catalog; an unknown code on the command line is an error that lists the installed languages.
    public static func start(commandLine: String?, setting: String,
                             environment: [String: String] = ProcessInfo.processInfo.environment,
                             root: URL? = ProjectPaths.root) throws(UnknownLanguage) -> Start {
        let codes = installed(root: root).map(\.code)
        let choice = try LanguageChoice.resolve(commandLine: commandLine, setting: setting, environment: environment, installed: codes)
        let catalog = catalog(choice.language, root: root)
        return Start(choice: choice, catalog: catalog, notice: notice(choice, catalog, installed: codes))
    }

    /// What to say once about a language a run starts in or switches to: that it has no pack, else the first
    /// translation its catalog refused and how many more.
    static func notice(_ choice: LanguageChoice, _ catalog: Catalog, installed codes: [String]) -> UIMessage? {
        if let missing = choice.missingNotice(installed: codes) { return missing }
        guard let first = catalog.problems.first else { return nil }
        let more = catalog.problems.count - 1
        return more == 0
            ? UIMessage("{problem} (see handsfree doctor)", ["problem": first.description])
            : UIMessage.plural("{problem}, and {n} other problem (see handsfree doctor)",
                               "{problem}, and {n} other problems (see handsfree doctor)", more, ["problem": first.description])
    }
}

/// The parts of a language's pack the live shell takes besides its words and translations (its speech data,
/// its keyboard and phrase board), with the mistakes in the pack's own files: one reading for a run's start
/// and for a switch at run time, so both say the same.
public struct LanguageParts: Sendable {
    /// Spoken punctuation, numbers and commands: English's where the pack's are missing or wrong.
    public var speech: SpeechLanguage
    /// The keyboard's letters, the accent key and the phrases: English's where the pack's are wrong.
    public var board: LanguageBoard
    /// What is wrong in the pack's own files, each with file:line, speech first. A pack that has no speech
    /// data or no `pack.toml` at all (as Dutch has no speech data) is not a mistake: doctor says what it lacks.
    public var problems: [UIMessage]

    /// The parts of language `code` in the packs' folder `folder`.
    public static func load(_ code: String, in folder: URL = LanguagePacks.folder) -> LanguageParts {
        let (speech, speechProblem) = SpeechPack.load(code, in: folder)
        let (board, boardProblem) = LanguageBoards.load(code, in: folder)
        var problems: [UIMessage] = []
        let base = code.split(separator: "_").first.map(String.init) ?? code
        if let speechProblem, FileManager.default.fileExists(atPath: SpeechPack.file(base, in: folder).path) {
            problems.append(speechProblem)
        }
        if let boardProblem, FileManager.default.fileExists(atPath: folder.appendingPathComponent(code).appendingPathComponent("pack.toml").path) {
            problems.append(boardProblem)
        }
        return LanguageParts(speech: speech, board: board, problems: problems)
    }
}

/// Loads another language's catalog when the `language` setting changes at run time (`Effect.loadLanguage`),
/// keeping each one read: switching back to a language used before takes no reading at all.
public final class LanguageLoader {
    let root: URL?
    let environment: [String: String]
    private var cache: [String: Catalog] = [:]
    private var parts: [String: LanguageParts] = [:]

    public init(root: URL? = ProjectPaths.root, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.root = root; self.environment = environment
    }

    /// The language packs' folder under `root`.
    var languagesFolder: URL { (root ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent("languages") }

    /// The events answering `loadLanguage(setting)`: the catalog of the language the setting names (or the
    /// environment's, for `auto`), its speech data, keyboard and phrases, and the notice a run starting in that
    /// language shows: a mistake in the pack's files, else that it has no pack or a refused translation.
    public func load(_ setting: String) -> [ShellEvent] {
        let codes = Translations.installed(root: root).map(\.code)
        // The setting is never the command line: a code without a pack gives English and says so.
        guard let choice = try? LanguageChoice.resolve(commandLine: nil, setting: setting, environment: environment, installed: codes)
        else { return [] }
        let catalog = cache[choice.language] ?? Translations.catalog(choice.language, root: root)
        cache[choice.language] = catalog
        var out: [ShellEvent] = [.languageLoaded(catalog)]
        // Its speech data (spoken punctuation, command words), keyboard letters, accent key and phrases, kept
        // once read like the catalog; their problems are said at each switch, as at each start.
        let pack = parts[choice.language] ?? LanguageParts.load(choice.language, in: languagesFolder)
        parts[choice.language] = pack
        out.append(.speechLanguageLoaded(pack.speech))
        out.append(.languageBoardLoaded(pack.board))
        if let notice = pack.problems.first ?? Translations.notice(choice, catalog, installed: codes) { out.append(.message(notice)) }
        return out
    }
}

/// The catalog the command line's own messages use (errors, `doctor`, the summary after a run): the language
/// of `--language` once a command has resolved it (`use`), else of the setting and the environment.
public enum CommandLineText {
    private static let chosen = Mutex<Catalog?>(nil)

    /// The catalog in use for command-line messages.
    public static var catalog: Catalog {
        if let c = chosen.withLock({ $0 }) { return c }
        let c = environmentCatalog()
        chosen.withLock { $0 = $0 ?? c }
        return c
    }

    /// Uses `catalog` for the rest of this process's messages (a run's `--language`).
    public static func use(_ catalog: Catalog) { chosen.withLock { $0 = catalog } }

    /// The catalog of the user's `language` setting (read from `settings.toml` without changing anything) and
    /// the environment; English when neither names an installed language.
    static func environmentCatalog() -> Catalog {
        (try? Translations.start(commandLine: nil, setting: Translations.setting(.current())))?.catalog ?? .english
    }
}
