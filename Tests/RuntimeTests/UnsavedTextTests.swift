#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime
import Testing

/// Text that could not be saved is written to the first fallback place that takes it, in a folder only the
/// user can read, and a place that fails is named with its reason.
@Suite struct UnsavedTextTests {
    static func tempDir(_ tag: String) throws -> String {
        let dir = NSTemporaryDirectory() + "hf-unsaved-\(tag)-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func theFirstPlaceThatWorksGetsEveryFile() throws {
        let base = try Self.tempDir("first")
        defer { try? FileManager.default.removeItem(atPath: base) }
        // A file where the state folder should be: the folder cannot be made (as an unmounted disk, or a typo).
        _ = FileManager.default.createFile(atPath: base + "/blocked", contents: Data())
        let files = ["notes.txt": "handsfree-notes 1\nnote\t1\tmy words\n", "drafts.txt": "handsfree-drafts 1\ndraft\tana\thi\n"]
        let (place, error) = UnsavedText.write(files, places: [base + "/blocked/state", base + "/tmp"])
        #expect(error == nil)
        let dir = try #require(place)
        #expect(dir.hasPrefix(base + "/tmp/handsfree-unsaved-"), "\(dir)")
        for (name, text) in files {
            #expect(try String(contentsOfFile: dir + "/" + name, encoding: .utf8) == text)
        }
        var st = stat()
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700, "only the user may read the copy")
        let again = UnsavedText.write(files, places: [base + "/tmp"])
        #expect(again.place != nil && again.place != dir, "a second copy never replaces the first")
    }

    @Test func noPlaceThatWorksNamesEachReason() throws {
        let base = try Self.tempDir("none")
        defer { try? FileManager.default.removeItem(atPath: base) }
        _ = FileManager.default.createFile(atPath: base + "/file", contents: Data())
        let (place, error) = UnsavedText.write(["notes.txt": "x"], places: [base + "/file/a", base + "/file/b"])
        #expect(place == nil)
        #expect(error == "\(base)/file/a: Not a directory; \(base)/file/b: Not a directory", "\(error ?? "")")
    }
}
