#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Speech
import SystemIO

/// `handsfree bench speak`: how soon each voice is heard after it is asked, and how fast it speaks, beside a
/// peer in the same run (flite's own command-line program; Piper's, which loads its voice every time).
public struct SpeakBench {
    /// Requests per engine (each phrase in turn).
    public var requests = 40
    /// Requests for the cold peers that start a process per phrase.
    public var peerRequests = 10
    public var flitePath = "/usr/bin/flite"
    public var skipPiper = false
    /// Seconds of the real loop's replay for the UI frame rate while speaking (0: not measured).
    public var loopSeconds = 8.0
    public var setup: VoiceSetup
    public var phrases = [
        "Yes.", "No, thank you.", "I need help.", "Please wait a moment.", "Can you open the window?",
        "I would like some water, please.", "Good morning, how did you sleep?", "Please call my sister and tell her I am fine.",
    ]

    public init(setup: VoiceSetup) { self.setup = setup }

    /// One engine's figures.
    public struct Row: Sendable {
        public var name: String
        public var firstAudio: [Double]
        public var realTimeFactor: Double
        public var rssMB: Double?
    }

    public func run(out: BenchReport) throws -> [Row] {
        out("speak: request → first audio sample, \(requests) requests over \(phrases.count) phrases (\"Yes.\" … a 9-word sentence)")
        out(Self.pad("engine", 36) + Self.pad("p50 ms", 9) + Self.pad("p99 ms", 9) + Self.pad("RTF", 7) + "RSS MB")
        var rows: [Row] = []
        func report(_ r: Row) {
            rows.append(r)
            out(Self.pad(r.name, 36) + Self.pad(Self.fmt(Self.percentile(r.firstAudio, 50) * 1000), 9)
                + Self.pad(Self.fmt(Self.percentile(r.firstAudio, 99) * 1000), 9) + Self.pad(Self.fmt(r.realTimeFactor, 3), 7)
                + (r.rssMB.map { Self.fmt($0) } ?? "?"))
        }
        report(try inProcess(.flite, name: "flite (in process, slt)", rss: { Self.rssMB(getpid()) }))
        // The loop's drawing is measured before Piper is asked about: flite alone shares the loop's process.
        if loopSeconds > 0 { try loopWhileSpeaking(voices: skipPiper ? [.flite] : [.flite, .piper], out: out) }
        if FileManager.default.isExecutableFile(atPath: flitePath) {
            report(try cliPeer(name: "flite CLI (peer: flite -t -o, slt)", args: { [self.flitePath, "-voice", "slt", "-t", $0, "-o", $1] }))
        } else {
            out("flite CLI: \(flitePath) is not installed (apt-get install flite): no peer")
        }
        guard !skipPiper else { return rows }
        let piper = PiperWorker(.init(python: setup.python, script: setup.piperScript))
        do throws(VoiceError) {
            let t0 = LiveClock().now()
            try piper.start()
            out("piper: voice \(piper.modelPath ?? "?") loaded in \(Self.fmt((LiveClock().now() - t0) * 1000)) ms (once per session)")
        } catch {
            out("piper: \(error.description): skipped")
            return rows
        }
        report(try inProcess(.piper, name: "piper (worker, joe medium)", voice: piper, rss: { piper.pid.map(Self.rssMB) ?? nil }))
        piper.stop()
        let piperCLI = URL(fileURLWithPath: setup.python).deletingLastPathComponent().appendingPathComponent("piper").path
        if FileManager.default.isExecutableFile(atPath: piperCLI), let model = piper.modelPath {
            report(try cliPeer(name: "piper CLI (peer: loads the voice)", count: min(peerRequests, 5),
                               args: { [piperCLI, "--model", model, "--output_file", $1, "--", $0] }))
        }
        return rows
    }

    /// Through the speaker, as the shell speaks: request → first sample handed to the output.
    private func inProcess(_ name: VoiceName, name label: String, voice: (any Synthesizer)? = nil,
                           rss: () -> Double?) throws -> Row {
        let events = Locked<[Double]>([])
        let speaker = Speaker(setup: setup, output: NullAudio()) { e in
            if case let .firstAudio(s, _) = e { events.update { $0.append(s) } }
        }
        defer { speaker.shutdown() }
        // A warm-up request: the first starts the voice (flite's lexicon, Piper's worker).
        speaker.speakAndWait(.init(text: "Hello.", voice: name))
        events.update { $0 = [] }
        for i in 0..<requests { speaker.speakAndWait(.init(text: phrases[i % phrases.count], voice: name)) }
        // Real-time factor: synthesis seconds per second of speech, on the engine alone.
        let synth: any Synthesizer = try voice ?? setup.make(name)
        var busy = 0.0, heard = 0.0
        for p in phrases {
            let t0 = LiveClock().now()
            let a = try synth.synthesize(p, rate: 1)
            busy += LiveClock().now() - t0
            heard += a.seconds
        }
        return Row(name: label, firstAudio: events.value, realTimeFactor: busy / max(heard, 1e-9), rssMB: rss())
    }

    /// A program per phrase that writes a WAV: its first sample is there when it exits.
    private func cliPeer(name: String, count: Int? = nil, args: (String, String) -> [String]) throws -> Row {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hf-bench-speak-\(getpid()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var times: [Double] = []
        var busy = 0.0, heard = 0.0
        var peak: Double?
        for i in 0..<(count ?? peerRequests) {
            let text = phrases[i % phrases.count]
            let a = args(text, path)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: a[0])
            p.arguments = Array(a.dropFirst())
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            let t0 = LiveClock().now()
            do { try p.run() } catch { throw BenchError("\(a[0]): \(error.localizedDescription)") }
            p.waitUntilExit()
            let t = LiveClock().now() - t0
            var u = rusage()
            getrusage(RUSAGE_CHILDREN.rawValue, &u)
            peak = Double(u.ru_maxrss) / 1024
            guard p.terminationStatus == 0, let audio = try? SpokenAudio.read(wav: path) else {
                throw BenchError("\(a[0]) exited with status \(p.terminationStatus) or wrote no WAV")
            }
            times.append(t)
            busy += t
            heard += audio.seconds
        }
        return Row(name: name, firstAudio: times, realTimeFactor: busy / max(heard, 1e-9), rssMB: peak)
    }

    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        guard !xs.isEmpty else { return .nan }
        let s = xs.sorted()
        return s[min(s.count - 1, Int((p / 100 * Double(s.count - 1)).rounded()))]
    }

    static func rssMB(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return nil }
        return kb / 1024
    }

    static func fmt(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }
    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
}

/// An output that takes audio at once and keeps nothing: the bench measures the voices, not a sound card.
final class NullAudio: AudioSink {
    func prepare(sampleRate: Int) throws(VoiceError) -> Int { sampleRate }
    func play(_ samples: ArraySlice<Int16>) throws(VoiceError) {}
    func finish(while keepGoing: () -> Bool) {}
    func drop() {}
    func close() {}
}
