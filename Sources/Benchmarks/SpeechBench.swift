import Config
import FrameFormats
import Foundation
import Runtime
import Shell
import Speech
import Terminal
import TrackingCore

/// `handsfree bench speech`: accuracy and speed of the recogniser against Debian's PocketSphinx tools, the
/// Whisper worker on the same recordings, command recognition on flite voices and the wake listener.
public struct SpeechBench {
    /// Folder of WAV files with a transcript file (`transcription` or `*.transcription`, lines like
    /// "<s> ten of clubs </s> (001)"); a `*.gram` file in it switches both decoders to that grammar.
    /// Nil: ../shared/data/speech/pocketsphinx-test/librivox beside the project.
    public var dir: String?
    /// The reference decoder (Debian package pocketsphinx).
    public var reference = "pocketsphinx_continuous"
    /// Skip the reference decoder.
    public var skipReference = false
    /// Skip the Whisper worker.
    public var skipWhisper = false
    /// Whisper model: a CTranslate2 folder, `package` (tiny.en from PyPI), or a faster-whisper name.
    public var whisperModel = "package"
    /// A file of phrases (one a line, `#` comments) the command test says beside the keymaps' own.
    public var phrases: String?
    /// Keymaps whose voice phrases and home-screen phrases the command test says (default keymaps/*.toml).
    public var keymap: [String] = []
    /// flite voices for the command test, comma-separated.
    public var voices = "rms,slt,awb,kal"
    /// Skip the command test.
    public var skipCommands = false
    /// Skip the wake-phrase test.
    public var skipWake = false
    /// Report every hypothesis.
    public var verbose = false
    /// Times each recording is sent to the Whisper workers.
    public var whisperRounds = 3
    /// PocketSphinx options for the transcript test on top of the recogniser's defaults, e.g.
    /// `["-vad_startspeech": "5"]`: tuning is measured without a rebuild.
    public var decoderOptions: [String: String] = [:]

    public init() {}

