import Config
import Foundation
import Localization

/// A simulated user of `handsfree bench typing`: how fast and how well they point, act and read, as data with
/// its sources (`config/typing-profiles.toml`). Times are seconds here (milliseconds in the file).
public struct TypingProfile: Sendable, Equatable {
    /// How the pointer is moved: the eyes (ballistic saccades) or the head (a webcam head pointer).
    public enum Pointer: String, Sendable, Equatable { case eye, head }

    public var name: String
    public var description: String
    /// Where the values come from, as the file says.
    public var sources: String
    public var pointer: Pointer
    /// Time to start moving towards the next target: mean, spread and most.
    public var latency: Double, latencySD: Double, latencyMax: Double
    /// Movement time a + b·log2(D/W + 1) (Fitts' law): a, and b per bit.
    public var travel: Double, travelPerBit: Double
    /// Pointer jitter while fixating (standard deviation) and a tremor, as fractions of the screen.
    public var noise: Double, tremor: Double, tremorHz: Double
    /// The tracker's delay between the face moving and the frame carrying it.
    public var lag: Double
    /// Checking the highlighted target before acting.
    public var settle: Double
    /// From deciding to act to the face starting to move; from seeing the act to letting go.
    public var reaction: Double, release: Double
    /// Reading one suggestion of the bar.
    public var scan: Double
    /// Chance a key press lands on the neighbouring key.
    public var errorRate: Double
    /// From a wrong letter appearing to deciding to delete it.
    public var notice: Double

    /// The keys a profile table must have: name in the file, and the largest value that makes sense.
    static let numbers: [(key: String, max: Double)] = [
        ("latency_ms", 10_000), ("latency_sd_ms", 10_000), ("latency_max_ms", 10_000), ("travel_ms", 10_000),
        ("travel_ms_per_bit", 10_000), ("noise", 0.5), ("tremor", 0.5), ("tremor_hz", 30), ("lag_ms", 5_000),
        ("settle_ms", 10_000), ("reaction_ms", 10_000), ("release_ms", 10_000), ("scan_ms", 10_000),
        ("error_rate", 0.5), ("notice_ms", 10_000),
    ]

    /// Reads every `[profile.NAME]` table of a profile file; a missing, unknown or impossible value (negative,
    /// NaN, infinite, past its limit) is a `file:line` error.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> [TypingProfile] {
        let doc = try TOMLDocument(text: text, file: file)
        guard let tables = doc.root["profile"]?.table, !tables.isEmpty else {
            throw ConfigError(file: file, line: nil, UIMessage("no [profile.NAME] table"))
        }
        var out: [TypingProfile] = []
        for (name, node) in tables.sorted(by: { (doc.line(["profile", $0.key]) ?? 0) < (doc.line(["profile", $1.key]) ?? 0) }) {
            guard let t = node.table else { throw doc.error(["profile", name], UIMessage("profile.{name} must be a table", ["name": name])) }
            let known = Set(numbers.map(\.key) + ["description", "sources", "pointer"])
            for key in t.keys.sorted() where !known.contains(key) {
                throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key}: unknown key (known: {known})",
                                                                  ["name": name, "key": key, "known": known.sorted().joined(separator: ", ")]))
            }
            func string(_ key: String) throws(ConfigError) -> String {
                guard let v = t[key] else { throw doc.error(["profile", name], UIMessage("profile.{name}: {key} is missing", ["name": name, "key": key])) }
                guard let s = v.string else { throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key} must be a string", ["name": name, "key": key])) }
                return s
            }
            var v: [String: Double] = [:]
            for (key, limit) in numbers {
                let values = ["name": name, "key": key]
                guard let node = t[key] else { throw doc.error(["profile", name], UIMessage("profile.{name}: {key} is missing", values)) }
                guard let x = node.number else { throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key} must be a number", values)) }
                let shown = values.merging(["value": "\(x)", "limit": "\(limit)"]) { $1 }
                guard x.isFinite else { throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key} = {value}: must be a finite number", shown)) }
                guard x >= 0 else { throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key} = {value}: cannot be negative", shown)) }
                guard x <= limit else { throw doc.error(["profile", name, key], UIMessage("profile.{name}.{key} = {value}: more than {limit} makes no sense", shown)) }
                v[key] = key.hasSuffix("_ms") || key == "travel_ms_per_bit" ? x / 1000 : x
            }
            let pointerText = try string("pointer")
            guard let pointer = Pointer(rawValue: pointerText) else {
                throw doc.error(["profile", name, "pointer"], UIMessage("profile.{name}.pointer = \"{value}\": must be \"eye\" or \"head\"", ["name": name, "value": pointerText]))
            }
            func n(_ key: String) -> Double { v[key] ?? 0 }
            guard n("latency_max_ms") >= n("latency_ms") else {
                throw doc.error(["profile", name, "latency_max_ms"], UIMessage("profile.{name}.latency_max_ms is less than latency_ms", ["name": name]))
            }
            out.append(TypingProfile(
                name: name, description: try string("description"), sources: try string("sources"), pointer: pointer,
                latency: n("latency_ms"), latencySD: n("latency_sd_ms"), latencyMax: n("latency_max_ms"),
                travel: n("travel_ms"), travelPerBit: n("travel_ms_per_bit"), noise: n("noise"), tremor: n("tremor"),
                tremorHz: n("tremor_hz"), lag: n("lag_ms"), settle: n("settle_ms"), reaction: n("reaction_ms"),
                release: n("release_ms"), scan: n("scan_ms"), errorRate: n("error_rate"), notice: n("notice_ms")))
        }
        return out
    }
}

/// The phrases a typing bench presents, read from any text: one phrase a line.
public enum PhraseSet {
    /// The longest phrase kept; a longer line is named and skipped (a phrase is a sentence, not a book).
    public static let maxLength = 200

    /// The phrases of `text` the keyboard can type (`keys`, space added), lowercased (the keyboard has no
    /// capitals, so case is not compared) with runs of spaces and tabs made one space; `#` lines are
    /// comments. Empty lines, too-long lines and lines with a character the keyboard lacks are skipped, each
    /// named in `problems` as `file:line: why`.
    public static func parse(_ text: String, file: String, keys: Set<Character>) -> (phrases: [String], problems: [String]) {
        var phrases: [String] = [], problems: [String] = []
        var number = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for raw in lines {
            number += 1
            if raw.utf8.count > maxLength * 4 {
                problems.append("\(file):\(number): a line of \(raw.utf8.count) bytes (a phrase is at most \(maxLength) characters), skipped")
                continue
            }
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            let line = words.joined(separator: " ").lowercased()
            if line.hasPrefix("#") { continue }
            if line.isEmpty {
                // The file's final new line leaves an empty last piece: not a line of the file.
                if number == lines.count, text.hasSuffix("\n") || text.isEmpty { continue }
                problems.append("\(file):\(number): empty line, skipped")
                continue
            }
            if line.count > maxLength {
                problems.append("\(file):\(number): a line of \(line.count) characters (a phrase is at most \(maxLength)), skipped")
                continue
            }
            if let bad = line.first(where: { $0 != " " && !keys.contains($0) }) {
                let shown = bad.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) ? "“\(bad)”"
                    : "U+" + String(bad.unicodeScalars.first?.value ?? 0, radix: 16, uppercase: true)
                problems.append("\(file):\(number): \(shown) cannot be typed on the keyboard, skipped")
                continue
            }
            phrases.append(line)
        }
        return (phrases, problems)
    }
}
