import ArgumentParser
import Foundation
import Localization
import Runtime
import Speech

/// `handsfree say TEXT…`: speaks text with the shell's voices, to the sound card or a WAV file.
struct SayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: tr("Speak text aloud (or into a WAV file) with flite, Piper or espeak-ng."),
        discussion: tr("""
        Without TEXT, standard input is spoken. Long text is spoken sentence by sentence. A voice that cannot \
        start (Piper needs scripts/python-env.sh speak) is named on standard error and flite speaks instead. \
        Example: handsfree say --voice piper --out hello.wav "Hello, I am glad you came."
        """))

    @Argument(help: ArgumentHelp(tr("The text; several arguments are joined by spaces."))) var text: [String] = []
    @Option(help: ArgumentHelp(tr("flite (in the process, the default), piper (the natural voice) or espeak (espeak-ng, if installed).")),
            transform: { s in do throws(VoiceError) { return try VoiceName.parse(s) } catch { throw ValidationError(error.message.shown) } })
    var voice: VoiceName = .flite
    @Option(help: ArgumentHelp(tr("Write the speech to this WAV file instead of playing it."))) var out: String?
    @Option(help: ArgumentHelp(tr("The ALSA device to play on."))) var speaker = "default"
    @Option(name: .customLong("speaker-file"), help: ArgumentHelp(tr("Play through ALSA's file plugin into this WAV file (no sound card needed).")))
    var speakerFile: String?
    @Option(help: ArgumentHelp(tr("Speed: 1 is the voice's own, 2 twice as fast (0.3 to 3)."))) var rate = 1.0
    @Option(help: ArgumentHelp(tr("Loudness, 0 to 1."))) var volume = 1.0
    @Option(help: ArgumentHelp(tr("The Python with piper-tts (default: $HANDSFREE_PYTHON, then the project's .venv)."))) var python: String?
    @Option(help: ArgumentHelp(tr("The language of the text ({codes}…): any but English is said by espeak-ng's voice for it. Default: the language setting, else the environment's.", ["codes": languageCodes()])))
    var language: String?

    func validate() throws {
        guard (0.3...3).contains(rate) else { throw ValidationError(tr("--rate {rate}: give 0.3 to 3 (1 is the voice's own speed)", ["rate": "\(rate)"])) }
        guard (0...1).contains(volume) else { throw ValidationError(tr("--volume {volume}: give 0 to 1", ["volume": "\(volume)"])) }
        if out != nil && speakerFile != nil { throw ValidationError(tr("give --out or --speaker-file, not both")) }
        if let language, language.isEmpty || !language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }) {
            throw ValidationError(tr("--language \"{code}\": give a language's code ({codes}…)", ["code": language, "codes": languageCodes()]))
        }
    }

    func run() throws {
        var words = text.joined(separator: " ")
        if text.isEmpty {
            words = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard !words.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError(tr("nothing to say: give TEXT or pipe it in"))
        }
        let output: any AudioSink = out.map { WAVFileSink(path: $0) as any AudioSink }
            ?? speakerFile.map { ALSAPlayback.toFile($0) } ?? ALSAPlayback(device: speaker)
        let problems = ProblemList()
        let speaker = Speaker(setup: PythonEnv.voiceSetup(python: python), output: output) { event in
            if case let .problem(message, fallback) = event { problems.add(message.shown, fatal: !fallback) }
        }
        let language = self.language ?? CommandLineText.catalog.language
        if language != "en", !EspeakVoice.hasVoice(language) {
            FileHandle.standardError.write(Data(("say: " + tr("espeak-ng has no voice for \"{code}\" (apt-get install espeak-ng); flite speaks it in English", ["code": language]) + "\n").utf8))
        }
        speaker.speakAndWait(.init(text: words, voice: voice, rate: rate, volume: volume, language: language))
        speaker.shutdown()
        for m in problems.messages { FileHandle.standardError.write(Data("say: \(m)\n".utf8)) }
        // A file that failed as the audio came was said among the problems; one that failed as it was closed
        // (its sizes) is said here.
        if let e = (output as? WAVFileSink)?.writeError?.shown {
            if !problems.messages.contains(where: { $0.hasSuffix(e) }) { FileHandle.standardError.write(Data("say: \(e)\n".utf8)) }
            throw ExitCode(1)
        }
        if problems.fatal { throw ExitCode(1) }
    }
}

/// The speaker's problems, gathered from its threads.
final class ProblemList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    private var anyFatal = false
    func add(_ m: String, fatal: Bool) { lock.lock(); list.append(m); anyFatal = anyFatal || fatal; lock.unlock() }
    var messages: [String] { lock.lock(); defer { lock.unlock() }; return list }
    var fatal: Bool { lock.lock(); defer { lock.unlock() }; return anyFatal }
}
