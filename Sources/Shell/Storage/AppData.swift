import Localization
import Localization
import Prediction
import Synchronization

/// One note.
public struct Note: Sendable, Equatable {
    /// Stable id (the order notes were created in).
    public var id: Int
    public var text: String
    public init(id: Int, text: String) { self.id = id; self.text = text }

    /// The first line, for lists.
    public var title: String {
        let first = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        return first.trimmingSpaces.isEmpty ? "(empty note)" : first
    }
}

/// A phrase of the phrase board: said at once when activated; the most used rise to the top of their group.
public struct Phrase: Sendable, Equatable {
    /// "greetings", "needs", "answers", or "saved" (the user's own, from "save phrase").
    public var group: String
    public var text: String
    /// Times it was said.
    public var uses: Int
    public init(group: String, text: String, uses: Int = 0) { self.group = group; self.text = text; self.uses = uses }
}

/// One message of a conversation.
public struct Message: Sendable, Equatable {
    public var contact: String
    public var fromMe: Bool
    public var text: String
    public init(contact: String, fromMe: Bool, text: String) { self.contact = contact; self.fromMe = fromMe; self.text = text }
}

/// What reading a file gave.
public enum FileRead: Sendable, Equatable {
    case missing
    case text(String)
    /// The readable part of a file that was not all readable (bytes that are not UTF-8 became U+FFFD), and
    /// what was wrong with it.
    case damaged(String, reason: UIMessage)
    /// The file exists but could not be read at all (permissions, a folder in its place…).
    case failed(String)

    /// A file's bytes as text: invalid UTF-8 becomes U+FFFD (`�`) on lines that are otherwise fine, and the
    /// read is `damaged`, so the caller keeps the original aside before anything is saved over it.
    public static func decoding(_ bytes: [UInt8]) -> FileRead {
        if let s = String(validating: bytes, as: UTF8.self) { return .text(s) }
        let text = String(decoding: bytes, as: UTF8.self)
        let n = text.unicodeScalars.reduce(0) { $0 + ($1 == "\u{FFFD}" ? 1 : 0) }
        return .damaged(text, reason: .plural("{n} place is not UTF-8 text (shown as �)", "{n} places are not UTF-8 text (shown as �)", n))
    }
}

/// Where notes and messages are kept: a struct of closures, live (files in the data directory, atomic
/// writes) in the runtime and in memory in tests. The Shell module itself never touches a file.
public struct StoreClient: Sendable {
    /// Reads a whole file of the data directory by name.
    public var read: @Sendable (_ name: String) -> FileRead
    /// Replaces a file atomically (temp file, fsync, rename); returns why not on failure, worded for translation.
    public var write: @Sendable (_ name: String, _ text: String) -> UIMessage?
    /// Renames a damaged file to `NAME.corrupt-<n>` so it is kept, never overwritten; returns the new name,
    /// nil if it could not be moved (then nothing may be saved over it).
    public var moveAside: @Sendable (_ name: String) -> String?

    public init(read: @escaping @Sendable (String) -> FileRead, write: @escaping @Sendable (String, String) -> UIMessage?,
                moveAside: @escaping @Sendable (String) -> String?) {
        self.read = read; self.write = write; self.moveAside = moveAside
    }

    /// Files kept in memory, for tests, `layout` and goldens. `files` seeds them; `failWrites` makes every
    /// write fail with that message (a read-only or full disk).
    public static func memory(_ files: [String: String] = [:], failWrites: String? = nil) -> StoreClient {
        memory(MemoryFiles(files), failWrites: failWrites)
    }

    /// In-memory files the caller can inspect.
    public static func memory(_ box: MemoryFiles, failWrites: String? = nil) -> StoreClient {
        StoreClient(
            read: { name in box.files.withLock { $0[name].map(FileRead.text) ?? .missing } },
            write: { name, text in
                if let failWrites { return .verbatim(failWrites) }
                box.files.withLock { $0[name] = text }
                return nil
            },
            moveAside: { name in box.files.withLock { moveAside(name, in: &$0) } })
    }

    /// Moves an in-memory file to `NAME.corrupt-<n>` (the first free n), as the live client renames one;
    /// returns the new name, nil when there is no such file.
    public static func moveAside<Content>(_ name: String, in files: inout [String: Content]) -> String? {
        guard let old = files[name] else { return nil }
        var n = 1
        while files["\(name).corrupt-\(n)"] != nil { n += 1 }
        files["\(name).corrupt-\(n)"] = old
        files[name] = nil
        return "\(name).corrupt-\(n)"
    }
}

