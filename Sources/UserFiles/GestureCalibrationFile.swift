import Config
import Foundation
import Localization
import Shell
import TrackingCore

/// `gesture-calibration.toml` in the user's config folder: per tracker source, the press and release each
/// calibrated gesture uses (`[source.NAME.GESTURE]`), and the hold and rise window learned from the user's
/// rhythm (`hold_ms`, `calm_ms`) where the calibration changed them.
public enum GestureCalibrationFile {
    /// The thresholds saved for `source`, or none; a damaged table is a problem naming the file and line, and
    /// then nothing is applied.
    public static func load(_ file: URL, source: String) -> ([GestureThreshold], UIMessage?) {
        guard case .text(let text) = AtomicFile.read(file.path) else {
            return ([], FileManager.default.fileExists(atPath: file.path) ? UIMessage("{file}: cannot be read; calibrate gestures again in Settings", ["file": file.path]) : nil)
        }
        do {
            let doc = try TOMLDocument(text: text, file: file.path)
            return (try entries(doc, source: source), nil)
        } catch {
            return ([], UIMessage("{error}; the gestures keep the config's values", reasons: ["error": configProblem(error)]))
        }
    }

    /// The thresholds of `[source.NAME]`, in name order; an error naming the line of the first bad value.
    static func entries(_ doc: TOMLDocument, source: String) throws(ConfigError) -> [GestureThreshold] {
        guard let table = doc.root["source"]?.table?[source]?.table else { return [] }
        var out: [GestureThreshold] = []
        for name in table.keys.sorted() {
            let path = ["source", source, name]
            guard let t = table[name]?.table else { throw doc.error(path, UIMessage("{name} must be a table of press and release", ["name": name])) }
            func value(_ k: String) throws(ConfigError) -> Float {
                guard let v = t[k]?.number, v.isFinite, v >= 0, v <= 1 else {
                    throw doc.error(path + [k], UIMessage("{key} must be a number from 0 to 1", ["key": k]))
                }
                return Float(v)
            }
            let press = try value("press"), release = try value("release")
            guard release < press else { throw doc.error(path + ["release"], UIMessage("release must be below press")) }
            // The user's rhythm, when the calibration learned one (milliseconds, as in the gesture config).
            func ms(_ k: String) throws(ConfigError) -> Double? {
                guard let n = t[k] else { return nil }
                guard let v = n.number, v.isFinite, v >= 0, v <= 10_000 else {
                    throw doc.error(path + [k], UIMessage("{key} must be a number of milliseconds from 0 to 10000", ["key": k]))
                }
                return v / 1000
            }
            out.append(GestureThreshold(name: name, press: press, release: release, hold: try ms("hold_ms"), calm: try ms("calm_ms")))
        }
        return out
    }

    /// Saves `thresholds` for `source` (empty removes them), keeping the other sources' readable tables;
    /// returns a problem to show.
    public static func save(_ thresholds: [GestureThreshold], source: String, to file: URL) -> UIMessage? {
        var tables: [String: [GestureThreshold]] = [:]
        if case .text(let text) = AtomicFile.read(file.path), let doc = try? TOMLDocument(text: text, file: file.path) {
            for name in (doc.root["source"]?.table?.keys).map(Array.init) ?? [] where name != source {
                if let saved = try? entries(doc, source: name), !saved.isEmpty { tables[name] = saved }
            }
        }
        if !thresholds.isEmpty { tables[source] = thresholds }
        var out = "# Gesture thresholds set by Settings › Calibrate gestures, one table per tracker source and gesture.\n"
        for name in tables.keys.sorted() {
            for t in (tables[name] ?? []).sorted(by: { $0.name < $1.name }) {
                out += "\n[source.\(JSONText.quote(name)).\(JSONText.quote(t.name))]\n"
                out += "press = \(JSONText.number(Double(t.press), digits: 4))\nrelease = \(JSONText.number(Double(t.release), digits: 4))\n"
                if let h = t.hold { out += "hold_ms = \(Int((h * 1000).rounded()))\n" }
                if let c = t.calm { out += "calm_ms = \(Int((c * 1000).rounded()))\n" }
            }
        }
        return AtomicFile.writing(out, to: file.path).map { UIMessage("Gesture calibration not saved: {reason}", reasons: ["reason": $0]) }
    }
}
