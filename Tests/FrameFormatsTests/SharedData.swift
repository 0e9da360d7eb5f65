import Foundation

/// Locates `../shared/data` beside the package; nil (and the test skips) where it is absent.
enum SharedData {
    static let root: URL? = {
        let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let d = pkg.deletingLastPathComponent().appendingPathComponent("shared/data")
        return FileManager.default.fileExists(atPath: d.path) ? d : nil
    }()

    static func path(_ rel: String) -> String? {
        guard let r = root else { return nil }
        let p = r.appendingPathComponent(rel).path
        return FileManager.default.fileExists(atPath: p) ? p : nil
    }
}
