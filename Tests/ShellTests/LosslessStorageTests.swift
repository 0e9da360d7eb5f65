import Shell
import Testing

/// Loading and saving notes, messages and drafts never drops a byte silently: a line the shell cannot keep as
/// it is sends the whole file, unchanged, to `NAME.corrupt-<n>`, and the banner counts exactly.
@Suite struct LosslessStorageTests {
    // MARK: the defects found by the probe

    /// Each record with one damaged field, which used to vanish at load and then from the file at the next save.
    @Test(arguments: [
        ("note\tX\tbuy milk", AppData.notesFile),
        ("note\t99999999999999999999\tbuy milk", AppData.notesFile),
        ("Note\t3\tbuy milk", AppData.notesFile),
        ("note\t007\tbuy milk", AppData.notesFile),
        ("msg\tana\tMe\tsee you at five", AppData.messagesFile),
        ("msg\tana\tme\tsee you\r", AppData.messagesFile),
        ("draft\tben\tunsent\\q", AppData.draftsFile),
    ])
    func aRecordWithOneDamagedFieldIsKeptAside(line: String, file: String) {
        let header = file == AppData.notesFile ? "handsfree-notes 1" : file == AppData.messagesFile ? "handsfree-messages 1" : "handsfree-drafts 1"
        let good = file == AppData.notesFile ? "note\t1\tfirst" : file == AppData.messagesFile ? "msg\tana\tthem\thello" : "draft\tana\thi"
        let original = Array("\(header)\n\(good)\n\(line)\n".utf8)
        let files = ByteFiles([file: original])
        var store = AppData.load(files.client)
        let problem = (file == AppData.notesFile ? store.notesProblem : store.messagesProblem)?.english
        #expect(problem?.contains("kept as \(file).corrupt-1") == true, "\(problem ?? "no banner")")
        #expect(problem?.hasSuffix(", 1 entry kept.") == true || problem?.hasSuffix(", 2 entries kept.") == true, "\(problem ?? "")")
        #expect(files.files.withLock { $0["\(file).corrupt-1"] } == original, "the original, byte for byte")
        store.apply(.setNote(id: 50, text: "later"))
        store.save(with: files.client)
        #expect(files.files.withLock { $0["\(file).corrupt-1"] } == original, "never overwritten")
    }

