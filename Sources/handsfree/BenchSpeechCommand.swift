import ArgumentParser
import Benchmarks
import Runtime

/// `handsfree bench speech`: accuracy and speed of the recogniser against Debian's PocketSphinx tools
/// (`SpeechBench`).
struct BenchSpeech: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speech",
        abstract: tr("Word error rate, sentence accuracy and real-time factor vs pocketsphinx_continuous; command recognition on flite voices; time to first partial result."),
        discussion: tr("""
            DIR holds WAV files and a transcript (`transcription` or `*.transcription`, lines like \
            "<s> ten of clubs </s> (001)"); a `*.gram` file in DIR switches both decoders to that grammar. \
            Default DIR: ../shared/data/speech/pocketsphinx-test/librivox beside the project.
            """))

    @Argument(help: ArgumentHelp(tr("Folder of WAV files with a transcript file.")))
    var dir: String?

    @Option(help: ArgumentHelp(tr("The reference decoder (Debian package pocketsphinx).")))
    var reference = "pocketsphinx_continuous"

    @Flag(help: ArgumentHelp(tr("Skip the reference decoder.")))
    var skipReference = false

    @Flag(help: ArgumentHelp(tr("Skip the Whisper worker (scripts/python-env.sh whisper installs it).")))
    var skipWhisper = false

    @Option(help: ArgumentHelp(tr("Whisper model: a CTranslate2 folder, `package` (tiny.en from PyPI), or a faster-whisper name.")))
    var whisperModel = "package"

    @Option(help: ArgumentHelp(tr("Times each recording is sent to the Whisper worker and to its 30 s-window peer.")))
    var whisperRounds = 3

    @Option(help: ArgumentHelp(tr("A file of phrases (one a line, # comments) for the command test, beside the keymaps' own.")))
    var phrases: String?

    @Option(help: ArgumentHelp(tr("Keymaps whose voice phrases and home-screen phrases the command test says (default keymaps/*.toml).")))
    var keymap: [String] = []

    @Option(help: ArgumentHelp(tr("flite voices for the command test, comma-separated.")))
    var voices = "rms,slt,awb,kal"

    @Flag(help: ArgumentHelp(tr("Skip the command test.")))
    var skipCommands = false

    @Flag(help: ArgumentHelp(tr("Skip the wake-phrase test.")))
    var skipWake = false

    @Flag(help: ArgumentHelp(tr("Print every hypothesis.")))
    var verbose = false

    @Option(help: ArgumentHelp(tr("Languages to measure instead (es,fr,de,it,pt): each pack's sentences and commands said by espeak-ng, heard by the multilingual Whisper, beside English (flite, tiny.en) in the same run.")))
    var language: String?

    @Option(help: ArgumentHelp(tr("With --language: where the speech comes from: synthetic (espeak-ng, flite), tuxpaint (real recorded stamp descriptions from Debian's tuxpaint-stamps-default, English's too) or asterisk (real recorded telephone prompts from Debian's asterisk-core-sounds-LL-wav: es, fr, it, en).")))
    var speech = "synthetic"

    @Option(help: ArgumentHelp(tr("With --speech tuxpaint or asterisk: recordings per language, the first of a fixed shuffle (default: all).")))
    var limit: Int?

    @Option(help: ArgumentHelp(tr("With --language: Whisper's beam width for dictation in the languages other than English (1: greedy; default: each language pack's, as the shell runs it).")))
    var beam: Int?

    @Flag(help: ArgumentHelp(tr("With --language: give Whisper two of the pack's own sentences as the text before the caret when it dictates.")))
    var languagePrompt = false

    @Option(help: ArgumentHelp(tr("With --language: Whisper's prompt for a command: open (the screen's \"open …\" phrases in the language) or screen (those and the screen's other phrases as the pack writes them); default: the shell's.")))
    var commandPrompt: String?

    @Flag(help: ArgumentHelp(tr("With real speech (--speech tuxpaint or asterisk): stop Whisper from decoding an unlikely-looking text again at rising temperatures (faster-whisper's default, which the shell keeps).")))
    var noTemperatureFallback = false

    @Option(name: .customLong("decoder-option"),
            help: ArgumentHelp(tr("A PocketSphinx option for the transcript test, as KEY=VALUE (e.g. -vad_startspeech=5); repeatable.")))
    var decoderOption: [String] = []

    func run() throws {
        if let language {
            var languages = SpeechLanguagesBench(languages: language.split(separator: ",").map(String.init))
            languages.verbose = verbose
            guard let source = SpeechLanguagesBench.Source(rawValue: speech) else {
                throw ValidationError("--speech is synthetic, tuxpaint or asterisk, not \(speech)")
            }
            languages.speech = source
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
            if let beam, beam < 1 || beam > 10 { throw ValidationError("--beam must be 1 to 10, not \(beam)") }
            languages.limit = limit; languages.beam = beam; languages.languagePrompt = languagePrompt
            languages.temperatureFallback = !noTemperatureFallback
            switch commandPrompt {
            case nil: break
            case "open": languages.screenPhrasesInPrompt = false
            case "screen": languages.screenPhrasesInPrompt = true
            case let other?: throw ValidationError("--command-prompt is open or screen, not \(other)")
            }
            // --whisper-model's default is English's tiny.en; another names the languages' model.
            if whisperModel != "package" { languages.model = whisperModel }
            return try printing { try languages.run(out: $0) }
        }
        var bench = SpeechBench()
        bench.dir = dir; bench.reference = reference; bench.skipReference = skipReference
        bench.skipWhisper = skipWhisper; bench.whisperModel = whisperModel; bench.phrases = phrases
        bench.keymap = keymap; bench.voices = voices; bench.skipCommands = skipCommands; bench.skipWake = skipWake
        bench.verbose = verbose; bench.whisperRounds = whisperRounds
        for o in decoderOption {
            guard let eq = o.firstIndex(of: "="), eq != o.startIndex else {
                throw ValidationError("--decoder-option wants KEY=VALUE, e.g. -vad_startspeech=5: \(o)")
            }
            bench.decoderOptions[String(o[..<eq])] = String(o[o.index(after: eq)...])
        }
        try printing { try bench.run(out: $0) }
    }
}

/// `handsfree bench speak`: request → first audio sample per voice, real-time factor and memory, beside
/// flite's and Piper's own command-line programs (`SpeakBench`).
struct BenchSpeak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: tr("Speech output: request → first audio sample p50/p99 per voice, real-time factor, RSS, vs the flite and piper programs."))

    @Option(help: ArgumentHelp(tr("Requests per voice."))) var requests = 40
    @Option(help: ArgumentHelp(tr("Requests for each peer program (one process per phrase)."))) var peerRequests = 10
    @Flag(help: ArgumentHelp(tr("Skip the Piper voice (scripts/python-env.sh speak installs it)."))) var skipPiper = false
    @Option(help: ArgumentHelp(tr("Seconds of the real loop drawing while a long text is spoken (0: skip)."))) var loopSeconds = 8.0
    @Option(help: ArgumentHelp(tr("The Python with piper-tts (default: $HANDSFREE_PYTHON, then the project's .venv)."))) var python: String?

    func run() throws {
        printDebugBuildNote()
        var bench = SpeakBench(setup: PythonEnv.voiceSetup(python: python))
        bench.requests = requests; bench.peerRequests = peerRequests; bench.skipPiper = skipPiper
        bench.loopSeconds = loopSeconds
        _ = try printing { try bench.run(out: $0) }
    }
}