    /// Transcripts, then commands, then the wake phrase, each unless skipped.
    public func run(out: BenchReport) throws {
        out("machine: \(DesktopBench.cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let dataDir = ProjectPaths.dir("..").appendingPathComponent("shared/data/speech/pocketsphinx-test")
        let folder = dir ?? dataDir.appendingPathComponent("librivox").path
        try benchTranscripts(folder: folder, out: out)
        if !skipCommands { try benchCommands(out: out) }
        if !skipWake { try benchWake(recorded: dataDir, out: out) }
    }

    // MARK: wake phrase

    /// Commands said after the wake phrase, the same without it, everyday sentences (some starting with
    /// "shall", "she'll", "show"), and recorded speech: how often the idle shell acts, with the language-model
    /// check (`WakeCheck`) and with the wake grammar alone, which fits every utterance to some phrase.
    private func benchWake(recorded: URL, out: BenchReport) throws {
        let keymapPath = ProjectPaths.dir("keymaps").appendingPathComponent("default.toml").path
        let (wake, phrases) = try KeymapVoicePhrases.wakeGrammar(path: keymapPath, screen: "launcher")
        let recognizer = try Recognizer(configuration: RecognizerConfiguration(dictation: true))
        recognizer.recentAudioLimit = LiveSpeech.longestWakeUtterance
        let built = CommandGrammar.build(phrases: phrases, name: "wake", isKnownWord: recognizer.knowsWord)
        try recognizer.addGrammar(name: "wake", jsgf: built.jsgf)
        try recognizer.setMode(.grammar("wake"))
        let cache = NSTemporaryDirectory() + "handsfree-bench-speech"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)

        var checks = 0, checkSeconds = 0.0, checkedAudio = 0.0
        /// (acted with the check, acted by the grammar alone) for one recording.
        func listen(_ wav: String) throws -> (Bool, Bool) {
            let samples = try SpeechAudio.readSamples(path: wav)
            let verdicts = OfflineSpeech.wakeVerdicts(recognizer, samples, wake: wake) { seconds in
                checks += 1
                checkSeconds += seconds
            }
            checkedAudio += SpeechAudio.seconds(samples: samples.count)
            if verbose { for (h, v) in verdicts { out("  \(wav): \"\(h)\" · \"\(v.free ?? "?")\" · \(v.accepted)") } }
            return (verdicts.contains { $0.1.accepted && $0.0 != wake }, verdicts.contains { $0.0 != wake })
        }
        let commands = ["open notes", "open messages", "open settings", "select media", "go back", "go home", "help",
                        "next", "scroll down", "start dictation"]
        let sentences = ["Would you like a cup of tea?", "Shall we go for a walk after lunch?",
                         "She'll be home at five.", "Show me the photos from the trip.",
                         "Can you open the window a little?", "I need to see the doctor on Tuesday.",
                         "The nurse said my notes are on the desk.", "Please help me with my coat.",
                         "Next week is my sister's birthday.", "Go back to the start of the film.",
                         "Hello, how are you doing today?", "I don't want the settings changed."]
        let voiceList = voices.split(separator: ",").map(String.init)
        func row(_ name: String, _ texts: [String], prefix: String) throws {
            var acted = 0, alone = 0, n = 0
            var perVoice: [String] = []
            for voice in voiceList {
                var a = 0
                for t in texts {
                    let (checked, grammar) = try listen(try synthesise(prefix + t, voice: voice, cache: cache))
                    n += 1
                    if checked { a += 1 }
                    if grammar { alone += 1 }
                }
                acted += a
                perVoice.append("\(voice) \(a)/\(texts.count)")
            }
            out("  \(pad(name, 34))acted \(acted)/\(n) (\(perVoice.joined(separator: ", "))); grammar alone \(alone)/\(n)")
        }
        out("Wake phrase \"\(wake)\": \(built.phrases.count) phrases on the launcher, flite voices \(voices)")
        try row("\"\(wake), <command>\" (\(commands.count) commands)", commands, prefix: wake + ", ")
        try row("the commands without \"\(wake)\"", commands, prefix: "")
        try row("everyday sentences (\(sentences.count))", sentences, prefix: "")
        var files: [String] = []
        for sub in ["librivox", "cards"] {
            let d = recorded.appendingPathComponent(sub)
            for f in ((try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? []).sorted() where f.hasSuffix(".wav") {
                files.append(d.appendingPathComponent(f).path)
            }
        }
        if files.isEmpty {
            out("  recorded speech: skipped (\(recorded.path) is absent)")
        } else {
            var acted = 0, alone = 0
            for f in files {
                let (checked, grammar) = try listen(f)
                if checked { acted += 1 }
                if grammar { alone += 1 }
            }
            out("  \(pad("recorded speech (\(files.count) files)", 34))acted \(acted)/\(files.count); grammar alone \(alone)/\(files.count)")
        }
        out("  the check's second reading: \(checks) utterances, \(fmt(1000 * checkSeconds / Double(max(checks, 1)), 0)) ms "
              + "each on average (wall), \(fmt(100 * checkSeconds / max(checkedAudio, 1e-9), 1))% of the audio's duration")
    }

    // MARK: transcripts

    private func benchTranscripts(folder: String, out: BenchReport) throws {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else {
            throw BenchError("\(folder): no such folder (the speech data lives in ../shared/data; see its README)")
        }
        guard let transcriptName = names.sorted().first(where: { $0 == "transcription" || $0.hasSuffix(".transcription") }) else {
            throw BenchError("\(folder): no transcript file (`transcription` or `*.transcription`)")
        }
        let transcript = Transcripts.parse(try String(contentsOfFile: folder + "/" + transcriptName, encoding: .utf8))
        let grammar = names.sorted().first(where: { $0.hasSuffix(".gram") }).map { folder + "/" + $0 }
        var config = RecognizerConfiguration(dictation: grammar == nil)
        config.partialInterval = 0.05
        config.extraOptions.merge(decoderOptions) { _, new in new }
        if !decoderOptions.isEmpty {
            out("decoder options: " + decoderOptions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " "))
        }

        var ours = Score(), theirs = Score()
        for (id, refText) in transcript {
            let wav = folder + "/" + id + ".wav"
            let samples = try SpeechAudio.readSamples(path: wav)
            let duration = SpeechAudio.seconds(samples: samples.count)
            let ref = refText.split(separator: " ").map(String.init)

            // A fresh decoder per file, as the reference runs one process per file: same adaptation state,
            // and the model load is counted on both sides.
            let t0 = Date(), c0 = cpuSeconds(RUSAGE_SELF.rawValue)
            let recognizer = try Recognizer(configuration: config)
            if let grammar {
                try recognizer.addGrammar(name: "bench", jsgf: try String(contentsOfFile: grammar, encoding: .utf8))
                try recognizer.setMode(.grammar("bench"))
            }
            let loaded = cpuSeconds(RUSAGE_SELF.rawValue)
            let hyp = finals(recognizer.transcribe(samples))
            ours.add(ref: ref, hyp: hyp, audio: duration, wall: Date().timeIntervalSince(t0),
                     cpu: cpuSeconds(RUSAGE_SELF.rawValue) - c0, load: loaded - c0)
            if verbose { out("  ours  \(id): \(hyp.joined(separator: " "))") }

            if !skipReference {
                var args = config.arguments
                if let grammar {
                    // The grammar instead of the language model, with the same tuning as ours.
                    var noLM = config
                    noLM.languageModel = nil
                    args = noLM.arguments + ["-jsgf", grammar]
                }
                let r0 = Date(), rc0 = cpuSeconds(RUSAGE_CHILDREN.rawValue)
                let printed = try runTool(reference, args + ["-infile", wav, "-logfn", "/dev/null"])
                let refHyp = Transcripts.normalise(printed)
                theirs.add(ref: ref, hyp: refHyp, audio: duration, wall: Date().timeIntervalSince(r0),
                           cpu: cpuSeconds(RUSAGE_CHILDREN.rawValue) - rc0, load: 0)
                if verbose { out("  ref   \(id): \(refHyp.joined(separator: " "))") }
            }
        }
        out("Transcripts: \(folder) (\(transcript.count) files, \(fmt(ours.audio, 1)) s of audio, "
              + (grammar.map { "grammar \(($0 as NSString).lastPathComponent)" } ?? "dictation") + ")")
        out(pad("decoder", 26) + pad("WER", 9) + pad("sentences", 13) + pad("CPU", 10) + pad("RTF", 8)
              + pad("wall", 10) + "wall RTF")
        out(ours.row("handsfree (in-process)"))
        if !skipReference {
            out(theirs.row(reference))
            out("  handsfree / \(reference): CPU time \(fmt(ours.cpu / max(theirs.cpu, 1e-9), 2))×, "
                  + "wall time \(fmt(ours.wall / max(theirs.wall, 1e-9), 2))×; model loading is \(fmt(ours.load, 2)) s "
                  + "of handsfree's \(fmt(ours.cpu, 2)) s CPU (one load per file on both sides)")
        }

        if grammar == nil { try benchCMN(transcript: transcript, folder: folder, config: config, out: out) }
        if grammar == nil && !skipWhisper { try benchWhisper(transcript: transcript, folder: folder, pocketsphinx: ours, out: out) }

        // First partial: 50 ms chunks as the live capture delivers them, then 20 ms chunks looked at every 20 ms,
        // to see what the chunk size costs.
        let files = transcript.map { (path: folder + "/" + $0.id + ".wav", words: Transcripts.normalise($0.text)) }
        let coarse = try partialLatency(files: files, config: config, grammar: grammar, out: out)
        out(coarse.report)
        var fine = config
        fine.partialInterval = 0.02
        out(try partialLatency(files: files, config: fine, grammar: grammar, chunk: 320, out: out).report)
        if grammar == nil { out(moonshinePartial(coarse.firstWords)) }
    }