/// The in-memory files of `StoreClient.memory`.
public final class MemoryFiles: Sendable {
    public let files: Mutex<[String: String]>
    public init(_ files: [String: String]) { self.files = Mutex(files) }
}

/// The user's notes, messages and drafts: a value in the shell state.
///
/// Screens read it from their context and ask for changes in their reply (`Reply.changes`); the reducer
/// applies them and returns a `save` effect for each file that changed, which the runtime writes through a
/// `StoreClient`, reporting the outcome back (`ShellEvent.saved`). A failed save keeps the text in memory
/// (and on screen) and shows the problem until a later save succeeds, so nothing typed is lost.
public struct AppData: Sendable, Equatable {
    public static let notesFile = "notes.txt"
    public static let messagesFile = "messages.txt"
    /// Unsent messages, one per conversation, saved as they are typed.
    public static let draftsFile = "drafts.txt"
    /// The phrase board's phrases, an editable text file: one `phrase<TAB>group<TAB>uses<TAB>text` a line.
    public static let phrasesFile = "phrases.txt"

    /// All notes, newest first.
    public private(set) var notes: [Note] = []
    /// A problem to show on the Notes screens: a damaged file moved aside, or a failed save.
    public private(set) var notesProblem: UIMessage?
    public private(set) var messages: [Message] = []
    var messagesOwnProblem: UIMessage?
    var draftsProblem: UIMessage?
    public private(set) var drafts: [String: String] = [:]
    /// The phrase board's phrases, in the file's order.
    public private(set) var phrases: [Phrase] = []
    /// A problem to show on the phrase board: a damaged file moved aside, or a failed save.
    public private(set) var phrasesProblem: UIMessage?
    var pending: [PendingReply] = []
    /// Files that could not be read nor moved aside: nothing is saved over them.
    public private(set) var locked: Set<String> = []
    /// Files changed since they were last handed out for saving.
    private var unsaved: Set<String> = []
    /// Files whose last save failed (or that are locked against saves), with why: what they hold lives only
    /// here.
    public private(set) var saveErrors: [String: UIMessage] = [:]

    struct PendingReply: Sendable, Equatable {
        var contact: String
        /// Source time it arrives; nil for a reply owed since before a restart, which starts its delay at
        /// the first tick (the file keeps no clock).
        var due: Double?
        var text: String
    }

    /// Nothing stored yet: as a first start sees it (each contact has written once).
    public static var firstStart: AppData { load(.memory()) }

    public init() {}

    // MARK: reading

    public func note(id: Int) -> Note? { notes.first { $0.id == id } }

    /// The id a new note gets (it is saved only once it has text, so an empty note is not kept): after the
    /// highest, or the lowest free one when the highest is the largest a file may hold.
    public func newNoteID() -> Int {
        let highest = notes.map(\.id).max() ?? 0
        guard highest >= Counts.limit else { return highest + 1 }
        let used = Set(notes.map(\.id))
        return (1...).first { !used.contains($0) } ?? 1
    }

    public func messages(with contact: String) -> [Message] { messages.filter { $0.contact == contact } }

    /// A problem to show on the Messages screens: a damaged messages or drafts file, or a failed save.
    public var messagesProblem: UIMessage? { messagesOwnProblem ?? draftsProblem }

    /// The message being written to `contact`, kept across restarts.
    public func draft(for contact: String) -> String { drafts[contact] ?? "" }

    /// Whether the contact is typing a reply.
    public func isTyping(_ contact: String) -> Bool { pending.contains { $0.contact == contact } }

    /// Whether a reply is due at `now`.
    public func repliesDue(at now: Double) -> Bool { pending.contains { $0.due.map { $0 <= now } ?? false } }

    /// Whether a tick at `now` changes anything: a reply is due, or an owed one is still to start its delay.
    public func repliesWaiting(at now: Double) -> Bool { pending.contains { $0.due.map { $0 <= now } ?? true } }

    /// The phrase groups, in the board's order.
    public static let phraseGroups: [(key: String, label: String)] = [("greetings", N_("Greetings")), ("needs", N_("Needs")),
                                                                      ("answers", N_("Answers")), ("saved", N_("Saved"))]

