#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import Localization
import Runtime
import Shell
import SystemIO
import TrackingCore

/// `handsfree bench flood`: a handsfree binary's `run --listen` in tmux, flooded over loopback UDP; reports
/// memory, CPU, frames used and dropped, and how fast the screen answers during and after the flood, beside
/// the same measures with no flood.
public struct FloodBench {
    /// Datagrams per second, over all sender threads.
    public var rate = 100_000
    /// Seconds of flood.
    public var seconds = 10.0
    /// Sender threads.
    public var senders = 2
    /// The handsfree binary to flood; nil for the running one.
    public var binary: String?

    public init() {}

    /// The peer figures at a tracker's pace, then the flood, then how the shell came out of it.
    public func run(out: BenchReport) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw SetupError(UIMessage("bench flood needs tmux (apt-get install tmux)")) }
        let shell = try FloodShell.start(binary: binary)
        defer { shell.remove() }
        let settings = try Setup.settings(config: nil)
        let layout = ShellState(keymap: try Setup.keymap(nil, gestures: settings.gestures), size: Size(width: 100, height: 30)).hitMap
        guard let notes = layout.target(id: "launcher.notes") else { throw SetupError(UIMessage("no Notes tile in the default layout")) }
        let gaze = GazePoint(x: (Double(notes.rect.x) + Double(notes.rect.w) / 2) / 100,
                             y: (Double(notes.rect.y) + Double(notes.rect.h) / 2) / 30)
        let clock = FloodClock()
        let player = try GesturePlayer(port: shell.port, clock: clock, gaze: gaze, settings: settings)

        // The peer: the same measures with no flood.
        usleep(1_000_000)
        let keyIdle = shell.keyLatency()
        let gestureIdle = shell.gestureLatency(player)
        // CPU at a tracker's own pace (60 frames/s), once startup work (word lists loading) is done.
        let cpuIdle0 = shell.cpuSeconds(), wallIdle0 = LiveClock().now()
        player.neutral(seconds: 3)
        let cpuIdle = (shell.cpuSeconds() - cpuIdle0) / (LiveClock().now() - wallIdle0)

        // The flood.
        let rssBefore = shell.rss()
        let cpu0 = shell.cpuSeconds()
        let flood = Flood(port: shell.port, rate: rate, seconds: seconds, threads: senders, clock: clock)
        let floodStart = LiveClock().now()
        flood.start()
        var peak = rssBefore
        var keyDuring: Double?
        while !flood.finished {
            peak = max(peak, shell.rss())
            // A build that queues without bound is stopped before it takes the machine's memory.
            if peak > 2 << 20, shell.alive {
                out("the shell passed 2 GB: killed")
                kill(shell.pid, SIGKILL)
            }
            if keyDuring == nil, LiveClock().now() - floodStart > seconds / 2 { keyDuring = shell.keyLatency() }
            usleep(50_000)
        }
        let floodEnd = flood.endedAt ?? LiveClock().now()
        let cpuFlood = (shell.cpuSeconds() - cpu0) / (LiveClock().now() - floodStart)
        // The UI answers: a key sent the moment the flood ends, then a gesture.
        let keyAfter = shell.keyLatency(sentAt: floodEnd)
        let gestureAfter = shell.gestureLatency(player)
        peak = max(peak, shell.rss())
        usleep(1_000_000)
        let rssAfter = shell.rss()
        let summary = shell.stop()

        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0 * 1000) } ?? "no answer in 10 s" }
        func mb(_ kb: Int) -> String { String(format: "%.1f MB", Double(kb) / 1024) }
        let sent = flood.sent
        out(String(format: "flood: %d datagrams in %.1f s (%.0f/s; asked %d/s) from %d threads: %.0f%% NDJSON frames, %.0f%% Live Link Face frames, %.0f%% garbage, %.0f%% 60 KB",
                     sent.total, flood.elapsed, Double(sent.total) / max(flood.elapsed, 1e-9), rate, senders,
                     sent.share(sent.ndjson), sent.share(sent.liveLink), sent.share(sent.garbage), sent.share(sent.big)))
        out("                         60 frames/s   flood")
        out("RSS                      \(mb(rssBefore).padding(toLength: 14, withPad: " ", startingAt: 0))peak \(mb(peak)), after \(mb(rssAfter)); growth \(mb(peak - rssBefore)) (goal ≤ 10 MB)")
        out("CPU of the shell         " + String(format: "%.0f%%", cpuIdle * 100).padding(toLength: 14, withPad: " ", startingAt: 0)
              + String(format: "%.0f%% of one core", cpuFlood * 100))
        out("key → screen             \(ms(keyIdle).padding(toLength: 14, withPad: " ", startingAt: 0))during \(ms(keyDuring)); sent at the flood's end: \(ms(keyAfter)) (goal ≤ 100 ms)")
        out("gesture → screen         \(ms(gestureIdle).padding(toLength: 14, withPad: " ", startingAt: 0))after the flood: \(ms(gestureAfter)) (from sending the frame that completed jaw-open on Notes)")
        out("shell's account          \(summary.isEmpty ? "(no summary: the shell did not end cleanly)" : summary)")
        out("crash: \(shell.crashed ? "YES" : "no")")
    }
}
