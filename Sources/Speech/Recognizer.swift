import CPocketSphinx
import Foundation
import Logging

/// One recognised word with its place in the audio stream (seconds since the stream began).
public struct WordTiming: Equatable, Sendable, Codable {
    public var word: String
    public var start: Double
    public var end: Double
    /// Posterior probability from the decoder, 0...1 (only meaningful relative to other words).
    public var confidence: Double

    public init(word: String, start: Double, end: Double, confidence: Double) {
        self.word = word
        self.start = start
        self.end = end
        self.confidence = confidence
    }
}

/// What the recogniser noticed, stamped with audio time (seconds of audio fed since the stream began).
///
/// Audio time, not the wall clock, so a file replay yields exactly the events a live microphone would.
public enum SpeechEvent: Equatable, Sendable {
    /// The recogniser's voice-activity detection heard speech begin.
    case speechStarted(at: Double)
    /// The best guess so far for the utterance in progress; replaced by later partials and the final.
    case partial(String, at: Double)
    /// The utterance ended (silence after speech); its best transcript, possibly empty for noise.
    case final(String, words: [WordTiming], at: Double)

    /// Whether this is the end of an utterance.
    public var isFinal: Bool { if case .final = self { return true }; return false }
}

/// Which search the decoder runs.
public enum RecognitionMode: Equatable, Sendable {
    /// Free dictation with the statistical language model.
    case dictation
    /// A JSGF grammar registered with `Recognizer.addGrammar(name:jsgf:)`.
    case grammar(String)
}

/// Why the recogniser could not start or change mode; `description` is a message for the user.
public enum RecognizerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A model file or folder is missing or unreadable.
    case modelMissing(path: String, what: String)
    /// PocketSphinx rejected the options or could not load the model.
    case initFailed(String)
    /// A JSGF grammar did not parse or uses words missing from the dictionary.
    case badGrammar(name: String, reason: String)
    /// `setMode` named a grammar that was never added, or dictation without a language model.
    case unknownMode(String)

    /// The Debian package that ships the default en-us model.
    public static let modelPackage = "pocketsphinx-en-us"

    public var description: String {
        switch self {
        case let .modelMissing(path, what):
            return "speech model \(what) missing or unreadable: \(path) "
                + "(it comes with the Debian package \(Self.modelPackage): apt-get install \(Self.modelPackage))"
        case let .initFailed(reason):
            return "PocketSphinx could not start: \(reason)"
        case let .badGrammar(name, reason):
            return "grammar \"\(name)\" rejected: \(reason)"
        case let .unknownMode(name):
            return "no such recognition mode: \(name)"
        }
    }
}

/// Where the model lives and how the decoder is tuned.
public struct RecognizerConfiguration: Sendable {
    /// Debian's en-us model folder (package `pocketsphinx-en-us`).
    public static let debianModelDirectory = "/usr/share/pocketsphinx/model/en-us"

    /// The acoustic model folder (`-hmm`).
    public var acousticModel: String
    /// The n-gram language model for dictation (`-lm`); nil loads no LM (commands only, faster start).
    public var languageModel: String?
    /// The pronunciation dictionary (`-dict`).
    public var dictionary: String
    /// Seconds of audio between two looks at the partial hypothesis while speech goes on.
    public var partialInterval: Double
    /// Seconds after which an unchanged partial hypothesis is sent again (the UI's heartbeat while speaking).
    public var partialRepeat: Double = 0.25
    /// More PocketSphinx options, e.g. `["-vad_threshold": "3.0"]`; values are strings as on its command line.
    public var extraOptions: [String: String]
    /// A file for PocketSphinx's own log (`-logfn`); nil silences it.
    public var pocketSphinxLogFile: String?

    public init(modelDirectory: String = RecognizerConfiguration.debianModelDirectory,
                dictation: Bool = true,
                partialInterval: Double = 0.05,
                extraOptions: [String: String] = [:],
                pocketSphinxLogFile: String? = nil) {
        acousticModel = modelDirectory + "/en-us"
        languageModel = dictation ? modelDirectory + "/en-us.lm.bin" : nil
        dictionary = modelDirectory + "/cmudict-en-us.dict"
        self.partialInterval = partialInterval
        self.extraOptions = extraOptions
        self.pocketSphinxLogFile = pocketSphinxLogFile
    }