    /// A group's phrases, the most used first (ties keep the file's order).
    public func phrases(in group: String) -> [Phrase] {
        phrases.enumerated().filter { $0.element.group == group }
            .sorted { $0.element.uses != $1.element.uses ? $0.element.uses > $1.element.uses : $0.offset < $1.offset }
            .map(\.element)
    }

    /// Where a group of the board keeps its phrases in `language`: English's plain groups ("greetings"), another
    /// language's under its code ("es:greetings") once it has phrases of its own (`offerPhrases`), else
    /// English's. The user's saved phrases are one group in every language.
    public func phraseGroup(_ group: String, language: String) -> String {
        guard group != "saved", !LanguageChoice.isEnglish(language) else { return group }
        let prefix = language + ":"
        return phrases.contains { $0.group.hasPrefix(prefix) } ? prefix + group : group
    }

    /// Offers a language's common phrases on the board the first time it is used (its groups have no phrase
    /// yet), as a first start offers English's: kept in phrases.txt from the first change to the board.
    public mutating func offerPhrases(_ board: LanguageBoard) {
        guard !LanguageChoice.isEnglish(board.code), !board.phrases.isEmpty else { return }
        let prefix = board.code + ":"
        guard !phrases.contains(where: { $0.group.hasPrefix(prefix) }) else { return }
        phrases += board.phrases.map { Phrase(group: prefix + $0.group, text: $0.text) }
    }

    /// What a first start offers: what people most often need to say quickly.
    static let starterPhrases: [Phrase] = [
        ("greetings", ["Hello!", "Good morning.", "Good night.", "How are you?", "Nice to see you.", "Goodbye, see you soon."]),
        ("needs", ["I need help.", "I am thirsty.", "I am in pain.", "Please call the nurse.", "I need the toilet.",
                   "I am cold.", "I am hot.", "Please move me.", "I am tired."]),
        ("answers", ["Yes.", "No.", "Thank you.", "Please wait, I am typing.", "I don't know.", "Maybe.",
                     "Please say that again.", "I understand."]),
    ].flatMap { g in g.1.map { Phrase(group: g.0, text: $0) } }

    // MARK: changing

    /// A change a screen asks for.
    public enum Change: Sendable, Equatable {
        /// Stores a note's text (adding the note if new).
        case setNote(id: Int, text: String)
        case deleteNote(id: Int)
        /// Stores the message being written to a contact (empty: none).
        case setDraft(String, contact: String)
        /// Sends a message: appends it and schedules the contact's reply `replyDelay` later.
        case send(String, to: String, at: Double)
        /// Deletes a conversation's messages (and a reply on its way).
        case clear(contact: String)
        /// Delivers the replies due at this time.
        case deliverReplies(at: Double)
        /// Adds a phrase to a group (not again if the group has it).
        case addPhrase(String, group: String)
        /// A phrase was said: it counts one more use.
        case usedPhrase(String, group: String)
        /// Removes a phrase from a group.
        case removePhrase(String, group: String)
    }

    public mutating func apply(_ change: Change) {
        switch change {
        case .setNote(let id, let text):
            if let k = notes.firstIndex(where: { $0.id == id }) { notes[k].text = text } else { notes.insert(Note(id: id, text: text), at: 0) }
            unsaved.insert(Self.notesFile)
        case .deleteNote(let id):
            notes.removeAll { $0.id == id }
            unsaved.insert(Self.notesFile)
        case .setDraft(let text, let contact):
            guard draft(for: contact) != text else { return }
            drafts[contact] = text.isEmpty ? nil : text
            unsaved.insert(Self.draftsFile)
        case .send(let text, let contact, let now):
            messages.append(Message(contact: contact, fromMe: true, text: text))
            unsaved.insert(Self.messagesFile)
            let sent = messages.filter { $0.contact == contact && $0.fromMe }.count
            pending.append(PendingReply(contact: contact, due: now + Self.replyDelay,
                                        text: Self.replies[(sent - 1) % Self.replies.count]))
        case .clear(let contact):
            messages.removeAll { $0.contact == contact }
            pending.removeAll { $0.contact == contact }
            unsaved.insert(Self.messagesFile)
        case .deliverReplies(let now):
            for k in pending.indices where pending[k].due == nil { pending[k].due = now + Self.replyDelay }
            func isDue(_ r: PendingReply) -> Bool { r.due.map { $0 <= now } ?? false }
            let due = pending.filter(isDue)
            guard !due.isEmpty else { return }
            pending.removeAll(where: isDue)
            for r in due { messages.append(Message(contact: r.contact, fromMe: false, text: r.text)) }
            unsaved.insert(Self.messagesFile)
        case .addPhrase(let text, let group):
            let t = text.trimmingSpaces.replacingOccurrences(of: "\n", with: " ")
            guard !t.isEmpty, !phrases.contains(where: { $0.group == group && $0.text == t }) else { return }
            phrases.append(Phrase(group: group, text: t))
            unsaved.insert(Self.phrasesFile)
        case .usedPhrase(let text, let group):
            guard let k = phrases.firstIndex(where: { $0.group == group && $0.text == text }) else { return }
            phrases[k].uses = Counts.adding(phrases[k].uses, 1)
            unsaved.insert(Self.phrasesFile)
        case .removePhrase(let text, let group):
            phrases.removeAll { $0.group == group && $0.text == text }
            unsaved.insert(Self.phrasesFile)
        }
    }

