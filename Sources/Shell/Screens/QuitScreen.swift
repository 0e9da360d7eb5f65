import Config
import Localization

/// Asked before quitting while some of the user's text could not be saved: quitting would lose it.
///
/// Three ways on: write a copy to a fallback place and quit (the runtime picks the state folder, else the
/// temporary folder, and names where it went), quit anyway (a held confirmation, the phrase "quit anyway", or
/// the quit phrase said again), or stay with the text.
public struct QuitScreen: Screen {
    public static let screenName = "quit"
    public let name = QuitScreen.screenName
    public let title = N_("Quit?")
    var quitAnyway = HoldToConfirm()
    /// A copy is being written (the `rescue` effect is out): a second request would write a second copy.
    public private(set) var writing = false

    public init() {}

    /// What could not be saved, in words: "your 2 notes and the message you are writing".
    static func describe(_ data: AppData, _ c: Catalog = .english) -> String {
        var parts: [String] = []
        if data.saveErrors[AppData.notesFile] != nil {
            parts.append(c.trn("your note", "your {n} notes", data.notes.count))
        }
        if data.saveErrors[AppData.messagesFile] != nil { parts.append(c.tr("your messages")) }
        if data.saveErrors[AppData.phrasesFile] != nil { parts.append(c.tr("your phrases")) }
        if data.saveErrors[AppData.draftsFile] != nil {
            parts.append(c.trn("the message you are writing", "the {n} messages you are writing", data.drafts.count))
        }
        return parts.dropFirst().reduce(parts.first ?? c.tr("nothing")) { c.tr("{first} and {second}", ["first": $0, "second": $1]) }
    }

    struct Layout { var text: Rect; var save: Rect; var quit: Rect; var stay: Rect }

    func layout(_ b: Rect) -> Layout {
        let x = b.x + 2, w = b.w - 4
        let buttonH = max(3, min(5, (b.h - 8) / 3))
        let textH = max(2, b.h - 3 * buttonH - 4)
        let text = Rect(x: x, y: b.y + 1, w: w, h: textH)
        let save = Rect(x: x, y: text.maxY + 1, w: w, h: buttonH)
        let quit = Rect(x: x, y: save.maxY + 1, w: w, h: buttonH)
        return Layout(text: text, save: save, quit: quit, stay: Rect(x: x, y: quit.maxY + 1, w: w, h: buttonH))
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds)
        let why = Set(ctx.data.saveErrors.values.map { $0.text(ctx.catalog) }).sorted().joined(separator: "; ")
        let what = Self.describe(ctx.data, ctx.catalog)
        let lines = ctx.data.saveErrors.isEmpty ? [ctx.tr("Everything you wrote is saved: quitting loses nothing.")]
            : [ctx.tr("Not saved: {what} ({why}). Quitting now would lose what you wrote.", ["what": what, "why": why]),
               ctx.tr("A copy goes to your state folder, or if that fails to the temporary folder, and the shell says where.")]
        _ = c.paragraph(lines.joined(separator: " "), l.text, style: Theme.error)
        c.button("quit.save", writing ? ctx.tr("Writing a copy…") : ctx.tr("Save a copy and quit"), l.save)
        c.holdToConfirm("quit.anyway", ctx.tr("Quit anyway"), quitAnyway, screen: name, ctx, l.quit)
        c.button("quit.stay", ctx.tr("◀ Stay with my text"), l.stay)
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch quitAnyway.handle(input, id: "quit.anyway", screen: name, ctx) {
        case .confirmed: return Reply(effects: [.quit], record: "quit")
        case .armed: return Reply(record: "arm")
        case .cancelled: return Reply(record: "cancel")
        case .changed: return .handled
        case .ignored: break
        }
        switch input {
        case .action(.activate, let t?, _) where t.id == "quit.save":
            guard !writing else { return .handled }
            let files = ctx.data.unsavedFiles
            guard !files.isEmpty else { return Reply(effects: [.quit], record: "quit") }
            writing = true
            return Reply(effects: [.rescue(files: files)], record: "save-copy")
        case .action(.activate, let t?, _) where t.id == "quit.stay":
            return Reply(navigation: .back, record: "back")
        case .action(.quit, _, _):
            // Said again here ("quit anyway", "quit shell"), quitting is what the user asked for twice.
            return Reply(effects: [.quit], record: "quit")
        default:
            return .unhandled
        }
    }

    /// The `rescue` effect has been carried out (the reducer quits when it worked, else shows why not).
    mutating func rescueEnded() { writing = false }
}
