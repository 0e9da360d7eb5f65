import Config
import Localization

/// One conversation: the messages (newest at the bottom, scrollable), a compose field with the letter
/// keyboard (its ⏎ key sends), a Send button and a hold-to-confirm Clear. The message being written is
/// saved as a draft on every change, so it survives a crash and is there when the conversation reopens.
public struct ConversationScreen: Screen {
    public let name = "conversation"
    public var title: String { title(in: .english) }
    public func title(in catalog: Catalog) -> String {
        catalog.tr("{name} (practice)", ["name": AppData.name(of: contact, catalog)])
    }
    public var contact: String
    /// The message being written, with its suggestions and keyboard (Enter sends).
    public var composer: TextComposer
    /// Where the view is; nil keeps the newest message in view.
    var scrolled: ScrollList?
    var clear = HoldToConfirm()

    public init(contact: String = AppData.contacts[0].id, draft: String = "") {
        self.contact = contact
        composer = TextComposer("conversation", field: "compose", text: draft, enterSubmits: true)
    }

    public var compose: TextFieldModel { composer.field }
    public func undoableKey(_ id: String) -> Bool { composer.undoableKey(id) }
    public var hasUndoableKeys: Bool { true }
    /// A dictation hypothesis not yet final, shown dimmed.
    public var partial: String? { composer.partial }
    /// What the last add-word / remove-word did, shown in the banner until the text changes.
    public var wordMessage: UIMessage? { composer.wordMessage }

    struct Layout { var banner: Int; var view: Rect; var compose: Rect; var speak: Rect; var send: Rect; var suggestions: Rect; var keyboard: Rect; var clear: Rect }

    func layout(_ b: Rect, keyRows: Int, large: Bool = false) -> Layout {
        let rows = keyRows + 1
        let keyH = KeyboardLayout.keyHeight(body: b.h, fixed: 1 + 3 + 3 + 3, minText: 5, rows: rows, large: large)
        let x = b.x + 1, w = b.w - 2
        let kbH = rows * keyH
        let viewH = b.h - 1 - 3 - 3 - kbH - 3
        let view = Rect(x: x, y: b.y + 1, w: w, h: viewH)
        let sw = 12
        let compose = Rect(x: x, y: view.maxY, w: w - 2 * sw - 2, h: 3)
        let speak = Rect(x: compose.maxX + 1, y: view.maxY, w: sw, h: 3)
        let send = Rect(x: speak.maxX + 1, y: view.maxY, w: sw, h: 3)
        let sugg = Rect(x: x, y: compose.maxY, w: w, h: 3)
        let kb = Rect(x: x, y: sugg.maxY, w: w, h: kbH)
        return Layout(banner: b.y, view: view, compose: compose, speak: speak, send: send, suggestions: sugg, keyboard: kb,
                      clear: Rect(x: x, y: kb.maxY, w: w, h: 3))
    }

    /// The conversation as display lines: the contact's messages on the left, the user's on the right.
    func lines(_ ctx: ScreenContext, width: Int) -> [ListRow] {
        let store = ctx.data
        let them = AppData.name(of: contact, ctx.catalog)
        var out: [ListRow] = []
        let bubble = max(10, width * 2 / 3)
        for m in store.messages(with: contact) {
            let who = m.fromMe ? ctx.tr("You") : them
            let wrapped = Canvas.wrap(AppData.shown(m, ctx.catalog), width: bubble - who.count - 2)
            for (k, l) in wrapped.enumerated() {
                let text = (k == 0 ? who + ": " : String(repeating: " ", count: who.count + 2)) + l
                let pad = m.fromMe ? max(0, width - 2 - CellGrid.columns(of: text)) : 0
                out.append(ListRow(id: nil, String(repeating: " ", count: pad) + text,
                                   style: m.fromMe ? Style(fg: .cyan) : Theme.tileLabel))
            }
        }
        if store.isTyping(contact) { out.append(ListRow(id: nil, ctx.tr("{name} is typing…", ["name": them]), style: Theme.hint)) }
        return out
    }

