import Localization
/// A problem with a prediction data file, carrying where it happened; worded for translation (`message`).
public enum PredictionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file could not be read (missing, unreadable, not UTF-8).
    case cannotRead(path: String, reason: UIMessage)
    /// A file could not be written; the reason is the system's.
    case cannotWrite(path: String, reason: String)
    /// One line of a file is malformed; loading skips it and goes on.
    case badLine(path: String, line: Int, message: UIMessage)
    /// The compiled word lists (`ModelCache`) were damaged; the text lists were read instead.
    case damagedCache(path: String, reason: UIMessage)
    /// The compiled conversational model (`PhraseModel.cache`) was damaged; its text was read instead.
    case damagedPhraseCache(path: String, reason: UIMessage)

    /// The problem as the user reads it, the file (and line) named; what a compiled file's check found wrong
    /// with it is in the language too.
    public var message: UIMessage {
        switch self {
        case let .cannotRead(path, reason): UIMessage("{file}: cannot read: {reason}", ["file": path], reasons: ["reason": reason])
        case let .cannotWrite(path, reason): UIMessage("{file}: cannot write: {reason}", ["file": path], reasons: ["reason": .system(reason)])
        case let .badLine(path, line, message): .together([.verbatim("\(path):\(line):"), message], separator: " ")
        case let .damagedCache(path, reason):
            UIMessage("{file}: damaged ({reason}); the word lists were read instead", ["file": path], reasons: ["reason": reason])
        case let .damagedPhraseCache(path, reason):
            UIMessage("{file}: damaged ({reason}); the conversational model was read from its text instead", ["file": path],
                      reasons: ["reason": reason])
        }
    }

    public var description: String { message.english }
}
