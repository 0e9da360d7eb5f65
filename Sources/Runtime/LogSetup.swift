import Foundation
import Logging
import UserFiles

/// Sends swift-log output to a file, never to the terminal the UI owns.
///
/// The file is `$HANDSFREE_LOG` if set, else `handsfree.log` in the user's state folder (``UserPaths``).
/// The level comes from `HANDSFREE_LOG_LEVEL` (default `info`).
public enum LogSetup {
    public static func bootstrap() {
        let env = ProcessInfo.processInfo.environment
        let path = env["HANDSFREE_LOG"] ?? UserPaths.current().debugLog.path
        let level = env["HANDSFREE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let sink = LogFile(path: path)
        LoggingSystem.bootstrap { label in
            var h = FileLogHandler(label: label, sink: sink)
            h.logLevel = level
            return h
        }
    }
}

/// An append-only log file shared by all loggers; if it cannot be opened, logs are dropped silently
/// rather than written over the UI.
public final class LogFile: @unchecked Sendable {
    private let lock = NSLock()
    private let handle: FileHandle?

    public init(path: String) {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        handle = FileHandle(forWritingAtPath: path)
        _ = try? handle?.seekToEnd()
    }

    public func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        handle?.write(Data(line.utf8))
    }
}

/// A swift-log handler writing `time level label: message metadata` lines to a ``LogFile``.
public struct FileLogHandler: LogHandler {
    public let label: String
    public let sink: LogFile
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let meta = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let stamp = ISO8601DateFormatter().string(from: Date())
        let (level, message) = (event.level, event.message)
        sink.write("\(stamp) \(level) \(label): \(message)\(meta)\n")
    }
}