    func list(_ rows: Int, _ view: Rect) -> ScrollList {
        if let s = scrolled { return s }
        var l = ScrollList(rowHeight: 1)
        l.scrollToEnd(count: rows, in: view)
        return l
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds, keyRows: ctx.keymap.keyboardRows.count, large: ctx.settings.largeTargets)
        if let p = ctx.data.messagesProblem {
            c.text(p.text(ctx.catalog), x: c.bounds.x + 2, y: l.banner, style: Theme.error, maxWidth: c.bounds.w - 4)
        } else {
            c.text(wordMessage?.text(ctx.catalog) ?? ctx.tr("Practice: nobody receives this. Type with the keys below; ⏎ sends."), x: c.bounds.x + 2,
                   y: l.banner, style: wordMessage == nil ? Theme.warning : Theme.hint, maxWidth: c.bounds.w - 4)
        }
        let rows = lines(ctx, width: l.view.w - ScrollList.barWidth - 1)
        c.scrollList("conversation.view", rows, list(rows.count, l.view), l.view, empty: ctx.tr("No messages yet."))
        composer.renderField(&c, label: ctx.tr("Message"), placeholder: ctx.tr("Write a message…"), l.compose)
        c.button("conversation.speak", ctx.speaking ? ctx.tr("■ Stop") : ctx.tr("♪ Speak"), l.speak)
        c.button("conversation.send", ctx.tr("➤ Send"), l.send)
        composer.renderSuggestions(&c, ctx, l.suggestions)
        composer.renderKeyboard(&c, ctx, l.keyboard)
        c.holdToConfirm("conversation.clear", ctx.tr("Clear conversation"), clear, screen: name, ctx, l.clear)
    }

    func suggestions(_ ctx: ScreenContext) -> [String] { composer.suggestions(ctx) }

    /// Speak: the draft being written, else the last message the contact sent (read aloud); Stop while speaking.
    func speak(_ ctx: ScreenContext) -> Reply {
        if ctx.speaking { return Reply(effects: [.stopSpeaking], record: "stop-speaking") }
        var text = compose.text.trimmingSpaces
        if text.isEmpty { text = ctx.data.messages(with: contact).last(where: { !$0.fromMe }).map { AppData.shown($0, ctx.catalog) } ?? "" }
        guard !text.isEmpty else { return Reply(record: "speak") }
        return Reply(effects: [ctx.speakEffect(text)], record: "speak")
    }

    mutating func send(_ ctx: ScreenContext) -> Reply {
        let text = compose.text.trimmingSpaces
        guard !text.isEmpty else { return .handled }
        // Sending finishes a last word typed letter by letter, as a space would (a committed one ends in a space).
        let learn = Effect.learnFinishedWord(compose.text) + Effect.learnSentences(text)
        composer.field = TextFieldModel()
        composer.initialsFrom = composer.initialsFrom == nil ? nil : 0
        scrolled = nil
        return Reply(effects: learn, record: "send", changes: [.send(text, to: contact, at: ctx.now)])
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        // What the partner said last is the context of the reply being written (initials expansion).
        composer.partner = ctx.data.messages(with: contact).last(where: { !$0.fromMe }).map { AppData.shown($0, ctx.catalog) } ?? ""
        let textBefore = composer.field.text
        var reply = handleInput(input, ctx)
        if composer.field.text != textBefore {
            composer.wordMessage = nil
            // The draft is kept as it is typed, so it survives a crash; a sent message clears it.
            reply.changes.append(.setDraft(composer.field.text, contact: contact))
        }
        return reply
    }

    mutating func handleInput(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch clear.handle(input, id: "conversation.clear", screen: name, ctx) {
        case .confirmed:
            scrolled = nil
            return Reply(record: "clear", changes: [.clear(contact: contact)])
        case .armed: return Reply(record: "arm")
        case .cancelled: return Reply(record: "cancel")
        case .changed: return .handled
        case .ignored: break
        }
        if case .tick(let now) = input { return deliverReplies(ctx, at: now) }
        let l = layout(ctx.bounds, keyRows: ctx.keymap.keyboardRows.count, large: ctx.settings.largeTargets)
        let count = lines(ctx, width: l.view.w - ScrollList.barWidth - 1).count
        var view = list(count, l.view)
        if view.handle(input, id: "conversation.view", count: count, in: l.view) {
            scrolled = view.offset >= view.maxOffset(count: count, in: l.view) ? nil : view
            return Reply(record: "scroll")
        }
        if case .action(.activate, let t?, _) = input, t.id == "conversation.send" { return send(ctx) }
        if case .action(.activate, let t?, _) = input, t.id == "conversation.speak" { return speak(ctx) }
        if case .action(.speak, _, _) = input { return speak(ctx) }
        if case .action(.savePhrase, _, _) = input {
            let text = compose.text.trimmingSpaces
            guard !text.isEmpty else { composer.wordMessage = UIMessage("Write something first, then save it as a phrase."); return .handled }
            composer.wordMessage = UIMessage("Saved “{phrase}” to your phrases (Phrases › Saved).", ["phrase": text])
            return Reply(record: "save-phrase", changes: [.addPhrase(text, group: "saved")])
        }
        switch composer.handle(input, ctx) {
        case .submit?: return send(ctx)
        case .handled(let record, let effects)?: return Reply(effects: effects, record: record)
        case nil: break
        }
        switch input {
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: N_("Practice conversation")))
        default:
            return .unhandled
        }
    }
}

/// A tick on a messages screen: the replies due arrive (shown: handled); owed replies from before a restart
/// start their delay (nothing to show yet).
func deliverReplies(_ ctx: ScreenContext, at now: Double) -> Reply {
    guard ctx.data.repliesWaiting(at: now) else { return .unhandled }
    return Reply(handled: ctx.data.repliesDue(at: now), changes: [.deliverReplies(at: now)])
}