    @Test func theBannersCountsAreExact() {
        let text = "handsfree-notes 1\nnote\t1\tone\nnote\tX\tbad id\ngarbage\nnote\t2\ttwo\u{1}\nnote\t3\tthree\n"
        let files = ByteFiles([AppData.notesFile: Array(text.utf8)])
        let store = AppData.load(files.client)
        #expect(store.notes.map(\.text).sorted() == ["one", "three", "two"])
        #expect(store.notesProblem?.english == "Damaged file notes.txt kept as notes.txt.corrupt-1: 2 lines could not be read "
                + "(notes.txt:3: note number 'X' is not a whole number ≥ 0), 1 line could not be kept as it was, 3 entries kept.")
    }

    @Test func aMessageFromMeWithACapitalIsNotLostAtTheNextSave() {
        let text = "handsfree-messages 1\nmsg\tana\tthem\thi\nmsg\tana\tMe\tsee you at five\n"
        let files = ByteFiles([AppData.messagesFile: Array(text.utf8)])
        var store = AppData.load(files.client)
        #expect(store.messagesProblem?.english == "Damaged file messages.txt kept as messages.txt.corrupt-1: 1 line could not be read, 1 entry kept.")
        store.apply(.send("again", to: "ana", at: 0))
        store.save(with: files.client)
        #expect(files.text("messages.txt.corrupt-1")?.contains("msg\tana\tMe\tsee you at five\n") == true)
    }

    @Test func aFileOfANewerVersionIsKeptAsideNotRewritten() {
        let text = "handsfree-notes 2\nnote\t1\tone\n"
        let files = ByteFiles([AppData.notesFile: Array(text.utf8)])
        let store = AppData.load(files.client)
        #expect(store.notes.map(\.text) == ["one"])
        #expect(store.notesProblem?.english.contains("its first line is \"handsfree-notes 2\", not \"handsfree-notes 1\"") == true,
                "\(store.notesProblem?.english ?? "")")
        #expect(files.text("notes.txt.corrupt-1") == text)
    }

    @Test func aCleanFileIsLeftAlone() {
        let text = "handsfree-notes 1\nnote\t2\tsecond\\tline\\\\\nnote\t1\tfirst\\nlines\n"
        let files = ByteFiles([AppData.notesFile: Array(text.utf8)])
        let store = AppData.load(files.client)
        #expect(store.notesProblem == nil)
        #expect(files.text(AppData.notesFile) == text)
        #expect(files.files.withLock { $0.keys.contains { $0.contains("corrupt") } } == false)
    }

    @Test func aFileWithoutItsHeaderLosesNoRecord() {
        let files = ByteFiles([AppData.notesFile: Array("note\t1\tfirst\nnote\t2\tsecond\n".utf8)])
        let store = AppData.load(files.client)
        #expect(store.notes.count == 2)
        #expect(store.notesProblem == nil, "every line is in what is saved")
    }

    // MARK: the property

    /// Thousands of generated and mutated files: after load and save, every line of the input is a line of the
    /// new file, or the input is kept byte for byte in a `.corrupt-<n>` copy; and the banner's counts add up.
    @Test func everyInputLineSurvivesLoadAndSave() {
        var rng = SplitMix(seed: 33)
        var keptAside = 0, clean = 0
        for round in 0..<3000 {
            let name = [AppData.notesFile, AppData.messagesFile, AppData.draftsFile][round % 3]
            let original = LosslessStorageTests.file(name, &rng)
            let files = ByteFiles([name: original])
            var store = AppData.load(files.client)
            // Something the user types, so every file is saved at least once.
            switch name {
            case AppData.notesFile: store.apply(.setNote(id: store.newNoteID(), text: "typed"))
            case AppData.messagesFile: store.apply(.send("typed", to: "ana", at: 0))
            default: store.apply(.setDraft("typed \(round)", contact: "zed"))
            }
            store.save(with: files.client)
            let all = files.files.withLock { $0 }
            let copies = all.filter { $0.key.hasPrefix(name + ".corrupt-") }
            #expect(copies.count <= 1, "round \(round): \(copies.keys.sorted())")
            var saved: [[UInt8]: Int] = [:]
            for line in (all[name] ?? []).split(separator: 0x0A).dropFirst() { saved[Array(line), default: 0] += 1 }
            var lines = original.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            if lines.last == [] { lines.removeLast() }
            let header = lines.first.map { $0.starts(with: Array("handsfree-".utf8)) } == true ? lines.removeFirst() : nil
            var lost = 0
            for line in lines {
                if let k = saved[line], k > 0 { saved[line] = k - 1 } else { lost += 1 }
            }
            let expectedHeader = Array(AppData.load(.memory()).text(of: name).utf8.prefix { $0 != 0x0A })
            if lost > 0 || (header != nil && header != expectedHeader) {
                #expect(copies.values.first == original,
                        "round \(round): \(lost) lines neither saved nor kept: \(String(decoding: original, as: UTF8.self).debugDescription)")
            }
            let problem = (name == AppData.notesFile ? store.notesProblem : store.messagesProblem)?.english
            if copies.isEmpty { clean += 1 } else { keptAside += 1 }
            if copies.isEmpty {
                #expect(problem == nil || problem?.hasPrefix("Damaged") == false, "round \(round): \(problem ?? "")")
            } else if String(validating: original, as: UTF8.self) != nil {
                // Exact: the lines the banner names are those not in the new file.
                let numbers = LosslessStorageTests.counts(problem ?? "")
                #expect(numbers.unread + numbers.changed == lost, "round \(round): \(problem ?? "no banner") for \(lost) lost lines")
            }
        }
        // Both outcomes are exercised, so the property is tested on each.
        #expect(keptAside > 1000 && clean > 500, "\(keptAside) kept aside, \(clean) clean")
    }

    /// The numbers in a banner: lines that could not be read, and lines not kept as they were.
    static func counts(_ problem: String) -> (unread: Int, changed: Int) {
        func number(before phrase: String) -> Int {
            guard let r = problem.range(of: phrase) else { return 0 }
            let digits = problem[..<r.lowerBound].reversed().prefix { $0.isNumber }
            return Int(String(digits.reversed())) ?? 0
        }
        return (number(before: " line could not be read") + number(before: " lines could not be read"),
                number(before: " line could not be kept") + number(before: " lines could not be kept"))
    }

    /// A file of records the shell writes, then mutated as disks, editors and people do.
    static func file(_ name: String, _ rng: inout SplitMix) -> [UInt8] {
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        let pieces = ["milk", "é", "👍🏽", "\\", "\\t", "\\n", "\\q", "\t", "\r", "\r\n", "\u{0}", "\u{1B}", "a b", "₂", "e\u{301}", " ", ""]
        func text() -> String { (0..<Int(rng.next() % 5)).map { _ in pick(pieces) }.joined() }
        var store = AppData.load(.memory())
        for k in 0..<Int(rng.next() % 6) {
            switch name {
            case AppData.notesFile: store.apply(.setNote(id: k + 1, text: text()))
            case AppData.messagesFile: store.apply(.send(text(), to: pick(["ana", "ben", "x"]), at: 0))
            default: store.apply(.setDraft(text(), contact: pick(["ana", "ben", "x\ty"])))
            }
        }
        var bytes = Array(store.text(of: name).utf8)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        for _ in 0..<Int(rng.next() % 4) {
            let k = Int(rng.next() % UInt64(max(lines.count, 1)))
            guard k < lines.count else { break }
            switch rng.next() % 12 {
            case 0: lines[k] = Array(pick(["note\tX\tbad", "note\t99999999999999999999\tbig", "Note\t3\tcap", "note\t-0\tz",
                                           "note\t+4\tplus", "note\t007\tzeros"]).utf8)
            case 1: lines[k] = Array(pick(["msg\tana\tMe\thi", "msg\tana\tthem", "msg\tana\tthem\thi\textra", "msg\t\tme\t"]).utf8)
            case 2: lines[k] = Array(pick(["draft\tana", "draft\tana\tone", "draft\tana\ttwo", "Draft\tben\tx"]).utf8)
            case 3: lines.insert(lines[k], at: k)
            case 4: lines[k] += [0x0D]
            case 5: if !lines[k].isEmpty { lines[k][Int(rng.next() % UInt64(lines[k].count))] ^= UInt8(1 << (rng.next() % 8)) }
            case 6: lines[k].insert(UInt8(rng.next() % 256), at: Int(rng.next() % UInt64(lines[k].count + 1)))
            case 7: lines.remove(at: k)
            case 8: lines[k] = Array(lines[k].prefix(Int(rng.next() % UInt64(lines[k].count + 1))))
            case 9: lines.insert(Array(pick(["", "garbage", "handsfree-notes 1", "handsfree-messages 2", "\\", "\t\t"]).utf8), at: k)
            case 10: lines.swapAt(k, Int(rng.next() % UInt64(lines.count)))
            default: lines[k] += Array(pick(["\u{7F}", "\\", "\t", "\u{85}", "\u{2028}"]).utf8)
            }
        }
        bytes = Array(lines.joined(separator: [0x0A]))
        if rng.next() % 5 == 0, !bytes.isEmpty { bytes.removeLast(Int(rng.next() % UInt64(min(bytes.count, 8)) + 1)) }
        return bytes
    }
}
