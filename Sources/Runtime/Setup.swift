import Config
import Foundation
import Shell
import Speech
import TrackingCore

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
            if config != nil { throw SetupError("\(path): no such file") }
            do {
                return try GestureConfig.parse(GestureConfig.defaultText, file: "built-in gestures.toml", overrides: overrides)
            } catch { throw SetupError(error.description) }
        }
        let text = try readText(path)
        do { return try GestureConfig.parse(text, file: path, overrides: overrides) } catch { throw SetupError(error.description) }
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
    public static func keymap(_ nameOrFile: String?, gestures: [GestureDefinition]) throws -> Keymap {
        let path = keymapPath(nameOrFile)
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
            throw SetupError("\(path): no such keymap (known: \(known.joined(separator: ", ")))")
        }
        let text = try readText(path)
        do { return try parseKeymap(text, file: path, gestures: gestures) } catch { throw SetupError(error.description) }
    }

    /// Parses keymap text against the gestures it may bind, the shell's screens and the recogniser's
    /// dictionary, with every check a keymap the shell runs with must pass; throws the parser's `file:line:`
    /// error as it is.
    public static func parseKeymap(_ text: String, file: String, gestures: [GestureDefinition]) throws(ConfigError) -> Keymap {
        var isKnownWord: (@Sendable (String) -> Bool)?
        if let dictionary = PronunciationDictionary.shared { isKnownWord = { dictionary.contains($0) } }
        return try Keymap.load(text, file: file, knownGestures: gestures.map(\.name),
                               knownScreens: ScreenRegistry.standard.names, isKnownWord: isKnownWord)
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
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw SetupError("\(path): no such file") }
        if isDir.boolValue { throw SetupError("\(path): is a folder, not a file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SetupError("\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maxTextFileSize + 1) ?? Data() } catch {
            throw SetupError("\(path): cannot be read (\(error.localizedDescription))")
        }
        if data.count > maxTextFileSize { throw SetupError("\(path): is larger than 1 MB, too big for a text file of settings") }
        guard let s = String(data: data, encoding: .utf8) else { throw SetupError("\(path): is not UTF-8 text") }
        return s
    }

}

/// A setup problem, printed as is (`file:line: message`) before exiting with status 1.
public struct SetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The words PocketSphinx can hear: the first column of its pronunciation dictionary.
///
/// Read as bytes rather than through a decoder, so `check` and `run --no-speech` need no model loaded; a
/// keymap asks for a few dozen words, so each is searched for in the bytes instead of indexing 135,000 lines.
public struct PronunciationDictionary: Sendable {
    /// The file with a newline in front, so every entry starts after a newline.
    public let bytes: Data

    /// Whether `word` (any case) starts a line, followed by its phones or a `(2)` alternative marker.
    public func contains(_ word: String) -> Bool {
        let w = Array(word.lowercased().utf8)
        guard !w.isEmpty, !w.contains(where: { $0 == 0x0A || $0 == 0x20 || $0 == 0x09 }) else { return false }
        return [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "(")].contains { end in
            bytes.range(of: Data([0x0A] + w + [end])) != nil
        }
    }

    /// Debian's en-us dictionary, or nil when it is not installed (then phrases are checked for letters only).
    public static let shared: PronunciationDictionary? = load(path: RecognizerConfiguration().dictionary)

    public static func load(path: String) -> PronunciationDictionary? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        return PronunciationDictionary(bytes: Data([0x0A]) + data)
    }
}