    // MARK: saving

    /// The files changed since the last call, with the text to write, in a fixed order. A locked file is not
    /// handed out: its problem says why nothing is saved over it.
    public mutating func takeSaves() -> [(name: String, text: String)] {
        defer { unsaved = [] }
        var out: [(name: String, text: String)] = []
        for name in [Self.notesFile, Self.messagesFile, Self.draftsFile, Self.phrasesFile] where unsaved.contains(name) {
            if locked.contains(name) {
                saved(name, error: UIMessage("{file} could not be read, so nothing is saved over it", ["file": name]))
            } else {
                out.append((name, text(of: name)))
            }
        }
        return out
    }

    /// What a file holds.
    public func text(of name: String) -> String {
        switch name {
        case Self.notesFile:
            return RecordFile.encode(header: Self.headers[name] ?? "", notes.map { ["note", String($0.id), $0.text] })
        case Self.messagesFile:
            return RecordFile.encode(header: Self.headers[name] ?? "",
                                     messages.map { ["msg", $0.contact, $0.fromMe ? "me" : "them", $0.text] })
        case Self.phrasesFile:
            return RecordFile.encode(header: Self.headers[name] ?? "", phrases.map { ["phrase", $0.group, String($0.uses), $0.text] })
        default:
            return RecordFile.encode(header: Self.headers[Self.draftsFile] ?? "", drafts.sorted { $0.key < $1.key }.map { ["draft", $0.key, $0.value] })
        }
    }

    /// The text of every file whose last save failed, by file name: what quitting would lose.
    public var unsavedFiles: [String: String] {
        var out: [String: String] = [:]
        for name in saveErrors.keys { out[name] = text(of: name) }
        return out
    }

    /// Takes a save's outcome: a failure is shown until a later save of the file succeeds.
    public mutating func saved(_ name: String, error: UIMessage?) {
        // The problem a failed save showed goes with the next save that succeeds; a damaged file's stays.
        let before = saveErrors[name].map { Self.notSaved(name, $0) }
        saveErrors[name] = error
        let now = error.map { Self.notSaved(name, $0) }
        func settle(_ problem: inout UIMessage?) {
            if let now { problem = now } else if let before, problem == before { problem = nil }
        }
        switch name {
        case Self.notesFile: settle(&notesProblem)
        case Self.phrasesFile: settle(&phrasesProblem)
        case Self.messagesFile: settle(&messagesOwnProblem)
        default: settle(&draftsProblem)
        }
    }

    /// What a screen says when file `name` could not be saved for `reason`.
    static func notSaved(_ name: String, _ reason: UIMessage) -> UIMessage {
        switch name {
        case notesFile: UIMessage("Not saved, your text stays here: {reason}.", reasons: ["reason": reason])
        case phrasesFile: UIMessage("Phrases not saved, they stay here: {reason}.", reasons: ["reason": reason])
        case messagesFile: UIMessage("Messages not saved, they stay here: {reason}.", reasons: ["reason": reason])
        default: UIMessage("Draft not saved, it stays here: {reason}.", reasons: ["reason": reason])
        }
    }

    /// Writes the files changed since the last save through `client` and takes the outcomes (the runtime
    /// does this with the `save` effects; tools and tests without a loop call it directly).
    public mutating func save(with client: StoreClient) {
        for (name, text) in takeSaves() { saved(name, error: client.write(name, text)) }
    }

    // MARK: messages

