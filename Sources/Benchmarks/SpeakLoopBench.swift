#if canImport(Glibc)
import Glibc
#endif
import Config
import Foundation
import Runtime
import Shell
import Speech
import SystemIO
import Terminal
import TrackingCore

extension SpeakBench {
    /// What one run of the loop drew.
    struct LoopFigures {
        var framesIn = 0, renders = 0
        var replaySeconds = 0.0, loopCPU = 0.0, processCPU = 0.0, wall = 0.0
        var speakingAtEnd = false
        var longestGap = 0.0
        var drawnPerSecond: Double { Double(renders) / max(replaySeconds, 1e-9) }
    }

    /// The UI frame rate while speaking: the real loop (`ShellRuntime`) draws into a pty from a 60 frames/s
    /// replay whose gaze moves every frame, once with nothing said and once while the speaker, in the same
    /// process, says 10,000 characters with `voice`. The speaker writes to a null device (ALSA's file plugin
    /// on `null`), which takes audio as fast as the voice makes it: the voice works flat out the whole time,
    /// harder than a sound card would let it.
    func loopWhileSpeaking(voices: [VoiceName], out: BenchReport) throws {
        let settings = GestureConfig.defaults()
        let keymap = try Setup.keymap("default", gestures: settings.gestures)
        let text = String(repeating: "I need some water please, and then I would like to sit by the window. ", count: 150)
        out("speak: UI drawing while speaking, the real loop at 100x30 into a pty, a \(Int(loopSeconds)) s replay at 60 frames/s (gaze moving every frame; goal: 60 drawn/s held)")
        func report(_ label: String, _ f: LoopFigures) {
            out(Self.pad(label, 36) + String(format: "%5.1f drawn/s (%d drawings / %d frames, longest gap %.0f ms), loop CPU %.0f%%, process CPU %.0f%% of one core%@",
                                             f.drawnPerSecond, f.renders, f.framesIn, f.longestGap * 1000, f.loopCPU / f.wall * 100, f.processCPU / f.wall * 100,
                                             f.speakingAtEnd ? "; still speaking at the end" : ""))
        }
        report("nothing said", try loopRun(keymap: keymap, settings: settings, speak: nil))
        for v in voices {
            let f = try loopRun(keymap: keymap, settings: settings, speak: Utterance(text: text, voice: v.rawValue))
            report("while \(v.rawValue) speaks \(text.count) chars", f)
        }
    }

    private func loopRun(keymap: Keymap, settings: PipelineSettings, speak: Utterance?) throws -> LoopFigures {
        let pty = try DrainedPTY()
        defer { pty.close() }
        let size = Size(width: 100, height: 30)
        let n = Int(loopSeconds * 60)
        let items: [DecodedItem] = (0..<n).map { i in
            let g = 0.2 + 0.6 * Double(i % 120) / 120
            return .frame(TrackingFrame(t: Double(i) / 60, gaze: GazePoint(x: g, y: 0.4)), nil)
        }
        let session = Session(state: ShellState(keymap: keymap, gestures: settings.gestures, size: size, source: "bench"),
                              settings: settings)
        // The user's own state folder gets no benchmark actions in its log.
        let scratch = UserPaths(environment: ["HOME": NSTemporaryDirectory() + "handsfree-bench-speak"], dataDir: nil)
        var runtime = ShellRuntime(session: session, feed: .replay(items: items, speed: 1, name: "bench"), exitAtEnd: true, paths: scratch)
        runtime.display = { PtyDisplay(try Terminal(type: "xterm-256color", output: pty.slave, input: pty.slave), size: size) }
        let wav = NSTemporaryDirectory() + "hf-bench-speak-loop-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        if let speak {
            let live = LiveSpeaker(output: .file(wav), setup: setup)
            runtime.speaker = live
            live.perform(.speak(speak))
        }
        var f = LoopFigures()
        let cpu0 = threadCPUSeconds(), process0 = Self.processCPUSeconds(), wall0 = LiveClock().now()
        try runtime.run()
        f.loopCPU = threadCPUSeconds() - cpu0
        f.processCPU = Self.processCPUSeconds() - process0
        f.wall = LiveClock().now() - wall0
        f.framesIn = runtime.framesIn
        f.renders = runtime.renders
        f.replaySeconds = Double(runtime.framesIn) / 60
        f.speakingAtEnd = runtime.session.state.speaking
        f.longestGap = runtime.longestDrawingGap
        return f
    }

    static func processCPUSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
}
