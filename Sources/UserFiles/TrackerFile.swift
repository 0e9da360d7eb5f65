import Config
import Foundation
import Localization
import Shell

/// `tracker.toml` in the user's config folder: the face tracker `handsfree setup` chose, which `run` listens to
/// when it is started without `--listen` or `--replay` (and, for a webcam, the bridge it starts). Where to
/// listen, the source's name and the keymap follow from the tracker (`TrackerChoice`), so only the choice and
/// what belongs to it (the camera, the phone's address) are kept.
public enum TrackerFile {
    public static let name = "tracker.toml"

    /// The choice saved, nil when there is no file; a file that cannot be read or names no known tracker is a
    /// problem (`file:line: …`), and then no tracker is used.
    public static func load(_ file: URL) -> (TrackerChoice?, UIMessage?) {
        switch AtomicFile.read(file.path) {
        case .missing: return (nil, nil)
        case .failed(let e):
            return (nil, UIMessage("{file}: cannot be read ({reason}); run handsfree setup to choose the tracker again",
                                   ["file": file.path, "reason": "\(e)"]))
        case .damaged(_, let reason):
            return (nil, UIMessage("{file}: {reason}; run handsfree setup to choose the tracker again", ["file": file.path], reasons: ["reason": reason]))
        case .text(let text):
            do { return (try parse(text, file: file.path), nil) } catch {
                return (nil, UIMessage("{error}; run handsfree setup to choose the tracker again", reasons: ["error": error.shown]))
            }
        }
    }

    /// The choice in `text`.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> TrackerChoice {
        let doc = try TOMLDocument(text: text, file: file)
        for key in doc.root.keys.sorted() where !["tracker", "device", "phone"].contains(key) {
            throw doc.error([key], UIMessage("unknown key \"{key}\" (known: tracker, device, phone)", ["key": key]))
        }
        guard let name = doc.root["tracker"]?.string else {
            throw ConfigError(file: file, line: doc.line(["tracker"]), UIMessage("tracker must be one of {known}", ["known": known]))
        }
        guard let kind = TrackerKind(rawValue: name) else {
            throw doc.error(["tracker"], UIMessage("unknown tracker \"{tracker}\" (known: {known})", ["tracker": name, "known": known]))
        }
        var choice = TrackerChoice(kind: kind)
        if let node = doc.root["device"] {
            guard let d = node.string, d.hasPrefix("/") else { throw doc.error(["device"], UIMessage("device must be a camera's path, e.g. \"/dev/video0\"")) }
            choice.device = d
        }
        if let node = doc.root["phone"] {
            guard let p = node.string, !p.isEmpty else { throw doc.error(["phone"], UIMessage("phone must be the phone's address, e.g. \"192.168.1.20\"")) }
            choice.phone = p
        }
        return choice
    }

    static var known: String { TrackerKind.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The file's text for `choice`.
    public static func text(_ choice: TrackerChoice) -> String {
        var out = """
        # The face tracker chosen by handsfree setup (run it again to change this). handsfree run listens to it
        # when started without --listen or --replay; for a webcam it also starts the webcam bridge.
        # tracker: \(known)

        tracker = \(JSONText.quote(choice.kind.rawValue))

        """
        if choice.kind == .webcam { out += "device = \(JSONText.quote(choice.device))\n" }
        if choice.kind == .iFacialMocap, let phone = choice.phone { out += "phone = \(JSONText.quote(phone))\n" }
        return out
    }

    /// Writes the choice (atomically); returns a problem to show.
    public static func save(_ choice: TrackerChoice, to file: URL) -> String? {
        AtomicFile.write(text(choice), to: file.path).map { "\(file.path): \($0)" }
    }
}
