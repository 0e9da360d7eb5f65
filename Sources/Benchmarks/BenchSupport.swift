#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where a bench's report lines go, one call per line as soon as it is measured: the command prints them,
/// a test keeps them.
public typealias BenchReport = (String) -> Void

/// A bench that cannot go on (a peer that did not start, a prompt that never came), with the reason.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What a tool found on `PATH` writes to standard output when run with `arguments`, and its exit status (its
/// standard error is dropped); `cannotStart` words the error when the tool cannot be started at all.
func toolOutput(_ tool: String, _ arguments: [String], cannotStart: (Error) -> BenchError) throws -> (data: Data, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { throw cannotStart(error) }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (data, p.terminationStatus)
}

/// A value shared between the bench's threads.
public final class Locked<T>: @unchecked Sendable {
    private var v: T
    private let lock = NSLock()
    public init(_ v: T) { self.v = v }
    public var value: T { lock.lock(); defer { lock.unlock() }; return v }
    public func update(_ f: (inout T) -> Void) { lock.lock(); f(&v); lock.unlock() }
}

/// A reader of the calling thread's CPU seconds that another thread may call: a sampler times the loop on
/// this thread once it has settled, from the outside.
public func cpuClockOfThisThread() -> @Sendable () -> Double {
    var clock = clockid_t()
    pthread_getcpuclockid(pthread_self(), &clock)
    let id = clock
    return {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// CPU seconds (user + system) of this whole process.
public func processCPUSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

/// CPU seconds of another process from /proc/PID/stat (utime + stime, in clock ticks).
public func procCPUSeconds(_ pid: pid_t) -> Double {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = s.lastIndex(of: ")") else { return 0 }
    let fields = s[s.index(after: close)...].split(separator: " ")
    // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
    guard fields.count > 13, let ut = Double(fields[11]), let st = Double(fields[12]) else { return 0 }
    return (ut + st) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The 1-minute load average (`/proc/loadavg`), so a figure taken on a busy machine says so.
func oneMinuteLoad() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").first.map(String.init) ?? "unknown"
}
