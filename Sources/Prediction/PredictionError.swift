/// A problem with a prediction data file, carrying where it happened.
public enum PredictionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file could not be read (missing, unreadable, not UTF-8).
    case cannotRead(path: String, reason: String)
    /// A file could not be written.
    case cannotWrite(path: String, reason: String)
    /// One line of a file is malformed; loading skips it and goes on.
    case badLine(path: String, line: Int, message: String)
    /// The compiled word lists (`ModelCache`) were damaged; the text lists were read instead.
    case damagedCache(path: String, reason: String)
    /// The compiled conversational model (`PhraseModel.cache`) was damaged; its text was read instead.
    case damagedPhraseCache(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotRead(path, reason): return "\(path): cannot read: \(reason)"
        case let .cannotWrite(path, reason): return "\(path): cannot write: \(reason)"
        case let .badLine(path, line, message): return "\(path):\(line): \(message)"
        case let .damagedCache(path, reason): return "\(path): damaged (\(reason)); the word lists were read instead"
        case let .damagedPhraseCache(path, reason): return "\(path): damaged (\(reason)); the conversational model was read from its text instead"
        }
    }
}
