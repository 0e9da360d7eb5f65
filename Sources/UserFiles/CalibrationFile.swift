import Config
import Foundation
import Localization
import Shell
import TrackingCore

/// A pointer calibration as saved for one source, with the screen size it was made at.

/// `calibration.toml` in the user's config folder: one `[source.NAME]` table per tracker source.
public enum CalibrationFile {
    /// The calibration saved for `source`; nil with none. A damaged file or table is a problem to show, and
    /// nothing is applied.
    public static func load(_ file: URL, source: String) -> (SavedCalibration?, UIMessage?) {
        guard case .text(let text) = AtomicFile.read(file.path) else {
            return (nil, FileManager.default.fileExists(atPath: file.path) ? UIMessage("{file}: cannot be read; calibrate again in Settings", ["file": file.path]) : nil)
        }
        do {
            let doc = try TOMLDocument(text: text, file: file.path)
            guard let saved = try entry(doc, source: source) else {
                let others = doc.root["source"]?.table?.keys.sorted() ?? []
                return (nil, others.isEmpty ? nil : UIMessage("Pointer calibrated for {sources}, not for {source}: calibrate in Settings",
                                                              ["sources": others.joined(separator: ", "), "source": source]))
            }
            return (saved, nil)
        } catch {
            return (nil, UIMessage("{error}; the pointer is not calibrated", reasons: ["error": configProblem(error)]))
        }
    }

    /// The `[source.NAME]` table of `doc`; nil if there is none, an error naming the line if it is damaged.
    static func entry(_ doc: TOMLDocument, source: String) throws(ConfigError) -> SavedCalibration? {
        guard let t = doc.root["source"]?.table?[source] else { return nil }
        func numbers(_ k: String, _ n: Int) throws(ConfigError) -> [Double] {
            guard let a = t.table?[k]?.array, a.count == n else {
                throw doc.error(["source", source, k], UIMessage("{key} must be {count} numbers", ["key": k, "count": String(n)]))
            }
            let v = a.compactMap(\.number)
            // A fit's coefficients are small (the raw pointer is within a quarter screen of 0…1); one huge
            // enough would make the pointer infinite, or NaN.
            guard v.count == n, v.allSatisfy({ $0.isFinite && abs($0) <= 1e6 }) else {
                throw doc.error(["source", source, k], UIMessage("{key} must be {count} numbers within ±1000000", ["key": k, "count": String(n)]))
            }
            return v
        }
        let cx = try numbers("cx", 6), cy = try numbers("cy", 6), shift = try numbers("shift", 2), size = try numbers("size", 2)
        guard size[0] >= 1, size[1] >= 1, size[0] <= 10_000, size[1] <= 10_000 else {
            throw doc.error(["source", source, "size"], UIMessage("size must be [columns, rows]"))
        }
        return SavedCalibration(calibration: PointerCalibration(cx: cx, cy: cy, shiftX: shift[0], shiftY: shift[1]),
                                size: Size(width: Int(size[0]), height: Int(size[1])))
    }

    /// Saves `calibration` for `source` (nil removes it), keeping the other sources' readable tables; returns a
    /// problem to show.
    public static func save(_ calibration: PointerCalibration?, size: Size, source: String, to file: URL) -> UIMessage? {
        var tables: [String: String] = [:]
        if case .text(let text) = AtomicFile.read(file.path), let doc = try? TOMLDocument(text: text, file: file.path) {
            for name in (doc.root["source"]?.table?.keys).map(Array.init) ?? [] where name != source {
                if let saved = try? entry(doc, source: name) { tables[name] = table(saved) }
            }
        }
        if let calibration { tables[source] = table(SavedCalibration(calibration: calibration, size: size)) }
        var out = "# Pointer calibrations made by the Calibration screen (Settings), one per tracker source.\n"
        for name in tables.keys.sorted() { out += "\n[source.\(JSONText.quote(name))]\n" + (tables[name] ?? "") }
        return AtomicFile.writing(out, to: file.path).map { UIMessage("Calibration not saved: {reason}", reasons: ["reason": $0]) }
    }

    static func table(_ s: SavedCalibration) -> String {
        func list(_ v: [Double]) -> String { "[" + v.map { JSONText.number($0) }.joined(separator: ", ") + "]" }
        let c = s.calibration
        return "size = [\(s.size.width), \(s.size.height)]\ncx = \(list(c.cx))\ncy = \(list(c.cy))\nshift = \(list([c.shiftX, c.shiftY]))\n"
    }
}

/// A calibration file's problem as the user reads it: a config error's `file:line: reason` with the reason in
/// the language (`ConfigError.shown`), not its English `description`; another error as it describes itself.
func configProblem(_ error: any Error) -> UIMessage {
    (error as? ConfigError)?.shown ?? .verbatim("\(error)")
}
