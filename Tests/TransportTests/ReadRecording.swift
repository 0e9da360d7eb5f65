import FrameFormats
import Foundation
import TrackingCore

extension FrameFile {
    /// A recording read from disk and decoded, as the shell's reader (Runtime's `FrameFile.read`) does; this
    /// target tests decoding, so it reads the bytes itself rather than depend on Runtime.
    static func read(path: String) throws -> [DecodedItem] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FrameFileError(path: path, message: "cannot be read")
        }
        return try decode([UInt8](data), format: .auto, path: path)
    }
}
