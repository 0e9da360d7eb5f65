import FrameFormats
import Foundation
import TrackingCore

public extension FrameFile {
    /// Reads a whole recording from `path` and decodes it (`decode`); FrameFormats itself takes bytes only.
    static func read(path: String, format: FrameFormat = .auto) throws(FrameFileError) -> [DecodedItem] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw FrameFileError(path: path, message: exists ? "cannot be read" : "no such file")
        }
        return try decode([UInt8](data), format: format, path: path)
    }
}
