import Config
import Foundation
import Localization
import Shell
import Speech
import TrackingCore
import UserFiles

/// Loads the gesture config and keymap a command was asked for, refusing with `file:line: …` on any mistake.
public enum Setup {
    /// Reads `--config FILE` (or the project's `config/gestures.toml`, or the built-in defaults).
    public static func settings(config: String?, overrides: [String] = []) throws -> PipelineSettings {
        // A bare name (`--config webcam`) is one of the shipped configs in config/.
        let named = config.flatMap {
            $0.contains("/") || $0.hasSuffix(".toml") || FileManager.default.fileExists(atPath: $0)
                ? nil : ProjectPaths.dir("config").appendingPathComponent($0 + ".toml").path
        }
        let path = named ?? config ?? ProjectPaths.dir("config").appendingPathComponent("gestures.toml").path
        guard FileManager.default.fileExists(atPath: path) else {
            if config != nil { throw SetupError(UIMessage("{file}: no such file", ["file": path])) }
            do {
                return try GestureConfig.parse(GestureConfig.defaultText, file: "built-in gestures.toml", overrides: overrides)
            } catch { throw SetupError(error) }
        }
        let text = try readText(path)
        do { return try GestureConfig.parse(text, file: path, overrides: overrides) } catch { throw SetupError(error) }
    }

    /// The gesture config a keymap names in its `[options] config`, if it names one and can be read.
    ///
    /// Read before the config itself, since the keymap's gestures are checked against it.
    public static func keymapConfig(_ nameOrFile: String?) -> String? {
        let path = keymapPath(nameOrFile)
        guard let text = try? readText(path), let doc = try? TOMLDocument(text: text, file: path) else { return nil }
        return doc.root["options"]?.table?["config"]?.string
    }

    /// Reads `--keymap NAME|FILE`: a name looks in the project's `keymaps/` folder.
    ///
    /// The keymap is named as it was asked for (`"default"` for nil), whatever its file's `name =` line says:
    /// that is the name the user chose and the settings save, so the name of the keymap in use and the chosen
    /// one are the same string, and a reload (`KeymapWatcher`) keeps it.
    public static func keymap(_ nameOrFile: String?, gestures: [GestureDefinition]) throws -> Keymap {
        let path = keymapPath(nameOrFile)
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
            throw SetupError(UIMessage("{file}: no such keymap (known: {known})", ["file": path, "known": known.joined(separator: ", ")]))
        }
        let text = try readText(path)
        var keymap: Keymap
        do { keymap = try parseKeymap(text, file: path, gestures: gestures) } catch { throw SetupError(error) }
        keymap.name = nameOrFile ?? "default"
        return keymap
    }

    /// Parses keymap text against the gestures it may bind, the shell's screens and the recogniser's
    /// dictionary, with every check a keymap the shell runs with must pass; throws the parser's `file:line:`
    /// error as it is.
    public static func parseKeymap(_ text: String, file: String, gestures: [GestureDefinition]) throws(ConfigError) -> Keymap {
        var isKnownWord: (@Sendable (String) -> Bool)?
        if let dictionary = PronunciationDictionary.shared { isKnownWord = { dictionary.contains($0) } }
        return try Keymap.load(text, file: file, knownGestures: gestures.map(\.name),
                               knownScreens: ScreenRegistry.standard.names, isKnownWord: isKnownWord, include: includeKeymap)
    }

    /// Reads the keymap an `include = "…"` names: a name in the `keymaps/` folder ("default"), or a path, a
    /// relative one from the including file's folder.
    @Sendable public static func includeKeymap(_ name: String, from: String) -> Result<(file: String, text: String), KeymapIncludeError> {
        let path: String
        if name.contains("/") || name.hasSuffix(".toml") {
            path = name.hasPrefix("/") ? name
                : URL(fileURLWithPath: from).deletingLastPathComponent().appendingPathComponent(name).path
        } else {
            path = keymapPath(name)
        }
        let file = URL(fileURLWithPath: path).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: file) else {
            let known = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
            return .failure(KeymapIncludeError(UIMessage("{file}: no such keymap (known: {known})",
                                                         ["file": file, "known": known.joined(separator: ", ")])))
        }
        do { return .success((file, try readText(file))) } catch {
            return .failure(KeymapIncludeError(SetupError.message(of: error)))
        }
    }

    /// The file a `--keymap NAME|FILE` argument means.
    public static func keymapPath(_ nameOrFile: String?) -> String {
        let arg = nameOrFile ?? "default"
        return arg.contains("/") || arg.hasSuffix(".toml")
            ? arg : ProjectPaths.dir("keymaps").appendingPathComponent(arg + ".toml").path
    }

    /// The most a config, keymap or grammar file may hold; bigger is a mistake (e.g. `/dev/zero`).
    public static let maxTextFileSize = 1 << 20

    /// The text of a file, or a `path: reason` error (missing, a folder, unreadable, too big, not UTF-8).
    public static func readText(_ path: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw SetupError(UIMessage("{file}: no such file", ["file": path])) }
        if isDir.boolValue { throw SetupError(UIMessage("{file}: is a folder, not a file", ["file": path])) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SetupError(UIMessage("{file}: cannot be read ({reason})", ["file": path], reasons: ["reason": .system(String(cString: strerror(errno)))]))
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maxTextFileSize + 1) ?? Data() } catch {
            throw SetupError(UIMessage("{file}: cannot be read ({reason})", ["file": path, "reason": error.localizedDescription]))
        }
        if data.count > maxTextFileSize { throw SetupError(UIMessage("{file}: is larger than 1 MB, too big for a text file of settings", ["file": path])) }
        guard let s = String(data: data, encoding: .utf8) else { throw SetupError(UIMessage("{file}: is not UTF-8 text", ["file": path])) }
        return s
    }

}