    /// Options where the recogniser departs from PocketSphinx's defaults; `extraOptions` overrides them.
    ///
    /// `-pl_window 0`: the phone-loop lookahead (default 5 frames) holds the word search that many frames behind
    /// the audio, so every word reached a partial 50 ms later than it could; without it the first partial comes
    /// about 50 ms sooner (issue 34) at the same word error rate, for a fifth to a half more decoding CPU (the
    /// lookahead's pruning is gone; real-time factor about 0.3 → 0.36–0.45 on a shared 2-core EPYC).
    public static let tunedOptions: [String: String] = ["-pl_window": "0"]

    /// The options as a PocketSphinx command line (for the library parser and for the reference tools).
    public var arguments: [String] {
        var args = ["-hmm", acousticModel, "-dict", dictionary]
        if let lm = languageModel { args += ["-lm", lm] }
        let options = Self.tunedOptions.merging(extraOptions) { _, extra in extra }
        for (k, v) in options.sorted(by: { $0.key < $1.key }) { args += [k, v] }
        return args
    }

    /// Checks that every model path exists and can be read, before PocketSphinx aborts on it.
    public func validate() throws(RecognizerError) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: acousticModel, isDirectory: &isDir), isDir.boolValue,
              fm.isReadableFile(atPath: acousticModel + "/mdef") else {
            throw .modelMissing(path: acousticModel, what: "acoustic model folder")
        }
        guard fm.isReadableFile(atPath: dictionary) else {
            throw .modelMissing(path: dictionary, what: "pronunciation dictionary")
        }
        if let lm = languageModel, !fm.isReadableFile(atPath: lm) {
            throw .modelMissing(path: lm, what: "language model")
        }
    }
}

/// PocketSphinx's decoder: feed 16 kHz mono PCM, get `SpeechEvent`s.
///
/// Owns the `ps_decoder_t`. Not thread-safe: use it from one thread at a time (`SpeechListener` does that for
/// live capture). Utterances are end-pointed by the decoder's own voice-activity detection, exactly like
/// Debian's `pocketsphinx_continuous`, so the two agree on the same audio.
public final class Recognizer {
    /// The decoder's name for the language-model search made from `-lm`.
    static let dictationSearch = "_default"

    private let decoder: OpaquePointer
    private let logger: Logger
    public let configuration: RecognizerConfiguration
    public private(set) var mode: RecognitionMode
    private var grammars: Set<String> = []
    /// Frames per second of the acoustic front end (`-frate`), for turning frames into seconds.
    private let frameRate: Double

    // Stream state, all in samples of audio fed so far.
    private var samplesFed = 0
    private var inUtterance = false
    private var utteranceOrigin = 0.0
    private var lastPartialCheck = 0.0
    private var lastPartialEmitted = 0.0
    private var lastPartial = ""
    /// The latest audio, for decoding the last utterance again (`decodeLastUtterance`); empty unless
    /// `recentAudioLimit` is set.
    private var recent: [Int16] = []
    /// Audio time of the utterance that ended last, from its first frame to its end.
    private var lastUtterance: (start: Double, end: Double)?

    /// Seconds of audio kept for `decodeLastUtterance` (0: none).
    public var recentAudioLimit: Double = 0