    /// The people one can write to, with their first message: in English here and in the files, shown in the
    /// language (`name(of:_:)`, `shown(_:_:)`), so the practice reads as a chat in the user's language.
    public static let contacts: [(id: String, name: String, greeting: String)] = [
        ("ana", N_("Ana"), N_("Hi! How are you today?")),
        ("ben", N_("Ben"), N_("Are we still on for Saturday?")),
        ("carla", N_("Carla (nurse)"), N_("I'll come by at 4 pm.")),
        ("dev", N_("Dev"), N_("Sent you the photos from the trip.")),
        ("mum", N_("Mum"), N_("Call me when you can, love.")),
        ("team", N_("Care team"), N_("Reminder: physio on Tuesday at 10.")),
    ]

    /// Canned replies, chosen by how many messages the user has sent, so replies are deterministic.
    static let replies = [N_("Got it, thanks!"), N_("Sounds good to me."), N_("Ha, nice one."), N_("Let me check and get back to you."),
                          N_("Okay, see you then."), N_("Thanks for letting me know.")]

    /// The made-up messages (greetings and replies), which are shown in the language.
    static let madeUp = Set(contacts.map { $0.greeting } + replies)

    /// The name of the contact `id` in `catalog`'s language ("Mama" for "Mum" in German); the id if unknown.
    public static func name(of id: String, _ catalog: Catalog) -> String {
        contacts.first { $0.id == id }.map { catalog.tr($0.name) } ?? id
    }

    /// A message's text as shown: a made-up one in `catalog`'s language, what the user wrote as written.
    public static func shown(_ m: Message, _ catalog: Catalog) -> String {
        !m.fromMe && madeUp.contains(m.text) ? catalog.tr(m.text) : m.text
    }

    /// How long a simulated reply takes (seconds of source time).
    public static let replyDelay = 2.0

    /// The replies a conversation was still waiting for when the shell stopped: one for each of the user's
    /// messages after the contact's last, with the text it would have had.
    static func owedReplies(_ messages: [Message]) -> [PendingReply] {
        var owed: [PendingReply] = []
        for c in contacts {
            let thread = messages.filter { $0.contact == c.id }
            let trailing = thread.reversed().prefix { $0.fromMe }.count
            let sent = thread.filter(\.fromMe).count
            guard trailing > 0 else { continue }
            for n in (sent - trailing + 1)...sent {
                owed.append(PendingReply(contact: c.id, due: nil, text: replies[(n - 1) % replies.count]))
            }
        }
        return owed
    }

    // MARK: loading

    /// The first line of each file.
    static let headers = [notesFile: "handsfree-notes 1", messagesFile: "handsfree-messages 1", draftsFile: "handsfree-drafts 1",
                          phrasesFile: "handsfree-phrases 1"]

    /// Reads the three files through `client`.
    ///
    /// Nothing is dropped silently, by one rule rather than case by case: after a file is read, what the shell
    /// would save of it is worked out, and unless every line of the file is in that, byte for byte, the file is
    /// moved aside unchanged as `NAME.corrupt-<n>`. What could be read is kept and saved back under the usual
    /// name at once (so the next start shows it too), and the banner counts the lines exactly. A file that
    /// cannot be moved aside is locked against saves.
    public static func load(_ client: StoreClient) -> AppData {
        var d = AppData()
        let n = Reading(notesFile, client)
        d.notes = n.records.compactMap(note)
        d.settle(notesFile, n, kept: d.notes.count, readable: { note($0) != nil }, client)

        let m = Reading(messagesFile, client)
        if m.missing {
            // A first start: each contact has written once, so the screens are not empty.
            d.messages = contacts.map { Message(contact: $0.id, fromMe: false, text: $0.greeting) }
        } else {
            d.messages = m.records.compactMap(message)
            d.settle(messagesFile, m, kept: d.messages.count, readable: { message($0) != nil }, client)
        }
        d.pending = owedReplies(d.messages)

        let r = Reading(draftsFile, client)
        for (contact, text) in r.records.compactMap(draft) { d.drafts[contact] = text }
        d.settle(draftsFile, r, kept: d.drafts.count, readable: { draft($0) != nil }, client)

        let p = Reading(phrasesFile, client)
        if p.missing {
            // A first start: the board is not empty. Written at the first change, so an untouched board
            // follows a better starter set in a later version.
            d.phrases = starterPhrases
        } else {
            d.phrases = p.records.compactMap(phrase)
            d.settle(phrasesFile, p, kept: d.phrases.count, readable: { phrase($0) != nil }, client)
        }
        d.save(with: client)
        return d
    }

