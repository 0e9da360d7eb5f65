import ArgumentParser
import Config
import Foundation
import Shell
import TrackingCore

/// Loads the gesture config and keymap a command was asked for, refusing with `file:line: …` on any mistake.
enum Setup {
    /// Reads `--config FILE` (or the project's `config/gestures.toml`, or the built-in defaults).
    static func settings(config: String?, overrides: [String] = []) throws -> PipelineSettings {
        let path = config ?? ProjectPaths.dir("config").appendingPathComponent("gestures.toml").path
        guard FileManager.default.fileExists(atPath: path) else {
            if config != nil { throw ValidationError("\(path): no such file") }
            do {
                return try GestureConfig.parse(GestureConfig.defaultText, file: "built-in gestures.toml", overrides: overrides)
            } catch { throw SetupError(error.description) }
        }
        let text = try readText(path)
        do { return try GestureConfig.parse(text, file: path, overrides: overrides) } catch { throw SetupError(error.description) }
    }

    /// Reads `--keymap NAME|FILE`: a name looks in the project's `keymaps/` folder.
    static func keymap(_ nameOrFile: String?, gestures: [GestureDefinition]) throws -> Keymap {
        let path = keymapPath(nameOrFile)
        guard FileManager.default.fileExists(atPath: path) else {
            let known = (try? FileManager.default.contentsOfDirectory(atPath: ProjectPaths.dir("keymaps").path))?
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted() ?? []
            throw SetupError("\(path): no such keymap (known: \(known.joined(separator: ", ")))")
        }
        let text = try readText(path)
        do { return try parseKeymap(text, file: path, gestures: gestures) } catch { throw SetupError(error.description) }
    }

    /// Parses keymap text against the gestures it may bind and the shell's screens; throws the parser's
    /// `file:line:` error as it is.
    static func parseKeymap(_ text: String, file: String, gestures: [GestureDefinition]) throws(ConfigError) -> Keymap {
        try Keymap.parse(text, file: file, knownGestures: gestures.map(\.name), knownScreens: ScreenRegistry.standard.names)
    }

    /// The file a `--keymap NAME|FILE` argument means.
    static func keymapPath(_ nameOrFile: String?) -> String {
        let arg = nameOrFile ?? "default"
        return arg.contains("/") || arg.hasSuffix(".toml")
            ? arg : ProjectPaths.dir("keymaps").appendingPathComponent(arg + ".toml").path
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), let s = String(data: data, encoding: .utf8) else {
            throw SetupError("\(path): cannot read the file as UTF-8 text")
        }
        return s
    }

    /// Parses `100x30`.
    static func size(_ text: String) throws -> Size {
        guard let s = Size(parsing: text) else { throw ValidationError("size \"\(text)\" is not WIDTHxHEIGHT, e.g. 100x30") }
        return s
    }
}

/// A setup problem, printed as is (`file:line: message`) before exiting with status 1.
struct SetupError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
