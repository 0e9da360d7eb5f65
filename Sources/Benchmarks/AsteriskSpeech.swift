import Foundation

/// Real recorded speech with its transcript: the voice prompts of the Asterisk telephone exchange, Debian's
/// `asterisk-core-sounds-LL-wav` (the recordings) and `asterisk-core-sounds-LL` (their text), CC BY-SA 3.0.
///
/// Each prompt `KEY` is `/usr/share/asterisk/sounds/LL/KEY.wav` (16-bit, 8 kHz: telephone audio, read at 16 kHz
/// through sox) and a line `KEY: text` of `/usr/share/doc/asterisk-core-sounds-LL/core-sounds-LL.txt.gz`. Read by
/// professional voices nobody working on this project knows: English and Spanish by Allison Smith, Canadian
/// French by June Wallack, Italian by Carlo Flora. Mostly whole sentences ("Prego digitare la password seguita
/// dal tasto cancelletto."), which Tux Paint's names are not. Left out: texts with digits or symbols (how "#" or
/// "1234" was said is not written), the folders of number words, letters and spelling words, sound descriptions
/// in brackets ("[toni ascendenti]"), texts cut at "…" (the recording is a fragment), texts whose accented
/// letters were lost in the file ("sar? esattamente"), texts with more words than fit the recording, and
/// recordings longer than 30 s (one English demo text).
public enum AsteriskSpeech {
    /// Where the packages install the prompts, one folder per language (a link to the voice's folder).
    public static let root = "/usr/share/asterisk/sounds"
    /// Where the transcripts are.
    public static let docs = "/usr/share/doc"
    /// The languages the packages give.
    public static let languages = ["en", "es", "fr", "it"]
    /// What installs them, for a bench or test that finds them absent.
    public static func install(_ language: String) -> String {
        "apt-get install asterisk-core-sounds-\(language) asterisk-core-sounds-\(language)-wav (Debian; scripts/install-deps.sh)"
    }
    /// Languages whose transcripts are written without accents (Spanish: "numero", "sera"): their WER compares
    /// words with accents folded on both sides, or every correctly heard "número" would count as an error.
    public static let transcriptsWithoutAccents: Set<String> = ["es"]

    /// Whether the prompts and their text are installed for `language`.
    public static func installed(language: String) -> Bool {
        FileManager.default.fileExists(atPath: transcript(language))
            && FileManager.default.fileExists(atPath: root + "/" + language)
    }

    static func transcript(_ language: String) -> String {
        docs + "/asterisk-core-sounds-\(language)/core-sounds-\(language).txt.gz"
    }

    /// The prompts of `language` whose text is usable (see the type's comment), sorted by key.
    public static func recordings(language: String) throws -> [TuxPaintSpeech.Recording] {
        let path = transcript(language)
        guard installed(language: language) else { throw BenchError("\(path): not installed: \(install(language))") }
        return parse(try gunzip(path), folder: root + "/" + language)
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The usable `KEY: text` lines of a transcript, each as the recording `folder/KEY.wav`.
    public static func parse(_ body: String, folder: String) -> [TuxPaintSpeech.Recording] {
        var found: [TuxPaintSpeech.Recording] = []
        for raw in body.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\u{FEFF}")))
            guard !line.hasPrefix(";"), let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            var text = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // A stray closing quote ("suivi du dièse.\"") is a typing slip, not speech.
            text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard !key.isEmpty, !key.contains(" "), !skippedFolders.contains(String(key.prefix { $0 != "/" })),
                  usable(text) else { continue }
            found.append(.init(path: folder + "/" + key + ".wav", text: text))
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Folders of single number words, letters and spelling words ("tredici", "m come milano", "Alfa"): no
    /// dictation, and Whisper writes the numbers as digits ("13."), which a word comparison counts as errors.
    static let skippedFolders: Set<String> = ["digits", "letters", "phonetic"]

    /// Whether `text` says in words all the recording says.
    static func usable(_ text: String) -> Bool {
        guard text.contains(where: \.isLetter) else { return false }
        if text.contains(where: { $0.isNumber || $0.isCurrencySymbol || $0.isMathSymbol || "[]()#*@/_".contains($0) }) {
            return false
        }
        if text.contains("\u{FFFD}") || text.contains("...") || text.contains("…") || text.lowercased().contains("www") { return false }
        // "sar? esattamente", "La conferenza ? piena": a letter the file lost, written "?" and followed by more
        // of the sentence in lower case; a real question mark ends the text or its sentence.
        let chars = Array(text)
        for i in chars.indices where chars[i] == "?" {
            let rest = chars[(i + 1)...].drop(while: { $0 == " " })
            if let next = rest.first, next.isLetter, next.isLowercase { return false }
        }
        return true
    }

    /// The first `limit` usable prompts of the fixed shuffle (all when nil) whose text fits their length and that
    /// last at most 30 s, read; `skipped` counts the others.
    public static func sample(language: String, limit: Int?) throws -> (utterances: [TuxPaintSpeech.Utterance], skipped: Int) {
        var out: [TuxPaintSpeech.Utterance] = [], skipped = 0
        for r in TuxPaintSpeech.shuffled(try recordings(language: language)) {
            if let limit, out.count >= limit { break }
            let u = TuxPaintSpeech.Utterance(recording: r, samples: try TuxPaintSpeech.read(r.path))
            let words = r.text.split(whereSeparator: { !($0.isLetter || $0 == "'" || $0 == "’") }).count
            // Longer than Whisper's 30 s window: the worker refuses it as one utterance, and nobody dictates that.
            if Double(words) > TuxPaintSpeech.maxWordsPerSecond * u.seconds || u.seconds > 30 { skipped += 1; continue }
            out.append(u)
        }
        return (out, skipped)
    }

    /// A gzip-compressed text file's text (Debian's `gzip` decompresses it).
    static func gunzip(_ path: String) throws -> String {
        let (data, status) = try toolOutput("gzip", ["-dc", path]) { BenchError("cannot run gzip for \(path): \($0)") }
        guard status == 0 else { throw BenchError("\(path): gzip could not read it (status \(status))") }
        // Some transcripts hold a few Latin-1 bytes among UTF-8 text.
        return String(data: data, encoding: .utf8) ?? String(decoding: data, as: UTF8.self)
    }
}