    /// A note record (`note`, id, text), nil for anything else.
    static func note(_ r: [String]?) -> Note? {
        guard let r, r.count == 3, r[0] == "note", case .value(let id) = Counts.parse(r[1]) else { return nil }
        return Note(id: id, text: r[2])
    }

    /// A message record (`msg`, contact, `me` or `them`, text), nil for anything else.
    static func message(_ r: [String]?) -> Message? {
        guard let r, r.count == 4, r[0] == "msg", r[2] == "me" || r[2] == "them" else { return nil }
        return Message(contact: r[1], fromMe: r[2] == "me", text: r[3])
    }

    /// A phrase record (`phrase`, group, uses, text), nil for anything else.
    static func phrase(_ r: [String]?) -> Phrase? {
        guard let r, r.count == 4, r[0] == "phrase", !r[1].isEmpty, case .value(let uses) = Counts.parse(r[2]) else { return nil }
        return Phrase(group: r[1], text: r[3], uses: uses)
    }

    /// Why a note's or phrase's number could not be read ("uses 9223372036854775807 is out of range (at most
    /// …)"); nil for any other record, or one whose number is fine.
    static func numberProblem(_ r: [String]?) -> UIMessage? {
        guard let r else { return nil }
        if r.count == 3, r[0] == "note" { return Counts.problem(r[1], what: Counts.Field.noteNumber) }
        if r.count == 4, r[0] == "phrase" { return Counts.problem(r[2], what: Counts.Field.uses) }
        return nil
    }

    /// A draft record (`draft`, contact, text), nil for anything else.
    static func draft(_ r: [String]?) -> (String, String)? {
        guard let r, r.count == 3, r[0] == "draft" else { return nil }
        return (r[1], r[2])
    }

    /// One file as read: its lines, split on new lines alone (so a carriage return stays part of its line), and
    /// each line's fields.
    struct Reading {
        /// The file does not exist.
        var missing = false
        /// Why the file could not be read, or not all of it (then it is moved aside whatever its lines hold).
        var failure: UIMessage?
        var header: Substring?
        /// The lines after the header, each with its fields (nil: wrong escapes).
        var lines: [(line: Substring, fields: [String]?)] = []

        var records: [[String]?] { lines.map(\.fields) }

        init(_ name: String, _ client: StoreClient) {
            let text: String
            switch client.read(name) {
            case .missing: missing = true; return
            case .failed(let e): failure = UIMessage("cannot be read ({reason})", reasons: ["reason": .system(e)]); return
            case .damaged(let t, let reason): failure = reason; text = t
            case .text(let t): text = t
            }
            var all = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
            if all.last == "" { all.removeLast() }
            // A first line that is not a header is read as a record: a file without its header loses nothing.
            if let first = all.first, first.hasPrefix("handsfree-") { header = first; all.removeFirst() }
            lines = all.map { ($0, RecordFile.fields($0)) }
        }
    }