    /// A file's first word, where it starts as PocketSphinx timed it, and the transcript's spelling of it.
    struct FirstWord { var path: String, start: Double, word: String }

    /// The same first-partial figures for the Moonshine model a package installs (moonshine-cpp, Moonshine base),
    /// run on the audio heard so far every 50 ms as a live caption would run it (`python/moonshine_partial.py`):
    /// the fast neural peer issue 34 names, measured rather than assumed.
    private func moonshinePartial(_ firstWords: [FirstWord]) -> String {
        guard !firstWords.isEmpty else { return "  Moonshine: no first words to time" }
        guard let python = PythonEnv.python() else { return "  Moonshine: no Python (scripts/python-env.sh moonshine)" }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [PythonEnv.script("moonshine_partial.py")] + firstWords.flatMap { [$0.path, String($0.start), $0.word] }
        // One pipe for the results and any messages (the ONNX runtime's too): read one after the other, a full
        // second pipe would stall the script while the first is read to its end.
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return "  Moonshine: cannot run \(python): \(error)" }
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let why = lines.last { !$0.hasPrefix("{") }.map(String.init) ?? "exit status \(p.terminationStatus)"
            return p.terminationStatus == 3 ? "  Moonshine base (moonshine-cpp): not installed (scripts/python-env.sh moonshine)"
                                             : "  Moonshine base (moonshine-cpp): \(why)"
        }
        // Seconds, as the partials' figures.
        var shown: [Double] = [], right: [Double] = [], runs: [Double] = []
        for line in lines where line.hasPrefix("{") {
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let start = o["start"] as? Double else { continue }
            // Not shown within the script's two seconds: counted as two seconds, so the figure is not flattered.
            shown.append(((o["first"] as? Double) ?? start + 2) - start)
            right.append(((o["right"] as? Double) ?? start + 2) - start)
            runs += ((o["runs_ms"] as? [Double]) ?? []).map { $0 / 1000 }
        }
        guard !shown.isEmpty else { return "  Moonshine base (moonshine-cpp): no results" }
        shown.sort(); right.sort(); runs.sort()
        return "  Moonshine base (moonshine-cpp, its audio so far again every 50 ms; \(shown.count) files): first text "
            + "median \(Self.medianMs(shown)) ms, p90 \(Self.p90Ms(shown)) ms after the first word starts; the transcript's "
            + "first word median \(Self.medianMs(right)) ms; a run takes \(Self.medianMs(runs)) ms median, "
            + "\(Int(((runs.last ?? 0) * 1000).rounded())) ms at worst"
    }

    /// The first sentence of a session, as a fresh decoder hears it: from the model's cepstral mean, and from
    /// the mean a previous session of the same speaker left (here: a decoder that heard the other files), as
    /// the shell restores it per user and microphone.
    private func benchCMN(transcript: [(id: String, text: String)], folder: String, config: RecognizerConfiguration,
                          out: BenchReport) throws {
        let audio = try transcript.map { try SpeechAudio.readSamples(path: folder + "/" + $0.id + ".wav") }
        var fresh = Score(), remembered = Score()
        var c0s: [Float] = []
        for (k, (_, refText)) in transcript.enumerated() {
            let ref = refText.split(separator: " ").map(String.init)
            let cold = try Recognizer(configuration: config)
            let initial = cold.cepstralMean
            fresh.add(ref: ref, hyp: finals(cold.transcribe(audio[k])), audio: 0, wall: 0, cpu: 0, load: 0)
            // The previous session: the same speaker's other recordings, one decoder kept alive.
            let before = try Recognizer(configuration: config)
            for j in audio.indices where j != k { _ = before.transcribe(audio[j]) }
            let saved = before.cepstralMean
            let warm = try Recognizer(configuration: config)
            warm.setCepstralMean(saved)
            remembered.add(ref: ref, hyp: finals(warm.transcribe(audio[k])), audio: 0, wall: 0, cpu: 0, load: 0)
            if let a = initial.first, let b = saved.first { c0s += [a, b] }
        }
        let c0 = c0s.count >= 2 ? String(format: " (c0 %.1f from the model, %.1f remembered)", c0s[0], c0s[1]) : ""
        out("First sentence of a session, PocketSphinx: WER \(fmt(fresh.errors.rate, 1))% from the model's cepstral mean, "
              + "\(fmt(remembered.errors.rate, 1))% from the mean the speaker's previous session left\(c0); "
              + "sentences \(fresh.correctSentences)/\(fresh.sentences) → \(remembered.correctSentences)/\(remembered.sentences)")
    }

    /// The same recordings through the Whisper worker, kept alive as the shell keeps it: WER with the same
    /// normalisation, CPU of the worker process, the time from the end of an utterance to its text, and the
    /// memory of each engine.
    private func benchWhisper(transcript: [(id: String, text: String)], folder: String, pocketsphinx: Score,
                              out: BenchReport) throws {
        // The shell's worker (the encoder sees the utterance plus a second, at least 10 s) and, as its peer in
        // the same run, the same worker on Whisper's full 30 s window; each utterance goes to one, then the other.
        let kinds: [(name: String, minWindow: Double)] = [("whisper tiny.en (worker)", 10), ("whisper, 30 s window", 0)]
        var workers: [WhisperWorker] = [], loads: [Double] = []
        for kind in kinds {
            let l0 = Date()
            do { workers.append(try OfflineSpeech.whisperWorker(model: whisperModel, minWindow: kind.minWindow)) } catch {
                for w in workers { w.stop() }
                out("Whisper: skipped (\(error))")
                return
            }
            loads.append(Date().timeIntervalSince(l0))
        }
        defer { workers.dropFirst().forEach { $0.stop() } }
        let worker = workers[0]
        guard worker.pid != nil else { return }
        var scores = [Score](repeating: Score(), count: kinds.count)
        var latencies = [[Double]](repeating: [], count: kinds.count)
        let audio = try transcript.map { try SpeechAudio.readSamples(path: folder + "/" + $0.id + ".wav") }
        // Five recordings make a thin p99: each is sent `whisperRounds` times.
        for _ in 0..<whisperRounds {
            for ((id, refText), samples) in zip(transcript, audio) {
                let duration = SpeechAudio.seconds(samples: samples.count)
                for (k, w) in workers.enumerated() {
                    guard let wpid = w.pid else { continue }
                    let t0 = Date(), cpu0 = processCPU(wpid)
                    let r = try w.transcribe(samples)
                    let wall = Date().timeIntervalSince(t0)
                    latencies[k].append(wall)
                    let hyp = Transcripts.normaliseWritten(r.text)
                    scores[k].add(ref: refText.split(separator: " ").map(String.init), hyp: hyp, audio: duration, wall: wall,
                                  cpu: processCPU(wpid) - cpu0, load: 0)
                    if verbose { out("  \(kinds[k].name) \(id): \(r.text)") }
                }
            }
        }
        for (k, kind) in kinds.enumerated() {
            out(scores[k].row(kind.name))
            let sorted = latencies[k].sorted()
            func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
            out("  \(kind.minWindow > 0 ? "fitted window (speech + 1 s, at least \(Int(kind.minWindow)) s)" : "30 s window"): "
                  + "model load \(fmt(loads[k], 2)) s once; end of utterance → text p50 \(fmt(1000 * pct(0.5), 0)) ms, "
                  + "p99 \(fmt(1000 * pct(0.99), 0)) ms (\(sorted.count) utterances); RSS worker \(rssMB(workers[k].pid ?? 0)) MB; "
                  + "WER \(fmt(scores[k].errors.rate, 1))%, \(fmt(pocketsphinx.errors.rate / max(scores[k].errors.rate, 1e-9), 1))× lower than PocketSphinx")
        }
        out("  handsfree with PocketSphinx: RSS \(rssMB(getpid())) MB")
        workers.dropFirst().forEach { $0.stop() }

        // The UI while Whisper decodes: the real loop drawing a 60 frames/s replay (the gaze moving every frame)
        // into a pty, first alone, then while the worker transcribes the recordings back to back.
        let calm = try Self.uiLoop(seconds: 5)
        let busy = Locked(true), done = DispatchSemaphore(value: 0), decoded = Locked(0)
        let decoder = Thread {
            var k = 0
            while busy.value {
                if (try? worker.transcribe(audio[k % audio.count])) != nil { decoded.update { $0 += 1 } }
                k += 1
            }
            done.signal()
        }
        decoder.start()
        let loaded = try Self.uiLoop(seconds: 5)
        busy.update { $0 = false }
        done.wait()
        out("  UI at 60 frames/s: \(fmt(calm.perSecond, 1)) drawings/s alone, \(fmt(loaded.perSecond, 1)) drawings/s while Whisper "
              + "decoded \(decoded.value) utterances back to back (\(loaded.frames) frames, \(loaded.renders) drawings; goal 60)")
        worker.stop()
    }

    /// The real loop (`ShellRuntime`) on a replay at 60 frames/s whose gaze moves every frame, drawn by curses
    /// into a pty a thread drains: drawings per second of the replay.
    static func uiLoop(seconds: Double) throws -> (renders: Int, frames: Int, perSecond: Double) {
        let pty = try DrainedPTY()
        defer { pty.close() }
        let size = Size(width: 100, height: 30)
        let settings = GestureConfig.defaults()
        let km = try Setup.keymap("default", gestures: settings.gestures)
        let items: [DecodedItem] = (0..<Int(seconds * 60)).map { i in
            .frame(TrackingFrame(t: Double(i) / 60, gaze: GazePoint(x: 0.2 + 0.6 * Double(i % 120) / 120, y: 0.4)), nil)
        }
        let scratch = UserPaths(environment: ["HOME": NSTemporaryDirectory() + "handsfree-bench-speech"], dataDir: nil)
        var runtime = ShellRuntime(session: Session(state: ShellState(keymap: km, gestures: settings.gestures, size: size,
                                                                      source: "bench"), settings: settings),
                                   feed: .replay(items: items, speed: 1, name: "bench"), exitAtEnd: true, paths: scratch)
        runtime.display = { PtyDisplay(try Terminal(type: "xterm-256color", output: pty.slave, input: pty.slave), size: size) }
        try runtime.run()
        return (runtime.renders, runtime.framesIn, Double(runtime.renders) / seconds)
    }

    // MARK: commands

    private func benchCommands(out: BenchReport) throws {
        var list: [String] = []
        if let phrases {
            guard let text = try? String(contentsOfFile: phrases, encoding: .utf8) else {
                throw BenchError("\(phrases): cannot be read")
            }
            list += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        var keymaps = keymap
        if keymaps.isEmpty {
            let dir = ProjectPaths.dir("keymaps")
            keymaps = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix(".toml") }.sorted().map { dir.appendingPathComponent($0).path }
        }
        // What the shell listens for: every phrase a keymap binds (its wake phrase too) and the home screen's
        // on-screen "open …"/"select …", so the test follows the keymaps instead of a list kept beside them.
        for k in keymaps {
            list += try KeymapVoicePhrases.read(path: k) + KeymapVoicePhrases.onScreen(path: k, screen: "launcher")
        }
        var seen = Set<String>()
        list = list.filter { seen.insert($0.lowercased()).inserted }
        guard !list.isEmpty else { throw BenchError("no command phrases in \(keymaps.joined(separator: ", "))") }

        var config = RecognizerConfiguration(dictation: false)
        config.partialInterval = 0.05
        let recognizer = try Recognizer(configuration: config)
        let built = CommandGrammar.build(phrases: list, isKnownWord: recognizer.knowsWord)
        for d in built.dropped { out("  dropped \(d)") }
        try recognizer.addGrammar(name: "commands", jsgf: built.jsgf)
        try recognizer.setMode(.grammar("commands"))
        let gramFile = NSTemporaryDirectory() + "handsfree-bench-commands.gram"
        try built.jsgf.write(toFile: gramFile, atomically: true, encoding: .utf8)

        let cache = NSTemporaryDirectory() + "handsfree-bench-speech"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let voiceList = voices.split(separator: ",").map(String.init)
        var correct = 0, total = 0, refCorrect = 0
        var perVoice: [String] = []
        var files: [(path: String, words: [String])] = []
        var misses: [String] = []
        for voice in voiceList {
            var ok = 0, n = 0
            for spoken in built.phrases.keys.sorted() {
                let wav = try synthesise(spoken, voice: voice, cache: cache)
                files.append((wav, spoken.split(separator: " ").map(String.init)))
                let hyp = finals(recognizer.transcribe(try SpeechAudio.readSamples(path: wav))).joined(separator: " ")
                n += 1
                if hyp == spoken { ok += 1 } else { misses.append("\(voice): \"\(spoken)\" → \"\(hyp)\"") }
                if !skipReference {
                    let printed = try runTool(reference, config.arguments + ["-jsgf", gramFile, "-infile", wav,
                                                                             "-logfn", "/dev/null"])
                    if Transcripts.normalise(printed).joined(separator: " ") == spoken { refCorrect += 1 }
                }
            }
            perVoice.append("\(voice) \(ok)/\(n)")
            correct += ok
            total += n
        }
        out("Commands: \(built.phrases.count) phrases × \(voiceList.count) flite voices, one JSGF grammar")
        out("  handsfree: \(correct)/\(total) = \(fmt(100 * Double(correct) / Double(max(total, 1)), 1))% "
              + "(\(perVoice.joined(separator: ", ")))")
        if !skipReference {
            out("  \(reference): \(refCorrect)/\(total) = \(fmt(100 * Double(refCorrect) / Double(max(total, 1)), 1))%")
        }
        for m in misses { out("  miss \(m)") }
        out(try partialLatency(files: files, config: config, grammar: gramFile, out: out).report)
    }

    /// Synthesises `text` with a flite voice and converts it to 16 kHz mono 16-bit with 0.3 s of silence
    /// around it (a speaker pauses before and after a command); cached across runs.
    private func synthesise(_ text: String, voice: String, cache: String) throws -> String {
        let slug = text.replacingOccurrences(of: " ", with: "_")
        let out = "\(cache)/\(voice)-\(slug).wav"
        if FileManager.default.fileExists(atPath: out) { return out }
        let raw = "\(cache)/\(voice)-\(slug)-flite.wav"
        _ = try runTool("flite", ["-voice", voice, "-t", text, "-o", raw])
        _ = try runTool("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", out, "pad", "0.3", "0.3"])
        try? FileManager.default.removeItem(atPath: raw)
        return out
    }

    // MARK: latency

    /// Feeds each file in 50 ms chunks and measures, in audio time, from the first word's start to the first
    /// partial that shows a word, and to the first partial whose first word is the transcript's (a wrong early
    /// guess is not what the user waits for); plus the CPU time of one chunk.
    ///
    /// The first word's start comes from the final's word timings (fillers such as <sil> left out; in
    /// dictation they agree within 10 ms with `pocketsphinx_continuous -remove_silence no -time yes`). A
    /// final whose first word is not the transcript's may start later than the speech did (a final that
    /// dropped "and" made a partial 240 ms after "and" began count as 30 ms), so those files are counted.
    private func partialLatency(files: [(path: String, words: [String])], config: RecognizerConfiguration,
                                grammar: String?, chunk: Int = 800,
                                out: BenchReport) throws -> (report: String, firstWords: [FirstWord]) {
        let recognizer = try Recognizer(configuration: config)
        if let grammar {
            try recognizer.addGrammar(name: "g", jsgf: try String(contentsOfFile: grammar, encoding: .utf8))
            try recognizer.setMode(.grammar("g"))
        }
        var latencies: [Double] = []
        var rightLatencies: [Double] = []
        var detections: [Double] = []
        var chunkTimes: [Double] = []
        var unaligned = 0  // finals whose first word is not the transcript's
        var firstWords: [FirstWord] = []
        for (f, truth) in files {
            let samples = try SpeechAudio.readSamples(path: f)
            var i = 0
            var events: [SpeechEvent] = []
            while i < samples.count {
                let j = min(samples.count, i + chunk)
                let t0 = cpuSeconds(RUSAGE_SELF.rawValue)
                let ev = recognizer.process(Array(samples[i..<j]))
                chunkTimes.append(cpuSeconds(RUSAGE_SELF.rawValue) - t0)
                events += ev
                i = j
            }
            events += recognizer.finish()
            var started: Double?
            var partials: [(text: String, at: Double)] = []
            var first: (word: WordTiming, at: Double)?
            for e in events {
                switch e {
                case let .speechStarted(at) where started == nil: started = at
                case let .partial(text, at) where first == nil: partials.append((text, at))
                case let .final(_, words, at) where first == nil: first = words.first.map { ($0, at) }
                default: break
                }
            }
            guard let (word, finalAt) = first else { continue }
            let firstTrue = truth.first ?? Transcripts.normalise(word.word).first
            if Transcripts.normalise(word.word).first != firstTrue { unaligned += 1 }
            // The final itself counts when no partial came first (a short utterance).
            let shown = partials + [(word.word, finalAt)]
            let firstShown = shown[0]
            let right = shown.first { Transcripts.normalise($0.text).first == firstTrue }
            latencies.append(max(0, firstShown.at - word.start))
            if let firstTrue { firstWords.append(FirstWord(path: f, start: word.start, word: firstTrue)) }
            // Never shown before the end of the file: counted at the end, so the figure is not flattered.
            let rightAt = right?.at ?? SpeechAudio.seconds(samples: samples.count)
            rightLatencies.append(max(0, rightAt - word.start))
            if let d = started { detections.append(d - word.start) }
            if verbose {
                out("  \((f as NSString).lastPathComponent): first word \"\(word.word)\" \(fmt(word.start, 2))–\(fmt(word.end, 2)) s "
                      + "(the transcript's: \(firstTrue ?? "-")), "
                      + "speech at \(started.map { fmt($0, 2) } ?? "-") s, first partial \"\(firstShown.text)\" at \(fmt(firstShown.at, 2)) s, "
                      + "the transcript's first word \(right.map { "at \(fmt($0.at, 2)) s" } ?? "never shown")")
            }
        }
        latencies.sort()
        rightLatencies.sort()
        detections.sort()
        chunkTimes.sort()
        guard !latencies.isEmpty else { return ("  first partial: no speech found", firstWords) }
        let median = Self.medianMs, p90 = Self.p90Ms
        let meanChunk = chunkTimes.reduce(0, +) / Double(max(chunkTimes.count, 1))
        let report = "  first partial after the first word starts (audio time, \(chunk * 1000 / 16000) ms chunks, \(latencies.count) files): "
            + "median \(median(latencies)) ms, p90 \(p90(latencies)) ms, max \(Int(((latencies.last ?? 0) * 1000).rounded())) ms; "
            + "showing the transcript's first word: median \(median(rightLatencies)) ms, p90 \(p90(rightLatencies)) ms; "
            + "speech detected (speechStarted) median \(median(detections)) ms; "
            + "decoding a \(chunk * 1000 / 16000) ms chunk takes \(fmt(meanChunk * 1000, 1)) ms CPU on average, "
            + "\(fmt((chunkTimes.last ?? 0) * 1000, 1)) ms at worst"
            + (unaligned > 0 ? "; \(unaligned) of \(latencies.count) finals start with another word than the transcript, so their start may be late" : "")
        return (report, firstWords)
    }

    /// The median of sorted seconds, in whole milliseconds (0 for none).
    private static func medianMs(_ v: [Double]) -> Int { v.isEmpty ? 0 : Int((v[v.count / 2] * 1000).rounded()) }

    /// The 90th percentile of sorted seconds, in whole milliseconds (0 for none).
    private static func p90Ms(_ v: [Double]) -> Int { v.isEmpty ? 0 : Int((v[min(v.count - 1, v.count * 9 / 10)] * 1000).rounded()) }

    // MARK: helpers

    private func finals(_ events: [SpeechEvent]) -> [String] {
        events.flatMap { e -> [String] in
            guard case let .final(text, _, _) = e else { return [] }
            return Transcripts.normalise(text)
        }
    }

    private func runTool(_ tool: String, _ args: [String]) throws -> String {
        let (data, status) = try toolOutput(tool, args) { BenchError("cannot run \(tool): \($0)") }
        guard status == 0 else {
            throw BenchError("\(tool) \(args.joined(separator: " ")) failed with status \(status)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Accumulated accuracy and time of one decoder.
private struct Score {
    var errors = WordErrors()
    var sentences = 0
    var correctSentences = 0
    var audio = 0.0
    var wall = 0.0
    var cpu = 0.0
    var load = 0.0

    mutating func add(ref: [String], hyp: [String], audio: Double, wall: Double, cpu: Double, load: Double) {
        errors = errors + WordErrors.align(reference: ref, hypothesis: hyp)
        sentences += 1
        if ref == hyp { correctSentences += 1 }
        self.audio += audio
        self.wall += wall
        self.cpu += cpu
        self.load += load
    }

    func row(_ name: String) -> String {
        pad(name, 26) + pad(fmt(errors.rate, 1) + "%", 9)
            + pad("\(correctSentences)/\(sentences) \(fmt(100 * Double(correctSentences) / Double(max(sentences, 1)), 0))%", 13)
            + pad(fmt(cpu, 2) + " s", 10) + pad(fmt(cpu / max(audio, 1e-9), 3), 8)
            + pad(fmt(wall, 2) + " s", 10) + fmt(wall / max(audio, 1e-9), 3)
    }
}

/// User + system CPU seconds of another process, from /proc.
private func processCPU(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
    return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Resident memory of a process in MB, from /proc.
private func rssMB(_ pid: Int32) -> String {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return "?" }
    return fmt(kb / 1024, 0)
}

/// User + system CPU seconds of this process (`RUSAGE_SELF`) or its finished children (`RUSAGE_CHILDREN`):
/// unlike wall time, not inflated by other work on a shared machine.
private func cpuSeconds(_ who: Int32) -> Double {
    var u = rusage()
    getrusage(who, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

private func fmt(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
