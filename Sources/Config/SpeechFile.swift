import Localization
import SpeechText

/// A language pack's `speech.toml` read into a `SpeechLanguage` (spoken punctuation, dictation's own commands,
/// number words, voice commands). Pure: the caller reads the file (`SpeechPack` in Runtime). The format is in
/// docs/speech-languages.md.
public enum SpeechFile {
    /// Reads a speech file's text; every mistake names the file and line.
    public static func parse(_ text: String, file: String, code: String) throws(ConfigError) -> SpeechLanguage {
        let doc = try TOMLDocument(text: text, file: file)
        let root = doc.root
        // `[bench]` is `bench speech --language`'s (sentences and commands to say), read by the bench.
        for k in root.keys where !["code", "dictation", "punctuation", "numbers", "commands", "bench"].contains(k) {
            throw doc.error([k], UIMessage("unknown key \"{key}\" (known: {known})",
                                           ["key": k, "known": "code, dictation, punctuation, numbers, commands, bench"]))
        }
        if let c = root["code"], c.string != code {
            throw doc.error(["code"], UIMessage("code must be \"{code}\", the folder's name", ["code": code]))
        }
        func table(_ path: [String]) throws(ConfigError) -> [String: TOMLNode] {
            var node: TOMLNode = .table(root)
            for p in path {
                guard let t = node.table else { throw doc.error(path, UIMessage("{key} must be a table", ["key": path.joined(separator: ".")])) }
                guard let n = t[p] else { return [:] }
                node = n
            }
            guard let t = node.table else { throw doc.error(path, UIMessage("{key} must be a table", ["key": path.joined(separator: ".")])) }
            return t
        }
        func strings(_ path: [String], in t: [String: TOMLNode]) throws(ConfigError) -> [String] {
            guard let n = t[path.last ?? ""] else { return [] }
            guard let a = n.array else { throw doc.error(path, UIMessage("{key} must be a list of phrases", ["key": path.joined(separator: ".")])) }
            var out: [String] = []
            for v in a {
                guard let s = v.string, !SpeechLanguage.words(s).isEmpty else {
                    throw doc.error(path, UIMessage("{key} must list phrases of words", ["key": path.joined(separator: ".")]))
                }
                out.append(s)
            }
            return out
        }
        func phrase(_ s: String, _ path: [String]) throws(ConfigError) -> [String] {
            let w = SpeechLanguage.words(s)
            guard !w.isEmpty else { throw doc.error(path, UIMessage("\"{phrase}\" has no words to say", ["phrase": s])) }
            return w
        }

        let dictation = try table(["dictation"])
        var stop: [[String]] = []
        for s in try strings(["dictation", "stop"], in: dictation) { stop.append(try phrase(s, ["dictation", "stop"])) }
        var delete: [[String]] = []
        for s in try strings(["dictation", "delete"], in: dictation) { delete.append(try phrase(s, ["dictation", "delete"])) }
        var beam = 1
        if let v = dictation["beam"] {
            guard let d = v.number, d >= 1, d <= 10, d == d.rounded() else {
                throw doc.error(["dictation", "beam"], UIMessage("{key} must be a whole number {from}…{to}",
                                                                 ["key": "beam", "from": "1", "to": "10"]))
            }
            beam = Int(d)
        }

        var marks: [SpeechLanguage.Spoken] = []
        for (spoken, v) in try table(["punctuation"]).sorted(by: { $0.key < $1.key }) {
            guard let mark = v.string, !mark.isEmpty else {
                throw doc.error(["punctuation", spoken], UIMessage("\"{phrase}\" must stand for a mark, e.g. \",\"", ["phrase": spoken]))
            }
            marks.append(.init(words: try phrase(spoken, ["punctuation", spoken]), value: mark))
        }

        let n = try table(["numbers"])
        var numbers: NumberWords?
        if !n.isEmpty {
            func count(_ v: TOMLNode, _ path: [String]) throws(ConfigError) -> Int {
                guard let d = v.number, d >= 0, d <= 1_000_000_000, d == d.rounded() else {
                    throw doc.error(path, UIMessage("{key} must be a whole number", ["key": path.last ?? ""]))
                }
                return Int(d)
            }
            var values: [String: Int] = [:]
            for (w, v) in try table(["numbers", "values"]) { values[SpeechLanguage.fold(w)] = try count(v, ["numbers", "values", w]) }
            var scales: [String: Int] = [:]
            for (w, v) in try table(["numbers", "scales"]) { scales[SpeechLanguage.fold(w)] = try count(v, ["numbers", "scales", w]) }
            func flag(_ k: String) throws(ConfigError) -> Bool {
                guard let v = n[k] else { return false }
                guard let b = v.bool else { throw doc.error(["numbers", k], UIMessage("{key} must be true or false", ["key": k])) }
                return b
            }
            numbers = NumberWords(values: values,
                                  hundred: Set(try strings(["numbers", "hundred"], in: n).map(SpeechLanguage.fold)),
                                  scales: scales,
                                  joiners: Set(try strings(["numbers", "joiners"], in: n).map(SpeechLanguage.fold)),
                                  compound: try flag("compound"), unitsFirst: try flag("units_first"))
        }

        let c = try table(["commands"])
        var words = CommandWords()
        for s in try strings(["commands", "open"], in: c) { words.open.append(try phrase(s, ["commands", "open"])) }
        words.openAsWritten = try strings(["commands", "open"], in: c).first
        for s in try strings(["commands", "select"], in: c) { words.select.append(try phrase(s, ["commands", "select"])) }
        words.articles = Set(try strings(["commands", "articles"], in: c).flatMap(SpeechLanguage.words))
        if let w = c["wake"] {
            guard let s = w.string, !SpeechLanguage.words(s).isEmpty else { throw doc.error(["commands", "wake"], UIMessage("wake must be a phrase")) }
            words.wake = s
        }
        for (said, v) in try table(["commands", "phrases"]).sorted(by: { $0.key < $1.key }) {
            guard let english = v.string, !SpeechLanguage.words(english).isEmpty else {
                throw doc.error(["commands", "phrases", said], UIMessage("\"{phrase}\" must stand for the English phrase it means, e.g. \"back\"", ["phrase": said]))
            }
            words.phrases.append(.init(words: try phrase(said, ["commands", "phrases", said]), value: english, written: said))
        }
        return SpeechLanguage(code: code, punctuation: marks, stopDictation: stop, deleteThat: delete,
                              numbers: numbers, commands: words, dictationBeam: beam)
    }
}