    /// Moves a file aside unless every line of it is in what the shell would save now, and says what happened.
    /// `readable` tells a line that became a record (and was then changed or replaced) from one that did not.
    private mutating func settle(_ name: String, _ reading: Reading, kept: Int,
                                 readable: ([String]?) -> Bool, _ client: StoreClient) {
        guard !reading.missing else { return }
        let expected = Self.headers[name] ?? ""
        var saving: [Substring: Int] = [:]
        for line in text(of: name).utf8.split(separator: 0x0A).dropFirst() { saving[Substring(line), default: 0] += 1 }
        var unread = 0, changed = 0
        // The first line whose number was the trouble, named with its place (the file's lines count from 1,
        // the header being the first).
        var badNumber: UIMessage?
        for (k, (line, fields)) in reading.lines.enumerated() {
            if let n = saving[line], n > 0 { saving[line] = n - 1; continue }
            if readable(fields) { changed += 1; continue }
            unread += 1
            if badNumber == nil, let why = Self.numberProblem(fields) {
                badNumber = .together([.verbatim("\(name):\(k + (reading.header == nil ? 1 : 2)):"), why], separator: " ")
            }
        }
        var damage: [UIMessage] = reading.failure.map { [$0] } ?? []
        if let h = reading.header, h != expected {
            damage.append(UIMessage("its first line is \"{found}\", not \"{expected}\"", ["found": String(h.prefix(40)), "expected": expected]))
        }
        if unread > 0 {
            damage.append(badNumber.map {
                .plural("{n} line could not be read ({problem})", "{n} lines could not be read ({problem})", unread, reasons: ["problem": $0])
            } ?? .plural("{n} line could not be read", "{n} lines could not be read", unread))
        }
        if changed > 0 {
            damage.append(.plural("{n} line could not be kept as it was", "{n} lines could not be kept as they were", changed))
        }
        guard !damage.isEmpty else { return }
        // Each part is a clause of its own, so they are joined as a list is in every language here.
        let why = UIMessage.together(damage, separator: ", ")
        let problem: UIMessage
        if let aside = client.moveAside(name) {
            unsaved.insert(name)
            problem = .plural("Damaged file {file} kept as {aside}: {why}, {n} entry kept.", "Damaged file {file} kept as {aside}: {why}, {n} entries kept.",
                              kept, ["file": name, "aside": aside], reasons: ["why": why])
        } else {
            locked.insert(name)
            problem = .plural("Damaged file {file}: {why}, {n} entry kept. It could not be moved aside, so nothing is saved over it.",
                              "Damaged file {file}: {why}, {n} entries kept. It could not be moved aside, so nothing is saved over it.",
                              kept, ["file": name], reasons: ["why": why])
        }
        switch name {
        case Self.notesFile: notesProblem = problem
        case Self.messagesFile: messagesOwnProblem = problem
        case Self.phrasesFile: phrasesProblem = problem
        default: draftsProblem = problem
        }
    }
}

/// The line format of the notes and messages files: a header line, then one record per line, fields
/// separated by tabs, with `\\`, `\t` and `\n` escaped. A torn or edited line spoils only itself.
public enum RecordFile {
    public static func encode(header: String, _ records: [[String]]) -> String {
        ([header] + records.map { $0.map(escape).joined(separator: "\t") }).joined(separator: "\n") + "\n"
    }

    /// The records with the expected number of fields, and how many lines could not be read.
    public static func decode(_ text: String, fields: Int) -> ([[String]], Int) {
        // "\r\n" is one Character, so a file saved with Windows line ends is split on it too.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        if lines.last == "" { lines.removeLast() }
        var bad = 0
        if let h = lines.first, h.hasPrefix("handsfree-") { lines.removeFirst() } else if !lines.isEmpty { bad += 1; lines.removeFirst() }
        var out: [[String]] = []
        for l in lines {
            if let parts = Self.fields(l), parts.count == fields { out.append(parts) } else { bad += 1 }
        }
        return (out, bad)
    }

    /// A line's fields, unescaped; nil when one holds a bad escape.
    public static func fields(_ line: Substring) -> [String]? {
        var out: [String] = []
        for part in line.split(separator: "\t", omittingEmptySubsequences: false) {
            guard let field = unescape(String(part)) else { return nil }
            out.append(field)
        }
        return out
    }

    static func escape(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c {
            case "\\": o += "\\\\"
            case "\t": o += "\\t"
            case "\n": o += "\\n"
            case "\r": o += "\\r"
            case "\r\n": o += "\\r\\n"
            // Invisible control characters are not stored: the file keeps the text as it is shown.
            case _ where c.unicodeScalars.contains(where: RecordFile.isStray): o.unicodeScalars += c.unicodeScalars.filter { !RecordFile.isStray($0) }
            default: o.append(c)
            }
        }
        return o
    }

    /// Nil when the field holds a bad escape (a damaged line). Stray control characters (a NUL, an escape,
    /// saved by an older version or added by hand) are dropped rather than spoiling the line.
    static func unescape(_ s: String) -> String? {
        var o = "", esc = false
        for c in s {
            if esc {
                switch c {
                case "\\": o += "\\"
                case "t": o += "\t"
                case "n": o += "\n"
                case "r": o += "\r"
                default: return nil
                }
                esc = false
            } else if c == "\\" { esc = true }
            else if c.unicodeScalars.contains(where: RecordFile.isStray) {
                o.unicodeScalars += c.unicodeScalars.filter { !RecordFile.isStray($0) }
            } else { o.append(c) }
        }
        return esc ? nil : o
    }

    /// A control character that has no place in stored text (tabs and new lines are escaped, never raw).
    static func isStray(_ u: Unicode.Scalar) -> Bool { u.properties.generalCategory == .control }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
