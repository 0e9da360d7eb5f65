#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell

/// Why a session record was not written.
public struct MetricsRecordError: Error, CustomStringConvertible {
    public var description: String
}

/// `metrics.ndjson` in the user's data folder: one JSON line per session, only ever appended to.
public enum MetricsFile {
    public static let name = "metrics.ndjson"

    /// Whether to record: not with `--no-metrics`, not when the user's settings turn it off.
    public static func enabled(noMetrics: Bool, paths: UserPaths) -> Bool {
        guard !noMetrics else { return false }
        return UserSettings.load(base: ShellSettings(), from: paths.settings).0.recordMetrics
    }

    /// The record of a finished session, dated now.
    public static func record(_ m: SessionMetrics, kind: String, source: String) -> MetricsRecord {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        return m.record(kind: kind, source: source, date: f.string(from: Date()))
    }

    /// One record as its JSON line (keys sorted, so lines compare and diff well); nil when it cannot be one.
    public static func line(_ r: MetricsRecord) -> String? { try? encode(r) }

    /// One record as its JSON line, or why it cannot be: JSON has no NaN or infinity, so a record with such a
    /// figure is skipped, and the reason names the record and the figure.
    public static func encode(_ r: MetricsRecord) throws(MetricsRecordError) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let name = "the \(r.kind) record of \(r.source) (\(r.date))"
        do {
            return String(decoding: try e.encode(r), as: UTF8.self)
        } catch let EncodingError.invalidValue(value, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw MetricsRecordError(description: "skipped \(name): its \(field) is \(value), which JSON cannot hold")
        } catch {
            throw MetricsRecordError(description: "skipped \(name): cannot encode it (\(error))")
        }
    }

    /// Appends one record with a single `write` on an `O_APPEND` descriptor, then fsyncs, so a kill at any
    /// moment leaves every earlier record whole. A file whose last line was cut short gets a newline first,
    /// so the new record starts on its own line. Returns a message on failure (the session is not affected).
    @discardableResult
    public static func append(_ r: MetricsRecord, to path: String) -> String? {
        let json: String
        do { json = try encode(r) } catch { return "\(path): \(error.description)" }
        let dir = (path as NSString).deletingLastPathComponent
        if let e = AtomicFile.makeDirectories(dir) { return "cannot create \(dir) (\(e))" }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "\(path): cannot open (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var text = json + "\n"
        if endsWithoutNewline(path) { text = "\n" + text }
        if let e = AtomicFile.writeAll(fd, Array(text.utf8)) { return "\(path): cannot write (\(e))" }
        if fsync(fd) != 0 { return "\(path): cannot sync (\(String(cString: strerror(errno))))" }
        return nil
    }

    private static func endsWithoutNewline(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let end = lseek(fd, 0, SEEK_END)
        guard end > 0, lseek(fd, end - 1, SEEK_SET) == end - 1 else { return false }
        var c: UInt8 = 0
        return read(fd, &c, 1) == 1 && c != UInt8(ascii: "\n")
    }

    /// Writes the session's record unless recording is off; a problem goes to standard error only.
    public static func save(_ m: SessionMetrics, kind: String, source: String, paths: UserPaths, enabled: Bool) {
        guard enabled else { return }
        let p = paths.metrics.path
        if let problem = append(record(m, kind: kind, source: source), to: p) {
            FileHandle.standardError.write(Data("handsfree: metrics not saved: \(problem)\n".utf8))
        }
    }

    /// Reads every record; a line that is not a record, or holds a number out of range, is skipped with a
    /// `file:line: reason` problem.
    public static func load(_ path: String) -> (records: [MetricsRecord], problems: [String]) {
        let text: String
        switch AtomicFile.read(path) {
        case .missing: return ([], [])
        case .failed(let e): return ([], ["\(path): cannot read (\(e))"])
        case .damaged(let t, _): text = t
        case .text(let t): text = t
        }
        var records: [MetricsRecord] = [], problems: [String] = []
        let d = JSONDecoder()
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let l = raw.trimmingCharacters(in: .whitespaces)
            if l.isEmpty { continue }
            do {
                let r = try d.decode(MetricsRecord.self, from: Data(l.utf8))
                // The line stays in the file (records are only ever appended), it is only left out here.
                if let p = r.rangeProblem { problems.append("\(path):\(i + 1): skipped, \(p)"); continue }
                records.append(r)
            } catch {
                problems.append("\(path):\(i + 1): skipped, not a session record (\(reason(error)))")
            }
        }
        return (records, problems)
    }

    private static func reason(_ e: Error) -> String {
        switch e as? DecodingError {
        case .keyNotFound(let k, _): return "no \"\(k.stringValue)\""
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return "wrong type at \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\""
        case .dataCorrupted: return "not valid JSON"
        default: return "not valid JSON"
        }
    }
}