/// A setup problem, printed as is (`file:line: message`) before exiting with status 1.
public struct SetupError: Error, CustomStringConvertible {
    /// The problem in English.
    public var description: String
    /// The problem as the user reads it, translated where it is shown (as `description` where it was not
    /// worded for translation).
    public var message: UIMessage
    public init(_ d: String) { description = d; message = .verbatim(d) }
    public init(_ m: UIMessage) { description = m.english; message = m }
    /// A config or keymap file's problem, `file:line:` and its reason.
    public init(_ e: ConfigError) { self.init(e.shown) }

    /// What `error` says to the user, translated where its words were worded for it (a `SetupError`'s, a
    /// `ConfigError`'s), else as it describes itself.
    public static func message(of error: any Error) -> UIMessage {
        (error as? SetupError)?.message ?? (error as? ConfigError)?.shown ?? .verbatim("\(error)")
    }
}

/// The words PocketSphinx can hear: the first column of its pronunciation dictionary.
///
/// Read as bytes rather than through a decoder, so `check` and `run --no-speech` need no model loaded. The
/// lines are indexed by their first byte once, so a word is compared only with the lines that start as it
/// does: searching all 3.3 MB for each of a keymap's words took a fifth of a second at every start and
/// keymap reload.
public struct PronunciationDictionary: Sendable {
    private let bytes: [UInt8]
    /// Where each line starts, by the line's first byte.
    private let starts: [[Int32]]

    public init(bytes: [UInt8]) {
        var starts = [[Int32]](repeating: [], count: 256)
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i < b.count {
                if b[i] != 0x0A { starts[Int(b[i])].append(Int32(truncatingIfNeeded: i)) }
                while i < b.count, b[i] != 0x0A { i += 1 }
                i += 1
            }
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// Whether `word` (any case) starts a line, followed by its phones or a `(2)` alternative marker.
    public func contains(_ word: String) -> Bool {
        let w = Array(word.lowercased().utf8)
        guard let first = w.first, !w.contains(where: { $0 == 0x0A || $0 == 0x20 || $0 == 0x09 }) else { return false }
        return bytes.withUnsafeBufferPointer { b in
            for s32 in starts[Int(first)] {
                let s = Int(s32), end = s + w.count
                guard end < b.count else { continue }
                let next = b[end]
                guard next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") || next == UInt8(ascii: "(") else { continue }
                var k = 1
                while k < w.count, b[s + k] == w[k] { k += 1 }
                if k == w.count { return true }
            }
            return false
        }
    }

    /// Debian's en-us dictionary, or nil when it is not installed (then phrases are checked for letters only).
    public static let shared: PronunciationDictionary? = load(path: RecognizerConfiguration().dictionary)

    /// The dictionary at `path`, or nil when it cannot be read, is empty, or is too big to index (2 GB).
    public static func load(path: String) -> PronunciationDictionary? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty, data.count < Int(Int32.max) else { return nil }
        return PronunciationDictionary(bytes: [UInt8](data))
    }
}