    /// Loads the model; fails with a message naming a missing file and its package.
    public init(configuration: RecognizerConfiguration = .init(), logger: Logger = .speechSilent) throws(RecognizerError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        if configuration.pocketSphinxLogFile == nil { err_set_logfp(nil) }

        var argv = configuration.arguments
        if let log = configuration.pocketSphinxLogFile { argv += ["-logfn", log] }
        // cmd_ln_init is variadic (not callable from Swift); cmd_ln_parse_r takes an argv (whose first
        // element is the program name, skipped) and converts each value to its declared type.
        var cArgs: [UnsafeMutablePointer<CChar>?] = (["handsfree"] + argv).map { strdup($0) }
        defer { cArgs.forEach { free($0) } }
        let config = cArgs.withUnsafeMutableBufferPointer { buf in
            cmd_ln_parse_r(nil, ps_args(), Int32(buf.count), buf.baseAddress, 1)
        }
        guard let config else {
            throw .initFailed("options not accepted: \(argv.joined(separator: " "))")
        }
        defer { cmd_ln_free_r(config) }  // ps_init retains the config
        guard let ps = ps_init(config) else {
            throw .initFailed("ps_init failed for \(configuration.acousticModel)")
        }
        decoder = ps
        frameRate = Double(cmd_ln_int_r(ps_get_config(ps), "-frate"))
        mode = configuration.languageModel == nil ? .grammar("") : .dictation
        ps_start_utt(decoder)
        logger.info("recognizer ready", metadata: ["options": "\(argv.joined(separator: " "))"])
    }

    deinit {
        ps_end_utt(decoder)
        ps_free(decoder)
    }

    /// The decoder's live cepstral mean: the average of the speaker's cepstra it normalises by, learned over
    /// the first seconds of speech and carried from utterance to utterance (13 values; empty if the model
    /// has none). A fresh decoder starts from the model's `-cmninit`, which fits no one in particular.
    public var cepstralMean: [Float] {
        guard let feat = ps_get_feat(decoder), let cmn = feat.pointee.cmn_struct else { return [] }
        var v = [Float](repeating: 0, count: Int(cmn.pointee.veclen))
        v.withUnsafeMutableBufferPointer { cmn_live_get(cmn, $0.baseAddress) }
        return v
    }

    /// Starts from a cepstral mean saved earlier for this speaker and microphone; false (and nothing set)
    /// unless it has the decoder's length and finite values in a plausible range.
    @discardableResult
    public func setCepstralMean(_ v: [Float]) -> Bool {
        guard let feat = ps_get_feat(decoder), let cmn = feat.pointee.cmn_struct,
              v.count == Int(cmn.pointee.veclen), v.allSatisfy({ $0.isFinite && abs($0) < 1000 }) else { return false }
        v.withUnsafeBufferPointer { cmn_live_set(cmn, $0.baseAddress) }
        return true
    }

    /// Whether the pronunciation dictionary knows `word` (lower case), so a grammar may use it.
    public func knowsWord(_ word: String) -> Bool {
        guard let p = ps_lookup_word(decoder, word) else { return false }
        free(p)
        return true
    }

    /// Registers a JSGF grammar under `name` for `setMode(.grammar(name))`; replaces one of the same name.
    public func addGrammar(name: String, jsgf: String) throws(RecognizerError) {
        // The decoder refuses to touch searches mid-utterance, and a new search may be the current one.
        let wasOpen = inUtterance
        ps_end_utt(decoder)
        defer { ps_start_utt(decoder); if wasOpen { resetUtterance() } }
        if ps_set_jsgf_string(decoder, name, jsgf) != 0 {
            throw .badGrammar(name: name, reason: "PocketSphinx could not compile it (syntax error, or a word "
                              + "missing from the dictionary; see the PocketSphinx log)")
        }
        grammars.insert(name)
        if case .grammar("") = mode {
            // Commands-only decoder: the first grammar becomes the search.
            ps_set_search(decoder, name)
            mode = .grammar(name)
        } else if case .grammar(name) = mode {
            ps_set_search(decoder, name)
        }
    }

    /// Switches between dictation and a grammar; an utterance in progress is dropped (the user changed mode).
    public func setMode(_ newMode: RecognitionMode) throws(RecognizerError) {
        let search: String
        switch newMode {
        case .dictation:
            guard configuration.languageModel != nil else { throw .unknownMode("dictation (no language model loaded)") }
            search = Self.dictationSearch
        case let .grammar(name):
            guard grammars.contains(name) else { throw .unknownMode("grammar \"\(name)\"") }
            search = name
        }
        ps_end_utt(decoder)
        let rc = ps_set_search(decoder, search)
        ps_start_utt(decoder)
        resetUtterance()
        guard rc == 0 else { throw .unknownMode(search) }
        mode = newMode
    }

