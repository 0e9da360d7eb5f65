/// A GNU `.mo` file (what `msgfmt` writes) read into entries.
///
/// The format: a magic number that also gives the byte order (0x950412de as written by the machine that
/// made it), the revision (major 0 or 1), the number of strings N, the offsets of the table of originals and
/// of translations (N pairs of length and offset each), and a hash table, which is optional and not needed
/// here: the catalog builds its own dictionary. An original is `msgid`, `msgctxt EOT msgid` with a context,
/// and `msgid NUL msgid_plural` with plural forms; a translation is the forms joined by NUL. Revision 1's
/// system-dependent strings (`<PRIu64>` in C formats) are not used by this project and are skipped.
public enum MOFile {
    /// Why a `.mo` file cannot be read at all.
    public struct Damaged: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The entries of a `.mo` file, and the strings that were not UTF-8 (by index), in file order.
    public static func parse(_ bytes: [UInt8]) throws(Damaged) -> (entries: [CatalogEntry], skipped: [String]) {
        guard bytes.count >= 28 else { throw Damaged(reason: "too short for a .mo file (\(bytes.count) bytes)") }
        let bigEndian: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xde, 0x12, 0x04, 0x95): bigEndian = false
        case (0x95, 0x04, 0x12, 0xde): bigEndian = true
        default: throw Damaged(reason: "not a .mo file (no magic number 0x950412de)")
        }
        func word(_ at: Int) throws(Damaged) -> Int {
            guard at >= 0, at + 4 <= bytes.count else { throw Damaged(reason: "a table points past the end of the file") }
            let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
            let v = bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
            return Int(v)
        }
        let revision = try word(4)
        guard revision >> 16 <= 1 else { throw Damaged(reason: "revision \(revision >> 16).\(revision & 0xffff) of the .mo format, which this reader does not know") }
        let count = try word(8), originals = try word(12), translations = try word(16)
        // Each string takes 8 bytes in each table: a count past that is a damaged header, not a reason to
        // allocate.
        guard count <= bytes.count / 16 else { throw Damaged(reason: "\(count) strings cannot fit in \(bytes.count) bytes") }
        func string(_ table: Int, _ i: Int) throws(Damaged) -> [UInt8] {
            let length = try word(table + 8 * i), offset = try word(table + 8 * i + 4)
            guard offset <= bytes.count, length <= bytes.count - offset else {
                throw Damaged(reason: "string \(i) lies past the end of the file")
            }
            return Array(bytes[offset..<offset + length])
        }
        var entries: [CatalogEntry] = []
        var skipped: [String] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let o = try string(originals, i), t = try string(translations, i)
            guard let original = String(validating: o, as: UTF8.self), let translated = String(validating: t, as: UTF8.self) else {
                skipped.append("string \(i) is not UTF-8")
                continue
            }
            var context: String?
            var ids = original[...]
            if let eot = original.firstIndex(of: "\u{4}") {
                context = String(original[..<eot])
                ids = original[original.index(after: eot)...]
            }
            let parts = ids.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)
            let forms = translated.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
            entries.append(CatalogEntry(context: context, msgid: String(parts[0]),
                                        msgidPlural: parts.count > 1 ? String(parts[1]) : nil, translations: forms))
        }
        return (entries, skipped)
    }
}
