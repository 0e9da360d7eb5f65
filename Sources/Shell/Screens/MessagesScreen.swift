import Config
import Localization

/// Practice chat: made-up people whose canned replies arrive after a moment; nothing is sent anywhere. It
/// says so in its title, its first line and its help, so nobody believes they answered a real person.
/// Activating a person opens the conversation. Replies on their way arrive here too.
public struct MessagesScreen: Screen {
    public let name = "messages"
    public let title = N_("Practice chat")
    var list = ScrollList(rowHeight: 3)

    public init() {}

    func listRect(_ b: Rect) -> Rect { Rect(x: b.x + 2, y: b.y + 2, w: b.w - 4, h: b.h - 2) }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        let store = ctx.data
        if let p = store.messagesProblem {
            c.text(p.text(ctx.catalog), x: b.x + 2, y: b.y, style: Theme.error, maxWidth: b.w - 4)
        } else {
            c.text(ctx.tr("Practice: nobody receives these messages. People and replies are made up."),
                   x: b.x + 2, y: b.y, style: Theme.warning, maxWidth: b.w - 4)
        }
        c.text(ctx.tr("Look at a person and {how} to open the conversation.", ["how": activateHint(ctx)]), x: b.x + 2, y: b.y + 1, style: Theme.hint,
               maxWidth: b.w - 4)
        let rows = AppData.contacts.map { p -> ListRow in
            let last = store.messages(with: p.id).last
            let preview = store.isTyping(p.id) ? ctx.tr("typing…")
                : last.map { $0.fromMe ? ctx.tr("You: {text}", ["text": $0.text]) : AppData.shown($0, ctx.catalog) } ?? ""
            return ListRow(id: "messages.contact." + p.id, ctx.tr(p.name), detail: preview)
        }
        c.scrollList("messages.list", rows, list, listRect(b))
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        if list.handle(input, id: "messages.list", count: AppData.contacts.count, in: listRect(ctx.bounds)) { return Reply(record: "scroll") }
        switch input {
        case .tick(let now):
            return deliverReplies(ctx, at: now)
        case .action(.activate, let t?, _) where t.id.hasPrefix("messages.contact."):
            let contact = String(t.id.dropFirst("messages.contact.".count))
            return .push(ConversationScreen(contact: contact, draft: ctx.data.draft(for: contact)))
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }
}