    /// Seconds of audio fed since the stream began.
    public var audioTime: Double { SpeechAudio.seconds(samples: samplesFed) }

    /// Feeds PCM samples (any length) and returns what happened in them, in order.
    public func process(_ samples: [Int16]) -> [SpeechEvent] {
        var events: [SpeechEvent] = []
        samples.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress, buf.count > 0 else { return }
            ps_process_raw(decoder, base, buf.count, 0, 0)
        }
        samplesFed += samples.count
        if recentAudioLimit > 0 {
            recent += samples
            // Trimmed in large steps, so keeping the audio costs one copy per limit's worth of audio.
            let keep = Int(recentAudioLimit * Double(SpeechAudio.sampleRate))
            if recent.count > 2 * keep { recent.removeFirst(recent.count - keep) }
        }
        let now = audioTime
        let inSpeech = ps_get_in_speech(decoder) != 0
        if inSpeech && !inUtterance {
            inUtterance = true
            lastPartialCheck = now
            lastPartial = ""
            events.append(.speechStarted(at: now))
        }
        if inUtterance && inSpeech && now - lastPartialCheck >= configuration.partialInterval - 1e-9 {
            lastPartialCheck = now
            let text = hypothesis()
            // A changed guess goes out at once; an unchanged one is repeated every `partialRepeat` seconds
            // so a UI hears from the recogniser at least that often while the user speaks.
            if !text.isEmpty && (text != lastPartial || now - lastPartialEmitted >= configuration.partialRepeat - 1e-9) {
                lastPartial = text
                lastPartialEmitted = now
                events.append(.partial(text, at: now))
            }
        }
        if inUtterance && !inSpeech {
            events.append(endUtterance(at: now))
            ps_start_utt(decoder)
        }
        return events
    }

    /// Ends the stream: returns the final result of an utterance still in progress, and starts a new stream
    /// at audio time 0.
    public func finish() -> [SpeechEvent] {
        var events: [SpeechEvent] = []
        if inUtterance {
            events.append(endUtterance(at: audioTime))
        } else {
            ps_end_utt(decoder)
        }
        // A new stream re-estimates the noise level, as a fresh pocketsphinx_continuous run would.
        ps_start_stream(decoder)
        ps_start_utt(decoder)
        samplesFed = 0
        recent = []
        lastUtterance = nil
        resetUtterance()
        return events
    }

    /// Decodes a whole recording and returns its events (a convenience over `process` and `finish`).
    ///
    /// `chunk` is the number of samples per `process` call: 2048 matches `pocketsphinx_continuous`.
    public func transcribe(_ samples: [Int16], chunk: Int = 2048) -> [SpeechEvent] {
        var events: [SpeechEvent] = []
        var i = 0
        while i < samples.count {
            let j = min(samples.count, i + chunk)
            events += process(Array(samples[i..<j]))
            i = j
        }
        return events + finish()
    }

    /// Decodes the utterance that ended last again with another search (e.g. the language model, to check
    /// what a grammar heard), from `preroll` seconds before its first frame; nil if it was longer than
    /// `recentAudioLimit` or its audio is no longer kept. The stream and the current search carry on as before.
    public func decodeLastUtterance(with other: RecognitionMode, preroll: Double = 0.3) -> String? {
        // Longer than the audio kept is never read again, even while more is still buffered: the caller
        // bounds the time a second reading may take with `recentAudioLimit`.
        guard let u = lastUtterance, !inUtterance, u.end - u.start <= recentAudioLimit else { return nil }
        let rate = Double(SpeechAudio.sampleRate)
        let firstKept = samplesFed - recent.count
        let from = max(0, Int(((u.start - preroll) * rate).rounded())), to = Int((u.end * rate).rounded())
        guard from >= firstKept, to <= samplesFed, from < to else { return nil }
        let search: String
        switch other {
        case .dictation:
            guard configuration.languageModel != nil else { return nil }
            search = Self.dictationSearch
        case .grammar(let name):
            guard grammars.contains(name) else { return nil }
            search = name
        }
        let current = ps_get_search(decoder).map { String(cString: $0) }
        ps_end_utt(decoder)
        guard ps_set_search(decoder, search) == 0 else {
            if let current { ps_set_search(decoder, current) }
            ps_start_utt(decoder)
            return nil
        }
        ps_start_utt(decoder)
        recent[(from - firstKept)..<(to - firstKept)].withUnsafeBufferPointer { buf in
            if let base = buf.baseAddress { ps_process_raw(decoder, base, buf.count, 0, 1) }
        }
        ps_end_utt(decoder)
        let text = hypothesis()
        if let current { ps_set_search(decoder, current) }
        ps_start_utt(decoder)
        return text
    }

    /// The audio of the utterance that ended last, from `preroll` seconds before its first frame (for another
    /// engine to read it: Whisper hears a command in a language PocketSphinx lacks); nil if it was longer than
    /// `recentAudioLimit` or its audio is no longer kept.
    public func lastUtteranceAudio(preroll: Double = 0.3) -> [Int16]? {
        guard let u = lastUtterance, !inUtterance, u.end - u.start <= recentAudioLimit else { return nil }
        let rate = Double(SpeechAudio.sampleRate)
        let firstKept = samplesFed - recent.count
        let from = max(firstKept, Int(((u.start - preroll) * rate).rounded())), to = Int((u.end * rate).rounded())
        guard to <= samplesFed, from < to else { return nil }
        return Array(recent[(from - firstKept)..<(to - firstKept)])
    }

    /// The dictionary phones of `word` (lower case), e.g. ["SH", "EH", "L"]; nil if the dictionary lacks it.
    public func phones(of word: String) -> [String]? {
        guard let p = ps_lookup_word(decoder, word) else { return nil }
        defer { free(p) }
        return String(cString: p).split(separator: " ").map(String.init)
    }

    private func resetUtterance() {
        inUtterance = false
        lastPartial = ""
    }

    private func hypothesis() -> String {
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return "" }
        return String(cString: hyp)
    }

    private func endUtterance(at now: Double) -> SpeechEvent {
        ps_end_utt(decoder)
        // The utterance's frames are contiguous audio (the front end only drops silence between utterances)
        // ending now, so its frame 0 lies n_frames back. Measured at the end, where the front end's few
        // buffered frames matter least.
        utteranceOrigin = max(0, now - Double(ps_get_n_frames(decoder)) / frameRate)
        let text = hypothesis()
        var words: [WordTiming] = []
        let logmath = ps_get_logmath(decoder)
        // Segment frames count from the decoder's start, not the utterance's (PocketSphinx 0.8); the first
        // segment (<s> or <sil>) starts at the utterance's frame 0, so offsets are taken from it.
        var base: Int32?
        var seg = ps_seg_iter(decoder)
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            if base == nil { base = sf }
            if let w = ps_seg_word(s) {
                let raw = String(cString: w)
                // Fillers (<s>, </s>, <sil>, [NOISE]) carry no words; "(2)" marks an alternate pronunciation.
                if !(raw.hasPrefix("<") || raw.hasPrefix("[") || raw.hasPrefix("+")) {
                    let prob = ps_seg_prob(s, nil, nil, nil)
                    let word = raw.split(separator: "(", maxSplits: 1).first.map(String.init) ?? raw
                    let origin = base ?? sf
                    words.append(WordTiming(word: word,
                                            start: utteranceOrigin + Double(sf - origin) / frameRate,
                                            end: utteranceOrigin + Double(ef + 1 - origin) / frameRate,
                                            confidence: logmath.map { min(1, logmath_exp($0, prob)) } ?? 0))
                }
            }
            seg = ps_seg_next(s)
        }
        resetUtterance()
        lastUtterance = (utteranceOrigin, now)
        logger.debug("utterance", metadata: ["text": "\(text)", "end": "\(now)"])
        return .final(text, words: words, at: now)
    }
}
