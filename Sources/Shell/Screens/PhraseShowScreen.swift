import Localization
/// Show mode of the phrase board: a phrase that could not be said aloud (no speaker, no voice that starts)
/// fills the screen in big letters, for the person in the room to read, with why it was not spoken. Back
/// (the usual gesture, Esc, or the button) returns to the board.
public struct PhraseShowScreen: Screen {
    public let name = "phrase-show"
    public let title = N_("Show phrase")
    public var wantsTicks: Bool { false }
    /// The phrase shown.
    public var text: String
    /// Why it was not heard, as the speaker said it.
    public var why: UIMessage
    public static let backID = "phrase-show.back"

    public init(text: String, why: UIMessage) { self.text = text; self.why = why }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        var y = b.y
        for line in Canvas.wrap(ctx.tr("Not spoken aloud: {reason}", ["reason": why.text(ctx.catalog)]), width: b.w - 4).prefix(4) {
            c.text(line, x: b.x + 2, y: y, style: Theme.warning, maxWidth: b.w - 4)
            y += 1
        }
        c.text(ctx.tr("Show this screen to the person you are talking to."), x: b.x + 2, y: y, style: Theme.hint, maxWidth: b.w - 4)
        let button = Rect(x: b.x + (b.w - 30) / 2, y: b.maxY - 3, w: 30, h: 3)
        let area = Rect(x: b.x + 2, y: y + 2, w: b.w - 4, h: button.y - y - 3)
        if let big = BigText.lines(text, width: area.w), big.count * (BigText.height + 1) - 1 <= area.h {
            var row = area.y + max(0, (area.h - (big.count * (BigText.height + 1) - 1)) / 2)
            for line in big {
                for r in line { c.grid.centered(r, in: area, y: row, style: Theme.tileLabel); row += 1 }
                row += 1
            }
        } else {
            // Too long, or letters the big font lacks: the phrase as it is, bold and centred.
            let lines = Canvas.wrap(text, width: area.w)
            var row = area.y + max(0, (area.h - lines.count) / 2)
            for l in lines.prefix(area.h) { c.grid.centered(l, in: area, y: row, style: Theme.tileLabel); row += 1 }
        }
        c.button(Self.backID, ctx.tr("◀ Back to the phrases"), button)
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let t?, _) = input, t.id == Self.backID else { return .unhandled }
        return Reply(navigation: .back, record: "back")
    }
}
