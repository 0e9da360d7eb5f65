import FuzzDriver
import Shell
import Synchronization

// The notes, messages and drafts files as the shell stores them. One input: the first byte picks the file,
// the rest is its bytes. After load, a keystroke and save, every line of the input must be a line of the new
// file, or the input must be kept byte for byte in a `.corrupt-<n>` copy; otherwise the target traps. The one
// line the keystroke may replace on purpose is the draft to "zed" it overwrites, as a user editing it would.
let names = [AppData.notesFile, AppData.messagesFile, AppData.draftsFile]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStorage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    guard let first = input.first else { return 0 }
    let name = names[Int(first) % names.count]
    let original = Array(input.dropFirst())
    let files = Mutex<[String: [UInt8]]>([name: original])
    let client = StoreClient(
        read: { n in files.withLock { $0[n].map(FileRead.decoding) ?? .missing } },
        write: { n, text in files.withLock { $0[n] = Array(text.utf8) }; return nil },
        moveAside: { n in files.withLock { StoreClient.moveAside(n, in: &$0) } })
    var store = AppData.load(client)
    store.apply(.setNote(id: store.newNoteID(), text: "typed"))
    store.apply(.send("typed", to: "ana", at: 0))
    let overwritten = store.draft(for: "zed")
    store.apply(.setDraft("typed", contact: "zed"))
    store.save(with: client)
    let all = files.withLock { $0 }
    var saved: [ArraySlice<UInt8>: Int] = [:]
    for line in (all[name] ?? []).split(separator: 0x0A).dropFirst() { saved[line, default: 0] += 1 }
    var lines = original.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    let header = lines.first?.starts(with: Array("handsfree-".utf8)) == true ? lines.removeFirst() : nil
    if name == AppData.draftsFile, !overwritten.isEmpty, overwritten != "typed" {
        let encoded = RecordFile.encode(header: "", [["draft", "zed", overwritten]]).utf8.dropFirst().dropLast()
        if let k = lines.firstIndex(where: { $0.elementsEqual(encoded) }) { lines.remove(at: k) }
    }
    var lost = 0
    for line in lines {
        if let k = saved[line], k > 0 { saved[line] = k - 1 } else { lost += 1 }
    }
    let savedHeader = all[name].map { $0.prefix { $0 != 0x0A } }
    if lost > 0 || (header != nil && header.map(Array.init) != savedHeader.map(Array.init)),
       all["\(name).corrupt-1"] != original {
        fatalError("\(name): \(lost) lines neither saved nor kept aside, header \(header.map { Array($0) } ?? [])")
    }
    return 0
}

runFuzzer(fuzzStorage)
