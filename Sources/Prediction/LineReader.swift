import Foundation
import Localization

/// Reads a text file as lines of whitespace-separated fields, quickly and without throwing on
/// bad bytes (invalid UTF-8 in a field is reported by the caller as a bad line).
enum LineReader {
    /// Reads the whole file at `url`.
    static func read(_ url: URL) throws(PredictionError) -> [UInt8] {
        do {
            let data = try Data(contentsOf: url)
            return [UInt8](data)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? UIMessage("not readable") : UIMessage("no such file")
            throw .cannotRead(path: url.path, reason: reason)
        }
    }

    /// Calls `body(lineNumber, fields)` for each non-empty line not starting with `#`.
    /// Fields are split on spaces and tabs, or on tabs only when `tabsOnly` is set.
    static func forEachLine(_ bytes: [UInt8], tabsOnly: Bool = false, _ body: (Int, [ArraySlice<UInt8>]) -> Void) {
        var lineNo = 0
        var i = 0
        let n = bytes.count
        var fields: [ArraySlice<UInt8>] = []
        while i < n {
            lineNo += 1
            var end = i
            while end < n && bytes[end] != 10 { end += 1 }
            var lineEnd = end
            if lineEnd > i && bytes[lineEnd - 1] == 13 { lineEnd -= 1 }
            if lineEnd > i && bytes[i] != 35 {  // '#'
                fields.removeAll(keepingCapacity: true)
                var s = i
                var k = i
                while k <= lineEnd {
                    let sep = k == lineEnd || bytes[k] == 9 || (!tabsOnly && bytes[k] == 32)
                    if sep {
                        if k > s { fields.append(bytes[s..<k]) }
                        s = k + 1
                    }
                    k += 1
                }
                if !fields.isEmpty { body(lineNo, fields) }
            }
            i = end + 1
        }
    }

    /// Longest line a list may hold: no word, n-gram or count comes near it.
    static let longestLine = 4096

    /// What is wrong with a line's bytes as such, whatever the file: not UTF-8 (another encoding), a NUL byte, far
    /// too long; nil when nothing is. The message says what to do, and never repeats the line.
    static func problem(_ fields: [ArraySlice<UInt8>]) -> UIMessage? {
        let length = fields.reduce(0) { $0 + $1.count } + fields.count - 1
        if length > longestLine {
            return UIMessage("a line of {bytes} bytes, longer than any entry (at most {limit}); skipped", ["bytes": "\(length)", "limit": "\(longestLine)"])
        }
        // One pass for the common case: ASCII with no NUL.
        guard fields.contains(where: { f in f.contains { $0 == 0 || $0 >= 0x80 } }) else { return nil }
        if fields.contains(where: { $0.contains(0) }) { return UIMessage("a NUL byte in the line (a binary file?); skipped") }
        if fields.contains(where: { string($0) == nil }) {
            return UIMessage("not UTF-8 (is the file in another encoding, such as Latin-1? convert it with iconv -t UTF-8); skipped")
        }
        return nil
    }

    /// The field as a string, or nil if it is not valid UTF-8.
    static func string(_ f: ArraySlice<UInt8>) -> String? {
        String(validating: f, as: UTF8.self)
    }

    /// The field as a non-negative number, or nil.
    static func number(_ f: ArraySlice<UInt8>) -> Double? {
        guard let s = string(f), let v = Double(s), v.isFinite else { return nil }
        return v
    }
}
